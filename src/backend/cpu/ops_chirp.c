/* HY_PASS_CHIRP on the CPU: a plain loop over the pass's elements with the
 * chirp (or its spectrum) from the same long double tables as the GPU
 * kernels, so both backends give the same numbers. */
#include "backend/cpu/ops_chirp.h"

#include "tables/spectra.h"
#include "tables/twiddle.h"

typedef struct hy_chirp_run {
  const hy_pass *pass;
  const char *src;
  char *dst;
  const double *table; /* complex, in double for both precisions */
} hy_chirp_run;

static void hy_chirp_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_chirp_run *r = arg;
  const hy_pass *pass = r->pass;
  int f64 = pass->precision == HYFFT_F64;
  size_t elem = f64 ? 16 : 8;
  for (int64_t t = begin; t < end; t++) {
    int64_t ib, ob;
    hy_pass_loop_offsets(pass, t, &ib, &ob);
    for (int64_t e = 0; e < pass->axis.n; e++) {
      const char *s = r->src + (ib + e * pass->axis.in_stride) * (int64_t)elem;
      char *d = r->dst + (ob + e * pass->axis.out_stride) * (int64_t)elem;
      double xr = 0, xi = 0, yr = 0, yi = 0;
      int read = pass->chirp_step != HY_CHIRP_PRE || e < pass->chirp_n;
      if (read) {
        xr = f64 ? ((const double *)s)[0] : ((const float *)s)[0];
        xi = f64 ? ((const double *)s)[1] : ((const float *)s)[1];
        double wr = r->table[2 * e], wi = r->table[2 * e + 1];
        yr = xr * wr - xi * wi;
        yi = xr * wi + xi * wr;
        if (pass->chirp_step == HY_CHIRP_POST && pass->scale != 1.0) {
          yr *= pass->scale;
          yi *= pass->scale;
        }
      }
      if (f64) {
        ((double *)d)[0] = yr;
        ((double *)d)[1] = yi;
      } else {
        ((float *)d)[0] = (float)yr;
        ((float *)d)[1] = (float)yi;
      }
    }
  }
}

hy_status hy_cpu_op_chirp(const hy_pass *pass, const void *src, void *dst) {
  if (pass->op != HY_PASS_CHIRP)
    return hy_error(HYFFT_INTERNAL, "hy_cpu_op_chirp called on a pass of op %d", (int)pass->op);
  int64_t n = pass->chirp_n, m = pass->bluestein_m;
  int64_t len = pass->chirp_step == HY_CHIRP_POST ? n : m;
  if (n < 1 || m < 2 * n - 2 || pass->axis.n != len)
    return hy_error(HYFFT_INTERNAL, "chirp pass: N=%lld M=%lld axis %lld", (long long)n,
                    (long long)m, (long long)pass->axis.n);
  /* One table entry per element along the axis, rounded from long double
   * to the pass precision (as on the GPU) and then held in double. */
  double *table = hy_malloc((size_t)len * 2 * sizeof(double));
  if (!table) return hy_error(HYFFT_OUT_OF_MEMORY, "chirp pass: table of %lld", (long long)len);
  if (pass->chirp_step == HY_CHIRP_SPECTRUM) {
    hy_status st = hy_tables_bluestein_spectrum(n, m, pass->sign, HYFFT_F64, table);
    if (st != HYFFT_SUCCESS) {
      hy_free(table);
      return st;
    }
    if (pass->precision == HYFFT_F32) {
      /* Round from long double, not through double: recompute as f32. */
      float *f = hy_malloc((size_t)len * 2 * sizeof(float));
      if (!f) {
        hy_free(table);
        return hy_error(HYFFT_OUT_OF_MEMORY, "chirp pass: table of %lld", (long long)len);
      }
      st = hy_tables_bluestein_spectrum(n, m, pass->sign, HYFFT_F32, f);
      for (int64_t i = 0; i < 2 * len && st == HYFFT_SUCCESS; i++) table[i] = f[i];
      hy_free(f);
      if (st != HYFFT_SUCCESS) {
        hy_free(table);
        return st;
      }
    }
  } else {
    for (int64_t e = 0; e < len; e++) {
      long double re, im;
      hy_chirp_ld(e < n ? e : 0, n, pass->sign, &re, &im);
      if (pass->precision == HYFFT_F32) {
        table[2 * e] = (float)re;
        table[2 * e + 1] = (float)im;
      } else {
        table[2 * e] = (double)re;
        table[2 * e + 1] = (double)im;
      }
    }
  }
  hy_chirp_run run = {pass, src, dst, table};
  hy_parallel_for(hy_pass_count(pass), 1, hy_chirp_range, &run);
  hy_free(table);
  return HYFFT_SUCCESS;
}

/* HY_PASS_TWIDDLE: element e of transform m times W_N^(e * j), j = (m +
 * base) mod (N / axis.n); the twiddle from long double, rounded to double
 * for both precisions (as the GPU's tables are where it has f64), the
 * product in double. */
typedef struct hy_twiddle_run {
  const hy_pass *pass;
  const char *src;
  char *dst;
  int64_t base;
} hy_twiddle_run;

static void hy_twiddle_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_twiddle_run *r = arg;
  const hy_pass *pass = r->pass;
  int f64 = pass->precision == HYFFT_F64;
  size_t elem = f64 ? 16 : 8;
  int64_t period = pass->twiddle_n / pass->axis.n;
  for (int64_t m = begin; m < end; m++) {
    int64_t j = (m + r->base) % period;
    for (int64_t e = 0; e < pass->axis.n; e++) {
      const char *s = r->src + (m * pass->loops[0].in_stride + e * pass->axis.in_stride) * (int64_t)elem;
      char *d = r->dst + (m * pass->loops[0].out_stride + e * pass->axis.out_stride) * (int64_t)elem;
      long double lr, li;
      hy_twiddle_ld(e * j, pass->twiddle_n, pass->sign, &lr, &li);
      double wr = (double)lr, wi = (double)li;
      double xr = f64 ? ((const double *)s)[0] : ((const float *)s)[0];
      double xi = f64 ? ((const double *)s)[1] : ((const float *)s)[1];
      double yr = (xr * wr - xi * wi) * pass->scale, yi = (xr * wi + xi * wr) * pass->scale;
      if (f64) {
        ((double *)d)[0] = yr;
        ((double *)d)[1] = yi;
      } else {
        ((float *)d)[0] = (float)yr;
        ((float *)d)[1] = (float)yi;
      }
    }
  }
}

hy_status hy_cpu_op_twiddle(const hy_pass *pass, const void *src, void *dst, int64_t base) {
  if (pass->op != HY_PASS_TWIDDLE || pass->nloops != 1 || pass->axis.n < 1 ||
      pass->twiddle_n % pass->axis.n != 0)
    return hy_error(HYFFT_INTERNAL, "cpu backend: a malformed twiddle pass");
  hy_twiddle_run run = {pass, src, dst, base < 0 ? 0 : base};
  hy_parallel_for(pass->loops[0].n, 1, hy_twiddle_range, &run);
  return HYFFT_SUCCESS;
}
