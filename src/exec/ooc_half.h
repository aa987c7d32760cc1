/* 1D transforms of half-precision storage (f16, bf16) that do not fit the
 * device budget: the data widened to f32 in host buffers, the same
 * problem transformed there by an f32 plan on host data (out of core in
 * turn), the result narrowed back into the caller's output. The 1D
 * out-of-core paths (four-step sweeps with device twiddles, the real and
 * Bluestein host steps) work in f32 and f64 only; half storage computes
 * in f32 anyway, so the only cost is the host buffers (4 bytes per real
 * each side) and the passes that fill and empty them. */
#ifndef HY_EXEC_OOC_HALF_H
#define HY_EXEC_OOC_HALF_H

#include "util/hy_util.h"

struct hyfft_plan_s;
typedef struct hy_ooc_half hy_ooc_half;

/* For `plan` (rank 1, half storage, host data): its f32 twin. */
hy_status hy_ooc_half_create(struct hyfft_plan_s *plan, unsigned flags, hy_ooc_half **out);
void hy_ooc_half_destroy(hy_ooc_half *h);

/* Widen, transform, narrow, progress reported as `outer`'s (the caller
 * holds the plan's lock). */
hy_status hy_ooc_half_run(hy_ooc_half *h, struct hyfft_plan_s *outer, const void *in, void *out);

/* The f32 plan (for the description). */
const struct hyfft_plan_s *hy_ooc_half_plan(const hy_ooc_half *h);

#endif /* HY_EXEC_OOC_HALF_H */
