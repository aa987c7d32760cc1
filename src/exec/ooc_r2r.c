/* 1D real-to-real transforms out of core (exec/ooc_r2r.h). */
#include <string.h>

#include "exec/exec.h"
#include "exec/host_complex.h"
#include "exec/out_of_core.h"
#include "exec/ooc_r2r.h"

struct hy_ooc_r2r {
  hyfft_r2r_kind kind;
  int64_t n, len; /* the transform's length and the extension's (L) */
  int f64;
  struct hyfft_plan_s *fft; /* L-point forward C2C, in place on host data */
  char *buf;                /* the extension, L complex in the data's precision */
};

static int64_t hy_r2r_extension(hyfft_r2r_kind kind, int64_t n) {
  switch (kind) {
    case HYFFT_REDFT00: return 2 * (n - 1);
    case HYFFT_RODFT00: return 2 * (n + 1);
    case HYFFT_REDFT11:
    case HYFFT_RODFT11: return 8 * n;
    case HYFFT_DHT: return n;
    default: return 4 * n;
  }
}

static inline double hy_real_get(const char *base, int64_t at, int f64) {
  return f64 ? ((const double *)base)[at] : (double)((const float *)base)[at];
}

static inline void hy_real_put(char *base, int64_t at, double v, int f64) {
  if (f64)
    ((double *)base)[at] = v;
  else
    ((float *)base)[at] = (float)v;
}

typedef struct hy_r2r_job {
  const hy_ooc_r2r *r;
  int out; /* 0: x into the extension; 1: Y out of its DFT */
  const char *src;
  int64_t src_stride;
  char *dst;
  int64_t dst_stride;
  double scale;
} hy_r2r_job;

/* Elements j in [begin, end) of one transform (the buffer was zeroed
 * before the extension's terms are written). */
static void hy_r2r_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_r2r_job *job = arg;
  const hy_ooc_r2r *r = job->r;
  const int64_t n = r->n, L = r->len;
  const int f64 = r->f64;
  char *z = r->buf;
  for (int64_t j = begin; j < end; j++) {
    if (!job->out) {
      double x = hy_real_get(job->src, j * job->src_stride, f64);
      hy_cplx v = {x, 0.0}, w = {-x, 0.0};
      switch (r->kind) {
        case HYFFT_REDFT00:
          hy_cplx_put(z, j, v, f64);
          if (j > 0 && j < n - 1) hy_cplx_put(z, L - j, v, f64);
          break;
        case HYFFT_REDFT01:
          hy_cplx_put(z, j, v, f64);
          if (j > 0) hy_cplx_put(z, L - j, v, f64);
          break;
        case HYFFT_REDFT10:
        case HYFFT_REDFT11:
          hy_cplx_put(z, 2 * j + 1, v, f64);
          hy_cplx_put(z, L - 2 * j - 1, v, f64);
          break;
        case HYFFT_RODFT00:
          hy_cplx_put(z, j + 1, v, f64);
          hy_cplx_put(z, L - j - 1, w, f64);
          break;
        case HYFFT_RODFT01:
          if (j == n - 1) {
            hy_cplx_put(z, n, (hy_cplx){0.5 * x, 0.0}, f64);
            hy_cplx_put(z, 3 * n, (hy_cplx){-0.5 * x, 0.0}, f64);
          } else {
            hy_cplx_put(z, j + 1, v, f64);
            hy_cplx_put(z, L - j - 1, w, f64);
          }
          break;
        case HYFFT_RODFT10:
        case HYFFT_RODFT11:
          hy_cplx_put(z, 2 * j + 1, v, f64);
          hy_cplx_put(z, L - 2 * j - 1, w, f64);
          break;
        default: /* HYFFT_DHT */
          hy_cplx_put(z, j, v, f64);
          break;
      }
    } else {
      double y;
      switch (r->kind) {
        case HYFFT_REDFT00:
        case HYFFT_REDFT10: y = hy_cplx_get(z, j, f64).re; break;
        case HYFFT_REDFT01:
        case HYFFT_REDFT11: y = hy_cplx_get(z, 2 * j + 1, f64).re; break;
        case HYFFT_RODFT00:
        case HYFFT_RODFT10: y = -hy_cplx_get(z, j + 1, f64).im; break;
        case HYFFT_RODFT01:
        case HYFFT_RODFT11: y = -hy_cplx_get(z, 2 * j + 1, f64).im; break;
        default: {
          hy_cplx c = hy_cplx_get(z, j, f64);
          y = c.re - c.im;
        }
      }
      hy_real_put(job->dst, j * job->dst_stride, job->scale * y, f64);
    }
  }
}

int64_t hy_ooc_r2r_length(const hy_ooc_r2r *r) {
  return r->len;
}

const struct hyfft_plan_s *hy_ooc_r2r_plan(const hy_ooc_r2r *r) {
  return r->fft;
}

void hy_ooc_r2r_destroy(hy_ooc_r2r *r) {
  if (!r) return;
  if (r->fft) hy_exec_plan_destroy(r->fft);
  hy_free(r->buf);
  hy_free(r);
}

hy_status hy_ooc_r2r_create(struct hyfft_context_s *context, hyfft_r2r_kind kind, int64_t n,
                            int f64, unsigned flags, hy_ooc_r2r **out) {
  *out = NULL;
  hy_ooc_r2r *r = hy_calloc(1, sizeof *r);
  if (!r) return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no memory for an R2R plan");
  r->kind = kind;
  r->n = n;
  r->len = hy_r2r_extension(kind, n);
  r->f64 = f64;
  size_t bytes = (size_t)r->len * (f64 ? 16 : 8);
  r->buf = hy_malloc(bytes);
  if (!r->buf) {
    hy_ooc_r2r_destroy(r);
    return hy_error(HYFFT_OUT_OF_MEMORY,
                    "out of core: no %zu bytes of host memory for the R2R extension of %lld "
                    "points", bytes, (long long)r->len);
  }
  hy_status st = hy_ooc_host_c2c(context, r->len, f64, flags, &r->fft);
  if (st != HYFFT_SUCCESS) {
    hy_ooc_r2r_destroy(r);
    return st;
  }
  *out = r;
  return HYFFT_SUCCESS;
}

hy_status hy_ooc_r2r_run(hy_ooc_r2r *r, struct hyfft_plan_s *outer, const char *src,
                         int64_t src_stride, int64_t src_batch,
                         char *dst, int64_t dst_stride, int64_t dst_batch, int64_t batch,
                         double scale) {
  const size_t real = r->f64 ? 8 : 4;
  hy_ooc_relay relay;
  for (int64_t b = 0; b < batch; b++) {
    hy_r2r_job job = {r, 0, src + (size_t)(b * src_batch) * real, src_stride,
                      dst + (size_t)(b * dst_batch) * real, dst_stride, scale};
    memset(r->buf, 0, (size_t)r->len * 2 * real);
    hy_parallel_for(r->n, 1 << 15, hy_r2r_range, &job);
    hy_ooc_relay_set(r->fft, &relay, outer, (double)b / (double)batch, 1.0 / (double)batch);
    HY_TRY(hy_exec_run(r->fft, r->buf, r->buf, NULL, NULL, 1));
    job.out = 1;
    hy_parallel_for(r->n, 1 << 15, hy_r2r_range, &job);
  }
  return HYFFT_SUCCESS;
}
