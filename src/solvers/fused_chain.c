/* The fused four-pass convolution of a prime-length axis on a GPU: the
 * convolution of length m = n1 * n2 runs as two two-pass four-step
 * transforms whose passes also do the pointwise steps of Bluestein or
 * Rader (hy_fuse), four passes over the data where the unfused chain
 * takes seven. Shared by bluestein.c and rader.c. */
#include <stdlib.h>
#include <string.h>

#include "solvers/four_step.h"

/* Whether a fused chain has room (passes, loops) and reads and writes
 * each transform along its axis (no loop strides below the axis's: not
 * the columns of a 2D array). */
int hy_fs_chain_fits(const hy_fs_ctx *c, int64_t in_stride, int64_t out_stride, int nloops,
                            const hyfft_dim *loops) {
  if (nloops + 1 > HY_MAX_LOOPS || c->tree->npasses + 4 > HY_MAX_PASSES) return 0;
  for (int l = 0; l < nloops; l++)
    if (loops[l].n > 1 && (llabs(loops[l].in_stride) < llabs(in_stride) ||
                           llabs(loops[l].out_stride) < llabs(out_stride)))
      return 0;
  return 1;
}

/* The split m = n1 * n2 of a fused chain's convolution (two passes, n1
 * in one, mixed radix) and WORK0/WORK1 laid out to hold the batch densely,
 * m per transform; HYFFT_NO_SOLVER when m does not split so. */
hy_status hy_fs_chain_split(hy_fs_ctx *c, int64_t m, int nloops, const hyfft_dim *loops,
                                   int64_t *n1, int64_t *n2, int64_t *dense) {
  *n2 = 0;
  /* Two passes exactly: the model may prefer three for a long m, which a
   * chain cannot take. */
  hy_fs_ctx two = *c;
  two.three = 0;
  if (hy_fs_best(&two, m, 1, 0, n2) < 0 || *n2 == 0) return HYFFT_NO_SOLVER;
  *n1 = m / *n2;
  hy_pass probe;
  hy_pass_init(&probe, HY_PASS_DFT, c->problem->precision, c->problem->sign);
  hy_status st;
  if (!hy_fs_fits(c, *n1, &probe, &st) || probe.algo != HY_ALGO_MIXED_RADIX) return HYFFT_NO_SOLVER;
  int64_t inner = 1;
  HY_TRY(hy_fs_layout(c, m, 1, nloops, loops, HY_BUF_WORK0, dense, &inner));
  return hy_fs_layout(c, m, 1, nloops, loops, HY_BUF_WORK1, dense, &inner);
}

/* The four passes of a fused convolution of length m = n1 * n2 (n2 the
 * length of the A passes) over the transforms of `loops`, through WORK1
 * and WORK0 (laid out by `dense`): A1 src -> WORK1 (forward, fused step
 * fuse[0]), B1 WORK1 -> WORK0 (fuse[1]), A2 WORK0 -> WORK1 (inverse), B2
 * WORK1 -> dst (fuse[2]). Bluestein's and Rader's chains differ only in
 * the steps and Rader's stash (aux). */
hy_status hy_fs_fused_chain(hy_fs_ctx *c, int64_t n, int64_t m, int64_t n1, int64_t n2,
                                   hy_buffer src, int64_t in_stride, hy_buffer dst,
                                   int64_t out_stride, int nloops, const hyfft_dim *loops,
                                   const int64_t *dense, const hy_fuse fuse[3], int64_t aux) {
  const hy_problem *p = c->problem;
  for (int rep = 0; rep < 2; rep++) {
    int sign = rep == 0 ? -1 : 1;
    hy_pass *a, *b;
    HY_TRY(hy_fs_add_pass(c, &a));
    hy_pass_init(a, HY_PASS_DFT, p->precision, sign);
    HY_TRY(hy_choose_dft_algo(n2, c->caps, a));
    a->src = rep == 0 ? src : HY_BUF_WORK0;
    a->dst = HY_BUF_WORK1;
    int64_t is = rep == 0 ? in_stride : 1;
    a->axis = (hyfft_dim){n2, n1 * is, n1};
    for (int l = 0; l < nloops; l++)
      a->loops[a->nloops++] = (hyfft_dim){loops[l].n, rep == 0 ? loops[l].in_stride : dense[l], dense[l]};
    a->twiddle_loop = a->nloops;
    a->twiddle_n = m;
    a->loops[a->nloops++] = (hyfft_dim){n1, is, 1};
    if (rep == 0) {
      a->fuse = fuse[0];
      a->fuse_loop = a->twiddle_loop;
      a->fuse_split = n1;
    }
    HY_TRY(hy_fs_add_pass(c, &b));
    hy_pass_init(b, HY_PASS_DFT, p->precision, sign);
    HY_TRY(hy_choose_dft_algo(n1, c->caps, b));
    b->src = HY_BUF_WORK1;
    b->dst = rep == 0 ? HY_BUF_WORK0 : dst;
    int64_t os = rep == 0 ? 1 : out_stride;
    b->axis = (hyfft_dim){n1, 1, n2 * os};
    for (int l = 0; l < nloops; l++)
      b->loops[b->nloops++] = (hyfft_dim){loops[l].n, dense[l], rep == 0 ? dense[l] : loops[l].out_stride};
    b->fuse_loop = b->nloops;
    b->loops[b->nloops++] = (hyfft_dim){n2, n1, os};
    b->fuse = fuse[rep + 1];
    b->fuse_split = n2;
    for (hy_pass *q = a; q <= b; q++) {
      q->chirp_n = n;
      q->bluestein_m = m;
      q->fuse_sign = p->sign;
      q->aux_offset = aux;
    }
  }
  return HYFFT_SUCCESS;
}
