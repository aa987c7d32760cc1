/* Kernel level: the pointwise steps of real-to-real transforms
 * (HY_PASS_R2R_PRE, HY_PASS_R2R_POST; what each kind computes is in
 * solvers/r2r.c, the CPU's version in backend/cpu/ops_r2r.c). One thread
 * per element it writes (the N complex values of PRE, the n reals of
 * POST), the axis index varying fastest. The kind is fixed when the
 * kernel is generated, so each kernel holds one kind's formula only; the
 * twiddles come from a table (planner/r2r_twiddle.h). Dialect-neutral:
 * the same text is CUDA C and OpenCL C through the prelude's macros. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/cg_internal.h"
#include "planner/r2r_twiddle.h"

/* Highest offset a side reaches (in its own elements). */
static int64_t hy_cg_r2r_extent(const hy_pass *pass, int out) {
  int64_t e = out ? pass->dst_offset : pass->src_offset;
  e += (pass->axis.n - 1) * llabs(out ? pass->axis.out_stride : pass->axis.in_stride);
  if (!out && pass->op == HY_PASS_R2R_POST)
    e = pass->src_offset + (pass->r2r_len - 1) * llabs(pass->axis.in_stride);
  if (out && pass->op == HY_PASS_R2R_PRE)
    e = pass->dst_offset + (pass->r2r_len - 1) * llabs(pass->axis.out_stride);
  for (int l = 0; l < pass->nloops; l++)
    e += (pass->loops[l].n - 1) * llabs(out ? pass->loops[l].out_stride : pass->loops[l].in_stride);
  return e;
}

/* Where an emitted step reads: global memory at base + (idx)(expr) *
 * stride, or (POST fused into a DFT pass) local memory row mm; `tab` names
 * its twiddle table and `in` the indentation. */
typedef struct hy_cg_r2r_io {
  const char *base, *idx, *tab, *in;
  long long stride;
  hy_cg_kernel *lds; /* non-NULL: complex values from local memory */
} hy_cg_r2r_io;

static void hy_cg_r2r_at(const hy_cg_r2r_io *io, const char *expr, char *out, size_t size) {
  if (io->lds)
    hy_cg_real_lds(io->lds, expr, out, size);
  else
    snprintf(out, size, "src[%s + (%s)(%s) * %lld]", io->base, io->idx, expr, io->stride);
}

/* PRE: v, the complex element e of the row, from the n reals. */
static void hy_cg_r2r_pre(hy_strbuf *sb, const hy_pass *pass, int64_t n_, const hy_cg_r2r_io *io) {
  const long long n = (long long)n_, N = (long long)pass->r2r_len;
  const char *in = io->in;
  char a[160], b[160], e[64];
  switch ((hyfft_r2r_kind)pass->r2r_kind) {
    case HYFFT_REDFT10:
    case HYFFT_RODFT10:
      /* Makhoul's permutation; DST-II alternates the signs of x. */
      hy_strbuf_appendf(sb, "%sconst int r2j = e < %lld ? 2 * e : 2 * (%lld - e) + 1;\n", in,
                        (n + 1) / 2, n - 1);
      hy_cg_r2r_at(io, "r2j", a, sizeof a);
      hy_strbuf_appendf(sb, "%sreal r2x = %s;\n", in, a);
      if (pass->r2r_kind == HYFFT_RODFT10) hy_strbuf_appendf(sb, "%sif (r2j & 1) r2x = -r2x;\n", in);
      hy_strbuf_appendf(sb, "%sreal2 r2v = MK(r2x, (real)0);\n", in);
      break;
    case HYFFT_REDFT01:
    case HYFFT_RODFT01: {
      /* (a - i b) tab[e], a = x_e, b = x_n-e (0 for e = 0); DST-III reads
       * x reversed. */
      int dst = pass->r2r_kind == HYFFT_RODFT01;
      snprintf(e, sizeof e, dst ? "%lld - e" : "e", n - 1);
      hy_cg_r2r_at(io, e, a, sizeof a);
      snprintf(e, sizeof e, dst ? "e - 1" : "%lld - e", n);
      hy_cg_r2r_at(io, e, b, sizeof b);
      hy_strbuf_appendf(sb, "%sconst real r2a = %s;\n%sconst real r2b = e == 0 ? (real)0 : %s;\n", in, a,
                        in, b);
      hy_strbuf_appendf(sb, "%sconst real2 r2w = %s[e];\n%sreal2 r2v = MK(r2a * r2w.x + r2b * r2w.y, r2a * r2w.y - r2b * r2w.x);\n",
                        in, io->tab, in);
      break;
    }
    case HYFFT_REDFT11:
    case HYFFT_RODFT11:
      if (n % 2 == 0) {
        /* (x_2e + i x_n-1-2e) tab[e]; DST-IV negates the odd-index x. */
        hy_cg_r2r_at(io, "2 * e", a, sizeof a);
        snprintf(e, sizeof e, "%lld - 2 * e", n - 1);
        hy_cg_r2r_at(io, e, b, sizeof b);
        hy_strbuf_appendf(sb, "%sconst real r2a = %s;\n%sconst real r2b = %s%s;\n", in, a, in,
                          pass->r2r_kind == HYFFT_RODFT11 ? "-" : "", b);
        hy_strbuf_appendf(sb, "%sconst real2 r2w = %s[e];\n%sreal2 r2v = MK(r2a * r2w.x - r2b * r2w.y, r2a * r2w.y + r2b * r2w.x);\n",
                          in, io->tab, in);
        break;
      }
      hy_cg_r2r_at(io, "e", a, sizeof a);
      hy_strbuf_appendf(sb, "%sreal2 r2v = MK((real)0, (real)0);\n%sif (e < %lld) {\n", in, in, n);
      hy_strbuf_appendf(sb, "%s  const real r2x = %s;\n%s  const real2 r2w = %s[e];\n", in, a, in, io->tab);
      hy_strbuf_appendf(sb, "%s  r2v = MK(r2x * r2w.x, r2x * r2w.y);\n%s}\n", in, in);
      break;
    case HYFFT_REDFT00:
      snprintf(e, sizeof e, "e < %lld ? e : %lld - e", n, N);
      hy_cg_r2r_at(io, e, a, sizeof a);
      hy_strbuf_appendf(sb, "%sreal2 r2v = MK(%s, (real)0);\n", in, a);
      break;
    case HYFFT_RODFT00:
      hy_cg_r2r_at(io, "e - 1", a, sizeof a);
      snprintf(e, sizeof e, "%lld - e", N - 1);
      hy_cg_r2r_at(io, e, b, sizeof b);
      hy_strbuf_appendf(sb, "%sreal r2x = (real)0;\n%sif (e >= 1 && e <= %lld) r2x = %s;\n", in, in, n, a);
      hy_strbuf_appendf(sb, "%selse if (e > %lld) r2x = -%s;\n%sreal2 r2v = MK(r2x, (real)0);\n", in, n + 1,
                        b, in);
      break;
    default: /* HYFFT_DHT */
      hy_cg_r2r_at(io, "e", a, sizeof a);
      hy_strbuf_appendf(sb, "%sreal2 r2v = MK(%s, (real)0);\n", in, a);
      break;
  }
}

/* POST: y, the real output e of the row, from the complex values. */
static void hy_cg_r2r_post(hy_strbuf *sb, const hy_pass *pass, int64_t n_, const hy_cg_r2r_io *io) {
  const long long n = (long long)n_;
  const char *in = io->in;
  char z[160];
  switch ((hyfft_r2r_kind)pass->r2r_kind) {
    case HYFFT_REDFT10:
    case HYFFT_RODFT10:
      /* 2 Re(tab[kk] X_kk); DST-II writes it reversed. */
      if (pass->r2r_kind == HYFFT_RODFT10)
        hy_strbuf_appendf(sb, "%sconst int r2k = %lld - e;\n", in, n - 1);
      else
        hy_strbuf_appendf(sb, "%sconst int r2k = e;\n", in);
      hy_cg_r2r_at(io, "r2k", z, sizeof z);
      hy_strbuf_appendf(sb, "%sconst real2 r2z = %s, r2w = %s[r2k];\n", in, z, io->tab);
      hy_strbuf_appendf(sb, "%sreal r2y = (real)2 * (r2w.x * r2z.x - r2w.y * r2z.y);\n", in);
      break;
    case HYFFT_REDFT01:
    case HYFFT_RODFT01:
      /* Even outputs from the front, odd ones from the back; DST-III
       * alternates the signs. */
      hy_strbuf_appendf(sb, "%sconst int r2k = (e & 1) == 0 ? e / 2 : %lld - (e - 1) / 2;\n", in, n - 1);
      hy_cg_r2r_at(io, "r2k", z, sizeof z);
      hy_strbuf_appendf(sb, "%sreal r2y = %s.x;\n", in, z);
      if (pass->r2r_kind == HYFFT_RODFT01) hy_strbuf_appendf(sb, "%sif (e & 1) r2y = -r2y;\n", in);
      break;
    case HYFFT_REDFT11:
    case HYFFT_RODFT11:
      if (n % 2 == 0) {
        /* W_k = tab[k] X_k: Y_2k = 2 Re W_k, Y_n-1-2k = -2 Im W_k; DST-IV
         * reads its outputs reversed. */
        if (pass->r2r_kind == HYFFT_RODFT11)
          hy_strbuf_appendf(sb, "%sconst int r2q = %lld - e;\n", in, n - 1);
        else
          hy_strbuf_appendf(sb, "%sconst int r2q = e;\n", in);
        hy_strbuf_appendf(sb, "%sconst int r2k = (r2q & 1) == 0 ? r2q / 2 : (%lld - r2q) / 2;\n", in,
                          n - 1);
        hy_cg_r2r_at(io, "r2k", z, sizeof z);
        hy_strbuf_appendf(sb, "%sconst real2 r2z = %s, r2w = %s[r2k];\n", in, z, io->tab);
        hy_strbuf_appendf(sb, "%sreal r2y = (r2q & 1) == 0 ? (real)2 * (r2w.x * r2z.x - r2w.y * r2z.y)\n"
                              "%s                           : (real)-2 * (r2w.x * r2z.y + r2w.y * r2z.x);\n",
                          in, in);
        break;
      }
      hy_cg_r2r_at(io, "e", z, sizeof z);
      hy_strbuf_appendf(sb, "%sconst real2 r2z = %s, r2w = %s[e];\n", in, z, io->tab);
      if (pass->r2r_kind == HYFFT_REDFT11)
        hy_strbuf_appendf(sb, "%sreal r2y = (real)2 * (r2w.x * r2z.x - r2w.y * r2z.y);\n", in);
      else
        hy_strbuf_appendf(sb, "%sreal r2y = (real)-2 * (r2w.x * r2z.y + r2w.y * r2z.x);\n", in);
      break;
    case HYFFT_REDFT00:
      hy_cg_r2r_at(io, "e", z, sizeof z);
      hy_strbuf_appendf(sb, "%sreal r2y = %s.x;\n", in, z);
      break;
    case HYFFT_RODFT00:
      hy_cg_r2r_at(io, "e + 1", z, sizeof z);
      hy_strbuf_appendf(sb, "%sreal r2y = -%s.y;\n", in, z);
      break;
    default: /* HYFFT_DHT */
      hy_cg_r2r_at(io, "e", z, sizeof z);
      hy_strbuf_appendf(sb, "%sconst real2 r2z = %s;\n%sreal r2y = r2z.x - r2z.y;\n", in, z, in);
      break;
  }
}

/* The fused steps' tables: the PRE step's as if it were its own pass (same
 * kind and n), the POST step's likewise. */
hy_status hy_cg_r2r_fused_tables(const hy_pass *pass, hy_gpu_program *prog, int *in, int *out) {
  *in = *out = -1;
  for (int side = 0; side < 2; side++) {
    if (!(pass->r2r_fuse & (1 << side))) continue;
    hy_pass step;
    hy_pass_init(&step, side ? HY_PASS_R2R_POST : HY_PASS_R2R_PRE, pass->precision, pass->sign);
    step.axis.n = pass->r2r_n;
    step.r2r_kind = pass->r2r_kind;
    step.r2r_len = pass->r2r_len;
    hy_r2r_twiddle tw;
    if (hy_r2r_twiddle_of(&step, &tw))
      HY_TRY(hy_cg_r2r_table(prog, &tw, pass->precision, side ? out : in));
  }
  return HYFFT_SUCCESS;
}

/* The half forms' PRE steps (plan.h r2r_half) and the length-n DCT-II's,
 * each into local memory; the loop variable e of hy_cg_real_loop_open
 * counts what one thread handles. */

/* DCT-II/DST-II half form: complex element c of z holds v_2c, v_2c+1, and
 * element m-1-c holds v_n-2-2c, v_n-1-2c (m = n/2). For c < m/2 these four
 * are x_4c, x_4c+2, x_4c+3, x_4c+1: thread c reads four neighbouring
 * inputs and writes two whole elements; for odd m the middle element is
 * x_n-2, x_n-1. DST-II negates the odd-index inputs. */
static void hy_cg_r2r_pre_half10(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const long long m = (long long)k->n, is = (long long)pass->axis.in_stride;
  const char *neg = pass->r2r_kind == HYFFT_RODFT10 ? "-" : "";
  char a[128], b[128], bl[160];
  hy_cg_real_lds(k, "e", a, sizeof a);
  snprintf(b, sizeof b, "%lld - e", m - 1);
  hy_cg_real_lds(k, b, bl, sizeof bl);
  hy_cg_real_loop_open(k, count, (m + 1) / 2, 0, "i2");
  hy_strbuf_appendf(sb, "      const %s r2s = i2 + (%s)(4 * e) * %lld;\n", k->idx, k->idx, is);
  hy_strbuf_appendf(sb, "      const real r2x0 = src[r2s], r2x1 = %ssrc[r2s + %lld];\n", neg, is);
  if (m % 2 == 1)
    hy_strbuf_appendf(sb, "      if (e == %lld) {\n        %s = MK(r2x0, r2x1);\n      } else {\n", m / 2, a);
  else
    hy_strbuf_append(sb, "      {\n");
  hy_strbuf_appendf(sb, "        const real r2x2 = src[r2s + %lld], r2x3 = %ssrc[r2s + %lld];\n", 2 * is,
                    neg, 3 * is);
  hy_strbuf_appendf(sb, "        %s = MK(r2x0, r2x2);\n        %s = MK(r2x3, r2x1);\n      }\n", a, bl);
}

/* DCT-II/DST-II, length-n form: Makhoul's permutation run backwards. The
 * loop walks the inputs in memory order (whole lines per warp) and each
 * lands where the permutation puts it, v_e = x_2e (e < (n+1)/2),
 * v_e = x_2(n-1-e)+1. */
static void hy_cg_r2r_pre_makhoul(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const long long n = (long long)pass->r2r_n;
  char at[128];
  hy_cg_real_lds(k, "r2e", at, sizeof at);
  hy_cg_real_loop_open(k, count, pass->r2r_n, 0, "i2");
  hy_strbuf_appendf(sb, "      const int r2e = (e & 1) == 0 ? e / 2 : %lld - e / 2;\n", n - 1);
  hy_strbuf_appendf(sb, "      real r2x = src[i2 + (%s)e * %lld];\n", k->idx,
                    (long long)pass->axis.in_stride);
  if (pass->r2r_kind == HYFFT_RODFT10) hy_strbuf_append(sb, "      if (e & 1) r2x = -r2x;\n");
  hy_strbuf_appendf(sb, "      %s = MK(r2x, (real)0);\n", at);
}

/* DHT half form: complex element c holds x_2c + i x_2c+1. */
static void hy_cg_r2r_pre_half_dht(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const long long is = (long long)k->pass->axis.in_stride;
  char at[128];
  hy_cg_real_lds(k, "e", at, sizeof at);
  hy_cg_real_loop_open(k, count, k->n, 0, "i2");
  hy_strbuf_appendf(sb, "      const %s r2s = i2 + (%s)(2 * e) * %lld;\n", k->idx, k->idx, is);
  hy_strbuf_appendf(sb, "      %s = MK(src[r2s], src[r2s + %lld]);\n", at, is);
}

/* DCT-I/DST-I half form: complex element c holds e_2c + i e_2c+1 of the
 * even extension x_0..x_n-1, x_n-2..x_1 (DCT-I, length 2(n-1)) or the odd
 * one 0, x_0..x_n-1, 0, -x_n-1..-x_0 (DST-I, length 2(n+1)). */
static void hy_cg_r2r_pre_half00(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const long long n = (long long)pass->r2r_n, N = 2 * (long long)k->n,
                  is = (long long)pass->axis.in_stride;
  char at[128];
  hy_cg_real_lds(k, "e", at, sizeof at);
  hy_cg_real_loop_open(k, count, k->n, 0, "i2");
  for (int part = 0; part < 2; part++) {
    const char *q = part ? "(2 * e + 1)" : "(2 * e)";
    if (pass->r2r_kind == HYFFT_REDFT00)
      hy_strbuf_appendf(sb, "      const real r2x%d = src[i2 + (%s)(%s < %lld ? %s : %lld - %s) * %lld];\n",
                        part, k->idx, q, n, q, N, q, is);
    else
      hy_strbuf_appendf(sb, "      const real r2x%d = %s == 0 || %s == %lld ? (real)0 : %s <= %lld ? "
                            "src[i2 + (%s)(%s - 1) * %lld] : -src[i2 + (%s)(%lld - %s) * %lld];\n",
                        part, q, q, n + 1, q, n, k->idx, q, is, k->idx, N - 1, q, is);
  }
  hy_strbuf_appendf(sb, "      %s = MK(r2x0, r2x1);\n", at);
}

/* DCT-III/DST-III half form: thread e <= m/2 (m = n/2) forms V_e and V_m-e
 * of the Hermitian length-n spectrum (the length-n form's PRE values) and
 * pairs them as the C2R step does (table fz) into Z_e and Z_m-e, whose
 * inverse DFT of m holds v_2j + i v_2j+1. */
static void hy_cg_r2r_pre_half01(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const long long m = (long long)k->n;
  char lze[128], lzj[128];
  hy_cg_real_lds(k, "e", lze, sizeof lze);
  hy_cg_real_lds(k, "j", lzj, sizeof lzj);
  hy_cg_real_loop_open(k, count, m / 2 + 1, 0, "i2");
  hy_strbuf_appendf(sb, "      const int j = %lld - e;\n      real2 r2ve, r2vj;\n      {\n", m);
  hy_cg_r2r_io io = {"i2", k->idx, "r2r_in_tab", "        ", (long long)pass->axis.in_stride, NULL};
  hy_cg_r2r_pre(sb, pass, pass->r2r_n, &io);
  hy_strbuf_append(sb, "        r2ve = r2v;\n      }\n      {\n        const int e = j;\n");
  hy_cg_r2r_pre(sb, pass, pass->r2r_n, &io);
  hy_strbuf_append(sb, "        r2vj = r2v;\n      }\n");
  hy_strbuf_append(sb, "      if (e == 0) { r2ve.y = (real)0; r2vj.y = (real)0; }\n      {\n");
  hy_cg_real_step_value(sb, 0, "r2ve", "r2vj", "fz[e]", "        ");
  hy_strbuf_appendf(sb, "        %s = v;\n      }\n", lze);
  hy_strbuf_appendf(sb, "      if (j != e && j < %lld) {\n", m);
  hy_cg_real_step_value(sb, 0, "r2vj", "r2ve", "fz[j]", "        ");
  hy_strbuf_appendf(sb, "        %s = v;\n      }\n", lzj);
}

void hy_cg_load_r2r_pre(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const hyfft_r2r_kind kind = (hyfft_r2r_kind)pass->r2r_kind;
  hy_strbuf_appendf(sb, "  /* %s pre-processing into local memory */\n", hy_r2r_kind_name(kind));
  const int k10 = kind == HYFFT_REDFT10 || kind == HYFFT_RODFT10;
  if (pass->r2r_half && k10) {
    hy_cg_r2r_pre_half10(k, count);
  } else if (pass->r2r_half && kind == HYFFT_DHT) {
    hy_cg_r2r_pre_half_dht(k, count);
  } else if (pass->r2r_half && (kind == HYFFT_REDFT00 || kind == HYFFT_RODFT00)) {
    hy_cg_r2r_pre_half00(k, count);
  } else if (pass->r2r_half) {
    hy_cg_r2r_pre_half01(k, count);
  } else if (k10 && pass->r2r_len == pass->r2r_n) {
    hy_cg_r2r_pre_makhoul(k, count);
  } else {
    char le[128];
    hy_cg_real_lds(k, "e", le, sizeof le);
    hy_cg_real_loop_open(k, count, pass->r2r_len, 0, "i2");
    hy_cg_r2r_io io = {"i2", k->idx, "r2r_in_tab", "      ", (long long)pass->axis.in_stride, NULL};
    hy_cg_r2r_pre(sb, pass, pass->r2r_n, &io);
    hy_strbuf_appendf(sb, "      %s = r2v;\n", le);
  }
  hy_strbuf_append(sb, "    }\n  }\n  HY_BARRIER();\n");
}

/* The half form's POST for DCT-II/DST-II and the DHT (plan.h r2r_half):
 * thread e < m = n/2 + 1 splits Z into X_e = DFT_n(v)_e as the R2C step
 * does (table fz), then writes Y_e = 2 Re(w_e X_e) and, for 0 < e < n/2,
 * Y_n-e = 2 Re(w_n-e conj X_e); DST-II writes Y_k at n-1-k; the DHT
 * writes Re X_e -/+ Im X_e at e and n-e. */
static void hy_cg_store_r2r_post_half(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const long long m = (long long)k->n, n = (long long)pass->r2r_n, os = pass->axis.out_stride;
  const int dst = pass->r2r_kind == HYFFT_RODFT10, dht = pass->r2r_kind == HYFFT_DHT;
  char x[256], y[256], ex[64], ey[64];
  snprintf(ex, sizeof ex, "e < %lld ? e : 0", m);
  snprintf(ey, sizeof ey, "e > 0 ? %lld - e : 0", m);
  hy_cg_real_lds(k, ex, x, sizeof x);
  hy_cg_real_lds(k, ey, y, sizeof y);
  hy_strbuf_appendf(sb, "  /* %s post-processing from local memory: X_e from Z_e and Z_%lld-e, "
                        "then outputs e and %lld-e */\n  HY_BARRIER();\n",
                    hy_r2r_kind_name((hyfft_r2r_kind)pass->r2r_kind), m, n);
  hy_cg_real_loop_open(k, count, m + 1, 1, "o2");
  hy_strbuf_appendf(sb, "      const real2 x = %s, y = %s;\n", x, y);
  hy_cg_real_step_value(sb, 1, "x", "y", "fz[e]", "      ");
  if (dht) {
    /* Y_e = Re X_e - Im X_e, Y_n-e = Re X_e + Im X_e (X_n-e = conj X_e). */
    hy_strbuf_appendf(sb, "      dst[o2 + (%s)e * %lld] = v.x - v.y;\n", k->idx, os);
    hy_strbuf_appendf(sb, "      if (e > 0 && e < %lld) dst[o2 + (%s)(%lld - e) * %lld] = v.x + v.y;\n"
                          "    }\n  }\n", m, k->idx, n, os);
    return;
  }
  hy_strbuf_append(sb, "      const real2 r2w = r2r_out_tab[e];\n");
  hy_strbuf_append(sb, "      dst[o2 + (");
  hy_strbuf_appendf(sb, dst ? "%s)(%lld - e)" : "%s)e", k->idx, n - 1);
  hy_strbuf_appendf(sb, " * %lld] = (real)2 * (r2w.x * v.x - r2w.y * v.y);\n", os);
  hy_strbuf_appendf(sb, "      if (e > 0 && e < %lld) {\n", m);
  hy_strbuf_appendf(sb, "        const real2 r2u = r2r_out_tab[%lld - e];\n", n);
  hy_strbuf_append(sb, "        dst[o2 + (");
  hy_strbuf_appendf(sb, dst ? "%s)(e - 1)" : "%s)(%lld - e)", k->idx, n);
  hy_strbuf_appendf(sb, " * %lld] = (real)2 * (r2u.x * v.x + r2u.y * v.y);\n      }\n    }\n  }\n",
                    os);
}

/* DCT-III/DST-III half form's POST: the loop walks the outputs in memory
 * order; output e is v_q, q = e/2 (e even) or n-1-e/2 (e odd), the real
 * (q even) or imaginary (q odd) part of complex element q/2; DST-III
 * negates the odd outputs. */
static void hy_cg_store_r2r_post_half01(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const long long n = (long long)pass->r2r_n;
  char z[128];
  hy_cg_real_lds(k, "r2q >> 1", z, sizeof z);
  hy_strbuf_appendf(sb, "  /* %s post-processing from local memory */\n  HY_BARRIER();\n",
                    hy_r2r_kind_name((hyfft_r2r_kind)pass->r2r_kind));
  hy_cg_real_loop_open(k, count, pass->r2r_n, 1, "o2");
  hy_strbuf_appendf(sb, "      const int r2q = (e & 1) == 0 ? e / 2 : %lld - e / 2;\n", n - 1);
  hy_strbuf_appendf(sb, "      const real2 r2z = %s;\n      real r2y = (r2q & 1) ? r2z.y : r2z.x;\n", z);
  if (pass->r2r_kind == HYFFT_RODFT01) hy_strbuf_append(sb, "      if (e & 1) r2y = -r2y;\n");
  hy_strbuf_appendf(sb, "      dst[o2 + (%s)e * %lld] = r2y;\n    }\n  }\n", k->idx,
                    (long long)pass->axis.out_stride);
}

/* DCT-I/DST-I half form's POST: output e is Re X_e (DCT-I) or -Im X_e+1
 * (DST-I) of the extension's real DFT, X_q split from Z_q and Z_m-q (m the
 * complex length) as the R2C step does (table fz). */
static void hy_cg_store_r2r_post_half00(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  const long long m = (long long)k->n;
  const int dst = pass->r2r_kind == HYFFT_RODFT00;
  char x[256], y[256], ex[64], ey[64];
  snprintf(ex, sizeof ex, "q < %lld ? q : 0", m);
  snprintf(ey, sizeof ey, "q > 0 ? %lld - q : 0", m);
  hy_cg_real_lds(k, ex, x, sizeof x);
  hy_cg_real_lds(k, ey, y, sizeof y);
  hy_strbuf_appendf(sb, "  /* %s post-processing from local memory */\n  HY_BARRIER();\n",
                    hy_r2r_kind_name((hyfft_r2r_kind)pass->r2r_kind));
  hy_cg_real_loop_open(k, count, pass->r2r_n, 1, "o2");
  hy_strbuf_appendf(sb, "      const int q = e%s;\n", dst ? " + 1" : "");
  hy_strbuf_appendf(sb, "      const real2 x = %s, y = %s;\n", x, y);
  hy_cg_real_step_value(sb, 1, "x", "y", "fz[q]", "      ");
  hy_strbuf_appendf(sb, "      dst[o2 + (%s)e * %lld] = %s;\n    }\n  }\n", k->idx,
                    (long long)pass->axis.out_stride, dst ? "-v.y" : "v.x");
}

void hy_cg_store_r2r_post(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  if (pass->r2r_half && (pass->r2r_kind == HYFFT_REDFT00 || pass->r2r_kind == HYFFT_RODFT00)) {
    hy_cg_store_r2r_post_half00(k, count);
    return;
  }
  if (pass->r2r_half && (pass->r2r_kind == HYFFT_REDFT01 || pass->r2r_kind == HYFFT_RODFT01)) {
    hy_cg_store_r2r_post_half01(k, count);
    return;
  }
  if (pass->r2r_half) {
    hy_cg_store_r2r_post_half(k, count);
    return;
  }
  hy_strbuf_appendf(sb, "  /* %s post-processing from local memory */\n  HY_BARRIER();\n",
                    hy_r2r_kind_name((hyfft_r2r_kind)pass->r2r_kind));
  hy_cg_real_loop_open(k, count, pass->r2r_n, 1, "o2");
  hy_cg_r2r_io io = {"", k->idx, "r2r_out_tab", "      ", 0, k};
  hy_cg_r2r_post(sb, pass, pass->r2r_n, &io);
  hy_strbuf_appendf(sb, "      dst[o2 + (%s)e * %lld] = r2y;\n    }\n  }\n", k->idx,
                    (long long)pass->axis.out_stride);
}

hy_status hy_cg_r2r_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                           const hy_device_caps *caps, hy_gpu_program *prog) {
  hy_strbuf *sb = &prog->source;
  const int pre = pass->op == HY_PASS_R2R_PRE;
  const hyfft_r2r_kind kind = (hyfft_r2r_kind)pass->r2r_kind;
  const char *name = hy_r2r_kind_name(kind);
  int64_t items = pre ? pass->r2r_len : pass->axis.n, total;
  if (!name || pass->axis.n < 1 || pass->r2r_len < 1)
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: r2r step of kind %d, n %lld", pass_index,
                    pass->r2r_kind, (long long)pass->axis.n);
  if (items > INT32_MAX)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d: an r2r axis of %lld elements",
                    pass_index, (long long)items);
  if (hy_mul_overflow_i64(hy_pass_count(pass), items, &total))
    return hy_error(HYFFT_SIZE_OVERFLOW, "codegen: pass %d has too many elements", pass_index);
  int block = caps->max_work_group >= 256 ? 256 : (caps->max_work_group > 0 ? caps->max_work_group : 64);
  int big = total > INT32_MAX || hy_cg_r2r_extent(pass, 0) > INT32_MAX ||
            hy_cg_r2r_extent(pass, 1) > INT32_MAX;
  const char *idx = big ? "hy_i64" : "int";
  int table = -1;
  hy_r2r_twiddle tw;
  if (hy_r2r_twiddle_of(pass, &tw)) HY_TRY(hy_cg_r2r_table(prog, &tw, pass->precision, &table));

  const char *g = hy_cg_global(prog->dialect);
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0], "hy_pass%d_r2r_%s_%s", pass_index,
           pre ? "pre" : "post", name);
  hy_strbuf_appendf(sb, "/* pass %d: %s %s-processing, n=%lld, dft %lld */\n", pass_index, name,
                    pre ? "pre" : "post", (long long)pass->axis.n, (long long)pass->r2r_len);
  hy_cg_kernel_open(sb, prog->dialect, prog->names[prog->nkernels], block, 0);
  hy_strbuf_appendf(sb, "%sconst %s *src, %s%s *dst", g, pre ? "real" : "real2", g,
                    pre ? "real2" : "real");
  if (table >= 0) hy_strbuf_appendf(sb, ", %sconst real2 *tab", g);
  hy_strbuf_append(sb, ", const hy_i64 hy_block0) {\n");
  hy_cg_emit_block_index(sb, 0);
  int64_t grid, batch_blocks;
  hy_cg_pointwise_index(sb, problem, pass, items, total, block, idx, 0, &grid, &batch_blocks);
  hy_cg_r2r_io io = {"ib", idx, "tab", "  ", (long long)pass->axis.in_stride, NULL};
  if (pre) {
    hy_cg_r2r_pre(sb, pass, pass->axis.n, &io);
    if (pass->scale != 1.0) {
      hy_strbuf_append(sb, "  r2v = cscale(r2v, ");
      hy_cg_literal(sb, pass->precision, (long double)pass->scale);
      hy_strbuf_append(sb, ");\n");
    }
    hy_strbuf_appendf(sb, "  dst[ob + (%s)e * %lld] = r2v;\n", idx, (long long)pass->axis.out_stride);
  } else {
    hy_cg_r2r_post(sb, pass, pass->axis.n, &io);
    if (pass->scale != 1.0) {
      hy_strbuf_append(sb, "  r2y = r2y * ");
      hy_cg_literal(sb, pass->precision, (long double)pass->scale);
      hy_strbuf_append(sb, ";\n");
    }
    hy_strbuf_appendf(sb, "  dst[ob + (%s)e * %lld] = r2y;\n", idx, (long long)pass->axis.out_stride);
  }
  hy_strbuf_append(sb, "}\n\n");
  hy_cg_pointwise_launch(prog, pass, grid, block, batch_blocks, table);
  return HYFFT_SUCCESS;
}
