/* The planner: registered solvers propose plan trees for a canonical
 * problem on a device; the cheapest by the cost model wins (FFTW's
 * problem -> solver -> plan). Each solver lives in its own file under
 * src/solvers/. */
#ifndef HY_PLANNER_H
#define HY_PLANNER_H

#include "backend/backend.h"

typedef struct hy_solver {
  const char *name;
  /* Fill *out with a plan for `problem` on a device with `caps`, or return
   * HYFFT_NO_SOLVER when this solver does not apply (no error message
   * needed). Other failures are real errors. */
  hy_status (*plan)(const hy_problem *problem, const hy_device_caps *caps, hy_plan_tree *out);
} hy_solver;

/* All solvers, NULL terminated (solvers/registry.c). */
extern const hy_solver *const hy_solvers[];

/* Append the twiddle step of a four-step split of a length-n DFT done in
 * pieces (HY_PASS_TWIDDLE, planner/plan.h) to a planned tree: in place on
 * `buffer`, `loop.n` transforms of axis.n points laid out by `axis` and
 * `loop`, the piece's first column read from complex element base_at of
 * HY_BUF_IN (-1: none, the column index is the loop index); the step
 * takes over the scale of the tree's last pass. The out-of-core 1D
 * sweeps (exec/out_of_core.c) plan their first sweep's pieces with it. */
hy_status hy_planner_append_twiddle(hy_plan_tree *tree, hyfft_precision precision, int sign,
                                    int64_t n, hy_buffer buffer, hyfft_dim axis, hyfft_dim loop,
                                    int64_t base_at);

/* Choose the best plan tree by the cost model. */
hy_status hy_planner_plan(const hy_problem *problem, const hy_device_caps *caps,
                          unsigned flags, hy_plan_tree *out);
/* The best `max` candidates by the model, cheapest first, in out[0..*count). */
hy_status hy_planner_candidates(const hy_problem *problem, const hy_device_caps *caps,
                                hy_plan_tree *out, int max, int *count);
/* The plan of the named solver (wisdom), or HYFFT_NO_SOLVER (no message)
 * when it is unknown or does not apply. */
hy_status hy_planner_plan_solver(const hy_problem *problem, const hy_device_caps *caps,
                                 const char *solver, hy_plan_tree *out);
/* Give every DFT pass of a tree the generator switches `spec` ("" or NULL
 * for the model's): the tree is planned again by its solver and
 * finalised with them (kernel_model.h). HYFFT_INVALID_ARGUMENT when spec
 * is too long, not well formed or names an unknown key or a value out of
 * range (hy_kernel_spec_check). */
hy_status hy_planner_set_variant(const hy_problem *problem, const hy_device_caps *caps,
                                 hy_plan_tree *tree, const char *spec);
/* A tree that compiles quickly for a plan whose tree has a plane pass
 * (one kernel over whole 2D planes: NVRTC takes most of a second for a
 * 100 x 100 plane): the same solver with one pass per axis, when it needs
 * no more workspace than `tree` for its passes' data (its counters are
 * not used: such a tree is never a persistent kernel). 1 and *out when
 * there is one, else 0. The plan layer (hy_exec_plan_prepare, exec/plan.c) hands
 * it to plan_prepare of a backend that tiers plans: a CUDA plan runs its
 * program while the plane kernel compiles (cuda_plan.c, tiered plans). */
int hy_planner_quick_tree(const hy_problem *problem, const hy_plan_tree *tree,
                          const hy_device_caps *caps, hy_plan_tree *out);
/* 1 when a solver of that name is registered. */
int hy_planner_solver_known(const char *name);

/* --- helpers the solvers share (planner/factor.c, planner/cost.c) --- */

/* Radices the codelets provide, and the largest prime factor handled
 * directly by mixed radix (larger ones go through Bluestein). */
#define HY_MAX_DIRECT_PRIME 31

/* Largest prime factor of n (n >= 1; returns 1 for n == 1). */
int64_t hy_largest_prime_factor(int64_t n);
/* Split n into a radix sequence (first entry applied first). Returns
 * HYFFT_NO_SOLVER if a prime factor exceeds max_prime. */
hy_status hy_factorize(int64_t n, int64_t max_prime, int *factors, int *nfactors);
/* Convolution length for Bluestein of length n: a power of two or the smallest
 * 2^a 3^b 5^c, at least 2n-2 (factor.c says why 2n-2 suffices). */
int64_t hy_bluestein_length(int64_t n);
/* Whether Rader's convolution of length p - 1 (p prime) is the one to
 * use on a GPU for a prime too long for one pass: p - 1 = 2^a times 1, 3
 * or 5 with a >= 4 (measured against Bluestein: solvers/four_step.c
 * hy_fs_rader_pays for the fused passes). */
int hy_rader_length_pays(int64_t p);
/* Whether Rader's convolution is the one to use for a prime p whose DFT
 * is one GPU pass: p - 1 has no prime factor above 5, so the convolution
 * takes the generator's radix-2/3/4/5/8/16 stages only (planner/
 * kernel_model.c, hy_rader_one_pass). */
int hy_rader_one_pass_pays(int64_t p);
/* Bluestein's convolution length for a one-pass DFT on a GPU: of the
 * 2^a 3^b 5^c lengths from 2n - 2 to twice that, the fewest points times
 * the stages the kernel model gives them, where hy_bluestein_length's
 * choice is at most HY_BLUESTEIN_GPU_STAGED_MAX points; beyond it, where
 * an f32 block fills its SM and the thread rules give radix-32 stages
 * idle slots, hy_bluestein_length's (docs/design.md, "Bluestein length"). */
#define HY_BLUESTEIN_GPU_STAGED_MAX 8192
int64_t hy_bluestein_gpu_length(int64_t n);
/* Bluestein's convolution length on the CPU: as hy_bluestein_length, but
 * of the 2^a 3^b 5^c lengths only those with a >= 3. The CPU engine's row
 * path, which keeps every lane busy on a single transform and runs
 * batches faster too, takes lengths its lane count (8 for f32, 4 for
 * f64) divides with a smooth quotient: 10007's plain choice 20250 has
 * none, and a single f32 transform of it took 2.2x as long as one of
 * 20480, batches of 8 1.5x (docs/performance.md). */
int64_t hy_bluestein_cpu_length(int64_t n);
/* Choose the 1D algorithm for length n and fill pass->algo/factors/bluestein_m:
 * the convolution length by hy_bluestein_gpu_length on GPU backends,
 * hy_bluestein_cpu_length on the CPU, hy_bluestein_length where caps is
 * NULL. */
hy_status hy_choose_dft_algo(int64_t n, const hy_device_caps *caps, hy_pass *pass);

/* Columns (neighbouring transforms) a GPU block of a strided pass of this
 * length holds: 128 bytes' worth, halved until they fit local memory. */
int hy_strided_columns(int64_t length, hyfft_precision p, const hy_device_caps *caps);
/* Time of a strided pass of this length over a contiguous one (>= 1; 1 on
 * the CPU): the cost model's penalty for short row pieces. */
double hy_strided_factor(int64_t length, hyfft_precision p, const hy_device_caps *caps);

/* Model cost of a tree on a device (seconds). */
double hy_cost_tree(const hy_plan_tree *tree, const hy_problem *problem,
                    const hy_device_caps *caps);

#endif /* HY_PLANNER_H */
