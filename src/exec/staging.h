/* Host data on a GPU: plan-owned device staging buffers and, for batched
 * problems on backends with queues, events and page-locked host memory,
 * chunks along the outermost batch dim whose copies overlap the compute of
 * their neighbours (DESIGN.md section 5). Problems that are not chunked go
 * up and down whole, through two page-locked bounce buffers in pieces so
 * that the CPU's copies of pageable memory overlap the bus. */
#ifndef HY_EXEC_STAGING_H
#define HY_EXEC_STAGING_H

#include "problem/problem.h"

struct hyfft_plan_s;

/* How a problem splits into chunks along batch[0]. Chunk k covers batch
 * entries [k * chunk, k * chunk + n_k) (n_k = chunk, the last one `last`),
 * and the bytes [k * in_step, + in_bytes / in_last_bytes) of the input and
 * likewise of the output; these ranges are disjoint between chunks. */
typedef struct hy_stage_chunks {
  int64_t chunk; /* batch entries per chunk */
  int64_t count; /* chunks, >= 2 */
  int64_t last;  /* entries in the last chunk, 1..chunk */
  size_t in_step, out_step;
  size_t in_bytes, out_bytes;           /* range of a full chunk */
  size_t in_last_bytes, out_last_bytes; /* range of the last chunk */
} hy_stage_chunks;

/* Split `p` so that each chunk moves at least min_bytes (one direction),
 * at most about max_bytes, and there are at least min_chunks of them.
 * Returns 1 and fills *c, or 0 with the reason in *why (a static string)
 * when the problem must be staged whole: no batch, too small, strides that
 * interleave chunks, or an out-of-place output with gaps inside a chunk
 * (its bytes would have to be uploaded too). Pure: no device needed. */
int hy_stage_plan_chunks(const hy_problem *p, size_t min_bytes, size_t max_bytes,
                         int64_t min_chunks, hy_stage_chunks *c, const char **why);

/* The defaults used by plans: chunks of 8 to 64 MiB, at least 4 of them. */
#define HY_STAGE_MIN_CHUNK_BYTES ((size_t)8 << 20)
#define HY_STAGE_MAX_CHUNK_BYTES ((size_t)64 << 20)
#define HY_STAGE_MIN_CHUNKS 4

/* Plan hooks: at creation (after the plan's tree, state and workspace
 * exist) and at destruction. Creation leaves plan->stage NULL, so that
 * execution uses the simple per-call path, when the plan is not a host plan
 * on a backend with the staging hooks, when HYFFT_STAGING=simple, or when
 * the staging buffers cannot be had; it fails only on errors that the
 * simple path would hit too. */
hy_status hy_stage_create(struct hyfft_plan_s *plan, unsigned flags);
void hy_stage_destroy(struct hyfft_plan_s *plan);
/* plan_wait on the stage's sub-plans (nothing without a stage). */
hy_status hy_stage_wait(struct hyfft_plan_s *plan);

/* Run a plan that has a stage on host data; returns when the output is in
 * host memory. Work queued on `queue` before the call comes first. The
 * caller's workspace serves the whole-buffer path only: chunks run the
 * sub-plans, whose workspace the stage owns. */
hy_status hy_stage_run(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                       void *queue);

/* 1 when the plan's executions use the chunked, overlapped path (tests). */
int hy_stage_is_chunked(const struct hyfft_plan_s *plan);
/* 1 when the whole-buffer path moves pageable data through bounce buffers
 * in overlapped pieces (tests). */
int hy_stage_bounces(const struct hyfft_plan_s *plan);

#endif /* HY_EXEC_STAGING_H */
