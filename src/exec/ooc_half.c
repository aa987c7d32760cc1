/* 1D half-precision transforms out of core through f32 host buffers
 * (exec/ooc_half.h). */
#include <string.h>

#include "exec/exec.h"
#include "exec/ooc_half.h"
#include "exec/out_of_core.h"
#include "util/half.h"

struct hy_ooc_half {
  struct hyfft_plan_s *twin; /* the problem in f32, packed, out of place */
  hyfft_precision storage;
  int64_t nb, in_len, out_len;   /* transforms, elements per transform */
  int in_complex, out_complex;   /* whether each side's elements are complex */
  int64_t in_s, in_bs, out_s, out_bs; /* the caller's strides, in elements */
  float *in, *out;               /* nb * in_len and nb * out_len elements */
};

typedef struct hy_half_job {
  const hy_ooc_half *h;
  int narrow; /* 0: caller's input -> h->in; 1: h->out -> caller's output */
  const uint16_t *src;
  uint16_t *dst;
} hy_half_job;

/* Elements [begin, end) of the flat index b * len + j of one side. */
static void hy_half_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_half_job *job = arg;
  const hy_ooc_half *h = job->h;
  const int bf = h->storage == HYFFT_BF16;
  const int64_t len = job->narrow ? h->out_len : h->in_len;
  const int parts = (job->narrow ? h->out_complex : h->in_complex) ? 2 : 1;
  const int64_t s = job->narrow ? h->out_s : h->in_s, bs = job->narrow ? h->out_bs : h->in_bs;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = i / len, j = i % len, at = (b * bs + j * s) * parts;
    for (int c = 0; c < parts; c++) {
      if (!job->narrow) {
        uint16_t v = job->src[at + c];
        h->in[i * parts + c] = bf ? hy_bf16_to_f32(v) : hy_f16_to_f32(v);
      } else {
        float v = h->out[i * parts + c];
        job->dst[at + c] = bf ? hy_f32_to_bf16(v) : hy_f32_to_f16(v);
      }
    }
  }
}

const struct hyfft_plan_s *hy_ooc_half_plan(const hy_ooc_half *h) {
  return h->twin;
}

void hy_ooc_half_destroy(hy_ooc_half *h) {
  if (!h) return;
  if (h->twin) hy_exec_plan_destroy(h->twin);
  hy_free(h->in);
  hy_free(h->out);
  hy_free(h);
}

hy_status hy_ooc_half_create(struct hyfft_plan_s *plan, unsigned flags, hy_ooc_half **out) {
  *out = NULL;
  const hy_problem *p = &plan->problem;
  hy_ooc_half *h = hy_calloc(1, sizeof *h);
  if (!h) return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no memory for a half-precision plan");
  const int64_t n = p->dims[0].n;
  h->storage = p->storage;
  h->nb = p->batch_rank == 1 ? p->batch[0].n : 1;
  h->in_complex = p->kind != HYFFT_R2C;
  h->out_complex = p->kind != HYFFT_C2R;
  h->in_len = p->kind == HYFFT_C2R ? n / 2 + 1 : n;
  h->out_len = p->kind == HYFFT_R2C ? n / 2 + 1 : n;
  h->in_s = p->dims[0].in_stride;
  h->out_s = p->dims[0].out_stride;
  h->in_bs = p->batch_rank == 1 ? p->batch[0].in_stride : 0;
  h->out_bs = p->batch_rank == 1 ? p->batch[0].out_stride : 0;
  size_t in_bytes = (size_t)(h->nb * h->in_len) * (h->in_complex ? 8 : 4);
  size_t out_bytes = (size_t)(h->nb * h->out_len) * (h->out_complex ? 8 : 4);
  h->in = hy_malloc(in_bytes);
  h->out = hy_malloc(out_bytes);
  if (!h->in || !h->out) {
    hy_ooc_half_destroy(h);
    return hy_error(HYFFT_OUT_OF_MEMORY,
                    "out of core: no %zu bytes of host memory for the f32 copies of "
                    "half-precision data", in_bytes + out_bytes);
  }
  /* The same transform in f32, packed, out of place, on host data. */
  hyfft_problem u;
  memset(&u, 0, sizeof u);
  u.kind = p->kind;
  u.precision = HYFFT_F32;
  u.sign = p->sign;
  u.rank = 1;
  u.dims[0] = (hyfft_dim){n, 1, 1};
  u.batch_rank = 1;
  u.batch[0] = (hyfft_dim){h->nb, h->in_len, h->out_len};
  u.scale = p->scale;
  u.memory = HYFFT_MEMORY_HOST;
  hy_status st = hy_exec_plan_create(plan->context, &u, flags & ~(unsigned)HYFFT_MEASURE, NULL,
                                     &h->twin);
  if (st != HYFFT_SUCCESS) {
    hy_ooc_half_destroy(h);
    return st;
  }
  *out = h;
  return HYFFT_SUCCESS;
}

hy_status hy_ooc_half_run(hy_ooc_half *h, struct hyfft_plan_s *outer, const void *in, void *out) {
  hy_half_job job = {h, 0, in, out};
  hy_ooc_relay relay;
  hy_parallel_for(h->nb * h->in_len, 1 << 16, hy_half_range, &job);
  hy_ooc_relay_set(h->twin, &relay, outer, 0.0, 1.0);
  HY_TRY(hy_exec_run(h->twin, h->in, h->out, NULL, NULL, 1));
  job.narrow = 1;
  hy_parallel_for(h->nb * h->out_len, 1 << 16, hy_half_range, &job);
  return HYFFT_SUCCESS;
}
