/* Host C2C, R2C and C2R transforms larger than the device memory budget
 * (DESIGN.md section 5). A batch whose single transform fits the budget
 * goes through the device in one sweep of pieces of whole batch entries.
 * Otherwise a rank-2 or rank-3 problem (and a 1D one), batched or not,
 * goes in two sweeps of sub-plans instead of being staged whole:
 *
 *   slabs:  ranges of the index pairs (batch, i0) of dim 0, each with all
 *           the other transform dims done by one sub-plan (C2C, or R2C /
 *           C2R along the real last dim);
 *   blocks: the length-n0 C2C transforms of dim 0, over blocks of the
 *           remaining index space (batch x the other dims; for R2C and C2R
 *           the half spectrum's n/2+1 columns of the last dim).
 *
 * C2C and R2C run the slabs (host input to host output) then the blocks
 * (in place on the host output); C2R the blocks (host input to the input
 * itself or a host scratch) then the slabs (to the host output).
 *
 * A 1D C2C problem (batched or not) goes by the four-step split n = n1 x
 * n2 in two sweeps of blocks: the n1-point DFTs of strided columns,
 * stored transposed and twiddled on the device (the sub-plans' last pass,
 * HY_PASS_TWIDDLE), then the n2-point DFTs, the output in natural order
 * (out_of_core.c, hy_ooc_setup_1d). A 1D R2C or C2R problem of even
 * length n = 2m is the same for the m-point C2C of its reals viewed as
 * complex, with a host step after it (R2C) or before it (C2R) that pairs
 * bins k and m - k (exec/ooc_real.h). A 1D complex length the four-step
 * cannot split into pieces that fit (a prime, or a split whose long side
 * does not fit) goes by Bluestein's convolution instead (exec/ooc_chirp.h).
 * Rank 4 and up, and batch dims that do not merge, go in stages of inner
 * plans over outer loops (exec/ooc_stages.h).
 *
 * Pieces are packed into contiguous host buffers, so any positive user
 * strides work; the budget is HYFFT_DEVICE_MEMORY_LIMIT, else the device's
 * global memory. */
#ifndef HY_EXEC_OUT_OF_CORE_H
#define HY_EXEC_OUT_OF_CORE_H

#include "util/hy_util.h"

struct hyfft_plan_s;
struct hyfft_context_s;

/* The device memory budget of a context in bytes (0: none known), and
 * where it comes from (a static string). HYFFT_INVALID_ARGUMENT when
 * HYFFT_DEVICE_MEMORY_LIMIT is set but not a positive byte count. */
hy_status hy_ooc_budget(const struct hyfft_context_s *context, int64_t *budget,
                        const char **from);

/* Plan hook, after plan->context and plan->problem are set and before the
 * plan's own tree is prepared. Leaves plan->ooc NULL when the problem is
 * not a host problem on a GPU backend or fits the budget whole; otherwise
 * builds the two sweeps' sub-plans into plan->ooc. Fails with
 * HYFFT_OUT_OF_MEMORY when not even one slab or block fits the budget,
 * and with HYFFT_NOT_SUPPORTED when HYFFT_DEVICE_MEMORY_LIMIT is set, the
 * problem does not fit it and has no dim of length 2 or more. */
hy_status hy_ooc_create(struct hyfft_plan_s *plan, unsigned flags);
void hy_ooc_destroy(struct hyfft_plan_s *plan);

/* The forward C2C plan of `len` points in place on host data of
 * `context` (f64 or f32) that Bluestein's and the 1D R2R paths run on
 * their host buffers: out of core in turn where it does not fit. */
hy_status hy_ooc_host_c2c(struct hyfft_context_s *context, int64_t len, int f64, unsigned flags,
                          struct hyfft_plan_s **plan);

/* Progress of an inner plan's executions (Bluestein's, 1D R2R, 1D half)
 * reported as a share of the outer plan's: an execution of the inner plan
 * covers [base, base + span) of the outer one. Values reaching 1 are
 * left to the outer plan's own end. */
typedef struct hy_ooc_relay {
  const struct hyfft_plan_s *outer;
  double base, span;
} hy_ooc_relay;

/* Point `inner`'s progress at `relay` (outer NULL or without a callback:
 * none) for its next execution, covering [base, base + span). */
void hy_ooc_relay_set(struct hyfft_plan_s *inner, hy_ooc_relay *relay,
                      const struct hyfft_plan_s *outer, double base, double span);

/* Run an out-of-core plan on host data; returns when the output is in host
 * memory. Work queued on `queue` before the call comes first. */
hy_status hy_ooc_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue);

/* plan_wait on the sub-plans. */
hy_status hy_ooc_wait(struct hyfft_plan_s *plan);

/* The decomposition (pieces per sweep, their sizes, bytes over the bus
 * each way) and the sub-plans' trees, for hyfft_plan_describe. */
void hy_ooc_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb);
/* The sub-plans' generated sources, for hyfft_plan_source. */
hy_status hy_ooc_source(const struct hyfft_plan_s *plan, hy_strbuf *sb);

/* Pieces of sweep 0 or 1 (tests; 0 for a plan that is not out of core). */
int64_t hy_ooc_pieces(const struct hyfft_plan_s *plan, int sweep);
/* 1 when the plan's pieces are double-buffered on two queues (tests). */
int hy_ooc_overlapped(const struct hyfft_plan_s *plan);

#endif /* HY_EXEC_OUT_OF_CORE_H */
