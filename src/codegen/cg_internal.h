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

/* The generator's sweepable switches for one DFT pass (DESIGN rule 9). The
 * defaults come from hy_cg_default_spec; the tuner may override them. */
typedef struct hy_kernel_spec {
  int threads_per_transform; /* T: threads cooperating on one transform */
  int transforms_per_block;  /* M: transforms one work-group handles */
  int lds_pad;               /* complex elements of padding after every 2^lds_pad_shift */
  int lds_pad_shift;         /* log2 of the padding period in elements (5: every 32) */
  int lds_row_extra;         /* elements added to each transform's row after the padding
                                (its residue modulo the banks decides whether threads on
                                neighbouring transforms collide) */
  int split_exchange;        /* 1: exchange real then imaginary parts (half the local memory) */
  int transform_fastest;     /* 1: consecutive threads walk one transform (contiguous axis);
                                0: consecutive threads walk neighbouring transforms (strided axis) */
  int store_transposed;      /* 1: the last stage goes through local memory and is stored with
                                consecutive threads on neighbouring transforms (outputs whose
                                loop stride is smaller than the axis stride: four-step pass B) */
  int stage_load;            /* 1: the block's inputs (one dense run of M transforms) are copied
                                to local memory by consecutive threads first, so a warp spanning
                                several short transforms still reads whole segments */
  int stage_store;           /* 1: the same for the outputs, through local memory */
  int stage_twiddles;        /* 1: twiddles from per-stage tables laid out [r-1][k], so the
                                threads of a warp (consecutive k) read consecutive entries;
                                0: one table of W_n indexed r*k*step (scattered reads) */
  int ftw_sincos;            /* four-step twiddles: 0 reads of an N-entry table (a warp's 32
                                reads hit 32 sectors), 1 sincospi on the fly, 2 the product
                                of two short tables (hy_cg_twiddle_pair_table) */
  int min_blocks;            /* CUDA: blocks per SM the register budget must allow
                                (__launch_bounds__'s second argument); 0 or 1: no demand */
  int reverse_blocks;        /* 1: the blocks run from the launch's last to its first
                                (set by codegen.c for every second pass of a plan) */
  int merge_odd;             /* pairs of stages of 3 or 5 merged into one of 9 or 25:
                                0 never, 1 when the length is a power of that prime,
                                2 wherever two of them follow each other */
  int pow2_radix;            /* 0: the planner's power-of-two factors (16s, then the rest);
                                16/32/64: regrouped into stages of that radix */
  int rader;                 /* a one-pass prime Bluestein pass as Rader (read by
                                hy_cg_effective_pass, before the rest of the spec) */
  int persist;               /* a two-pass plan as one persistent kernel (cg_persist.c, read
                                from its first pass): 1 asked for, 0 refused, -1 the default */
  int persist_ring;          /* its work slots; 0: about half of L2 */
  int persist_lag;           /* elements its second pass runs behind; 0: half the ring */
  int persist_hints;         /* 1: input and output streamed past L2 (CUDA cache hints);
                                0: plain loads and stores; -1: the default (cg_persist.c) */
  int body;                  /* 0: a kernel of its own; 1, 2 or 3: the function for the
                                first, the last or a middle pass of a persistent kernel
                                (cg_persist.c), which takes the block index and local
                                memory from its caller */
} hy_kernel_spec;

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
/* The pass the generator builds for `pass`: a copy, turned into Rader
 * (HY_ALGO_RADER) where a one-pass Bluestein pass has a prime length n
 * whose n - 1 is a power of two times 1, 3 or 5 (measured faster there),
 * or wherever n - 1 is smooth when $HYFFT_RADER=1 or the switch rader=1
 * asks for it ($HYFFT_RADER=0 or rader=0: never). Returns 1 when it did
 * that. */
int hy_cg_effective_pass(const hy_pass *pass, hy_pass *out);
hy_status hy_cg_default_spec(const hy_problem *problem, const hy_pass *pass,
                             const hy_device_caps *caps, hy_kernel_spec *spec);
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
