/* Host C2C transforms larger than the device memory budget, in two sweeps
 * of sub-plans (exec/out_of_core.h). Element (b, i0, ja, jc) of the host
 * data, with b the batch index, i0 the index of dim 0 and (ja, jc) the
 * other transform dims (ja of length 1 for a rank-2 problem), is a unit of
 * sweep 1 by (b, i0) and a column of sweep 2 by (b, ja, jc):
 *
 *   sweep 1: per slab of units [u, u + s): pack the slab's input into a
 *            contiguous host buffer ([unit][ja][jc]), upload it, transform
 *            the (ja, jc) dims in place on the device, download, unpack into
 *            the host output;
 *   sweep 2: per block of columns [c, c + w): pack the block of the host
 *            output ([i0][column]), upload, transform dim 0 (n0 points,
 *            stride w, batch w) in place on the device, download, unpack.
 *
 * Slab and block sizes are the largest whose data plus the sub-plan's
 * workspace fit the budget. Each execution allocates one sweep's device
 * buffers at a time, so at most one sweep's worth is live.
 *
 * On backends with the staging hooks (queues, events, page-locked host
 * memory: CUDA) pieces are double-buffered on two queues, as in
 * exec/staging.c: piece k uploads, computes and downloads on queue k % 2
 * while the CPU unpacks piece k - 2 and packs piece k + 1, and computes are
 * chained so that one workspace serves both; the budget then holds two
 * pieces' data and one workspace, and a piece is at most
 * HY_OOC_MAX_OVERLAP_PIECE bytes (the pinned buffers are plan-owned).
 * Elsewhere (OpenCL, HYFFT_STAGING=simple) every piece is one blocking
 * round trip. Strided pieces are packed on the host either way, not
 * copied with 2D/3D copy calls. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/out_of_core.h"
#include "util/half.h"
#include "planner/planner.h"
#include "util/settings.h"

/* Largest piece of the double-buffered path: each pinned buffer is one
 * piece, and more than this brings no more overlap. */
#define HY_OOC_MAX_OVERLAP_PIECE ((size_t)64 << 20)

/* One side of the host data: element (b, i0, ja, jc) is at element offset
 * b * bs + i0 * s0 + ja * sa + jc * sc. */
typedef struct hy_ooc_side {
  int64_t bs, s0, sa, sc;
} hy_ooc_side;

typedef struct hy_ooc_sub {
  hy_problem problem;
  hy_plan_tree tree;
  void *state;
} hy_ooc_sub;

typedef struct hy_ooc_sweep {
  int64_t units;         /* sweep 1: (b, i0) rows; sweep 2: (b, ja, jc) columns */
  int64_t per;           /* units per piece */
  int64_t count;         /* pieces */
  int64_t last;          /* units in the last piece, 1..per */
  size_t unit_bytes;     /* bytes of one unit on the device (and packed) */
  hy_ooc_sub sub[2];     /* a full piece, and the last one when it is shorter */
  int nsub;
  int64_t work_elems[2]; /* the most WORK0 / WORK1 either sub-plan needs */
  size_t peak;           /* device bytes of one piece: data and workspace */
} hy_ooc_sweep;

struct hy_ooc {
  int64_t budget;
  const char *from; /* where the budget comes from */
  size_t whole;     /* device bytes the whole-problem staging would need */
  int64_t nb, n0, na, nc, m; /* batch, dim 0, the other dims, m = na * nc */
  size_t elem;
  hy_ooc_side in, out;
  hy_ooc_sweep sweep[2];
  /* The double-buffered path (backends with the staging hooks): two
   * queues, pinned buffers of one piece each, and the events that order
   * them; executions take the lock since these are the plan's. */
  int overlap;
  pthread_mutex_t lock;
  void *queues[2], *pin[2];
  void *ev_start, *ev_comp[2], *ev_down[2];
};

/* ---- budget and decision -------------------------------------------------- */

hy_status hy_ooc_budget(const struct hyfft_context_s *context, int64_t *budget,
                        const char **from) {
  const hy_settings *s = hy_settings_get();
  if (s->device_memory_limit < 0)
    return hy_error(HYFFT_INVALID_ARGUMENT,
                    "HYFFT_DEVICE_MEMORY_LIMIT = '%s' is not a positive byte count (digits with "
                    "an optional K, M or G suffix, powers of 1024)",
                    s->device_memory_limit_raw);
  if (s->device_memory_limit > 0) {
    *budget = s->device_memory_limit;
    *from = "HYFFT_DEVICE_MEMORY_LIMIT";
  } else {
    *budget = context->caps.global_memory > 0 ? context->caps.global_memory : 0;
    *from = "the device's global memory";
  }
  return HYFFT_SUCCESS;
}

static size_t hy_ooc_complex(const hy_problem *p) {
  return p->precision == HYFFT_F64 ? 16 : 8;
}

/* Device bytes of the whole-problem staging: input and output buffers and
 * the workspace of the model's tree. The tree is planned only when the
 * data alone leave less room than two more buffers of workspace. */
static size_t hy_ooc_whole(const struct hyfft_plan_s *plan, unsigned flags, int64_t budget) {
  const hy_problem *p = &plan->problem;
  size_t in = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  size_t big = in > out ? in : out;
  size_t data = p->inplace ? big : in + out;
  if (data > (size_t)budget || data + 2 * big <= (size_t)budget) return data;
  hy_plan_tree tree;
  if (hy_planner_plan(p, &plan->context->caps, flags, &tree) != HYFFT_SUCCESS) {
    /* The plan's own planning reports this properly. */
    hy_error_clear();
    return data;
  }
  return data + (size_t)(tree.work_elems[0] + tree.work_elems[1]) * hy_ooc_complex(p);
}

/* Why this file cannot take the problem (a static string), NULL when it
 * can. */
static const char *hy_ooc_unsupported(const hy_problem *p) {
  if (p->kind != HYFFT_C2C) return "take C2C problems only (R2C/C2R out of core is a later step)";
  if (hy_precision_is_half(p->storage))
    return "take f32 and f64 data only (half-precision storage out of core is a later step)";
  if (p->rank < 2 || p->rank > 3)
    return "take problems of 2 or 3 transform dims only (1D four-step out of core is a later step)";
  if (p->batch_rank > 1) return "take at most one batch dim (this problem's do not merge into one)";
  return NULL;
}

/* ---- sub-plans -------------------------------------------------------------- */

/* The device problem of one piece of `count` units: sweep 0 transforms the
 * dims after dim 0 of `count` contiguous rows, sweep 1 dim 0 of `count`
 * columns held [i0][column]; both in place, the plan's scale in sweep 1. */
static hy_status hy_ooc_sub_problem(const struct hyfft_plan_s *plan, int sweep, int64_t count,
                                    hy_problem *out) {
  const hy_problem *p = &plan->problem;
  const struct hy_ooc *o = plan->ooc;
  hyfft_problem u;
  memset(&u, 0, sizeof u);
  u.kind = HYFFT_C2C;
  u.precision = hy_problem_public_precision(p);
  u.sign = p->sign;
  u.batch_rank = 1;
  u.inplace = 1;
  u.memory = HYFFT_MEMORY_DEVICE;
  if (sweep == 0) {
    u.rank = p->rank - 1;
    int64_t stride = 1;
    for (int d = p->rank - 1; d >= 1; d--) {
      u.dims[d - 1].n = p->dims[d].n;
      u.dims[d - 1].in_stride = stride;
      u.dims[d - 1].out_stride = stride;
      stride *= p->dims[d].n;
    }
    u.batch[0] = (hyfft_dim){count, o->m, o->m};
    u.scale = 1.0;
  } else {
    u.rank = 1;
    u.dims[0] = (hyfft_dim){o->n0, count, count};
    u.batch[0] = (hyfft_dim){count, 1, 1};
    u.scale = p->scale;
  }
  return hy_problem_make(&u, out);
}

/* The model's tree for a piece of `count` units into *sub. */
static hy_status hy_ooc_try(const struct hyfft_plan_s *plan, int sweep, int64_t count,
                            unsigned flags, hy_ooc_sub *sub) {
  HY_TRY(hy_ooc_sub_problem(plan, sweep, count, &sub->problem));
  return hy_planner_plan(&sub->problem, &plan->context->caps, flags, &sub->tree);
}

/* The largest pieces of a sweep that fit the budget, as near equal as the
 * count allows, and their trees (sw->units and unit_bytes set). A sweep
 * holds one piece's data (two double-buffered) and the most workspace of
 * either sub-plan, per work buffer, as hy_ooc_sweep_run allocates them. */
static hy_status hy_ooc_fit(struct hyfft_plan_s *plan, int sweep, unsigned flags) {
  struct hy_ooc *o = plan->ooc;
  hy_ooc_sweep *sw = &o->sweep[sweep];
  size_t budget = (size_t)o->budget;
  size_t slots = o->overlap ? 2 : 1;
  size_t room = budget / slots;
  if (o->overlap && room > HY_OOC_MAX_OVERLAP_PIECE) room = HY_OOC_MAX_OVERLAP_PIECE;
  int64_t per = (int64_t)(room / sw->unit_bytes);
  if (per > sw->units) per = sw->units;
  if (per < 1) per = 1;
  for (;;) {
    int64_t count = (sw->units + per - 1) / per;
    per = (sw->units + count - 1) / count;
    int64_t last = sw->units - (count - 1) * per;
    int nsub = last != per ? 2 : 1;
    int64_t work[2] = {0, 0};
    for (int i = 0; i < nsub; i++) {
      HY_TRY(hy_ooc_try(plan, sweep, i == 0 ? per : last, flags, &sw->sub[i]));
      for (int w = 0; w < 2; w++)
        if (sw->sub[i].tree.work_elems[w] > work[w]) work[w] = sw->sub[i].tree.work_elems[w];
    }
    size_t most = slots * (size_t)per * sw->unit_bytes + (size_t)(work[0] + work[1]) * o->elem;
    if (most <= budget) {
      sw->per = per;
      sw->count = count;
      sw->last = last;
      sw->nsub = nsub;
      sw->peak = most;
      return HYFFT_SUCCESS;
    }
    if (per == 1)
      return hy_error(HYFFT_OUT_OF_MEMORY,
                      "out of core: the smallest %s (%zu bytes of data) needs %zu bytes of device "
                      "memory with its workspace, over the budget of %lld bytes (%s)",
                      sweep == 0 ? "slab (one row of dim 0)" : "block (one column of dim 0)",
                      sw->unit_bytes, most, (long long)o->budget, o->from);
    /* Shrink in proportion, and by at least a sixteenth so that the
     * search ends quickly when the workspace grows faster than the data. */
    int64_t next = (int64_t)((double)per * (double)budget / (double)most);
    int64_t most_next = per - (per / 16 > 1 ? per / 16 : 1);
    if (next > most_next) next = most_next;
    per = next < 1 ? 1 : next;
  }
}

/* Backend state of a sweep's fitted trees, and the workspace they need. */
static hy_status hy_ooc_prepare(struct hyfft_plan_s *plan, int sweep, unsigned flags) {
  hy_ooc_sweep *sw = &plan->ooc->sweep[sweep];
  for (int i = 0; i < sw->nsub; i++) {
    hy_ooc_sub *sub = &sw->sub[i];
    /* The fitted tree as is: a tree chosen otherwise (wisdom, measuring)
     * could need more workspace than the budget has room for. */
    hy_plan_tree fixed = sub->tree;
    HY_TRY(hy_exec_plan_prepare(plan->context, &sub->problem, flags & ~(unsigned)HYFFT_MEASURE,
                                &fixed, &sub->tree, NULL, NULL, &sub->state));
    for (int w = 0; w < 2; w++)
      if (sub->tree.work_elems[w] > sw->work_elems[w]) sw->work_elems[w] = sub->tree.work_elems[w];
  }
  return HYFFT_SUCCESS;
}

/* ---- creation and destruction ------------------------------------------ */

static int hy_ooc_hooks(const hy_backend *b) {
  return b->host_alloc && b->host_release && b->queue_create && b->queue_release &&
         b->event_create && b->event_release && b->event_record && b->queue_wait &&
         b->event_wait;
}

/* Queues, events and pinned buffers of the double-buffered path, or none
 * of them (o->overlap 0). */
static void hy_ooc_unoverlap(struct hyfft_plan_s *plan) {
  struct hy_ooc *o = plan->ooc;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  for (int i = 0; i < 2; i++) {
    if (o->queues[i]) b->queue_release(dev, o->queues[i]);
    if (o->pin[i]) b->host_release(dev, o->pin[i]);
    if (o->ev_comp[i]) b->event_release(dev, o->ev_comp[i]);
    if (o->ev_down[i]) b->event_release(dev, o->ev_down[i]);
    o->queues[i] = o->pin[i] = o->ev_comp[i] = o->ev_down[i] = NULL;
  }
  if (o->ev_start) b->event_release(dev, o->ev_start);
  o->ev_start = NULL;
  o->overlap = 0;
}

static hy_status hy_ooc_overlap_setup(struct hyfft_plan_s *plan) {
  struct hy_ooc *o = plan->ooc;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  size_t piece = 0;
  for (int k = 0; k < 2; k++) {
    size_t bytes = (size_t)o->sweep[k].per * o->sweep[k].unit_bytes;
    if (bytes > piece) piece = bytes;
  }
  HY_TRY(b->event_create(dev, &o->ev_start));
  for (int i = 0; i < 2; i++) {
    HY_TRY(b->queue_create(dev, &o->queues[i]));
    HY_TRY(b->event_create(dev, &o->ev_comp[i]));
    HY_TRY(b->event_create(dev, &o->ev_down[i]));
    HY_TRY(b->host_alloc(dev, piece, &o->pin[i]));
  }
  return HYFFT_SUCCESS;
}

void hy_ooc_destroy(struct hyfft_plan_s *plan) {
  struct hy_ooc *o = plan->ooc;
  if (!o) return;
  const hy_backend *b = plan->context->backend;
  hy_ooc_unoverlap(plan);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 2; i++)
      if (o->sweep[k].sub[i].state) b->plan_release(plan->context->device, o->sweep[k].sub[i].state);
  pthread_mutex_destroy(&o->lock);
  free(o);
  plan->ooc = NULL;
}

hy_status hy_ooc_create(struct hyfft_plan_s *plan, unsigned flags) {
  hyfft_context ctx = plan->context;
  const hy_problem *p = &plan->problem;
  plan->ooc = NULL;
  int64_t budget = 0;
  const char *from = NULL;
  HY_TRY(hy_ooc_budget(ctx, &budget, &from));
  if (p->memory != HYFFT_MEMORY_HOST || ctx->backend->id == HYFFT_BACKEND_CPU || budget <= 0)
    return HYFFT_SUCCESS;
  size_t whole = hy_ooc_whole(plan, flags, budget);
  if (whole <= (size_t)budget) return HYFFT_SUCCESS;
  const char *why = hy_ooc_unsupported(p);
  if (why) {
    /* Without a user limit such a problem goes the whole way as before:
     * the budget is then only an estimate of what the device can hold. */
    if (hy_settings_get()->device_memory_limit <= 0) return HYFFT_SUCCESS;
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "the problem needs %zu bytes of device memory staged whole, over the budget "
                    "of %lld bytes (%s), and out-of-core plans %s",
                    whole, (long long)budget, from, why);
  }

  struct hy_ooc *o = hy_calloc(1, sizeof *o);
  if (!o) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate an out-of-core plan");
  plan->ooc = o;
  pthread_mutex_init(&o->lock, NULL);
  /* HYFFT_STAGING=simple: one blocking round trip per piece, should the
   * overlapped path misbehave on some machine. */
  o->overlap = hy_ooc_hooks(ctx->backend) && !hy_settings_get()->staging_simple;
  o->budget = budget;
  o->from = from;
  o->whole = whole;
  o->elem = hy_ooc_complex(p);
  o->n0 = p->dims[0].n;
  o->na = p->rank == 3 ? p->dims[1].n : 1;
  o->nc = p->dims[p->rank - 1].n;
  o->m = o->na * o->nc;
  o->nb = p->batch_rank == 1 ? p->batch[0].n : 1;
  const hyfft_dim *bd = p->batch_rank == 1 ? &p->batch[0] : NULL;
  const hyfft_dim *da = p->rank == 3 ? &p->dims[1] : NULL;
  const hyfft_dim *dc = &p->dims[p->rank - 1];
  o->in = (hy_ooc_side){bd ? bd->in_stride : 0, p->dims[0].in_stride, da ? da->in_stride : 0,
                        dc->in_stride};
  o->out = (hy_ooc_side){bd ? bd->out_stride : 0, p->dims[0].out_stride,
                         da ? da->out_stride : 0, dc->out_stride};
  o->sweep[0].units = o->nb * o->n0;
  o->sweep[0].unit_bytes = (size_t)o->m * o->elem;
  o->sweep[1].units = o->nb * o->m;
  o->sweep[1].unit_bytes = (size_t)o->n0 * o->elem;
  hy_status st = HYFFT_SUCCESS;
  for (int k = 0; k < 2 && st == HYFFT_SUCCESS; k++) st = hy_ooc_fit(plan, k, flags);
  /* Where two pieces do not fit but one does, one round trip at a time. */
  if (st == HYFFT_OUT_OF_MEMORY && o->overlap) {
    hy_error_clear();
    o->overlap = 0;
    st = HYFFT_SUCCESS;
    for (int k = 0; k < 2 && st == HYFFT_SUCCESS; k++) st = hy_ooc_fit(plan, k, flags);
  }
  for (int k = 0; k < 2 && st == HYFFT_SUCCESS; k++) st = hy_ooc_prepare(plan, k, flags);
  /* Without pinned memory or queues the pieces, sized for two, go one
   * round trip at a time. */
  if (st == HYFFT_SUCCESS && o->overlap && hy_ooc_overlap_setup(plan) != HYFFT_SUCCESS) {
    hy_ooc_unoverlap(plan);
    hy_error_clear();
  }
  if (st != HYFFT_SUCCESS) hy_ooc_destroy(plan);
  return st;
}

int64_t hy_ooc_pieces(const struct hyfft_plan_s *plan, int sweep) {
  return plan->ooc && sweep >= 0 && sweep < 2 ? plan->ooc->sweep[sweep].count : 0;
}

int hy_ooc_overlapped(const struct hyfft_plan_s *plan) {
  return plan->ooc && plan->ooc->overlap;
}

/* ---- packing --------------------------------------------------------------- */

/* n elements of `elem` bytes from src (stride ss elements) to dst (stride
 * ds elements). */
static void hy_ooc_copy(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n,
                        size_t elem) {
  if (ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)n * elem);
    return;
  }
  for (int64_t i = 0; i < n; i++) memcpy(dst + (size_t)(i * ds) * elem, src + (size_t)(i * ss) * elem, elem);
}

/* One piece between the user's host data (`host`, laid out by `side`) and
 * the packed buffer: units [first, first + count) of a sweep. */
typedef struct hy_ooc_pack {
  const struct hy_ooc *o;
  char *host;
  const hy_ooc_side *side;
  char *buf;
  int64_t first, count;
  int to_buf; /* 1: host -> buf, 0: buf -> host */
} hy_ooc_pack;

/* Sweep 1, rows [begin, end) of the piece: buf holds [row][ja][jc]. */
static void hy_ooc_pack_rows(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_pack *a = arg;
  const struct hy_ooc *o = a->o;
  const hy_ooc_side *s = a->side;
  for (int64_t r = begin; r < end; r++) {
    int64_t u = a->first + r, b = u / o->n0, i0 = u % o->n0;
    for (int64_t ja = 0; ja < o->na; ja++) {
      char *h = a->host + (size_t)(b * s->bs + i0 * s->s0 + ja * s->sa) * o->elem;
      char *p = a->buf + (size_t)(r * o->m + ja * o->nc) * o->elem;
      if (a->to_buf)
        hy_ooc_copy(p, 1, h, s->sc, o->nc, o->elem);
      else
        hy_ooc_copy(h, s->sc, p, 1, o->nc, o->elem);
    }
  }
}

/* Sweep 2, indices i0 in [begin, end): buf holds [i0][column], the piece's
 * columns walked in runs along jc. */
static void hy_ooc_pack_columns(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_pack *a = arg;
  const struct hy_ooc *o = a->o;
  const hy_ooc_side *s = a->side;
  for (int64_t i0 = begin; i0 < end; i0++) {
    int64_t col = a->first, stop = a->first + a->count;
    while (col < stop) {
      int64_t b = col / o->m, j = col % o->m, ja = j / o->nc, jc = j % o->nc;
      int64_t run = o->nc - jc < stop - col ? o->nc - jc : stop - col;
      char *h = a->host + (size_t)(b * s->bs + i0 * s->s0 + ja * s->sa + jc * s->sc) * o->elem;
      char *p = a->buf + (size_t)(i0 * a->count + (col - a->first)) * o->elem;
      if (a->to_buf)
        hy_ooc_copy(p, 1, h, s->sc, run, o->elem);
      else
        hy_ooc_copy(h, s->sc, p, 1, run, o->elem);
      col += run;
    }
  }
}

static void hy_ooc_move(const struct hy_ooc *o, int sweep, char *host, const hy_ooc_side *side,
                        char *buf, int64_t first, int64_t count, int to_buf) {
  hy_ooc_pack a = {o, host, side, buf, first, count, to_buf};
  /* About 64 KiB of copies per range handed to a thread. */
  if (sweep == 0) {
    int64_t grain = (int64_t)(((size_t)1 << 16) / ((size_t)o->m * o->elem));
    hy_parallel_for(count, grain > 1 ? grain : 1, hy_ooc_pack_rows, &a);
  } else {
    int64_t grain = (int64_t)(((size_t)1 << 16) / ((size_t)count * o->elem));
    hy_parallel_for(o->n0, grain > 1 ? grain : 1, hy_ooc_pack_columns, &a);
  }
}

/* ---- execution ----------------------------------------------------------- */

/* One sweep: its device buffers for this execution, then every piece
 * packed, uploaded, transformed, downloaded and unpacked in turn. */
static hy_status hy_ooc_sweep_run(struct hyfft_plan_s *plan, int sweep, const void *src,
                                  const hy_ooc_side *src_side, void *dst, void *queue) {
  const struct hy_ooc *o = plan->ooc;
  const hy_ooc_sweep *sw = &o->sweep[sweep];
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  size_t bytes = (size_t)sw->per * sw->unit_bytes;
  char *host = hy_malloc(bytes);
  if (!host) return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no %zu bytes of host memory for a piece", bytes);
  void *d = NULL, *work[2] = {NULL, NULL};
  hy_status st = b->alloc(dev, bytes, &d);
  for (int w = 0; w < 2 && st == HYFFT_SUCCESS; w++)
    if (sw->work_elems[w] > 0) st = b->alloc(dev, (size_t)sw->work_elems[w] * o->elem, &work[w]);
  int queued = 0;
  for (int64_t i = 0; i < sw->count && st == HYFFT_SUCCESS; i++) {
    int last = i == sw->count - 1;
    int64_t first = i * sw->per, n = last ? sw->last : sw->per;
    const hy_ooc_sub *sub = &sw->sub[last && sw->nsub == 2 ? 1 : 0];
    size_t piece = (size_t)n * sw->unit_bytes;
    /* The source is only read here; the cast serves the shared packer. */
    hy_ooc_move(o, sweep, (char *)(uintptr_t)src, src_side, host, first, n, 1);
    queued = 1;
    st = b->write(dev, queue, d, 0, host, piece, 0);
    if (st == HYFFT_SUCCESS) {
      void *buffers[HY_BUF_COUNT] = {d, d, work[0], work[1]};
      st = b->execute(dev, sub->state, &sub->tree, buffers, queue);
    }
    if (st == HYFFT_SUCCESS) st = b->read(dev, queue, d, 0, host, piece, 1);
    if (st == HYFFT_SUCCESS) {
      queued = 0;
      hy_ooc_move(o, sweep, dst, &o->out, host, first, n, 0);
    }
  }
  /* After an error, nothing may still read or write the buffers below. */
  if (queued) (void)b->synchronize(dev, queue);
  for (int w = 0; w < 2; w++)
    if (work[w]) b->release(dev, work[w]);
  if (d) b->release(dev, d);
  free(host);
  return st;
}

/* One sweep double-buffered on the plan's two queues:
 *
 *   CPU:        wait down(k-2), unpack k-2   pack k -> pin[k%2]
 *   queue k%2:  upload k  [wait compute(k-1)]  compute k  download k -> pin[k%2]
 *
 * so that piece k's copies overlap piece k-1's compute and the CPU's
 * packing overlaps both. Piece k reuses the device buffer and pinned
 * buffer of piece k-2, whose download the CPU has waited for. */
static hy_status hy_ooc_sweep_pipeline(struct hyfft_plan_s *plan, int sweep, const void *src,
                                       const hy_ooc_side *src_side, void *dst, void *queue) {
  const struct hy_ooc *o = plan->ooc;
  const hy_ooc_sweep *sw = &o->sweep[sweep];
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  size_t bytes = (size_t)sw->per * sw->unit_bytes;
  void *d[2] = {NULL, NULL}, *work[2] = {NULL, NULL};
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++)
    if (i < sw->count) st = b->alloc(dev, bytes, &d[i]);
  for (int w = 0; w < 2 && st == HYFFT_SUCCESS; w++)
    if (sw->work_elems[w] > 0) st = b->alloc(dev, (size_t)sw->work_elems[w] * o->elem, &work[w]);
  /* Work the caller queued before this call comes first. */
  if (st == HYFFT_SUCCESS) st = b->event_record(dev, o->ev_start, queue);
  for (int q = 0; q < 2 && st == HYFFT_SUCCESS; q++) st = b->queue_wait(dev, o->queues[q], o->ev_start);
  int64_t k;
  for (k = 0; k < sw->count && st == HYFFT_SUCCESS; k++) {
    int slot = (int)(k & 1), other = slot ^ 1;
    void *q = o->queues[slot];
    int last = k == sw->count - 1;
    int64_t n = last ? sw->last : sw->per;
    const hy_ooc_sub *sub = &sw->sub[last && sw->nsub == 2 ? 1 : 0];
    size_t piece = (size_t)n * sw->unit_bytes;
    if (k >= 2) {
      st = b->event_wait(dev, o->ev_down[slot]);
      if (st != HYFFT_SUCCESS) break;
      hy_ooc_move(o, sweep, dst, &o->out, o->pin[slot], (k - 2) * sw->per, sw->per, 0);
    }
    hy_ooc_move(o, sweep, (char *)(uintptr_t)src, src_side, o->pin[slot], k * sw->per, n, 1);
    st = b->write(dev, q, d[slot], 0, o->pin[slot], piece, 0);
    if (st == HYFFT_SUCCESS && k >= 1) st = b->queue_wait(dev, q, o->ev_comp[other]);
    if (st == HYFFT_SUCCESS) {
      void *buffers[HY_BUF_COUNT] = {d[slot], d[slot], work[0], work[1]};
      st = b->execute(dev, sub->state, &sub->tree, buffers, q);
    }
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, o->ev_comp[slot], q);
    if (st == HYFFT_SUCCESS) st = b->read(dev, q, d[slot], 0, o->pin[slot], piece, 0);
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, o->ev_down[slot], q);
  }
  /* The last two pieces (or one) are still in their pinned buffers. */
  for (k = sw->count >= 2 ? sw->count - 2 : 0; k < sw->count && st == HYFFT_SUCCESS; k++) {
    int slot = (int)(k & 1);
    int64_t n = k == sw->count - 1 ? sw->last : sw->per;
    st = b->event_wait(dev, o->ev_down[slot]);
    if (st == HYFFT_SUCCESS) hy_ooc_move(o, sweep, dst, &o->out, o->pin[slot], k * sw->per, n, 0);
  }
  /* Also after an error: nothing may still use the buffers below, or the
   * pinned ones when the next execution takes them. */
  for (int q = 0; q < 2; q++) {
    hy_status sq = b->synchronize(dev, o->queues[q]);
    if (st == HYFFT_SUCCESS) st = sq;
  }
  for (int w = 0; w < 2; w++)
    if (work[w]) b->release(dev, work[w]);
  for (int i = 0; i < 2; i++)
    if (d[i]) b->release(dev, d[i]);
  return st;
}

hy_status hy_ooc_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue) {
  struct hy_ooc *o = plan->ooc;
  /* Sweep 1 reads the input and writes every output element once (in
   * place a slab's elements belong to no other slab); sweep 2 works on the
   * output alone. */
  if (!o->overlap) {
    HY_TRY(hy_ooc_sweep_run(plan, 0, in, &o->in, out, queue));
    return hy_ooc_sweep_run(plan, 1, out, &o->out, out, queue);
  }
  pthread_mutex_lock(&o->lock);
  hy_status st = hy_ooc_sweep_pipeline(plan, 0, in, &o->in, out, queue);
  if (st == HYFFT_SUCCESS) st = hy_ooc_sweep_pipeline(plan, 1, out, &o->out, out, queue);
  pthread_mutex_unlock(&o->lock);
  return st;
}

hy_status hy_ooc_wait(struct hyfft_plan_s *plan) {
  const hy_backend *b = plan->context->backend;
  if (!plan->ooc || !b->plan_wait) return HYFFT_SUCCESS;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < plan->ooc->sweep[k].nsub; i++)
      HY_TRY(b->plan_wait(plan->context->device, plan->ooc->sweep[k].sub[i].state));
  return HYFFT_SUCCESS;
}

/* ---- description ------------------------------------------------------------ */

void hy_ooc_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_ooc *o = plan->ooc;
  if (!o) return;
  const hy_ooc_sweep *s1 = &o->sweep[0], *s2 = &o->sweep[1];
  size_t total = (size_t)(o->nb * o->n0 * o->m) * o->elem;
  hy_strbuf_appendf(sb,
                    "  out of core: staged whole it needs %zu bytes of device memory, over the "
                    "budget of %lld bytes (%s)\n",
                    o->whole, (long long)o->budget, o->from);
  hy_strbuf_appendf(sb,
                    "    sweep 1: %lld slab%s of %lld rows of dim 0 (last %lld; %lld rows in all), "
                    "%zu bytes of data each, %zu on the device at once; the other dims there\n",
                    (long long)s1->count, s1->count == 1 ? "" : "s", (long long)s1->per,
                    (long long)s1->last, (long long)s1->units, (size_t)s1->per * s1->unit_bytes,
                    s1->peak);
  hy_strbuf_appendf(sb,
                    "    sweep 2: %lld block%s of %lld columns (last %lld; %lld columns in all), "
                    "%zu bytes of data each, %zu on the device at once; dim 0 (%lld points) "
                    "there\n",
                    (long long)s2->count, s2->count == 1 ? "" : "s", (long long)s2->per,
                    (long long)s2->last, (long long)s2->units, (size_t)s2->per * s2->unit_bytes,
                    s2->peak, (long long)o->n0);
  hy_strbuf_appendf(sb,
                    "    bus: %zu bytes to the device, %zu bytes back (every element twice each "
                    "way); pieces packed on the host, %s\n",
                    2 * total, 2 * total,
                    o->overlap ? "double-buffered on two queues (copies overlap compute)"
                               : "one blocking round trip each (copies not overlapped)");
  for (int k = 0; k < 2; k++) {
    const hy_ooc_sweep *sw = &o->sweep[k];
    for (int i = 0; i < sw->nsub; i++) {
      hy_strbuf_appendf(sb, "  sweep %d sub-plan, %lld %s:\n", k + 1,
                        (long long)(i == 0 ? sw->per : sw->last), k == 0 ? "rows" : "columns");
      hy_plan_tree_describe(&sw->sub[i].tree, sb);
    }
  }
}

hy_status hy_ooc_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const hy_backend *b = plan->context->backend;
  if (!plan->ooc) return HYFFT_SUCCESS;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < plan->ooc->sweep[k].nsub; i++)
      HY_TRY(b->plan_source(plan->context->device, plan->ooc->sweep[k].sub[i].state, sb));
  return HYFFT_SUCCESS;
}
