/* Bluestein's algorithm out of core (exec/ooc_chirp.h). */
#include <math.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/host_complex.h"
#include "exec/out_of_core.h"
#include "exec/ooc_chirp.h"
#include "planner/planner.h"
#include "tables/twiddle.h"

struct hy_ooc_chirp {
  int64_t n, m; /* the DFT's length and the convolution's (M) */
  int f64;
  struct hyfft_plan_s *fft; /* M-point forward C2C, in place on host data */
  char *spectrum;           /* B = DFT_M(b) / M, M complex in the data's precision */
  char *buf;                /* the M-point work buffer of an execution */
  /* exp(sign 2 pi i t / 2n) = hi[t / split] lo[t % split], interleaved. */
  double *lo, *hi;
  int64_t split;
};

/* t = j^2 mod 2n, exactly. */
static inline int64_t hy_chirp_index(int64_t j, int64_t n) {
  return (int64_t)((unsigned __int128)j * (unsigned __int128)j % (unsigned __int128)(2 * n));
}

static inline hy_cplx hy_chirp_at(const hy_ooc_chirp *c, int64_t t) {
  const double *a = c->hi + 2 * (t / c->split), *b = c->lo + 2 * (t % c->split);
  return hy_cplx_mul((hy_cplx){a[0], a[1]}, (hy_cplx){b[0], b[1]});
}

/* The host steps: IN a_j = x_j c_j into the buffer (zeros past n), MUL
 * buf_k = conj(buf_k B_k), OUT X_k = scale c_k conj(buf_k), KERNEL b
 * (before its DFT) into the buffer. */
typedef enum {
  HY_OOC_CHIRP_IN,
  HY_OOC_CHIRP_MUL,
  HY_OOC_CHIRP_OUT,
  HY_OOC_CHIRP_KERNEL
} hy_ooc_chirp_step;

typedef struct hy_chirp_job {
  const hy_ooc_chirp *c;
  hy_ooc_chirp_step step;
  const char *src;
  int64_t src_stride;
  char *dst;
  int64_t dst_stride;
  double scale;
} hy_chirp_job;

/* One step over indices [begin, end) of one transform. The chirp's index
 * t = j^2 mod 2n is computed once per range, then advanced by 2j + 1 < 2n
 * per element (one subtraction at most keeps it below 2n). */
static void hy_chirp_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_chirp_job *job = arg;
  const hy_ooc_chirp *c = job->c;
  const int64_t n = c->n, two_n = 2 * n;
  const int f64 = c->f64;
  if (job->step == HY_OOC_CHIRP_MUL) {
    for (int64_t k = begin; k < end; k++) {
      hy_cplx v = hy_cplx_mul(hy_cplx_get(c->buf, k, f64), hy_cplx_get(c->spectrum, k, f64));
      hy_cplx_put(c->buf, k, (hy_cplx){v.re, -v.im}, f64);
    }
    return;
  }
  /* The other steps touch j < n only; IN also zeroes j >= n. */
  int64_t stop = end < n ? end : n;
  int64_t t = begin < n ? hy_chirp_index(begin, n) : 0;
  for (int64_t j = begin; j < stop; j++) {
    hy_cplx w = hy_chirp_at(c, t);
    if (job->step == HY_OOC_CHIRP_IN) {
      hy_cplx x = hy_cplx_get(job->src, j * job->src_stride, f64);
      hy_cplx_put(c->buf, j, hy_cplx_mul(x, w), f64);
    } else if (job->step == HY_OOC_CHIRP_OUT) {
      hy_cplx u = hy_cplx_get(c->buf, j, f64);
      hy_cplx x = hy_cplx_mul(w, (hy_cplx){u.re, -u.im});
      hy_cplx_put(job->dst, j * job->dst_stride,
                  (hy_cplx){job->scale * x.re, job->scale * x.im}, f64);
    } else {
      /* b_j = b_(M-j) = conj(c_j), the convolution kernel (before its DFT). */
      hy_cplx b = {w.re, -w.im};
      hy_cplx_put(c->buf, j, b, f64);
      if (j > 0) hy_cplx_put(c->buf, c->m - j, b, f64);
    }
    t += 2 * j + 1;
    if (t >= two_n) t -= two_n;
  }
  if (job->step == HY_OOC_CHIRP_IN && end > n) {
    int64_t from = begin > n ? begin : n;
    size_t elem = f64 ? 16 : 8;
    memset(c->buf + (size_t)from * elem, 0, (size_t)(end - from) * elem);
  }
}

static void hy_chirp_step_run(const hy_ooc_chirp *c, hy_ooc_chirp_step step, const char *src,
                              int64_t src_stride, char *dst, int64_t dst_stride, double scale) {
  hy_chirp_job job = {c, step, src, src_stride, dst, dst_stride, scale};
  int64_t count = step == HY_OOC_CHIRP_IN || step == HY_OOC_CHIRP_MUL ? c->m : c->n;
  hy_parallel_for(count, 1 << 15, hy_chirp_range, &job);
}

int64_t hy_ooc_chirp_length(const hy_ooc_chirp *c) {
  return c->m;
}

const struct hyfft_plan_s *hy_ooc_chirp_plan(const hy_ooc_chirp *c) {
  return c->fft;
}

void hy_ooc_chirp_destroy(hy_ooc_chirp *c) {
  if (!c) return;
  if (c->fft) hy_exec_plan_destroy(c->fft);
  hy_free(c->spectrum);
  hy_free(c->buf);
  hy_free(c->lo);
  hy_free(c->hi);
  hy_free(c);
}

hy_status hy_ooc_chirp_create(struct hyfft_context_s *context, int64_t n, int sign, int f64,
                              unsigned flags, hy_ooc_chirp **out) {
  *out = NULL;
  hy_ooc_chirp *c = hy_calloc(1, sizeof *c);
  if (!c) return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no memory for a Bluestein plan");
  c->n = n;
  c->m = hy_bluestein_length(n);
  c->f64 = f64;
  const size_t elem = f64 ? 16 : 8;
  c->split = (int64_t)ceil(sqrt((double)(2 * n)));
  int64_t hi = (2 * n) / c->split + 1;
  c->lo = hy_malloc((size_t)(2 * c->split) * sizeof(double));
  c->hi = hy_malloc((size_t)(2 * hi) * sizeof(double));
  c->spectrum = hy_malloc((size_t)c->m * elem);
  c->buf = hy_malloc((size_t)c->m * elem);
  if (!c->lo || !c->hi || !c->spectrum || !c->buf) {
    hy_ooc_chirp_destroy(c);
    return hy_error(HYFFT_OUT_OF_MEMORY,
                    "out of core: no %zu bytes of host memory for Bluestein's convolution of %lld "
                    "points", 2 * (size_t)c->m * elem, (long long)c->m);
  }
  hy_twiddle_table_f64(c->lo, c->split, 1, 2 * n, sign);
  hy_twiddle_table_f64(c->hi, hi, c->split, 2 * n, sign);
  /* The M-point forward DFT on host data, in place; out of core itself
   * where M points do not fit. */
  hy_status st = hy_ooc_host_c2c(context, c->m, f64, flags, &c->fft);
  if (st != HYFFT_SUCCESS) {
    hy_ooc_chirp_destroy(c);
    return st;
  }
  /* B = DFT_M(b) / M. */
  memset(c->buf, 0, (size_t)c->m * elem);
  hy_chirp_step_run(c, HY_OOC_CHIRP_KERNEL, NULL, 0, NULL, 0, 1.0);
  st = hy_exec_run(c->fft, c->buf, c->buf, NULL, NULL, 1);
  if (st != HYFFT_SUCCESS) {
    hy_ooc_chirp_destroy(c);
    return st;
  }
  const double inv = 1.0 / (double)c->m;
  for (int64_t k = 0; k < c->m; k++) {
    hy_cplx v = hy_cplx_get(c->buf, k, f64);
    hy_cplx_put(c->spectrum, k, (hy_cplx){v.re * inv, v.im * inv}, f64);
  }
  *out = c;
  return HYFFT_SUCCESS;
}

hy_status hy_ooc_chirp_run(hy_ooc_chirp *c, struct hyfft_plan_s *outer, const char *src,
                           int64_t src_stride,
                           int64_t src_batch, char *dst, int64_t dst_stride, int64_t dst_batch,
                           int64_t batch, double scale) {
  const size_t elem = c->f64 ? 16 : 8;
  const double span = 0.5 / (double)batch;
  hy_ooc_relay relay;
  for (int64_t b = 0; b < batch; b++) {
    const char *x = src + (size_t)(b * src_batch) * elem;
    char *y = dst + (size_t)(b * dst_batch) * elem;
    hy_chirp_step_run(c, HY_OOC_CHIRP_IN, x, src_stride, NULL, 0, 1.0);
    hy_ooc_relay_set(c->fft, &relay, outer, 2 * b * span, span);
    HY_TRY(hy_exec_run(c->fft, c->buf, c->buf, NULL, NULL, 1));
    hy_chirp_step_run(c, HY_OOC_CHIRP_MUL, NULL, 0, NULL, 0, 1.0);
    hy_ooc_relay_set(c->fft, &relay, outer, (2 * b + 1) * span, span);
    HY_TRY(hy_exec_run(c->fft, c->buf, c->buf, NULL, NULL, 1));
    hy_chirp_step_run(c, HY_OOC_CHIRP_OUT, NULL, 0, y, dst_stride, scale);
  }
  return HYFFT_SUCCESS;
}
