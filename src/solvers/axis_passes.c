/* One pass per transform axis (row-column), last axis first. Each pass is a
 * batched 1D DFT whose loops are the batch dims and the other transform
 * axes. The first pass reads the input and writes the output; later passes
 * work in place on the output. Applies when every axis fits in one pass on
 * the device (always on the CPU).
 *
 * On a GPU, the two innermost axes of a multi-dimensional problem take one
 * plane pass (hy_pass.plane_inner) when the plane is dense on both sides
 * and fits one pass: the 64 x 64 planes of 64^3 are transformed in local
 * memory, so the data crosses global memory twice instead of three times
 * (the Wu & JaJa idea of fusing axis sub-steps), when two planes' blocks
 * fit one compute unit. On the CPU the same pass runs its two axes plane
 * group by plane group, each group's rows and then its columns while the
 * group is in the core's L2 (cpu_backend.c), where a plane's input and
 * output fit the L2 and there is more than one plane: the columns then
 * read what the rows wrote from the L2 instead of the last-level cache or
 * memory (planes up to a quarter of the L2 go several to a group, larger
 * ones one at a time; docs/performance.md, "CPU: plane passes up to the
 * whole L2"). $HYFFT_PLANES=0 keeps one pass per axis. */
#include <string.h>

#include "planner/planner.h"
#include "util/settings.h"

/* Whether a plane of n elements fits one GPU pass: it sits in shared
 * memory whole (complex, one padding element per 32). On CUDA the pass
 * limit is that memory rounded down to a power of two, which a plane need
 * not be: 100 x 100 f64 fits the H100's 227 KB although 10000 is past the
 * limit (8192). The block of a plane holds the whole plane. When two such
 * blocks (and the 1 KB CUDA reserves per block) do not fit one compute
 * unit, each unit runs one plane at a time and its loads, butterflies and
 * stores never overlap; one pass per axis keeps several blocks per unit
 * busy and is then faster (docs/performance.md, "Plane passes"). */
static int hy_axis_plane_fits_gpu(const hy_device_caps *caps, int64_t n, int64_t elem,
                                  hyfft_precision precision) {
  int64_t limit = caps->max_pass_length[precision];
  int fits = n <= limit || (caps->backend == HYFFT_BACKEND_CUDA && n <= 2 * limit &&
                            (n + n / 32 + 2) * elem <= (int64_t)caps->local_memory);
  if (!fits) return 0;
  int64_t plane_bytes = (n + n / 32 + 2) * elem;
  return !(caps->unit_local_memory > 0 && 2 * (plane_bytes + 1024) > caps->unit_local_memory);
}

/* Whether the innermost two axes make one plane pass; fills `pass`'s
 * axis, factors and plane_inner if so. */
static int hy_axis_plane(const hy_problem *problem, const hy_device_caps *caps, hy_pass *pass) {
  if (caps->no_planes || problem->rank < 2) return 0;
  const char *env = hy_settings_get()->planes_raw;
  if (env && strcmp(env, "0") == 0) return 0;
  const hyfft_dim *a = &problem->dims[problem->rank - 2], *b = &problem->dims[problem->rank - 1];
  if (a->n < 2 || b->n < 2 || b->in_stride != 1 || b->out_stride != 1 || a->in_stride != b->n ||
      a->out_stride != b->n)
    return 0;
  int64_t n = a->n * b->n, elem = problem->precision == HYFFT_F64 ? 16 : 8;
  if (caps->backend == HYFFT_BACKEND_CPU) {
    int64_t planes = 1;
    for (int d = 0; d < problem->rank - 2; d++) planes *= problem->dims[d].n;
    for (int d = 0; d < problem->batch_rank; d++) planes *= problem->batch[d].n;
    if (planes < 2 || caps->l2_cache <= 0 || 2 * n * elem > caps->l2_cache) return 0;
  } else if (!hy_axis_plane_fits_gpu(caps, n, elem, problem->precision)) {
    return 0;
  }
  hy_pass pa, pb;
  hy_pass_init(&pa, HY_PASS_DFT, problem->precision, problem->sign);
  hy_pass_init(&pb, HY_PASS_DFT, problem->precision, problem->sign);
  if (hy_choose_dft_algo(a->n, caps, &pa) != HYFFT_SUCCESS || pa.algo != HY_ALGO_MIXED_RADIX ||
      hy_choose_dft_algo(b->n, caps, &pb) != HYFFT_SUCCESS || pb.algo != HY_ALGO_MIXED_RADIX ||
      pa.nfactors + pb.nfactors > HY_MAX_FACTORS)
    return 0;
  pass->axis = (hyfft_dim){n, 1, 1};
  pass->algo = HY_ALGO_MIXED_RADIX;
  pass->plane_inner = b->n;
  pass->nfactors = 0;
  for (int f = 0; f < pb.nfactors; f++) pass->factors[pass->nfactors++] = pb.factors[f];
  for (int f = 0; f < pa.nfactors; f++) pass->factors[pass->nfactors++] = pa.factors[f];
  return 1;
}

static hy_status hy_axis_passes_plan(const hy_problem *problem, const hy_device_caps *caps,
                                     hy_plan_tree *out) {
  if (problem->rank == 0 || problem->kind != HYFFT_C2C) return HYFFT_NO_SOLVER;
  int64_t limit = caps->max_pass_length[problem->precision];
  out->npasses = 0;
  int axis = problem->rank - 1;
  for (int step = 0; axis >= 0; step++) {
    hy_pass *pass = &out->passes[out->npasses++];
    hy_pass_init(pass, HY_PASS_DFT, problem->precision, problem->sign);
    pass->src = step == 0 ? HY_BUF_IN : HY_BUF_OUT;
    pass->dst = HY_BUF_OUT;
    /* The plane is always the first pass: its input is the problem's. */
    int first = axis, plane = step == 0 && hy_axis_plane(problem, caps, pass);
    if (plane) {
      first = axis - 1;
    } else {
      pass->axis = problem->dims[axis];
      if (step > 0) pass->axis.in_stride = pass->axis.out_stride;
      HY_TRY(hy_choose_dft_algo(pass->axis.n, caps, pass));
      int64_t on_chip = pass->algo == HY_ALGO_BLUESTEIN ? pass->bluestein_m : pass->axis.n;
      if (on_chip > limit) return HYFFT_NO_SOLVER;
    }
    for (int b = 0; b < problem->batch_rank; b++) {
      hyfft_dim d = problem->batch[b];
      if (step > 0) d.in_stride = d.out_stride;
      pass->loops[pass->nloops++] = d;
    }
    for (int d = 0; d < problem->rank; d++) {
      if (d >= first && d <= axis) continue;
      hyfft_dim dim = problem->dims[d];
      if (step > 0) dim.in_stride = dim.out_stride;
      pass->loops[pass->nloops++] = dim;
    }
    axis = first - 1;
  }
  out->passes[out->npasses - 1].scale = problem->scale;
  return HYFFT_SUCCESS;
}

const hy_solver hy_solver_axis_passes = {"axis-passes", hy_axis_passes_plan};
