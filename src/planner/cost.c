/* The cost model: bytes moved, arithmetic and launches (DESIGN section 4,
 * rule 1). Only comparisons between candidates on one device matter. */
#include <math.h>
#include <stdlib.h>

#include "planner/planner.h"

int hy_strided_columns(int64_t length, hyfft_precision p, const hy_device_caps *caps) {
  int64_t elem = p == HYFFT_F64 ? 16 : 8;
  int64_t row = length + length / 32 + 2; /* the generator's padded row */
  int m = (int)(128 / elem);
  while (m > 1 && (int64_t)m * row * elem > caps->local_memory) m /= 2;
  return m;
}

/* A GPU pass with a strided side moves M neighbouring transforms per block,
 * so each row of the data is read or written in pieces of M*elem bytes;
 * pieces under a 128-byte line waste DRAM bandwidth. Time over the copy
 * floor by piece size, measured on the H100 (docs/performance.md:
 * 16384^2 columns, 8192^2 columns, four-step 2^16-2^24 with sincospi
 * twiddles): 8 bytes 4.3x, 16 bytes 2.4x, 32 bytes 1.5x, 64 bytes 1.25x,
 * 128 bytes 1.1x. On the CPU every pass counts 1. */
double hy_strided_factor(int64_t length, hyfft_precision p, const hy_device_caps *caps) {
  if (caps->backend == HYFFT_BACKEND_CPU) return 1.0;
  int64_t piece = (int64_t)hy_strided_columns(length, p, caps) * (p == HYFFT_F64 ? 16 : 8);
  if (piece >= 128) return 1.1;
  if (piece >= 64) return 1.25;
  if (piece >= 32) return 1.5;
  if (piece >= 16) return 2.4;
  return 4.3;
}

static double hy_cost_pass(const hy_pass *pass, const hy_problem *problem,
                           const hy_device_caps *caps) {
  double count = (double)hy_pass_count(pass);
  double n = (double)pass->axis.n;
  double elem = problem->precision == HYFFT_F64 ? 16.0 : 8.0;
  double bytes = 2.0 * count * n * elem;
  double flops;
  if (pass->op == HY_PASS_COPY) {
    flops = count;
  } else if (pass->op >= HY_PASS_WIDEN) {
    flops = count * 10.0 * n; /* a pointwise step of a real transform */
  } else if (pass->algo == HY_ALGO_BLUESTEIN) {
    double m = (double)pass->bluestein_m;
    flops = count * (2.0 * 5.0 * m * log2(m) + 6.0 * m + 12.0 * n);
    if (caps->backend != HYFFT_BACKEND_CPU) bytes *= 2.0; /* chirp and its spectrum */
  } else {
    flops = count * 5.0 * n * log2(n > 1 ? n : 2);
  }
  if (pass->op == HY_PASS_DFT && (llabs(pass->axis.in_stride) != 1 || llabs(pass->axis.out_stride) != 1))
    bytes *= hy_strided_factor(pass->algo == HY_ALGO_BLUESTEIN ? pass->bluestein_m : pass->axis.n,
                               problem->precision, caps);
  return bytes / caps->bandwidth + flops / caps->flop_rate + caps->launch_overhead;
}

double hy_cost_tree(const hy_plan_tree *tree, const hy_problem *problem,
                    const hy_device_caps *caps) {
  double cost = 0;
  for (int i = 0; i < tree->npasses; i++) cost += hy_cost_pass(&tree->passes[i], problem, caps);
  return cost;
}
