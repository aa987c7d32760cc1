/* One transform of 2 dims or more (2D, 3D) of host data split across the
 * devices of a multi-device context by slabs (docs/design.md section 5), for problems
 * whose batch does not split across the devices (exec/multi_device.c
 * decides; this file plans and runs the split):
 *
 *   1. device d gets rows [a_d, a_d + cnt_d) of axis 0 (the FFTW-MPI
 *      block rule: blocks of ceil(n0 / D) rows, the last ones short or
 *      empty), copies its slab in and transforms the other axes there (a
 *      device-resident sub-plan, in place);
 *   2. every device synchronized, device d gathers all n0 rows of its own
 *      columns [c_d, c_d + w_d) of axis 1 (the same block rule on n1):
 *      from device e the block rows a_e.. x columns c_d.. x the rest, one
 *      2D strided copy per pair (the backend's copy_peer, device to
 *      device), or, where the backend has no such copy or two devices
 *      cannot reach each other, through host memory: the slabs go down
 *      into the caller's output and each device's columns come up again;
 *   3. device d transforms axis 0 of its block [n0][w_d][rest] (a strided
 *      batched 1D sub-plan, in place, with the plan's scale) and copies it
 *      out into its columns of the host output.
 *
 * R2C: step 1's sub-plan is an R2C of the axes after 0 (the complex side's
 * columns then split: for 2D the halved axis' n/2+1). C2R runs the other
 * way: columns first (axis 0, C2C), the exchange reversed (device d
 * gathers its rows of every device's columns), then the rows' C2R. Out of
 * place the real rows have a device buffer of their own; in place they
 * share the slab in the padded layout. An out-of-place C2R that exchanges
 * through the host bounces through a host buffer of its own (its input
 * stays as it was).
 *
 * C2C, R2C, C2R; f32/f64, forward and backward, in place or out of place,
 * unbatched, contiguous row-major on both sides (a real side padded in
 * place); anything else (R2R, half storage, strides, a batch) is left to
 * the other multi-device paths (hy_slab_create says why). Each device holds its slab
 * and its receive block (allocated with the plan) and its sub-plans'
 * workspace; over a device's memory budget (HYFFT_DEVICE_MEMORY_LIMIT, else
 * its memory) the plan is refused with HYFFT_OUT_OF_MEMORY naming it.
 * Executions of one plan from several threads take turns (one lock). */
#ifndef HY_EXEC_MULTI_SLAB_H
#define HY_EXEC_MULTI_SLAB_H

#include "util/hy_util.h"

struct hyfft_plan_s;
struct hy_slab;

/* Plan the slab split of plan->problem on plan->context (a multi-device
 * context). *slab is NULL and *why_not a static reason when the problem is
 * not one this path takes (then HYFFT_SUCCESS); otherwise the split, its
 * sub-plans and device buffers, or a failure with nothing left allocated. */
hy_status hy_slab_create(struct hyfft_plan_s *plan, unsigned flags, struct hy_slab **slab,
                         const char **why_not);
void hy_slab_destroy(struct hyfft_plan_s *plan, struct hy_slab *slab);

/* Run on host data; returns when the output is complete. */
hy_status hy_slab_run(struct hyfft_plan_s *plan, struct hy_slab *slab, const void *in,
                      void *out);
hy_status hy_slab_wait(struct hy_slab *slab);

/* The decomposition (rows and columns per device, bytes over the bus each
 * way and device to device) and the sub-plans' trees. */
void hy_slab_describe(const struct hyfft_plan_s *plan, const struct hy_slab *slab,
                      hy_strbuf *sb);
/* The first sub-plan's generated sources. */
hy_status hy_slab_source(const struct hy_slab *slab, hy_strbuf *sb);

/* Device i's rows [*a, *a + *cnt) of axis 0 and columns [*c, *c + *w) of
 * axis 1; 0 when i is out of range (tests). *peer: 1 for device-to-device
 * copies, 0 for the host bounce. */
int hy_slab_split(const struct hy_slab *slab, int i, int64_t *a, int64_t *cnt, int64_t *c,
                  int64_t *w, int *peer);

#endif /* HY_EXEC_MULTI_SLAB_H */
