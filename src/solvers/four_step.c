/* Four-step (and six-step) for axes longer than one pass (DESIGN section 4,
 * rule 5). With N = N1*N2, input n = n1 + N1*n2 and output k = N2*k1 + k2:
 *   pass A: for each n1, a length-N2 DFT along n2, times the twiddle
 *           exp(sign*2*pi*i*n1*k2/N) fused into its store, written to a work
 *           buffer as W[k2*N1 + n1] (dense over the batch);
 *   pass B: for each k2, a length-N1 DFT along n1 read with stride 1 and
 *           stored transposed, X[N2*k1 + k2].
 * When N1 is still too long, pass B is itself split the same way (three
 * passes, alternating WORK0 and WORK1). A length with no usable split (a
 * large prime) goes through Bluestein with pointwise chirp passes around
 * two four-step transforms of the convolution length (HY_PASS_CHIRP).
 * Other axes of a multi-dimensional problem take one pass each, as in
 * axis-passes; this solver only applies when at least one axis does not fit
 * in one pass. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/four_step.h"
#include "util/settings.h"

hy_fs_ctx hy_fs_context(const hy_problem *problem, const hy_device_caps *caps, hy_plan_tree *tree) {
  const char *passes = hy_settings_get()->four_step_passes_raw;
  return (hy_fs_ctx){problem, caps, caps->max_pass_length[problem->precision], 0,
                     !(passes && strcmp(passes, "2") == 0), tree};
}

/* Whether a length fits one pass, with its algorithm chosen in *pass. */
int hy_fs_fits(hy_fs_ctx *c, int64_t n, hy_pass *pass, hy_status *st) {
  *st = hy_choose_dft_algo(n, c->caps, pass);
  if (*st != HYFFT_SUCCESS) return 0;
  int64_t on_chip = pass->algo == HY_ALGO_BLUESTEIN ? pass->bluestein_m : n;
  return on_chip <= c->limit;
}

/* The divisors of n in [2, limit], ascending; returns how many (at most max). */
static int hy_fs_divisors(int64_t n, int64_t limit, int64_t *out, int max) {
  int count = 0;
  int64_t high[64];
  int nhigh = 0;
  for (int64_t d = 2; d * d <= n && count < max; d++) {
    if (n % d) continue;
    if (d <= limit) out[count++] = d;
    if (d * d != n && n / d <= limit && nhigh < 64) high[nhigh++] = n / d;
  }
  for (int i = nhigh - 1; i >= 0 && count < max; i--) out[count++] = high[i];
  return count;
}

/* Model time, in copy-floor passes, of a length-n DFT along one axis:
 * one pass if it fits (1 when both sides are contiguous, else the strided
 * penalty), or a split n = d * (n/d) into two passes, pass A of length d
 * (strided) and the rest (strided on its output). *split gets the chosen d
 * (0: one pass). When no two-pass split fits, d is the longest pass A that
 * fits and the rest splits again (three or more passes). The rest of a
 * split may itself split once more (three passes) where the model prices
 * that lower: 2^26 as 1024 x 256 x 256 is faster than 8192 x 8192
 * (measured on the H100), since its strided passes move 64 columns per
 * block instead of 2 (the transposed store groups its transforms by
 * output stride, so the last pass writes neighbours).
 * $HYFFT_FOUR_STEP_PASSES=2 keeps two passes wherever two fit.
 * Returns a negative cost when no way fits (a large prime: Bluestein). */
double hy_fs_best(hy_fs_ctx *c, int64_t n, int contiguous, int depth, int64_t *split) {
  const hy_problem *p = c->problem;
  *split = 0;
  double best = -1.0;
  hy_pass probe;
  hy_pass_init(&probe, HY_PASS_DFT, p->precision, p->sign);
  hy_status st;
  if (hy_fs_fits(c, n, &probe, &st)) {
    int64_t on_chip = probe.algo == HY_ALGO_BLUESTEIN ? probe.bluestein_m : n;
    best = contiguous ? 1.0 : hy_strided_factor(on_chip, p->precision, c->caps);
    /* Bluestein in one pass costs its two inner transforms. */
    if (probe.algo == HY_ALGO_BLUESTEIN) best *= 2.0;
  }
  if (depth >= (c->three ? 2 : 1)) return best;
  int64_t divisors[256];
  int nd = hy_fs_divisors(n, c->limit, divisors, 256);
  for (int i = 0; i < nd; i++) {
    int64_t d = divisors[i], rest_split;
    hy_pass a;
    hy_pass_init(&a, HY_PASS_DFT, p->precision, p->sign);
    if (!hy_fs_fits(c, d, &a, &st) || a.algo == HY_ALGO_BLUESTEIN) continue;
    double rest = hy_fs_best(c, n / d, 0, depth + 1, &rest_split);
    if (rest < 0) continue;
    double cost = hy_strided_factor(d, p->precision, c->caps) + rest;
    /* Ties go to one pass, then to d nearer sqrt(n) (balanced passes). */
    double off = fabs(log((double)d) - 0.5 * log((double)n));
    if (best < 0 || cost < best - 1e-9 ||
        (*split && cost < best + 1e-9 && off < fabs(log((double)*split) - 0.5 * log((double)n)))) {
      best = cost;
      *split = d;
    }
  }
  /* The longest pass A that fits, the rest splitting again, where every
   * prime factor of the rest fits one pass (else -1: Bluestein over all of
   * n, since no split of n can hold that factor). Pass A is a mixed-radix
   * pass where one serves; where none does (n holds two or more prime
   * factors past HY_MAX_DIRECT_PRIME, each needing Bluestein, and nothing
   * smooth enough to split them apart: 367 * 1181 * 63), a one-pass
   * Bluestein DFT, whose store takes the twiddle like any other, at twice
   * a pass's cost. */
  for (int bluestein_a = 0; best < 0 && bluestein_a < 2; bluestein_a++)
    for (int i = nd - 1; i >= 0; i--) {
      hy_pass a, q;
      hy_pass_init(&a, HY_PASS_DFT, p->precision, p->sign);
      hy_pass_init(&q, HY_PASS_DFT, p->precision, p->sign);
      if (hy_fs_fits(c, divisors[i], &a, &st) &&
          (a.algo != HY_ALGO_BLUESTEIN || bluestein_a) &&
          hy_fs_fits(c, hy_largest_prime_factor(n / divisors[i]), &q, &st)) {
        /* Pass A, then the rest: its own model cost where it has one
         * within the depth, else two more passes of its largest prime
         * factor (twice that where it takes Bluestein). */
        int64_t rest_split;
        double rest = hy_fs_best(c, n / divisors[i], 0, depth + 1, &rest_split);
        if (rest < 0)
          rest = 2.0 * (q.algo == HY_ALGO_BLUESTEIN ? 2.0 : 1.0) *
                 hy_strided_factor(hy_largest_prime_factor(n / divisors[i]), p->precision, c->caps);
        *split = divisors[i];
        return (a.algo == HY_ALGO_BLUESTEIN ? 2.0 : 1.0) *
                   hy_strided_factor(divisors[i], p->precision, c->caps) +
               rest;
      }
    }
  return best;
}

hy_status hy_fs_add_pass(hy_fs_ctx *c, hy_pass **out) {
  if (c->tree->npasses >= HY_MAX_PASSES) return HYFFT_NO_SOLVER;
  *out = &c->tree->passes[c->tree->npasses++];
  return HYFFT_SUCCESS;
}

/* The work-buffer layout of a split axis: the loops whose input stride is
 * smaller than the axis's ("inner": the columns of a 2D array) stay
 * innermost and dense, in stride order, then the n elements of the
 * transform, then the other loops. *inner gets the product of the inner
 * loops. Pass A then writes, and pass B reads, M neighbouring columns as
 * one contiguous piece, as both read and write the original data; with no
 * inner loop (a batched 1D axis) each transform is contiguous. Grows the
 * buffer's size to hold the layout. */
hy_status hy_fs_layout(hy_fs_ctx *c, int64_t n, int64_t axis_stride, int nloops,
                              const hyfft_dim *loops, hy_buffer work, int64_t *dense,
                              int64_t *inner) {
  int order[HY_MAX_LOOPS];
  for (int l = 0; l < nloops; l++) order[l] = l;
  for (int a = 1; a < nloops; a++)
    for (int b = a; b > 0 && llabs(loops[order[b]].in_stride) < llabs(loops[order[b - 1]].in_stride);
         b--) {
      int t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  int64_t total = 1;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      *inner = total;
      if (hy_mul_overflow_i64(total, n, &total)) return HYFFT_NO_SOLVER;
    }
    for (int a = 0; a < nloops; a++) {
      const hyfft_dim *d = &loops[order[a]];
      int is_inner = d->n > 1 && llabs(d->in_stride) < llabs(axis_stride);
      if (is_inner != (pass == 0)) continue;
      dense[order[a]] = total;
      if (hy_mul_overflow_i64(total, d->n, &total)) return HYFFT_NO_SOLVER;
    }
  }
  int w = work - HY_BUF_WORK0;
  if (total > c->tree->work_elems[w]) c->tree->work_elems[w] = total;
  return HYFFT_SUCCESS;
}

/* DFT of length n along one axis over loops[], src -> dst; the buffers at
 * both ends may be work buffers (Bluestein's inner transforms). With
 * `landed` (src a work buffer), the passes alternate between the two work
 * buffers instead, each writing the one it does not read, and *landed
 * gets the one the last pass wrote (dst is not used): a split into three
 * or more passes between work buffers needs no third buffer that way. */
static hy_status hy_fs_axis_to(hy_fs_ctx *c, int64_t n, int sign, hy_buffer src,
                               int64_t in_stride, hy_buffer dst, int64_t out_stride, int nloops,
                               const hyfft_dim *loops, hy_buffer *landed) {
  const hy_problem *p = c->problem;
  if (landed) {
    dst = src == HY_BUF_WORK0 ? HY_BUF_WORK1 : HY_BUF_WORK0;
    *landed = dst;
  }
  hy_pass *pass;
  HY_TRY(hy_fs_add_pass(c, &pass));
  hy_pass_init(pass, HY_PASS_DFT, p->precision, sign);
  hy_status st;
  int64_t n2 = 0;
  int contiguous = llabs(in_stride) == 1 && llabs(out_stride) == 1;
  int single = (c->inner && !c->three) || (hy_fs_best(c, n, contiguous, 0, &n2) >= 0 && n2 == 0);
  if (single && hy_fs_fits(c, n, pass, &st)) {
    pass->src = src;
    pass->dst = dst;
    pass->axis = (hyfft_dim){n, in_stride, out_stride};
    pass->nloops = nloops;
    for (int l = 0; l < nloops; l++) pass->loops[l] = loops[l];
    return HYFFT_SUCCESS;
  }
  hy_fs_fits(c, n, pass, &st);
  if (st != HYFFT_SUCCESS && st != HYFFT_NO_SOLVER) return st;
  if (nloops + 1 > HY_MAX_LOOPS) return HYFFT_NO_SOLVER;
  if (n2 == 0) hy_fs_best(c, n, contiguous, 0, &n2);
  if (n2 == 0) {
    c->tree->npasses--;
    if (landed) return HYFFT_NO_SOLVER;
    return hy_fs_bluestein(c, n, src, in_stride, dst, out_stride, nloops, loops);
  }
  int64_t n1 = n / n2;
  /* The intermediate goes to a work buffer that is neither end (or, with
   * `landed`, to the one pass A does not read). */
  hy_buffer work = src != HY_BUF_WORK0 && dst != HY_BUF_WORK0 ? HY_BUF_WORK0 : HY_BUF_WORK1;
  if (landed) work = dst;
  else if (work == src || work == dst) return HYFFT_NO_SOLVER;

  int64_t dense[HY_MAX_LOOPS], inner = 1;
  HY_TRY(hy_fs_layout(c, n, in_stride, nloops, loops, work, dense, &inner));
  /* The work buffer holds, per element of the outer loops, [k2][j1][inner]:
   * both passes then read and write the inner loops' neighbours side by
   * side, which suits an axis whose inner loops are also inner on the
   * output (a column pass in place). Where the output puts them far apart
   * and the axis itself close (the slow axis of a matrix transformed into
   * rows), pass B would write M transforms' outputs each in its own
   * sector; the buffer then holds [j1][inner][k2] instead: pass A writes
   * each transform's n2 outputs contiguously (the block's M transforms
   * one dense run, stored through local memory), and pass B reads and
   * writes neighbours along k2. */
  int64_t min_inner_out = INT64_MAX;
  for (int l = 0; l < nloops; l++)
    if (loops[l].n > 1 && llabs(loops[l].in_stride) < llabs(in_stride) &&
        llabs(loops[l].out_stride) < min_inner_out)
      min_inner_out = llabs(loops[l].out_stride);
  int axis_inner = c->caps->backend != HYFFT_BACKEND_CPU && inner > 1 &&
                   min_inner_out != INT64_MAX && min_inner_out > llabs(out_stride);
  if (axis_inner)
    for (int l = 0; l < nloops; l++)
      if (loops[l].n > 1 && llabs(loops[l].in_stride) < llabs(in_stride)) dense[l] *= n2;
  /* k2's stride in the work buffer (pass A's output axis) and j1's. */
  int64_t k2_stride = axis_inner ? 1 : inner * n1, j1_stride = axis_inner ? inner * n2 : inner;

  /* Pass A: along n2 (stride n1*in_stride), loop n1 carries the twiddle. */
  HY_TRY(hy_choose_dft_algo(n2, c->caps, pass));
  pass->src = src;
  pass->dst = work;
  pass->axis = (hyfft_dim){n2, n1 * in_stride, k2_stride};
  pass->nloops = 0;
  for (int l = 0; l < nloops; l++)
    pass->loops[pass->nloops++] = (hyfft_dim){loops[l].n, loops[l].in_stride, dense[l]};
  pass->twiddle_loop = pass->nloops;
  pass->twiddle_n = n;
  pass->loops[pass->nloops++] = (hyfft_dim){n1, in_stride, j1_stride};

  /* Pass B (or its own split): along n1 from the work buffer, transposed. */
  hyfft_dim next[HY_MAX_LOOPS];
  for (int l = 0; l < nloops; l++) next[l] = (hyfft_dim){loops[l].n, dense[l], loops[l].out_stride};
  next[nloops] = (hyfft_dim){n2, k2_stride, out_stride};
  int was_inner = c->inner;
  c->inner = 1;
  hy_status st_b =
      hy_fs_axis_to(c, n1, sign, work, j1_stride, dst, n2 * out_stride, nloops + 1, next, landed);
  c->inner = was_inner;
  return st_b;
}

hy_status hy_fs_axis(hy_fs_ctx *c, int64_t n, int sign, hy_buffer src, int64_t in_stride,
                     hy_buffer dst, int64_t out_stride, int nloops, const hyfft_dim *loops) {
  return hy_fs_axis_to(c, n, sign, src, in_stride, dst, out_stride, nloops, loops, NULL);
}

hy_status hy_fs_axis_alternating(hy_fs_ctx *c, int64_t n, int sign, hy_buffer src,
                                 int64_t in_stride, int64_t out_stride, int nloops,
                                 const hyfft_dim *loops, hy_buffer *landed) {
  if (src != HY_BUF_WORK0 && src != HY_BUF_WORK1) return HYFFT_NO_SOLVER;
  return hy_fs_axis_to(c, n, sign, src, in_stride, src, out_stride, nloops, loops, landed);
}

static hy_status hy_four_step_plan(const hy_problem *problem, const hy_device_caps *caps,
                                   hy_plan_tree *out) {
  if (problem->rank == 0 || problem->kind != HYFFT_C2C) return HYFFT_NO_SOLVER;
  hy_fs_ctx c = hy_fs_context(problem, caps, out);
  if (c.limit < 4) return HYFFT_NO_SOLVER;
  /* Only when some axis is too long for one pass, or (on a GPU) is cheaper
   * split than read in short strided pieces: otherwise axis-passes plans it. */
  int needed = 0;
  for (int d = 0; d < problem->rank; d++) {
    hy_pass probe;
    hy_pass_init(&probe, HY_PASS_DFT, problem->precision, problem->sign);
    hy_status st;
    int64_t split = 0;
    int contiguous = llabs(problem->dims[d].in_stride) == 1 && llabs(problem->dims[d].out_stride) == 1;
    if (!hy_fs_fits(&c, problem->dims[d].n, &probe, &st) ||
        (hy_fs_best(&c, problem->dims[d].n, contiguous, 0, &split) >= 0 && split > 0))
      needed = 1;
  }
  if (!needed) return HYFFT_NO_SOLVER;
  out->npasses = 0;
  out->work_elems[0] = out->work_elems[1] = 0;
  for (int step = 0; step < problem->rank; step++) {
    int axis = problem->rank - 1 - step;
    hyfft_dim loops[HY_MAX_LOOPS];
    int nloops = 0;
    for (int b = 0; b < problem->batch_rank; b++) {
      hyfft_dim d = problem->batch[b];
      if (step > 0) d.in_stride = d.out_stride;
      loops[nloops++] = d;
    }
    for (int d = 0; d < problem->rank; d++) {
      if (d == axis) continue;
      hyfft_dim dim = problem->dims[d];
      if (step > 0) dim.in_stride = dim.out_stride;
      loops[nloops++] = dim;
    }
    hyfft_dim a = problem->dims[axis];
    HY_TRY(hy_fs_axis(&c, a.n, problem->sign, step == 0 ? HY_BUF_IN : HY_BUF_OUT,
                      step == 0 ? a.in_stride : a.out_stride, HY_BUF_OUT, a.out_stride, nloops,
                      loops));
  }
  out->passes[out->npasses - 1].scale = problem->scale;
  /* One workspace: WORK1's region moves behind WORK0's, so a caller's single
   * workspace buffer serves every plan (an OpenCL cl_mem cannot be split by
   * pointer arithmetic). */
  if (out->work_elems[1] > 0) {
    int64_t base = out->work_elems[0];
    for (int i = 0; i < out->npasses; i++) {
      hy_pass *pass = &out->passes[i];
      if (pass->src == HY_BUF_WORK1) {
        pass->src = HY_BUF_WORK0;
        pass->src_offset += base;
      }
      if (pass->dst == HY_BUF_WORK1) {
        pass->dst = HY_BUF_WORK0;
        pass->dst_offset += base;
      }
    }
    out->work_elems[0] += out->work_elems[1];
    out->work_elems[1] = 0;
  }
  return HYFFT_SUCCESS;
}

const hy_solver hy_solver_four_step = {"four-step", hy_four_step_plan};
