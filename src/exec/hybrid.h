/* Hybrid execution (DESIGN.md section 5): a batched host-data plan on a
 * GPU backend whose outermost batch dim is split in two, the first
 * entries staged through the GPU and the rest computed by the CPU backend
 * at the same time, each side a plan of its own.
 *
 * The CPU's share comes from HYFFT_CPU_SHARE (a fraction, "auto" or
 * "off") or, with the plan flag HYFFT_HYBRID, from a model calibrated at
 * plan creation. The right share depends on the kind of host memory the
 * caller passes: pageable data reaches the GPU through the CPU's copies
 * into page-locked buffers, which take cores and memory bandwidth from the
 * CPU side, while page-locked data crosses the bus directly (DMA) and
 * leaves the cores to the CPU side. A plan therefore holds two splits, one
 * for each kind, and each execution runs the one that matches the memory
 * the backend reports (host_pinned on the input and the output, the test
 * the staged and out-of-core paths make). Where the backend does not
 * page-lock host memory (no host_alloc or host_pinned) both are one split.
 *
 * Calibration, per kind: short probe runs measure batch entries per
 * second of the GPU side on host memory of that kind (r_gpu, bus and
 * staging included) with all cores and with the cores it has while both
 * run (pageable: a quarter of them for its copies; page-locked: one, for
 * the thread that drives it), and of the CPU side (r_cpu) with the cores
 * left to it and alone with all of them; the candidates are the split at
 * which both sides finish together,
 *
 *   share = r_cpu / (r_cpu + r_gpu),
 *
 * the GPU alone and the CPU alone, and a split is kept only when the
 * model predicts it at least HY_HYBRID_MIN_GAIN faster than the better
 * side alone. A small search then times the model's pick and shares
 * around the balanced one as real splits on probe buffers of that kind,
 * keeps the fastest, and stores both shares in wisdom (planner/wisdom.h,
 * keyed by the problem token and the GPU's name): a later plan of the
 * problem on that device takes them from there without calibrating (an
 * older entry with the pageable share alone leaves the page-locked split
 * to calibrate). */
#ifndef HY_EXEC_HYBRID_H
#define HY_EXEC_HYBRID_H

#include "problem/problem.h"

struct hyfft_plan_s;

/* A hybrid plan is kept only when the model predicts it at least this much
 * faster than the GPU alone (5%). */
#define HY_HYBRID_MIN_GAIN 0.05

/* The search that refines the model's share times at most this many
 * shares, and another share replaces the model's only when it is this
 * much faster (3%). */
#define HY_HYBRID_SEARCH_MAX 4
#define HY_HYBRID_SEARCH_GAIN 0.03

/* The two splits: for pageable host data, and for page-locked input and
 * output. */
#define HY_HYBRID_PAGEABLE 0
#define HY_HYBRID_PINNED 1
#define HY_HYBRID_KINDS 2

/* Plan hook, after plan->context and plan->problem are set and before the
 * plan's own tree is prepared. Leaves plan->hybrid NULL when no share is
 * asked for, when the problem is not a batched host problem on a GPU
 * backend with non-interleaved batch entries, or when the model gives the
 * CPU nothing; otherwise builds the two sides into plan->hybrid. */
hy_status hy_hybrid_create(struct hyfft_plan_s *plan, unsigned flags);
void hy_hybrid_destroy(struct hyfft_plan_s *plan);

/* Run both sides of the split for the memory passed (page-locked when
 * the backend reports both `in` and `out` so) at once; returns when both
 * are done. */
hy_status hy_hybrid_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue);
hy_status hy_hybrid_wait(struct hyfft_plan_s *plan);

/* The split, the calibration and both sides' trees, for
 * hyfft_plan_describe. */
void hy_hybrid_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb);
/* The GPU side's generated sources, for hyfft_plan_source. */
hy_status hy_hybrid_source(const struct hyfft_plan_s *plan, hy_strbuf *sb);

/* Whether the outer batch dim splits into disjoint ranges: at least two
 * entries, each spanning no further than the next one's start, on both
 * sides. Multi-device plans (exec/multi_device.c) split so too. */
int hy_hybrid_splittable(const hy_problem *p);
/* The canonical problem `p` with `count` entries in its outer batch dim,
 * as a host-data description (a side's or a device's part). */
void hy_hybrid_side_problem(const hy_problem *p, int64_t count, hyfft_problem *u);

/* The CPU's share of the batch entries for pageable host data, and for
 * host data of kind HY_HYBRID_PAGEABLE or HY_HYBRID_PINNED (0 for a plan
 * that is not hybrid; tests). */
double hy_hybrid_share(const struct hyfft_plan_s *plan);
double hy_hybrid_share_for(const struct hyfft_plan_s *plan, int kind);
/* 1 when the plan's backend page-locks host memory, so that the
 * page-locked split is calibrated on its own (tests). */
int hy_hybrid_pinnable(const struct hyfft_plan_s *plan);
/* The kind of split the plan's latest execution ran, -1 before any
 * (tests). */
int hy_hybrid_last_kind(const struct hyfft_plan_s *plan);
/* Calibrations run in this process so far (tests). */
long hy_hybrid_calibrations(void);

#endif /* HY_EXEC_HYBRID_H */
