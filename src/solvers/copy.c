/* Rank 0 (every transform length is 1): the DFT is the identity, so the
 * plan is one scaled copy over the batch. */
#include "planner/planner.h"

static hy_status hy_copy_plan(const hy_problem *problem, const hy_device_caps *caps,
                              hy_plan_tree *out) {
  (void)caps;
  if (problem->rank != 0 || problem->kind != HYFFT_C2C) return HYFFT_NO_SOLVER;
  hy_pass *pass = &out->passes[0];
  hy_pass_init(pass, HY_PASS_COPY, problem->precision, problem->sign);
  pass->src = HY_BUF_IN;
  pass->dst = HY_BUF_OUT;
  pass->axis = (hyfft_dim){1, 1, 1};
  pass->nloops = problem->batch_rank;
  for (int i = 0; i < problem->batch_rank; i++) pass->loops[i] = problem->batch[i];
  pass->scale = problem->scale;
  out->npasses = 1;
  return HYFFT_SUCCESS;
}

const hy_solver hy_solver_copy = {"copy", hy_copy_plan};
