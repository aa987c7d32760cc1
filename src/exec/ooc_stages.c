/* Out-of-core problems as stages of inner plans over outer loops
 * (exec/ooc_stages.h). */
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/ooc_stages.h"
#include "exec/out_of_core.h"

/* Where a stage reads or writes: the caller's input, its output, or the
 * C2R scratch (the input's layout). */
typedef enum { HY_STAGES_IN = 0, HY_STAGES_OUT = 1, HY_STAGES_SCRATCH = 2 } hy_ooc_stage_buf;

typedef struct hy_ooc_stage {
  struct hyfft_plan_s *plan; /* the inner plan: at most one batch dim of its own */
  hy_ooc_stage_buf src, dst;
  int nloops;
  /* Outer loops: counts and strides in elements of the stage's source and
   * destination (stride fields in_stride / out_stride). */
  hyfft_dim loops[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  size_t src_elem, dst_elem; /* bytes of one element of each side */
  char what[96];             /* for the description */
} hy_ooc_stage;

struct hy_ooc_stages {
  int nstages;
  hy_ooc_stage stage[2];
  size_t scratch_bytes; /* C2R keeping its input: the input's extent */
};

int hy_ooc_stages_takes(const struct hyfft_plan_s *plan) {
  const hy_problem *p = &plan->problem;
  return p->rank >= 4 || p->batch_rank > 1;
}

int hy_ooc_stages_count(const hy_ooc_stages *s) {
  return s->nstages;
}

const struct hyfft_plan_s *hy_ooc_stages_plan(const hy_ooc_stages *s, int stage) {
  return s->stage[stage].plan;
}

void hy_ooc_stages_destroy(hy_ooc_stages *s) {
  if (!s) return;
  for (int i = 0; i < s->nstages; i++)
    if (s->stage[i].plan) hy_exec_plan_destroy(s->stage[i].plan);
  hy_free(s);
}

/* The inner plan of stage `st` for problem `q` (any number of batch dims):
 * after merging the dims that merge, the batch dim with the most entries
 * stays in the plan, the others become the stage's loops. */
static hy_status hy_ooc_stage_make(struct hyfft_plan_s *plan, unsigned flags, hyfft_problem *q,
                                     hy_ooc_stage *st) {
  st->nloops = 0;
  /* Batch dims one of which steps over the other whole on both sides are
   * one dim (the dims 1..r-1 of a packed array, say), so that the inner
   * plan takes them in one call rather than a loop. */
  for (int merged = 1; merged && q->batch_rank > 1;) {
    merged = 0;
    for (int i = 0; i < q->batch_rank && !merged; i++)
      for (int j = 0; j < q->batch_rank && !merged; j++) {
        hyfft_dim *o = &q->batch[i], *in = &q->batch[j];
        if (i == j || o->in_stride != in->n * in->in_stride ||
            o->out_stride != in->n * in->out_stride)
          continue;
        in->n *= o->n;
        q->batch[i] = q->batch[--q->batch_rank];
        merged = 1;
      }
  }
  if (q->batch_rank > 1) {
    int keep = 0;
    for (int i = 1; i < q->batch_rank; i++)
      if (q->batch[i].n > q->batch[keep].n) keep = i;
    for (int i = 0; i < q->batch_rank; i++)
      if (i != keep) st->loops[st->nloops++] = q->batch[i];
    q->batch[0] = q->batch[keep];
    q->batch_rank = 1;
  }
  q->memory = HYFFT_MEMORY_HOST;
  return hy_exec_plan_create(plan->context, q, flags & ~(unsigned)HYFFT_MEASURE, NULL, &st->plan);
}

/* A problem of `kind` on the caller's storage with no dims yet. */
static hyfft_problem hy_ooc_stage_problem(const hy_problem *p, hyfft_kind kind, int sign) {
  hyfft_problem q;
  memset(&q, 0, sizeof q);
  q.kind = kind;
  q.precision = p->storage;
  q.sign = sign;
  q.memory = HYFFT_MEMORY_HOST;
  return q;
}

static void hy_ooc_stage_add_batch(hyfft_problem *q, hyfft_dim d) {
  q->batch[q->batch_rank++] = d;
}

hy_status hy_ooc_stages_create(struct hyfft_plan_s *plan, unsigned flags, hy_ooc_stages **out) {
  *out = NULL;
  const hy_problem *p = &plan->problem;
  hy_ooc_stages *s = hy_calloc(1, sizeof *s);
  if (!s) return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no memory for a split plan");
  const size_t in_elem = hy_problem_in_elem_size(p), out_elem = hy_problem_out_elem_size(p);
  hy_status st = HYFFT_SUCCESS;
  if (p->rank < 4) {
    /* Batch dims that do not merge: one stage over the others. */
    hyfft_problem q = hy_ooc_stage_problem(p, p->kind, p->sign);
    q.rank = p->rank;
    memcpy(q.dims, p->dims, sizeof q.dims);
    memcpy(q.r2r_kind, p->r2r, sizeof q.r2r_kind);
    q.batch_rank = p->batch_rank;
    memcpy(q.batch, p->batch, sizeof q.batch);
    q.inplace = p->inplace;
    q.scale = p->scale;
    hy_ooc_stage *a = &s->stage[0];
    *a = (hy_ooc_stage){.src = HY_STAGES_IN, .dst = HY_STAGES_OUT, .src_elem = in_elem,
                          .dst_elem = out_elem};
    snprintf(a->what, sizeof a->what, "the whole transform over %d outer batch dim%s",
             p->batch_rank - 1, p->batch_rank == 2 ? "" : "s");
    s->nstages = 1;
    st = hy_ooc_stage_make(plan, flags, &q, a);
    if (st != HYFFT_SUCCESS) {
      hy_ooc_stages_destroy(s);
      return st;
    }
    *out = s;
    return HYFFT_SUCCESS;
  }
  /* Rank r >= 4: dims 1..r-1 (the "rest", with dim 0 as a batch dim) and
   * dim 0 (the "first", with dims 1..r-1 as batch dims). */
  const int r = p->rank;
  const int c2r = p->kind == HYFFT_C2R;
  const hyfft_kind first_kind = p->kind == HYFFT_R2R ? HYFFT_R2R : HYFFT_C2C;
  /* The complex side of a real transform holds n/2 + 1 bins along the last
   * dim; the first stage's batch dims are those of the side it runs on. */
  hyfft_problem rest = hy_ooc_stage_problem(p, p->kind, p->sign);
  rest.rank = r - 1;
  for (int d = 1; d < r; d++) {
    rest.dims[d - 1] = p->dims[d];
    rest.r2r_kind[d - 1] = p->r2r[d];
  }
  hyfft_problem first = hy_ooc_stage_problem(p, first_kind, p->sign);
  first.rank = 1;
  first.r2r_kind[0] = p->r2r[0];
  /* On the complex input (C2R) or on the output (the others). */
  int on_in = c2r;
  int64_t s0 = on_in ? p->dims[0].in_stride : p->dims[0].out_stride;
  first.dims[0] = (hyfft_dim){p->dims[0].n, s0, s0};
  for (int d = 1; d < r; d++) {
    int64_t n = p->dims[d].n;
    if (d == r - 1 && p->kind != HYFFT_C2C && p->kind != HYFFT_R2R) n = n / 2 + 1;
    int64_t sd = on_in ? p->dims[d].in_stride : p->dims[d].out_stride;
    hy_ooc_stage_add_batch(&first, (hyfft_dim){n, sd, sd});
  }
  hy_ooc_stage_add_batch(&rest, (hyfft_dim){p->dims[0].n, p->dims[0].in_stride, p->dims[0].out_stride});
  for (int i = 0; i < p->batch_rank; i++) {
    hy_ooc_stage_add_batch(&rest, p->batch[i]);
    int64_t sb = on_in ? p->batch[i].in_stride : p->batch[i].out_stride;
    hy_ooc_stage_add_batch(&first, (hyfft_dim){p->batch[i].n, sb, sb});
  }
  hy_ooc_stage *fs, *rs;
  if (!c2r) {
    /* The rest from the input to the output, then the first in place on
     * the output; the scale with the last. */
    rs = &s->stage[0];
    fs = &s->stage[1];
    rest.inplace = p->inplace;
    rest.scale = 0;
    first.inplace = 1;
    first.scale = p->scale;
    *rs = (hy_ooc_stage){.src = HY_STAGES_IN, .dst = HY_STAGES_OUT, .src_elem = in_elem,
                           .dst_elem = out_elem};
    *fs = (hy_ooc_stage){.src = HY_STAGES_OUT, .dst = HY_STAGES_OUT, .src_elem = out_elem,
                           .dst_elem = out_elem};
  } else {
    /* C2R: the first (a backward C2C along dim 0) on the complex input,
     * in place there or into the scratch, then the C2R of the rest from
     * there to the output. */
    fs = &s->stage[0];
    rs = &s->stage[1];
    int keep = !p->inplace && !p->destroy_input;
    first.inplace = !keep;
    first.scale = 0;
    rest.inplace = p->inplace;
    rest.scale = p->scale;
    hy_ooc_stage_buf mid = keep ? HY_STAGES_SCRATCH : HY_STAGES_IN;
    if (keep) s->scratch_bytes = (size_t)p->in_extent * in_elem;
    *fs = (hy_ooc_stage){.src = HY_STAGES_IN, .dst = mid, .src_elem = in_elem,
                           .dst_elem = in_elem};
    *rs = (hy_ooc_stage){.src = mid, .dst = HY_STAGES_OUT, .src_elem = in_elem,
                           .dst_elem = out_elem};
    /* The rest may overwrite the scratch, which is the plan's own. */
    if (keep) flags |= HYFFT_DESTROY_INPUT;
  }
  snprintf(rs->what, sizeof rs->what, "the transform of dims 1..%d, dim 0 as a batch dim", r - 1);
  snprintf(fs->what, sizeof fs->what, "the %lld-point transforms of dim 0%s",
           (long long)p->dims[0].n, c2r ? " on the input" : " in place on the output");
  s->nstages = 2;
  st = hy_ooc_stage_make(plan, flags, c2r ? &first : &rest, &s->stage[0]);
  if (st == HYFFT_SUCCESS) st = hy_ooc_stage_make(plan, flags, c2r ? &rest : &first, &s->stage[1]);
  if (st != HYFFT_SUCCESS) {
    hy_ooc_stages_destroy(s);
    return st;
  }
  *out = s;
  return HYFFT_SUCCESS;
}

void hy_ooc_stages_describe(const hy_ooc_stages *s, int stage, hy_strbuf *sb) {
  const hy_ooc_stage *st = &s->stage[stage];
  static const char *const names[] = {"input", "output", "host scratch"};
  int64_t calls = 1;
  for (int i = 0; i < st->nloops; i++) calls *= st->loops[i].n;
  hy_strbuf_appendf(sb, "    stage %d: %s, %s -> %s, the plan below run %lld time%s (%d outer loop%s)\n",
                    stage + 1, st->what, names[st->src], names[st->dst], (long long)calls,
                    calls == 1 ? "" : "s", st->nloops, st->nloops == 1 ? "" : "s");
}

hy_status hy_ooc_stages_run(hy_ooc_stages *s, struct hyfft_plan_s *outer, const void *in, void *out) {
  char *scratch = NULL;
  if (s->scratch_bytes) {
    scratch = hy_malloc(s->scratch_bytes);
    if (!scratch)
      return hy_error(HYFFT_OUT_OF_MEMORY,
                      "out of core: no %zu bytes of host memory for the C2R scratch (the input "
                      "is kept; HYFFT_DESTROY_INPUT or in place needs none)",
                      s->scratch_bytes);
  }
  char *bufs[3] = {(char *)(uintptr_t)in, (char *)out, scratch};
  hy_status st = HYFFT_SUCCESS;
  for (int k = 0; k < s->nstages && st == HYFFT_SUCCESS; k++) {
    const hy_ooc_stage *sg = &s->stage[k];
    int64_t calls = 1;
    for (int i = 0; i < sg->nloops; i++) calls *= sg->loops[i].n;
    for (int64_t c = 0; c < calls && st == HYFFT_SUCCESS; c++) {
      /* Loop indices from the flat call number, the last loop fastest. */
      int64_t rem = c, so = 0, d_o = 0;
      for (int i = sg->nloops - 1; i >= 0; i--) {
        int64_t idx = rem % sg->loops[i].n;
        rem /= sg->loops[i].n;
        so += idx * sg->loops[i].in_stride;
        d_o += idx * sg->loops[i].out_stride;
      }
      hy_ooc_relay relay;
      hy_ooc_relay_set(sg->plan, &relay, outer, ((double)k + (double)c / (double)calls) / s->nstages,
                       1.0 / ((double)s->nstages * (double)calls));
      st = hy_exec_run(sg->plan, bufs[sg->src] + (size_t)so * sg->src_elem,
                       bufs[sg->dst] + (size_t)d_o * sg->dst_elem, NULL, NULL, 1);
    }
  }
  hy_free(scratch);
  return st;
}
