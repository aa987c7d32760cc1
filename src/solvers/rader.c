/* Rader for prime lengths p whose p - 1 is smooth: a cyclic convolution of
 * length p - 1 of the permuted input with a fixed kernel. Two forms: fused
 * into four four-step passes for primes too long for one pass (GPU), and,
 * in the planner's finishing step, one-pass Bluestein passes turned into
 * one-pass Rader where the rule says it pays (hy_rader_one_pass, a planner
 * decision in planner/kernel_model.c). */
#include <stdlib.h>
#include <string.h>

#include "solvers/four_step.h"
#include "planner/kernel_model.h"
#include "planner/kernel_spec.h"
#include "util/settings.h"
#include "util/half.h"

/* Whether fused Rader serves the prime n of a chain split n1 x n2 over
 * `count` transforms. Its gather and scatter read and write single
 * elements at random: 8-byte f32 values use a quarter of each 32-byte
 * sector, 16-byte f64 values half. In separate launches, fused Rader is
 * faster than fused Bluestein for f64 and slower for f32 (measured on the
 * H100, see docs/notes-from-src.md). As one persistent kernel
 * (cg_persist.c), the rest of each sector is still in L2 when the
 * neighbouring gathers need it, and f32 Rader is faster than Bluestein
 * too. So f64 always, and f32 where the
 * chain runs persistent by default: both halves of the split alike
 * (passes of one block size), one loop of transforms (a batch, as
 * measured), and the planner's rule for persistence (hy_persist_pays, the
 * one the generator applies too: CUDA, more intermediates than L2 holds so
 * that they go through a ring, slots of at most 2 MB). test_h100_plans
 * checks the measured cases.
 * $HYFFT_RADER=1 asks for Rader wherever it applies, 0 never. */
static int hy_fs_rader_pays(const hy_fs_ctx *c, int64_t n, int64_t n1, int64_t n2, int nloops,
                            int64_t count) {
  const char *env = hy_settings_get()->rader_raw;
  if (env && strcmp(env, "0") == 0) return 0;
  if (n < 3 || hy_largest_prime_factor(n) != n || !hy_rader_length_pays(n)) return 0;
  if (c->problem->precision == HYFFT_F64 || (env && strcmp(env, "1") == 0)) return 1;
  /* f32 Rader pays as a persistent chain, which half-precision storage
   * does not get (hy_planner_finalize). */
  if (hy_precision_is_half(c->problem->storage)) return 0;
  int64_t slot = (n - 1) * 8, l2 = c->caps->l2_cache > 0 ? c->caps->l2_cache : 0;
  return n1 == n2 && nloops == 1 && l2 > 0 && count > 1 &&
         hy_persist_pays(c->caps, count > l2 / slot, slot);
}

/* Fused Rader (a large prime N whose N - 1 = L is 2^a times 1, 3 or 5,
 * a >= 4: 65537 = 2^16 + 1; where it pays, see hy_fs_rader_pays) on a GPU: the
 * cyclic convolution of Rader's permuted input with its kernel has length
 * L instead of Bluestein's 2L or more, so the same four fused passes (hy_fs_bluestein_fused) move about
 * half the data. Pass A1 gathers x at g^i mod N (and keeps x_0 aside),
 * B1 multiplies by the kernel's spectrum (and keeps the sum of the inputs
 * aside), A2 transforms back, B2 scatters x_0 plus each output to g^-k mod
 * N and writes X_0. The two kept values per transform sit in WORK0 behind
 * the intermediate (hy_pass.aux_offset). $HYFFT_RADER=0 leaves these
 * primes to Bluestein; $HYFFT_BLUESTEIN_UNFUSED to the seven-pass chain
 * (no fused steps at all). Returns HYFFT_NO_SOLVER (nothing added) when it
 * does not apply. */
hy_status hy_fs_rader_fused(hy_fs_ctx *c, int64_t n, hy_buffer src, int64_t in_stride,
                                   hy_buffer dst, int64_t out_stride, int nloops,
                                   const hyfft_dim *loops) {
  if (c->caps->backend == HYFFT_BACKEND_CPU || hy_settings_get()->bluestein_unfused)
    return HYFFT_NO_SOLVER;
  if (!hy_fs_chain_fits(c, in_stride, out_stride, nloops, loops)) return HYFFT_NO_SOLVER;
  int64_t m = n - 1, n1, n2, dense[HY_MAX_LOOPS], count = 1;
  hy_status st = hy_fs_chain_split(c, m, nloops, loops, &n1, &n2, dense);
  if (st != HYFFT_SUCCESS) return st;
  for (int l = 0; l < nloops; l++)
    if (hy_mul_overflow_i64(count, loops[l].n, &count)) return HYFFT_NO_SOLVER;
  if (!hy_fs_rader_pays(c, n, n1, n2, nloops, count)) return HYFFT_NO_SOLVER;
  /* The stash: two values per transform behind WORK0's intermediate. */
  int64_t aux = c->tree->work_elems[0];
  c->tree->work_elems[0] += 2 * count;
  static const hy_fuse steps[3] = {HY_FUSE_RADER_IN, HY_FUSE_RADER_SPECTRUM_OUT, HY_FUSE_RADER_OUT};
  return hy_fs_fused_chain(c, n, m, n1, n2, src, in_stride, dst, out_stride, nloops, loops, dense,
                           steps, aux);
}
