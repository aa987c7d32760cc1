/* The pointwise steps of real transforms on the CPU (ops_real.h): loops
 * over the pass's transforms, split into chunks along the axis so that
 * one long transform still uses every thread. Each precision has its own
 * loops (ops_real_impl.h, included once per precision), so no element
 * pays a branch on the precision, and unit-stride transforms take vector
 * paths. */
#include "backend/cpu/ops_real.h"

#include <stdint.h>
#include <string.h>

#include "tables/twiddle.h"

/* Elements (or pairs, for R2C_POST / C2R_PRE) one work item covers. */
#define HY_REAL_CHUNK 4096

#define HY_INLINE static inline __attribute__((always_inline))

/* The loops get AVX-512 and AVX2 clones picked at load time, as the CPU
 * engine's do (cpu_engine_codelets.h); the default stays baseline x86-64. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(HYFFT_NO_CLONES)
#define HY_REAL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HY_REAL_CLONES
#endif

/* Four doubles (the real or the imaginary parts of four elements), four
 * and eight floats, eight doubles, and a shuffle of two double vectors by
 * four lane indices. */
typedef double hy_d4 __attribute__((vector_size(32)));
typedef float hy_f4 __attribute__((vector_size(16)));
typedef float hy_f8 __attribute__((vector_size(32)));
typedef double hy_d8 __attribute__((vector_size(64)));
#if defined(__clang__)
#define HY_SHUF(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
typedef int64_t hy_i4 __attribute__((vector_size(32)));
#define HY_SHUF(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (hy_i4){i0, i1, i2, i3})
#endif

typedef struct hy_real_run {
  const hy_pass *pass;
  const double *table;
  const char *src;
  char *dst;
  int64_t items;  /* elements or pairs per transform */
  int64_t chunks; /* work items per transform */
} hy_real_run;

int hy_cpu_op_is_real(hy_pass_op op) {
  return op == HY_PASS_WIDEN || op == HY_PASS_NARROW || op == HY_PASS_R2C_POST ||
         op == HY_PASS_C2R_PRE || op == HY_PASS_C2R_EXTEND;
}

/* Whether na elements at a and nb at b (each `size` bytes) share no byte. */
static inline int hy_real_apart(const void *a, int64_t na, const void *b, int64_t nb, size_t size) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x + (uintptr_t)na * size <= y || y + (uintptr_t)nb * size <= x;
}

/* R2C_POST for the pair (k, m-k) of one transform: from Z_k and Z_m-k
 * (Z_m = Z_0), X_k = (P - i T_k Q) / 2 with P = Z_k + conj(Z_m-k),
 * Q = Z_k - conj(Z_m-k), T_k = tr + i ti. */
static inline void hy_r2c_one(double tr, double ti, double zr, double zi, double wr, double wi,
                              double *xr, double *xi) {
  double pr = zr + wr, pi = zi - wi, qr = zr - wr, qi = zi + wi;
  /* -i T Q = -i (tr qr - ti qi + i (tr qi + ti qr)) */
  double ur = tr * qi + ti * qr, ui = -(tr * qr - ti * qi);
  *xr = 0.5 * (pr + ur);
  *xi = 0.5 * (pi + ui);
}

/* C2R_PRE: Z_k = P + i T_k Q with P = X_k + conj(X_m-k), Q = X_k - conj(X_m-k). */
static inline void hy_c2r_one(double tr, double ti, double xr, double xi, double wr, double wi,
                              double *zr, double *zi) {
  double pr = xr + wr, pi = xi - wi, qr = xr - wr, qi = xi + wi;
  /* i T Q = i (tr qr - ti qi) - (tr qi + ti qr) */
  *zr = pr - (tr * qi + ti * qr);
  *zi = pi + (tr * qr - ti * qi);
}

/* The same two on four pairs at once (lanes), the same operations in the
 * same order, with the twiddles' parts tr, ti given. Vectors go by
 * pointer: passing them by value is an ABI matter where AVX is off (the
 * default clone). */
HY_INLINE void hy_r2c_v(const hy_d4 *tr, const hy_d4 *ti, const hy_d4 *zr, const hy_d4 *zi,
                        const hy_d4 *wr, const hy_d4 *wi, hy_d4 *xr, hy_d4 *xi) {
  hy_d4 pr = *zr + *wr, pi = *zi - *wi, qr = *zr - *wr, qi = *zi + *wi;
  hy_d4 ur = *tr * qi + *ti * qr, ui = -(*tr * qr - *ti * qi);
  *xr = 0.5 * (pr + ur);
  *xi = 0.5 * (pi + ui);
}

HY_INLINE void hy_c2r_v(const hy_d4 *tr, const hy_d4 *ti, const hy_d4 *xr, const hy_d4 *xi,
                        const hy_d4 *wr, const hy_d4 *wi, hy_d4 *zr, hy_d4 *zi) {
  hy_d4 pr = *xr + *wr, pi = *xi - *wi, qr = *xr - *wr, qi = *xi + *wi;
  *zr = pr - (*tr * qi + *ti * qr);
  *zi = pi + (*tr * qr - *ti * qi);
}

#define HY_RT float
#define HY_RT_F64 0
#define HY_RN(name) hy_real_##name##_f32
#include "backend/cpu/ops_real_impl.h"
#undef HY_RT
#undef HY_RT_F64
#undef HY_RN

#define HY_RT double
#define HY_RT_F64 1
#define HY_RN(name) hy_real_##name##_f64
#include "backend/cpu/ops_real_impl.h"
#undef HY_RT
#undef HY_RT_F64
#undef HY_RN

hy_status hy_cpu_op_real_table(const hy_pass *pass, double **table) {
  *table = NULL;
  if (pass->op != HY_PASS_R2C_POST && pass->op != HY_PASS_C2R_PRE) return HYFFT_SUCCESS;
  int64_t m = pass->axis.n - 1;
  if (m < 1) return hy_error(HYFFT_INTERNAL, "real pass: %lld elements", (long long)pass->axis.n);
  /* Then the same twiddles in float, interleaved (re, im of T_k at
   * 2k, 2k+1), for the single-precision row step (hy_real_row_f32). */
  double *t = hy_malloc(sizeof(double) * 2 * (size_t)(m + 1) + sizeof(float) * 2 * (size_t)(m + 1));
  if (!t) return hy_error(HYFFT_OUT_OF_MEMORY, "real pass: twiddles for n = %lld", (long long)(2 * m));
  /* T_k for k <= m/2 from long double; the rest by the exact symmetry
   * T_m-k = -conj(T_k) (exp(sign*pi*i) = -1), half the sinl/cosl calls.
   * Split: the real parts at t[k], the imaginary parts at t[m + 1 + k],
   * so that four of either are one vector load. */
  int sign = pass->op == HY_PASS_R2C_POST ? -1 : 1;
  double *ti = t + m + 1;
  for (int64_t k = 0; 2 * k <= m; k++) {
    long double re, im;
    hy_twiddle_ld(k, 2 * m, sign, &re, &im);
    t[k] = (double)re;
    ti[k] = (double)im;
    if (2 * k == m) continue;
    t[m - k] = -(double)re;
    ti[m - k] = (double)im;
  }
  float *tf = (float *)(void *)(t + 2 * (m + 1));
  for (int64_t k = 0; k <= m; k++) {
    tf[2 * k] = (float)t[k];
    tf[2 * k + 1] = (float)ti[k];
  }
  *table = t;
  return HYFFT_SUCCESS;
}

hy_status hy_cpu_op_real(const hy_pass *pass, const double *table, const void *src_base,
                         void *dst_base) {
  if (!hy_cpu_op_is_real(pass->op))
    return hy_error(HYFFT_INTERNAL, "hy_cpu_op_real called on a pass of op %d", (int)pass->op);
  const int f64 = pass->precision == HYFFT_F64;
  const int64_t real = f64 ? 8 : 4;
  /* Offsets in the element type of each end: reals at the real end. */
  int64_t src_elem = pass->op == HY_PASS_WIDEN ? real : 2 * real;
  int64_t dst_elem = pass->op == HY_PASS_NARROW ? real : 2 * real;
  hy_real_run run = {pass, table, (const char *)src_base + pass->src_offset * src_elem,
                     (char *)dst_base + pass->dst_offset * dst_elem, pass->axis.n, 1};
  if (pass->op == HY_PASS_R2C_POST || pass->op == HY_PASS_C2R_PRE) {
    if (!table || pass->axis.n < 2)
      return hy_error(HYFFT_INTERNAL, "real pass: no twiddles or %lld elements",
                      (long long)pass->axis.n);
    run.items = (pass->axis.n - 1) / 2 + 1; /* the pairs k, m-k with k <= m/2 */
  }
  run.chunks = (run.items + HY_REAL_CHUNK - 1) / HY_REAL_CHUNK;
  if (run.chunks < 1) run.chunks = 1;
  hy_parallel_for(hy_pass_count(pass) * run.chunks, 1, f64 ? hy_real_range_f64 : hy_real_range_f32,
                  &run);
  return HYFFT_SUCCESS;
}

/* ---- the single-precision step of one unit-stride transform ---------
 * With Z the half-length DFT, P_k = Z_k + conj(Z_m-k), Q_k = Z_k -
 * conj(Z_m-k) and T_m-k = -conj(T_k), the pair's two outputs share one
 * complex product: R2C X_k = (P - i T Q) / 2, X_m-k = conj(P + i T Q) / 2;
 * C2R Z_k = P + i T Q, Z_m-k = conj(P - i T Q). The vector loop takes four
 * pairs at once on interleaved values (the upper four reversed), in
 * float with the table's float twiddles; both ends of the pair are read
 * before either is written, so in place works. */
typedef int32_t hy_i8 __attribute__((vector_size(32)));
#if defined(__clang__)
#define HY_SHUF8(a, ...) __builtin_shufflevector(a, a, __VA_ARGS__)
#else
#define HY_SHUF8(a, ...) __builtin_shuffle(a, (hy_i8){__VA_ARGS__})
#endif

static inline void hy_real_pair_f32(int post, float tr, float ti, float ar, float ai, float br,
                                    float bi, float f, float *xr, float *xi, float *yr,
                                    float *yi) {
  const float pr = ar + br, pi = ai - bi, qr = ar - br, qi = ai + bi;
  /* i T Q */
  const float ur = -(tr * qi + ti * qr), ui = tr * qr - ti * qi;
  const float g = post ? -1.0f : 1.0f;
  *xr = f * (pr + g * ur);
  *xi = f * (pi + g * ui);
  *yr = f * (pr - g * ur);
  *yi = -f * (pi - g * ui);
}

HY_REAL_CLONES static void hy_real_row_f32(int post, const float *tw, int64_t m, const float *s,
                                           float *d, float scale) {
  /* Element 0 and the middle element of even m first: their pairs are
   * themselves. */
  const float a0r = s[0], a0i = s[1], bmr = s[2 * m];
  const float f = post ? 0.5f * scale : scale;
  int64_t k = 1;
  const hy_f8 sg = {-1, 1, -1, 1, -1, 1, -1, 1}, cj = {1, -1, 1, -1, 1, -1, 1, -1};
  const float g = post ? -1.0f : 1.0f;
  for (; k + 3 < m - k - 3; k += 4) {
    hy_f8 a, b, t;
    memcpy(&a, s + 2 * k, sizeof a);
    memcpy(&b, s + 2 * (m - k - 3), sizeof b);
    memcpy(&t, tw + 2 * k, sizeof t);
    b = HY_SHUF8(b, 6, 7, 4, 5, 2, 3, 0, 1); /* Z_m-k .. Z_m-k-3 */
    const hy_f8 bc = b * cj;
    const hy_f8 p = a + bc, q = a - bc;
    const hy_f8 tre = HY_SHUF8(t, 0, 0, 2, 2, 4, 4, 6, 6), tim = HY_SHUF8(t, 1, 1, 3, 3, 5, 5, 7, 7);
    const hy_f8 qs = HY_SHUF8(q, 1, 0, 3, 2, 5, 4, 7, 6);
    const hy_f8 tq = tre * q + sg * (tim * qs);              /* T Q */
    const hy_f8 u = sg * HY_SHUF8(tq, 1, 0, 3, 2, 5, 4, 7, 6); /* i T Q */
    const hy_f8 x = f * (p + g * u), y = (f * (p - g * u)) * cj;
    memcpy(d + 2 * k, &x, sizeof x);
    const hy_f8 yrev = HY_SHUF8(y, 6, 7, 4, 5, 2, 3, 0, 1);
    memcpy(d + 2 * (m - k - 3), &yrev, sizeof yrev);
  }
  for (; 2 * k <= m; k++) {
    float xr, xi, yr, yi;
    hy_real_pair_f32(post, tw[2 * k], tw[2 * k + 1], s[2 * k], s[2 * k + 1], s[2 * (m - k)],
                     s[2 * (m - k) + 1], f, &xr, &xi, &yr, &yi);
    d[2 * k] = xr;
    d[2 * k + 1] = xi;
    if (2 * k != m) {
      d[2 * (m - k)] = yr;
      d[2 * (m - k) + 1] = yi;
    }
  }
  if (post) {
    d[0] = scale * (a0r + a0i);
    d[1] = 0.0f;
    d[2 * m] = scale * (a0r - a0i);
    d[2 * m + 1] = 0.0f;
  } else {
    /* imaginary parts of X_0 and X_m taken as 0 */
    d[0] = scale * (a0r + bmr);
    d[1] = scale * (a0r - bmr);
  }
}

hy_status hy_cpu_op_real_one(int post, hyfft_precision precision, const double *table, int64_t m,
                             const void *src, int64_t is, void *dst, int64_t os, double scale) {
  /* Single precision, unit strides, in place or apart: the float step. */
  if (precision == HYFFT_F32 && is == 1 && os == 1 && table && m >= 2 &&
      (src == dst || hy_real_apart(src, 2 * (m + 1), dst, 2 * (m + 1), sizeof(float)))) {
    hy_real_row_f32(post, (const float *)(const void *)(table + 2 * (m + 1)), m, src, dst,
                    (float)scale);
    return HYFFT_SUCCESS;
  }
  if (!table || m < 1)
    return hy_error(HYFFT_INTERNAL, "real step: no twiddles or %lld elements", (long long)(m + 1));
  if (precision == HYFFT_F64) hy_real_one_f64(post, table, m, src, is, dst, os, scale);
  else hy_real_one_f32(post, table, m, src, is, dst, os, scale);
  return HYFFT_SUCCESS;
}
