/* Internals shared by the solvers of long axes (four_step.c and the
 * prime-length chains it hands a prime axis to: rader.c, bluestein.c,
 * fused_chain.c). Not part of the planner's interface. */
#ifndef HY_SOLVERS_FOUR_STEP_H
#define HY_SOLVERS_FOUR_STEP_H

#include "planner/planner.h"

typedef struct hy_fs_ctx {
  const hy_problem *problem;
  const hy_device_caps *caps;
  int64_t limit; /* longest one-pass transform on the device */
  int inner;     /* planning the rest of a split (pass B): one pass when it fits */
  int three;     /* three passes where the model prefers them (off: $HYFFT_FOUR_STEP_PASSES=2) */
  hy_plan_tree *tree;
} hy_fs_ctx;

/* Where a tree stands (its passes and work-buffer sizes), so that a
 * solver may try a way of planning and take it back when it does not
 * apply. */
typedef struct hy_fs_mark {
  int npasses;
  int64_t work_elems[2];
} hy_fs_mark;
static inline hy_fs_mark hy_fs_mark_tree(const hy_plan_tree *tree) {
  return (hy_fs_mark){tree->npasses, {tree->work_elems[0], tree->work_elems[1]}};
}
static inline void hy_fs_rollback(hy_plan_tree *tree, hy_fs_mark mark) {
  tree->npasses = mark.npasses;
  tree->work_elems[0] = mark.work_elems[0];
  tree->work_elems[1] = mark.work_elems[1];
}

/* The context for planning long axes of `problem` into `tree`: the
 * device's one-pass limit, and three passes where the model prefers them
 * unless $HYFFT_FOUR_STEP_PASSES=2 (four_step.c). */
hy_fs_ctx hy_fs_context(const hy_problem *problem, const hy_device_caps *caps, hy_plan_tree *tree);
/* Whether a length fits one pass, with its algorithm chosen in *pass. */
int hy_fs_fits(hy_fs_ctx *c, int64_t n, hy_pass *pass, hy_status *st);
/* Model time, in copy-floor passes, of a length-n DFT along one axis, and
 * its best split n = (n / *split) * *split (0: one pass). */
double hy_fs_best(hy_fs_ctx *c, int64_t n, int contiguous, int depth, int64_t *split);
/* A new pass at the end of the tree (HYFFT_NO_SOLVER when it is full). */
hy_status hy_fs_add_pass(hy_fs_ctx *c, hy_pass **out);
/* The work-buffer layout of a split axis (four_step.c). */
hy_status hy_fs_layout(hy_fs_ctx *c, int64_t n, int64_t axis_stride, int nloops, const hyfft_dim *loops, hy_buffer work, int64_t *dense, int64_t *inner);
/* DFT of length n along one axis over loops[], src -> dst: one pass, a
 * four-step split, or a prime-length chain (four_step.c). */
hy_status hy_fs_axis(hy_fs_ctx *c, int64_t n, int sign, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops);
/* The same from a work buffer with the passes alternating between the two
 * work buffers; *landed gets the one holding the result (four_step.c). */
hy_status hy_fs_axis_alternating(hy_fs_ctx *c, int64_t n, int sign, hy_buffer src, int64_t in_stride, int64_t out_stride, int nloops, const hyfft_dim *loops, hy_buffer *landed);
/* A pointwise Bluestein step of a DFT of sign `sign` (bluestein.c). */
hy_status hy_fs_chirp(hy_fs_ctx *c, hy_chirp_step step, int sign, int64_t n, int64_t m, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops);
/* The fused four-pass convolution chains (fused_chain.c). */
int hy_fs_chain_fits(const hy_fs_ctx *c, int64_t in_stride, int64_t out_stride, int nloops, const hyfft_dim *loops);
hy_status hy_fs_chain_split(hy_fs_ctx *c, int64_t m, int nloops, const hyfft_dim *loops, int64_t *n1, int64_t *n2, int64_t *dense);
hy_status hy_fs_fused_chain(hy_fs_ctx *c, int64_t n, int64_t m, int64_t n1, int64_t n2, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops, const int64_t *dense, const hy_fuse fuse[3], int64_t aux);
/* Prime-length axes too long for one pass: fused Rader (rader.c), fused
 * Bluestein and the unfused Bluestein chain (bluestein.c). Each returns
 * HYFFT_NO_SOLVER, having added nothing, when it does not apply. */
hy_status hy_fs_rader_fused(hy_fs_ctx *c, int64_t n, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops);
hy_status hy_fs_bluestein_fused(hy_fs_ctx *c, int64_t n, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops);
/* The fused Bluestein chain of a real transform's odd axis, from its real
 * end to the other (bluestein.c; real_end as in hy_pass). */
hy_status hy_fs_bluestein_real(hy_fs_ctx *c, int64_t n, int real_end, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops);
/* The same as the unfused chain of pointwise chirp passes around two
 * transforms of the convolution length, where the fused chain does not
 * apply (a convolution too long for two passes); src and dst not work
 * buffers. HYFFT_NO_SOLVER (nothing added) where it does not apply. */
hy_status hy_fs_bluestein_real_chain(hy_fs_ctx *c, int64_t n, int real_end, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops);
/* The unfused chain over rows of n in the work buffer src (the axis at
 * in_stride and the loops' in strides; positive, offset 0): src is read
 * by the first pointwise pass alone and is free for the convolution's
 * transforms after it, which start in the other work buffer; the output
 * chirp writes the rows, laid out by out_stride and the loops' out
 * strides, into the work buffer the convolution did not end in, *landed
 * (long prime DFTs in R2R's and real transforms' work buffers,
 * solvers/r2r.c, real.c). `sign` is the DFT's. */
hy_status hy_fs_bluestein_in_work(hy_fs_ctx *c, int64_t n, int sign, hy_buffer src, int64_t in_stride, int64_t out_stride, int nloops, const hyfft_dim *loops, hy_buffer *landed);
hy_status hy_fs_bluestein(hy_fs_ctx *c, int64_t n, hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops);

#endif /* HY_SOLVERS_FOUR_STEP_H */
