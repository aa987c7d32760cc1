/* Host problems too large for the device that the sweeps of
 * exec/out_of_core.c do not take in one plan: more than one batch dim that
 * do not merge into one (transforms along the middle axis of a 3D array,
 * say), and rank 4 and up. Both become a short list of stages, each an
 * inner plan on host data (out of core in turn, or staged whole where it
 * fits) run over the index space of some outer loops with the data's own
 * strides, so no element is packed or copied on the host:
 *
 *   more batch dims: one stage, the inner plan keeps the batch dim with
 *     the most entries and the others are its loops;
 *   rank r >= 4: the transform of dims 1..r-1 with dim 0 as one more
 *     batch dim, then the length-n0 transforms of dim 0 in place on the
 *     output with dims 1..r-1 as batch dims (C2C, R2C, R2R; each stage
 *     plans its own batch dims the same way). C2R goes the other way
 *     round, dim 0 first on the complex input: in place there when the
 *     plan is in place or may destroy its input, else into a host scratch
 *     of the input's layout, allocated per execution.
 *
 * Every element crosses the bus once per stage and inner sweep; the scale
 * is applied by the last stage. */
#ifndef HY_EXEC_OOC_STAGES_H
#define HY_EXEC_OOC_STAGES_H

#include "util/hy_util.h"

struct hyfft_plan_s;
typedef struct hy_ooc_stages hy_ooc_stages;

/* Whether stages take `plan`'s problem (rank >= 4, or more than one
 * batch dim after merging). */
int hy_ooc_stages_takes(const struct hyfft_plan_s *plan);

/* The stages of `plan` (host data on a GPU backend; `flags` as given to
 * the plan). */
hy_status hy_ooc_stages_create(struct hyfft_plan_s *plan, unsigned flags, hy_ooc_stages **out);
void hy_ooc_stages_destroy(hy_ooc_stages *s);

/* Run every stage, progress reported as `outer`'s. */
hy_status hy_ooc_stages_run(hy_ooc_stages *s, struct hyfft_plan_s *outer, const void *in, void *out);

/* Stages (0..count-1) and their inner plans, for the description, waits
 * and sources. */
int hy_ooc_stages_count(const hy_ooc_stages *s);
const struct hyfft_plan_s *hy_ooc_stages_plan(const hy_ooc_stages *s, int stage);
/* A line describing stage `stage`: what it transforms and its loops. */
void hy_ooc_stages_describe(const hy_ooc_stages *s, int stage, hy_strbuf *sb);

#endif /* HY_EXEC_OOC_STAGES_H */
