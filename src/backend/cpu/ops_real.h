/* The CPU implementation of the pointwise steps of real transforms
 * (HY_PASS_WIDEN, HY_PASS_NARROW, HY_PASS_R2C_POST, HY_PASS_C2R_PRE,
 * HY_PASS_C2R_EXTEND; planner/plan.h). The passes compute in double for
 * both precisions and round once when they store; the step of one
 * single-precision transform of unit strides (hy_cpu_op_real_one)
 * computes in float, as the DFT beside it does. */
#ifndef HY_CPU_OPS_REAL_H
#define HY_CPU_OPS_REAL_H

#include "planner/plan.h"

/* 1 for the ops above. */
int hy_cpu_op_is_real(hy_pass_op op);

/* The table a pass needs, built once when the plan is prepared: for
 * R2C_POST and C2R_PRE the twiddles exp(sign*2*pi*i*k/n), k = 0..n/2,
 * each rounded once from long double to double, the n/2 + 1 real parts
 * and then the n/2 + 1 imaginary parts, followed by the same twiddles
 * rounded from those to float, interleaved (re, im); NULL (and success)
 * for the others. Free with hy_free. */
hy_status hy_cpu_op_real_table(const hy_pass *pass, double **table);

/* Run one such pass. src_base and dst_base are the buffers' starts; the
 * pass's offsets are applied here, in reals at a real end and in complex
 * elements at a complex end. */
hy_status hy_cpu_op_real(const hy_pass *pass, const double *table, const void *src_base,
                         void *dst_base);

/* The R2C_POST (post = 1) or C2R_PRE step of one transform along an
 * axis of m + 1 complex points, as hy_cpu_op_real runs it: src and dst at
 * the transform's element 0, strides is and os, `table` as
 * hy_cpu_op_real_table makes it, times scale. The CPU engine's four-step
 * nodes call it per transform, next to that transform's DFT, while its
 * data are in cache (hy_cpu_run.real_step); inside a parallel loop it
 * runs on the calling thread. In single precision with unit strides
 * (in place, or src and dst apart) it computes in float from the
 * table's float twiddles, one complex product per pair, four pairs per
 * vector; otherwise as the pass does. */
hy_status hy_cpu_op_real_one(int post, hyfft_precision precision, const double *table, int64_t m,
                             const void *src, int64_t is, void *dst, int64_t os, double scale);

#endif /* HY_CPU_OPS_REAL_H */
