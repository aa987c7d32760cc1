/* Radix level: straight-line DFT codelets of any radix up to
 * HY_MAX_DIRECT_PRIME. Composite radices split recursively by their
 * smallest prime (decimation in time) with constant twiddles, so 4, 8 and
 * 16 become radix-2 networks whose twiddles are mostly the trivial +-1, +-i
 * and (+-1 +-i)/sqrt(2); odd primes use the symmetric pair formula (about
 * half the multiplies of a plain DFT). All constants are evaluated in long
 * double with an exact angle reduction and rounded once. */
#include <stdio.h>

#include "codegen/cg_internal.h"
#include "tables/twiddle.h"

#define HY_CG_MAX_RADIX 64

typedef char hy_cg_name[16];

typedef struct hy_cg_radix {
  hy_strbuf *sb;
  hyfft_precision precision;
  int tmp;
  int cpu; /* 1: constants for the CPU codelets, long double cast to hy_r */
} hy_cg_radix;

void hy_cg_literal(hy_strbuf *sb, hyfft_precision precision, long double v) {
  if (precision == HYFFT_F64) {
    double d = (double)v;
    hy_strbuf_appendf(sb, d < 0 ? "(%.17e)" : "%.17e", d);
  } else {
    float f = (float)v;
    hy_strbuf_appendf(sb, f < 0 ? "(%.9ef)" : "%.9ef", (double)f);
  }
}

/* A constant as the codelet's dialect writes it: the pass's precision on
 * a GPU; on the CPU the long double value cast to the engine's element
 * type (hy_r), so one text serves both of its precisions. */
static void hy_cg_const(hy_cg_radix *g, long double v) {
  if (g->cpu)
    hy_strbuf_appendf(g->sb, "((hy_r)%.21LeL)", v);
  else
    hy_cg_literal(g->sb, g->precision, v);
}

static void hy_cg_tmp(hy_cg_radix *g, hy_cg_name name) {
  snprintf(name, sizeof(hy_cg_name), "t%d", g->tmp++);
  hy_strbuf_appendf(g->sb, "    %s %s;\n", g->cpu ? "hy_c2" : "real2", name);
}

/* v *= exp(sign*2*pi*i*m/n), with the exact cases spelled out. */
static void hy_cg_twiddle_const(hy_cg_radix *g, const char *v, int64_t m, int64_t n, int sign) {
  hy_strbuf *sb = g->sb;
  m %= n;
  if (m == 0) return;
  if ((8 * m) % n == 0) {
    int q = (int)(8 * m / n);
    if (q == 4) {
      hy_strbuf_appendf(sb, "    %s = MK(-%s.x, -%s.y);\n", v, v, v);
      return;
    }
    if (q == 2 || q == 6) { /* multiply by +-i */
      int s = (q == 2 ? 1 : -1) * sign;
      if (s > 0)
        hy_strbuf_appendf(sb, "    %s = MK(-%s.y, %s.x);\n", v, v, v);
      else
        hy_strbuf_appendf(sb, "    %s = MK(%s.y, -%s.x);\n", v, v, v);
      return;
    }
    /* odd octant: (cr + i*ci)/sqrt(2) with cr, ci = +-1 */
    int cr = (q == 1 || q == 7) ? 1 : -1;
    int ci = ((q == 1 || q == 3) ? 1 : -1) * sign;
    hy_strbuf_appendf(sb, "    %s = MK((%s%s.x %s %s.y) * ", v, cr > 0 ? "" : "-", v,
                      ci > 0 ? "-" : "+", v);
    hy_cg_const(g, 0.707106781186547524400844362104849039L);
    hy_strbuf_appendf(sb, ", (%s%s.x %s %s.y) * ", ci > 0 ? "" : "-", v, cr > 0 ? "+" : "-", v);
    hy_cg_const(g, 0.707106781186547524400844362104849039L);
    hy_strbuf_append(sb, ");\n");
    return;
  }
  long double c, s;
  hy_twiddle_ld(m, n, sign, &c, &s);
  hy_strbuf_appendf(sb, "    %s = MK(%s.x * ", v, v);
  hy_cg_const(g, c);
  hy_strbuf_appendf(sb, " - %s.y * ", v);
  hy_cg_const(g, s);
  hy_strbuf_appendf(sb, ", %s.x * ", v);
  hy_cg_const(g, s);
  hy_strbuf_appendf(sb, " + %s.y * ", v);
  hy_cg_const(g, c);
  hy_strbuf_append(sb, ");\n");
}

static int hy_cg_smallest_prime(int n) {
  for (int p = 2; p * p <= n; p++)
    if (n % p == 0) return p;
  return n;
}

/* Odd prime p: y_k = A_k + i*sign*B_k, y_{p-k} = A_k - i*sign*B_k with
 * A_k = x0 + sum_j cos(2 pi jk/p) (x_j + x_{p-j}),
 * B_k = sum_j sin(2 pi jk/p) (x_j - x_{p-j}). */
static void hy_cg_dft_prime(hy_cg_radix *g, int p, int sign, const char *const *in,
                            const char *const *out) {
  hy_strbuf *sb = g->sb;
  int h = (p - 1) / 2;
  hy_cg_name S[HY_CG_MAX_RADIX / 2], D[HY_CG_MAX_RADIX / 2];
  for (int j = 1; j <= h; j++) {
    hy_cg_tmp(g, S[j]);
    hy_cg_tmp(g, D[j]);
    hy_strbuf_appendf(sb, "    %s = MK(%s.x + %s.x, %s.y + %s.y);\n", S[j], in[j], in[p - j],
                      in[j], in[p - j]);
    hy_strbuf_appendf(sb, "    %s = MK(%s.x - %s.x, %s.y - %s.y);\n", D[j], in[j], in[p - j],
                      in[j], in[p - j]);
  }
  for (int k = 1; k <= h; k++) {
    hy_cg_name A, B;
    hy_cg_tmp(g, A);
    hy_cg_tmp(g, B);
    for (int part = 0; part < 2; part++) {
      const char *c = part ? "y" : "x";
      hy_strbuf_appendf(sb, "    %s.%s = %s.%s", A, c, in[0], c);
      for (int j = 1; j <= h; j++) {
        long double cr, ci;
        hy_twiddle_ld((int64_t)j * k, p, 1, &cr, &ci);
        hy_strbuf_appendf(sb, " + %s.%s * ", S[j], c);
        hy_cg_const(g, cr);
      }
      hy_strbuf_append(sb, ";\n");
      hy_strbuf_appendf(sb, "    %s.%s = ", B, c);
      for (int j = 1; j <= h; j++) {
        long double cr, ci;
        hy_twiddle_ld((int64_t)j * k, p, 1, &cr, &ci);
        hy_strbuf_appendf(sb, "%s%s.%s * ", j > 1 ? " + " : "", D[j], c);
        hy_cg_const(g, ci);
      }
      hy_strbuf_append(sb, ";\n");
    }
    if (sign < 0) {
      hy_strbuf_appendf(sb, "    %s = MK(%s.x + %s.y, %s.y - %s.x);\n", out[k], A, B, A, B);
      hy_strbuf_appendf(sb, "    %s = MK(%s.x - %s.y, %s.y + %s.x);\n", out[p - k], A, B, A, B);
    } else {
      hy_strbuf_appendf(sb, "    %s = MK(%s.x - %s.y, %s.y + %s.x);\n", out[k], A, B, A, B);
      hy_strbuf_appendf(sb, "    %s = MK(%s.x + %s.y, %s.y - %s.x);\n", out[p - k], A, B, A, B);
    }
  }
  /* y0 last: in[] may not alias out[], but keep the sums together. */
  for (int part = 0; part < 2; part++) {
    const char *c = part ? "y" : "x";
    hy_strbuf_appendf(sb, "    %s.%s = %s.%s", out[0], c, in[0], c);
    for (int j = 1; j <= h; j++) hy_strbuf_appendf(sb, " + %s.%s", S[j], c);
    hy_strbuf_append(sb, ";\n");
  }
}

static void hy_cg_dft_rec(hy_cg_radix *g, int radix, int sign, const char *const *in,
                          const char *const *out) {
  hy_strbuf *sb = g->sb;
  if (radix == 1) {
    hy_strbuf_appendf(sb, "    %s = %s;\n", out[0], in[0]);
    return;
  }
  if (radix == 2) {
    hy_strbuf_appendf(sb, "    %s = MK(%s.x + %s.x, %s.y + %s.y);\n", out[0], in[0], in[1], in[0],
                      in[1]);
    hy_strbuf_appendf(sb, "    %s = MK(%s.x - %s.x, %s.y - %s.y);\n", out[1], in[0], in[1], in[0],
                      in[1]);
    return;
  }
  int a = hy_cg_smallest_prime(radix);
  /* The CPU codelets split a multiple of 16 as 4 x (radix / 4): radix-4
   * butterflies, whose twiddles are all trivial, in two levels instead of
   * radix-2 in four (fewer operations for 16). */
  if (g->cpu && radix % 16 == 0) a = 4;
  if (a == radix) {
    hy_cg_dft_prime(g, radix, sign, in, out);
    return;
  }
  /* radix = a*b, input n = b*n1 + n2, output k = k1 + a*k2. */
  int b = radix / a;
  hy_cg_name t[HY_CG_MAX_RADIX];
  for (int i = 0; i < radix; i++) hy_cg_tmp(g, t[i]);
  for (int n2 = 0; n2 < b; n2++) {
    const char *sub_in[HY_CG_MAX_RADIX], *sub_out[HY_CG_MAX_RADIX];
    for (int n1 = 0; n1 < a; n1++) {
      sub_in[n1] = in[b * n1 + n2];
      sub_out[n1] = t[n2 * a + n1];
    }
    hy_cg_dft_rec(g, a, sign, sub_in, sub_out);
    for (int k1 = 1; k1 < a; k1++) hy_cg_twiddle_const(g, t[n2 * a + k1], (int64_t)n2 * k1, radix, sign);
  }
  for (int k1 = 0; k1 < a; k1++) {
    const char *sub_in[HY_CG_MAX_RADIX], *sub_out[HY_CG_MAX_RADIX];
    for (int n2 = 0; n2 < b; n2++) {
      sub_in[n2] = t[n2 * a + k1];
      sub_out[n2] = out[k1 + a * n2];
    }
    hy_cg_dft_rec(g, b, sign, sub_in, sub_out);
  }
}

void hy_cg_emit_dft(hy_strbuf *sb, hyfft_precision precision, int radix, int sign,
                    const char *const *in, const char *const *out) {
  hy_cg_radix g = {sb, precision, 0, 0};
  hy_strbuf_append(sb, "    {\n");
  hy_cg_dft_rec(&g, radix, sign, in, out);
  hy_strbuf_append(sb, "    }\n");
}

void hy_cg_emit_dft_cpu(hy_strbuf *sb, int radix, int sign, const char *const *in,
                        const char *const *out) {
  hy_cg_radix g = {sb, HYFFT_F64, 0, 1};
  hy_strbuf_append(sb, "    {\n");
  hy_cg_dft_rec(&g, radix, sign, in, out);
  hy_strbuf_append(sb, "    }\n");
}
