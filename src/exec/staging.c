/* Host data on a GPU, staged through plan-owned device buffers. Batched
 * problems on backends with queues, events and page-locked host memory go
 * in chunks along the outermost batch dim, on two alternating queues:
 *
 *   CPU:   memcpy in(k) -> pinned_in[k%2]     memcpy pinned_out[(k-1)%2] -> out(k-1)
 *   queue k%2:  upload(k)  [wait compute(k-1)] compute(k)  download(k) -> pinned_out[k%2]
 *
 * so that chunk k+1's upload and chunk k-1's download run on the copy
 * engines while chunk k computes, and the CPU's copies between the user's
 * (pageable) memory and the pinned buffers run meanwhile too. Copies from
 * pageable memory would not overlap anything: the driver stages them
 * synchronously through its own pinned buffer. Computes are chained
 * (compute(k) waits for compute(k-1)) because each chunk is large enough
 * to fill the device, and that lets every chunk share one workspace. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/staging.h"
#include "util/settings.h"

typedef struct hy_stage_sub {
  hy_problem problem;
  hy_plan_tree tree;
  void *state;
} hy_stage_sub;

struct hy_stage {
  /* One execution at a time uses the buffers below. */
  pthread_mutex_t lock;
  void *din, *dout; /* whole extents on the device; dout == din in place */
  int chunked;
  hy_stage_chunks c;
  hy_stage_sub sub[2]; /* a full chunk, and the last one when it is shorter */
  int nsub;
  void *work[2]; /* workspace of the sub-plans, shared since computes are chained */
  void *queues[2];
  void *ev_start, *ev_up[2], *ev_comp[2], *ev_down[2];
  void *pin_in[2], *pin_out[2];
  /* The whole-buffer path on the same backends: two page-locked bounce
   * buffers that carry pageable user data to and from the device in
   * pieces, the CPU copying one piece while the bus moves the other. */
  void *bounce[2], *ev_bounce[2];
  size_t bounce_bytes;
  /* 1 when the transform writes every element of its output extent, so
   * that the output's old contents need not go up first. */
  int out_dense;
};

/* ---- chunk planning (pure) ---------------------------------------------- */

int hy_stage_plan_chunks(const hy_problem *p, size_t min_bytes, size_t max_bytes,
                         int64_t min_chunks, hy_stage_chunks *c, const char **why) {
  memset(c, 0, sizeof *c);
  *why = NULL;
  if (p->batch_rank < 1 || p->batch[0].n < 2) {
    *why = "no batch dim to split";
    return 0;
  }
  const hyfft_dim *outer = &p->batch[0];
  int64_t si = outer->in_stride, so = outer->out_stride;
  if (si < 1 || so < 1) {
    *why = "the outer batch dim has a stride below 1";
    return 0;
  }
  /* Elements one batch entry spans, and the output elements it writes. */
  int64_t span_in = 1, span_out = 1, count_out = 1;
  for (int i = 0; i < p->rank + p->batch_rank - 1; i++) {
    const hyfft_dim *d = i < p->rank ? &p->dims[i] : &p->batch[i - p->rank + 1];
    if (d->in_stride < 0 || d->out_stride < 0) {
      *why = "a dim has a negative stride";
      return 0;
    }
    /* The halved axis of a real transform has n/2+1 complex elements on
     * its complex side. */
    int64_t n_in = d->n, n_out = d->n;
    if (i == p->rank - 1 && p->kind == HYFFT_R2C) n_out = d->n / 2 + 1;
    if (i == p->rank - 1 && p->kind == HYFFT_C2R) n_in = d->n / 2 + 1;
    span_in += (n_in - 1) * d->in_stride;
    span_out += (n_out - 1) * d->out_stride;
    count_out *= n_out;
  }
  /* Entry j + 1 must start past everything entry j touches, or chunks'
   * ranges would interleave and could not be copied as one range each. */
  if (span_in > si || span_out > so) {
    *why = "batch entries interleave along the outer batch dim";
    return 0;
  }
  size_t ie = hy_problem_in_elem_size(p), oe = hy_problem_out_elem_size(p);
  if (p->inplace) {
    /* Upload and download the same range, the union of what a chunk reads
     * and writes: elements between outputs then come back unchanged. */
    if (si != so || ie != oe) {
      *why = "in place with different input and output batch strides";
      return 0;
    }
    if (span_out > span_in) span_in = span_out;
    span_out = span_in;
  } else if (span_out != count_out || so != span_out) {
    /* A download returns its whole range; gaps in it would need the
     * user's output uploaded first, which the whole-buffer path does. */
    *why = "the output has gaps between or inside batch entries";
    return 0;
  }
  size_t per_in = (size_t)si * ie, per_out = (size_t)so * oe;
  size_t per = per_in > per_out ? per_in : per_out;
  int64_t batch = outer->n;
  /* About 16 chunks, each between min_bytes and max_bytes: more chunks
   * shorten the pipeline's fill and drain, smaller ones cost launches. */
  size_t total = per * (size_t)batch;
  size_t target = total / 16;
  if (target < min_bytes) target = min_bytes;
  if (target > max_bytes) target = max_bytes;
  int64_t chunk = (int64_t)((target + per - 1) / per);
  if (chunk < 1) chunk = 1;
  if (chunk > batch) chunk = batch;
  int64_t count = (batch + chunk - 1) / chunk;
  if (count < min_chunks || count < 2) {
    *why = "too little data for enough chunks of the minimum size";
    return 0;
  }
  int64_t last = batch - (count - 1) * chunk;
  c->chunk = chunk;
  c->count = count;
  c->last = last;
  c->in_step = (size_t)chunk * per_in;
  c->out_step = (size_t)chunk * per_out;
  c->in_bytes = (size_t)((chunk - 1) * si + span_in) * ie;
  c->out_bytes = (size_t)((chunk - 1) * so + span_out) * oe;
  c->in_last_bytes = (size_t)((last - 1) * si + span_in) * ie;
  c->out_last_bytes = (size_t)((last - 1) * so + span_out) * oe;
  return 1;
}

/* ---- creation and destruction --------------------------------------------- */

static int hy_stage_hooks(const hy_backend *b) {
  return b->host_alloc && b->host_release && b->queue_create && b->queue_release &&
         b->event_create && b->event_release && b->event_record && b->queue_wait &&
         b->event_wait;
}

/* The plan's problem with n entries in its outer batch dim, on device
 * memory (the sub-plan runs on the staging buffers). */
static hy_status hy_stage_sub_create(struct hyfft_plan_s *plan, int64_t n, unsigned flags,
                                     hy_stage_sub *sub) {
  const hy_problem *p = &plan->problem;
  hyfft_context ctx = plan->context;
  hyfft_problem u;
  memset(&u, 0, sizeof u);
  u.kind = p->kind;
  u.precision = hy_problem_public_precision(p);
  u.sign = p->sign;
  /* A canonical problem may have rank 0 (all lengths 1); the public
   * description needs rank >= 1. */
  u.rank = p->rank > 0 ? p->rank : 1;
  if (p->rank > 0) {
    memcpy(u.dims, p->dims, sizeof(hyfft_dim) * (size_t)p->rank);
  } else {
    u.dims[0].n = 1;
    u.dims[0].in_stride = 1;
    u.dims[0].out_stride = 1;
  }
  if (p->kind == HYFFT_R2R)
    memcpy(u.r2r_kind, p->r2r, sizeof(hyfft_r2r_kind) * (size_t)p->rank);
  u.batch_rank = p->batch_rank;
  memcpy(u.batch, p->batch, sizeof(hyfft_dim) * (size_t)p->batch_rank);
  u.batch[0].n = n;
  u.inplace = p->inplace;
  u.scale = p->scale;
  u.memory = HYFFT_MEMORY_DEVICE;
  memset(sub, 0, sizeof *sub);
  HY_TRY(hy_problem_make(&u, &sub->problem));
  /* Chosen like any plan (wisdom, measuring, the model): a chunk's batch
   * may well get another tree than the whole problem's. */
  return hy_exec_plan_prepare(ctx, &sub->problem, flags, NULL, &sub->tree, NULL, NULL,
                              &sub->state);
}

static void hy_stage_unchunk(struct hyfft_plan_s *plan) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  for (int i = 0; i < 2; i++) {
    if (s->sub[i].state) b->plan_release(dev, s->sub[i].state);
    if (s->work[i]) b->release(dev, s->work[i]);
    if (s->queues[i]) b->queue_release(dev, s->queues[i]);
    if (s->ev_up[i]) b->event_release(dev, s->ev_up[i]);
    if (s->ev_comp[i]) b->event_release(dev, s->ev_comp[i]);
    if (s->ev_down[i]) b->event_release(dev, s->ev_down[i]);
    if (s->pin_in[i]) b->host_release(dev, s->pin_in[i]);
    if (s->pin_out[i]) b->host_release(dev, s->pin_out[i]);
  }
  if (s->ev_start) b->event_release(dev, s->ev_start);
  memset(s->sub, 0, sizeof s->sub);
  memset(s->work, 0, sizeof s->work);
  memset(s->queues, 0, sizeof s->queues);
  memset(s->ev_up, 0, sizeof s->ev_up);
  memset(s->ev_comp, 0, sizeof s->ev_comp);
  memset(s->ev_down, 0, sizeof s->ev_down);
  memset(s->pin_in, 0, sizeof s->pin_in);
  memset(s->pin_out, 0, sizeof s->pin_out);
  s->ev_start = NULL;
  s->nsub = 0;
  s->chunked = 0;
}

/* Sub-plans, workspace, queues, events and pinned buffers of the chunked
 * path; on failure the caller unchunks. */
static hy_status hy_stage_chunk_setup(struct hyfft_plan_s *plan, unsigned flags) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  s->nsub = s->c.last != s->c.chunk ? 2 : 1;
  for (int i = 0; i < s->nsub; i++)
    HY_TRY(hy_stage_sub_create(plan, i == 0 ? s->c.chunk : s->c.last, flags, &s->sub[i]));
  size_t elem = plan->problem.precision == HYFFT_F64 ? 16 : 8;
  for (int w = 0; w < 2; w++) {
    int64_t most = 0;
    for (int i = 0; i < s->nsub; i++)
      if (s->sub[i].tree.work_elems[w] > most) most = s->sub[i].tree.work_elems[w];
    if (most > 0) HY_TRY(b->alloc(dev, (size_t)most * elem, &s->work[w]));
  }
  HY_TRY(b->event_create(dev, &s->ev_start));
  for (int i = 0; i < 2; i++) {
    HY_TRY(b->queue_create(dev, &s->queues[i]));
    HY_TRY(b->event_create(dev, &s->ev_up[i]));
    HY_TRY(b->event_create(dev, &s->ev_comp[i]));
    HY_TRY(b->event_create(dev, &s->ev_down[i]));
    HY_TRY(b->host_alloc(dev, s->c.in_bytes, &s->pin_in[i]));
    HY_TRY(b->host_alloc(dev, s->c.out_bytes, &s->pin_out[i]));
  }
  s->chunked = 1;
  return HYFFT_SUCCESS;
}

/* Whether the transform writes every element its output extent spans:
 * then the output need not be uploaded before an out-of-place run. */
static int hy_stage_out_dense(const hy_problem *p) {
  if (p->inplace) return 1;
  int64_t count = 1;
  for (int i = 0; i < p->batch_rank; i++) count *= p->batch[i].n;
  for (int d = 0; d < p->rank; d++) {
    int64_t n = p->dims[d].n;
    if (d == p->rank - 1 && p->kind == HYFFT_R2C) n = n / 2 + 1;
    count *= n;
  }
  return count == p->out_extent;
}

static void hy_stage_bounce_release(struct hyfft_plan_s *plan) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  for (int i = 0; i < 2; i++) {
    if (s->bounce[i]) b->host_release(dev, s->bounce[i]);
    if (s->ev_bounce[i]) b->event_release(dev, s->ev_bounce[i]);
    s->bounce[i] = s->ev_bounce[i] = NULL;
  }
  s->bounce_bytes = 0;
}

/* Bounce buffers of up to HY_STAGE_MAX_CHUNK_BYTES for transfers of up to
 * `most` bytes; none for transfers smaller than two pieces' worth, which
 * gain nothing from them. */
static hy_status hy_stage_bounce_setup(struct hyfft_plan_s *plan, size_t most) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  if (most < 2 * HY_STAGE_MIN_CHUNK_BYTES) return HYFFT_SUCCESS;
  size_t piece = most / 4 > HY_STAGE_MAX_CHUNK_BYTES ? HY_STAGE_MAX_CHUNK_BYTES : most / 4;
  if (piece < HY_STAGE_MIN_CHUNK_BYTES) piece = HY_STAGE_MIN_CHUNK_BYTES;
  for (int i = 0; i < 2; i++) {
    HY_TRY(b->host_alloc(dev, piece, &s->bounce[i]));
    HY_TRY(b->event_create(dev, &s->ev_bounce[i]));
  }
  s->bounce_bytes = piece;
  return HYFFT_SUCCESS;
}

hy_status hy_stage_create(struct hyfft_plan_s *plan, unsigned flags) {
  hyfft_context ctx = plan->context;
  const hy_backend *b = ctx->backend;
  const hy_problem *p = &plan->problem;
  plan->stage = NULL;
  if (p->memory != HYFFT_MEMORY_HOST || b->id == HYFFT_BACKEND_CPU || !hy_stage_hooks(b))
    return HYFFT_SUCCESS;
  /* HYFFT_STAGING=simple: the per-call path, should the staged one
   * misbehave on some machine. */
  if (hy_settings_get()->staging_simple) return HYFFT_SUCCESS;

  struct hy_stage *s = hy_calloc(1, sizeof *s);
  if (!s) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a plan's staging state");
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  /* In place, one buffer holds both ends (real transforms: the complex end
   * may reach further than the padded real one, or the other way). */
  hy_status st = b->alloc(ctx->device, p->inplace && out_bytes > in_bytes ? out_bytes : in_bytes,
                          &s->din);
  if (st == HYFFT_SUCCESS) {
    if (p->inplace)
      s->dout = s->din;
    else
      st = b->alloc(ctx->device, out_bytes, &s->dout);
  }
  if (st != HYFFT_SUCCESS) {
    /* Without room for plan-owned buffers the per-call path still works
     * whenever memory is free at execution. */
    if (s->din) b->release(ctx->device, s->din);
    free(s);
    hy_error_clear();
    return HYFFT_SUCCESS;
  }
  pthread_mutex_init(&s->lock, NULL);
  plan->stage = s;
  const char *why = NULL;
  if (hy_stage_plan_chunks(p, HY_STAGE_MIN_CHUNK_BYTES, HY_STAGE_MAX_CHUNK_BYTES,
                           HY_STAGE_MIN_CHUNKS, &s->c, &why)) {
    /* Any failure here (a sub-plan, pinned memory) leaves the whole-buffer
     * path, which needs none of it. */
    if (hy_stage_chunk_setup(plan, flags) != HYFFT_SUCCESS) {
      hy_stage_unchunk(plan);
      hy_error_clear();
    }
  }
  s->out_dense = hy_stage_out_dense(p);
  if (!s->chunked && hy_stage_bounce_setup(plan, in_bytes > out_bytes ? in_bytes : out_bytes) !=
                         HYFFT_SUCCESS) {
    /* Without bounce buffers the whole-buffer path copies pageable memory
     * directly, which is slower but correct. */
    hy_stage_bounce_release(plan);
    hy_error_clear();
  }
  return HYFFT_SUCCESS;
}

void hy_stage_destroy(struct hyfft_plan_s *plan) {
  struct hy_stage *s = plan->stage;
  if (!s) return;
  const hy_backend *b = plan->context->backend;
  hy_stage_unchunk(plan);
  hy_stage_bounce_release(plan);
  if (s->dout && s->dout != s->din) b->release(plan->context->device, s->dout);
  if (s->din) b->release(plan->context->device, s->din);
  pthread_mutex_destroy(&s->lock);
  free(s);
  plan->stage = NULL;
}

int hy_stage_is_chunked(const struct hyfft_plan_s *plan) {
  return plan->stage && plan->stage->chunked;
}

int hy_stage_bounces(const struct hyfft_plan_s *plan) {
  return plan->stage && plan->stage->bounce_bytes > 0;
}

/* ---- execution ----------------------------------------------------------- */

/* Copies between the user's pageable memory and the pinned buffers run on
 * several cores: one core's memcpy is slower than the host-device bus and
 * would otherwise be the pipeline's bottleneck. */
typedef struct hy_stage_copy {
  char *dst;
  const char *src;
} hy_stage_copy;

static void hy_stage_copy_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_stage_copy *c = arg;
  memcpy(c->dst + begin, c->src + begin, (size_t)(end - begin));
}

static void hy_stage_memcpy(void *dst, const void *src, size_t bytes) {
  hy_stage_copy c = {dst, src};
  hy_parallel_for((int64_t)bytes, (int64_t)1 << 20, hy_stage_copy_range, &c);
}

/* Whether the backend can copy [ptr, ptr + bytes) to and from the device
 * directly and asynchronously (page-locked user memory). */
static int hy_stage_pinned(const struct hyfft_plan_s *plan, const void *ptr, size_t bytes) {
  const hy_backend *b = plan->context->backend;
  return b->host_pinned && b->host_pinned(plan->context->device, ptr, bytes);
}

/* Host bytes [0, bytes) of `host` to device buffer `dbuf` on `queue`, in
 * pieces through the bounce buffers: the CPU fills one while the bus
 * empties the other. Returns with the last piece queued. */
static hy_status hy_stage_bounce_write(struct hyfft_plan_s *plan, void *queue, void *dbuf,
                                       const void *host, size_t bytes) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  hy_status st = HYFFT_SUCCESS;
  for (size_t off = 0, k = 0; off < bytes && st == HYFFT_SUCCESS; off += s->bounce_bytes, k++) {
    size_t n = bytes - off < s->bounce_bytes ? bytes - off : s->bounce_bytes;
    int slot = (int)(k & 1);
    /* The bounce buffer last fed piece k - 2's copy, which must be done. */
    if (k >= 2) st = b->event_wait(dev, s->ev_bounce[slot]);
    if (st != HYFFT_SUCCESS) break;
    hy_stage_memcpy(s->bounce[slot], (const char *)host + off, n);
    st = b->write(dev, queue, dbuf, off, s->bounce[slot], n, 0);
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, s->ev_bounce[slot], queue);
  }
  return st;
}

/* Device buffer `dbuf` [0, bytes) to host memory after the work queued on
 * `queue`, in pieces through the bounce buffers: piece k + 1 crosses the
 * bus while the CPU copies piece k out. Returns when all is in `host`. */
static hy_status hy_stage_bounce_read(struct hyfft_plan_s *plan, void *queue, const void *dbuf,
                                      void *host, size_t bytes) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  size_t piece = s->bounce_bytes;
  size_t count = (bytes + piece - 1) / piece;
  hy_status st = HYFFT_SUCCESS;
  for (size_t k = 0; k <= count && st == HYFFT_SUCCESS; k++) {
    /* Queue piece k (its bounce buffer was emptied at step k - 1), then
     * empty piece k - 1. */
    if (k < count) {
      size_t off = k * piece, n = bytes - off < piece ? bytes - off : piece;
      st = b->read(dev, queue, dbuf, off, s->bounce[k & 1], n, 0);
      if (st == HYFFT_SUCCESS) st = b->event_record(dev, s->ev_bounce[k & 1], queue);
    }
    if (st == HYFFT_SUCCESS && k >= 1) {
      size_t off = (k - 1) * piece, n = bytes - off < piece ? bytes - off : piece;
      st = b->event_wait(dev, s->ev_bounce[(k - 1) & 1]);
      if (st == HYFFT_SUCCESS) hy_stage_memcpy((char *)host + off, s->bounce[(k - 1) & 1], n);
    }
  }
  /* Also after an error: no copy may still target a bounce buffer. */
  hy_status sq = b->synchronize(dev, queue);
  return st == HYFFT_SUCCESS ? sq : st;
}

/* Whole extents through the plan-owned buffers (no batch to split). An
 * output with gaps between its elements goes up first, so that the gaps
 * come back unchanged. */
static hy_status hy_stage_whole(struct hyfft_plan_s *plan, const void *in, void *out,
                                void *workspace, void *queue) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  /* Page-locked user memory needs no bounce: the copies go directly. */
  int bounce_in = s->bounce_bytes && !hy_stage_pinned(plan, in, in_bytes);
  int bounce_out = s->bounce_bytes && !hy_stage_pinned(plan, out, out_bytes);
  if (bounce_in || bounce_out) {
    hy_status st = bounce_in ? hy_stage_bounce_write(plan, queue, s->din, in, in_bytes)
                             : b->write(dev, queue, s->din, 0, in, in_bytes, 0);
    if (st == HYFFT_SUCCESS && !s->out_dense)
      st = bounce_out ? hy_stage_bounce_write(plan, queue, s->dout, out, out_bytes)
                      : b->write(dev, queue, s->dout, 0, out, out_bytes, 0);
    if (st == HYFFT_SUCCESS) st = hy_exec_direct(plan, s->din, s->dout, workspace, queue);
    if (st == HYFFT_SUCCESS)
      return bounce_out ? hy_stage_bounce_read(plan, queue, s->dout, out, out_bytes)
                        : b->read(dev, queue, s->dout, 0, out, out_bytes, 1);
    b->synchronize(dev, queue);
    return st;
  }
  hy_status st = b->write(dev, queue, s->din, 0, in, in_bytes, 0);
  if (st == HYFFT_SUCCESS && !s->out_dense) st = b->write(dev, queue, s->dout, 0, out, out_bytes, 0);
  if (st == HYFFT_SUCCESS) st = hy_exec_direct(plan, s->din, s->dout, workspace, queue);
  if (st == HYFFT_SUCCESS) st = b->read(dev, queue, s->dout, 0, out, out_bytes, 1);
  return st;
}

static hy_status hy_stage_pipeline(struct hyfft_plan_s *plan, const void *in, void *out,
                                   void *queue) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  const hy_stage_chunks *c = &s->c;
  const char *uin = in;
  char *uout = out;
  /* Page-locked user memory goes over the bus directly, without the CPU
   * copies through the plan's pinned buffers. */
  const hy_problem *p = &plan->problem;
  int in_pinned = hy_stage_pinned(plan, in, (size_t)p->in_extent * hy_problem_in_elem_size(p));
  int out_pinned = hy_stage_pinned(plan, out, (size_t)p->out_extent * hy_problem_out_elem_size(p));
  /* Work the caller queued before this call comes first. */
  hy_status st = b->event_record(dev, s->ev_start, queue);
  for (int q = 0; q < 2 && st == HYFFT_SUCCESS; q++) st = b->queue_wait(dev, s->queues[q], s->ev_start);
  int64_t k;
  for (k = 0; k < c->count && st == HYFFT_SUCCESS; k++) {
    int slot = (int)(k & 1), other = slot ^ 1;
    void *q = s->queues[slot];
    int last = k == c->count - 1;
    size_t in_off = (size_t)k * c->in_step, out_off = (size_t)k * c->out_step;
    size_t in_bytes = last ? c->in_last_bytes : c->in_bytes;
    size_t out_bytes = last ? c->out_last_bytes : c->out_bytes;
    const hy_stage_sub *sub = &s->sub[last && s->nsub == 2 ? 1 : 0];
    const void *src = uin + in_off;
    if (!in_pinned) {
      /* pin_in[slot] last fed chunk k-2's upload, which must be done. */
      if (k >= 2) st = b->event_wait(dev, s->ev_up[slot]);
      if (st != HYFFT_SUCCESS) break;
      hy_stage_memcpy(s->pin_in[slot], src, in_bytes);
      src = s->pin_in[slot];
    }
    st = b->write(dev, q, s->din, in_off, src, in_bytes, 0);
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, s->ev_up[slot], q);
    if (st == HYFFT_SUCCESS && k >= 1) st = b->queue_wait(dev, q, s->ev_comp[other]);
    if (st == HYFFT_SUCCESS) {
      void *buffers[HY_BUF_COUNT] = {(char *)s->din + in_off, (char *)s->dout + out_off,
                                     s->work[0], s->work[1]};
      st = b->execute(dev, sub->state, &sub->tree, buffers, q);
    }
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, s->ev_comp[slot], q);
    /* Chunk k-1's download went to pin_out[other]; hand it to the user
     * while this chunk computes. */
    if (st == HYFFT_SUCCESS && k >= 1 && !out_pinned) {
      st = b->event_wait(dev, s->ev_down[other]);
      if (st == HYFFT_SUCCESS)
        hy_stage_memcpy(uout + (size_t)(k - 1) * c->out_step, s->pin_out[other], c->out_bytes);
    }
    /* Chunk k-1 is in the user's output (or its download queued there
     * when that memory is page-locked): its share done, short of 1. */
    if (st == HYFFT_SUCCESS && k >= 1) hy_exec_progress(plan, (double)k / (double)c->count);
    if (st == HYFFT_SUCCESS)
      st = b->read(dev, q, s->dout, out_off, out_pinned ? uout + out_off : s->pin_out[slot],
                   out_bytes, 0);
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, s->ev_down[slot], q);
  }
  if (st == HYFFT_SUCCESS && !out_pinned) {
    int slot = (int)((c->count - 1) & 1);
    st = b->event_wait(dev, s->ev_down[slot]);
    if (st == HYFFT_SUCCESS)
      hy_stage_memcpy(uout + (size_t)(c->count - 1) * c->out_step, s->pin_out[slot],
                      c->out_last_bytes);
  }
  /* Also after an error: no copy may still target the pinned buffers or
   * the staging buffers when the next execution takes them. */
  for (int q = 0; q < 2; q++) {
    hy_status sq = b->synchronize(dev, s->queues[q]);
    if (st == HYFFT_SUCCESS) st = sq;
  }
  return st;
}

hy_status hy_stage_run(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                       void *queue) {
  struct hy_stage *s = plan->stage;
  pthread_mutex_lock(&s->lock);
  hy_status st = s->chunked ? hy_stage_pipeline(plan, in, out, queue)
                            : hy_stage_whole(plan, in, out, workspace, queue);
  pthread_mutex_unlock(&s->lock);
  return st;
}

hy_status hy_stage_wait(struct hyfft_plan_s *plan) {
  struct hy_stage *s = plan->stage;
  const hy_backend *b = plan->context->backend;
  if (!s || !b->plan_wait) return HYFFT_SUCCESS;
  for (int i = 0; i < 2; i++)
    if (s->sub[i].state) HY_TRY(b->plan_wait(plan->context->device, s->sub[i].state));
  return HYFFT_SUCCESS;
}
