/* The host steps of a 1D real transform out of core (exec/ooc_real.h).
 *
 * With n = 2m and z_j = x_2j + i x_2j+1 (j < m), Z = DFT_m(z):
 *   R2C:  X_k = E_k + w^k O_k,  E_k = (Z_k + conj Z_m-k) / 2,
 *         O_k = -i (Z_k - conj Z_m-k) / 2,  w = exp(-2 pi i / n),
 *         X_0 = Re Z_0 + Im Z_0, X_m = Re Z_0 - Im Z_0 (both real);
 *   C2R:  Z_k = (X_k + conj X_m-k) + i v^k (X_k - conj X_m-k),
 *         v = exp(+2 pi i / n), with the imaginary parts of X_0 and X_m
 *         taken as 0 (FFTW's rule), and z = the unnormalised inverse
 *         DFT_m(Z), whose parts are the even and odd reals.
 * Bins k and m - k depend only on each other, so each pair is read and
 * written together and the steps work in place. Since w^(m-k) =
 * -conj(w^k), one twiddle serves a pair. Arithmetic in double for both
 * precisions (f32 results rounded once); twiddles w^k = T_hi[k / S] *
 * T_lo[k % S] from two short tables rounded from long double
 * (tables/twiddle.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/host_complex.h"
#include "exec/ooc_real.h"
#include "tables/twiddle.h"

hy_status hy_ooc_real_tables_make(hy_ooc_real_tables *t, int64_t n, int sign) {
  memset(t, 0, sizeof *t);
  int64_t pairs = n / 4 + 1; /* k = 0..m/2 */
  int64_t s = (int64_t)ceil(sqrt((double)pairs));
  if (s < 1) s = 1;
  int64_t hi = pairs / s + 1;
  t->lo = hy_malloc((size_t)(2 * s) * sizeof(double));
  t->hi = hy_malloc((size_t)(2 * hi) * sizeof(double));
  if (!t->lo || !t->hi) {
    hy_ooc_real_tables_free(t);
    return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no memory for the real step's twiddles");
  }
  hy_twiddle_table_f64(t->lo, s, 1, n, sign);
  hy_twiddle_table_f64(t->hi, hi, s, n, sign);
  t->split = s;
  t->n = n;
  return HYFFT_SUCCESS;
}

void hy_ooc_real_tables_free(hy_ooc_real_tables *t) {
  free(t->lo);
  free(t->hi);
  t->lo = t->hi = NULL;
}

static inline hy_cplx hy_tw(const hy_ooc_real_tables *t, int64_t k) {
  const double *a = t->hi + 2 * (k / t->split), *b = t->lo + 2 * (k % t->split);
  return (hy_cplx){a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]};
}

typedef struct hy_ooc_real_job {
  const hy_ooc_real_step *step;
  int64_t pairs; /* per batch entry: k = 0..m/2 */
} hy_ooc_real_job;

/* Pairs [begin, end) over the batch (index = b * pairs + k). */
static void hy_ooc_real_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_real_job *job = arg;
  const hy_ooc_real_step *s = job->step;
  const int f64 = s->f64;
  const int64_t m = s->tables->n / 2;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = i / job->pairs, k = i % job->pairs, j = m - k;
    const char *src = s->src + (size_t)(b * s->src_batch) * (f64 ? 16 : 8);
    char *dst = s->dst + (size_t)(b * s->dst_batch) * (f64 ? 16 : 8);
    if (s->r2c) {
      /* src and dst are the same complex array: Z in, X out (m + 1). */
      if (k == 0) {
        hy_cplx z = hy_cplx_get(src, 0, f64);
        hy_cplx_put(dst, 0, (hy_cplx){z.re + z.im, 0.0}, f64);
        hy_cplx_put(dst, m * s->dst_stride, (hy_cplx){z.re - z.im, 0.0}, f64);
        continue;
      }
      hy_cplx a = hy_cplx_get(src, k * s->src_stride, f64), c = hy_cplx_get(src, j * s->src_stride, f64);
      hy_cplx w = hy_tw(s->tables, k);
      /* E = (Z_k + conj Z_j)/2, O = -i (Z_k - conj Z_j)/2. */
      hy_cplx e = {0.5 * (a.re + c.re), 0.5 * (a.im - c.im)};
      hy_cplx o = {0.5 * (a.im + c.im), -0.5 * (a.re - c.re)};
      hy_cplx wo = {w.re * o.re - w.im * o.im, w.re * o.im + w.im * o.re};
      hy_cplx_put(dst, k * s->dst_stride, (hy_cplx){e.re + wo.re, e.im + wo.im}, f64);
      if (j != k) {
        /* E_j = conj E_k, O_j = conj O_k and w^j = -conj w^k, so
         * X_j = E_j + w^j O_j = conj(E_k - w^k O_k). */
        hy_cplx_put(dst, j * s->dst_stride, (hy_cplx){e.re - wo.re, -(e.im - wo.im)}, f64);
      }
    } else {
      /* C2R: X in (m + 1, src), Z out (m, dst; may be src). */
      if (k == 0) {
        double x0 = hy_cplx_get(src, 0, f64).re, xm = hy_cplx_get(src, m * s->src_stride, f64).re;
        hy_cplx_put(dst, 0, (hy_cplx){x0 + xm, x0 - xm}, f64);
        continue;
      }
      hy_cplx a = hy_cplx_get(src, k * s->src_stride, f64), c = hy_cplx_get(src, j * s->src_stride, f64);
      hy_cplx v = hy_tw(s->tables, k);
      /* S = X_k + conj X_j, D = X_k - conj X_j: Z_k = S + i v^k D, and
       * with v^j = -conj v^k, Z_j = conj S + i v^j (-conj D)
       * = conj S + i conj(v^k D) = conj(S - i v^k D). */
      hy_cplx sum = {a.re + c.re, a.im - c.im}, dif = {a.re - c.re, a.im + c.im};
      hy_cplx vd = {v.re * dif.re - v.im * dif.im, v.re * dif.im + v.im * dif.re};
      /* i * vd = (-vd.im, vd.re) */
      hy_cplx_put(dst, k * s->dst_stride, (hy_cplx){sum.re - vd.im, sum.im + vd.re}, f64);
      if (j != k) hy_cplx_put(dst, j * s->dst_stride, (hy_cplx){sum.re + vd.im, -(sum.im - vd.re)}, f64);
    }
  }
}

void hy_ooc_real_run(const hy_ooc_real_step *step, int64_t batch) {
  hy_ooc_real_job job = {step, step->tables->n / 4 + 1};
  hy_parallel_for(batch * job.pairs, 4096, hy_ooc_real_range, &job);
}

/* Elements [begin, end) of an odd-length step, one direction, over the
 * flat index b * len + j (len = n, or h where only the half spectrum is
 * written). */
typedef struct hy_ooc_odd_job {
  const hy_ooc_real_odd *a;
  int after;
  int64_t len;
} hy_ooc_odd_job;

static void hy_ooc_odd_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_odd_job *job = arg;
  const hy_ooc_real_odd *a = job->a;
  const int f64 = a->f64;
  const size_t re = f64 ? 8 : 4;
  const int64_t n = a->n, h = n / 2 + 1;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = i / job->len, j = i % job->len;
    char *w = a->work + (size_t)(b * n) * 2 * re;
    char *r = a->real_side + (size_t)(b * a->real_batch) * re;
    char *c = a->cplx_side + (size_t)(b * a->cplx_batch) * 2 * re;
    if (!job->after && a->r2c) {
      double x = f64 ? ((const double *)r)[j * a->real_stride]
                     : ((const float *)r)[j * a->real_stride];
      hy_cplx_put(w, j, (hy_cplx){x, 0.0}, f64);
    } else if (!job->after) {
      hy_cplx v = hy_cplx_get(c, (j < h ? j : n - j) * a->cplx_stride, f64);
      if (j == 0) v.im = 0.0;
      else if (j >= h) v.im = -v.im;
      hy_cplx_put(w, j, v, f64);
    } else if (a->r2c) {
      hy_cplx_put(c, j * a->cplx_stride, hy_cplx_get(w, j, f64), f64);
    } else {
      double x = hy_cplx_get(w, j, f64).re;
      if (f64)
        ((double *)r)[j * a->real_stride] = x;
      else
        ((float *)r)[j * a->real_stride] = (float)x;
    }
  }
}

void hy_ooc_real_odd_before(const hy_ooc_real_odd *a) {
  hy_ooc_odd_job job = {a, 0, a->n};
  hy_parallel_for(a->batch * a->n, 1 << 16, hy_ooc_odd_range, &job);
}

void hy_ooc_real_odd_after(const hy_ooc_real_odd *a) {
  hy_ooc_odd_job job = {a, 1, a->r2c ? a->n / 2 + 1 : a->n};
  hy_parallel_for(a->batch * job.len, 1 << 16, hy_ooc_odd_range, &job);
}
