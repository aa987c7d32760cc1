/* Choosing a plan tree for a plan being created: wisdom first, then
 * measuring (HYFFT_MEASURE on GPU backends), else the cost model. */
#ifndef HY_TUNE_H
#define HY_TUNE_H

#include "exec/exec.h"

hy_status hy_plan_choose(struct hyfft_context_s *context, const hy_problem *problem,
                         unsigned flags, hy_plan_tree *out);

/* The quick first tier of a chosen tree: when the context's backend tiers
 * plans (plan_tiers) and the planner has a quick tree for `tree`
 * (hy_planner_quick_tree: a tree with a plane pass), *quick is that tree
 * and 1 is returned, else 0. The caller hands it to plan_prepare. */
int hy_plan_quick(struct hyfft_context_s *context, const hy_problem *problem,
                  const hy_plan_tree *tree, hy_plan_tree *quick);

/* The wisdom key of a problem: its token with the memory field dropped
 * (host and device plans share kernels). */
void hy_tune_key(const hy_problem *problem, hy_strbuf *sb);

/* Import $HYFFT_WISDOM once per process (the first context creation that
 * gets through it); a missing file is not an error. */
hy_status hy_wisdom_env_import(void);

#endif /* HY_TUNE_H */
