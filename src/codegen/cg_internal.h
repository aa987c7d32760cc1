/* Internals of the kernel generator, in three levels:
 *   cg_dialect.c  the tiny layer that differs between OpenCL C and CUDA C;
 *   cg_radix.c    straight-line radix butterflies and constant twiddles;
 *   cg_kernel.c   whole kernels (loads, stages, exchanges, stores) and the
 *                 tables and launches they need;
 *   codegen.c     hy_codegen_plan: the program of a plan tree.
 * Everything here only appends text to a hy_strbuf. */
#ifndef HY_CG_INTERNAL_H
#define HY_CG_INTERNAL_H

#include "codegen/codegen.h"


/* ---- dialect layer ---- */
void hy_cg_preamble(hy_strbuf *sb, hy_dialect dialect, hyfft_precision precision);
/* "__kernel void NAME(" or "extern \"C\" __global__ void __launch_bounds__(B[, MIN]) NAME(";
 * block is the exact work-group size every launch of the kernel uses. */
void hy_cg_kernel_open(hy_strbuf *sb, hy_dialect dialect, const char *name, int block,
                       int min_blocks);
/* Qualifier for a global pointer parameter ("__global " / ""). */
/* Emit the statements that split a transform index held in `rem` (with
 * `q` declared beside it) into the pass's loop indices, taking the loops in
 * `order` (fastest first); each loop's strides are added to `in_var` and
 * `out_var` (either may be NULL), the index of the four-step twiddle loop
 * is stored in `tm_var` and that of the fused Bluestein step's loop in
 * `fk_var` if those are not NULL. The last loop takes the remaining index
 * as it is. Every statement starts with `indent`. */
void hy_cg_emit_loop_offsets(hy_strbuf *sb, const hy_pass *pass, const int *order,
                             const char *indent, const char *in_var, const char *out_var,
                             const char *tm_var, const char *fk_var);

const char *hy_cg_global(hy_dialect dialect);
/* The kernel's first statement: hy_gid (HY_GID), the index of the block
 * in its pass, hy_block0 (the launch's first block) plus the block's place
 * in the launch, counted from the last block when `reversed`. */
void hy_cg_emit_block_index(hy_strbuf *sb, int reversed);
/* Qualifier for a kernel-scope local array ("__local " / "__shared__ "). */
const char *hy_cg_local(hy_dialect dialect);

/* ---- radix level ---- */
/* Number literal of the pass's precision (exact decimal of the rounded value). */
void hy_cg_literal(hy_strbuf *sb, hyfft_precision precision, long double v);
/* Emit statements computing out[k] = sum_j in[j] * exp(sign*2*pi*i*j*k/radix)
 * for k < radix. in[] and out[] are names of declared real2 variables
 * (distinct). Temporaries are scoped in a block. */
void hy_cg_emit_dft(hy_strbuf *sb, hyfft_precision precision, int radix, int sign,
                    const char *const *in, const char *const *out);

/* ---- kernel level ---- */
/* Append the kernel for one pass, its tables and its launch to prog. */
hy_status hy_cg_pass_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                            const hy_device_caps *caps, const hy_kernel_spec *spec,
                            hy_gpu_program *prog);

/* Tables (cg_kernel.c): added to prog (identical ones shared), index out. */
hy_status hy_cg_twiddle_table(hy_gpu_program *prog, int64_t n, int sign, hyfft_precision p,
                              int *index);
hy_status hy_cg_chirp_table(hy_gpu_program *prog, int64_t n, int sign, hyfft_precision p,
                            int *index);
hy_status hy_cg_bluestein_table(hy_gpu_program *prog, int64_t n, int64_t m, int sign,
                                hyfft_precision p, int *index);

/* The persistent kernel of a plan of 2-4 passes (cg_persist.c): when the
 * switch persist=1 asks for it and the plain program `plain` qualifies,
 * *made = 1 and `out` holds the program (a clearing kernel and the
 * persistent kernel); otherwise *made = 0 and `out` is untouched. */
hy_status hy_cg_persist(const hy_problem *problem, const hy_plan_tree *tree,
                        const hy_device_caps *caps, const hy_gpu_program *plain,
                        hy_gpu_program *out, int *made);

/* Pointwise kernels of multi-pass Bluestein (cg_pointwise.c). */
hy_status hy_cg_chirp_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                             const hy_device_caps *caps, hy_gpu_program *prog);

#endif /* HY_CG_INTERNAL_H */
