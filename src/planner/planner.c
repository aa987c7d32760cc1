/* Ask every registered solver for a plan and keep the cheapest. */
#include <math.h>
#include <string.h>

#include "planner/planner.h"

hy_status hy_planner_plan(const hy_problem *problem, const hy_device_caps *caps,
                          unsigned flags, hy_plan_tree *out) {
  (void)flags; /* HYFFT_MEASURE: candidates are ranked by the model until the tuner lands */
  static _Thread_local hy_plan_tree candidate;
  hy_plan_tree best;
  int have_best = 0;
  for (int i = 0; hy_solvers[i]; i++) {
    memset(&candidate, 0, sizeof candidate);
    hy_status st = hy_solvers[i]->plan(problem, caps, &candidate);
    if (st == HYFFT_NO_SOLVER) continue;
    if (st != HYFFT_SUCCESS) return st;
    candidate.solver = hy_solvers[i]->name;
    candidate.cost = hy_cost_tree(&candidate, problem, caps);
    if (!have_best || candidate.cost < best.cost) {
      best = candidate;
      have_best = 1;
    }
  }
  hy_error_clear();
  if (!have_best)
    return hy_error(HYFFT_NO_SOLVER, "no solver can plan this problem on this device");
  *out = best;
  return HYFFT_SUCCESS;
}
