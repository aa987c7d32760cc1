/* Batched CPU plans run chunk by chunk of their outer batch dim (docs/
 * design.md section 6): a multi-pass plan (real transforms: a DFT pass and
 * the pre/post step; 2D/3D: one pass per axis) streams the whole batch
 * through memory once per pass, so where the batch is larger than the
 * cache every pass after the first reads from DRAM what the one before
 * wrote. Run instead as a sub-plan over `per` entries at a time, the
 * passes of one chunk find its data in the last-level cache.
 *
 * The model: a chunk's input and output together take at most a quarter
 * of the last-level cache (the rest holds the next chunk's first reads,
 * the tables and whatever else shares that cache), and at least two
 * entries per worker thread, so that every pass of a chunk still keeps
 * the threads busy. Chunking applies to CPU plans of host data whose outer
 * batch entries do not interleave, whose chunk plan has two or more
 * passes, and whose batch makes two chunks or more; everything else runs
 * as one plan. $HYFFT_CPU_CHUNKS=0 turns it off; a byte count there
 * ("64K") replaces the model's budget. */
#ifndef HY_EXEC_BATCH_CHUNKS_H
#define HY_EXEC_BATCH_CHUNKS_H

#include "util/hy_util.h"

struct hyfft_plan_s;

/* Plan hook, after plan->context and plan->problem are set: where the
 * model chunks the problem, builds the chunk sub-plans into plan->chunks,
 * else leaves it NULL. On failure nothing is left allocated. */
hy_status hy_chunks_create(struct hyfft_plan_s *plan, unsigned flags);
void hy_chunks_destroy(struct hyfft_plan_s *plan);
hy_status hy_chunks_run(struct hyfft_plan_s *plan, const void *in, void *out);
/* The chunking and the chunk plan's tree, for hyfft_plan_describe. */
void hy_chunks_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb);
/* The chunk plan's source (the CPU backend has none), for hyfft_plan_source. */
hy_status hy_chunks_source(const struct hyfft_plan_s *plan, hy_strbuf *sb);
/* Entries per chunk (0: the plan is not chunked; tests). */
int64_t hy_chunks_per(const struct hyfft_plan_s *plan);

#endif /* HY_EXEC_BATCH_CHUNKS_H */
