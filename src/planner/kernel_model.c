/* The kernel model (kernel_model.h): per-pass decisions of GPU plans. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/kernel_model.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "util/settings.h"
#include "util/half.h"



/* The layout of local memory, chosen so that the exchanges of a pass are
 * free of bank conflicts. A warp's 8-byte (16-byte) accesses are served
 * 16 (8) threads at a time, 128 bytes over the 32 banks: W = 16 (8)
 * complex elements. Two things decide the wavefronts per access:
 *  - Within a row: the first stage stores with a stride of its radix R
 *    (thread j writes j*R + r); one element of padding every R elements
 *    (R = 16 or 32) moves neighbouring threads to neighbouring banks. The
 *    later stages write and every stage reads runs of W or more
 *    consecutive elements, which padding every 16 or 32 keeps apart.
 *  - Across rows: where a warp spans M < W transforms (threads across
 *    transforms, or the transposed store), each group of W threads reads
 *    W/M neighbouring elements of each of M rows, so the rows must start
 *    W/M elements apart modulo W. With M >= W, threads on the same element
 *    of neighbouring rows need odd rows (hy_spec_row's rounding).
 * Counted per access pattern for the standard table's passes, this
 * layout takes 1 wavefront per group, where one element of padding per 32
 * with odd rows (2 per 32 for 4 columns) takes 1.2-2. Switches padbits=
 * and rowadd= (or pad=) name a layout and keep this rule out. */
static void hy_model_bank_layout(const hy_pass *pass, const hy_kernel_spec *named,
                              hy_kernel_spec *spec, int64_t nc, const hy_device_caps *caps) {
  if (named->lds_pad >= 0 || named->lds_pad_shift >= 0 || named->lds_row_extra >= 0) return;
  if (spec->split_exchange || spec->lds_pad == 0 || nc <= HY_LOCAL_BANKS) return;
  int radices[HY_MAX_FACTORS];
  int nr = hy_spec_radices(pass, spec, radices);
  if (nr < 1) return;
  hy_kernel_spec layout = *spec;
  layout.lds_pad = 1;
  layout.lds_pad_shift = radices[0] == 16 ? 4 : 5;
  layout.lds_row_extra = 0;
  int w = 128 / hy_complex_bytes(pass->precision), m = spec->transforms_per_block;
  if (m > 1 && m < w && (w % m) == 0 && (!spec->transform_fastest || spec->store_transposed)) {
    int base = hy_spec_row((int)nc, &layout);
    layout.lds_row_extra = (w / m - base % w + w) % w;
  }
  if (hy_spec_local_bytes(pass, &layout, (int)nc) <= caps->local_memory) *spec = layout;
}

/* Whether radix-32 stages for the powers of two take fewer stages than
 * radix-16 ones under the rest of the spec. */
static int hy_model_32s_save_a_stage(const hy_pass *pass, const hy_kernel_spec *spec) {
  hy_kernel_spec by16 = *spec, by32 = *spec;
  int radices[HY_MAX_FACTORS];
  by16.pow2_radix = 16;
  by32.pow2_radix = 32;
  return hy_spec_radices(pass, &by32, radices) < hy_spec_radices(pass, &by16, radices);
}

/* A one-pass Bluestein DFT runs two transforms of m >= 2n - 2 points
 * (and the chirp products) for each transform it loads and stores, so its
 * exchanges through local memory, not its memory traffic, bound it. It
 * takes the fewest stages the codelets allow: pairs of 3s and 5s merged
 * inside mixed lengths too (2400 = 16 x 2 x 3 x 25, 4 stages instead of
 * 5), and radix-32 stages where the powers of two take three radix-16
 * stages or more and 32s take one fewer (1024 = 32 x 32, 16384 = 32 x 32
 * x 16). Where 32 would only replace 16 x 2 it makes the block's threads
 * fewer and longer and measured slower (2400). Measured on the H200
 * against the plain merges, docs/performance.md. */
/* The share of a block's warp slots its threads fill (1: whole warps). */
static double hy_model_warp_fill(int64_t threads, int warp) {
  int64_t warps = (threads + warp - 1) / warp;
  return (double)threads / (double)(warps * warp);
}

/* A pass with a fused even-length real step (the R2C post-processing or
 * the C2R pre-processing) takes the fewest transforms per block that keep
 * at least the smallest block that can still fill a compute unit
 * (caps->min_full_block, 64 threads on sm_90) and warps at least as full
 * as the model's block. Such a pass adds barrier-separated phases to the
 * C2C kernel (the pairing of X_k and X_m-k, the C2R step's loads), and a
 * block waits at each barrier for its slowest warp: many small blocks per
 * SM keep some loading while others wait, and pack the local memory
 * finer (three f64 blocks of 64 KB leave 35 KB of 227 KB unused, fourteen
 * of 16 KB leave 3 KB). Measured faster on the H200 over 256-2048 points
 * in f32 and f64 (docs/performance.md, "GPU: real one-pass blocks of two
 * warps"); the C2C passes of the same lengths do not gain, so it stays
 * with the real step. Only where each transform is one contiguous row:
 * strided passes and the split step's paired rows keep the transforms
 * that give them whole 128-byte chunks. */
static void hy_model_real_step_block(const hy_pass *pass, const hy_device_caps *caps,
                                     hy_kernel_spec *spec) {
  if (!hy_fuse_is_real(pass->fuse) || caps->min_full_block <= 0 || caps->warp_size <= 0) return;
  if (!spec->transform_fastest || spec->store_transposed || pass->fuse_loop >= 0) return;
  int64_t t = spec->threads_per_transform, m = spec->transforms_per_block;
  double fill = hy_model_warp_fill(t * m, caps->warp_size);
  for (int64_t d = 1; d < m; d++)
    if (t * d >= caps->min_full_block && hy_model_warp_fill(t * d, caps->warp_size) >= fill) {
      spec->transforms_per_block = (int)d;
      return;
    }
}

int hy_model_bluestein_radices(const hy_pass *pass, hy_kernel_spec *spec) {
  spec->merge_odd = 2;
  if ((pass->bluestein_m & -pass->bluestein_m) >= 512 && hy_model_32s_save_a_stage(pass, spec))
    spec->pow2_radix = 32;
  int radices[HY_MAX_FACTORS];
  return hy_spec_radices(pass, spec, radices);
}

hy_status hy_model_spec(const hy_problem *problem, const hy_pass *pass,
                             const hy_device_caps *caps, int l2_chunks, hy_kernel_spec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->lds_pad_shift = 5;
  spec->transforms_per_block = 1;
  spec->threads_per_transform = 1;
  spec->persist = -1;
  spec->persist_hints = -1;
  if (pass->op != HY_PASS_DFT) return HYFFT_SUCCESS;
  /* With one W_n table, thread j of a stage reads entry r*(j % NS)*step:
   * addresses r*step*8 bytes apart, up to 32 cache lines (32 L1 wavefronts)
   * per warp-wide load, 15 such loads per radix-16 butterfly. Per-stage
   * tables make each of them one or two wavefronts. */
  spec->stage_twiddles = 1;
  /* The four-step twiddle W_N^(m*k) of pass A from an N-entry table is one
   * scattered read per output (a warp's neighbouring m are k entries
   * apart), from a table of N*8 bytes that L2 cannot hold past N = 2^22.
   * sincospi on the exactly reduced argument costs arithmetic instead,
   * keeps the error where the table has it and is faster.
   * Where the two short tables of hy_cg_twiddle_pair_table take 8 KB or
   * less, f32 reads them instead: one complex product for the sincospi,
   * faster at about the same error. Larger tables, and f64 tables past
   * 8 KB, are slower than sincospi; f64 tables within 8 KB measure even,
   * so f64 keeps sincospi (measured on the H100, see
   * docs/notes-from-src.md). The switch is `ftwsin=1/2`. */
  spec->ftw_sincos = pass->twiddle_loop >= 0;
  if (spec->ftw_sincos && pass->precision == HYFFT_F32 &&
      hy_twiddle_pair_count(pass->twiddle_n) * 8 <= 8192)
    spec->ftw_sincos = 2;
  spec->merge_odd = 1;
  int64_t nc = pass->algo != HY_ALGO_MIXED_RADIX ? pass->bluestein_m : pass->axis.n;
  int64_t min_loop = INT64_MAX;
  for (int l = 0; l < pass->nloops; l++) {
    int64_t s = llabs(pass->loops[l].in_stride);
    if (pass->loops[l].n > 1 && s < min_loop) min_loop = s;
  }
  spec->transform_fastest = llabs(pass->axis.in_stride) <= min_loop;
  /* An f32 transform of 8192 or 16384 points fills its SM alone (one
   * block of 67-135 KB), so its exchanges through local memory are not
   * hidden behind another block's loads and stores; radix-32 stages take
   * one exchange fewer (16384 = 32 x 32 x 16 on 512 threads instead of
   * 16 x 16 x 16 x 4 on 1024). Measured faster for f32 only: f64 8192's
   * radix-32 threads need too many registers, and 4096-point columns take
   * two exchanges either way; hence f32 along the transform from 8192
   * points, where 32s need fewer stages than 16s. Not with a fused real
   * step (R2C/C2R of 16384-32768 points), whose pairing pass through
   * local memory makes the block's 32-point threads the slower form
   * (measured, docs/performance.md). */
  if (pass->precision == HYFFT_F32 && pass->algo == HY_ALGO_MIXED_RADIX &&
      spec->transform_fastest && pass->plane_inner == 0 && nc >= 8192 &&
      !hy_fuse_is_real(pass->fuse)) {
    if (hy_model_32s_save_a_stage(pass, spec)) spec->pow2_radix = 32;
  }
  /* A one-pass mixed-radix DFT of 2048 points or more holds a block (nearly)
   * alone, so, like a Bluestein pass (hy_model_bluestein_radices), it is
   * bound by its exchanges through local memory: pairs of 3s and 5s merged
   * inside mixed lengths too (13500 = 4 x 9 x 3 x 25 x 5, five stages
   * instead of seven). Shorter ones keep the plain merges, whose blocks
   * share the SM; so do plane passes, whose two short axes gain nothing
   * from the longer butterflies (both measured slower with them:
   * docs/performance.md, "GPU: fewer stages where the exchanges bind"). */
  if (pass->algo == HY_ALGO_MIXED_RADIX && nc >= 2048 && pass->plane_inner == 0)
    spec->merge_odd = 2;
  if (pass->algo == HY_ALGO_BLUESTEIN) hy_model_bluestein_radices(pass, spec);
  /* The merges decide the largest radix and so the threads below; the
   * environment and the pass's variant may change them first. */
  {
    hy_kernel_spec probe = *spec;
    hy_kernel_spec_apply(&probe, hy_settings_get()->kernel_spec);
    hy_kernel_spec_apply(&probe, pass->kernel_spec);
    spec->merge_odd = probe.merge_odd;
    spec->pow2_radix = probe.pow2_radix;
  }
  int wg = caps->max_work_group > 0 ? caps->max_work_group : 256;
  int target = wg < 256 ? wg : 256;
  int64_t t = nc / hy_spec_max_radix(pass, spec);
  if (t < 1) t = 1;
  if (t > target) t = target;
  spec->threads_per_transform = (int)t;
  /* Padding breaks up the power-of-two strides of the exchanges. A
   * one-pass Bluestein DFT whose convolution length's power-of-two part
   * is shorter than one period of the banks (16 complex f32 elements, 8
   * f64) has no stride that is a multiple of the period, and there the
   * padding only moves accesses onto each other (measured faster
   * without it, docs/performance.md). */
  const int64_t bank_period = HY_LOCAL_BANKS * 4 / hy_complex_bytes(pass->precision);
  spec->lds_pad = nc > HY_LOCAL_BANKS ? 1 : 0;
  if (pass->algo == HY_ALGO_BLUESTEIN && (nc & -nc) < bank_period) spec->lds_pad = 0;
  /* A long transform fills a block (nearly) alone: where 256 threads
   * would hold more than 16 points each, one thread per butterfly of the
   * largest radix (up to 1024) keeps ~16 points per
   * thread, which fits the 64-128 registers that __launch_bounds__ allows
   * such a block, instead of 32-64 points per thread that need 170-255
   * registers and leave one 8-warp block per SM. */
  int64_t per_butterfly = nc / hy_spec_max_radix(pass, spec);
  if (per_butterfly > t && nc / t > 16) {
    int most = wg < 1024 ? wg : 1024;
    t = per_butterfly < most ? per_butterfly : most;
    /* Bluestein holds two transforms and its tables: 8 points per
     * thread, which measured faster than 16 (see docs/notes-from-src.md). */
    if (pass->algo == HY_ALGO_BLUESTEIN && nc / 8 > t) t = nc / 8 < most ? nc / 8 : most;
    spec->threads_per_transform = (int)t;
  }
  /* Mid lengths whose butterflies of the largest radix outnumber 256
   * threads but fit a block: one thread each, where 256 would leave over
   * 8% of the slots idle (measured faster than the halving below, e.g.
   * 2401 = 7^4 on 343 threads, none idle, against 128 threads, 11% idle). */
  if (pass->algo == HY_ALGO_MIXED_RADIX && per_butterfly > t &&
      per_butterfly <= (wg < 1024 ? wg : 1024) && hy_spec_idle_share(pass, spec, (int)t) > 0.08) {
    t = per_butterfly;
    spec->threads_per_transform = (int)t;
  }
  /* Threads that idle on the last butterfly of a stage: with 128 threads
   * or more, when over 8% of the slots are idle and half the threads idle
   * less than half as much, take half (e.g. 2401 = 7^4 from 256 threads,
   * 33% idle, to 128, 11%; measured faster, see docs/notes-from-src.md). */
  if (t >= 128 && hy_spec_idle_share(pass, spec, (int)t) > 0.08 &&
      2.0 * hy_spec_idle_share(pass, spec, (int)(t / 2)) <
          hy_spec_idle_share(pass, spec, (int)t)) {
    t /= 2;
    spec->threads_per_transform = (int)t;
  }
  int64_t count = hy_pass_count(pass);
  int64_t min_out = INT64_MAX;
  for (int l = 0; l < pass->nloops; l++) {
    int64_t s = llabs(pass->loops[l].out_stride);
    if (pass->loops[l].n > 1 && s < min_out) min_out = s;
  }
  int strided_out = spec->transform_fastest && llabs(pass->axis.out_stride) > min_out;
  int64_t m = target / t;
  /* Strided axes need enough neighbouring transforms for whole chunks
   * (128 bytes); so do strided outputs (four-step pass B), which are
   * written across M transforms by the transposed store: with one
   * transform per block each 8-byte store is its own 32-byte sector. */
  int64_t chunk = 128 / (int64_t)hy_complex_bytes(pass->precision);
  if ((!spec->transform_fastest || strided_out) && m < chunk) m = chunk;
  if (m > count) m = count;
  if (m * t > wg) m = wg / t;
  if (m < 1) m = 1;
  /* Blocks that stay inside one element of the outermost batch loop let
   * the launches be cut into L2 chunks (codegen.c): prefer a divisor of
   * that element's transform count down to M/2 (405 transforms: 12 -> 9).
   * Where a warp spans the block's transforms (threads across transforms,
   * or the transposed store) and the plan does not run in chunks, only a
   * divisor that divides W (the complex elements of 128 bytes) or is a
   * multiple of it: it keeps whole sectors per row and the rows' bank
   * layout (hy_model_bank_layout). 2049 columns of a 2D real transform
   * stay at 4 per block rather than 3, whose 24-byte pieces straddle
   * sectors and whose rows collide in the banks. Nor does the divisor cut
   * each row's run below 16 bytes (half a sector) where a larger such
   * count would not: M stays, and a block straddles two batch elements
   * (each transform finds its own offsets). The 4620-point column pass of
   * a 4620 x 128 C2R (65 columns per batch element) would fall from 2
   * columns to 1, reading 8 bytes of each sector; f64 columns (16 bytes
   * each) take the divisor, which is faster there than straddling. */
  int64_t batch = problem->batch_rank > 0 ? problem->batch[0].n : 0;
  if (batch > 1 && pass->nloops > 0 && pass->loops[0].n == batch && count % batch == 0) {
    int64_t per = count / batch;
    int keep_layout = !l2_chunks && (!spec->transform_fastest || strided_out);
    int64_t half_sector = 16 / (int64_t)hy_complex_bytes(pass->precision), top = m;
    while (keep_layout && top > 1 && chunk % top != 0 && top % chunk != 0) top--;
    for (int64_t d = m; d >= 1 && 2 * d >= m; d--) {
      if (keep_layout && d < top && d < half_sector) continue;
      if (per % d == 0 && (!keep_layout || chunk % d == 0 || d % chunk == 0)) {
        m = d;
        break;
      }
    }
  }
  spec->transforms_per_block = (int)m;
  spec->store_transposed = strided_out && m >= 2;
  /* Eight threads per transform of a plain batch (128 = 16 x 8): twice
   * as many, half of them idle in the radix-16 stage, with as many
   * transforms per block, measured faster. CUDA only: NVIDIA's OpenCL is
   * slower with it. Plain batches only: four-step passes of the same
   * length are slower with it, and axis passes do not gain. */
  if (t == 8 && caps->backend == HYFFT_BACKEND_CUDA && pass->algo == HY_ALGO_MIXED_RADIX &&
      spec->transform_fastest &&
      pass->nloops == 1 && pass->twiddle_loop < 0 && !spec->store_transposed &&
      llabs(pass->axis.in_stride) == 1 && llabs(pass->axis.out_stride) == 1 && 2 * t * m <= wg)
    spec->threads_per_transform = 16;
  /* Short transforms: a warp spans 32/T transforms, so direct loads touch
   * 8*T-byte pieces of many segments; staging through local memory makes
   * every warp access 256 contiguous bytes (cuFFT is at the copy floor
   * there). Longer transforms are already read in whole segments. */
  if (spec->transform_fastest && t < 8 && pass->algo == HY_ALGO_MIXED_RADIX) {
    spec->stage_load = hy_pass_dense_run(pass, 0);
    spec->stage_store = hy_pass_dense_run(pass, 1) && !spec->store_transposed;
  }
  /* Threads across transforms (a strided axis) read whole sectors, the M
   * transforms' elements at one index side by side; where each transform's
   * outputs are contiguous (unit output stride) a direct store writes M
   * pieces of 8-16 bytes per instruction, each in its own sector. Where
   * the block's M transforms write one dense run, the store goes through
   * local memory with consecutive threads on consecutive outputs instead
   * (the slow axis of a matrix transformed into rows, and the first pass
   * of such an axis's four-step split: docs/performance.md, "Strided
   * inputs into contiguous outputs"). GPU backends only. */
  if (!spec->transform_fastest && caps->backend != HYFFT_BACKEND_CPU &&
      pass->algo == HY_ALGO_MIXED_RADIX && hy_pass_dense_output_ordered(pass))
    spec->stage_store = 1;
  /* A four-step pass whose 16 columns take more than half the local memory
   * runs one block per SM, whose load, compute and store phases then
   * never overlap; 8 columns (64-byte pieces) let two blocks share the SM
   * (measured faster on the H100). Halving again to 4 columns is slower,
   * hence 16 -> 8 only; so is halving a plain column pass (no twiddle, in
   * place), hence four-step passes only. */
  if ((pass->twiddle_loop >= 0 || spec->store_transposed) && spec->transforms_per_block >= 16 &&
      2 * hy_spec_local_bytes(pass, spec, (int)nc) > caps->local_memory &&
      hy_spec_local_bytes(pass, spec, (int)nc) <= caps->local_memory)
    spec->transforms_per_block /= 2;
  /* f64 four-step passes of 32 threads x 8 columns (512 points, as f64
   * 2^18) run 2 blocks of 256 threads per SM at 128 registers; 4 columns
   * per block (128 threads, 35 KB) let 4 smaller blocks share it, which
   * measured faster. Halving is slower on the neighbouring shapes (64
   * threads x 8, 16 x 16), so it is kept to this one. */
  if (pass->precision == HYFFT_F64 && caps->backend == HYFFT_BACKEND_CUDA &&
      (pass->twiddle_loop >= 0 || spec->store_transposed) && spec->threads_per_transform == 32 &&
      spec->transforms_per_block == 8)
    spec->transforms_per_block = 4;
  /* A four-step pass of blocks near 1024 threads whose threads take two
   * or more butterflies of a smaller radix in some stage (1000 = 8x5x5x5
   * on 125 threads x 8 columns: 10 points in the radix-5 stages) fits
   * one block per SM; twice the threads over half the columns need fewer
   * registers per thread and fit two, which measured faster. Passes whose
   * threads hold one butterfly of the largest radix per stage
   * (4096 = 16^3) keep their columns: 2 per block are slower there. */
  if (caps->backend == HYFFT_BACKEND_CUDA && (pass->twiddle_loop >= 0 || spec->store_transposed) &&
      spec->transforms_per_block >= 2 &&
      (int64_t)spec->threads_per_transform * spec->transforms_per_block >= 768 &&
      2 * spec->threads_per_transform <= wg &&
      hy_spec_points_per_thread(pass, spec, spec->threads_per_transform) >
          hy_spec_max_radix(pass, spec)) {
    spec->threads_per_transform *= 2;
    spec->transforms_per_block /= 2;
  }
  /* A fused C2R step forms each thread's first-stage inputs from X_e and
   * X_m-e read straight into its registers (stagein=2): every load of a
   * thread is in flight at once and no pass through local memory precedes
   * the first stage. The same holds for the split step in the first pass
   * of a four-step split (X_m-k read from the partner row), which through
   * local memory measured slower than the three-pass plan in f64. Over
   * eleven one-pass C2R shapes on the H100 the register form was never
   * more than 1% behind the pairs form (stagein=0, the switch), and the
   * dense form (rows into local memory, paired there: stagein=1) won on
   * short rows of many transforms per block, so that one stays a variant
   * for the measuring planner (docs/performance.md). */
  if (pass->fuse == HY_FUSE_C2R_PRE) spec->stage_load = 2;
  hy_model_real_step_block(pass, caps, spec);
  hy_kernel_spec_apply(spec, hy_settings_get()->kernel_spec);
  hy_kernel_spec_apply(spec, pass->kernel_spec);
  /* A fused real step pairs elements k and m - k of a whole transform in
   * local memory: complex values there, and its own load (C2R) or store
   * (R2C) in place of the staged or transposed one. */
  int real_step = hy_fuse_is_real(pass->fuse) || pass->fuse == HY_FUSE_R2R;
  const int fused_load = pass->fuse == HY_FUSE_C2R_PRE ||
                         (pass->fuse == HY_FUSE_R2R && (pass->r2r_fuse & 1));
  const int fused_store = pass->fuse == HY_FUSE_R2C_POST ||
                          (pass->fuse == HY_FUSE_R2R && (pass->r2r_fuse & 2));
  if (real_step) {
    spec->split_exchange = 0;
    spec->store_transposed = 0;
    if (fused_store) spec->stage_store = 0;
    if (fused_load && pass->fuse != HY_FUSE_C2R_PRE) spec->stage_load = 0;
  }
  if ((int64_t)spec->threads_per_transform * spec->transforms_per_block > wg)
    spec->transforms_per_block = wg / spec->threads_per_transform > 0 ? wg / spec->threads_per_transform : 1;
  if (spec->threads_per_transform > wg) spec->threads_per_transform = wg;
  while (spec->transforms_per_block > 1 && hy_spec_local_bytes(pass, spec, (int)nc) > caps->local_memory)
    spec->transforms_per_block /= 2;
  /* The split form of the R2C step pairs rows j and L - j as
   * neighbouring transforms of a work-group (planner/plan.h): an even
   * count of them; the solver checks that two fit
   * (hy_model_real_split_fits). Its loads and stores go by the loop
   * offsets, which pair the rows: never a staged copy of the work-group's
   * rows in their plain order. The split C2R step reads its own input,
   * into local memory (stagein=0) or straight into the first stage's
   * registers (stagein=2); it has no staged form. */
  if (hy_fuse_is_real(pass->fuse) && pass->fuse_loop >= 0) {
    if (pass->fuse == HY_FUSE_R2C_POST) {
      if (spec->transforms_per_block < 2) spec->transforms_per_block = 2;
      spec->transforms_per_block &= ~1;
      spec->stage_load = 0;
    } else if (spec->stage_load == 1) {
      spec->stage_load = 0;
    }
    spec->stage_store = 0;
  }
  if (hy_spec_local_bytes(pass, spec, (int)nc) > caps->local_memory && !real_step)
    spec->split_exchange = 1;
  if (hy_spec_local_bytes(pass, spec, (int)nc) > caps->local_memory) spec->lds_pad = 0;
  /* The transposed store moves complex values through local memory; Rader
   * stores its p outputs (one more than its convolution) directly. */
  if (spec->split_exchange || pass->algo == HY_ALGO_RADER) spec->store_transposed = 0;
  /* A plane pass loads through local memory (the load transposes the
   * plane, hy_cg_stage_copy), complex, threads along the plane, from one
   * dense run of planes or one plane per block, with per-stage twiddles. */
  if (pass->plane_inner > 0) {
    spec->stage_load = 1;
    spec->transform_fastest = 1;
    spec->stage_twiddles = 1;
    if (!hy_pass_dense_input(pass)) spec->transforms_per_block = 1;
    if (spec->split_exchange) {
      spec->split_exchange = 0;
      spec->lds_pad = 0;
    }
    while (spec->transforms_per_block > 1 && hy_spec_local_bytes(pass, spec, (int)nc) > caps->local_memory)
      spec->transforms_per_block /= 2;
  }
  /* Rader permutes its input and output: through local memory, after a
   * contiguous staged load and before a contiguous staged store, rather
   * than by gathers and scatters in global memory (a warp's 32 permuted
   * reads of an 8 KB row touch up to 32 sectors). */
  if (pass->algo == HY_ALGO_RADER && !spec->split_exchange && spec->transform_fastest) {
    spec->stage_load = hy_pass_dense_run(pass, 0);
    spec->stage_store = hy_pass_dense_run(pass, 1);
  }
  /* Staging needs a dense run of transforms and complex local memory. */
  if (pass->plane_inner == 0 && pass->algo != HY_ALGO_RADER && pass->fuse != HY_FUSE_C2R_PRE &&
      (spec->split_exchange || fused_load || !spec->transform_fastest || pass->algo != HY_ALGO_MIXED_RADIX ||
       !hy_pass_dense_run(pass, 0)))
    spec->stage_load = 0;
  if (spec->split_exchange || spec->store_transposed || fused_store ||
      !(spec->transform_fastest ? hy_pass_dense_run(pass, 1) : hy_pass_dense_output_ordered(pass)))
    spec->stage_store = 0;
  /* An odd-length real step forms its complex values in the pass's own
   * load and keeps its outputs in its own store. Short transforms of a
   * dense batch (fewer than 8 threads each) stage both through local
   * memory, like complex ones: a warp then reads and writes whole runs
   * (the reals on one side, the n/2 + 1 complex values on the other)
   * instead of a piece of each of 32 transforms per instruction. Other
   * layouts and Bluestein's chirped load go straight to global memory. */
  if (hy_fuse_is_real_odd(pass->fuse)) {
    const int short_rows = caps->backend != HYFFT_BACKEND_CPU && spec->transform_fastest &&
                           spec->threads_per_transform < 8 && pass->algo == HY_ALGO_MIXED_RADIX &&
                           !spec->split_exchange && !spec->body;
    spec->stage_load = short_rows && hy_pass_dense_run(pass, 0);
    spec->stage_store = short_rows && hy_pass_dense_run(pass, 1);
    spec->store_transposed = 0;
  }
  /* So do the ends of a real transform's Bluestein chain (the transposed
   * store, which writes from local memory element by element, stays). */
  if (pass->real_end) {
    spec->stage_load = 0;
    spec->stage_store = 0;
  }
  /* Asking ptxas for more resident blocks per SM trades registers for
   * occupancy. It is applied only where it measured faster: a 512-thread
   * f32 block that its register count would leave alone on its SM (8192
   * points). Elsewhere it lets ptxas grow kernels up to the new cap (fewer
   * blocks per SM) or spill, or changes nothing. */
  /* What the environment or the pass's variant named: the local-memory
   * layout (pad, padbits, rowadd) or minblocks (0 included: no demand)
   * keeps the rules for it out. */
  hy_kernel_spec named;
  memset(&named, 0, sizeof named);
  named.lds_pad = named.lds_pad_shift = named.lds_row_extra = named.min_blocks = -1;
  hy_kernel_spec_apply(&named, hy_settings_get()->kernel_spec);
  hy_kernel_spec_apply(&named, pass->kernel_spec);
  hy_model_bank_layout(pass, &named, spec, nc, caps);
  int free_blocks = named.min_blocks < 0;
  /* Not where a thread loops over butterflies of an odd radix holding
   * more than 24 points of a stage at once (with their own indices and
   * twiddles): they spill under the 64-register cap of two such blocks
   * (13500 = 4x3^3x5^3 on 512 threads, 27-30 points in its radix-3 and -5
   * stages, ran 2.4x slower with the cap on the H100; the 100 x 100
   * planes of 100^3, 20 points, run 1.13x faster with it). Power-of-two
   * stages, where the cap was measured to gain (8192 on 512 threads,
   * 512-point four-step columns), keep it. */
  int one_butterfly = 1;
  {
    int radices[HY_MAX_FACTORS];
    int nr = hy_spec_radices(pass, spec, radices);
    for (int i = 0; i < nr; i++) {
      int64_t per = (nc / radices[i] + spec->threads_per_transform - 1) / spec->threads_per_transform;
      if ((radices[i] & (radices[i] - 1)) != 0 && per > 1 && per * radices[i] > 24)
        one_butterfly = 0;
    }
  }
  if (caps->backend == HYFFT_BACKEND_CUDA && pass->precision == HYFFT_F32 && free_blocks &&
      one_butterfly && spec->threads_per_transform * spec->transforms_per_block == 512 &&
      2 * (hy_spec_local_bytes(pass, spec, (int)nc) + 1024) <= caps->local_memory + 1024)
    spec->min_blocks = 2;
  /* Small blocks whose points per thread need more registers than three
   * blocks per SM leave (65536 / (3 * 128) = 170): ptxas' free choice
   * (e.g. f64 3125 with radix-25 stages, the f64 Bluestein pass of 1009)
   * leaves 2 blocks of 4 warps per SM, and asking for 3 measured faster;
   * where the estimate stays under the cap, asking does nothing or is
   * slower. The estimate: the most points a
   * thread holds in a stage, times the words of a complex value, times 2
   * (inputs and outputs of a stage) or 3 (Bluestein keeps its tables'
   * values too). */
  int block = spec->threads_per_transform * spec->transforms_per_block;
  if (caps->backend == HYFFT_BACKEND_CUDA && free_blocks && block <= 128) {
    int radices[HY_MAX_FACTORS], most = 0;
    int nr = hy_spec_radices(pass, spec, radices);
    for (int i = 0; i < nr; i++) {
      int64_t per = (nc / radices[i] + spec->threads_per_transform - 1) / spec->threads_per_transform;
      if (per * radices[i] > most) most = (int)(per * radices[i]);
    }
    int words = pass->precision == HYFFT_F64 ? 4 : 2;
    int sets = pass->algo == HY_ALGO_MIXED_RADIX ? 2 : 3;
    if ((int64_t)most * words * sets > 65536 / (3 * 128)) spec->min_blocks = 3;
    /* f32 Bluestein passes of 128 threads that fit 128 registers: asking
     * for the 4 blocks per SM they already get changes ptxas' instruction
     * order (same registers, no spills), which measured faster; 3 blocks
     * let the kernel grow, 5 spill. f64 (3 blocks by the rule above) is no
     * faster with 4. */
    else if (pass->precision == HYFFT_F32 && pass->algo == HY_ALGO_BLUESTEIN && block == 128 &&
             (int64_t)most * words * sets <= 65536 / (4 * 128))
      spec->min_blocks = 4;
  }
  return HYFFT_SUCCESS;
}

int hy_model_real_fuse_fits(const hy_device_caps *caps, hyfft_precision precision, int64_t m) {
  /* One transform's row without padding (hy_spec_row: odd length). */
  int64_t row = m % 2 ? m : m + 1;
  return caps->backend != HYFFT_BACKEND_CPU && m >= 2 &&
         row * (int64_t)hy_complex_bytes(precision) <= caps->local_memory;
}

int hy_model_real_cpu_fuses(const hy_device_caps *caps, int64_t m) {
  return caps->backend == HYFFT_BACKEND_CPU && m >= 2;
}

int hy_model_real_split_fits(const hy_problem *problem, const hy_pass *pass,
                             const hy_device_caps *caps) {
  if (caps->backend == HYFFT_BACKEND_CPU || !hy_fuse_is_real(pass->fuse) || pass->fuse_loop < 0)
    return 0;
  hy_kernel_spec spec;
  /* Without L2 chunks: the plans of a split real axis have two passes,
   * which run none by default (hy_model_l2_chunk). */
  if (hy_model_spec(problem, pass, caps, 0, &spec) != HYFFT_SUCCESS) return 0;
  int wg = caps->max_work_group > 0 ? caps->max_work_group : 256;
  if (pass->fuse == HY_FUSE_C2R_PRE)
    return spec.threads_per_transform * spec.transforms_per_block <= wg && !spec.split_exchange &&
           hy_spec_local_bytes(pass, &spec, (int)pass->axis.n) <= caps->local_memory;
  /* The rows' loop must be the fastest in the transform index: the
   * smallest stride on the side the generator orders by (the input). */
  for (int l = 0; l < pass->nloops; l++)
    if (l != pass->fuse_loop && pass->loops[l].n > 1 &&
        llabs(pass->loops[l].in_stride) <= llabs(pass->loops[pass->fuse_loop].in_stride))
      return 0;
  return spec.transforms_per_block >= 2 && spec.transforms_per_block % 2 == 0 &&
         spec.threads_per_transform * spec.transforms_per_block <= wg && !spec.split_exchange &&
         !spec.store_transposed && !spec.stage_store && !spec.stage_load &&
         hy_spec_local_bytes(pass, &spec, (int)pass->axis.n) <= caps->local_memory;
}

int hy_persist_pays(const hy_device_caps *caps, int uses_ring, int64_t slot_bytes) {
  return caps->backend == HYFFT_BACKEND_CUDA && uses_ring && slot_bytes <= ((int64_t)2 << 20);
}

/* The bytes of L2 one chunk of the batch may take when the passes of a
 * plan run chunk by chunk (the generator's L2 chunks, codegen.c). None by
 * default: on the H100 every plan kind that could run chunked ran slower
 * so (3D real batches, plans through a workspace, the plane plans of 3D
 * C2C): the launch gaps and the idle SMs at each chunk's tail cost more
 * than the DRAM traffic L2 saves (docs/performance.md). $HYFFT_L2_CHUNK
 * sets the budget for every plan (0: never). */
static int64_t hy_model_l2_chunk(void) {
  int64_t budget = 0;
  const char *env = hy_settings_get()->l2_chunk_raw;
  if (env && *env) budget = strtoll(env, NULL, 10);
  return budget > 0 ? budget : 0;
}

/* Rader's convolution (length p - 1) against Bluestein's (a power of two
 * or a 3-5-smooth length past 2p - 1), with both in one pass: Rader's
 * convolution is about half as long, and wins wherever p - 1 has no prime
 * factor above 5 (101 = 1 + 4*25 and 401 = 1 + 16*25 1.5-1.6x faster,
 * 257 = 1 + 2^8 2.1x); where p - 1 has a factor 7 its radix-7 stages make
 * it slower than Bluestein's power-of-two length (127 = 1 + 2*9*7, 1009
 * = 1 + 16*9*7; measured on the H100, docs/performance.md):
 * hy_rader_one_pass_pays. On the CPU the rule is every prime whose p - 1
 * factors into the engine's radices: its convolution runs p - 1 long in
 * the engine's own transforms where Bluestein's runs 2p - 2 or more, and
 * Bluestein's extra chirp steps cost as much as a radix-7 or -9 stage
 * (measured against FFTW, docs/performance.md). *out is a copy of pass,
 * turned into HY_ALGO_RADER where pass is a one-pass Bluestein DFT of a
 * prime n and the rule, $HYFFT_RADER or the switch rader= says so;
 * returns 1 when it did that. */
static int hy_rader_one_pass(const hy_pass *pass, int cpu, hy_pass *out) {
  *out = *pass;
  if (pass->op != HY_PASS_DFT || pass->algo != HY_ALGO_BLUESTEIN || pass->twiddle_loop >= 0 ||
      pass->fuse != HY_FUSE_NONE || pass->plane_inner > 0)
    return 0;
  int64_t n = pass->axis.n;
  if (n < 3 || n - 1 > (cpu ? INT32_MAX - 1 : 65536) || hy_largest_prime_factor(n) != n)
    return 0;
  /* The rule above, then $HYFFT_RADER, then the switch "rader=0/1" from
   * $HYFFT_KERNEL_SPEC and from the pass's own variant (the tuner tries
   * both). */
  hy_kernel_spec probe;
  memset(&probe, 0, sizeof probe);
  probe.rader = cpu ? 1 : hy_rader_one_pass_pays(n);
  const char *env = hy_settings_get()->rader_raw;
  if (env && strcmp(env, "1") == 0) probe.rader = 1;
  if (env && strcmp(env, "0") == 0) probe.rader = 0;
  hy_kernel_spec_apply(&probe, hy_settings_get()->kernel_spec);
  hy_kernel_spec_apply(&probe, pass->kernel_spec);
  if (!probe.rader) return 0;
  int factors[HY_MAX_FACTORS], nf = 0;
  if (hy_factorize(n - 1, HY_MAX_DIRECT_PRIME, factors, &nf) != HYFFT_SUCCESS) {
    hy_error_clear();
    return 0;
  }
  out->algo = HY_ALGO_RADER;
  out->bluestein_m = n - 1;
  out->nfactors = nf;
  for (int i = 0; i < nf; i++) out->factors[i] = factors[i];
  return 1;
}

hy_status hy_planner_finalize(const hy_problem *problem, const hy_device_caps *caps,
                              hy_plan_tree *tree) {
  tree->specs_ready = 0;
  tree->l2_chunk_bytes = 0;
  if (caps->backend == HYFFT_BACKEND_CPU) {
    /* The CPU engine takes no kernel spec: only the algorithm of prime
     * passes is decided here. */
    for (int i = 0; i < tree->npasses; i++) {
      hy_pass chosen;
      hy_rader_one_pass(&tree->passes[i], 1, &chosen);
      tree->passes[i] = chosen;
    }
    return HYFFT_SUCCESS;
  }
  const char *env_spec = hy_settings_get()->kernel_spec;
  const char *rev = hy_settings_get()->reverse_raw;
  const char *chunk_env = hy_settings_get()->l2_chunk_raw;
  /* Whether the passes will run chunk by chunk of the batch, known
   * before any spec. */
  const int chunked = hy_model_l2_chunk() > 0;
  for (int i = 0; i < tree->npasses; i++) {
    hy_pass *pass = &tree->passes[i];
    hy_pass chosen;
    hy_rader_one_pass(pass, 0, &chosen);
    *pass = chosen;
    hy_kernel_spec spec;
    HY_TRY(hy_model_spec(problem, pass, caps, chunked, &spec));
    /* Every second pass of a multi-pass plan runs its blocks from the last
     * to the first, so it begins with the data its predecessor wrote last,
     * which L2 still holds. Baked into the kernel: a launch-time choice
     * costs short transforms an index computation per element.
     * $HYFFT_REVERSE=0 turns it off; the switch reverse= overrides. */
    spec.reverse_blocks = tree->npasses >= 2 && i % 2 == 1 && !(rev && strcmp(rev, "0") == 0);
    hy_kernel_spec named;
    memset(&named, 0, sizeof named);
    named.reverse_blocks = -1;
    hy_kernel_spec_apply(&named, env_spec);
    hy_kernel_spec_apply(&named, pass->kernel_spec);
    if (named.reverse_blocks >= 0) spec.reverse_blocks = named.reverse_blocks;
    /* $HYFFT_L2_CHUNK asks for the chunked launches instead of the
     * persistent kernel's default. */
    if (spec.persist < 0 && chunk_env && *chunk_env) spec.persist = 0;
    /* Half-precision storage: the generator converts in each pass's own
     * kernel (cg_storage.c); the persistent kernel has no such accesses,
     * so these plans never run as one. */
    if (hy_precision_is_half(problem->storage)) spec.persist = 0;
    /* Callbacks likewise: the generator routes the first and last passes'
     * own kernels through them (cg_storage.c), so callback plans keep one
     * kernel per pass (the generator refuses the persistent one too). */
    if (problem->load_cb || problem->store_cb) spec.persist = 0;
    /* The switch reads back what the tree holds: 1 where the pass is Rader. */
    spec.rader = pass->algo == HY_ALGO_RADER;
    pass->spec = spec;
  }
  tree->l2_chunk_bytes = hy_model_l2_chunk();
  tree->specs_ready = 1;
  return HYFFT_SUCCESS;
}
