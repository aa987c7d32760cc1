/* The CPU implementation of the pointwise steps of real transforms
 * (HY_PASS_WIDEN, HY_PASS_NARROW, HY_PASS_R2C_POST, HY_PASS_C2R_PRE,
 * HY_PASS_C2R_EXTEND; planner/plan.h). They compute in double for both
 * precisions and round once when they store. */
#ifndef HY_CPU_OPS_REAL_H
#define HY_CPU_OPS_REAL_H

#include "planner/plan.h"

/* 1 for the ops above. */
int hy_cpu_op_is_real(hy_pass_op op);

/* The table a pass needs, built once when the plan is prepared: for
 * R2C_POST and C2R_PRE the twiddles exp(sign*2*pi*i*k/n), k = 0..n/2,
 * each rounded once from long double to double, the n/2 + 1 real parts
 * and then the n/2 + 1 imaginary parts; NULL (and success) for the
 * others. Free with hy_free. */
hy_status hy_cpu_op_real_table(const hy_pass *pass, double **table);

/* Run one such pass. src_base and dst_base are the buffers' starts; the
 * pass's offsets are applied here, in reals at a real end and in complex
 * elements at a complex end. */
hy_status hy_cpu_op_real(const hy_pass *pass, const double *table, const void *src_base,
                         void *dst_base);

#endif /* HY_CPU_OPS_REAL_H */
