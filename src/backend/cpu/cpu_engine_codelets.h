/* CPU engine impl, part 1 of 6: the vector types and the butterflies.
 * hy_v holds the same element of HY_LANES transforms (one 32-byte compiler
 * vector), so every codelet below is written once and works on whole lane
 * vectors; the shuffle masks and in-register transposes move data between
 * interleaved complex storage and that split layout, and HY_CLONES /
 * HY_NO_LIBCALLS set the code-generation attributes the later parts use.
 * The butterflies of radices 2 to 16 are the generator's codelets
 * (cpu_codelets_gen.h), one function per direction; odd radices up to 31
 * take hy_bfly_odd with the exponent sign a constant, so each direction
 * compiles to straight-line code. Included only by cpu_engine_impl.h, once per
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

/* The LANES values of one vector in double, as 32-byte halves (one for
 * f64, two for f32): the steps that compute in double (the four-step
 * twiddle, the real step) work half by half. A 64-byte compiler vector
 * has no register on AVX2, and GCC moves it through the stack, where
 * each load waits on narrower stores that cannot forward to it. */
#define HY_WH (HY_LANES / 4)
typedef struct hy_vw {
  hy_v4d h[HY_WH];
} hy_vw;
/* Half of a lane vector (16 bytes), and HY_HALVES(lo, hi): the lane
 * vector of two halves, joined in registers. */
#if HY_LANES == 8
typedef float hy_vhalf __attribute__((vector_size(16)));
typedef hy_vhalf hy_v4f;
#define HY_SHUFFLE_HALVES(a, b) __builtin_shufflevector((a), (b), 0, 1, 2, 3, 4, 5, 6, 7)
#else
typedef double hy_vhalf __attribute__((vector_size(16)));
#define HY_SHUFFLE_HALVES(a, b) __builtin_shufflevector((a), (b), 0, 1, 2, 3)
#endif
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define HY_HALVES(a, b) HY_SHUFFLE_HALVES(a, b)
#else
HY_INLINE hy_v hy_halves(hy_vhalf a, hy_vhalf b) {
  hy_v r;
  memcpy(&r, &a, sizeof a);
  memcpy((char *)&r + sizeof a, &b, sizeof b);
  return r;
}
#define HY_HALVES(a, b) hy_halves((a), (b))
#endif
#if HY_LANES == 8
/* Element by element: GCC 12 turns this into one widening instruction
 * per half, where __builtin_convertvector of a 4-float vector takes two
 * 2-element ones and an insert. */
HY_INLINE hy_vw hy_widen(hy_v x) {
  hy_vw w;
  w.h[0] = (hy_v4d){x[0], x[1], x[2], x[3]};
  w.h[1] = (hy_v4d){x[4], x[5], x[6], x[7]};
  return w;
}
HY_INLINE void hy_narrow(hy_v *x, const hy_vw *w) {
  *x = HY_HALVES(__builtin_convertvector(w->h[0], hy_v4f), __builtin_convertvector(w->h[1], hy_v4f));
}
#else
HY_INLINE hy_vw hy_widen(hy_v x) { return (hy_vw){{x}}; }
HY_INLINE void hy_narrow(hy_v *x, const hy_vw *w) { *x = w->h[0]; }
#endif
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

/* An odd radix R above the generated codelets' 16 (primes up to 31)
 * through the symmetric pairs a[p] +- a[R-p]:
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
