/* Real transforms (R2C forward, C2R backward) on every backend.
 *
 * The last transform axis (length n) is the real one; its complex side
 * holds h = n/2 + 1 elements. The other axes are ordinary C2C passes over
 * those h-element rows: after the real axis for R2C (in place on the
 * output), before it for C2R.
 *
 * Along the real axis:
 *   even n = 2m, R2C: the reals viewed as m complex values z_j = x_2j +
 *     i x_2j+1, a DFT of length m, then HY_PASS_R2C_POST (in place on the
 *     output) forms the m + 1 outputs. The DFT reads the input directly
 *     where its layout allows the complex view (unit stride along the real
 *     axis, every other real stride even), else a HY_PASS_WIDEN with
 *     real_pairs packs it into WORK0 first.
 *   even n, C2R: HY_PASS_C2R_PRE turns the m + 1 inputs into the m values
 *     whose DFT of length m (sign +1) is x_2j + i x_2j+1, written straight
 *     into the output viewed as complex where its layout allows, else into
 *     WORK0 and unpacked by HY_PASS_NARROW with real_pairs.
 *   odd n, R2C: HY_PASS_WIDEN into WORK0 (imaginary parts 0), a complex
 *     DFT of length n in place there, and a copy of its first h outputs.
 *   odd n, C2R: HY_PASS_C2R_EXTEND rebuilds the whole Hermitian spectrum
 *     in WORK0, a complex DFT of length n (sign +1) in place, and
 *     HY_PASS_NARROW keeps the real parts.
 *   odd n on a GPU, where the DFT is one mixed-radix or Bluestein pass:
 *     that pass
 *     alone, reading reals (R2C) or the Hermitian extension of the half
 *     spectrum (C2R) and storing the first h outputs (R2C) or the real
 *     parts (C2R): HY_FUSE_R2C_ODD / HY_FUSE_C2R_ODD, one pass over the
 *     data instead of three.
 *   odd n on a GPU whose largest prime factor does not fit a pass: one
 *     fused Bluestein chain (four passes) from the reals to the half
 *     spectrum (R2C) or, from the input, the other way (C2R), its ends
 *     marked by hy_pass.real_end; a four-step split could not hold the
 *     factor. Where the convolution is too long for the fused chain, the
 *     unfused chain (chirp passes around two transforms of the
 *     convolution) with the same ends.
 *   n = 1: one WIDEN (R2C) or NARROW (C2R) pass.
 * C2R follows FFTW: the result is as if the imaginary parts of the
 * self-conjugate bins (0, and n/2 for even n) were 0. An out-of-place C2R
 * never writes its input unless the plan allows it (HYFFT_DESTROY_INPUT):
 * the C2C passes of a multi-dimensional one go from the input into WORK0,
 * and the real axis then works from there; allowed, they run in place on
 * the input (no workspace, one buffer less in flight).
 *
 * On a GPU each DFT pass is one kernel and the pointwise steps are the
 * generator's real kernels (codegen/cg_real.c), except that the
 * even-length R2C_POST and C2R_PRE steps go into the half-length DFT pass
 * itself (its store or load, HY_FUSE_R2C_POST / HY_FUSE_C2R_PRE) where
 * that DFT is one pass of its own: one pass over the data along the real
 * axis instead of two; and where that DFT is the four-step solver's two
 * passes, into the last pass's store (R2C, rows j and L - j paired in one
 * work-group, an even number of rows) or the first pass's load (C2R)
 * (hy_real_split_fuse): two passes instead of three. The CPU does the
 * same in its engine's gather and scatter (backend/cpu/cpu_engine_lanes.h)
 * where the half-length DFT is gathered whole, and per transform beside a
 * four-step DFT. A problem whose DFTs do
 * not fit one pass takes the four-step solver's passes for that DFT
 * (hy_real_dft); a multi-dimensional out-of-place C2R whose long odd real
 * axis cannot take them behind its half spectrum in WORK0 keeps that half
 * spectrum in WORK1 instead (hy_real_c2r); one whose outer axis has a
 * prime factor too long for a pass copies the half spectrum into WORK1
 * and runs that axis's Bluestein chain from there
 * (hy_real_c2r_copy_outer), and a long DFT in the work buffers takes the
 * chain from WORK0 (hy_real_dft_in_work). unit.plan_sweep checks that
 * every problem it draws plans; were one not to, the solver gives
 * HYFFT_NO_SOLVER, which exec/plan.c reports as HYFFT_NOT_SUPPORTED. */
#include <string.h>

#include "planner/kernel_model.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "solvers/four_step.h"
#include "util/settings.h"

typedef struct hy_real_ctx {
  const hy_problem *problem;
  const hy_device_caps *caps;
  hy_plan_tree *tree;
} hy_real_ctx;

static hy_status hy_real_add(hy_real_ctx *c, hy_pass_op op, int sign, hy_buffer src,
                             int64_t src_offset, hy_buffer dst, int64_t dst_offset,
                             hy_pass **out) {
  if (c->tree->npasses >= HY_MAX_PASSES)
    return hy_error(HYFFT_INTERNAL, "real solver: more than %d passes", HY_MAX_PASSES);
  hy_pass *pass = &c->tree->passes[c->tree->npasses++];
  hy_pass_init(pass, op, c->problem->precision, sign);
  pass->src = src;
  pass->dst = dst;
  pass->src_offset = src_offset;
  pass->dst_offset = dst_offset;
  *out = pass;
  return HYFFT_SUCCESS;
}

/* A DFT of length n along `axis` over the loops: one pass with its
 * algorithm, or, on a GPU where that pass would not fit, the four-step
 * solver's passes for the axis (solvers/four_step.c: two or three passes,
 * or a prime's chain), whose intermediates take the work buffer that is
 * neither end. Those take no offsets: a long DFT at an offset gets
 * HYFFT_NO_SOLVER. */
static hy_status hy_real_dft(hy_real_ctx *c, int64_t n, int sign, hy_buffer src,
                             int64_t src_offset, hy_buffer dst, int64_t dst_offset,
                             hyfft_dim axis, int nloops, const hyfft_dim *loops) {
  int64_t limit = c->caps->max_pass_length[c->problem->precision];
  if (c->caps->backend != HYFFT_BACKEND_CPU) {
    hy_pass probe;
    hy_pass_init(&probe, HY_PASS_DFT, c->problem->precision, sign);
    probe.axis.n = n;
    HY_TRY(hy_choose_dft_algo(n, c->caps, &probe));
    if (hy_pass_computed_length(&probe) > limit) {
      if (src_offset != 0 || dst_offset != 0 || limit < 4) return HYFFT_NO_SOLVER;
      hy_fs_ctx fs = hy_fs_context(c->problem, c->caps, c->tree);
      return hy_fs_axis(&fs, n, sign, src, axis.in_stride, dst, axis.out_stride, nloops, loops);
    }
  }
  hy_pass *pass = NULL;
  HY_TRY(hy_real_add(c, HY_PASS_DFT, sign, src, src_offset, dst, dst_offset, &pass));
  pass->axis = axis;
  pass->axis.n = n;
  HY_TRY(hy_choose_dft_algo(n, c->caps, pass));
  pass->nloops = nloops;
  for (int l = 0; l < nloops; l++) pass->loops[l] = loops[l];
  return HYFFT_SUCCESS;
}

/* Whether the pass just added for the half-length DFT of an even real
 * axis (length m) may take the axis's pre- or post-processing step into
 * its load or store (HY_FUSE_C2R_PRE / HY_FUSE_R2C_POST): one mixed-radix
 * pass of its own (not the four-step solver's) and, on a GPU, local
 * memory for a whole transform; on the CPU any length: the engine does
 * the step in its gather (C2R) or scatter (R2C), or per transform next to
 * a four-step DFT (hy_model_real_cpu_fuses). $HYFFT_REAL_UNFUSED keeps
 * the step a pass. */
static int hy_real_fusable(hy_real_ctx *c, int passes_before, int64_t m) {
  if (hy_settings_get()->real_unfused || c->tree->npasses != passes_before + 1) return 0;
  const hy_pass *p = &c->tree->passes[passes_before];
  return p->op == HY_PASS_DFT && p->algo == HY_ALGO_MIXED_RADIX && p->axis.n == m &&
         p->twiddle_loop < 0 && p->plane_inner == 0 && p->fuse == HY_FUSE_NONE &&
         (hy_model_real_fuse_fits(c->caps, p->precision, m) ||
          hy_model_real_cpu_fuses(c->caps, m));
}

/* Where the half-length DFT (length m) just added at `before` is the
 * four-step solver's two passes, A (along the split's first factor, with
 * its twiddle) then B, the even-length step goes into one of them in its
 * split form (planner/plan.h): R2C_POST into B's store, whose rows are
 * its last loop, C2R_PRE into A's load, whose rows are its twiddle loop.
 * For R2C, rows j and L - j meet in one work-group, so the step pairs
 * every element on chip as in the one-pass form; the C2R step reads both
 * elements of a pair from global memory itself. Two passes along the
 * real axis instead of three. Where the R2C row count L is odd, the
 * split has three passes or another algorithm, or the model finds no
 * work-group that fits (hy_model_real_split_fits), the step stays a
 * pass. `pre` is the C2R_PRE pass before the DFT (NULL for R2C), whose
 * input pass A then reads instead; it must not be A's work buffer.
 * Returns the fused pass's index, or -1 (nothing changed). */
static int hy_real_split_fuse(hy_real_ctx *c, int before, int64_t m, int64_t n,
                              const hy_pass *pre) {
  if (hy_settings_get()->real_unfused || c->caps->backend == HYFFT_BACKEND_CPU ||
      c->tree->npasses != before + 2)
    return -1;
  const hy_pass *a = &c->tree->passes[before], *b = &c->tree->passes[before + 1];
  if (a->op != HY_PASS_DFT || b->op != HY_PASS_DFT || a->algo != HY_ALGO_MIXED_RADIX ||
      b->algo != HY_ALGO_MIXED_RADIX || a->twiddle_loop < 0 || a->twiddle_n != m ||
      b->twiddle_loop >= 0 || a->fuse != HY_FUSE_NONE || b->fuse != HY_FUSE_NONE ||
      a->plane_inner > 0 || b->plane_inner > 0 || a->axis.n * b->axis.n != m || b->nloops < 1 ||
      b->loops[b->nloops - 1].n != a->axis.n || a->loops[a->twiddle_loop].n != b->axis.n)
    return -1;
  hy_pass f = pre ? *a : *b;
  f.fuse_loop = pre ? a->twiddle_loop : b->nloops - 1;
  if (!pre && f.loops[f.fuse_loop].n % 2 != 0) return -1;
  if (pre) {
    /* Pass A reads the half spectrum where the step read it. */
    if (pre->src == a->dst || a->twiddle_loop != pre->nloops || a->nloops != pre->nloops + 1)
      return -1;
    int64_t L = f.loops[f.fuse_loop].n;
    f.src = pre->src;
    f.src_offset = pre->src_offset;
    f.axis.in_stride = L * pre->axis.in_stride;
    f.loops[f.fuse_loop].in_stride = pre->axis.in_stride;
    for (int l = 0; l < pre->nloops; l++) f.loops[l].in_stride = pre->loops[l].in_stride;
  }
  f.fuse = pre ? HY_FUSE_C2R_PRE : HY_FUSE_R2C_POST;
  f.fuse_sign = pre ? 1 : -1;
  f.chirp_n = n;
  if (!hy_model_real_split_fits(c->problem, &f, c->caps)) return -1;
  int at = pre ? before : before + 1;
  c->tree->passes[at] = f;
  return at;
}

/* Whether an odd real axis of length n takes its steps into the one DFT
 * pass of length n (HY_FUSE_R2C_ODD / HY_FUSE_C2R_ODD): on a GPU, a
 * mixed-radix or Bluestein DFT that fits one pass (Bluestein's load
 * chirps what the step reads, its store keeps what the step keeps); on
 * the CPU, a mixed-radix DFT that runs as one gathered lane group
 * (lane_group_max), whose gather and scatter take the steps.
 * $HYFFT_REAL_UNFUSED keeps the steps passes of their own. */
static int hy_real_odd_fusable(hy_real_ctx *c, int64_t n) {
  if (hy_settings_get()->real_unfused || n < 3) return 0;
  hy_pass probe;
  hy_pass_init(&probe, HY_PASS_DFT, c->problem->precision, -1);
  probe.axis.n = n;
  if (hy_choose_dft_algo(n, c->caps, &probe) != HYFFT_SUCCESS) return 0;
  if (c->caps->backend == HYFFT_BACKEND_CPU)
    return probe.algo == HY_ALGO_MIXED_RADIX && n <= c->caps->lane_group_max[c->problem->precision];
  return (probe.algo == HY_ALGO_MIXED_RADIX || probe.algo == HY_ALGO_BLUESTEIN) &&
         hy_pass_computed_length(&probe) <= c->caps->max_pass_length[c->problem->precision];
}

/* Whether an even real axis of length n whose reals are not complex pairs
 * in memory (a strided real axis, interleaved transforms, an odd distance
 * between rows: hy_real_viewable fails) takes the one-pass steps of an odd
 * one on the CPU: the full-length DFT reads the reals straight into its
 * lane group (or stores the real parts from it), where the half-length
 * route packs the pairs into WORK0 first (or unpacks them from it), one
 * more pass over the data. The full-length DFT does about 2.5 n (log2 n -
 * 1) more flops per transform; while the lane group's n complex values
 * stay in one core's L1 (lane_group_l1_max) that costs less than the pass
 * (docs/performance.md, "CPU: even real axes that are not complex pairs").
 * The C2R step reads X_n/2's imaginary part as it is; it adds only to the
 * imaginary parts of the outputs, which are not stored, as FFTW's rule
 * wants. */
static int hy_real_even_one_pass(hy_real_ctx *c, int64_t n) {
  return c->caps->backend == HYFFT_BACKEND_CPU &&
         n <= c->caps->lane_group_l1_max[c->problem->precision] && hy_real_odd_fusable(c, n);
}

/* A DFT of length n over dense rows in WORK0 at `off`, in place there; on
 * a GPU, where that needs a third buffer (a split into three or more
 * passes between the work buffers) and off is 0, with its passes
 * alternating between WORK0 and WORK1 instead (four_step.c). *at names
 * the buffer that holds the result. */
static hy_status hy_real_dft_in_work(hy_real_ctx *c, int64_t n, int sign, int64_t off, int nloops,
                                     const hyfft_dim *loops, hy_buffer *at) {
  hy_fs_mark mark = hy_fs_mark_tree(c->tree);
  *at = HY_BUF_WORK0;
  hy_status st = hy_real_dft(c, n, sign, HY_BUF_WORK0, off, HY_BUF_WORK0, off,
                             (hyfft_dim){n, 1, 1}, nloops, loops);
  int64_t limit = c->caps->max_pass_length[c->problem->precision];
  if (st != HYFFT_NO_SOLVER || off != 0 || c->caps->backend == HYFFT_BACKEND_CPU || limit < 4)
    return st;
  hy_fs_rollback(c->tree, mark);
  hy_fs_ctx fs = hy_fs_context(c->problem, c->caps, c->tree);
  st = hy_fs_axis_alternating(&fs, n, sign, HY_BUF_WORK0, 1, 1, nloops, loops, at);
  if (st != HYFFT_NO_SOLVER) return st;
  /* A prime factor too long for a pass: the unfused Bluestein chain from
   * WORK0, the result in whichever work buffer it lands. */
  hy_fs_rollback(c->tree, mark);
  fs = hy_fs_context(c->problem, c->caps, c->tree);
  return hy_fs_bluestein_in_work(&fs, n, sign, HY_BUF_WORK0, 1, 1, nloops, loops, at);
}

/* An odd real axis of length n too long for one GPU pass, from the real
 * end src to dst (R2C: reals in, the half spectrum out; C2R: the other
 * way), as one fused Bluestein chain (solvers/bluestein.c): 1 where it was
 * added, 0 where it does not apply (nothing added). */
static int hy_real_odd_chain(hy_real_ctx *c, int64_t n, int real_end, hy_buffer src,
                             int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops,
                             const hyfft_dim *loops) {
  int64_t limit = c->caps->max_pass_length[c->problem->precision];
  if (c->caps->backend == HYFFT_BACKEND_CPU || limit < 4) return 0;
  /* Lengths whose DFT fits one pass take that pass. "Fits" counts what the
   * pass computes: a prime below the limit may still need a Bluestein
   * length past it (f64 4099: 8748 > 8192). */
  hy_pass probe;
  hy_pass_init(&probe, HY_PASS_DFT, c->problem->precision, -1);
  probe.axis.n = n;
  if (hy_choose_dft_algo(n, c->caps, &probe) == HYFFT_SUCCESS &&
      hy_pass_computed_length(&probe) <= limit)
    return 0;
  hy_fs_ctx fs = hy_fs_context(c->problem, c->caps, c->tree);
  /* Only where a four-step split cannot hold the length's largest prime
   * factor: a smooth length splits at about half Bluestein's cost. */
  hy_pass_init(&probe, HY_PASS_DFT, c->problem->precision, -1);
  hy_status st;
  if (hy_fs_fits(&fs, hy_largest_prime_factor(n), &probe, &st)) return 0;
  if (hy_fs_bluestein_real(&fs, n, real_end, src, in_stride, dst, out_stride, nloops, loops) ==
      HYFFT_SUCCESS)
    return 1;
  /* A convolution too long for the fused chain's two passes per
   * transform (2^26 points and more on an H100 in f64): the unfused
   * chain, its pointwise ends reading and writing the real sides. */
  return hy_fs_bluestein_real_chain(&fs, n, real_end, src, in_stride, dst, out_stride, nloops,
                                    loops) == HYFFT_SUCCESS;
}

static void hy_real_set_fuse(hy_pass *p, hy_fuse step, int64_t n) {
  p->fuse = step;
  p->fuse_loop = -1;
  p->fuse_sign = step == HY_FUSE_R2C_POST ? -1 : 1;
  p->chirp_n = n;
}

/* A pointwise pass over the loops. */
static hy_status hy_real_point(hy_real_ctx *c, hy_pass_op op, int sign, int pairs,
                               hy_buffer src, int64_t src_offset, hy_buffer dst,
                               int64_t dst_offset, hyfft_dim axis, int nloops,
                               const hyfft_dim *loops) {
  hy_pass *pass = NULL;
  HY_TRY(hy_real_add(c, op, sign, src, src_offset, dst, dst_offset, &pass));
  pass->axis = axis;
  pass->real_pairs = pairs;
  pass->nloops = nloops;
  for (int l = 0; l < nloops; l++) pass->loops[l] = loops[l];
  return HYFFT_SUCCESS;
}

/* The outer loops of the real axis: the batch dims, then the transform
 * dims but the last, as the problem has them. */
static int hy_real_outer(const hy_problem *p, hyfft_dim *outer) {
  int k = 0;
  for (int b = 0; b < p->batch_rank; b++) outer[k++] = p->batch[b];
  for (int d = 0; d + 1 < p->rank; d++) outer[k++] = p->dims[d];
  return k;
}

/* Dense strides for loops of the given lengths around rows of `inner`
 * elements (the last loop innermost); *total is the elements they span. */
static hy_status hy_real_dense(int nloops, const hyfft_dim *loops, int64_t inner, int64_t *dense,
                               int64_t *total) {
  int64_t s = inner;
  *total = 0;
  for (int l = nloops - 1; l >= 0; l--) {
    dense[l] = s;
    if (hy_mul_overflow_i64(s, loops[l].n, &s))
      return hy_error(HYFFT_SIZE_OVERFLOW, "real solver: the workspace size overflows int64");
  }
  *total = s;
  return HYFFT_SUCCESS;
}

/* Whether the real end (input of R2C, output of C2R) may be viewed as
 * complex: unit stride along the real axis and every other stride even. */
static int hy_real_viewable(const hy_problem *p, int output) {
  const hyfft_dim *last = &p->dims[p->rank - 1];
  if ((output ? last->out_stride : last->in_stride) != 1) return 0;
  hyfft_dim outer[HY_MAX_LOOPS];
  int k = hy_real_outer(p, outer);
  for (int l = 0; l < k; l++)
    if ((output ? outer[l].out_stride : outer[l].in_stride) % 2 != 0) return 0;
  return 1;
}

static void hy_real_use_work(hy_real_ctx *c, int64_t elems) {
  if (elems > c->tree->work_elems[0]) c->tree->work_elems[0] = elems;
}

/* The C2C passes along the transform axes but the last, over rows of h
 * complex elements, from (src, strides of side `from`) to dst in place
 * after the first. strides[] hold, per outer loop (hy_real_outer order)
 * and then the last axis, the layout of src (first pass) and of dst. */
static hy_status hy_real_outer_axes(hy_real_ctx *c, int sign, hy_buffer src,
                                    const int64_t *src_strides, hy_buffer dst,
                                    const int64_t *dst_strides) {
  const hy_problem *p = c->problem;
  int64_t h = p->dims[p->rank - 1].n / 2 + 1;
  hyfft_dim outer[HY_MAX_LOOPS];
  int k = hy_real_outer(p, outer), nb = p->batch_rank;
  for (int d = p->rank - 2, step = 0; d >= 0; d--, step++) {
    const int64_t *is = step == 0 ? src_strides : dst_strides;
    hyfft_dim loops[HY_MAX_LOOPS];
    int nloops = 0;
    for (int l = 0; l < k; l++)
      if (l != nb + d) loops[nloops++] = (hyfft_dim){outer[l].n, is[l], dst_strides[l]};
    loops[nloops++] = (hyfft_dim){h, is[k], dst_strides[k]};
    HY_TRY(hy_real_dft(c, p->dims[d].n, sign, step == 0 ? src : dst, 0, dst, 0,
                       (hyfft_dim){0, is[nb + d], dst_strides[nb + d]}, nloops, loops));
  }
  return HYFFT_SUCCESS;
}

static hy_status hy_real_r2c(hy_real_ctx *c) {
  const hy_problem *p = c->problem;
  const hyfft_dim last = p->dims[p->rank - 1];
  const int64_t n = last.n, h = n / 2 + 1, m = n / 2;
  hyfft_dim outer[HY_MAX_LOOPS], loops[HY_MAX_LOOPS] = {{0, 0, 0}};
  int k = hy_real_outer(p, outer);
  int64_t dense[HY_MAX_LOOPS] = {0}, total = 0;
  if (n == 1) {
    HY_TRY(hy_real_point(c, HY_PASS_WIDEN, -1, 0, HY_BUF_IN, 0, HY_BUF_OUT, 0,
                         (hyfft_dim){1, last.in_stride, last.out_stride}, k, outer));
  } else if (n % 2 == 0 && (hy_real_viewable(p, 0) || !hy_real_even_one_pass(c, n))) {
    hy_buffer from = HY_BUF_IN;
    int64_t from_axis = 1;
    if (hy_real_viewable(p, 0)) {
      for (int l = 0; l < k; l++) dense[l] = outer[l].in_stride / 2;
    } else {
      HY_TRY(hy_real_dense(k, outer, m, dense, &total));
      hy_real_use_work(c, total);
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, outer[l].in_stride, dense[l]};
      HY_TRY(hy_real_point(c, HY_PASS_WIDEN, -1, 1, HY_BUF_IN, 0, HY_BUF_WORK0, 0,
                           (hyfft_dim){m, last.in_stride, 1}, k, loops));
      from = HY_BUF_WORK0;
    }
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, dense[l], outer[l].out_stride};
    int before = c->tree->npasses;
    HY_TRY(hy_real_dft(c, m, -1, from, 0, HY_BUF_OUT, 0,
                       (hyfft_dim){m, from_axis, last.out_stride}, k, loops));
    if (hy_real_fusable(c, before, m)) {
      /* The DFT pass stores the m + 1 outputs itself. */
      hy_real_set_fuse(&c->tree->passes[before], HY_FUSE_R2C_POST, n);
    } else if (hy_real_split_fuse(c, before, m, n, NULL) >= 0) {
      /* So does the last pass of its four-step split. */
    } else {
      for (int l = 0; l < k; l++)
        loops[l] = (hyfft_dim){outer[l].n, outer[l].out_stride, outer[l].out_stride};
      HY_TRY(hy_real_point(c, HY_PASS_R2C_POST, -1, 0, HY_BUF_OUT, 0, HY_BUF_OUT, 0,
                           (hyfft_dim){h, last.out_stride, last.out_stride}, k, loops));
    }
  } else if (hy_real_odd_fusable(c, n)) {
    /* One pass: reals in, the first h outputs out (odd n, or an even n
     * whose reals are not complex pairs: hy_real_even_one_pass). */
    for (int l = 0; l < k; l++)
      loops[l] = (hyfft_dim){outer[l].n, outer[l].in_stride, outer[l].out_stride};
    int before = c->tree->npasses;
    HY_TRY(hy_real_dft(c, n, -1, HY_BUF_IN, 0, HY_BUF_OUT, 0,
                       (hyfft_dim){n, last.in_stride, last.out_stride}, k, loops));
    hy_pass *dft = &c->tree->passes[before];
    dft->fuse = HY_FUSE_R2C_ODD;
    dft->fuse_loop = -1;
  } else {
    /* Too long for one GPU pass: the fused Bluestein chain from the reals
     * straight to the half spectrum where it applies, else the reals
     * widened into WORK0, the DFT there, and the first h outputs copied. */
    for (int l = 0; l < k; l++)
      loops[l] = (hyfft_dim){outer[l].n, outer[l].in_stride, outer[l].out_stride};
    if (!hy_real_odd_chain(c, n, 1, HY_BUF_IN, last.in_stride, HY_BUF_OUT, last.out_stride, k,
                           loops)) {
      HY_TRY(hy_real_dense(k, outer, n, dense, &total));
      hy_real_use_work(c, total);
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, outer[l].in_stride, dense[l]};
      HY_TRY(hy_real_point(c, HY_PASS_WIDEN, -1, 0, HY_BUF_IN, 0, HY_BUF_WORK0, 0,
                           (hyfft_dim){n, last.in_stride, 1}, k, loops));
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, dense[l], dense[l]};
      hy_buffer at;
      HY_TRY(hy_real_dft_in_work(c, n, -1, 0, k, loops, &at));
      /* The first h outputs: a copy whose innermost loop is the axis. */
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, dense[l], outer[l].out_stride};
      loops[k] = (hyfft_dim){h, 1, last.out_stride};
      hy_pass *copy = NULL;
      HY_TRY(hy_real_add(c, HY_PASS_COPY, -1, at, 0, HY_BUF_OUT, 0, &copy));
      copy->axis = (hyfft_dim){1, 1, 1};
      copy->nloops = k + 1;
      for (int l = 0; l <= k; l++) copy->loops[l] = loops[l];
    }
  }
  /* The other axes in place on the output. */
  int64_t os[HY_MAX_LOOPS];
  for (int l = 0; l < k; l++) os[l] = outer[l].out_stride;
  os[k] = last.out_stride;
  return hy_real_outer_axes(c, -1, HY_BUF_OUT, os, HY_BUF_OUT, os);
}

/* C2R: where the DFT pass just added (at index `before`, after the
 * C2R_PRE pass at before - 1) may take that step into its load, it reads
 * what the step read, from where the step read it, and the step goes. */
static void hy_real_fuse_pre(hy_real_ctx *c, int before, int64_t m, int64_t n) {
  if (hy_real_split_fuse(c, before, m, n, &c->tree->passes[before - 1]) >= 0) {
    /* The first pass of the DFT's four-step split takes the step. */
    memmove(&c->tree->passes[before - 1], &c->tree->passes[before],
            (size_t)(c->tree->npasses - before) * sizeof c->tree->passes[0]);
    c->tree->npasses--;
    return;
  }
  if (!hy_real_fusable(c, before, m)) return;
  hy_pass *pre = &c->tree->passes[before - 1], *dft = &c->tree->passes[before];
  dft->src = pre->src;
  dft->src_offset = pre->src_offset;
  dft->axis.in_stride = pre->axis.in_stride;
  for (int l = 0; l < dft->nloops; l++) dft->loops[l].in_stride = pre->loops[l].in_stride;
  hy_real_set_fuse(dft, HY_FUSE_C2R_PRE, n);
  *pre = *dft;
  c->tree->npasses--;
}

/* The half spectrum of an out-of-place multi-dimensional C2R copied
 * into WORK1 (dense rows of h, strides ss[] per outer loop, ss[k] = 1)
 * and its outer axes transformed there in place: for an outer axis with
 * a prime factor too long for a pass, whose Bluestein chain cannot start
 * from the kept input into a work buffer. The chain reads WORK1 once and
 * lands in either work buffer (solvers/bluestein.c); where it lands in
 * WORK0, a copy brings the spectrum back. */
static hy_status hy_real_c2r_copy_outer(hy_real_ctx *c, int64_t *ss, int64_t *s_elems) {
  const hy_problem *p = c->problem;
  const hyfft_dim last = p->dims[p->rank - 1];
  const int64_t h = last.n / 2 + 1;
  hyfft_dim outer[HY_MAX_LOOPS], loops[HY_MAX_LOOPS];
  int k = hy_real_outer(p, outer), nb = p->batch_rank;
  HY_TRY(hy_real_dense(k, outer, h, ss, s_elems));
  ss[k] = 1;
  if (*s_elems > c->tree->work_elems[1]) c->tree->work_elems[1] = *s_elems;
  for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, outer[l].in_stride, ss[l]};
  loops[k] = (hyfft_dim){h, last.in_stride, 1};
  hy_pass *copy = NULL;
  HY_TRY(hy_real_add(c, HY_PASS_COPY, 1, HY_BUF_IN, 0, HY_BUF_WORK1, 0, &copy));
  copy->axis = (hyfft_dim){1, 1, 1};
  copy->nloops = k + 1;
  for (int l = 0; l <= k; l++) copy->loops[l] = loops[l];
  for (int d = p->rank - 2; d >= 0; d--) {
    int nloops = 0;
    for (int l = 0; l < k; l++)
      if (l != nb + d) loops[nloops++] = (hyfft_dim){outer[l].n, ss[l], ss[l]};
    loops[nloops++] = (hyfft_dim){h, 1, 1};
    int64_t ax = ss[nb + d];
    hy_fs_mark mark = hy_fs_mark_tree(c->tree);
    hy_status st = hy_real_dft(c, p->dims[d].n, 1, HY_BUF_WORK1, 0, HY_BUF_WORK1, 0,
                               (hyfft_dim){0, ax, ax}, nloops, loops);
    if (st != HYFFT_NO_SOLVER) {
      HY_TRY(st);
      continue;
    }
    hy_fs_rollback(c->tree, mark);
    hy_fs_ctx fs = hy_fs_context(c->problem, c->caps, c->tree);
    hy_buffer landed;
    HY_TRY(hy_fs_bluestein_in_work(&fs, p->dims[d].n, 1, HY_BUF_WORK1, ax, ax, nloops, loops,
                                   &landed));
    if (landed == HY_BUF_WORK0) {
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ss[l], ss[l]};
      loops[k] = (hyfft_dim){h, 1, 1};
      HY_TRY(hy_real_add(c, HY_PASS_COPY, 1, HY_BUF_WORK0, 0, HY_BUF_WORK1, 0, &copy));
      copy->axis = (hyfft_dim){1, 1, 1};
      copy->nloops = k + 1;
      for (int l = 0; l <= k; l++) copy->loops[l] = loops[l];
    }
  }
  return HYFFT_SUCCESS;
}

/* C2R with the half spectrum of a multi-dimensional out-of-place problem
 * (after its other axes) in the work buffer `spectrum` (WORK0 or WORK1);
 * with `copied`, in WORK1 by hy_real_c2r_copy_outer. */
static hy_status hy_real_c2r_via(hy_real_ctx *c, hy_buffer spectrum, int copied) {
  const hy_problem *p = c->problem;
  const hyfft_dim last = p->dims[p->rank - 1];
  const int64_t n = last.n, h = n / 2 + 1, m = n / 2;
  hyfft_dim outer[HY_MAX_LOOPS], loops[HY_MAX_LOOPS] = {{0, 0, 0}};
  int k = hy_real_outer(p, outer);
  /* Where the half spectrum is when the real axis starts: the input (a
   * rank-1 problem, or in place), else WORK0 laid out densely. */
  hy_buffer s = HY_BUF_IN;
  int64_t ss[HY_MAX_LOOPS], s_axis = last.in_stride, s_elems = 0;
  for (int l = 0; l < k; l++) ss[l] = outer[l].in_stride;
  if (copied) {
    HY_TRY(hy_real_c2r_copy_outer(c, ss, &s_elems));
    s = HY_BUF_WORK1;
    s_axis = 1;
  } else if (p->rank > 1) {
    int64_t is[HY_MAX_LOOPS];
    for (int l = 0; l < k; l++) is[l] = outer[l].in_stride;
    is[k] = last.in_stride;
    if (!p->inplace && !p->destroy_input) {
      HY_TRY(hy_real_dense(k, outer, h, ss, &s_elems));
      if (spectrum == HY_BUF_WORK1) {
        if (s_elems > c->tree->work_elems[1]) c->tree->work_elems[1] = s_elems;
        s = HY_BUF_WORK1;
      } else {
        hy_real_use_work(c, s_elems);
        s = HY_BUF_WORK0;
      }
      ss[k] = 1;
      s_axis = 1;
    } else {
      for (int l = 0; l <= k; l++) ss[l] = is[l];
    }
    HY_TRY(hy_real_outer_axes(c, 1, HY_BUF_IN, is, s, ss));
  }
  int64_t dense[HY_MAX_LOOPS] = {0}, total = 0;
  if (n == 1) {
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ss[l], outer[l].out_stride};
    HY_TRY(hy_real_point(c, HY_PASS_NARROW, 1, 0, s, 0, HY_BUF_OUT, 0,
                         (hyfft_dim){1, s_axis, last.out_stride}, k, loops));
  } else if (n % 2 == 0 && hy_real_viewable(p, 1)) {
    /* Into the output viewed as m complex values per row. */
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ss[l], outer[l].out_stride / 2};
    HY_TRY(hy_real_point(c, HY_PASS_C2R_PRE, 1, 0, s, 0, HY_BUF_OUT, 0,
                         (hyfft_dim){h, s_axis, 1}, k, loops));
    for (int l = 0; l < k; l++)
      loops[l] = (hyfft_dim){outer[l].n, outer[l].out_stride / 2, outer[l].out_stride / 2};
    int before = c->tree->npasses;
    HY_TRY(hy_real_dft(c, m, 1, HY_BUF_OUT, 0, HY_BUF_OUT, 0, (hyfft_dim){m, 1, 1}, k, loops));
    hy_real_fuse_pre(c, before, m, n);
  } else if (n % 2 == 0 && !hy_real_even_one_pass(c, n)) {
    /* Through WORK0: in place where the half spectrum already is there
     * (rows of h hold the m values), else dense rows of m behind it. */
    int64_t *ws = dense, w_axis = 1, off = 0;
    if (s == HY_BUF_WORK0) {
      ws = ss;
      w_axis = s_axis;
    } else {
      HY_TRY(hy_real_dense(k, outer, m, dense, &total));
      hy_real_use_work(c, total);
    }
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ss[l], ws[l]};
    HY_TRY(hy_real_point(c, HY_PASS_C2R_PRE, 1, 0, s, 0, HY_BUF_WORK0, off,
                         (hyfft_dim){h, s_axis, w_axis}, k, loops));
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ws[l], ws[l]};
    int before = c->tree->npasses;
    HY_TRY(hy_real_dft(c, m, 1, HY_BUF_WORK0, off, HY_BUF_WORK0, off,
                       (hyfft_dim){m, w_axis, w_axis}, k, loops));
    hy_real_fuse_pre(c, before, m, n);
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ws[l], outer[l].out_stride};
    HY_TRY(hy_real_point(c, HY_PASS_NARROW, 1, 1, HY_BUF_WORK0, off, HY_BUF_OUT, 0,
                         (hyfft_dim){m, w_axis, last.out_stride}, k, loops));
  } else if (hy_real_odd_fusable(c, n)) {
    /* One pass: the half spectrum in, reals out (odd n, or an even n
     * whose reals are not complex pairs: hy_real_even_one_pass). */
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ss[l], outer[l].out_stride};
    int before = c->tree->npasses;
    HY_TRY(hy_real_dft(c, n, 1, s, 0, HY_BUF_OUT, 0, (hyfft_dim){n, s_axis, last.out_stride}, k,
                       loops));
    hy_pass *dft = &c->tree->passes[before];
    dft->fuse = HY_FUSE_C2R_ODD;
    dft->fuse_loop = -1;
  } else {
    /* Too long for one GPU pass: the fused Bluestein chain from the half
     * spectrum straight to the reals where it applies (from the input, or
     * from WORK0: its first pass reads all of that before the second
     * writes WORK0). Else the whole spectrum in dense rows of n, behind the
     * half spectrum when that is in WORK0 too, its DFT there, and the real
     * parts. */
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ss[l], outer[l].out_stride};
    if (s == HY_BUF_WORK1 ||
        !hy_real_odd_chain(c, n, 2, s, s_axis, HY_BUF_OUT, last.out_stride, k, loops)) {
      int64_t off = s == HY_BUF_WORK0 ? s_elems : 0, end;
      HY_TRY(hy_real_dense(k, outer, n, dense, &total));
      if (hy_add_overflow_i64(off, total, &end))
        return hy_error(HYFFT_SIZE_OVERFLOW, "real solver: the workspace size overflows int64");
      hy_real_use_work(c, end);
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, ss[l], dense[l]};
      HY_TRY(hy_real_point(c, HY_PASS_C2R_EXTEND, 1, 0, s, 0, HY_BUF_WORK0, off,
                           (hyfft_dim){n, s_axis, 1}, k, loops));
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, dense[l], dense[l]};
      hy_buffer at;
      HY_TRY(hy_real_dft_in_work(c, n, 1, off, k, loops, &at));
      for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, dense[l], outer[l].out_stride};
      HY_TRY(hy_real_point(c, HY_PASS_NARROW, 1, 0, at, off, HY_BUF_OUT, 0,
                           (hyfft_dim){n, 1, last.out_stride}, k, loops));
    }
  }
  return HYFFT_SUCCESS;
}

/* The plain order: the outer axes from the input into WORK0 (or in place
 * on the input), then the real axis; an out-of-place multi-dimensional
 * C2R whose outer axis that cannot take (a prime factor too long for a
 * pass) copies the half spectrum into WORK1 first. */
static hy_status hy_real_c2r_outer_first(hy_real_ctx *c) {
  const hy_problem *p = c->problem;
  hy_fs_mark mark = hy_fs_mark_tree(c->tree);
  hy_status st = hy_real_c2r_via(c, HY_BUF_WORK0, 0);
  if (st != HYFFT_NO_SOLVER || p->rank == 1 || p->inplace || p->destroy_input ||
      c->caps->backend == HYFFT_BACKEND_CPU)
    return st;
  hy_fs_rollback(c->tree, mark);
  return hy_real_c2r_via(c, HY_BUF_WORK1, 1);
}

static hy_status hy_real_c2r(hy_real_ctx *c) {
  const hy_problem *p = c->problem;
  const int64_t n = p->dims[p->rank - 1].n;
  if (p->rank == 1 || p->inplace || p->destroy_input || n % 2 == 0 || n == 1 ||
      c->caps->backend == HYFFT_BACKEND_CPU || hy_real_odd_fusable(c, n))
    return hy_real_c2r_outer_first(c);
  /* An odd real axis too long for one GPU pass behind the other axes of
   * an out-of-place problem: with the half spectrum in WORK0, either the
   * fused chain reads it from there, or the whole spectrum is rebuilt
   * behind it, where a DFT split into passes cannot go (offset != 0).
   * Then the half spectrum waits in WORK1 instead, which the split may
   * take again once the extension into WORK0 has read it. */
  hy_fs_mark mark = hy_fs_mark_tree(c->tree);
  hy_status st = hy_real_c2r_via(c, HY_BUF_WORK0, 0);
  if (st != HYFFT_NO_SOLVER) return st;
  hy_fs_rollback(c->tree, mark);
  st = hy_real_c2r_via(c, HY_BUF_WORK1, 0);
  if (st != HYFFT_NO_SOLVER) return st;
  hy_fs_rollback(c->tree, mark);
  return hy_real_c2r_via(c, HY_BUF_WORK1, 1);
}

static hy_status hy_real_plan(const hy_problem *problem, const hy_device_caps *caps,
                              hy_plan_tree *out) {
  if ((problem->kind != HYFFT_R2C && problem->kind != HYFFT_C2R) || problem->rank < 1)
    return HYFFT_NO_SOLVER;
  if (problem->batch_rank + problem->rank + 1 > HY_MAX_LOOPS)
    return hy_error(HYFFT_INTERNAL, "real solver: too many loops");
  hy_real_ctx c = {problem, caps, out};
  out->npasses = 0;
  out->work_elems[0] = out->work_elems[1] = 0;
  HY_TRY(problem->kind == HYFFT_R2C ? hy_real_r2c(&c) : hy_real_c2r(&c));
  out->passes[out->npasses - 1].scale = problem->scale;
  /* On a GPU every DFT pass is one kernel, which must fit one pass. */
  if (caps->backend != HYFFT_BACKEND_CPU)
    for (int i = 0; i < out->npasses; i++) {
      const hy_pass *p = &out->passes[i];
      if (p->op == HY_PASS_DFT && hy_pass_computed_length(p) > caps->max_pass_length[problem->precision])
        return HYFFT_NO_SOLVER;
    }
  return HYFFT_SUCCESS;
}

const hy_solver hy_solver_real = {"real", hy_real_plan};
