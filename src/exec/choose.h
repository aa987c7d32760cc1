/* Choosing the plan tree of a plan being created: wisdom first, then
 * measuring (HYFFT_MEASURE on GPU backends), else the cost model. */
#ifndef HY_EXEC_CHOOSE_H
#define HY_EXEC_CHOOSE_H

#include "exec/exec.h"

hy_status hy_exec_choose(struct hyfft_context_s *context, const hy_problem *problem,
                         unsigned flags, hy_plan_tree *out);

/* How this thread's last choice was made (hyfft_last_tune_info). */
void hy_exec_last_tune_info(hyfft_tune_info *info);

/* The wisdom key of a problem: its token with the memory field dropped
 * (host and device plans share kernels). */
void hy_exec_tune_key(const hy_problem *problem, hy_strbuf *sb);

#endif /* HY_EXEC_CHOOSE_H */
