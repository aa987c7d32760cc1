/* The CPU implementation of HY_PASS_CHIRP (planner/plan.h), the pointwise
 * steps of multi-pass Bluestein. GPU plans use it for lengths whose
 * convolution does not fit one pass; the CPU planner never needs it (its
 * passes have no length limit), but every pass op runs on every backend. */
#ifndef HY_CPU_OPS_CHIRP_H
#define HY_CPU_OPS_CHIRP_H

#include "planner/plan.h"

/* Run one HY_PASS_CHIRP pass. src and dst point at element 0 of the pass
 * (buffer + src_offset / dst_offset); src == dst with the same layout is
 * allowed (each element is read before it is written). */
hy_status hy_cpu_op_chirp(const hy_pass *pass, const void *src, void *dst);

/* Run one HY_PASS_TWIDDLE pass (src and dst as above), `base` the piece's
 * first column (the pass reads it from its input buffer). */
hy_status hy_cpu_op_twiddle(const hy_pass *pass, const void *src, void *dst, int64_t base);

#endif /* HY_CPU_OPS_CHIRP_H */
