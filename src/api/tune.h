/* Choosing a plan tree for a plan being created: wisdom first, then
 * measuring (HYFFT_MEASURE on GPU backends), else the cost model. */
#ifndef HY_TUNE_H
#define HY_TUNE_H

#include "exec/exec.h"

hy_status hy_plan_choose(struct hyfft_context_s *context, const hy_problem *problem,
                         unsigned flags, hy_plan_tree *out);

/* The wisdom key of a problem: its token with the memory field dropped
 * (host and device plans share kernels). */
void hy_tune_key(const hy_problem *problem, hy_strbuf *sb);

/* Import $HYFFT_WISDOM once per process (the first context creation that
 * gets through it); a missing file is not an error. */
hy_status hy_wisdom_env_import(void);

#endif /* HY_TUNE_H */
