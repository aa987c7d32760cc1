/* The CPU engine, written once for both precisions: cpu_engine_f32.c and
 * cpu_engine_f64.c include this file with HY_REAL (float, double), HY_LANES
 * (8, 4) and HY_SFX(name) defined. Not a standalone header. */
#include <stdint.h>
#include <string.h>

#include "backend/cpu/cpu_engine.h"
#include "util/twiddle.h"

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

/* ---- Stockham stages ---------------------------------------------------
 * Stage with radix R after sub-transforms of length ns: element j = b*ns+k
 * reads x[j + r*n/R], twiddles by exp(s*2*pi*i*r*k/(ns*R)), and writes
 * y[b*ns*R + k + r*ns]: the output is in natural order after the last
 * stage (autosort), every access is a whole vector. */
#define HY_STAGE(NAME, RDECL, RA, BFLY)                                                     \
  HY_INLINE void NAME##_impl(const hy_cpu_stage *st, int64_t n, const hy_v *restrict ir,    \
                             const hy_v *restrict ii, hy_v *restrict or_,                   \
                             hy_v *restrict oi, const int s) {                              \
    RDECL;                                                                                  \
    const int64_t ns = st->ns, m = n / R, nb = m / ns;                                      \
    const hy_r *twr = st->tw, *twi = twr + (R - 1) * ns;                                    \
    const hy_r *cs = st->consts;                                                            \
    (void)cs;                                                                               \
    for (int64_t b = 0; b < nb; b++) {                                                      \
      for (int64_t k = 0; k < ns; k++) {                                                    \
        const int64_t j = b * ns + k, o = b * ns * R + k;                                   \
        hy_v xr[RA], xi[RA];                                                                \
        for (int r = 0; r < R; r++) {                                                       \
          xr[r] = ir[j + r * m];                                                            \
          xi[r] = ii[j + r * m];                                                            \
        }                                                                                   \
        if (ns > 1)                                                                         \
          for (int r = 1; r < R; r++)                                                       \
            hy_cmul(&xr[r], &xi[r], twr[(r - 1) * ns + k], twi[(r - 1) * ns + k]);           \
        BFLY;                                                                               \
        for (int r = 0; r < R; r++) {                                                       \
          or_[o + r * ns] = xr[r];                                                          \
          oi[o + r * ns] = xi[r];                                                           \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  HY_CLONES static void NAME##_fwd(const hy_cpu_stage *st, int64_t n, const hy_v *ir,       \
                                   const hy_v *ii, hy_v *or_, hy_v *oi) {                   \
    NAME##_impl(st, n, ir, ii, or_, oi, -1);                                                \
  }                                                                                         \
  HY_CLONES static void NAME##_bwd(const hy_cpu_stage *st, int64_t n, const hy_v *ir,       \
                                   const hy_v *ii, hy_v *or_, hy_v *oi) {                   \
    NAME##_impl(st, n, ir, ii, or_, oi, +1);                                                \
  }

HY_STAGE(hy_stage2, const int R = 2, 2, hy_bfly2(xr, xi))
HY_STAGE(hy_stage3, const int R = 3, 3, hy_bfly3(xr, xi, s))
HY_STAGE(hy_stage4, const int R = 4, 4, hy_bfly4(xr, xi, s))
HY_STAGE(hy_stage5, const int R = 5, 5, hy_bfly5(xr, xi, s))
HY_STAGE(hy_stage7, const int R = 7, 7, hy_bfly_odd(xr, xi, 7, cs, s))
HY_STAGE(hy_stage8, const int R = 8, 8, hy_bfly8(xr, xi, s))
HY_STAGE(hy_stage11, const int R = 11, 11, hy_bfly_odd(xr, xi, 11, cs, s))
HY_STAGE(hy_stage13, const int R = 13, 13, hy_bfly_odd(xr, xi, 13, cs, s))
HY_STAGE(hy_stage16, const int R = 16, 16, hy_bfly16(xr, xi, s))
HY_STAGE(hy_stage17, const int R = 17, 17, hy_bfly_odd(xr, xi, 17, cs, s))
HY_STAGE(hy_stage19, const int R = 19, 19, hy_bfly_odd(xr, xi, 19, cs, s))
HY_STAGE(hy_stage23, const int R = 23, 23, hy_bfly_odd(xr, xi, 23, cs, s))
HY_STAGE(hy_stage29, const int R = 29, 29, hy_bfly_odd(xr, xi, 29, cs, s))
HY_STAGE(hy_stage31, const int R = 31, 31, hy_bfly_odd(xr, xi, 31, cs, s))
/* Any other odd radix the planner may pick (HY_MAX_DIRECT_PRIME raised). */
HY_STAGE(hy_stage_odd, const int R = st->radix, 32, hy_bfly_odd(xr, xi, R, cs, s))

typedef void (*hy_stage_fn)(const hy_cpu_stage *, int64_t, const hy_v *, const hy_v *, hy_v *,
                            hy_v *);

static hy_stage_fn HY_SFX(hy_stage_pick)(int radix, int sign) {
  int f = sign < 0;
  switch (radix) {
    case 2: return f ? hy_stage2_fwd : hy_stage2_bwd;
    case 3: return f ? hy_stage3_fwd : hy_stage3_bwd;
    case 4: return f ? hy_stage4_fwd : hy_stage4_bwd;
    case 5: return f ? hy_stage5_fwd : hy_stage5_bwd;
    case 7: return f ? hy_stage7_fwd : hy_stage7_bwd;
    case 8: return f ? hy_stage8_fwd : hy_stage8_bwd;
    case 11: return f ? hy_stage11_fwd : hy_stage11_bwd;
    case 13: return f ? hy_stage13_fwd : hy_stage13_bwd;
    case 16: return f ? hy_stage16_fwd : hy_stage16_bwd;
    case 17: return f ? hy_stage17_fwd : hy_stage17_bwd;
    case 19: return f ? hy_stage19_fwd : hy_stage19_bwd;
    case 23: return f ? hy_stage23_fwd : hy_stage23_bwd;
    case 29: return f ? hy_stage29_fwd : hy_stage29_bwd;
    case 31: return f ? hy_stage31_fwd : hy_stage31_bwd;
    default: return f ? hy_stage_odd_fwd : hy_stage_odd_bwd;
  }
}

static int hy_kp_exec(const hy_cpu_kp *kp, hy_v *re, hy_v *im, hy_v *tr, hy_v *ti) {
  hy_v *ar = re, *ai = im, *br = tr, *bi = ti;
  int where = 0;
  for (int s = 0; s < kp->nstages; s++) {
    const hy_cpu_stage *st = &kp->stages[s];
    HY_SFX(hy_stage_pick)(st->radix, kp->sign)(st, kp->n, ar, ai, br, bi);
    hy_v *t = ar;
    ar = br;
    br = t;
    t = ai;
    ai = bi;
    bi = t;
    where ^= 1;
  }
  return where;
}

hy_status HY_SFX(hy_cpu_kp_init)(hy_cpu_kp *kp, int64_t n, const int *factors, int nfactors,
                                 int sign) {
  memset(kp, 0, sizeof *kp);
  kp->n = n;
  kp->sign = sign;
  int64_t ns = 1;
  for (int f = 0; f < nfactors; f++) {
    int R = factors[f];
    if (R == 1) continue;
    if (R < 2 || R > 32 || (R > 16 && R % 2 == 0) || R == 6 || R == 9 || R == 10 || R == 12 ||
        R == 14 || R == 15)
      return hy_error(HYFFT_NOT_SUPPORTED, "cpu engine: radix %d has no codelet", R);
    hy_cpu_stage *st = &kp->stages[kp->nstages++];
    st->radix = R;
    st->ns = ns;
    hy_r *tw = hy_malloc(sizeof(hy_r) * 2 * (size_t)(R - 1) * (size_t)ns);
    st->tw = tw;
    if (!tw) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: twiddles for n = %lld", (long long)n);
    for (int r = 1; r < R; r++)
      for (int64_t k = 0; k < ns; k++) {
        long double wr, wi;
        hy_twiddle_ld(r * k, ns * R, sign, &wr, &wi);
        tw[(r - 1) * ns + k] = (hy_r)wr;
        tw[(R - 1) * ns + (r - 1) * ns + k] = (hy_r)wi;
      }
    if (R % 2 == 1 && R != 3 && R != 5) {
      int h = (R - 1) / 2;
      hy_r *cs = hy_malloc(sizeof(hy_r) * 2 * (size_t)(h * h));
      st->consts = cs;
      if (!cs) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: radix-%d constants", R);
      for (int p = 1; p <= h; p++)
        for (int k = 1; k <= h; k++) {
          long double c, sn;
          hy_twiddle_ld((int64_t)p * k, R, +1, &c, &sn);
          cs[(p - 1) * h + (k - 1)] = (hy_r)c;
          cs[h * h + (p - 1) * h + (k - 1)] = (hy_r)sn;
        }
    }
    ns *= R;
  }
  if (ns != n) return hy_error(HYFFT_INTERNAL, "cpu engine: radices multiply to %lld, not n = %lld", (long long)ns, (long long)n);
  return HYFFT_SUCCESS;
}

/* ---- batched runs --------------------------------------------------- */

static int64_t hy_run_count(const hy_cpu_run *run) {
  int64_t c = 1;
  for (int l = 0; l < run->nloops; l++) c *= run->loops[l].n;
  return c;
}

/* Element offsets of transform t of the loop nest, and its index along
 * the twiddle loop. */
static void hy_run_offsets(const hy_cpu_run *run, int64_t t, int64_t *so, int64_t *dof,
                           int64_t *m) {
  int64_t a = 0, b = 0, mm = 0;
  for (int l = run->nloops - 1; l >= 0; l--) {
    int64_t n = run->loops[l].n, idx = t % n;
    t /= n;
    a += idx * run->loops[l].in_stride;
    b += idx * run->loops[l].out_stride;
    if (l == run->twiddle_loop) mm = idx;
  }
  *so = a;
  *dof = b;
  *m = mm;
}

/* exp(sign*2*pi*i*p/T) for 0 <= p < T, in double */
HY_INLINE void hy_tw_eval(const hy_cpu_twiddle *tw, int64_t p, double *wr, double *wi) {
  const double *l = tw->lo + 2 * (p & tw->mask), *h = tw->hi + 2 * (p >> tw->shift);
  *wr = l[0] * h[0] - l[1] * h[1];
  *wi = l[0] * h[1] + l[1] * h[0];
}

typedef struct hy_lanes {
  int count;      /* valid lanes */
  int contig_in;  /* lane v at so[0] + v, all lanes valid */
  int contig_out;
  int64_t so[L_], dof[L_], m[L_];
} hy_lanes;

static void hy_lanes_make(const hy_cpu_run *run, int64_t t0, int64_t total, int width,
                          hy_lanes *ln) {
  ln->count = (int)(total - t0 < width ? total - t0 : width);
  const int last = run->nloops - 1;
  const hyfft_dim *in = last >= 0 ? &run->loops[last] : NULL;
  if (in && t0 % in->n + ln->count <= in->n) {
    /* All lanes along the innermost loop: one index decomposition instead
     * of one (with a division per loop) per lane. */
    hy_run_offsets(run, t0, &ln->so[0], &ln->dof[0], &ln->m[0]);
    for (int v = 1; v < ln->count; v++) {
      ln->so[v] = ln->so[0] + v * in->in_stride;
      ln->dof[v] = ln->dof[0] + v * in->out_stride;
      ln->m[v] = ln->m[0] + (run->twiddle_loop == last ? v : 0);
    }
  } else {
    for (int v = 0; v < ln->count; v++) hy_run_offsets(run, t0 + v, &ln->so[v], &ln->dof[v], &ln->m[v]);
  }
  ln->contig_in = ln->contig_out = ln->count == width;
  for (int v = 1; v < ln->count; v++) {
    if (ln->so[v] != ln->so[0] + v) ln->contig_in = 0;
    if (ln->dof[v] != ln->dof[0] + v) ln->contig_out = 0;
  }
}

/* All LANES lanes valid and their transforms stored back to back with
 * unit stride: the group is one contiguous block of LANES*n elements. */
static int hy_lanes_block(const hy_lanes *ln, int64_t stride, int64_t n, int out) {
  if (ln->count != L_ || stride != 1) return 0;
  const int64_t *o = out ? ln->dof : ln->so;
  for (int v = 1; v < L_; v++)
    if (o[v] != o[0] + v * n) return 0;
  return 1;
}

/* One LANES x LANES tile: elements j0..j0+LANES-1 of each row (NULL rows
 * read as zero), transposed into ar/ai[j0 + q] for q < nc. */
HY_INLINE void hy_gather_tile(const hy_r *const *rows, int64_t is, int64_t j0, int64_t nc,
                              hy_v *restrict ar, hy_v *restrict ai) {
  const hy_vi even = HY_EVEN, odd = HY_ODD;
  hy_v tr[L_], ti[L_];
  for (int v = 0; v < L_; v++) {
    if (!rows[v]) {
      tr[v] = ti[v] = (hy_v){0};
      continue;
    }
    const hy_r *p = rows[v] + 2 * j0 * is;
    hy_v lo, hi;
    if (is == 1) {
      memcpy(&lo, p, sizeof lo);
      memcpy(&hi, p + L_, sizeof hi);
    } else {
      hy_r t[2 * L_];
      for (int q = 0; q < L_; q++) {
        t[2 * q] = p[2 * q * is];
        t[2 * q + 1] = p[2 * q * is + 1];
      }
      memcpy(&lo, t, sizeof lo);
      memcpy(&hi, t + L_, sizeof hi);
    }
    tr[v] = __builtin_shuffle(lo, hi, even);
    ti[v] = __builtin_shuffle(lo, hi, odd);
  }
  hy_transpose(tr);
  hy_transpose(ti);
  for (int q = 0; q < nc; q++) {
    ar[j0 + q] = tr[q];
    ai[j0 + q] = ti[q];
  }
}

/* The inverse of hy_gather_tile for lanes v < count: columns j0..j0+nc-1
 * of (fr, fi), times sc, to rows[v] + j0*os. A row of a tile narrower than
 * LANES (nc < LANES) is written whole, LANES elements from row start, so
 * rows must then be padded scratch written in increasing order. */
HY_INLINE void hy_scatter_tile(hy_r *const *rows, int count, int64_t os, int64_t j0,
                               const hy_v *restrict fr, const hy_v *restrict fi, hy_r sc,
                               int scaled) {
  const hy_vi ilo = HY_ILO, ihi = HY_IHI;
  hy_v tr[L_], ti[L_];
  for (int q = 0; q < L_; q++) {
    tr[q] = fr[j0 + q];
    ti[q] = fi[j0 + q];
    if (scaled) {
      tr[q] *= sc;
      ti[q] *= sc;
    }
  }
  hy_transpose(tr);
  hy_transpose(ti);
  for (int v = 0; v < count; v++) {
    hy_r *q = rows[v] + 2 * j0 * os;
    hy_v lo = __builtin_shuffle(tr[v], ti[v], ilo), hi = __builtin_shuffle(tr[v], ti[v], ihi);
    if (os == 1) {
      memcpy(q, &lo, sizeof lo);
      memcpy(q + L_, &hi, sizeof hi);
    } else {
      hy_r t[2 * L_];
      memcpy(t, &lo, sizeof lo);
      memcpy(t + L_, &hi, sizeof hi);
      for (int e = 0; e < L_; e++) {
        q[2 * e * os] = t[2 * e];
        q[2 * e * os + 1] = t[2 * e + 1];
      }
    }
  }
}

/* Interleaved source -> split lane vectors, LANES wide. */
HY_NO_LIBCALLS HY_CLONES static void hy_gather(const hy_cpu_run *run, const hy_lanes *ln, int64_t n,
                                hy_v *restrict ar, hy_v *restrict ai) {
  const hy_r *src = run->src;
  const int64_t is = run->axis.in_stride;
  if (ln->contig_in) {
    const hy_vi even = HY_EVEN, odd = HY_ODD;
    for (int64_t j = 0; j < n; j++) {
      const hy_r *p = src + 2 * (ln->so[0] + j * is);
      hy_v lo, hi;
      memcpy(&lo, p, sizeof lo);
      memcpy(&hi, p + L_, sizeof hi);
      ar[j] = __builtin_shuffle(lo, hi, even);
      ai[j] = __builtin_shuffle(lo, hi, odd);
    }
    return;
  }
  /* Separate transforms: LANES x LANES tiles, each lane read along its
   * own transform, then transposed in registers. */
  const hy_r *rows[L_];
  for (int v = 0; v < L_; v++) rows[v] = v < ln->count ? src + 2 * ln->so[v] : NULL;
  if (n >= L_) {
    int64_t j0 = 0;
    for (; j0 + L_ <= n; j0 += L_) hy_gather_tile(rows, is, j0, L_, ar, ai);
    /* The rest as one tile ending at n: it overlaps the previous one and
     * rewrites the same values, which is far cheaper than element loops. */
    if (j0 < n) hy_gather_tile(rows, is, n - L_, L_, ar, ai);
    return;
  }
  if (hy_lanes_block(ln, is, n, 0)) {
    /* n < LANES transforms stored back to back: rows of LANES elements
     * read straight from the block run into the next row, which the
     * transpose drops; only rows that would run past the block's end are
     * copied into zero-padded scratch first. */
    hy_r pad[L_][2 * L_];
    const hy_r *b0 = src + 2 * ln->so[0];
    for (int v = 0; v < L_; v++) {
      if ((v + 1) * n + (L_ - n) <= L_ * n) {
        rows[v] = b0 + 2 * v * n;
        continue;
      }
      for (int e = 0; e < 2 * L_; e++) pad[v][e] = e < 2 * n ? b0[2 * v * n + e] : 0;
      rows[v] = pad[v];
    }
    hy_gather_tile(rows, 1, 0, n, ar, ai);
    return;
  }
  hy_r *rr = (hy_r *)ar, *ri = (hy_r *)ai;
  for (int v = 0; v < L_; v++) {
    const hy_r *p = src + 2 * ln->so[v < ln->count ? v : 0];
    for (int64_t j = 0; j < n; j++) {
      rr[j * L_ + v] = v < ln->count ? p[2 * j * is] : 0;
      ri[j * L_ + v] = v < ln->count ? p[2 * j * is + 1] : 0;
    }
  }
}

/* Split lane vectors -> interleaved destination, with scale and the
 * run's twiddle (evaluated in double). */
HY_NO_LIBCALLS HY_CLONES static void hy_scatter(const hy_cpu_node *node, const hy_cpu_run *run,
                                 const hy_lanes *ln, int64_t n, hy_v *restrict fr,
                                 hy_v *restrict fi) {
  hy_r *dst = run->dst;
  const int64_t os = run->axis.out_stride;
  double scale = run->scale;
  if (run->twiddle_loop >= 0 && node->tw.n > 0) {
    const int64_t T = node->tw.n;
    int seq = node->tw.lane != NULL;
    for (int v = 1; v < ln->count; v++)
      if (ln->m[v] != ln->m[0] + v) seq = 0;
    if (seq) {
      /* Lanes are consecutive loop indices m0 + v: w^((m0+v)k) is a
       * per-k scalar w^(m0 k) times the table's w^(v k), all in double. */
      typedef double hy_vd __attribute__((vector_size(L_ * sizeof(double))));
      const double *lr = node->tw.lane, *li = node->tw.lane + n * L_;
      int64_t p = 0, d = ln->m[0] % T;
      for (int64_t k = 0; k < n; k++) {
        double br, bi;
        hy_tw_eval(&node->tw, p, &br, &bi);
        br *= scale;
        bi *= scale;
        hy_vd vr, vi;
        memcpy(&vr, lr + k * L_, sizeof vr);
        memcpy(&vi, li + k * L_, sizeof vi);
        hy_vd wr = br * vr - bi * vi, wi = br * vi + bi * vr;
        hy_vd x = __builtin_convertvector(fr[k], hy_vd), y = __builtin_convertvector(fi[k], hy_vd);
        fr[k] = __builtin_convertvector(x * wr - y * wi, hy_v);
        fi[k] = __builtin_convertvector(x * wi + y * wr, hy_v);
        p += d;
        if (p >= T) p -= T;
      }
      scale = 1.0;
    } else {
      int64_t p[L_], d[L_];
      for (int v = 0; v < ln->count; v++) {
        p[v] = 0;
        d[v] = ln->m[v] % T;
      }
      for (int64_t k = 0; k < n; k++) {
        hy_v xr = fr[k], xi = fi[k];
        for (int v = 0; v < ln->count; v++) {
          double wr, wi, x = (double)xr[v], y = (double)xi[v];
          hy_tw_eval(&node->tw, p[v], &wr, &wi);
          hy_r *q = dst + 2 * (ln->dof[v] + k * os);
          q[0] = (hy_r)((x * wr - y * wi) * scale);
          q[1] = (hy_r)((x * wi + y * wr) * scale);
          p[v] += d[v];
          if (p[v] >= T) p[v] -= T;
        }
      }
      return;
    }
  }
  const hy_r sc = (hy_r)scale;
  if (ln->contig_out) {
    const hy_vi ilo = HY_ILO, ihi = HY_IHI;
    for (int64_t k = 0; k < n; k++) {
      hy_r *q = dst + 2 * (ln->dof[0] + k * os);
      hy_v xr = fr[k], xi = fi[k];
      if (scale != 1.0) {
        xr *= sc;
        xi *= sc;
      }
      hy_v lo = __builtin_shuffle(xr, xi, ilo), hi = __builtin_shuffle(xr, xi, ihi);
      memcpy(q, &lo, sizeof lo);
      memcpy(q + L_, &hi, sizeof hi);
    }
    return;
  }
  hy_r *rows[L_];
  for (int v = 0; v < L_; v++) rows[v] = dst + 2 * ln->dof[v < ln->count ? v : 0];
  const int scaled = scale != 1.0;
  if (n >= L_) {
    int64_t k0 = 0;
    for (; k0 + L_ <= n; k0 += L_) hy_scatter_tile(rows, ln->count, os, k0, fr, fi, sc, scaled);
    /* Overlapping last tile: rewrites a few elements with equal values. */
    if (k0 < n) hy_scatter_tile(rows, ln->count, os, n - L_, fr, fi, sc, scaled);
    return;
  }
  if (hy_lanes_block(ln, os, n, 1)) {
    /* Mirror of the gather: whole rows of LANES elements written in
     * increasing order straight into the block (each row's overrun is
     * rewritten by the next row); rows that would run past the block's
     * end go through scratch. Columns n.. of (fr, fi) are read (the lane
     * buffers have LANES vectors of zeroed slack) and never land. */
    hy_r pad[L_][2 * L_];
    hy_r *b0 = dst + 2 * ln->dof[0];
    for (int v = 0; v < L_; v++)
      rows[v] = (v + 1) * n + (L_ - n) <= L_ * n ? b0 + 2 * v * n : pad[v];
    hy_scatter_tile(rows, L_, 1, 0, fr, fi, sc, scaled);
    for (int v = 0; v < L_; v++)
      if (rows[v] == pad[v])
        for (int e = 0; e < n; e++) memcpy(b0 + 2 * (v * n + e), pad[v] + 2 * e, 2 * sizeof(hy_r));
    return;
  }
  const hy_r *rr = (const hy_r *)fr, *ri = (const hy_r *)fi;
  for (int v = 0; v < ln->count; v++) {
    hy_r *q = dst + 2 * ln->dof[v];
    for (int64_t k = 0; k < n; k++) {
      q[2 * k * os] = rr[k * L_ + v] * sc;
      q[2 * k * os + 1] = ri[k * L_ + v] * sc;
    }
  }
}

/* Start loading a later group's input while this group computes, for
 * groups whose lanes are separate strided transforms: their elements are
 * read in transposed order, which the hardware prefetchers do not follow.
 * (Stores need no prefetch: they do not stall the core.) */
#ifndef HY_PF_BYTES
#define HY_PF_BYTES 16384
#endif
static void hy_prefetch_group(const hy_cpu_run *run, const hy_lanes *ln, int64_t n) {
  /* Neighbouring lanes are read as whole lines in order, which the
   * hardware follows by itself. */
  if (ln->contig_in) return;
  const char *src = run->src;
  const int64_t e = 2 * (int64_t)sizeof(hy_r), is = run->axis.in_stride * e;
  for (int v = 0; v < ln->count; v++) {
    const char *p = src + ln->so[v] * e;
    if (is == e) {
      for (int64_t b = 0; b < n * e; b += 64) __builtin_prefetch(p + b, 0, 3);
      __builtin_prefetch(p + n * e - 1, 0, 3);
    } else {
      for (int64_t j = 0; j < n; j++) __builtin_prefetch(p + j * is, 0, 3);
    }
  }
}

typedef struct hy_job {
  const hy_cpu_node *node;
  const hy_cpu_run *run;
  int64_t count;
  int failed;
} hy_job;

static void hy_direct_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_job *job = arg;
  const hy_cpu_node *node = job->node;
  const int64_t n = node->n;
  /* LANES vectors of slack after the four arrays: the scatter of n < LANES
   * reads a whole tile from any of them. */
  const size_t bytes = sizeof(hy_v) * (4 * (size_t)n + L_);
  hy_v *buf = hy_cpu_scratch_get(0, bytes);
  if (!buf) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  hy_v *ar = buf, *ai = buf + n, *br = buf + 2 * n, *bi = buf + 3 * n;
  memset(buf + 4 * n, 0, sizeof(hy_v) * L_);
  /* Prefetch about HY_PF_BYTES ahead: one group is too close to hide
   * DRAM latency when groups are small. */
  const int64_t gbytes = (int64_t)sizeof(hy_r) * 2 * L_ * n;
  int64_t ahead = HY_PF_BYTES / gbytes;
  if (ahead < 1) ahead = 1;
  for (int64_t g = begin; g < begin + ahead && g < end; g++) {
    hy_lanes pl;
    hy_lanes_make(job->run, g * L_, job->count, L_, &pl);
    hy_prefetch_group(job->run, &pl, n);
  }
  const hy_cpu_run *run = job->run;
  const hyfft_dim *inner = run->nloops > 0 ? &run->loops[run->nloops - 1] : NULL;
  hy_lanes cur[1], pl;
  int have = 0;
  for (int64_t g = begin; g < end; g++) {
    /* Groups inside one run of the innermost loop are the previous group
     * moved by LANES steps: no index decomposition per group. */
    const int64_t pos = inner ? (g * L_) % inner->n : 0;
    if (have && inner && pos >= L_ && pos + L_ <= inner->n && g * L_ + L_ <= job->count) {
      for (int v = 0; v < L_; v++) {
        cur->so[v] += L_ * inner->in_stride;
        cur->dof[v] += L_ * inner->out_stride;
        if (run->twiddle_loop == run->nloops - 1) cur->m[v] += L_;
      }
    } else {
      hy_lanes_make(run, g * L_, job->count, L_, cur);
    }
    have = 1;
    /* Neighbouring lanes, or whole transforms back to back, make the
     * groups one sequential stream, which the hardware prefetches. */
    if (g + ahead < end && !cur->contig_in && !hy_lanes_block(cur, run->axis.in_stride, n, 0)) {
      hy_lanes_make(run, (g + ahead) * L_, job->count, L_, &pl);
      hy_prefetch_group(run, &pl, n);
    }
    hy_gather(job->run, cur, n, ar, ai);
    int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
    hy_scatter(node, job->run, cur, n, where ? br : ar, where ? bi : ai);
  }
  hy_cpu_scratch_put(0, buf, bytes);
}

/* Bluestein in f64 whatever the data precision: the convolution's rounding
 * would otherwise grow with m, not n. Four transforms side by side. */
#define HY_BL_LANES HY_CPU_LANES_F64
static void hy_bluestein_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_job *job = arg;
  const hy_cpu_node *node = job->node;
  const hy_cpu_run *run = job->run;
  const int64_t n = node->n, M = node->m;
  const size_t bytes = sizeof(hy_v4d) * 4 * (size_t)M;
  hy_v4d *buf = hy_cpu_scratch_get(0, bytes);
  if (!buf) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  hy_v4d *ar = buf, *ai = buf + M, *br = buf + 2 * M, *bi = buf + 3 * M;
  const double *cr = node->chirp, *ci = node->chirp + n;
  const double *sr = node->spec, *si = node->spec + M;
  const hy_r *src = run->src;
  hy_r *dst = run->dst;
  const int64_t is = run->axis.in_stride, os = run->axis.out_stride;
  const int twiddled = run->twiddle_loop >= 0 && node->tw.n > 0;
  for (int64_t g = begin; g < end; g++) {
    hy_lanes ln;
    hy_lanes_make(run, g * HY_BL_LANES, job->count, HY_BL_LANES, &ln);
    for (int64_t j = 0; j < n; j++) {
      hy_v4d x = {0}, y = {0};
      for (int v = 0; v < ln.count; v++) {
        const hy_r *p = src + 2 * (ln.so[v] + j * is);
        x[v] = (double)p[0];
        y[v] = (double)p[1];
      }
      ar[j] = x * cr[j] - y * ci[j];
      ai[j] = x * ci[j] + y * cr[j];
    }
    memset(ar + n, 0, sizeof(hy_v4d) * (size_t)(M - n));
    memset(ai + n, 0, sizeof(hy_v4d) * (size_t)(M - n));
    int w1 = hy_cpu_kp_exec_f64(&node->kp, ar, ai, br, bi);
    hy_v4d *pr = w1 ? br : ar, *pi = w1 ? bi : ai, *qr = w1 ? ar : br, *qi = w1 ? ai : bi;
    /* conj(A * spec): the inverse transform as a forward one */
    for (int64_t j = 0; j < M; j++) {
      hy_v4d x = pr[j], y = pi[j];
      pr[j] = x * sr[j] - y * si[j];
      pi[j] = -(x * si[j] + y * sr[j]);
    }
    int w2 = hy_cpu_kp_exec_f64(&node->kp, pr, pi, qr, qi);
    const hy_v4d *fr = w2 ? qr : pr, *fi = w2 ? qi : pi;
    int64_t p[HY_BL_LANES] = {0}, d[HY_BL_LANES] = {0};
    if (twiddled)
      for (int v = 0; v < ln.count; v++) d[v] = ln.m[v] % node->tw.n;
    for (int64_t k = 0; k < n; k++) {
      /* X[k] = c[k] * conj(q[k]) */
      hy_v4d xr = fr[k] * cr[k] + fi[k] * ci[k];
      hy_v4d xi = fr[k] * ci[k] - fi[k] * cr[k];
      for (int v = 0; v < ln.count; v++) {
        double x = xr[v], y = xi[v];
        if (twiddled) {
          double wr, wi;
          hy_tw_eval(&node->tw, p[v], &wr, &wi);
          double t = x * wr - y * wi;
          y = x * wi + y * wr;
          x = t;
          p[v] += d[v];
          if (p[v] >= node->tw.n) p[v] -= node->tw.n;
        }
        hy_r *q = dst + 2 * (ln.dof[v] + k * os);
        q[0] = (hy_r)(x * run->scale);
        q[1] = (hy_r)(y * run->scale);
      }
    }
  }
  hy_cpu_scratch_put(0, buf, bytes);
}

static hy_status hy_large_run(const hy_cpu_node *node, const hy_cpu_run *run);

/* Pointwise steps of the wide Bluestein, parallel over the elements. */
typedef struct hy_bl_wide {
  const hy_cpu_node *node;
  const hy_cpu_run *run;
  int64_t so, dof, m;
  double *a; /* interleaved complex f64, length m */
} hy_bl_wide;

static void hy_bl_wide_in(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_bl_wide *w = arg;
  const hy_cpu_node *node = w->node;
  const hy_r *src = (const hy_r *)w->run->src + 2 * w->so;
  const int64_t is = w->run->axis.in_stride, n = node->n;
  const double *cr = node->chirp, *ci = node->chirp + n;
  for (int64_t j = begin; j < end; j++) {
    double x = 0, y = 0;
    if (j < n) {
      double u = src[2 * j * is], v = src[2 * j * is + 1];
      x = u * cr[j] - v * ci[j];
      y = u * ci[j] + v * cr[j];
    }
    w->a[2 * j] = x;
    w->a[2 * j + 1] = y;
  }
}

static void hy_bl_wide_mul(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_bl_wide *w = arg;
  const int64_t M = w->node->m;
  const double *sr = w->node->spec, *si = w->node->spec + M;
  for (int64_t j = begin; j < end; j++) {
    double x = w->a[2 * j], y = w->a[2 * j + 1];
    w->a[2 * j] = x * sr[j] - y * si[j];
    w->a[2 * j + 1] = -(x * si[j] + y * sr[j]);
  }
}

static void hy_bl_wide_out(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_bl_wide *w = arg;
  const hy_cpu_node *node = w->node;
  const hy_cpu_run *run = w->run;
  hy_r *dst = (hy_r *)run->dst + 2 * w->dof;
  const int64_t os = run->axis.out_stride, n = node->n;
  const double *cr = node->chirp, *ci = node->chirp + n;
  const int twiddled = run->twiddle_loop >= 0 && node->tw.n > 0;
  const int64_t T = node->tw.n, d = twiddled ? w->m % T : 0;
  int64_t p = twiddled ? (int64_t)(((__int128)d * begin) % T) : 0;
  for (int64_t k = begin; k < end; k++) {
    double qr = w->a[2 * k], qi = w->a[2 * k + 1];
    double x = qr * cr[k] + qi * ci[k], y = qr * ci[k] - qi * cr[k];
    if (twiddled) {
      double wr, wi;
      hy_tw_eval(&node->tw, p, &wr, &wi);
      double t = x * wr - y * wi;
      y = x * wi + y * wr;
      x = t;
      p += d;
      if (p >= T) p -= T;
    }
    dst[2 * k * os] = (hy_r)(x * run->scale);
    dst[2 * k * os + 1] = (hy_r)(y * run->scale);
  }
}

/* Bluestein one transform at a time, its length-m convolution through the
 * f64 node (four-step and all lanes busy): for single long transforms,
 * where four side by side would leave lanes and threads idle. */
static hy_status hy_bluestein_wide(const hy_cpu_node *node, const hy_cpu_run *run) {
  const int64_t M = node->m, count = hy_run_count(run);
  const size_t bytes = sizeof(double) * 4 * (size_t)M;
  double *buf = hy_cpu_big_alloc(bytes);
  if (!buf) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: Bluestein buffers for m = %lld", (long long)M);
  hy_status st = HYFFT_SUCCESS;
  for (int64_t t = 0; t < count && st == HYFFT_SUCCESS; t++) {
    hy_bl_wide w = {node, run, 0, 0, 0, buf};
    hy_run_offsets(run, t, &w.so, &w.dof, &w.m);
    /* Pointwise work is cheap: threads only pay off on long arrays. */
    const int64_t grain = 32768;
    hy_parallel_for(M, grain, hy_bl_wide_in, &w);
    hy_cpu_run r = {0};
    r.src = buf;
    r.dst = buf + 2 * M;
    r.axis = (hyfft_dim){M, 1, 1};
    r.twiddle_loop = -1;
    r.scale = 1.0;
    st = hy_cpu_node_run_f64(node->fft, &r);
    if (st != HYFFT_SUCCESS) break;
    w.a = buf + 2 * M;
    hy_parallel_for(M, grain, hy_bl_wide_mul, &w);
    r.src = buf + 2 * M;
    r.dst = buf;
    st = hy_cpu_node_run_f64(node->fft, &r);
    w.a = buf;
    if (st == HYFFT_SUCCESS) hy_parallel_for(node->n, grain, hy_bl_wide_out, &w);
  }
  hy_cpu_big_free(buf, bytes);
  return st;
}

hy_status HY_SFX(hy_cpu_node_run)(const hy_cpu_node *node, const hy_cpu_run *run) {
  hy_job job = {node, run, hy_run_count(run), 0};
  if (job.count == 0) return HYFFT_SUCCESS;
  switch (node->kind) {
    case HY_CPU_DIRECT: {
      int64_t groups = (job.count + L_ - 1) / L_;
      /* Each thread gets at least ~16K points: waking a team costs more
       * than transforming fewer. */
      int64_t grain = 16384 / (node->n * L_);
      hy_parallel_for(groups, grain < 1 ? 1 : grain, hy_direct_range, &job);
      break;
    }
    case HY_CPU_BLUESTEIN: {
      int64_t groups = (job.count + HY_BL_LANES - 1) / HY_BL_LANES;
      if (job.count < HY_BL_LANES || groups < hy_num_threads() || node->m > 4 * HY_CPU_DIRECT_MAX)
        return hy_bluestein_wide(node, run);
      hy_parallel_for(groups, 1, hy_bluestein_range, &job);
      break;
    }
    default:
      return hy_large_run(node, run);
  }
  if (job.failed)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: no scratch for length %lld", (long long)node->n);
  return HYFFT_SUCCESS;
}

/* Four-step: n = n1*n2, x[a*n2 + b] -> X[c + n1*d]. First n2 transforms of
 * length n1 (stride n2), twiddled by w_n^(b*c), into tmp[c*ld + b]; then
 * n1 transforms of length n2 from the rows of tmp to X with stride n1.
 * Out of place, tmp is not needed: the first half writes row b of the
 * output viewed as n2 x n1 (y[c + n1*b]), and the second half transforms
 * each column c of it in place, which is exactly where X[c + n1*d] goes;
 * two arrays instead of three stay in cache.
 * Transforms of the batch run one after the other, each parallel inside. */
typedef struct hy_large_job {
  const hy_cpu_node *node;
  const hy_cpu_run *run;
  int failed; /* hy_status of the first failure, 0 if none */
} hy_large_job;

/* Transforms [begin, end) of the batch, one after the other, on this
 * thread's scratch. */
static void hy_large_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_large_job *job = arg;
  const hy_cpu_node *node = job->node;
  const hy_cpu_run *run = job->run;
  const int64_t n = node->n, n1 = node->n1, n2 = node->n2;
  const int twiddled = run->twiddle_loop >= 0 && node->tw.n > 0;
  /* Rows of tmp padded by one cache line: power-of-two row strides would
   * send every column access of the first half to the same cache sets. */
  const int64_t ld = n2 + 64 / (2 * (int64_t)sizeof(hy_r));
  /* Same base pointer here means in place (the backend copies any other
   * overlapping input away first). */
  const int via_tmp = run->src == run->dst;
  const size_t bytes = via_tmp ? sizeof(hy_r) * 2 * (size_t)(n1 * ld) : 0;
  hy_r *tmp = via_tmp ? hy_cpu_scratch_get(1, bytes) : NULL;
  if (via_tmp && !tmp) {
    __atomic_store_n(&job->failed, (int)HYFFT_OUT_OF_MEMORY, __ATOMIC_RELAXED);
    return;
  }
  hy_status st = HYFFT_SUCCESS;
  const hy_r *src = run->src;
  hy_r *dst = run->dst;
  const int64_t is = run->axis.in_stride, os = run->axis.out_stride;
  for (int64_t t = begin; t < end && st == HYFFT_SUCCESS; t++) {
    int64_t so, dof, m;
    hy_run_offsets(run, t, &so, &dof, &m);
    hy_cpu_run ra = {0}, rb = {0};
    ra.src = src + 2 * so;
    ra.dst = tmp;
    ra.axis = (hyfft_dim){n1, n2 * is, ld};
    ra.nloops = 1;
    ra.loops[0] = (hyfft_dim){n2, is, 1};
    ra.twiddle_loop = 0;
    ra.scale = 1.0;
    rb.src = tmp;
    rb.dst = dst + 2 * dof;
    rb.axis = (hyfft_dim){n2, 1, n1 * os};
    rb.nloops = 1;
    rb.loops[0] = (hyfft_dim){n1, ld, os};
    rb.twiddle_loop = -1;
    rb.scale = twiddled ? 1.0 : run->scale;
    if (!via_tmp) {
      ra.dst = dst + 2 * dof;
      ra.axis = (hyfft_dim){n1, n2 * is, os};
      ra.loops[0] = (hyfft_dim){n2, is, n1 * os};
      rb.src = dst + 2 * dof;
      rb.axis = (hyfft_dim){n2, n1 * os, n1 * os};
      rb.loops[0] = (hyfft_dim){n1, os, os};
    }
    st = HY_SFX(hy_cpu_node_run)(node->a, &ra);
    if (st == HYFFT_SUCCESS) st = HY_SFX(hy_cpu_node_run)(node->b, &rb);
    if (st == HYFFT_SUCCESS && twiddled) {
      int64_t p = 0, d = m % node->tw.n;
      for (int64_t k = 0; k < n; k++) {
        hy_r *q = dst + 2 * (dof + k * os);
        double wr, wi, x = q[0], y = q[1];
        hy_tw_eval(&node->tw, p, &wr, &wi);
        q[0] = (hy_r)((x * wr - y * wi) * run->scale);
        q[1] = (hy_r)((x * wi + y * wr) * run->scale);
        p += d;
        if (p >= node->tw.n) p -= node->tw.n;
      }
    }
  }
  hy_cpu_scratch_put(1, tmp, bytes);
  if (st != HYFFT_SUCCESS) __atomic_store_n(&job->failed, (int)st, __ATOMIC_RELAXED);
}

/* A batch with at least one transform per thread runs whole transforms in
 * parallel in one team (the sub-runs inside stay on their thread); fewer
 * transforms run one after the other, each parallel inside. Splitting
 * every transform over the threads costs two team wake-ups and barriers
 * per transform and shares each one's cache lines between cores. */
static hy_status hy_large_run(const hy_cpu_node *node, const hy_cpu_run *run) {
  const int64_t count = hy_run_count(run);
  hy_large_job job = {node, run, 0};
  const int threads = hy_num_threads();
  /* Whole transforms per thread only while each thread's share of
   * memory stays modest: past 32 MiB a transform is long enough to keep
   * every thread busy inside it, and in place each thread would hold a
   * scratch copy of that size. */
  const int64_t tbytes = node->n * 2 * (int64_t)sizeof(hy_r);
  if (count >= 2 && count >= threads && tbytes <= ((int64_t)32 << 20))
    hy_parallel_for(count, 1, hy_large_range, &job);
  else
    hy_large_range(&job, 0, count, 0);
  if (job.failed == (int)HYFFT_OUT_OF_MEMORY)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: no scratch for length %lld", (long long)node->n);
  if (job.failed)
    return hy_error((hy_status)job.failed, "cpu engine: four-step run of length %lld failed", (long long)node->n);
  return HYFFT_SUCCESS;
}
