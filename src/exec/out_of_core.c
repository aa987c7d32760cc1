/* Host C2C, R2C and C2R transforms larger than the device memory budget,
 * in two sweeps of sub-plans (exec/out_of_core.h). Element (b, i0, ja, jc)
 * of the host data, with b the batch index, i0 the index of dim 0 and
 * (ja, jc) the other transform dims (ja of length 1 for a rank-2 problem),
 * is a unit of the slabs by (b, i0) and a column of the blocks by
 * (b, ja, jc):
 *
 *   slabs:  per slab of units [u, u + s): pack the slab's source into a
 *           contiguous host buffer ([unit][ja][jc]), upload it, transform
 *           the (ja, jc) dims in place on the device, download, unpack into
 *           the destination. R2C and C2R use the padded in-place layout
 *           there: every line of jc holds nc = nr/2+1 complex elements and
 *           its nr reals at its start;
 *   blocks: per block of columns [c, c + w): pack the block of the source
 *           ([i0][column]), upload, transform dim 0 (n0 points, stride w,
 *           batch w) in place on the device, download, unpack. R2C and
 *           C2R have nc columns per line of jc (the half spectrum).
 *
 * C2C and R2C: slabs from the input to the output, then blocks in place on
 * the output. C2R: blocks from the input to the input itself (in place,
 * HYFFT_DESTROY_INPUT) or a host scratch, then slabs from there to the
 * output. sweep[0] is the first of the two, sweep[1] the second. 1D C2C:
 * two sweeps of blocks by four-step (hy_ooc_setup_1d).
 *
 * A batch whose single transform fits the budget runs one sweep only
 * (o->entries): slabs whose units (b, i0) come in groups of the n0 rows of
 * a batch entry, each piece's sub-plan the whole transform of its
 * entries, from the host input to the host output.
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
 * Where a side of a sweep is page-locked user memory (cuMemAllocHost,
 * cuMemHostRegister) whose pieces are rows of one stride apart, the
 * pipeline moves them between that memory and the device with 2D copies
 * (the backend's copy_2d) and the CPU does not touch them: no packing,
 * no pinned bounce buffer, and the bus is the only traffic.
 * Elsewhere (OpenCL, HYFFT_STAGING=simple) every piece is one blocking
 * round trip, packed on the host. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/ooc_chirp.h"
#include "exec/ooc_half.h"
#include "exec/ooc_r2r.h"
#include "exec/ooc_stages.h"
#include "exec/ooc_real.h"
#include "exec/out_of_core.h"
#include "util/half.h"
#include "planner/planner.h"
#include "util/settings.h"

/* Largest piece of the double-buffered path: each pinned buffer is one
 * piece, and more than this brings no more overlap. */
#define HY_OOC_MAX_OVERLAP_PIECE ((size_t)64 << 20)
/* A block of columns moves as bn0 host rows of (columns x element) bytes,
 * by 2D copies or the CPU's gathers. While uploads and downloads overlap,
 * 2D copies of narrower rows fall well below the bus's streaming rate
 * (docs/performance.md, "Out of core: the width of a block's rows"), so a
 * block's piece may grow past the cap above (within the budget) until its
 * rows are this wide: fewer pieces cost one piece's fill and drain more
 * per sweep, far less than the narrow rows. */
#define HY_OOC_MIN_BLOCK_ROW ((size_t)32 << 10)

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
  int rows;              /* 1: slabs of rows (b, i0); 0: blocks of columns */
  /* Blocks: columns of bn0 points (the transform length), bm columns per
   * batch entry in runs of bnc along jc; the plan's scale here when
   * `scaled`. `twiddle`: the 1D four-step's first sweep, whose sub-plans
   * transform the block out of place into a second device buffer, stored
   * transposed ([column][bn0], each column one contiguous run as the host
   * wants it), and multiply it there by the twiddles (HY_PASS_TWIDDLE);
   * the piece's first column goes to complex element base_at of the input
   * buffer before each execution. `alias`: the sub-plans' trees read the
   * whole input before they write the output (hy_plan_tree_in_out_may_alias:
   * a chain through the workspace), so one device buffer holds both. */
  int64_t bn0, bm, bnc;
  int scaled, twiddle, alias;
  int64_t base_at;
  int64_t units;         /* slabs: (b, i0) rows; blocks: (b, column) columns */
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
  hyfft_kind kind;
  /* batch, dim 0, the other dims and m = na * nc, with nc the complex
   * length of the last dim (n / 2 + 1 for R2C and C2R); nr is the real
   * length of the last dim (nc for C2C). */
  int64_t nb, n0, na, nc, nr, m;
  size_t elem, relem; /* bytes of a complex and of a real element of the data */
  size_t welem;       /* bytes of a complex element of the work buffers */
  hy_ooc_side in, out;
  /* A host scratch of the whole (half) spectrum, allocated per execution:
   * C2R out of place without HYFFT_DESTROY_INPUT, whose sweep 1 writes the
   * dim-0-transformed half spectrum there ([b][i0][ja][jc]) so that the
   * input stays as it was; and 1D in place (hy_ooc_setup_1d). */
  int scratch;
  /* 1D C2C (rank 1): the four-step split n = n1 * n2 (o->n0 = n, o->m = 1);
   * the twiddles are the first sweep's sub-plans' (on the device). An
   * in-place plan goes through a host scratch (scratch set). */
  int64_t n1, n2;
  hy_ooc_sweep sweep[2];
  /* The double-buffered path (backends with the staging hooks): two
   * queues, pinned buffers of one piece each, and the events that order
   * them; executions take the lock since these are the plan's. */
  int overlap;
  pthread_mutex_t lock;
  void *queues[2], *pin[2];
  void *ev_start, *ev_comp[2], *ev_down[2];
  /* The 1D first sweep's pieces' first columns (page-locked, so that
   * their uploads are asynchronous), one per piece. */
  int64_t *bases;
  /* 1D R2C and C2R of even length n = 2m: the sweeps are the m-point C2C
   * of the reals viewed as complex (o->in of R2C, o->out of C2R), and
   * the host step of exec/ooc_real.h runs after them (R2C, in place on
   * the output) or before them (C2R, from the input to the input itself
   * in place or with HYFFT_DESTROY_INPUT, else to a host scratch of m
   * complex values per transform, `pre_scratch`). `x` is the side of the
   * m + 1 bins: the output of R2C, the input of C2R. */
  int real1d, pre_scratch;
  hy_ooc_side x;
  hy_ooc_real_tables tw;
  /* Odd n, and even n whose reals the complex view cannot take (strided
   * along the axis, or an odd batch distance): the sweeps take the n-point
   * complex DFT in place in a host buffer of n complex values per
   * transform (allocated per execution), filled and emptied by the steps
   * of exec/ooc_real.h; `r` is the real side (in reals), `x` the complex
   * one. */
  int widen;
  hy_ooc_side r;
  /* Batched problems whose single transform fits the budget: one sweep of
   * pieces of whole batch entries (units (b, i0) in groups of n0), each
   * piece's transforms done by one sub-plan, so every element crosses
   * the bus once each way instead of twice. A 1D problem is then viewed
   * as one line per entry (n0 = na = 1, the transform along jc). */
  int entries;
  /* 1D: the complex DFT of length n0 by Bluestein's convolution
   * (exec/ooc_chirp.h) instead of the sweeps, where n0 is prime or its
   * split's long side does not fit the budget; no sweeps then. */
  hy_ooc_chirp *chirp;
  /* 1D R2R: the transform as the DFT of a symmetric extension, through a
   * C2C plan on host data (exec/ooc_r2r.h); no sweeps then. */
  hy_ooc_r2r *r2r;
  /* 1D half-precision storage: through f32 host buffers and an f32 plan
   * of the same problem (exec/ooc_half.h); no sweeps then. */
  hy_ooc_half *half;
  /* Rank 4 and up, or batch dims that do not merge into one: stages of
   * inner plans over outer loops (exec/ooc_stages.h); no sweeps then. */
  hy_ooc_stages *stages;
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

/* Bytes of a complex element of the computation (the work buffers), and
 * of the caller's data (f16/bf16 storage: 4). */
static size_t hy_ooc_complex(const hy_problem *p) {
  return p->precision == HYFFT_F64 ? 16 : 8;
}

static size_t hy_ooc_stored(const hy_problem *p) {
  size_t c = hy_precision_is_half(p->storage) ? 4 : hy_ooc_complex(p);
  /* R2R moves reals, each an element of the pieces. */
  return p->kind == HYFFT_R2R ? c / 2 : c;
}

/* Device bytes of the whole-problem staging: input and output buffers and
 * the workspace of the model's tree. Without a user limit the tree is
 * planned only when the data alone leave less room than two more buffers
 * of workspace; under HYFFT_DEVICE_MEMORY_LIMIT always, since a workspace
 * can exceed two buffers (Bluestein's padded chains) and the limit is the
 * user's promise to keep within. */
static size_t hy_ooc_whole(const struct hyfft_plan_s *plan, unsigned flags, int64_t budget) {
  const hy_problem *p = &plan->problem;
  size_t in = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  size_t big = in > out ? in : out;
  size_t data = p->inplace ? big : in + out;
  int user_limit = hy_settings_get()->device_memory_limit > 0;
  if (data > (size_t)budget || (!user_limit && data + 2 * big <= (size_t)budget)) return data;
  hy_plan_tree tree;
  if (hy_planner_plan(p, &plan->context->caps, flags, &tree) != HYFFT_SUCCESS) {
    /* The plan's own planning reports this properly. */
    hy_error_clear();
    return data;
  }
  return data + (size_t)(tree.work_elems[0] + tree.work_elems[1]) * hy_ooc_complex(p);
}

/* The four-step split of a 1D length: the largest divisor of n not over
 * its square root (1 for a prime). */
static int64_t hy_ooc_split(int64_t n) {
  int64_t best = 1;
  for (int64_t d = 2; d * d <= n; d++)
    if (n % d == 0) best = d;
  return best;
}

/* Whether a 1D R2C/C2R problem's reals can be viewed as m = n/2 complex
 * values: n even, the reals contiguous along the axis, an even batch
 * distance. Otherwise its n-point C2C runs in a host buffer. */
static int hy_ooc_real_view(const hy_problem *p) {
  const hyfft_dim *d = &p->dims[0];
  int r2c = p->kind == HYFFT_R2C;
  int64_t rs = r2c ? d->in_stride : d->out_stride;
  int64_t rb = p->batch_rank == 1 ? (r2c ? p->batch[0].in_stride : p->batch[0].out_stride) : 0;
  return d->n % 2 == 0 && rs == 1 && rb % 2 == 0;
}

/* ---- sub-plans -------------------------------------------------------------- */

/* The device problem of one piece of `count` units: a slab transforms the
 * dims after dim 0 of `count` contiguous rows, a block dim 0 of `count`
 * columns held [i0][column]; both in place, the plan's scale in the
 * blocks. A slab of an R2C or C2R plan is an R2C or C2R of those dims in
 * the padded in-place layout: each line of the last dim holds nc complex
 * elements, its nr reals at the line's start. */
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
  if (o->sweep[sweep].rows) {
    /* A slab transforms the dims after dim 0; a piece of entries all of
     * them, count / n0 transforms. */
    int first = o->entries ? 0 : 1;
    int64_t transforms = o->entries ? count / o->n0 : count;
    int64_t dist = o->entries ? o->n0 * o->m : o->m;
    u.kind = p->kind;
    u.rank = p->rank - first;
    /* Strides of the complex side; the real side's are twice as many
     * reals, except along the last dim (unit stride on both). */
    int real_in = p->kind == HYFFT_R2C, real_out = p->kind == HYFFT_C2R;
    int64_t stride = 1;
    for (int d = p->rank - 1; d >= first; d--) {
      int64_t rs = d == p->rank - 1 ? 1 : 2 * stride;
      u.dims[d - first].n = p->dims[d].n;
      u.r2r_kind[d - first] = p->r2r[d];
      u.dims[d - first].in_stride = real_in ? rs : stride;
      u.dims[d - first].out_stride = real_out ? rs : stride;
      stride *= d == p->rank - 1 ? o->nc : p->dims[d].n;
    }
    u.batch[0] = (hyfft_dim){transforms, real_in ? 2 * dist : dist, real_out ? 2 * dist : dist};
    u.scale = o->entries ? p->scale : 1.0;
  } else if (o->sweep[sweep].twiddle) {
    /* Out of place, from [i0][column] into [column][k0]. */
    u.rank = 1;
    u.inplace = 0;
    u.dims[0] = (hyfft_dim){o->sweep[sweep].bn0, count, 1};
    u.batch[0] = (hyfft_dim){count, 1, o->sweep[sweep].bn0};
    u.scale = 1.0;
  } else {
    /* Dim 0 of the block's columns; R2R's columns are reals. */
    u.rank = 1;
    if (p->kind == HYFFT_R2R) {
      u.kind = HYFFT_R2R;
      u.r2r_kind[0] = p->r2r[0];
    }
    u.dims[0] = (hyfft_dim){o->sweep[sweep].bn0, count, count};
    u.batch[0] = (hyfft_dim){count, 1, 1};
    u.scale = o->sweep[sweep].scaled ? p->scale : 1.0;
  }
  return hy_problem_make(&u, out);
}

/* The model's tree for a piece of `count` units into *sub, pieces of the
 * sweep being `per` units; the 1D first sweep's trees end in the twiddle
 * step, in place on the transposed output, the piece's first column read
 * behind the `per` columns of the input buffer. */
static hy_status hy_ooc_try(const struct hyfft_plan_s *plan, int sweep, int64_t count,
                            int64_t per, unsigned flags, hy_ooc_sub *sub) {
  const hy_ooc_sweep *sw = &plan->ooc->sweep[sweep];
  HY_TRY(hy_ooc_sub_problem(plan, sweep, count, &sub->problem));
  HY_TRY(hy_planner_plan(&sub->problem, &plan->context->caps, flags, &sub->tree));
  if (!sw->twiddle) return HYFFT_SUCCESS;
  return hy_planner_append_twiddle(&sub->tree, sub->problem.precision, sub->problem.sign,
                                   plan->ooc->n0, HY_BUF_OUT, (hyfft_dim){sw->bn0, 1, 1},
                                   (hyfft_dim){count, sw->bn0, sw->bn0}, per * sw->bn0);
}

/* Device bytes of one piece of `per` units: its data, and for the 1D
 * first sweep the first column's slot and, unless the output shares the
 * input's buffer, the transposed output too. */
static size_t hy_ooc_piece_bytes(const hy_ooc_sweep *sw, int64_t per, size_t elem) {
  size_t data = (size_t)per * sw->unit_bytes;
  return !sw->twiddle ? data : sw->alias ? data + elem : 2 * data + elem;
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
  /* The 1D first sweep holds a piece twice (its input and the transposed
   * output). */
  size_t room = budget / slots / (sw->twiddle ? 2 : 1);
  size_t cap = HY_OOC_MAX_OVERLAP_PIECE;
  /* HYFFT_OOC_BLOCK_ROW sets the row width instead (measuring it). */
  const int64_t row_set = hy_settings_get()->ooc_block_row;
  const size_t row = row_set > 0 ? (size_t)row_set : HY_OOC_MIN_BLOCK_ROW;
  if (!sw->rows && (size_t)sw->bn0 * row > cap) cap = (size_t)sw->bn0 * row;
  if (o->overlap && room > cap) room = cap;
  /* Pieces hold whole groups of units: the n0 rows of a batch entry in a
   * sweep of entries, else single units. */
  const int64_t group = o->entries ? o->n0 : 1, groups = sw->units / group;
  int64_t per = (int64_t)(room / sw->unit_bytes) / group;
  if (per > groups) per = groups;
  if (per < 1) per = 1;
  for (;;) {
    int64_t count = (groups + per - 1) / per;
    per = (groups + count - 1) / count;
    int64_t last = (groups - (count - 1) * per) * group;
    per *= group;
    int nsub = last != per ? 2 : 1;
    int64_t work[2] = {0, 0};
    sw->alias = sw->twiddle;
    for (int i = 0; i < nsub; i++) {
      HY_TRY(hy_ooc_try(plan, sweep, i == 0 ? per : last, per, flags, &sw->sub[i]));
      for (int w = 0; w < 2; w++)
        if (sw->sub[i].tree.work_elems[w] > work[w]) work[w] = sw->sub[i].tree.work_elems[w];
      if (!hy_plan_tree_in_out_may_alias(&sw->sub[i].tree)) sw->alias = 0;
    }
    size_t most = slots * hy_ooc_piece_bytes(sw, per, o->elem) +
                  (size_t)(work[0] + work[1]) * o->welem;
    if (most <= budget) {
      sw->base_at = per * sw->bn0;
      sw->per = per;
      sw->count = count;
      sw->last = last;
      sw->nsub = nsub;
      sw->peak = most;
      return HYFFT_SUCCESS;
    }
    if (per == group)
      return hy_error(HYFFT_OUT_OF_MEMORY,
                      "out of core: the smallest %s (%zu bytes of data) needs %zu bytes of device "
                      "memory with its workspace, over the budget of %lld bytes (%s)",
                      o->entries ? "piece (one batch entry)"
                      : sw->rows ? "slab (one row of dim 0)"
                                 : "block (one column of dim 0)",
                      (size_t)group * sw->unit_bytes, most, (long long)o->budget, o->from);
    /* Shrink in proportion, and by at least a sixteenth so that the
     * search ends quickly when the workspace grows faster than the data. */
    per /= group;
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
  if (o->bases) b->host_release(dev, o->bases);
  o->ev_start = NULL;
  o->bases = NULL;
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
  const hy_ooc_sweep *s1 = &o->sweep[0];
  if (s1->twiddle) {
    void *bases = NULL;
    HY_TRY(b->host_alloc(dev, (size_t)s1->count * sizeof *o->bases, &bases));
    o->bases = bases;
    for (int64_t k = 0; k < s1->count; k++) o->bases[k] = k * s1->per % s1->bm;
  }
  return HYFFT_SUCCESS;
}

void hy_ooc_destroy(struct hyfft_plan_s *plan) {
  struct hy_ooc *o = plan->ooc;
  if (!o) return;
  const hy_backend *b = plan->context->backend;
  hy_ooc_unoverlap(plan);
  hy_ooc_real_tables_free(&o->tw);
  hy_ooc_chirp_destroy(o->chirp);
  hy_ooc_r2r_destroy(o->r2r);
  hy_ooc_half_destroy(o->half);
  hy_ooc_stages_destroy(o->stages);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < 2; i++)
      if (o->sweep[k].sub[i].state) b->plan_release(plan->context->device, o->sweep[k].sub[i].state);
  pthread_mutex_destroy(&o->lock);
  free(o);
  plan->ooc = NULL;
}

/* Elements of a line of the last dim on the device, nr points long: nr
 * for C2C and R2R (whose elements are reals, o->elem a real's bytes), the
 * half spectrum's nr/2 + 1 complex for R2C and C2R (the reals packed at
 * the line's start). */
static int64_t hy_ooc_line(const hy_problem *p, int64_t nr) {
  return p->kind == HYFFT_C2C || p->kind == HYFFT_R2R ? nr : nr / 2 + 1;
}

/* Geometry and sweeps of a rank-2 or rank-3 problem (C2C, R2C, C2R; R2R
 * in a sweep of entries). */
static void hy_ooc_setup_nd(struct hyfft_plan_s *plan) {
  struct hy_ooc *o = plan->ooc;
  const hy_problem *p = &plan->problem;
  o->n0 = p->dims[0].n;
  o->na = p->rank == 3 ? p->dims[1].n : 1;
  o->nr = p->dims[p->rank - 1].n;
  o->nc = hy_ooc_line(p, o->nr);
  o->m = o->na * o->nc;
  o->scratch = p->kind == HYFFT_C2R && !p->inplace && !p->destroy_input;
  o->nb = p->batch_rank == 1 ? p->batch[0].n : 1;
  const hyfft_dim *bd = p->batch_rank == 1 ? &p->batch[0] : NULL;
  const hyfft_dim *da = p->rank == 3 ? &p->dims[1] : NULL;
  const hyfft_dim *dc = &p->dims[p->rank - 1];
  o->in = (hy_ooc_side){bd ? bd->in_stride : 0, p->dims[0].in_stride, da ? da->in_stride : 0,
                        dc->in_stride};
  o->out = (hy_ooc_side){bd ? bd->out_stride : 0, p->dims[0].out_stride,
                         da ? da->out_stride : 0, dc->out_stride};
  /* C2R transforms dim 0 first (complex to complex), then the slabs down
   * to real; C2C and R2C the other way round. */
  hy_ooc_sweep *rows = &o->sweep[p->kind == HYFFT_C2R ? 1 : 0];
  hy_ooc_sweep *cols = &o->sweep[p->kind == HYFFT_C2R ? 0 : 1];
  rows->rows = 1;
  rows->units = o->nb * o->n0;
  rows->unit_bytes = (size_t)o->m * o->elem;
  cols->units = o->nb * o->m;
  cols->unit_bytes = (size_t)o->n0 * o->elem;
  cols->bn0 = o->n0;
  cols->bm = o->m;
  cols->bnc = o->nc;
  cols->scaled = 1;
}

/* Geometry, sweeps and twiddle tables of a 1D C2C problem, by the
 * four-step split n = n1 * n2 with input index i = n2 * i1 + i2 and output
 * index k = k1 + n1 * k2:
 *
 *   X[k1 + n1 k2] = sum_i2 w_n2^(i2 k2) [w_n^(i2 k1) sum_i1 x[n2 i1 + i2] w_n1^(i1 k1)]
 *
 * Sweep 1 takes blocks of the n2 columns i2 of the input seen as
 * [i1][i2] (rows of n2), does their n1-point DFTs, multiplies by the
 * twiddles as the block is unpacked, and writes column i2 as the
 * contiguous run [n1 i2, n1 i2 + n1) of the output: Y[k1, i2] at
 * k1 + n1 i2. Sweep 2 takes blocks of the n1 columns k1 of the output seen
 * as [i2][k1] (rows of n1) and does their n2-point DFTs in place, which
 * leaves X[k1 + n1 k2] at k1 + n1 k2: natural order, no transpose pass.
 * Each sweep reads and writes every element once. In place, sweep 1 would
 * overwrite columns it has not read yet, so it writes a host scratch
 * instead (allocated per execution) and sweep 2 reads from there. */
static hy_status hy_ooc_setup_1d(struct hyfft_plan_s *plan) {
  struct hy_ooc *o = plan->ooc;
  const hy_problem *p = &plan->problem;
  int64_t n = p->dims[0].n;
  o->real1d = p->kind != HYFFT_C2C;
  o->widen = o->real1d && !hy_ooc_real_view(p);
  if (o->real1d && !o->widen) n /= 2;
  o->n0 = n;
  o->na = o->nc = o->nr = o->m = 1;
  o->n1 = hy_ooc_split(n);
  o->n2 = n / o->n1;
  o->nb = p->batch_rank == 1 ? p->batch[0].n : 1;
  o->scratch = p->inplace;
  const hyfft_dim *bd = p->batch_rank == 1 ? &p->batch[0] : NULL;
  o->in = (hy_ooc_side){bd ? bd->in_stride : 0, p->dims[0].in_stride, 0, 0};
  o->out = (hy_ooc_side){bd ? bd->out_stride : 0, p->dims[0].out_stride, 0, 0};
  if (o->widen) {
    /* The n-point C2C in place in the host buffer (packed), through the
     * 1D scratch. */
    int r2c = p->kind == HYFFT_R2C;
    o->x = r2c ? o->out : o->in;
    o->r = r2c ? o->in : o->out;
    o->in = o->out = (hy_ooc_side){n, 1, 0, 0};
    o->scratch = 1;
  } else if (o->real1d) {
    /* The sweeps' complex view of the reals: unit stride, half the batch
     * distance (hy_ooc_real_view checked both). */
    if (p->kind == HYFFT_R2C) {
      o->x = o->out;
      o->in = (hy_ooc_side){o->in.bs / 2, 1, 0, 0};
    } else {
      o->x = o->in;
      o->out = (hy_ooc_side){o->out.bs / 2, 1, 0, 0};
      o->pre_scratch = !p->inplace && !p->destroy_input;
      if (o->pre_scratch) o->in = (hy_ooc_side){n, 1, 0, 0};
    }
    HY_TRY(hy_ooc_real_tables_make(&o->tw, 2 * n, p->sign));
  }
  hy_ooc_sweep *s1 = &o->sweep[0], *s2 = &o->sweep[1];
  *s1 = (hy_ooc_sweep){.bn0 = o->n1, .bm = o->n2, .bnc = o->n2, .twiddle = 1};
  *s2 = (hy_ooc_sweep){.bn0 = o->n2, .bm = o->n1, .bnc = o->n1, .scaled = 1};
  s1->units = o->nb * o->n2;
  s1->unit_bytes = (size_t)o->n1 * o->elem;
  s2->units = o->nb * o->n1;
  s2->unit_bytes = (size_t)o->n2 * o->elem;
  return HYFFT_SUCCESS;
}

static void hy_ooc_relay_fn(void *user, double fraction) {
  const hy_ooc_relay *r = user;
  double f = r->base + r->span * fraction;
  if (f < 1.0) hy_exec_progress(r->outer, f);
}

void hy_ooc_relay_set(struct hyfft_plan_s *inner, hy_ooc_relay *relay,
                      const struct hyfft_plan_s *outer, double base, double span) {
  *relay = (hy_ooc_relay){outer, base, span};
  inner->progress = outer && outer->progress ? hy_ooc_relay_fn : NULL;
  inner->progress_user = relay;
}

hy_status hy_ooc_host_c2c(struct hyfft_context_s *context, int64_t len, int f64, unsigned flags,
                          struct hyfft_plan_s **plan) {
  hyfft_problem u;
  memset(&u, 0, sizeof u);
  u.kind = HYFFT_C2C;
  u.precision = f64 ? HYFFT_F64 : HYFFT_F32;
  u.sign = HYFFT_FORWARD;
  u.rank = 1;
  u.dims[0] = (hyfft_dim){len, 1, 1};
  u.inplace = 1;
  u.scale = 1.0;
  u.memory = HYFFT_MEMORY_HOST;
  return hy_exec_plan_create(context, &u, flags & ~(unsigned)HYFFT_MEASURE, NULL, plan);
}

/* A sweep of whole batch entries (o->entries): the geometry of hy_ooc_setup_nd
 * for rank 2 and 3; for rank 1 each entry is one line (n0 = na = 1) along
 * jc, its unit the whole transform. */
static void hy_ooc_setup_entries(struct hyfft_plan_s *plan) {
  struct hy_ooc *o = plan->ooc;
  const hy_problem *p = &plan->problem;
  if (p->rank >= 2) {
    hy_ooc_setup_nd(plan);
    o->sweep[1] = (hy_ooc_sweep){0};
  } else {
    const hyfft_dim *bd = &p->batch[0], *d = &p->dims[0];
    o->n0 = o->na = 1;
    o->nr = d->n;
    o->nc = hy_ooc_line(p, o->nr);
    o->m = o->nc;
    o->nb = bd->n;
    /* s0 = bs: the entries' lines are rows one batch distance apart. */
    o->in = (hy_ooc_side){bd->in_stride, bd->in_stride, 0, d->in_stride};
    o->out = (hy_ooc_side){bd->out_stride, bd->out_stride, 0, d->out_stride};
  }
  o->entries = 1;
  o->scratch = 0;
  hy_ooc_sweep *sw = &o->sweep[0];
  *sw = (hy_ooc_sweep){.rows = 1};
  sw->units = o->nb * o->n0;
  sw->unit_bytes = (size_t)o->m * o->elem;
}

/* Sweeps and sub-plans of the geometry hy_ooc_setup_* left in plan->ooc:
 * the largest pieces that fit, double-buffered where two fit. */
static hy_status hy_ooc_fit_all(struct hyfft_plan_s *plan, unsigned flags) {
  struct hy_ooc *o = plan->ooc;
  int sweeps = o->entries ? 1 : 2;
  hy_status st = HYFFT_SUCCESS;
  for (int k = 0; k < sweeps && st == HYFFT_SUCCESS; k++) st = hy_ooc_fit(plan, k, flags);
  /* Where two pieces do not fit but one does, one round trip at a time. */
  if (st == HYFFT_OUT_OF_MEMORY && o->overlap) {
    hy_error_clear();
    o->overlap = 0;
    st = HYFFT_SUCCESS;
    for (int k = 0; k < sweeps && st == HYFFT_SUCCESS; k++) st = hy_ooc_fit(plan, k, flags);
  }
  return st;
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
  /* A batch whose single transform fits goes by whole entries (any length
   * and layout the device plans take); otherwise by the two sweeps, or
   * for rank 4 and up and batch dims that do not merge by stages. */
  if (p->rank < 1) {
    /* Every dim of length 1: no transform to split. Without a user limit
     * it goes the whole way, the budget being only an estimate then. */
    if (hy_settings_get()->device_memory_limit <= 0) return HYFFT_SUCCESS;
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "the problem needs %zu bytes of device memory staged whole, over the budget "
                    "of %lld bytes (%s), and has no transform dim of length 2 or more to split "
                    "out of core",
                    whole, (long long)budget, from);
  }
  int entries = p->batch_rank == 1 && p->batch[0].n > 1 && p->rank >= 1 && p->rank <= 3;

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
  o->elem = hy_ooc_stored(p);
  o->welem = hy_ooc_complex(p);
  o->relem = o->elem / 2;
  o->kind = p->kind;
  hy_status st = HYFFT_SUCCESS;
  int overlap = o->overlap;
  if (entries) {
    hy_ooc_setup_entries(plan);
    st = hy_ooc_fit_all(plan, flags);
    if (st == HYFFT_OUT_OF_MEMORY) {
      /* Not even one entry fits: the two sweeps. */
      hy_error_clear();
      memset(o->sweep, 0, sizeof o->sweep);
      o->entries = 0;
      o->overlap = overlap;
      entries = 0;
      st = HYFFT_SUCCESS;
    }
  }
  if (!entries && hy_ooc_stages_takes(plan)) {
    /* Stages of inner plans, each of which this file plans in turn. */
    o->overlap = 0;
    st = hy_ooc_stages_create(plan, flags, &o->stages);
  } else if (!entries && hy_precision_is_half(p->storage) && p->rank == 1) {
    /* The 1D paths work in f32 and f64: through an f32 twin. */
    o->overlap = 0;
    st = hy_ooc_half_create(plan, flags, &o->half);
  } else if (!entries && p->kind == HYFFT_R2R && p->rank == 1) {
    /* Through the C2C of a symmetric extension, on host data. */
    const hyfft_dim *bd = p->batch_rank == 1 ? &p->batch[0] : NULL;
    o->nb = bd ? bd->n : 1;
    o->n0 = p->dims[0].n;
    o->in = (hy_ooc_side){bd ? bd->in_stride : 0, p->dims[0].in_stride, 0, 0};
    o->out = (hy_ooc_side){bd ? bd->out_stride : 0, p->dims[0].out_stride, 0, 0};
    o->overlap = 0;
    st = hy_ooc_r2r_create(plan->context, p->r2r[0], o->n0, o->welem == 16, flags, &o->r2r);
  } else if (!entries) {
    if (p->rank == 1)
      st = hy_ooc_setup_1d(plan);
    else
      hy_ooc_setup_nd(plan);
    /* 1D lengths the four-step cannot take: a prime, or a split whose
     * long side does not fit (its blocks fail to). */
    int chirp = st == HYFFT_SUCCESS && p->rank == 1 && o->n1 == 1;
    if (st == HYFFT_SUCCESS && !chirp) {
      st = hy_ooc_fit_all(plan, flags);
      if (st == HYFFT_OUT_OF_MEMORY && p->rank == 1) {
        hy_error_clear();
        chirp = 1;
      }
    }
    if (chirp) {
      memset(o->sweep, 0, sizeof o->sweep);
      o->overlap = 0;
      o->scratch = 0;
      st = hy_ooc_chirp_create(plan->context, o->n0, p->sign, o->elem == 16, flags, &o->chirp);
    }
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
  const hy_ooc_sweep *sw;
  char *host;
  const hy_ooc_side *side;
  int real; /* the host side holds reals (R2C input, C2R output; slabs only) */
  char *buf;
  int64_t first, count;
  int to_buf; /* 1: host -> buf, 0: buf -> host */
} hy_ooc_pack;

/* A slab, rows [begin, end) of the piece: buf holds [row][ja][jc], each
 * line of nc complex elements; a real line (nr reals) fills its start. */
static void hy_ooc_pack_rows(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_pack *a = arg;
  const struct hy_ooc *o = a->o;
  const hy_ooc_side *s = a->side;
  size_t he = a->real ? o->relem : o->elem;
  int64_t len = a->real ? o->nr : o->nc;
  for (int64_t r = begin; r < end; r++) {
    int64_t u = a->first + r, b = u / o->n0, i0 = u % o->n0;
    for (int64_t ja = 0; ja < o->na; ja++) {
      char *h = a->host + (size_t)(b * s->bs + i0 * s->s0 + ja * s->sa) * he;
      char *p = a->buf + (size_t)(r * o->m + ja * o->nc) * o->elem;
      if (a->to_buf)
        hy_ooc_copy(p, 1, h, s->sc, len, he);
      else
        hy_ooc_copy(h, s->sc, p, 1, len, he);
    }
  }
}

/* The 1D four-step's first sweep, unpacking columns [begin, end) of the
 * piece: buf holds [column][k1], twiddled on the device; column c (index
 * i2 of its batch entry) goes to k1 + n1 i2 of the destination, a
 * contiguous run for a unit stride. */
static void hy_ooc_unpack_transposed(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_pack *a = arg;
  const struct hy_ooc *o = a->o;
  const hy_ooc_sweep *sw = a->sw;
  const hy_ooc_side *s = a->side;
  for (int64_t c = begin; c < end; c++) {
    int64_t col = a->first + c, b = col / sw->bm, i2 = col % sw->bm;
    char *h = a->host + (size_t)(b * s->bs + i2 * s->sc) * o->elem;
    hy_ooc_copy(h, s->s0, a->buf + (size_t)(c * sw->bn0) * o->elem, 1, sw->bn0, o->elem);
  }
}

/* A block, indices i0 in [begin, end): buf holds [i0][column], the piece's
 * columns walked in runs along jc. */
static void hy_ooc_pack_columns(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_pack *a = arg;
  const struct hy_ooc *o = a->o;
  const hy_ooc_side *s = a->side;
  for (int64_t i0 = begin; i0 < end; i0++) {
    const hy_ooc_sweep *sw = a->sw;
    int64_t col = a->first, stop = a->first + a->count;
    while (col < stop) {
      int64_t b = col / sw->bm, j = col % sw->bm, ja = j / sw->bnc, jc = j % sw->bnc;
      int64_t run = sw->bnc - jc < stop - col ? sw->bnc - jc : stop - col;
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

static void hy_ooc_move(const struct hy_ooc *o, const hy_ooc_sweep *sw, char *host,
                        const hy_ooc_side *side, int real, char *buf, int64_t first,
                        int64_t count, int to_buf) {
  hy_ooc_pack a = {o, sw, host, side, real, buf, first, count, to_buf};
  /* About 64 KiB of copies per range handed to a thread. */
  if (sw->rows) {
    int64_t grain = (int64_t)(((size_t)1 << 16) / ((size_t)o->m * o->elem));
    hy_parallel_for(count, grain > 1 ? grain : 1, hy_ooc_pack_rows, &a);
  } else if (sw->twiddle && !to_buf) {
    int64_t grain = (int64_t)(((size_t)1 << 16) / ((size_t)sw->bn0 * o->elem));
    hy_parallel_for(count, grain > 1 ? grain : 1, hy_ooc_unpack_transposed, &a);
  } else {
    int64_t grain = (int64_t)(((size_t)1 << 16) / ((size_t)count * o->elem));
    hy_parallel_for(sw->bn0, grain > 1 ? grain : 1, hy_ooc_pack_columns, &a);
  }
}

/* ---- direct copies of pinned user data -------------------------------------- */

/* Whether every piece of sweep `sw` on host side `s` (reals when `real`)
 * is a few runs of rows one stride apart, as 2D copies take them: a slab's
 * unit (b, i0) one contiguous run (a real line, or the na lines of nc
 * complex elements back to back), a block's columns of one batch entry
 * contiguous along j. The 1D first sweep's download, transposed on the
 * device: each column one contiguous run of bn0 elements. */
static int hy_ooc_direct_fits(const struct hy_ooc *o, const hy_ooc_sweep *sw, const hy_ooc_side *s,
                              int real, int to_device) {
  if (sw->twiddle && !to_device) return s->s0 == 1;
  if (s->sc != 1) return 0;
  if (sw->rows) return real ? o->na == 1 : (o->na == 1 || s->sa == o->nc);
  return sw->bm == sw->bnc || s->sa == sw->bnc;
}

/* Whether the backend can copy this side's pieces directly: it has the
 * hooks, the layout fits, and the bytes the side spans are page-locked. */
static int hy_ooc_direct(const struct hyfft_plan_s *plan, const hy_ooc_sweep *sw, const char *host,
                         const hy_ooc_side *s, int real, int to_device) {
  const struct hy_ooc *o = plan->ooc;
  const hy_backend *b = plan->context->backend;
  if (!b->copy_2d || !b->host_pinned || hy_settings_get()->staging_packed ||
      !hy_ooc_direct_fits(o, sw, s, real, to_device))
    return 0;
  int64_t len = real ? o->nr : o->nc, last;
  if (!sw->rows) len = sw->bnc;
  int64_t n0 = sw->rows ? o->n0 : sw->bn0, na = sw->rows ? o->na : sw->bm / sw->bnc;
  last = (o->nb - 1) * s->bs + (n0 - 1) * s->s0 + (na - 1) * s->sa + (len - 1) * s->sc;
  size_t he = real ? o->relem : o->elem;
  return b->host_pinned(plan->context->device, host, (size_t)(last + 1) * he);
}

/* Piece [first, first + count) of a sweep between the user's pinned side
 * and device buffer `d`, as one 2D copy per batch entry it touches. */
static hy_status hy_ooc_copy_direct(const struct hyfft_plan_s *plan, const hy_ooc_sweep *sw,
                                    char *host, const hy_ooc_side *s, int real, void *d,
                                    int64_t first, int64_t count, void *q, int to_device) {
  const struct hy_ooc *o = plan->ooc;
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  size_t he = real ? o->relem : o->elem;
  int64_t u = first, stop = first + count;
  while (u < stop) {
    hy_status st;
    if (sw->rows) {
      /* Units (b, i0): a run of rows of dim 0 within one batch entry, or
       * across entries where their rows are one stride apart too. */
      int64_t bi = u / o->n0, i0 = u % o->n0;
      int64_t run = s->bs == o->n0 * s->s0 || o->n0 - i0 > stop - u ? stop - u : o->n0 - i0;
      size_t width = (size_t)(real ? o->nr : o->m) * he;
      st = b->copy_2d(dev, q, to_device, d, (size_t)(u - first) * sw->unit_bytes, sw->unit_bytes,
                      host + (size_t)(bi * s->bs + i0 * s->s0) * he, (size_t)s->s0 * he, width,
                      (size_t)run);
      u += run;
    } else if (sw->twiddle && !to_device) {
      /* Columns (b, i2) held [column][k1] on the device: a run of i2
       * within one batch entry, a column per row (one row where the
       * columns are back to back). */
      int64_t bi = u / sw->bm, j = u % sw->bm;
      int64_t run = sw->bm - j < stop - u ? sw->bm - j : stop - u;
      size_t width = (size_t)sw->bn0 * o->elem, pitch = (size_t)s->sc * o->elem;
      size_t rows = (size_t)run;
      if (pitch == width) {
        width *= rows;
        pitch = width;
        rows = 1;
      }
      st = b->copy_2d(dev, q, 0, d, (size_t)(u - first) * sw->bn0 * o->elem, width,
                      host + (size_t)(bi * s->bs + j * s->sc) * o->elem, pitch, width, rows);
      u += run;
    } else {
      /* Columns (b, j): a run of j within one batch entry, every i0. */
      int64_t bi = u / sw->bm, j = u % sw->bm;
      int64_t run = sw->bm - j < stop - u ? sw->bm - j : stop - u;
      st = b->copy_2d(dev, q, to_device, d, (size_t)(u - first) * o->elem,
                      (size_t)count * o->elem, host + (size_t)(bi * s->bs + j) * o->elem,
                      (size_t)s->s0 * o->elem, (size_t)run * o->elem, (size_t)sw->bn0);
      u += run;
    }
    if (st != HYFFT_SUCCESS) return st;
  }
  return HYFFT_SUCCESS;
}

/* ---- execution ----------------------------------------------------------- */

/* Where a sweep reads and writes on the host, and whether either side holds
 * reals. The source is only read; it is not const so that one packer
 * serves both directions. */
typedef struct hy_ooc_ends {
  char *src;
  const hy_ooc_side *src_side;
  int src_real;
  char *dst;
  const hy_ooc_side *dst_side;
  int dst_real;
  int64_t done; /* pieces of the sweeps before this one, for progress */
  /* A 1D real step done piece by piece beside this sweep (C2R: before
   * each piece is read; R2C: after each lands), or NULL. */
  hy_ooc_real_track *real;
  /* Pieces in mirrored order (hy_ooc_block): with a real step, blocks b
   * and count - 1 - b hold partner columns, so taking them one after the
   * other makes pairs due from the second piece on. */
  int mirrored;
} hy_ooc_ends;

static int64_t hy_ooc_block(const hy_ooc_sweep *sw, const hy_ooc_ends *e, int64_t k) {
  return hy_ooc_piece_block(k, sw->count, e->mirrored);
}

/* Whether the 1D real step runs by columns beside the sweeps: a single
 * even-length transform (viewed as complex) in two sweeps of blocks. */
static int hy_ooc_real_by_columns(const struct hy_ooc *o) {
  return o->real1d && !o->widen && o->n1 && o->nb == 1 && !o->chirp && !o->entries;
}

/* The columns [first, first + n) of a sweep, its piece k, are about to be
 * read (before) or have landed (after): the real step's pairs now due. */
static void hy_ooc_real_due(const hy_ooc_ends *e, int before, int64_t k, int64_t first, int64_t n) {
  if (e->real && e->real->before == before) hy_ooc_real_track_piece(e->real, k, first, first + n);
}

/* Piece `k` of a sweep is in the host destination: report the share of
 * both sweeps' pieces done, short of 1 (hy_exec_run reports the end). */
static void hy_ooc_progress(const struct hyfft_plan_s *plan, const hy_ooc_ends *e, int64_t k) {
  const struct hy_ooc *o = plan->ooc;
  int64_t total = o->sweep[0].count + o->sweep[1].count, done = e->done + k + 1;
  if (done < total) hy_exec_progress(plan, (double)done / (double)total);
}

/* One sweep: its device buffers for this execution, then every piece
 * packed, uploaded, transformed, downloaded and unpacked in turn. */
static hy_status hy_ooc_sweep_run(struct hyfft_plan_s *plan, int sweep, const hy_ooc_ends *e,
                                  void *queue) {
  const struct hy_ooc *o = plan->ooc;
  const hy_ooc_sweep *sw = &o->sweep[sweep];
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  size_t bytes = (size_t)sw->per * sw->unit_bytes;
  char *host = hy_malloc(bytes);
  if (!host) return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no %zu bytes of host memory for a piece", bytes);
  void *d = NULL, *dout = NULL, *work[2] = {NULL, NULL};
  hy_status st = b->alloc(dev, sw->twiddle ? bytes + o->elem : bytes, &d);
  if (st == HYFFT_SUCCESS && sw->twiddle && !sw->alias) st = b->alloc(dev, bytes, &dout);
  for (int w = 0; w < 2 && st == HYFFT_SUCCESS; w++)
    if (sw->work_elems[w] > 0) st = b->alloc(dev, (size_t)sw->work_elems[w] * o->welem, &work[w]);
  int queued = 0;
  for (int64_t i = 0; i < sw->count && st == HYFFT_SUCCESS; i++) {
    int64_t blk = hy_ooc_block(sw, e, i);
    int last = blk == sw->count - 1;
    int64_t first = blk * sw->per, n = last ? sw->last : sw->per;
    const hy_ooc_sub *sub = &sw->sub[last && sw->nsub == 2 ? 1 : 0];
    size_t piece = (size_t)n * sw->unit_bytes;
    hy_ooc_real_due(e, 1, i, first, n);
    hy_ooc_move(o, sw, e->src, e->src_side, e->src_real, host, first, n, 1);
    queued = 1;
    st = b->write(dev, queue, d, 0, host, piece, 0);
    int64_t base = sw->twiddle ? first % sw->bm : 0;
    if (st == HYFFT_SUCCESS && sw->twiddle)
      st = b->write(dev, queue, d, (size_t)sw->base_at * o->elem, &base, sizeof base, 1);
    if (st == HYFFT_SUCCESS) {
      void *buffers[HY_BUF_COUNT] = {d, dout ? dout : d, work[0], work[1]};
      st = b->execute(dev, sub->state, &sub->tree, buffers, queue);
    }
    if (st == HYFFT_SUCCESS) st = b->read(dev, queue, dout ? dout : d, 0, host, piece, 1);
    if (st == HYFFT_SUCCESS) {
      queued = 0;
      hy_ooc_move(o, sw, e->dst, e->dst_side, e->dst_real, host, first, n, 0);
      hy_ooc_real_due(e, 0, i, first, n);
      hy_ooc_progress(plan, e, i);
    }
  }
  /* After an error, nothing may still read or write the buffers below. */
  if (queued) (void)b->synchronize(dev, queue);
  for (int w = 0; w < 2; w++)
    if (work[w]) b->release(dev, work[w]);
  if (dout) b->release(dev, dout);
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
static hy_status hy_ooc_sweep_pipeline(struct hyfft_plan_s *plan, int sweep, const hy_ooc_ends *e,
                                       void *queue) {
  const struct hy_ooc *o = plan->ooc;
  const hy_ooc_sweep *sw = &o->sweep[sweep];
  const hy_backend *b = plan->context->backend;
  void *dev = plan->context->device;
  size_t bytes = (size_t)sw->per * sw->unit_bytes;
  void *d[2] = {NULL, NULL}, *dout[2] = {NULL, NULL}, *work[2] = {NULL, NULL};
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++)
    if (i < sw->count) {
      st = b->alloc(dev, sw->twiddle ? bytes + o->elem : bytes, &d[i]);
      if (st == HYFFT_SUCCESS && sw->twiddle && !sw->alias) st = b->alloc(dev, bytes, &dout[i]);
    }
  for (int w = 0; w < 2 && st == HYFFT_SUCCESS; w++)
    if (sw->work_elems[w] > 0) st = b->alloc(dev, (size_t)sw->work_elems[w] * o->welem, &work[w]);
  /* Sides in page-locked user memory move by 2D copies, not the CPU. */
  int din = hy_ooc_direct(plan, sw, e->src, e->src_side, e->src_real, 1);
  int direct_out = hy_ooc_direct(plan, sw, e->dst, e->dst_side, e->dst_real, 0);
  /* Work the caller queued before this call comes first. */
  if (st == HYFFT_SUCCESS) st = b->event_record(dev, o->ev_start, queue);
  for (int q = 0; q < 2 && st == HYFFT_SUCCESS; q++) st = b->queue_wait(dev, o->queues[q], o->ev_start);
  int64_t k;
  for (k = 0; k < sw->count && st == HYFFT_SUCCESS; k++) {
    int slot = (int)(k & 1), other = slot ^ 1;
    void *q = o->queues[slot];
    int64_t blk = hy_ooc_block(sw, e, k), first = blk * sw->per;
    int last = blk == sw->count - 1;
    int64_t n = last ? sw->last : sw->per;
    const hy_ooc_sub *sub = &sw->sub[last && sw->nsub == 2 ? 1 : 0];
    size_t piece = (size_t)n * sw->unit_bytes;
    if (k >= 2) {
      st = b->event_wait(dev, o->ev_down[slot]);
      if (st != HYFFT_SUCCESS) break;
      int64_t pb = hy_ooc_block(sw, e, k - 2);
      int64_t pn = pb == sw->count - 1 ? sw->last : sw->per;
      if (!direct_out)
        hy_ooc_move(o, sw, e->dst, e->dst_side, e->dst_real, o->pin[slot], pb * sw->per, pn, 0);
      hy_ooc_real_due(e, 0, k - 2, pb * sw->per, pn);
      hy_ooc_progress(plan, e, k - 2);
    }
    /* The real step's pairs of this piece's columns, while the queues
     * still move the pieces before it. */
    hy_ooc_real_due(e, 1, k, first, n);
    if (din) {
      st = hy_ooc_copy_direct(plan, sw, e->src, e->src_side, e->src_real, d[slot], first, n, q, 1);
    } else {
      hy_ooc_move(o, sw, e->src, e->src_side, e->src_real, o->pin[slot], first, n, 1);
      st = b->write(dev, q, d[slot], 0, o->pin[slot], piece, 0);
    }
    /* The piece's first column, from the plan's page-locked list. */
    if (st == HYFFT_SUCCESS && sw->twiddle)
      st = b->write(dev, q, d[slot], (size_t)sw->base_at * o->elem, &o->bases[blk],
                    sizeof o->bases[blk], 0);
    if (st == HYFFT_SUCCESS && k >= 1) st = b->queue_wait(dev, q, o->ev_comp[other]);
    void *res = dout[slot] ? dout[slot] : d[slot];
    if (st == HYFFT_SUCCESS) {
      void *buffers[HY_BUF_COUNT] = {d[slot], res, work[0], work[1]};
      st = b->execute(dev, sub->state, &sub->tree, buffers, q);
    }
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, o->ev_comp[slot], q);
    if (st == HYFFT_SUCCESS)
      st = direct_out ? hy_ooc_copy_direct(plan, sw, e->dst, e->dst_side, e->dst_real, res,
                                           first, n, q, 0)
                      : b->read(dev, q, res, 0, o->pin[slot], piece, 0);
    if (st == HYFFT_SUCCESS) st = b->event_record(dev, o->ev_down[slot], q);
  }
  /* The last two pieces (or one) are still in their pinned buffers. */
  for (k = sw->count >= 2 ? sw->count - 2 : 0; k < sw->count && st == HYFFT_SUCCESS; k++) {
    int slot = (int)(k & 1);
    int64_t blk = hy_ooc_block(sw, e, k);
    int64_t n = blk == sw->count - 1 ? sw->last : sw->per;
    st = b->event_wait(dev, o->ev_down[slot]);
    if (st == HYFFT_SUCCESS) {
      if (!direct_out)
        hy_ooc_move(o, sw, e->dst, e->dst_side, e->dst_real, o->pin[slot], blk * sw->per, n, 0);
      hy_ooc_real_due(e, 0, k, blk * sw->per, n);
      hy_ooc_progress(plan, e, k);
    }
  }
  /* Also after an error: nothing may still use the buffers below, or the
   * pinned ones when the next execution takes them. */
  for (int q = 0; q < 2; q++) {
    hy_status sq = b->synchronize(dev, o->queues[q]);
    if (st == HYFFT_SUCCESS) st = sq;
  }
  for (int w = 0; w < 2; w++)
    if (work[w]) b->release(dev, work[w]);
  for (int i = 0; i < 2; i++) {
    if (dout[i]) b->release(dev, dout[i]);
    if (d[i]) b->release(dev, d[i]);
  }
  return st;
}

hy_status hy_ooc_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue) {
  struct hy_ooc *o = plan->ooc;
  /* C2C and R2C: the slabs read the input and write every output element
   * once (in place a slab's elements belong to no other slab: the padded
   * real layout puts a real line where its complex line is), then the
   * blocks work on the output alone. C2R: the blocks transform dim 0 of
   * the input into `mid` (the input itself in place or with
   * HYFFT_DESTROY_INPUT, else a host scratch), then the slabs go from
   * there to the real output. 1D: see hy_ooc_setup_1d. */
  if (o->stages) {
    /* The stages' inner plans report progress through a relay set per
     * call: executions of one plan take turns. */
    pthread_mutex_lock(&o->lock);
    hy_status st = hy_ooc_stages_run(o->stages, plan, in, out);
    pthread_mutex_unlock(&o->lock);
    return st;
  }
  if (o->half || o->r2r) {
    /* The whole transform through an inner plan on host buffers the
     * executions of one plan share. */
    pthread_mutex_lock(&o->lock);
    hy_status st = o->half ? hy_ooc_half_run(o->half, plan, in, out)
                           : hy_ooc_r2r_run(o->r2r, plan, in, o->in.s0, o->in.bs, out,
                                            o->out.s0, o->out.bs, o->nb, plan->problem.scale);
    pthread_mutex_unlock(&o->lock);
    return st;
  }
  char *src = (char *)(uintptr_t)in, *scratch = NULL, *pre = NULL, *odd = NULL;
  hy_ooc_real_odd odd_step;
  if (o->scratch) {
    size_t bytes = (size_t)(o->nb * o->n0 * o->m) * o->elem;
    scratch = hy_malloc(bytes);
    if (!scratch)
      return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no %zu bytes of host memory for the %s",
                      bytes, o->n1 ? "1D in-place scratch" : "C2R scratch");
  }
  if (o->widen) {
    /* Odd n, or strided reals: the DFT of n complex values in a host
     * buffer, in place. */
    size_t bytes = (size_t)(o->nb * o->n0) * o->elem;
    odd = hy_malloc(bytes);
    if (!odd) {
      free(scratch);
      return hy_error(HYFFT_OUT_OF_MEMORY,
                      "out of core: no %zu bytes of host memory for the n-point complex buffer", bytes);
    }
    int r2c = o->kind == HYFFT_R2C;
    odd_step = (hy_ooc_real_odd){o->n0,
                                 o->nb,
                                 r2c,
                                 o->elem == 16,
                                 r2c ? src : (char *)out,
                                 o->r.s0,
                                 o->r.bs,
                                 r2c ? (char *)out : src,
                                 o->x.s0,
                                 o->x.bs,
                                 odd};
    hy_ooc_real_odd_before(&odd_step);
    src = odd;
    out = odd;
  }
  /* A single 1D real transform in two sweeps runs its step by columns
   * beside them (exec/ooc_real.h): C2R's before sweep 1 reads each block,
   * R2C's after sweep 2 lands each, so that the host's pass over the bins
   * overlaps the copies instead of following or preceding them. */
  hy_ooc_real_track track;
  int tracked = hy_ooc_real_by_columns(o);
  if (!o->widen && o->real1d && o->kind == HYFFT_C2R) {
    /* The C2R step first: the m + 1 bins to the m values whose inverse
     * DFT the sweeps take, in place or into a host scratch. */
    if (o->pre_scratch) {
      size_t bytes = (size_t)(o->nb * o->n0) * o->elem;
      pre = hy_malloc(bytes);
      if (!pre) {
        free(scratch);
        return hy_error(HYFFT_OUT_OF_MEMORY,
                        "out of core: no %zu bytes of host memory for the C2R scratch", bytes);
      }
    }
    hy_ooc_real_step step = {&o->tw,  0,          o->elem == 16, src, o->x.s0,
                             o->x.bs, pre ? pre : src, pre ? 1 : o->x.s0,
                             pre ? o->n0 : o->x.bs};
    hy_status st = tracked ? hy_ooc_real_track_init(&track, &step, o->n2, 1) : HYFFT_SUCCESS;
    if (st != HYFFT_SUCCESS) {
      free(pre);
      free(scratch);
      return st;
    }
    if (!tracked) hy_ooc_real_run(&step, o->nb);
    if (pre) src = pre;
  } else if (tracked && o->kind == HYFFT_R2C) {
    hy_ooc_real_step step = {&o->tw, 1, o->elem == 16, out, o->x.s0, o->x.bs, out, o->x.s0,
                             o->x.bs};
    hy_status st = hy_ooc_real_track_init(&track, &step, o->n1, 0);
    if (st != HYFFT_SUCCESS) {
      free(scratch);
      return st;
    }
  }
  hy_ooc_ends e[2];
  hy_ooc_side packed = {o->n0 * o->m, o->m, o->nc, 1};
  hy_ooc_side src1 = {o->in.bs, o->n2 * o->in.s0, 0, o->in.s0};
  hy_ooc_side out1 = {o->out.bs, o->out.s0, 0, o->n1 * o->out.s0};
  hy_ooc_side out2 = {o->out.bs, o->n1 * o->out.s0, 0, o->out.s0};
  hy_ooc_side tmp1 = {o->n0, 1, 0, o->n1}, tmp2 = {o->n0, o->n1, 0, 1};
  int64_t c0 = o->sweep[0].count;
  if (o->entries) {
    e[0] = (hy_ooc_ends){src, &o->in, o->kind == HYFFT_R2C, out, &o->out, o->kind == HYFFT_C2R, 0, NULL, 0};
  } else if (o->n1) {
    if (scratch) {
      e[0] = (hy_ooc_ends){src, &src1, 0, scratch, &tmp1, 0, 0, NULL, 0};
      e[1] = (hy_ooc_ends){scratch, &tmp2, 0, out, &out2, 0, c0, NULL, 0};
    } else {
      e[0] = (hy_ooc_ends){src, &src1, 0, out, &out1, 0, 0, NULL, 0};
      e[1] = (hy_ooc_ends){out, &out2, 0, out, &out2, 0, c0, NULL, 0};
    }
  } else if (o->kind != HYFFT_C2R) {
    e[0] = (hy_ooc_ends){src, &o->in, o->kind == HYFFT_R2C, out, &o->out, 0, 0, NULL, 0};
    e[1] = (hy_ooc_ends){out, &o->out, 0, out, &o->out, 0, c0, NULL, 0};
  } else {
    char *mid = scratch ? scratch : src;
    const hy_ooc_side *mid_side = scratch ? &packed : &o->in;
    e[0] = (hy_ooc_ends){src, &o->in, 0, mid, mid_side, 0, 0, NULL, 0};
    e[1] = (hy_ooc_ends){mid, mid_side, 0, out, &o->out, 1, c0, NULL, 0};
  }
  if (tracked) {
    /* Double-buffered sweeps: the step on a helper thread of its own, so
     * that the thread issuing the copies never waits for it longer than
     * the next piece needs. */
    const hy_ooc_sweep *sw = &o->sweep[o->kind == HYFFT_C2R ? 0 : 1];
    hy_status st =
        o->overlap ? hy_ooc_real_track_start(&track, sw->per, sw->count, 1) : HYFFT_SUCCESS;
    if (st != HYFFT_SUCCESS) {
      hy_ooc_real_track_free(&track);
      free(pre);
      free(scratch);
      return st;
    }
    e[o->kind == HYFFT_C2R ? 0 : 1].real = &track;
    e[o->kind == HYFFT_C2R ? 0 : 1].mirrored = 1;
  }
  hy_status st;
  int sweeps = o->entries ? 1 : 2;
  if (o->chirp) {
    /* The executions of one plan share its convolution buffer. */
    pthread_mutex_lock(&o->lock);
    st = hy_ooc_chirp_run(o->chirp, plan, src, o->in.s0, o->in.bs, out, o->out.s0, o->out.bs,
                          o->nb, plan->problem.scale);
    pthread_mutex_unlock(&o->lock);
  } else if (!o->overlap) {
    st = hy_ooc_sweep_run(plan, 0, &e[0], queue);
    if (st == HYFFT_SUCCESS && sweeps == 2) st = hy_ooc_sweep_run(plan, 1, &e[1], queue);
  } else {
    pthread_mutex_lock(&o->lock);
    st = hy_ooc_sweep_pipeline(plan, 0, &e[0], queue);
    if (st == HYFFT_SUCCESS && sweeps == 2) st = hy_ooc_sweep_pipeline(plan, 1, &e[1], queue);
    pthread_mutex_unlock(&o->lock);
  }
  if (tracked) {
    hy_ooc_real_track_finish(&track, st != HYFFT_SUCCESS);
    if (st == HYFFT_SUCCESS && !hy_ooc_real_track_complete(&track))
      st = hy_error(HYFFT_INTERNAL, "out of core: the 1D real step missed columns of its sweep");
    hy_ooc_real_track_free(&track);
  }
  if (st == HYFFT_SUCCESS && o->widen) {
    hy_ooc_real_odd_after(&odd_step);
  } else if (st == HYFFT_SUCCESS && o->real1d && o->kind == HYFFT_R2C && !tracked) {
    /* The R2C step last, in place on the output's m + 1 bins. */
    hy_ooc_real_step step = {&o->tw, 1, o->elem == 16, out, o->x.s0, o->x.bs, out, o->x.s0,
                             o->x.bs};
    hy_ooc_real_run(&step, o->nb);
  }
  free(odd);
  free(pre);
  free(scratch);
  return st;
}

/* The inner plan of Bluestein's, the 1D R2R or the 1D half path, NULL for
 * sweeps. */
static const struct hyfft_plan_s *hy_ooc_inner(const struct hy_ooc *o) {
  return o->chirp  ? hy_ooc_chirp_plan(o->chirp)
         : o->r2r  ? hy_ooc_r2r_plan(o->r2r)
         : o->half ? hy_ooc_half_plan(o->half)
                   : NULL;
}

hy_status hy_ooc_wait(struct hyfft_plan_s *plan) {
  const hy_backend *b = plan->context->backend;
  if (plan->ooc && plan->ooc->stages) {
    for (int k = 0; k < hy_ooc_stages_count(plan->ooc->stages); k++)
      HY_TRY(hy_exec_plan_wait((struct hyfft_plan_s *)hy_ooc_stages_plan(plan->ooc->stages, k)));
    return HYFFT_SUCCESS;
  }
  const struct hyfft_plan_s *fft = plan->ooc ? hy_ooc_inner(plan->ooc) : NULL;
  if (fft) return hy_exec_plan_wait((struct hyfft_plan_s *)fft);
  if (!plan->ooc || !b->plan_wait) return HYFFT_SUCCESS;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < plan->ooc->sweep[k].nsub; i++)
      HY_TRY(b->plan_wait(plan->context->device, plan->ooc->sweep[k].sub[i].state));
  return HYFFT_SUCCESS;
}

/* ---- description ------------------------------------------------------------ */

/* One sweep's line of the description. */
static void hy_ooc_describe_sweep(const struct hy_ooc *o, int k, hy_strbuf *sb) {
  const hy_ooc_sweep *sw = &o->sweep[k];
  if (o->entries) {
    hy_strbuf_appendf(sb,
                      "    one sweep: %lld piece%s of %lld batch entries (last %lld; %lld in all), "
                      "%zu bytes of data each, %zu on the device at once; the whole transforms "
                      "there\n",
                      (long long)sw->count, sw->count == 1 ? "" : "s",
                      (long long)(sw->per / o->n0), (long long)(sw->last / o->n0),
                      (long long)o->nb, (size_t)sw->per * sw->unit_bytes, sw->peak);
    return;
  }
  const char *what = o->n1 && k == 0           ? "the n1-point DFTs"
                     : o->n1                    ? "the n2-point DFTs"
                     : !sw->rows                ? "dim 0"
                     : o->kind == HYFFT_R2C     ? "R2C of the other dims"
                     : o->kind == HYFFT_C2R     ? "C2R of the other dims"
                                                : "the other dims";
  hy_strbuf_appendf(sb,
                    "    sweep %d: %lld %s%s of %lld %s (last %lld; %lld %s in all), %zu bytes of "
                    "data each, %zu on the device at once; %s",
                    k + 1, (long long)sw->count, sw->rows ? "slab" : "block",
                    sw->count == 1 ? "" : "s", (long long)sw->per,
                    sw->rows ? "rows of dim 0" : "columns", (long long)sw->last,
                    (long long)sw->units, sw->rows ? "rows" : "columns",
                    (size_t)sw->per * sw->unit_bytes, sw->peak, what);
  if (!sw->rows) hy_strbuf_appendf(sb, " (%lld points)", (long long)sw->bn0);
  hy_strbuf_append(sb, !sw->twiddle ? " there\n"
                       : sw->alias ? " there, twiddled on the device, stored transposed over the "
                                     "block's input (its chain reads it all first)\n"
                                   : " there, twiddled on the device, stored transposed in a "
                                     "second buffer\n");
}

/* The C2C plan that Bluestein's or the 1D R2R path runs on its host
 * buffer, itself out of core or staged whole. */
static void hy_ooc_describe_inner(const struct hyfft_plan_s *fft, hy_strbuf *sb) {
  if (fft->ooc)
    hy_ooc_describe(fft, sb);
  else
    hy_plan_tree_describe(&fft->tree, sb);
}

void hy_ooc_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_ooc *o = plan->ooc;
  if (!o) return;
  /* Each sweep moves the (half) spectrum, nb * n0 * m complex elements,
   * each way; a real line travels padded to its complex line. */
  size_t total = (size_t)(o->nb * o->n0 * o->m) * o->elem;
  int sweeps = o->entries ? 1 : 2;
  hy_strbuf_appendf(sb,
                    "  out of core: staged whole it needs %zu bytes of device memory, over the "
                    "budget of %lld bytes (%s)\n",
                    o->whole, (long long)o->budget, o->from);
  if (o->stages) {
    for (int k = 0; k < hy_ooc_stages_count(o->stages); k++) {
      hy_ooc_stages_describe(o->stages, k, sb);
      hy_strbuf_appendf(sb, "  stage %d plan:\n", k + 1);
      hy_ooc_describe_inner(hy_ooc_stages_plan(o->stages, k), sb);
    }
    return;
  }
  if (o->half) {
    hy_strbuf_append(sb, "    half-precision storage, 1D: the data widened to f32 in host "
                         "buffers, the f32 plan below, the result narrowed back\n  the f32 "
                         "plan:\n");
    hy_ooc_describe_inner(hy_ooc_half_plan(o->half), sb);
    return;
  }
  if (o->r2r) {
    const struct hyfft_plan_s *fft = hy_ooc_r2r_plan(o->r2r);
    hy_strbuf_appendf(sb,
                      "    R2R of %lld points: the DFT of a symmetric extension of %lld points "
                      "per transform (the plan below), the extension and the outputs on the "
                      "host\n  the %lld-point plan:\n",
                      (long long)o->n0, (long long)hy_ooc_r2r_length(o->r2r),
                      (long long)hy_ooc_r2r_length(o->r2r));
    hy_ooc_describe_inner(fft, sb);
    return;
  }
  if (o->chirp)
    hy_strbuf_appendf(sb,
                      "    Bluestein: the %lld-point DFT as a cyclic convolution of %lld points, "
                      "two %lld-point forward DFTs of host data per transform (the plan below), "
                      "the chirp multiplies and the product with the kernel's spectrum on the "
                      "host\n",
                      (long long)o->n0, (long long)hy_ooc_chirp_length(o->chirp),
                      (long long)hy_ooc_chirp_length(o->chirp));
  else if (o->n1)
    hy_strbuf_appendf(sb,
                      "    four-step: %lld = n1 %lld x n2 %lld; sweep 1 writes each column where "
                      "sweep 2 leaves the output in natural order; twiddles on the device, "
                      "after sweep 1's n1-point DFTs, which store each block transposed%s\n",
                      (long long)o->n0, (long long)o->n1, (long long)o->n2,
                      o->scratch ? "; in place, sweep 1 writes a host scratch" : "");
  if (o->widen)
    hy_strbuf_appendf(sb,
                      "    %s of %s %lld: the sweeps are the %lld-point C2C in place in "
                      "a host buffer of n complex values per transform, %s\n",
                      o->kind == HYFFT_R2C ? "R2C" : "C2R",
                      o->n0 % 2 ? "odd length" : "strided reals, length", (long long)o->n0,
                      (long long)o->n0,
                      o->kind == HYFFT_R2C
                          ? "the reals widened into it before, the first n/2+1 bins kept after"
                          : "the Hermitian spectrum rebuilt in it before, the real parts kept "
                            "after");
  else if (o->real1d) {
    const int r2c = o->kind == HYFFT_R2C;
    hy_strbuf how;
    hy_strbuf_init(&how);
    if (hy_ooc_real_by_columns(o))
      hy_strbuf_appendf(&how,
                        "%s on the host (pairs k and m-k of the %lld bins, by columns of "
                        "%s's blocks, which go in mirrored order 0, last, 1, ...%s)",
                        r2c ? "the R2C step as sweep 2's blocks land"
                            : "the C2R step ahead of sweep 1's reads",
                        (long long)(o->n0 + 1), r2c ? "sweep 2" : "sweep 1",
                        o->overlap ? "; on a thread of its own beside the double-buffered copies"
                                   : "");
    else
      hy_strbuf_appendf(&how, "%s on the host (one pass over the %lld bins, pairs k and m-k)",
                        r2c ? "the R2C step after them" : "the C2R step before them",
                        (long long)(o->n0 + 1));
    hy_strbuf_appendf(sb,
                      "    %s of %lld points: the sweeps are the %lld-point C2C of the reals "
                      "viewed as complex; %s%s\n",
                      r2c ? "R2C" : "C2R", (long long)(2 * o->n0), (long long)o->n0,
                      how.data ? how.data : "",
                      r2c              ? ", in place on the output"
                      : o->pre_scratch ? ", into a host scratch (the input is kept)"
                                       : ", in place on the input");
    hy_strbuf_free(&how);
  }
  if (o->chirp) {
    const struct hyfft_plan_s *fft = hy_ooc_chirp_plan(o->chirp);
    hy_strbuf_appendf(sb, "  the %lld-point plan:\n", (long long)hy_ooc_chirp_length(o->chirp));
    hy_ooc_describe_inner(fft, sb);
    return;
  }
  for (int k = 0; k < sweeps; k++) hy_ooc_describe_sweep(o, k, sb);
  hy_strbuf_appendf(sb,
                    "    bus: %zu bytes to the device, %zu bytes back (every element %s each "
                    "way%s); pieces packed on the host, %s\n",
                    sweeps * total, sweeps * total, o->entries ? "once" : "twice",
                    o->kind == HYFFT_C2C || o->kind == HYFFT_R2R || o->real1d
                        ? ""
                        : ", real lines padded to n/2+1 complex",
                    o->overlap ? "double-buffered on two queues (copies overlap compute)"
                               : "one blocking round trip each (copies not overlapped)");
  if (o->kind == HYFFT_C2R && !o->real1d && !o->entries)
    hy_strbuf_appendf(sb,
                      "    C2R: sweep 1 writes %s\n",
                      o->scratch ? "a host scratch of the half spectrum (the input is kept; "
                                   "HYFFT_DESTROY_INPUT or in place needs none)"
                                 : "back into the input (in place or HYFFT_DESTROY_INPUT)");
  for (int k = 0; k < 2; k++) {
    const hy_ooc_sweep *sw = &o->sweep[k];
    for (int i = 0; i < sw->nsub; i++) {
      int64_t units = i == 0 ? sw->per : sw->last;
      if (o->entries)
        hy_strbuf_appendf(sb, "  sub-plan, %lld batch entries:\n", (long long)(units / o->n0));
      else
        hy_strbuf_appendf(sb, "  sweep %d sub-plan, %lld %s:\n", k + 1, (long long)units,
                          sw->rows ? "rows" : "columns");
      hy_plan_tree_describe(&sw->sub[i].tree, sb);
    }
  }
}

hy_status hy_ooc_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const hy_backend *b = plan->context->backend;
  if (!plan->ooc) return HYFFT_SUCCESS;
  if (plan->ooc->stages) {
    for (int k = 0; k < hy_ooc_stages_count(plan->ooc->stages); k++) {
      const struct hyfft_plan_s *stage = hy_ooc_stages_plan(plan->ooc->stages, k);
      if (stage->ooc)
        HY_TRY(hy_ooc_source(stage, sb));
      else
        HY_TRY(b->plan_source(plan->context->device, stage->backend_state, sb));
    }
    return HYFFT_SUCCESS;
  }
  const struct hyfft_plan_s *fft = hy_ooc_inner(plan->ooc);
  if (fft) {
    if (fft->ooc) return hy_ooc_source(fft, sb);
    return b->plan_source(plan->context->device, fft->backend_state, sb);
  }
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < plan->ooc->sweep[k].nsub; i++)
      HY_TRY(b->plan_source(plan->context->device, plan->ooc->sweep[k].sub[i].state, sb));
  return HYFFT_SUCCESS;
}
