/* The cost model: bytes moved, arithmetic and launches (DESIGN section 4,
 * rule 1). Only comparisons between candidates on one device matter. */
#include <math.h>

#include "planner/planner.h"

static double hy_cost_pass(const hy_pass *pass, const hy_problem *problem,
                           const hy_device_caps *caps) {
  double count = (double)hy_pass_count(pass);
  double n = (double)pass->axis.n;
  double elem = problem->precision == HYFFT_F64 ? 16.0 : 8.0;
  double bytes = 2.0 * count * n * elem;
  double flops;
  if (pass->op == HY_PASS_COPY) {
    flops = count;
  } else if (pass->algo == HY_ALGO_BLUESTEIN) {
    double m = (double)pass->bluestein_m;
    flops = count * (2.0 * 5.0 * m * log2(m) + 6.0 * m + 12.0 * n);
    if (caps->backend != HYFFT_BACKEND_CPU) bytes *= 2.0; /* chirp and its spectrum */
  } else {
    flops = count * 5.0 * n * log2(n > 1 ? n : 2);
  }
  return bytes / caps->bandwidth + flops / caps->flop_rate + caps->launch_overhead;
}

double hy_cost_tree(const hy_plan_tree *tree, const hy_problem *problem,
                    const hy_device_caps *caps) {
  double cost = 0;
  for (int i = 0; i < tree->npasses; i++) cost += hy_cost_pass(&tree->passes[i], problem, caps);
  return cost;
}
