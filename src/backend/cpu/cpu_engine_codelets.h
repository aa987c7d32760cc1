/* CPU engine impl, part 1 of 6: the vector types and the butterflies.
 * hy_v holds the same element of HY_LANES transforms (one 32-byte compiler
 * vector), so every codelet below is written once and works on whole lane
 * vectors; the shuffle masks and in-register transposes move data between
 * interleaved complex storage and that split layout, and HY_CLONES /
 * HY_NO_LIBCALLS set the code-generation attributes the later parts use.
 * The butterflies (radices 2, 3, 4, 5, 8, 16 and any odd radix up to 31)
 * take the exponent sign as a constant so each direction compiles to
 * straight-line code. Included only by cpu_engine_impl.h, once per
 * precision. */

#define HY_INLINE static inline __attribute__((always_inline))

typedef HY_REAL hy_r;
/* One vector holds the same element of HY_LANES transforms. */
typedef HY_REAL hy_v __attribute__((vector_size(32)));
typedef double hy_v4d __attribute__((vector_size(32)));
/* Shuffle masks between interleaved complex data and split lane vectors. */
#if HY_LANES == 8
typedef int32_t hy_vi __attribute__((vector_size(32)));
#define HY_EVEN {0, 2, 4, 6, 8, 10, 12, 14}
#define HY_ODD {1, 3, 5, 7, 9, 11, 13, 15}
#define HY_ILO {0, 8, 1, 9, 2, 10, 3, 11}
#define HY_IHI {4, 12, 5, 13, 6, 14, 7, 15}
/* In-register transpose of LANES x LANES: swap off-diagonal blocks of 4, 2, 1. */
HY_INLINE void hy_transpose(hy_v *m) {
  const hy_vi l4 = {0, 1, 2, 3, 8, 9, 10, 11}, h4 = {4, 5, 6, 7, 12, 13, 14, 15};
  const hy_vi l2 = {0, 1, 8, 9, 4, 5, 12, 13}, h2 = {2, 3, 10, 11, 6, 7, 14, 15};
  const hy_vi l1 = {0, 8, 2, 10, 4, 12, 6, 14}, h1 = {1, 9, 3, 11, 5, 13, 7, 15};
  for (int i = 0; i < 4; i++) {
    hy_v a = m[i], c = m[i + 4];
    m[i] = __builtin_shuffle(a, c, l4);
    m[i + 4] = __builtin_shuffle(a, c, h4);
  }
  for (int i = 0; i < 8; i++) {
    if (i & 2) continue;
    hy_v a = m[i], c = m[i + 2];
    m[i] = __builtin_shuffle(a, c, l2);
    m[i + 2] = __builtin_shuffle(a, c, h2);
  }
  for (int i = 0; i < 8; i += 2) {
    hy_v a = m[i], c = m[i + 1];
    m[i] = __builtin_shuffle(a, c, l1);
    m[i + 1] = __builtin_shuffle(a, c, h1);
  }
}
#else
typedef int64_t hy_vi __attribute__((vector_size(32)));
#define HY_EVEN {0, 2, 4, 6}
#define HY_ODD {1, 3, 5, 7}
#define HY_ILO {0, 4, 1, 5}
#define HY_IHI {2, 6, 3, 7}
HY_INLINE void hy_transpose(hy_v *m) {
  const hy_vi l2 = {0, 1, 4, 5}, h2 = {2, 3, 6, 7};
  const hy_vi l1 = {0, 4, 2, 6}, h1 = {1, 5, 3, 7};
  for (int i = 0; i < 2; i++) {
    hy_v a = m[i], c = m[i + 2];
    m[i] = __builtin_shuffle(a, c, l2);
    m[i + 2] = __builtin_shuffle(a, c, h2);
  }
  for (int i = 0; i < 4; i += 2) {
    hy_v a = m[i], c = m[i + 1];
    m[i] = __builtin_shuffle(a, c, l1);
    m[i + 1] = __builtin_shuffle(a, c, h1);
  }
}
#endif

#define L_ HY_LANES
/* Stage loops and data movement get AVX-512 and AVX2+FMA clones picked at
 * load time (x86-64-v4, v3); the default stays baseline x86-64 so the
 * binary runs anywhere. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(HYFFT_NO_CLONES)
#define HY_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HY_CLONES
#endif

/* Per-group copies are a few dozen bytes: GCC's rewrite of such loops
 * into memcpy/memset calls costs more than the copies. */
#if defined(__GNUC__) && !defined(__clang__)
#define HY_NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define HY_NO_LIBCALLS
#endif

/* ---- butterflies on vectors (s = sign of the exponent, a constant) ---- */

/* The generated codelets (cpu_codelets_gen.h, from the kernel generator's
 * radix level, codegen/cg_cpu.c): a complex value is a pair of lane
 * vectors. HY_GEN_DFT(R, r, i, s) runs the R-point one of sign s. */
typedef struct hy_c2 {
  hy_v x, y;
} hy_c2;
#define MK(re, im) ((hy_c2){(re), (im)})
#include "backend/cpu/cpu_codelets_gen.h"
#undef MK
#define HY_GEN_DFT(R, r, i, s) ((s) < 0 ? hy_gen_dft##R##_fwd((r), (i)) : hy_gen_dft##R##_bwd((r), (i)))

/* x *= s*i */
HY_INLINE void hy_rot(hy_v *xr, hy_v *xi, const int s) {
  hy_v t = *xr;
  if (s < 0) {
    *xr = *xi;
    *xi = -t;
  } else {
    *xr = -*xi;
    *xi = t;
  }
}

HY_INLINE void hy_cmul(hy_v *xr, hy_v *xi, hy_r cr, hy_r ci) {
  hy_v t = *xr * cr - *xi * ci;
  *xi = *xr * ci + *xi * cr;
  *xr = t;
}

#define HY_SQRT1_2 ((hy_r)0.707106781186547524400844362104849039L)
#define HY_C16 ((hy_r)0.923879532511286756128183189396788933L) /* cos(pi/8) */
#define HY_S16 ((hy_r)0.382683432365089771728459984030398866L) /* sin(pi/8) */

/* x *= exp(s*2*pi*i*j/16) for the j a radix-16 butterfly needs */
HY_INLINE void hy_w16(hy_v *xr, hy_v *xi, const int j, const int s) {
  hy_v x = *xr, y = *xi;
  const hy_r sr = (hy_r)s;
  switch (j) {
    case 0: break;
    case 1: hy_cmul(xr, xi, HY_C16, s * HY_S16); break;
    case 2:
      *xr = HY_SQRT1_2 * (x - sr * y);
      *xi = HY_SQRT1_2 * (y + sr * x);
      break;
    case 3: hy_cmul(xr, xi, HY_S16, s * HY_C16); break;
    case 4: hy_rot(xr, xi, s); break;
    case 6:
      *xr = HY_SQRT1_2 * (-x - sr * y);
      *xi = HY_SQRT1_2 * (-y + sr * x);
      break;
    default: hy_cmul(xr, xi, -HY_C16, -s * HY_S16); break; /* j == 9 */
  }
}

HY_INLINE void hy_bfly2(hy_v *r, hy_v *i) {
  hy_v tr = r[0] - r[1], ti = i[0] - i[1];
  r[0] += r[1];
  i[0] += i[1];
  r[1] = tr;
  i[1] = ti;
}

/* 4-point DFT of (a[0], a[st], a[2st], a[3st]) in place */
HY_INLINE void hy_dft4(hy_v *r, hy_v *i, const int st, const int s) {
  hy_v t0r = r[0] + r[2 * st], t0i = i[0] + i[2 * st];
  hy_v t1r = r[0] - r[2 * st], t1i = i[0] - i[2 * st];
  hy_v t2r = r[st] + r[3 * st], t2i = i[st] + i[3 * st];
  hy_v t3r = r[st] - r[3 * st], t3i = i[st] - i[3 * st];
  hy_rot(&t3r, &t3i, s);
  r[0] = t0r + t2r;
  i[0] = t0i + t2i;
  r[2 * st] = t0r - t2r;
  i[2 * st] = t0i - t2i;
  r[st] = t1r + t3r;
  i[st] = t1i + t3i;
  r[3 * st] = t1r - t3r;
  i[3 * st] = t1i - t3i;
}

HY_INLINE void hy_bfly4(hy_v *r, hy_v *i, const int s) { hy_dft4(r, i, 1, s); }

/* 8 = 2 x 4: n = q + 2*n1, k = p + 4*m */
HY_INLINE void hy_bfly8(hy_v *r, hy_v *i, const int s) {
  hy_dft4(r, i, 2, s);     /* b[0][p] at r[2p] */
  hy_dft4(r + 1, i + 1, 2, s); /* b[1][p] at r[2p+1] */
  hy_w16(&r[3], &i[3], 2, s);
  hy_w16(&r[5], &i[5], 4, s);
  hy_w16(&r[7], &i[7], 6, s);
  hy_v yr[8], yi[8];
  for (int p = 0; p < 4; p++) {
    yr[p] = r[2 * p] + r[2 * p + 1];
    yi[p] = i[2 * p] + i[2 * p + 1];
    yr[p + 4] = r[2 * p] - r[2 * p + 1];
    yi[p + 4] = i[2 * p] - i[2 * p + 1];
  }
  for (int p = 0; p < 8; p++) {
    r[p] = yr[p];
    i[p] = yi[p];
  }
}

/* 16 = 4 x 4: n = q + 4*n1, k = p + 4*m */
HY_INLINE void hy_bfly16(hy_v *r, hy_v *i, const int s) {
  for (int q = 0; q < 4; q++) hy_dft4(r + q, i + q, 4, s); /* b[q][p] at r[q + 4p] */
  for (int q = 1; q < 4; q++)
    for (int p = 1; p < 4; p++) hy_w16(&r[q + 4 * p], &i[q + 4 * p], q * p, s);
  hy_v yr[16], yi[16];
  for (int p = 0; p < 4; p++) {
    hy_v br[4] = {r[4 * p], r[4 * p + 1], r[4 * p + 2], r[4 * p + 3]};
    hy_v bi[4] = {i[4 * p], i[4 * p + 1], i[4 * p + 2], i[4 * p + 3]};
    hy_dft4(br, bi, 1, s);
    for (int m = 0; m < 4; m++) {
      yr[p + 4 * m] = br[m];
      yi[p + 4 * m] = bi[m];
    }
  }
  for (int p = 0; p < 16; p++) {
    r[p] = yr[p];
    i[p] = yi[p];
  }
}

HY_INLINE void hy_bfly3(hy_v *r, hy_v *i, const int s) {
  const hy_r c = (hy_r)0.866025403784438646763723170752936183L; /* sin(2pi/3) */
  hy_v tr = r[1] + r[2], ti = i[1] + i[2];
  hy_v dr = (r[1] - r[2]) * c, di = (i[1] - i[2]) * c;
  hy_v mr = r[0] - (hy_r)0.5 * tr, mi = i[0] - (hy_r)0.5 * ti;
  r[0] += tr;
  i[0] += ti;
  hy_rot(&dr, &di, s);
  r[1] = mr + dr;
  i[1] = mi + di;
  r[2] = mr - dr;
  i[2] = mi - di;
}

HY_INLINE void hy_bfly5(hy_v *r, hy_v *i, const int s) {
  const hy_r c1 = (hy_r)0.309016994374947424102293417182819059L;  /* cos(2pi/5) */
  const hy_r c2 = (hy_r)-0.809016994374947424102293417182819059L; /* cos(4pi/5) */
  const hy_r s1 = (hy_r)0.951056516295153572116439333379382143L;  /* sin(2pi/5) */
  const hy_r s2 = (hy_r)0.587785252292473129168705954639072769L;  /* sin(4pi/5) */
  hy_v t1r = r[1] + r[4], t1i = i[1] + i[4], d1r = r[1] - r[4], d1i = i[1] - i[4];
  hy_v t2r = r[2] + r[3], t2i = i[2] + i[3], d2r = r[2] - r[3], d2i = i[2] - i[3];
  hy_v m1r = r[0] + c1 * t1r + c2 * t2r, m1i = i[0] + c1 * t1i + c2 * t2i;
  hy_v m2r = r[0] + c2 * t1r + c1 * t2r, m2i = i[0] + c2 * t1i + c1 * t2i;
  hy_v n1r = s1 * d1r + s2 * d2r, n1i = s1 * d1i + s2 * d2i;
  hy_v n2r = s2 * d1r - s1 * d2r, n2i = s2 * d1i - s1 * d2i;
  r[0] += t1r + t2r;
  i[0] += t1i + t2i;
  hy_rot(&n1r, &n1i, s);
  hy_rot(&n2r, &n2i, s);
  r[1] = m1r + n1r;
  i[1] = m1i + n1i;
  r[4] = m1r - n1r;
  i[4] = m1i - n1i;
  r[2] = m2r + n2r;
  i[2] = m2i + n2i;
  r[3] = m2r - n2r;
  i[3] = m2i - n2i;
}

/* Any odd radix R (<= 31) through the symmetric pairs a[p] +- a[R-p]:
 * cs holds cos and sin of 2*pi*p*k/R (p, k in 1..h). Straight-line code
 * when R is a constant. */
HY_INLINE void hy_bfly_odd(hy_v *r, hy_v *i, const int R, const hy_r *cs, const int s) {
  const int h = (R - 1) / 2;
  hy_v tr[16], ti[16], dr[16], di[16];
  hy_v a0r = r[0], a0i = i[0], y0r = r[0], y0i = i[0];
  for (int p = 1; p <= h; p++) {
    tr[p] = r[p] + r[R - p];
    ti[p] = i[p] + i[R - p];
    dr[p] = r[p] - r[R - p];
    di[p] = i[p] - i[R - p];
    y0r += tr[p];
    y0i += ti[p];
  }
  for (int k = 1; k <= h; k++) {
    hy_v mr = a0r, mi = a0i, nr = a0r * 0, ni = a0r * 0;
    for (int p = 1; p <= h; p++) {
      hy_r c = cs[(p - 1) * h + (k - 1)], sn = cs[h * h + (p - 1) * h + (k - 1)];
      mr += tr[p] * c;
      mi += ti[p] * c;
      nr += dr[p] * sn;
      ni += di[p] * sn;
    }
    hy_rot(&nr, &ni, s);
    r[k] = mr + nr;
    i[k] = mi + ni;
    r[R - k] = mr - nr;
    i[R - k] = mi - ni;
  }
  r[0] = y0r;
  i[0] = y0i;
}
