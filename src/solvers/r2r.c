/* Real-to-real transforms (R2R: FFTW's REDFT/RODFT kinds and the DHT) on
 * every backend.
 *
 * Each transform axis in turn (the last first, then in place on the
 * output; the transform is separable) runs as three steps over the other
 * axes and the batch:
 *   HY_PASS_R2R_PRE   the n reals of a row (from the input, or from the
 *                     output for the second and later axes) become N
 *                     complex values in WORK0, dense rows of N;
 *   HY_PASS_DFT       a complex DFT of length N in place in WORK0 (on a
 *                     GPU, the four-step solver's passes where N does not
 *                     fit one pass, alternating between WORK0 and WORK1
 *                     where they are three or more; for a prime factor
 *                     too long for a pass, PRE writes WORK1 and the
 *                     unfused Bluestein chain goes from there);
 *   HY_PASS_R2R_POST  the N values become the n reals of the output row.
 * PRE reads every row of its axis before POST writes any, so in-place
 * problems need nothing else, and an out-of-place input is never written.
 *
 * With x the n inputs of a row, X the complex DFT of the N PRE values
 * (sign -1 unless said), Y the n outputs and t the twiddles named:
 *   REDFT10 (DCT-II), N = n, Makhoul's permutation: v_j = x_2j for
 *     j < ceil(n/2), v_n-1-j = x_2j+1; Y_k = 2 Re(exp(-i pi k/(2n)) X_k).
 *   RODFT10 (DST-II) = DCT-II of (-1)^j x_j, output reversed:
 *     Y_n-1-k = DCT-II_k.
 *   REDFT01 (DCT-III), N = n, the inverse of Makhoul's step:
 *     PRE_k = exp(+i pi k/(2n)) (x_k - i x_n-k) (x_n = 0), DFT sign +1,
 *     Y_2j = Re X_j, Y_2j+1 = Re X_n-1-j.
 *   RODFT01 (DST-III) = (-1)^k DCT-III of the reversed x.
 *   REDFT11 (DCT-IV), even n, N = n/2: PRE_j = exp(-i pi (4j+1)/(4n))
 *     (x_2j + i x_n-1-2j), W_k = exp(-i pi k/n) X_k, Y_2k = 2 Re W_k,
 *     Y_n-1-2k = -2 Im W_k. Odd n, N = 2n: PRE_j = exp(-i pi j/(2n)) x_j
 *     for j < n, 0 above; Y_k = 2 Re(exp(-i pi (2k+1)/(4n)) X_k).
 *   RODFT11 (DST-IV): even n, DCT-IV of (-1)^j x_j, output reversed; odd
 *     n, as DCT-IV with Y_k = -2 Im(...).
 *   REDFT00 (DCT-I), N = 2(n-1): the even extension x_0..x_n-1,
 *     x_n-2..x_1; Y_k = Re X_k.
 *   RODFT00 (DST-I), N = 2(n+1): the odd extension 0, x_0..x_n-1, 0,
 *     -x_n-1..-x_0; Y_k = -Im X_k+1.
 *   DHT, N = n: Y_k = Re X_k - Im X_k.
 * These are FFTW's unnormalised definitions exactly (docs/api.md).
 *
 * On a GPU, where the DFT is one mixed-radix pass of its own whose whole
 * transform fits local memory, PRE goes into its load and POST into its
 * store (HY_FUSE_R2R): one kernel, one pass over the data per axis and no
 * workspace. $HYFFT_REAL_UNFUSED keeps them passes. The DFT's input is
 * real for every kind but DCT-III/DST-III and DCT-IV/DST-IV; a real DFT
 * of half the work would serve the others: DCT-II/III and DST-II/III of
 * even n and DCT-I/DST-I take it (plan.h r2r_half: a complex DFT of half
 * the real length whose store splits the real DFT, or whose load pairs
 * the Hermitian PRE values as the C2R step does), as does the DHT of even
 * n; DCT-IV/DST-IV keep the length-N form. */
#include <string.h>

#include "planner/kernel_model.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "solvers/four_step.h"
#include "util/settings.h"

typedef struct hy_r2r_ctx {
  const hy_problem *problem;
  const hy_device_caps *caps;
  hy_plan_tree *tree;
} hy_r2r_ctx;

/* The length of the complex DFT for kind k along n reals (0 on overflow). */
static int64_t hy_r2r_dft_len(hyfft_r2r_kind k, int64_t n) {
  int64_t N;
  switch (k) {
    case HYFFT_REDFT00: return hy_mul_overflow_i64(2, n - 1, &N) ? 0 : N;
    case HYFFT_RODFT00: return n == INT64_MAX || hy_mul_overflow_i64(2, n + 1, &N) ? 0 : N;
    case HYFFT_REDFT11:
    case HYFFT_RODFT11: return n % 2 == 0 ? n / 2 : hy_mul_overflow_i64(2, n, &N) ? 0 : N;
    default: return n;
  }
}

static hy_status hy_r2r_add(hy_r2r_ctx *c, hy_pass_op op, int sign, hy_buffer src, hy_buffer dst,
                            hyfft_dim axis, int nloops, const hyfft_dim *loops, hy_pass **out) {
  if (c->tree->npasses >= HY_MAX_PASSES) return HYFFT_NO_SOLVER;
  hy_pass *pass = &c->tree->passes[c->tree->npasses++];
  hy_pass_init(pass, op, c->problem->precision, sign);
  pass->src = src;
  pass->dst = dst;
  pass->axis = axis;
  pass->nloops = nloops;
  for (int l = 0; l < nloops; l++) pass->loops[l] = loops[l];
  *out = pass;
  return HYFFT_SUCCESS;
}

/* A DFT of length N in place in WORK0 along a unit-stride axis: one pass,
 * or on a GPU where that would not fit, the four-step solver's passes;
 * where those need a third buffer (a split into three or more passes),
 * with the passes alternating between WORK0 and WORK1 instead. *at names
 * the buffer that holds the result. */
static hy_status hy_r2r_dft(hy_r2r_ctx *c, int64_t N, int sign, int nloops,
                            const hyfft_dim *loops, hy_buffer *at) {
  *at = HY_BUF_WORK0;
  if (N == 1) return HYFFT_SUCCESS; /* the identity */
  if (c->caps->backend != HYFFT_BACKEND_CPU) {
    int64_t limit = c->caps->max_pass_length[c->problem->precision];
    hy_pass probe;
    hy_pass_init(&probe, HY_PASS_DFT, c->problem->precision, sign);
    probe.axis.n = N;
    HY_TRY(hy_choose_dft_algo(N, c->caps, &probe));
    if (hy_pass_computed_length(&probe) > limit) {
      if (limit < 4) return HYFFT_NO_SOLVER;
      hy_fs_ctx fs = hy_fs_context(c->problem, c->caps, c->tree);
      hy_fs_mark mark = hy_fs_mark_tree(c->tree);
      hy_status st = hy_fs_axis(&fs, N, sign, HY_BUF_WORK0, 1, HY_BUF_WORK0, 1, nloops, loops);
      if (st != HYFFT_NO_SOLVER) return st;
      hy_fs_rollback(c->tree, mark);
      st = hy_fs_axis_alternating(&fs, N, sign, HY_BUF_WORK0, 1, 1, nloops, loops, at);
      if (st != HYFFT_NO_SOLVER) return st;
      hy_fs_rollback(c->tree, mark);
      /* A prime factor too long for a pass: Bluestein, whose chain needs
       * both work buffers. The PRE pass just before writes WORK1 instead,
       * which the chain reads once and then takes over. */
      hy_pass *pre = c->tree->npasses > 0 ? &c->tree->passes[c->tree->npasses - 1] : NULL;
      if (!pre || pre->op != HY_PASS_R2R_PRE || pre->dst != HY_BUF_WORK0) return HYFFT_NO_SOLVER;
      int64_t extent = N;
      for (int l = 0; l < nloops; l++) extent += (loops[l].n - 1) * loops[l].out_stride;
      pre->dst = HY_BUF_WORK1;
      if (extent > c->tree->work_elems[1]) c->tree->work_elems[1] = extent;
      return hy_fs_bluestein_in_work(&fs, N, sign, HY_BUF_WORK1, 1, 1, nloops, loops, at);
    }
  }
  hy_pass *pass = NULL;
  HY_TRY(hy_r2r_add(c, HY_PASS_DFT, sign, HY_BUF_WORK0, HY_BUF_WORK0, (hyfft_dim){N, 1, 1},
                    nloops, loops, &pass));
  return hy_choose_dft_algo(N, c->caps, pass);
}

/* Whether the DFT pass just added (index `before`, after the PRE pass)
 * may take PRE into its load and POST into its store: a GPU, one
 * mixed-radix pass of its own (not the four-step solver's) over a whole
 * transform that fits local memory. */
static int hy_r2r_fusable(hy_r2r_ctx *c, int before, int64_t N) {
  if (c->caps->backend == HYFFT_BACKEND_CPU || hy_settings_get()->real_unfused ||
      before < 1 || c->tree->npasses != before + 1)
    return 0;
  const hy_pass *p = &c->tree->passes[before];
  return p->op == HY_PASS_DFT && p->algo == HY_ALGO_MIXED_RADIX && p->axis.n == N &&
         p->twiddle_loop < 0 && p->plane_inner == 0 && p->fuse == HY_FUSE_NONE &&
         hy_model_real_fuse_fits(c->caps, p->precision, N);
}

/* One axis d: PRE from src (strides of side `from_out`) into WORK0, the
 * DFT there, POST into the output. */
static hy_status hy_r2r_axis(hy_r2r_ctx *c, int d, hy_buffer src, int from_out) {
  const hy_problem *p = c->problem;
  const hyfft_r2r_kind kind = p->r2r[d];
  const int64_t n = p->dims[d].n, N = hy_r2r_dft_len(kind, n);
  /* The twiddles' angles count in 8n (planner/r2r_twiddle.h). */
  if (N < 1 || n > INT64_MAX / 8)
    return hy_error(HYFFT_SIZE_OVERFLOW, "r2r solver: n = %lld is too long", (long long)n);
  /* The other axes and the batch, outermost first, with dense WORK0
   * strides behind them (rows of N). */
  hyfft_dim outer[HY_MAX_LOOPS];
  int k = 0;
  for (int b = 0; b < p->batch_rank; b++) outer[k++] = p->batch[b];
  for (int e = 0; e < p->rank; e++)
    if (e != d) outer[k++] = p->dims[e];
  int64_t dense[HY_MAX_LOOPS], s = N;
  for (int l = k - 1; l >= 0; l--) {
    dense[l] = s;
    if (hy_mul_overflow_i64(s, outer[l].n, &s))
      return hy_error(HYFFT_SIZE_OVERFLOW, "r2r solver: the workspace size overflows int64");
  }
  const int dft_sign =
      kind == HYFFT_REDFT01 || kind == HYFFT_RODFT01 ? HYFFT_BACKWARD : HYFFT_FORWARD;
  hyfft_dim loops[HY_MAX_LOOPS];
  hy_pass *pass = NULL;
  hy_buffer at = HY_BUF_WORK0; /* where the DFT leaves its result */
  int64_t axis_in = from_out ? p->dims[d].out_stride : p->dims[d].in_stride;
  /* On a GPU, DCT-II/III, DST-II/III and the DHT of even n and DCT-I/DST-I
   * first take the half-length form (the real DFT of Makhoul's v, of x or
   * of the even or odd extension, or the inverse real DFT that gives v, as
   * a complex DFT of half the real length; plan.h r2r_half), kept only
   * where it fuses into one pass; else the length-N form below. */
  const int gpu = c->caps->backend != HYFFT_BACKEND_CPU && !hy_settings_get()->real_unfused;
  int64_t half = 0; /* the half form's DFT length, 0 where it does not apply */
  if ((kind == HYFFT_REDFT10 || kind == HYFFT_RODFT10 || kind == HYFFT_REDFT01 ||
       kind == HYFFT_RODFT01) && n % 2 == 0 && n >= 4)
    half = n / 2;
  else if (kind == HYFFT_REDFT00 && n >= 3)
    half = n - 1; /* the even extension's real DFT of 2(n-1) */
  else if (kind == HYFFT_RODFT00)
    half = n + 1; /* the odd extension's real DFT of 2(n+1) */
  else if (kind == HYFFT_DHT && n % 2 == 0 && n >= 4)
    half = n / 2; /* the real DFT of x */
  if (!gpu) half = 0;
  for (int attempt = half ? 0 : 1; attempt < 2; attempt++) {
    const int64_t Nf = attempt == 0 ? half : N;
    const hy_fs_mark mark = hy_fs_mark_tree(c->tree);
    for (int l = 0; l < k; l++)
      loops[l] = (hyfft_dim){outer[l].n, from_out ? outer[l].out_stride : outer[l].in_stride,
                             dense[l]};
    HY_TRY(hy_r2r_add(c, HY_PASS_R2R_PRE, dft_sign, src, HY_BUF_WORK0,
                      (hyfft_dim){n, axis_in, 1}, k, loops, &pass));
    pass->r2r_kind = (int)kind;
    pass->r2r_len = Nf;
    for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, dense[l], dense[l]};
    int before = c->tree->npasses;
    hy_status st = hy_r2r_dft(c, Nf, dft_sign, k, loops, &at);
    if (attempt == 0 && (st != HYFFT_SUCCESS || !hy_r2r_fusable(c, before, Nf))) {
      hy_fs_rollback(c->tree, mark);
      continue;
    }
    HY_TRY(st);
    if (!hy_r2r_fusable(c, before, Nf)) break;
    /* The DFT pass reads what PRE read and writes what POST would have. */
    hy_pass *pre = &c->tree->passes[before - 1], *dft = &c->tree->passes[before];
    dft->src = pre->src;
    dft->axis.in_stride = pre->axis.in_stride;
    dft->dst = HY_BUF_OUT;
    dft->axis.out_stride = p->dims[d].out_stride;
    for (int l = 0; l < k; l++) {
      dft->loops[l].in_stride = pre->loops[l].in_stride;
      dft->loops[l].out_stride = outer[l].out_stride;
    }
    dft->fuse = HY_FUSE_R2R;
    dft->fuse_loop = -1;
    dft->r2r_fuse = 3;
    dft->r2r_half = attempt == 0;
    dft->r2r_kind = (int)kind;
    dft->r2r_len = Nf;
    dft->r2r_n = n;
    *pre = *dft;
    c->tree->npasses--;
    return HYFFT_SUCCESS;
  }
  if (s > c->tree->work_elems[0]) c->tree->work_elems[0] = s;
  for (int l = 0; l < k; l++) loops[l] = (hyfft_dim){outer[l].n, dense[l], outer[l].out_stride};
  HY_TRY(hy_r2r_add(c, HY_PASS_R2R_POST, dft_sign, at, HY_BUF_OUT,
                    (hyfft_dim){n, 1, p->dims[d].out_stride}, k, loops, &pass));
  pass->r2r_kind = (int)kind;
  pass->r2r_len = N;
  return HYFFT_SUCCESS;
}

static hy_status hy_r2r_plan(const hy_problem *problem, const hy_device_caps *caps,
                             hy_plan_tree *out) {
  if (problem->kind != HYFFT_R2R || problem->rank < 1) return HYFFT_NO_SOLVER;
  if (problem->batch_rank + problem->rank > HY_MAX_LOOPS)
    return hy_error(HYFFT_INTERNAL, "r2r solver: too many loops");
  hy_r2r_ctx c = {problem, caps, out};
  out->npasses = 0;
  out->work_elems[0] = out->work_elems[1] = 0;
  for (int d = problem->rank - 1, step = 0; d >= 0; d--, step++)
    HY_TRY(hy_r2r_axis(&c, d, step == 0 ? HY_BUF_IN : HY_BUF_OUT, step > 0));
  out->passes[out->npasses - 1].scale = problem->scale;
  if (caps->backend != HYFFT_BACKEND_CPU)
    for (int i = 0; i < out->npasses; i++) {
      const hy_pass *p = &out->passes[i];
      if (p->op == HY_PASS_DFT &&
          hy_pass_computed_length(p) > caps->max_pass_length[problem->precision])
        return HYFFT_NO_SOLVER;
    }
  return HYFFT_SUCCESS;
}

const hy_solver hy_solver_r2r = {"r2r", hy_r2r_plan};
