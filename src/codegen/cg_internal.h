/* Internals of the kernel generator, in levels (no file calls one above it):
 *   cg_dialect.c  the tiny layer that differs between OpenCL C and CUDA C;
 *   cg_emit.c     emission helpers every level uses;
 *   cg_radix.c    straight-line radix butterflies and constant twiddles;
 *   cg_tables.c   the program's tables (values from src/tables/);
 *   cg_access.c   memory access: loads, stores, exchanges, loop indices;
 *   cg_stage.c    one Stockham stage (twiddles and butterfly);
 *   cg_kernel.c, cg_pointwise.c, cg_persist.c  whole kernels: one pass,
 *                 Bluestein's pointwise steps, the persistent kernel;
 *   cg_storage.c  half-precision storage (conversions) and load/store
 *                 callbacks on the caller's buffers, applied to a
 *                 finished kernel's text;
 *   codegen.c     hy_codegen_plan: the program of a plan tree.
 * Every switch comes from the plan tree (hy_pass.spec); nothing here
 * decides what runs. Everything appends text to a hy_strbuf. */
#ifndef HY_CG_INTERNAL_H
#define HY_CG_INTERNAL_H

#include "codegen/program.h"
#include "planner/kernel_spec.h"

/* ---- the state of one kernel while it is generated ---- */
#define HY_CG_MAX_STAGES (2 * HY_MAX_FACTORS)
#define HY_CG_MAX_REGS 512

typedef struct hy_cg_stage {
  int radix;
  int ns;     /* product of the earlier radices */
  int nb;     /* butterflies: NC / radix */
  int per;    /* butterflies per thread: ceil(nb / T) */
  int guard;  /* per * T > nb: some threads idle on the last butterfly */
  int sign;   /* of the butterfly */
  int conj;   /* use the conjugate of the (sign -1) table twiddle */
  int kdiv;   /* twiddle index k = (j % NS) / kdiv: B in the second axis of a plane pass
                 (its twiddles leave out the first axis's frequency), else 1 */
} hy_cg_stage;

typedef struct hy_cg_kernel {
  hy_strbuf *sb;
  hyfft_precision precision;
  const hy_pass *pass;
  const hy_kernel_spec *spec;
  int64_t n;  /* transform length */
  int nc;     /* computed length: n, or the Bluestein convolution length */
  int bluestein;
  int rader;  /* HY_ALGO_RADER: permuted load/store around a length n-1 convolution */
  int T, M, pad, pad_shift, row;
  int nstages;
  hy_cg_stage st[HY_CG_MAX_STAGES];
  int forward_end; /* Bluestein: index of the last forward stage */
  int lds_in;      /* stage 0 reads local memory (staged load, fused C2R step) */
  int lds_out;     /* the last stage writes local memory (transposed or staged
                      store, fused R2C step) */
  const char *idx; /* index type: "int" or "hy_i64" */
  int tw_off[HY_CG_MAX_STAGES]; /* stage_twiddles: where stage s's table starts */
  int64_t tw_count;             /* entries of the per-stage twiddle tables */
} hy_cg_kernel;

/* ---- emission helpers (cg_emit.c) ---- */
void hy_cg_lx(hy_cg_kernel *k, const char *e);
void hy_cg_decl_regs(hy_cg_kernel *k, char prefix, int s);
void hy_cg_open_b(hy_cg_kernel *k, int s, int b);
void hy_cg_close_b(hy_cg_kernel *k);
void hy_cg_out_pos(hy_cg_kernel *k, int s);
void hy_cg_real_step_value(hy_strbuf *sb, int post, const char *x, const char *y, const char *t,
                           const char *indent);

/* ---- memory access (cg_access.c) ---- */
void hy_cg_load_global(hy_cg_kernel *k);
void hy_cg_load_local(hy_cg_kernel *k, int s, int part);
void hy_cg_load_rader_local(hy_cg_kernel *k);
void hy_cg_store_global(hy_cg_kernel *k, int s);
void hy_cg_store_transposed(hy_cg_kernel *k, int64_t count);
void hy_cg_stage_copy(hy_cg_kernel *k, int64_t count, int out);
void hy_cg_exchange(hy_cg_kernel *k, int s);
/* The fused real steps (HY_FUSE_C2R_PRE / HY_FUSE_R2C_POST): the block's
 * inputs pre-processed into local memory, or its outputs post-processed
 * from there, consecutive threads on consecutive elements of a row. */
void hy_cg_load_real_pre(hy_cg_kernel *k, int64_t count, int staged);
void hy_cg_store_real_post(hy_cg_kernel *k, int64_t count);
int64_t hy_cg_extent(const hy_pass *pass, int out);
void hy_cg_loop_order(const hy_pass *pass, int by_out, int *order);
void hy_cg_emit_stash_index(hy_cg_kernel *k, const int *order, const char *indent, const char *from, const char *out);

/* ---- steps (cg_stage.c) ---- */
void hy_cg_compute(hy_cg_kernel *k, int s);

/* ---- program tables (cg_tables.c) ---- */
hy_status hy_cg_twiddle_pair_table(hy_gpu_program *prog, int64_t n, int sign, hyfft_precision p, int *index);
hy_status hy_cg_rader_perm_table(hy_gpu_program *prog, int64_t p, int64_t root, int *index);
hy_status hy_cg_rader_spectrum_table(hy_gpu_program *prog, int64_t p, int sign, hyfft_precision prec, int *index);
hy_status hy_cg_stage_twiddle_table(hy_gpu_program *prog, hy_cg_kernel *k, int sign, int *index);
hy_status hy_cg_rader_tables(hy_gpu_program *prog, int64_t p, int sign, hyfft_precision prec, int *t_in, int *t_out, int *t_b);


/* ---- dialect layer (cg_dialect.c) ---- */
void hy_cg_preamble(hy_strbuf *sb, hy_dialect dialect, hyfft_precision precision);
/* Half-precision storage (cg_storage.c): the conversion functions of the
 * prelude (nothing for f32/f64 storage), and the rewrite of one pass's
 * kernel text, sb[begin, len), whose src/dst are the caller's buffers. */
void hy_cg_storage_preamble(hy_strbuf *sb, hy_dialect dialect, hyfft_precision storage);
hy_status hy_cg_storage_kernel(const hy_problem *problem, const hy_pass *pass, hy_strbuf *sb,
                               size_t begin);
/* Load and store callbacks (cg_storage.c): the callback functions of the
 * prelude (nothing without callbacks), and the rewrite of kernel
 * `kernel`'s text, prog->source[begin, len), made for pass `pass_index`:
 * the first pass's reads of the caller's input and the last pass's
 * stores to its output through the callbacks, the user pointers as
 * parameters and launch arguments. HYFFT_NOT_SUPPORTED where a plan's
 * passes cannot apply them once per element. */
void hy_cg_callback_preamble(hy_strbuf *sb, hy_dialect dialect, const hy_problem *problem);
hy_status hy_cg_callback_kernel(const hy_problem *problem, const hy_plan_tree *tree,
                                int pass_index, hy_gpu_program *prog, int kernel, size_t begin);
/* "__kernel void NAME(" or "extern \"C\" __global__ void __launch_bounds__(B[, MIN]) NAME(";
 * block is the exact work-group size every launch of the kernel uses. */
void hy_cg_kernel_open(hy_strbuf *sb, hy_dialect dialect, const char *name, int block,
                       int min_blocks);
/* Emit the statements (cg_access.c) that split a transform index held in
 * `rem` (with `q` declared beside it) into the pass's loop indices, taking
 * the loops in `order` (fastest first); each loop's strides are added to
 * `in_var` and `out_var` (either may be NULL), the index of the four-step
 * twiddle loop is stored in `tm_var` and that of the fused Bluestein
 * step's loop in `fk_var` if those are not NULL. The last loop takes the
 * remaining index as it is. Every statement starts with `indent`. */
void hy_cg_emit_loop_offsets(hy_strbuf *sb, const hy_pass *pass, const int *order,
                             const char *indent, const char *in_var, const char *out_var,
                             const char *tm_var, const char *fk_var);

/* Qualifier for a global pointer parameter ("__global " / ""). */
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
/* The same in the CPU codelets' dialect (cg_cpu.c): in[] and out[] name
 * hy_c2 variables (a pair of lane vectors), constants are long double
 * literals cast to hy_r. */
void hy_cg_emit_dft_cpu(hy_strbuf *sb, int radix, int sign, const char *const *in,
                        const char *const *out);

/* ---- kernel level ---- */
/* Append the kernel for one pass, its tables and its launch to prog. */
hy_status hy_cg_pass_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                            const hy_device_caps *caps, const hy_kernel_spec *spec,
                            hy_gpu_program *prog);

/* Tables (cg_tables.c): added to prog (identical ones shared), index out. */
hy_status hy_cg_twiddle_table(hy_gpu_program *prog, int64_t n, int sign, hyfft_precision p,
                              int *index);
hy_status hy_cg_chirp_table(hy_gpu_program *prog, int64_t n, int sign, hyfft_precision p,
                            int *index);
hy_status hy_cg_bluestein_table(hy_gpu_program *prog, int64_t n, int64_t m, int sign,
                                hyfft_precision p, int *index);

/* The persistent kernel of a plan of 2-4 passes (cg_persist.c): when the
 * switch persist=1 or the default (hy_persist_pays) asks for it and the
 * plain program `plain` qualifies, *made = 1 and `out` holds the program
 * (a clearing kernel and the persistent kernel); otherwise *made = 0 and
 * `out` is untouched. */
hy_status hy_cg_persist(const hy_problem *problem, const hy_plan_tree *tree,
                        const hy_device_caps *caps, const hy_gpu_program *plain,
                        hy_gpu_program *out, int *made);

/* The index prologue and the launch every pointwise kernel shares
 * (cg_pointwise.c; the comments there say what they emit). */
void hy_cg_pointwise_index(hy_strbuf *sb, const hy_problem *problem, const hy_pass *pass,
                           int64_t items, int64_t total, int block, const char *idx,
                           int with_axis, int64_t *grid, int64_t *batch_blocks);
void hy_cg_pointwise_launch(hy_gpu_program *prog, const hy_pass *pass, int64_t grid, int block,
                            int64_t batch_blocks, int table);

/* Pointwise kernels of real transforms (cg_real.c): WIDEN, NARROW,
 * R2C_POST, C2R_PRE and C2R_EXTEND. */
hy_status hy_cg_real_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                            const hy_device_caps *caps, hy_gpu_program *prog);

/* Pointwise kernels of real-to-real transforms (cg_r2r.c): R2R_PRE and
 * R2R_POST. */
hy_status hy_cg_r2r_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                           const hy_device_caps *caps, hy_gpu_program *prog);
/* An r2r axis's steps fused into its DFT pass (HY_FUSE_R2R; cg_r2r.c):
 * the tables of the fused steps (-1: none), the PRE step's values into
 * local memory (then the usual local load), the POST step's reals from
 * local memory after the last stage. */
hy_status hy_cg_r2r_fused_tables(const hy_pass *pass, hy_gpu_program *prog, int *in, int *out);
void hy_cg_load_r2r_pre(hy_cg_kernel *k, int64_t count);
void hy_cg_store_r2r_post(hy_cg_kernel *k, int64_t count);
/* The loop of a fused step over element e of row mm of the work-group
 * (cg_access.c), and local-memory element e2 of row mm. */
void hy_cg_real_loop_open(hy_cg_kernel *k, int64_t count, int64_t per, int out, const char *var);
/* The same with the index of the pass's fuse_loop (the row of a split
 * real step) in `row` (NULL: none). */
void hy_cg_real_loop_open_row(hy_cg_kernel *k, int64_t count, int64_t per, int out,
                              const char *var, const char *row);
void hy_cg_real_lds(hy_cg_kernel *k, const char *e2, char *out, size_t size);
/* The table of an r2r step (planner/r2r_twiddle.h), shared like the others. */
struct hy_r2r_twiddle;
hy_status hy_cg_r2r_table(hy_gpu_program *prog, const struct hy_r2r_twiddle *tw,
                          hyfft_precision p, int *index);

/* Pointwise kernels of multi-pass Bluestein (cg_pointwise.c). */
hy_status hy_cg_chirp_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                             const hy_device_caps *caps, hy_gpu_program *prog);
hy_status hy_cg_twiddle_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                               const hy_device_caps *caps, hy_gpu_program *prog);

#endif /* HY_CG_INTERNAL_H */
