/* Bluestein for prime-length axes too long for one pass: the chirp-z
 * transform as a convolution of a smooth length m >= 2n - 1, either fused
 * into four four-step passes (GPU) or as the chain of pointwise chirp passes
 * around two transforms of length m. */
#include <stdlib.h>
#include <string.h>

#include "solvers/four_step.h"
#include "util/settings.h"

hy_status hy_fs_chirp(hy_fs_ctx *c, hy_chirp_step step, int sign, int64_t n, int64_t m,
                      hy_buffer src, int64_t in_stride, hy_buffer dst, int64_t out_stride,
                      int nloops, const hyfft_dim *loops) {
  hy_pass *pass;
  HY_TRY(hy_fs_add_pass(c, &pass));
  hy_pass_init(pass, HY_PASS_CHIRP, c->problem->precision, sign);
  pass->chirp_step = step;
  pass->chirp_n = n;
  pass->bluestein_m = m;
  pass->src = src;
  pass->dst = dst;
  pass->axis = (hyfft_dim){step == HY_CHIRP_POST ? n : m, in_stride, out_stride};
  pass->nloops = nloops;
  for (int l = 0; l < nloops; l++) pass->loops[l] = loops[l];
  return HYFFT_SUCCESS;
}

/* Fused Bluestein (a large prime on a GPU): the convolution of length
 * M = N1*N2 runs as two two-pass four-step transforms whose passes also do
 * the pointwise steps (hy_fuse): pass A1 reads the input times the chirp
 * (zero past N) into WORK1, pass B1 multiplies by the chirp's spectrum on
 * its way to WORK0, pass A2 goes back to WORK1, and pass B2 applies the
 * output chirp and stores the first N outputs. Four passes over the data
 * where the unfused chain takes seven. Returns HYFFT_NO_SOLVER (nothing
 * added) when it does not apply: the CPU, an axis read across transforms,
 * or an M that needs more than two passes. */
hy_status hy_fs_bluestein_fused(hy_fs_ctx *c, int64_t n, hy_buffer src, int64_t in_stride,
                                       hy_buffer dst, int64_t out_stride, int nloops,
                                       const hyfft_dim *loops) {
  if (c->caps->backend == HYFFT_BACKEND_CPU || hy_settings_get()->bluestein_unfused)
    return HYFFT_NO_SOLVER;
  if (!hy_fs_chain_fits(c, in_stride, out_stride, nloops, loops)) return HYFFT_NO_SOLVER;
  int64_t m = hy_bluestein_length(n), n1, n2, dense[HY_MAX_LOOPS];
  hy_status st = hy_fs_chain_split(c, m, nloops, loops, &n1, &n2, dense);
  if (st != HYFFT_SUCCESS) return st;
  static const hy_fuse steps[3] = {HY_FUSE_CHIRP_IN, HY_FUSE_SPECTRUM_OUT, HY_FUSE_CHIRP_OUT};
  return hy_fs_fused_chain(c, n, m, n1, n2, src, in_stride, dst, out_stride, nloops, loops, dense,
                           steps, 0);
}

/* A real transform's odd axis too long for one pass as the fused chain
 * from the caller's real end to the other: the chain's first pass reads
 * the reals (R2C) or the Hermitian extension of the half spectrum (C2R),
 * its last stores the half spectrum or the real parts (hy_pass.real_end);
 * no widening or narrowing pass. HYFFT_NO_SOLVER (nothing added) where
 * the chain does not apply. */
hy_status hy_fs_bluestein_real(hy_fs_ctx *c, int64_t n, int real_end, hy_buffer src,
                               int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops,
                               const hyfft_dim *loops) {
  hy_fs_mark mark = hy_fs_mark_tree(c->tree);
  hy_status st = hy_fs_bluestein_fused(c, n, src, in_stride, dst, out_stride, nloops, loops);
  if (st != HYFFT_SUCCESS) {
    hy_fs_rollback(c->tree, mark);
    return st;
  }
  c->tree->passes[mark.npasses].real_end = real_end;
  c->tree->passes[c->tree->npasses - 1].real_end = real_end;
  return HYFFT_SUCCESS;
}

static hy_status hy_fs_bluestein_chain(hy_fs_ctx *c, int64_t n, int real_end, hy_buffer src,
                                       int64_t in_stride, hy_buffer dst, int64_t out_stride,
                                       int nloops, const hyfft_dim *loops);

hy_status hy_fs_bluestein_real_chain(hy_fs_ctx *c, int64_t n, int real_end, hy_buffer src,
                                     int64_t in_stride, hy_buffer dst, int64_t out_stride,
                                     int nloops, const hyfft_dim *loops) {
  hy_fs_mark mark = hy_fs_mark_tree(c->tree);
  hy_status st = hy_fs_bluestein_chain(c, n, real_end, src, in_stride, dst, out_stride, nloops, loops);
  if (st != HYFFT_SUCCESS) hy_fs_rollback(c->tree, mark);
  return st;
}

/* A transform of the convolution, length m, from the work buffer `start`
 * in place there; or,
 * where that needs a buffer the two work buffers do not leave (three or
 * more passes), with its passes alternating between them, *at then naming
 * the one that holds the result. */
static hy_status hy_fs_conv_axis(hy_fs_ctx *c, int64_t m, int sign, hy_buffer start, int nloops,
                                 const hyfft_dim *within, hy_buffer *at) {
  hy_fs_mark mark = hy_fs_mark_tree(c->tree);
  *at = start;
  hy_status st = hy_fs_axis(c, m, sign, start, 1, start, 1, nloops, within);
  if (st != HYFFT_NO_SOLVER) return st;
  hy_fs_rollback(c->tree, mark);
  return hy_fs_axis_alternating(c, m, sign, start, 1, 1, nloops, within, at);
}

/* Bluestein whose convolution does not fit one pass (a large prime): the
 * chirped, zero-padded input goes to WORK0, is transformed there (length M,
 * through WORK1), multiplied by the chirp's spectrum, transformed back, and
 * the output chirp is applied on the way to dst. */
hy_status hy_fs_bluestein(hy_fs_ctx *c, int64_t n, hy_buffer src, int64_t in_stride,
                                 hy_buffer dst, int64_t out_stride, int nloops,
                                 const hyfft_dim *loops) {
  if (src == HY_BUF_WORK0 || src == HY_BUF_WORK1 || dst == HY_BUF_WORK0 || dst == HY_BUF_WORK1)
    return HYFFT_NO_SOLVER;
  hy_fs_mark mark = hy_fs_mark_tree(c->tree);
  hy_status fused = hy_fs_rader_fused(c, n, src, in_stride, dst, out_stride, nloops, loops);
  if (fused != HYFFT_NO_SOLVER) return fused;
  hy_fs_rollback(c->tree, mark);
  fused = hy_fs_bluestein_fused(c, n, src, in_stride, dst, out_stride, nloops, loops);
  if (fused != HYFFT_NO_SOLVER) return fused;
  hy_fs_rollback(c->tree, mark);
  return hy_fs_bluestein_chain(c, n, 0, src, in_stride, dst, out_stride, nloops, loops);
}

/* The unfused chain's first four steps, for a DFT of sign `sign`: the
 * chirped, zero-padded input from src into the work buffer `conv` (dense
 * rows of m, each transform contiguous), its transform there, the
 * multiply by the chirp's spectrum, the transform back. *at names the work
 * buffer holding the result, out_of[] gets the loops from its layout to
 * the loops' out strides, *pre the index of the first pass. */
static hy_status hy_fs_chirp_convolve(hy_fs_ctx *c, int64_t n, int64_t m, int sign, hy_buffer src,
                                      int64_t in_stride, hy_buffer conv, int nloops,
                                      const hyfft_dim *loops, hy_buffer *at, hyfft_dim *out_of,
                                      int *pre) {
  int64_t dense[HY_MAX_LOOPS];
  int64_t inner = 1;
  HY_TRY(hy_fs_layout(c, m, 1, nloops, loops, conv, dense, &inner));
  hyfft_dim into[HY_MAX_LOOPS], within[HY_MAX_LOOPS];
  for (int l = 0; l < nloops; l++) {
    into[l] = (hyfft_dim){loops[l].n, loops[l].in_stride, dense[l]};
    within[l] = (hyfft_dim){loops[l].n, dense[l], dense[l]};
    out_of[l] = (hyfft_dim){loops[l].n, dense[l], loops[l].out_stride};
  }
  *pre = c->tree->npasses;
  HY_TRY(hy_fs_chirp(c, HY_CHIRP_PRE, sign, n, m, src, in_stride, conv, 1, nloops, into));
  HY_TRY(hy_fs_conv_axis(c, m, -1, conv, nloops, within, at));
  HY_TRY(hy_fs_chirp(c, HY_CHIRP_SPECTRUM, sign, n, m, *at, 1, conv, 1, nloops, within));
  return hy_fs_conv_axis(c, m, 1, conv, nloops, within, at);
}

/* The unfused chain itself; with real_end (hy_pass.real_end) its first
 * pointwise pass reads a real transform's real end or half spectrum and
 * its last stores the other (the first h outputs for R2C: the POST
 * pass's axis is h long). */
static hy_status hy_fs_bluestein_chain(hy_fs_ctx *c, int64_t n, int real_end, hy_buffer src,
                                       int64_t in_stride, hy_buffer dst, int64_t out_stride,
                                       int nloops, const hyfft_dim *loops) {
  if (src == HY_BUF_WORK0 || src == HY_BUF_WORK1 || dst == HY_BUF_WORK0 || dst == HY_BUF_WORK1 ||
      (real_end && n % 2 == 0))
    return HYFFT_NO_SOLVER;
  const int sign = c->problem->sign;
  int64_t m = hy_bluestein_length(n);
  hyfft_dim out_of[HY_MAX_LOOPS];
  hy_buffer at;
  int pre;
  HY_TRY(hy_fs_chirp_convolve(c, n, m, sign, src, in_stride, HY_BUF_WORK0, nloops, loops, &at,
                              out_of, &pre));
  c->tree->passes[pre].real_end = real_end;
  HY_TRY(hy_fs_chirp(c, HY_CHIRP_POST, sign, n, m, at, 1, dst, out_stride, nloops, out_of));
  hy_pass *post = &c->tree->passes[c->tree->npasses - 1];
  post->real_end = real_end;
  if (real_end == 1) post->axis.n = n / 2 + 1;
  return HYFFT_SUCCESS;
}

hy_status hy_fs_bluestein_in_work(hy_fs_ctx *c, int64_t n, int sign, hy_buffer src,
                                  int64_t in_stride, int64_t out_stride, int nloops,
                                  const hyfft_dim *loops, hy_buffer *landed) {
  if (src != HY_BUF_WORK0 && src != HY_BUF_WORK1) return HYFFT_NO_SOLVER;
  /* The convolution starts in the other work buffer; src is free once
   * the first pass has read it. The chirps follow the DFT's own sign, not
   * the problem's (an R2R problem's sign is not read; DCT-III's DFT is a
   * backward one). */
  const hy_buffer conv = src == HY_BUF_WORK0 ? HY_BUF_WORK1 : HY_BUF_WORK0;
  int64_t m = hy_bluestein_length(n);
  hyfft_dim out_of[HY_MAX_LOOPS];
  hy_buffer at;
  int pre;
  HY_TRY(hy_fs_chirp_convolve(c, n, m, sign, src, in_stride, conv, nloops, loops, &at, out_of,
                              &pre));
  /* The rows of n land in the buffer the transform did not end in. */
  *landed = at == HY_BUF_WORK0 ? HY_BUF_WORK1 : HY_BUF_WORK0;
  int64_t extent = 1 + (n - 1) * out_stride;
  for (int l = 0; l < nloops; l++) extent += (loops[l].n - 1) * loops[l].out_stride;
  int w = *landed - HY_BUF_WORK0;
  if (extent > c->tree->work_elems[w]) c->tree->work_elems[w] = extent;
  return hy_fs_chirp(c, HY_CHIRP_POST, sign, n, m, at, 1, *landed, out_stride, nloops, out_of);
}
