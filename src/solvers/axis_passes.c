/* One pass per transform axis (row-column), last axis first. Each pass is a
 * batched 1D DFT whose loops are the batch dims and the other transform
 * axes. The first pass reads the input and writes the output; later passes
 * work in place on the output. Applies when every axis fits in one pass on
 * the device (always on the CPU). */
#include "planner/planner.h"

static hy_status hy_axis_passes_plan(const hy_problem *problem, const hy_device_caps *caps,
                                     hy_plan_tree *out) {
  if (problem->rank == 0 || problem->kind != HYFFT_C2C) return HYFFT_NO_SOLVER;
  int64_t limit = caps->max_pass_length[problem->precision];
  out->npasses = 0;
  for (int step = 0; step < problem->rank; step++) {
    int axis = problem->rank - 1 - step;
    hy_pass *pass = &out->passes[out->npasses++];
    hy_pass_init(pass, HY_PASS_DFT, problem->precision, problem->sign);
    pass->src = step == 0 ? HY_BUF_IN : HY_BUF_OUT;
    pass->dst = HY_BUF_OUT;
    pass->axis = problem->dims[axis];
    if (step > 0) pass->axis.in_stride = pass->axis.out_stride;
    HY_TRY(hy_choose_dft_algo(pass->axis.n, pass));
    int64_t on_chip = pass->algo == HY_ALGO_BLUESTEIN ? pass->bluestein_m : pass->axis.n;
    if (on_chip > limit) return HYFFT_NO_SOLVER;
    for (int b = 0; b < problem->batch_rank; b++) {
      hyfft_dim d = problem->batch[b];
      if (step > 0) d.in_stride = d.out_stride;
      pass->loops[pass->nloops++] = d;
    }
    for (int d = 0; d < problem->rank; d++) {
      if (d == axis) continue;
      hyfft_dim dim = problem->dims[d];
      if (step > 0) dim.in_stride = dim.out_stride;
      pass->loops[pass->nloops++] = dim;
    }
  }
  out->passes[out->npasses - 1].scale = problem->scale;
  return HYFFT_SUCCESS;
}

const hy_solver hy_solver_axis_passes = {"axis-passes", hy_axis_passes_plan};
