/* Batched CPU plans chunk by chunk of the outer batch dim
 * (exec/batch_chunks.h). */
#include <stdlib.h>

#include "exec/batch_chunks.h"
#include "exec/exec.h"
#include "exec/hybrid.h"
#include "util/settings.h"

struct hy_chunks {
  int64_t n, per, count;          /* entries, entries per chunk, chunks */
  size_t in_step, out_step;       /* bytes between the first entries of two chunks */
  size_t budget, entry_bytes;     /* cache bytes a chunk may take; one entry's in + out */
  struct hyfft_plan_s *full;      /* the plan of `per` entries */
  struct hyfft_plan_s *tail;      /* the last chunk's, when shorter; else NULL */
};

/* Bytes of one batch entry's input plus output (logical elements). */
static size_t hy_chunks_entry_bytes(const hy_problem *p) {
  int64_t in = 1, out = 1;
  for (int d = 0; d < p->rank; d++) {
    int64_t n_in = p->dims[d].n, n_out = p->dims[d].n;
    if (d == p->rank - 1 && p->kind == HYFFT_R2C) n_out = n_out / 2 + 1;
    if (d == p->rank - 1 && p->kind == HYFFT_C2R) n_in = n_in / 2 + 1;
    in *= n_in;
    out *= n_out;
  }
  return (size_t)in * hy_problem_in_elem_size(p) + (size_t)out * hy_problem_out_elem_size(p);
}

static hy_status hy_chunks_sub(struct hyfft_plan_s *plan, int64_t count, unsigned flags,
                               struct hyfft_plan_s **out) {
  hyfft_problem u;
  hy_hybrid_side_problem(&plan->problem, count, &u);
  return hy_exec_plan_create(plan->context, &u, flags | HY_PLAN_CHUNK, NULL, out);
}

hy_status hy_chunks_create(struct hyfft_plan_s *plan, unsigned flags) {
  const struct hyfft_context_s *ctx = plan->context;
  const hy_problem *p = &plan->problem;
  plan->chunks = NULL;
  const hy_settings *set = hy_settings_get();
  size_t budget = set->cpu_chunk_bytes > 0 ? (size_t)set->cpu_chunk_bytes
                                           : (size_t)(ctx->caps.last_level_cache / 4);
  if (ctx->backend->id != HYFFT_BACKEND_CPU || (flags & HY_PLAN_CHUNK) || set->cpu_chunks_off ||
      budget == 0 || !hy_hybrid_splittable(p))
    return HYFFT_SUCCESS;
  size_t entry = hy_chunks_entry_bytes(p);
  int64_t n = p->batch[0].n, per = entry > 0 ? (int64_t)(budget / entry) : 0;
  int64_t least = 2 * (int64_t)hy_num_threads();
  if (per < least || 2 * per > n) return HYFFT_SUCCESS;
  /* Equal chunks but the last, and as few as the budget allows. */
  int64_t count = (n + per - 1) / per;
  per = (n + count - 1) / count;
  struct hyfft_plan_s *full = NULL, *tail = NULL;
  HY_TRY(hy_chunks_sub(plan, per, flags, &full));
  /* One pass streams the batch once anyway: nothing to gain. */
  if (full->tree.npasses < 2) {
    hy_exec_plan_destroy(full);
    return HYFFT_SUCCESS;
  }
  int64_t last = n - (count - 1) * per;
  hy_status st = last != per ? hy_chunks_sub(plan, last, flags, &tail) : HYFFT_SUCCESS;
  struct hy_chunks *c = st == HYFFT_SUCCESS ? hy_calloc(1, sizeof *c) : NULL;
  if (st == HYFFT_SUCCESS && !c) st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a chunked plan");
  if (st != HYFFT_SUCCESS) {
    if (tail) hy_exec_plan_destroy(tail);
    hy_exec_plan_destroy(full);
    return st;
  }
  c->n = n;
  c->per = per;
  c->count = count;
  c->in_step = (size_t)(per * p->batch[0].in_stride) * hy_problem_in_elem_size(p);
  c->out_step = (size_t)(per * p->batch[0].out_stride) * hy_problem_out_elem_size(p);
  c->budget = budget;
  c->entry_bytes = entry;
  c->full = full;
  c->tail = tail;
  plan->chunks = c;
  return HYFFT_SUCCESS;
}

void hy_chunks_destroy(struct hyfft_plan_s *plan) {
  struct hy_chunks *c = plan->chunks;
  if (!c) return;
  if (c->tail) hy_exec_plan_destroy(c->tail);
  hy_exec_plan_destroy(c->full);
  free(c);
  plan->chunks = NULL;
}

hy_status hy_chunks_run(struct hyfft_plan_s *plan, const void *in, void *out) {
  const struct hy_chunks *c = plan->chunks;
  const char *src = in;
  char *dst = out;
  for (int64_t k = 0; k < c->count; k++) {
    struct hyfft_plan_s *sub = k == c->count - 1 && c->tail ? c->tail : c->full;
    HY_TRY(hy_exec_run(sub, src + (size_t)k * c->in_step, dst + (size_t)k * c->out_step, NULL,
                       NULL, 1));
    if (k + 1 < c->count) hy_exec_progress(plan, (double)(k + 1) / (double)c->count);
  }
  return HYFFT_SUCCESS;
}

void hy_chunks_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_chunks *c = plan->chunks;
  hy_strbuf_appendf(sb,
                    "  batch chunks: %lld entries in %lld chunks of %lld (last %lld); a chunk "
                    "moves %zu bytes, within a budget of %zu (%s)\n",
                    (long long)c->n, (long long)c->count, (long long)c->per,
                    (long long)(c->n - (c->count - 1) * c->per), (size_t)c->per * c->entry_bytes,
                    c->budget, hy_settings_get()->cpu_chunk_bytes > 0
                                   ? "HYFFT_CPU_CHUNKS"
                                   : "a quarter of the last-level cache");
  hy_strbuf_append(sb, "  chunk plan:\n");
  hy_plan_tree_describe(&c->full->tree, sb);
}

hy_status hy_chunks_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hyfft_plan_s *full = plan->chunks->full;
  return full->context->backend->plan_source(full->context->device, full->backend_state, sb);
}

int64_t hy_chunks_per(const struct hyfft_plan_s *plan) {
  return plan->chunks ? plan->chunks->per : 0;
}
