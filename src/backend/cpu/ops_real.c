/* The pointwise steps of real transforms on the CPU (ops_real.h): plain
 * loops over the pass's transforms, split into chunks along the axis so
 * that one long transform still uses every thread. */
#include "backend/cpu/ops_real.h"

#include "tables/twiddle.h"

/* Elements (or pairs, for R2C_POST / C2R_PRE) one work item covers. */
#define HY_REAL_CHUNK 4096

typedef struct hy_real_run {
  const hy_pass *pass;
  const double *table;
  const char *src;
  char *dst;
  int f64;
  int64_t items;  /* elements or pairs per transform */
  int64_t chunks; /* work items per transform */
} hy_real_run;

int hy_cpu_op_is_real(hy_pass_op op) {
  return op == HY_PASS_WIDEN || op == HY_PASS_NARROW || op == HY_PASS_R2C_POST ||
         op == HY_PASS_C2R_PRE || op == HY_PASS_C2R_EXTEND;
}

static inline double hy_ld_real(const char *base, int64_t i, int f64) {
  return f64 ? ((const double *)base)[i] : (double)((const float *)base)[i];
}

static inline void hy_st_real(char *base, int64_t i, int f64, double v) {
  if (f64) ((double *)base)[i] = v;
  else ((float *)base)[i] = (float)v;
}

static inline void hy_ld_cplx(const char *base, int64_t i, int f64, double *re, double *im) {
  *re = hy_ld_real(base, 2 * i, f64);
  *im = hy_ld_real(base, 2 * i + 1, f64);
}

static inline void hy_st_cplx(char *base, int64_t i, int f64, double re, double im) {
  hy_st_real(base, 2 * i, f64, re);
  hy_st_real(base, 2 * i + 1, f64, im);
}

/* R2C_POST for the pair (k, m-k) of one transform: from Z_k and Z_m-k
 * (Z_m = Z_0), X_k = (P - i T_k Q) / 2 with P = Z_k + conj(Z_m-k),
 * Q = Z_k - conj(Z_m-k). */
static inline void hy_r2c_one(const double *t, int64_t k, double zr, double zi, double wr,
                              double wi, double *xr, double *xi) {
  double pr = zr + wr, pi = zi - wi, qr = zr - wr, qi = zi + wi;
  double tr = t[2 * k], ti = t[2 * k + 1];
  /* -i T Q = -i (tr qr - ti qi + i (tr qi + ti qr)) */
  double ur = tr * qi + ti * qr, ui = -(tr * qr - ti * qi);
  *xr = 0.5 * (pr + ur);
  *xi = 0.5 * (pi + ui);
}

/* C2R_PRE: Z_k = P + i T_k Q with P = X_k + conj(X_m-k), Q = X_k - conj(X_m-k). */
static inline void hy_c2r_one(const double *t, int64_t k, double xr, double xi, double wr,
                              double wi, double *zr, double *zi) {
  double pr = xr + wr, pi = xi - wi, qr = xr - wr, qi = xi + wi;
  double tr = t[2 * k], ti = t[2 * k + 1];
  /* i T Q = i (tr qr - ti qi) - (tr qi + ti qr) */
  *zr = pr - (tr * qi + ti * qr);
  *zi = pi + (tr * qr - ti * qi);
}

static void hy_real_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_real_run *r = arg;
  const hy_pass *pass = r->pass;
  const int f64 = r->f64;
  const double scale = pass->scale;
  const int64_t is = pass->axis.in_stride, os = pass->axis.out_stride, n = pass->axis.n;
  for (int64_t item = begin; item < end; item++) {
    int64_t t = item / r->chunks, c = item % r->chunks;
    int64_t lo = c * HY_REAL_CHUNK, hi = lo + HY_REAL_CHUNK;
    if (hi > r->items) hi = r->items;
    int64_t ib, ob;
    hy_pass_loop_offsets(pass, t, &ib, &ob);
    switch (pass->op) {
      case HY_PASS_WIDEN:
        for (int64_t e = lo; e < hi; e++) {
          double re, im = 0;
          if (pass->real_pairs) {
            re = hy_ld_real(r->src, ib + 2 * e * is, f64);
            im = hy_ld_real(r->src, ib + (2 * e + 1) * is, f64);
          } else {
            re = hy_ld_real(r->src, ib + e * is, f64);
          }
          hy_st_cplx(r->dst, ob + e * os, f64, scale * re, scale * im);
        }
        break;
      case HY_PASS_NARROW:
        for (int64_t e = lo; e < hi; e++) {
          double re, im;
          hy_ld_cplx(r->src, ib + e * is, f64, &re, &im);
          if (pass->real_pairs) {
            hy_st_real(r->dst, ob + 2 * e * os, f64, scale * re);
            hy_st_real(r->dst, ob + (2 * e + 1) * os, f64, scale * im);
          } else {
            hy_st_real(r->dst, ob + e * os, f64, scale * re);
          }
        }
        break;
      case HY_PASS_C2R_EXTEND:
        for (int64_t e = lo; e < hi; e++) {
          double re, im;
          if (e <= n / 2) {
            hy_ld_cplx(r->src, ib + e * is, f64, &re, &im);
            if (e == 0 || 2 * e == n) im = 0;
          } else {
            hy_ld_cplx(r->src, ib + (n - e) * is, f64, &re, &im);
            im = -im;
          }
          hy_st_cplx(r->dst, ob + e * os, f64, scale * re, scale * im);
        }
        break;
      case HY_PASS_R2C_POST:
      case HY_PASS_C2R_PRE: {
        const int64_t m = n - 1;
        const int post = pass->op == HY_PASS_R2C_POST;
        for (int64_t k = lo; k < hi; k++) {
          double ar, ai, br, bi, xr, xi, yr, yi;
          if (k == 0) {
            hy_ld_cplx(r->src, ib, f64, &ar, &ai);
            if (post) {
              hy_st_cplx(r->dst, ob, f64, scale * (ar + ai), 0.0);
              hy_st_cplx(r->dst, ob + m * os, f64, scale * (ar - ai), 0.0);
            } else {
              hy_ld_cplx(r->src, ib + m * is, f64, &br, &bi);
              /* imaginary parts of X_0 and X_m taken as 0 */
              hy_st_cplx(r->dst, ob, f64, scale * (ar + br), scale * (ar - br));
            }
            continue;
          }
          hy_ld_cplx(r->src, ib + k * is, f64, &ar, &ai);
          hy_ld_cplx(r->src, ib + (m - k) * is, f64, &br, &bi);
          if (post) {
            hy_r2c_one(r->table, k, ar, ai, br, bi, &xr, &xi);
            hy_r2c_one(r->table, m - k, br, bi, ar, ai, &yr, &yi);
          } else {
            hy_c2r_one(r->table, k, ar, ai, br, bi, &xr, &xi);
            hy_c2r_one(r->table, m - k, br, bi, ar, ai, &yr, &yi);
          }
          hy_st_cplx(r->dst, ob + k * os, f64, scale * xr, scale * xi);
          if (2 * k != m) hy_st_cplx(r->dst, ob + (m - k) * os, f64, scale * yr, scale * yi);
        }
        break;
      }
      default:
        break;
    }
  }
}

hy_status hy_cpu_op_real_table(const hy_pass *pass, double **table) {
  *table = NULL;
  if (pass->op != HY_PASS_R2C_POST && pass->op != HY_PASS_C2R_PRE) return HYFFT_SUCCESS;
  int64_t m = pass->axis.n - 1;
  if (m < 1) return hy_error(HYFFT_INTERNAL, "real pass: %lld elements", (long long)pass->axis.n);
  double *t = hy_malloc(sizeof(double) * 2 * (size_t)(m + 1));
  if (!t) return hy_error(HYFFT_OUT_OF_MEMORY, "real pass: twiddles for n = %lld", (long long)(2 * m));
  /* T_k for k <= m/2 from long double; the rest by the exact symmetry
   * T_m-k = -conj(T_k) (exp(sign*pi*i) = -1), half the sinl/cosl calls. */
  int sign = pass->op == HY_PASS_R2C_POST ? -1 : 1;
  for (int64_t k = 0; 2 * k <= m; k++) {
    long double re, im;
    hy_twiddle_ld(k, 2 * m, sign, &re, &im);
    t[2 * k] = (double)re;
    t[2 * k + 1] = (double)im;
    if (2 * k == m) continue;
    t[2 * (m - k)] = -(double)re;
    t[2 * (m - k) + 1] = (double)im;
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
                     (char *)dst_base + pass->dst_offset * dst_elem, f64, pass->axis.n, 1};
  if (pass->op == HY_PASS_R2C_POST || pass->op == HY_PASS_C2R_PRE) {
    if (!table || pass->axis.n < 2)
      return hy_error(HYFFT_INTERNAL, "real pass: no twiddles or %lld elements",
                      (long long)pass->axis.n);
    run.items = (pass->axis.n - 1) / 2 + 1; /* the pairs k, m-k with k <= m/2 */
  }
  run.chunks = (run.items + HY_REAL_CHUNK - 1) / HY_REAL_CHUNK;
  if (run.chunks < 1) run.chunks = 1;
  hy_parallel_for(hy_pass_count(pass) * run.chunks, 1, hy_real_range, &run);
  return HYFFT_SUCCESS;
}
