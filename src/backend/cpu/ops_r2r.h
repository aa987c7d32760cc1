/* The CPU implementation of the pointwise steps of real-to-real transforms
 * (HY_PASS_R2R_PRE, HY_PASS_R2R_POST; planner/plan.h, solvers/r2r.c). They
 * compute in double for both precisions and round once when they store. */
#ifndef HY_CPU_OPS_R2R_H
#define HY_CPU_OPS_R2R_H

#include "planner/plan.h"

/* 1 for the ops above. */
int hy_cpu_op_is_r2r(hy_pass_op op);

/* The twiddles a pass needs, built once when the plan is prepared (each
 * rounded once from long double to double, interleaved complex); NULL
 * (and success) for the kinds that need none. Free with hy_free. */
hy_status hy_cpu_op_r2r_table(const hy_pass *pass, double **table);

/* Run one such pass; src_base and dst_base are the buffers' starts, the
 * pass's offsets are applied here (in reals at the real end). */
hy_status hy_cpu_op_r2r(const hy_pass *pass, const double *table, const void *src_base,
                        void *dst_base);

#endif /* HY_CPU_OPS_R2R_H */
