/* The list of solvers the planner consults. Add a solver here and in its
 * own file. */
#include "planner/planner.h"

extern const hy_solver hy_solver_copy;
extern const hy_solver hy_solver_axis_passes;
extern const hy_solver hy_solver_four_step;
extern const hy_solver hy_solver_real;
extern const hy_solver hy_solver_r2r;

const hy_solver *const hy_solvers[] = {
    &hy_solver_copy,
    &hy_solver_axis_passes,
    &hy_solver_four_step,
    &hy_solver_real,
    &hy_solver_r2r,
    NULL,
};
