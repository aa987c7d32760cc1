/* Ask every registered solver for a plan; rank the candidates by the cost
 * model. The measuring planner (api/tune.c) times the best few. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/planner.h"
#include "planner/kernel_model.h"
#include "planner/kernel_spec.h"

hy_status hy_planner_candidates(const hy_problem *problem, const hy_device_caps *caps,
                                hy_plan_tree *out, int max, int *count) {
  *count = 0;
  if (max < 1) return hy_error(HYFFT_INTERNAL, "planner: room for %d candidates", max);
  hy_plan_tree *candidate = hy_malloc(sizeof *candidate);
  if (!candidate) return hy_error(HYFFT_OUT_OF_MEMORY, "planner: cannot allocate a candidate");
  hy_status st = HYFFT_SUCCESS;
  int n = 0;
  for (int i = 0; hy_solvers[i]; i++) {
    memset(candidate, 0, sizeof *candidate);
    st = hy_solvers[i]->plan(problem, caps, candidate);
    if (st == HYFFT_NO_SOLVER) {
      st = HYFFT_SUCCESS;
      continue;
    }
    if (st != HYFFT_SUCCESS) break;
    candidate->solver = hy_solvers[i]->name;
    if (caps->backend != HYFFT_BACKEND_CPU) hy_plan_tree_reserve_sync(candidate);
    candidate->cost = hy_cost_tree(candidate, problem, caps);
    st = hy_planner_finalize(problem, caps, candidate);
    if (st != HYFFT_SUCCESS) break;
    /* Insertion into the sorted list; ties keep registry order, so the
     * first entry is what the model alone would choose. */
    int at = n;
    while (at > 0 && candidate->cost < out[at - 1].cost) at--;
    if (at >= max) continue;
    int last = n < max ? n : max - 1;
    for (int j = last; j > at; j--) out[j] = out[j - 1];
    out[at] = *candidate;
    if (n < max) n++;
  }
  free(candidate);
  if (st != HYFFT_SUCCESS) return st;
  hy_error_clear();
  if (n == 0) return hy_error(HYFFT_NO_SOLVER, "no solver can plan this problem on this device");
  *count = n;
  return HYFFT_SUCCESS;
}

hy_status hy_planner_plan(const hy_problem *problem, const hy_device_caps *caps,
                          unsigned flags, hy_plan_tree *out) {
  (void)flags; /* measuring lives in api/tune.c, which needs a context */
  int n = 0;
  return hy_planner_candidates(problem, caps, out, 1, &n);
}

/* The named solver's tree with its cost, not finalised; HYFFT_NO_SOLVER
 * (no message) when it is unknown or does not apply. */
static hy_status hy_planner_solver_tree(const hy_problem *problem, const hy_device_caps *caps,
                                        const char *solver, hy_plan_tree *out) {
  for (int i = 0; hy_solvers[i]; i++) {
    if (strcmp(hy_solvers[i]->name, solver) != 0) continue;
    memset(out, 0, sizeof *out);
    hy_status st = hy_solvers[i]->plan(problem, caps, out);
    if (st == HYFFT_NO_SOLVER) break;
    HY_TRY(st);
    out->solver = hy_solvers[i]->name;
    if (caps->backend != HYFFT_BACKEND_CPU) hy_plan_tree_reserve_sync(out);
    out->cost = hy_cost_tree(out, problem, caps);
    return HYFFT_SUCCESS;
  }
  hy_error_clear();
  return HYFFT_NO_SOLVER;
}

hy_status hy_planner_plan_solver(const hy_problem *problem, const hy_device_caps *caps,
                                 const char *solver, hy_plan_tree *out) {
  HY_TRY(hy_planner_solver_tree(problem, caps, solver, out));
  return hy_planner_finalize(problem, caps, out);
}

hy_status hy_planner_set_variant(const hy_problem *problem, const hy_device_caps *caps,
                                 hy_plan_tree *tree, const char *spec) {
  if (!spec) spec = "";
  HY_TRY(hy_kernel_spec_check(spec));
  /* The solver's tree afresh: the variant may undo a choice the model
   * made for the last one (rader=0 after the model's Rader). */
  if (tree->solver) {
    hy_plan_tree fresh;
    hy_status st = hy_planner_solver_tree(problem, caps, tree->solver, &fresh);
    if (st == HYFFT_NO_SOLVER)
      return hy_error(HYFFT_INTERNAL, "planner: solver %s no longer plans this problem",
                      tree->solver);
    HY_TRY(st);
    *tree = fresh;
  }
  snprintf(tree->kernel_spec, sizeof tree->kernel_spec, "%s", spec);
  for (int i = 0; i < tree->npasses; i++)
    if (tree->passes[i].op == HY_PASS_DFT)
      snprintf(tree->passes[i].kernel_spec, sizeof tree->passes[i].kernel_spec, "%s", spec);
  return hy_planner_finalize(problem, caps, tree);
}

int hy_planner_quick_tree(const hy_problem *problem, const hy_plan_tree *tree,
                          const hy_device_caps *caps, hy_plan_tree *out) {
  if (!hy_plan_tree_has_plane(tree) || !tree->solver) return 0;
  hy_device_caps quick = *caps;
  quick.no_planes = 1;
  if (hy_planner_plan_solver(problem, &quick, tree->solver, out) != HYFFT_SUCCESS) {
    hy_error_clear();
    return 0;
  }
  int64_t data = out->sync_ints > 0 ? out->sync_offset : out->work_elems[0];
  int64_t have = tree->sync_ints > 0 ? tree->sync_offset : tree->work_elems[0];
  return data <= have && out->work_elems[1] <= tree->work_elems[1];
}

int hy_planner_solver_known(const char *name) {
  for (int i = 0; hy_solvers[i]; i++)
    if (strcmp(hy_solvers[i]->name, name) == 0) return 1;
  return 0;
}

hy_status hy_planner_append_twiddle(hy_plan_tree *tree, hyfft_precision precision, int sign,
                                    int64_t n, hy_buffer buffer, hyfft_dim axis, hyfft_dim loop,
                                    int64_t base_at) {
  if (tree->npasses < 1 || tree->npasses >= HY_MAX_PASSES || axis.n < 1 || n % axis.n != 0)
    return hy_error(HYFFT_NO_SOLVER, "planner: no room for a twiddle pass of %lld points (N=%lld)",
                    (long long)axis.n, (long long)n);
  hy_pass *last = &tree->passes[tree->npasses - 1];
  hy_pass *pass = &tree->passes[tree->npasses++];
  hy_pass_init(pass, HY_PASS_TWIDDLE, precision, sign);
  pass->src = pass->dst = buffer;
  pass->axis = axis;
  pass->nloops = 1;
  pass->loops[0] = loop;
  pass->twiddle_loop = 0;
  pass->twiddle_n = n;
  pass->aux_offset = base_at;
  pass->scale = last->scale;
  last->scale = 1.0;
  /* The passes run one after the other over the whole piece: no L2
   * chunks, no persistent chain (whose passes overlap in time), so that
   * a chain that reads its input before it writes its output may share
   * one buffer for both (hy_plan_tree_in_out_may_alias). */
  tree->l2_chunk_bytes = 0;
  tree->sync_offset = tree->sync_ints = 0;
  return HYFFT_SUCCESS;
}
