/* Plans below the public API: creation from a user description (tree
 * chosen or given), destruction, and waiting for background compiles.
 * api/plan.c, the measuring planner (exec/choose.c), staging
 * (exec/staging.c) and out-of-core plans (exec/out_of_core.c) all build
 * plans through these. */
#include <stdlib.h>
#include <string.h>

#include "exec/choose.h"
#include "exec/exec.h"
#include "exec/hybrid.h"
#include "exec/batch_chunks.h"
#include "exec/conv.h"
#include "exec/multi_device.h"
#include "exec/out_of_core.h"
#include "exec/staging.h"
#include "planner/planner.h"
#include "util/half.h"

void hy_context_release(struct hyfft_context_s *context) {
  if (atomic_fetch_sub(&context->refs, 1) != 1) return;
  /* A multi-device context borrows its first sub-context's device. */
  hy_context_work_release(context);
  for (int i = 0; i < context->n_sub; i++) hy_context_release(context->sub[i]);
  if (context->sub) free(context->sub);
  else context->backend->close(context->device);
  free(context);
}

/* The quick first tier of a chosen tree: when the context's backend tiers
 * plans (plan_tiers) and the planner has a quick tree for `tree`
 * (hy_planner_quick_tree: a tree with a plane pass), *quick is that tree
 * and 1 is returned, else 0. */
static int hy_exec_plan_quick(struct hyfft_context_s *ctx, const hy_problem *problem,
                              const hy_plan_tree *tree, hy_plan_tree *quick) {
  const hy_backend *b = ctx->backend;
  if (!b->plan_tiers || !b->plan_tiers(ctx->device)) return 0;
  return hy_planner_quick_tree(problem, tree, &ctx->caps, quick);
}

hy_status hy_exec_plan_prepare(struct hyfft_context_s *context, const hy_problem *problem,
                               unsigned flags, const hy_plan_tree *fixed, hy_plan_tree *tree,
                               hy_plan_tree *quick, int *has_quick, void **state) {
  hy_plan_tree own_quick;
  int own_has = 0;
  if (!quick || !has_quick) {
    quick = &own_quick;
    has_quick = &own_has;
  }
  if (fixed)
    *tree = *fixed;
  else
    HY_TRY(hy_exec_choose(context, problem, flags, tree));
  *has_quick = hy_exec_plan_quick(context, problem, tree, quick);
  HY_TRY(context->backend->plan_prepare(context->device, problem, tree,
                                        *has_quick ? quick : NULL, state));
  hy_exec_fit_workspace(context->backend, context->device, *state, tree);
  return HYFFT_SUCCESS;
}

static hy_status hy_exec_plan_create_full(struct hyfft_context_s *context,
                                          const hyfft_problem *problem, unsigned flags,
                                          const hy_plan_tree *tree, const hyfft_callbacks *cb,
                                          struct hyfft_plan_s **plan);

static int hy_exec_has_callbacks(const hyfft_callbacks *cb) {
  return cb && (cb->load_source || cb->store_source || cb->load_fn || cb->store_fn);
}

static void hy_exec_free_callbacks(struct hyfft_plan_s *p) {
  for (int i = 0; i < 2; i++) {
    hy_free(p->cb_source[i]);
    p->cb_source[i] = NULL;
  }
}

/* Take the callbacks into the plan: checks what this context and problem
 * support, copies the source texts and points the problem at them (so
 * that the generator fuses them into the kernels), keeps the functions
 * and user pointers. */
static hy_status hy_exec_take_callbacks(struct hyfft_context_s *context, struct hyfft_plan_s *p,
                                        const hyfft_callbacks *cb) {
  if (cb->load_source && cb->load_fn)
    return hy_error(HYFFT_INVALID_ARGUMENT, "callbacks: both load_source and load_fn are given");
  if (cb->store_source && cb->store_fn)
    return hy_error(HYFFT_INVALID_ARGUMENT, "callbacks: both store_source and store_fn are given");
  int cpu = context->backend->id == HYFFT_BACKEND_CPU;
  if (cpu && (cb->load_source || cb->store_source))
    return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: the CPU backend runs no generated kernels; "
                    "it takes C functions (load_fn, store_fn), not source text");
  if (!cpu && (cb->load_fn || cb->store_fn))
    return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: the %s backend compiles callbacks into its "
                    "kernels and takes source text (load_source, store_source), not C functions",
                    context->backend->name);
  const hy_problem *q = &p->problem;
  if (q->kind == HYFFT_R2R)
    return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: R2R transforms do not take callbacks yet "
                    "(C2C, R2C and C2R do)");
  if (hy_precision_is_half(q->storage))
    return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: %s storage does not take callbacks "
                    "(f32 and f64 only)", q->storage == HYFFT_F16 ? "f16" : "bf16");
  for (int d = 0; d < q->rank + q->batch_rank; d++) {
    const hyfft_dim *dim = d < q->rank ? &q->dims[d] : &q->batch[d - q->rank];
    if (dim->in_stride < 0 || dim->out_stride < 0)
      return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: a negative stride (the callbacks' index "
                      "is an offset from the buffer's start)");
  }
  const char *text[2] = {cb->load_source, cb->store_source};
  for (int i = 0; i < 2; i++) {
    if (!text[i]) continue;
    size_t len = strlen(text[i]);
    p->cb_source[i] = hy_malloc(len + 1);
    if (!p->cb_source[i]) {
      hy_exec_free_callbacks(p);
      return hy_error(HYFFT_OUT_OF_MEMORY, "callbacks: cannot copy a %zu-byte source", len);
    }
    memcpy(p->cb_source[i], text[i], len + 1);
  }
  p->problem.load_cb = p->cb_source[0];
  p->problem.store_cb = p->cb_source[1];
  p->load_fn = cb->load_fn;
  p->store_fn = cb->store_fn;
  p->cb_user[0] = cb->load_user;
  p->cb_user[1] = cb->store_user;
  return HYFFT_SUCCESS;
}

hy_status hy_exec_plan_create(struct hyfft_context_s *context, const hyfft_problem *problem,
                              unsigned flags, const hy_plan_tree *tree,
                              struct hyfft_plan_s **plan) {
  return hy_exec_plan_create_full(context, problem, flags, tree, NULL, plan);
}

hy_status hy_exec_plan_create_cb(struct hyfft_context_s *context, const hyfft_problem *problem,
                                 unsigned flags, const hyfft_callbacks *callbacks,
                                 struct hyfft_plan_s **plan) {
  return hy_exec_plan_create_full(context, problem, flags, NULL, callbacks, plan);
}

static hy_status hy_exec_plan_create_full(struct hyfft_context_s *context,
                                          const hyfft_problem *problem, unsigned flags,
                                          const hy_plan_tree *tree, const hyfft_callbacks *cb,
                                          struct hyfft_plan_s **plan) {
  struct hyfft_plan_s *p = hy_calloc(1, sizeof *p);
  if (!p) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a plan");
  hy_status st = hy_problem_make(problem, &p->problem);
  int with_cb = hy_exec_has_callbacks(cb);
  if (st == HYFFT_SUCCESS && with_cb) st = hy_exec_take_callbacks(context, p, cb);
  if (st == HYFFT_SUCCESS && (flags & HYFFT_DESTROY_INPUT) && !p->problem.inplace)
    p->problem.destroy_input = 1;
  if (st == HYFFT_SUCCESS && p->problem.precision == HYFFT_F64 && !context->caps.supports_f64)
    st = hy_error(HYFFT_NOT_SUPPORTED, "device '%s' has no double precision", context->info.name);
  if (st == HYFFT_SUCCESS && hy_precision_is_half(p->problem.storage) &&
      !context->caps.supports_half)
    st = hy_error(HYFFT_NOT_SUPPORTED, "the %s backend does not store %s data yet",
                  context->backend->name, p->problem.storage == HYFFT_F16 ? "f16" : "bf16");
  p->context = context;
  /* A problem on a multi-device context becomes one sub-plan per device
   * (exec/multi_device.c); a batched host problem with a CPU share a GPU
   * side and a CPU side (exec/hybrid.c); otherwise one over the device
   * memory budget two sweeps of sub-plans (exec/out_of_core.c). None has a
   * tree of its own. */
  if (st == HYFFT_SUCCESS && !tree) st = hy_multi_create(p, flags);
  /* A CPU share would run the callbacks' source on the CPU: callback
   * plans run on the device alone (HYFFT_HYBRID and HYFFT_CPU_SHARE are
   * ignored, as when the model gives the CPU nothing). */
  if (st == HYFFT_SUCCESS && !tree && !p->multi && !with_cb) st = hy_hybrid_create(p, flags);
  if (st == HYFFT_SUCCESS && !tree && !p->multi && !p->hybrid) st = hy_ooc_create(p, flags);
  /* Callbacks index the caller's whole buffers; the sub-plans of these
   * see pieces of them. */
  if (st == HYFFT_SUCCESS && with_cb && (p->ooc || p->hybrid || p->multi)) {
    st = hy_error(HYFFT_NOT_SUPPORTED, "callbacks: a %s plan runs sub-plans over parts of the "
                  "data and does not take callbacks", p->multi ? "multi-device" : "out-of-core");
    hy_multi_destroy(p);
    hy_hybrid_destroy(p);
    hy_ooc_destroy(p);
    p->multi = NULL;
    p->hybrid = NULL;
    p->ooc = NULL;
  }
  /* Batched CPU plans chunk by chunk of the batch (not with callbacks,
   * whose indices are the caller's whole buffers). */
  if (st == HYFFT_SUCCESS && !tree && !p->multi && !p->hybrid && !p->ooc && !with_cb)
    st = hy_chunks_create(p, flags);
  if (st == HYFFT_SUCCESS && (p->ooc || p->hybrid || p->multi || p->chunks)) {
    pthread_mutex_init(&p->work_lock, NULL);
    atomic_fetch_add(&context->refs, 1);
    *plan = p;
    return HYFFT_SUCCESS;
  }
  if (st == HYFFT_SUCCESS)
    st = hy_exec_plan_prepare(context, &p->problem, flags, tree, &p->tree, &p->quick,
                              &p->has_quick, &p->backend_state);
  /* Real transforms on a GPU place every DFT longer than one pass as a
   * four-step split or a Bluestein chain (solvers/real.c), so this is a
   * refusal no problem of unit.plan_sweep meets: named, should one ever. */
  if (st == HYFFT_NO_SOLVER && (p->problem.kind == HYFFT_R2C || p->problem.kind == HYFFT_C2R) &&
      context->caps.backend != HYFFT_BACKEND_CPU)
    st = hy_error(HYFFT_NOT_SUPPORTED,
                  "R2C/C2R on the %s backend: this problem needs a DFT longer than one pass "
                  "(%lld points) that the planner cannot place in its buffers; the same "
                  "transform in place, or with HYFFT_DESTROY_INPUT, may plan",
                  context->backend->name,
                  (long long)context->caps.max_pass_length[p->problem.precision]);
  /* R2R's DFTs work in the workspace; the solver places every split and
   * Bluestein chain there (solvers/r2r.c), so this is a refusal no
   * problem of unit.plan_sweep meets: named, should one ever. */
  if (st == HYFFT_NO_SOLVER && p->problem.kind == HYFFT_R2R &&
      context->caps.backend != HYFFT_BACKEND_CPU)
    st = hy_error(HYFFT_NOT_SUPPORTED,
                  "R2R on the %s backend: an axis needs a complex DFT longer than one pass "
                  "(%lld points) with a prime factor the planner cannot split in the "
                  "workspace yet",
                  context->backend->name,
                  (long long)context->caps.max_pass_length[p->problem.precision]);
  if (st != HYFFT_SUCCESS) {
    hy_exec_free_callbacks(p);
    free(p);
    return st;
  }
  p->context = context;
  pthread_mutex_init(&p->work_lock, NULL);
  /* A workspace over a user's device memory limit: a host plan that fits
   * went out of core above (hy_ooc_create counts the tree's workspace
   * under a user limit), so this is a device-data plan or one the
   * out-of-core path cannot take. */
  st = hy_exec_check_budget(context, hy_exec_workspace_bytes(p));
  /* GPU contexts share one work area among their plans (exec/exec.c);
   * CPU plans and those asked to keep their own allocate it here. */
  p->work_shared = context->backend->id != HYFFT_BACKEND_CPU &&
                   !(flags & (HYFFT_OWN_WORKSPACE | HY_PLAN_OWN_WORK));
  size_t elem = p->problem.precision == HYFFT_F64 ? 16 : 8;
  for (int w = 0; w < 2 && st == HYFFT_SUCCESS && !p->work_shared; w++) {
    if (p->tree.work_elems[w] > 0)
      st = context->backend->alloc(context->device, (size_t)p->tree.work_elems[w] * elem, &p->work[w]);
  }
  /* The chunked stage runs the kernels on pieces of the buffers, where a
   * callback's index would be the piece's; callback plans copy host data
   * whole instead (hy_exec_staged). */
  if (st == HYFFT_SUCCESS && !with_cb) st = hy_stage_create(p, flags);
  if (st != HYFFT_SUCCESS) {
    hy_stage_destroy(p);
    for (int w = 0; w < 2; w++)
      if (p->work[w]) context->backend->release(context->device, p->work[w]);
    context->backend->plan_release(context->device, p->backend_state);
    pthread_mutex_destroy(&p->work_lock);
    hy_exec_free_callbacks(p);
    free(p);
    return st;
  }
  atomic_fetch_add(&context->refs, 1);
  *plan = p;
  return HYFFT_SUCCESS;
}

void hy_exec_plan_destroy(struct hyfft_plan_s *plan) {
  const hy_backend *b = plan->context->backend;
  if (plan->ooc || plan->hybrid || plan->multi || plan->chunks || plan->conv) {
    hy_conv_destroy(plan);
    hy_chunks_destroy(plan);
    hy_multi_destroy(plan);
    hy_hybrid_destroy(plan);
    hy_ooc_destroy(plan);
    pthread_mutex_destroy(&plan->work_lock);
    hy_context_release(plan->context);
    free(plan);
    return;
  }
  hy_stage_destroy(plan);
  hy_work_order_drain(plan->context, &plan->work_order);
  for (int w = 0; w < 2; w++)
    if (plan->work[w]) b->release(plan->context->device, plan->work[w]);
  b->plan_release(plan->context->device, plan->backend_state);
  pthread_mutex_destroy(&plan->work_lock);
  hy_exec_free_callbacks(plan);
  hy_context_release(plan->context);
  free(plan);
}

hy_status hy_exec_plan_wait(struct hyfft_plan_s *plan) {
  const hy_backend *b = plan->context->backend;
  if (plan->conv) return hy_conv_wait(plan);
  if (plan->multi) return hy_multi_wait(plan);
  if (plan->chunks) return HYFFT_SUCCESS;
  if (plan->hybrid) return hy_hybrid_wait(plan);
  if (plan->ooc) return hy_ooc_wait(plan);
  if (b->plan_wait) HY_TRY(b->plan_wait(plan->context->device, plan->backend_state));
  return hy_stage_wait(plan);
}
