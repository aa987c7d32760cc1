/* Kernel level: one kernel per pass.
 *
 * A work-group handles M transforms with T threads each. Every stage of the
 * Stockham algorithm loads its points into registers (straight from global
 * memory in the first stage), twiddles them, runs a straight-line radix-R
 * butterfly and writes them back: to local memory for the next stage, or to
 * global memory (with the scale and the four-step twiddle) in the last.
 * Every length, stride and offset is a literal, so index arithmetic folds.
 *
 * Stage s of radix R over a length-NC sequence, with NS the product of the
 * earlier radices, computes butterfly j (0 <= j < NC/R):
 *   inputs  e = j + r*NC/R,  twiddle w^(r*k) with k = j % NS, w = W_(NS*R),
 *   outputs e = (j/NS)*NS*R + k + r*NS,
 * which leaves the result in natural order after the last stage.
 *
 * Bluestein passes run 2S stages in one kernel: the forward transform of the
 * chirped, zero-padded input (chirp multiply fused into the load), the
 * chirp-spectrum multiply fused into the last forward stage, the inverse
 * transform, and the output chirp fused into the store. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "tables/spectra.h"

/* Kernel prologue: thread ids, validity, base offsets, the four-step loop
 * index. */
static void hy_cg_prologue(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  if (k->spec->transform_fastest)
    hy_strbuf_appendf(sb, "  const int t = HY_LID %% %d, m = HY_LID / %d;\n", k->T, k->T);
  else
    hy_strbuf_appendf(sb, "  const int t = HY_LID / %d, m = HY_LID %% %d;\n", k->M, k->M);
  hy_strbuf_appendf(sb, "  const %s ti = (%s)(HY_GID * %d + m);\n", k->idx, k->idx, k->M);
  if (count % k->M == 0)
    hy_strbuf_append(sb, "  const int valid = 1;\n");
  else
    hy_strbuf_appendf(sb, "  const int valid = ti < %lld;\n", (long long)count);
  hy_strbuf_appendf(sb, "  %s ib = %lld, ob = %lld;\n", k->idx, (long long)pass->src_offset,
                    (long long)pass->dst_offset);
  if (pass->twiddle_loop >= 0) hy_strbuf_appendf(sb, "  %s tm = 0;\n", k->idx);
  int fk = pass->fuse != HY_FUSE_NONE && !hy_fuse_is_real(pass->fuse) &&
           !hy_fuse_is_real_odd(pass->fuse) && pass->fuse != HY_FUSE_R2R;
  if (fk) hy_strbuf_appendf(sb, "  %s fk = 0;\n", k->idx);
  /* The split C2R step read into registers needs the transform's row. */
  int jr = pass->fuse == HY_FUSE_C2R_PRE && pass->fuse_loop >= 0 && k->spec->stage_load == 2;
  if (jr) hy_strbuf_appendf(sb, "  %s jr = 0;\n", k->idx);
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, k->spec->store_transposed, order);
  if (pass->nloops > 0) {
    hy_strbuf_appendf(sb, "  {\n    %s rem = ti, q;\n", k->idx);
    hy_cg_emit_loop_offsets(sb, pass, order, "    ", "ib", "ob",
                            pass->twiddle_loop >= 0 ? "tm" : NULL, fk ? "fk" : jr ? "jr" : NULL);
    hy_strbuf_append(sb, "  }\n");
  }
  if (hy_fuse_is_rader(pass->fuse)) hy_cg_emit_stash_index(k, order, "  ", "ti", "st");
}

static hy_status hy_cg_copy_kernel(const hy_pass *pass, int pass_index, hy_dialect dialect,
                                   const hy_device_caps *caps, hy_gpu_program *prog) {
  hy_strbuf *sb = &prog->source;
  int64_t count = hy_pass_count(pass);
  int block = caps->max_work_group >= 256 ? 256 : (caps->max_work_group > 0 ? caps->max_work_group : 64);
  int big = count > INT32_MAX || hy_cg_extent(pass, 0) > INT32_MAX || hy_cg_extent(pass, 1) > INT32_MAX;
  const char *idx = big ? "hy_i64" : "int";
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0], "hy_pass%d_copy", pass_index);
  hy_cg_kernel_open(sb, dialect, prog->names[prog->nkernels], block, 0);
  const char *g = hy_cg_global(dialect);
  hy_strbuf_appendf(sb, "%sconst real2 *src, %sreal2 *dst, const hy_i64 hy_block0) {\n", g, g);
  hy_cg_emit_block_index(sb, 0);
  hy_strbuf_appendf(sb, "  const %s ti = (%s)(HY_GID * %d + HY_LID);\n", idx, idx, block);
  hy_strbuf_appendf(sb, "  if (ti >= %lld) return;\n", (long long)count);
  hy_strbuf_appendf(sb, "  %s ib = %lld, ob = %lld;\n", idx, (long long)pass->src_offset,
                    (long long)pass->dst_offset);
  if (pass->nloops > 0) hy_strbuf_appendf(sb, "  %s rem = ti, q;\n", idx);
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, 0, order);
  hy_cg_emit_loop_offsets(sb, pass, order, "  ", "ib", "ob", NULL, NULL);
  hy_strbuf_append(sb, "  real2 v = src[ib];\n");
  if (pass->scale != 1.0) {
    hy_strbuf_append(sb, "  v = cscale(v, ");
    hy_cg_literal(sb, pass->precision, (long double)pass->scale);
    hy_strbuf_append(sb, ");\n");
  }
  hy_strbuf_append(sb, "  dst[ob] = v;\n}\n\n");
  hy_launch *L = &prog->launches[prog->nlaunches++];
  L->kernel = prog->nkernels++;
  L->grid = (count + block - 1) / block;
  L->block = block;
  L->shared_bytes = 0;
  L->nargs = 3;
  L->args[0] = (hy_kernel_arg){HY_ARG_BUFFER, pass->src};
  L->args[1] = (hy_kernel_arg){HY_ARG_BUFFER, pass->dst};
  L->args[2] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  L->block_offset = 0;
  L->batch_blocks = 0; /* rank-0 plans have one pass: nothing to interleave */
  return HYFFT_SUCCESS;
}

hy_status hy_cg_pass_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                            const hy_device_caps *caps, const hy_kernel_spec *spec,
                            hy_gpu_program *prog) {
  if (prog->nkernels >= HY_MAX_KERNELS || prog->nlaunches >= HY_MAX_LAUNCHES)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: more than %d kernels in one plan", HY_MAX_KERNELS);
  if (pass->op == HY_PASS_COPY) return hy_cg_copy_kernel(pass, pass_index, prog->dialect, caps, prog);
  if (pass->op == HY_PASS_CHIRP) return hy_cg_chirp_kernel(problem, pass, pass_index, caps, prog);
  if (pass->op == HY_PASS_TWIDDLE)
    return hy_cg_twiddle_kernel(problem, pass, pass_index, caps, prog);
  if (pass->op >= HY_PASS_WIDEN && pass->op <= HY_PASS_C2R_EXTEND)
    return hy_cg_real_kernel(problem, pass, pass_index, caps, prog);
  if (pass->op == HY_PASS_R2R_PRE || pass->op == HY_PASS_R2R_POST)
    return hy_cg_r2r_kernel(problem, pass, pass_index, caps, prog);
  if (pass->op != HY_PASS_DFT)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d has an op the GPU generator lacks", pass_index);

  hy_cg_kernel k;
  memset(&k, 0, sizeof k);
  k.sb = &prog->source;
  k.precision = pass->precision;
  k.pass = pass;
  k.spec = spec;
  k.n = pass->axis.n;
  k.bluestein = pass->algo == HY_ALGO_BLUESTEIN;
  k.rader = pass->algo == HY_ALGO_RADER;
  int64_t nc = k.bluestein || k.rader ? pass->bluestein_m : pass->axis.n;
  if (nc > 65536)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d length %lld does not fit one kernel",
                    pass_index, (long long)nc);
  k.nc = (int)nc;
  k.T = spec->threads_per_transform;
  k.M = spec->transforms_per_block;
  k.pad = spec->lds_pad;
  k.pad_shift = spec->lds_pad_shift;
  k.row = hy_spec_row(k.nc, spec);
  const int r2r_in = pass->fuse == HY_FUSE_R2R && (pass->r2r_fuse & 1);
  const int r2r_out = pass->fuse == HY_FUSE_R2R && (pass->r2r_fuse & 2);
  /* stagein=2 on a fused C2R step: each thread forms its first stage's
   * inputs from X_e and X_m-e read straight from global memory, with no
   * pass through local memory before the first stage. */
  const int c2r_regs = pass->fuse == HY_FUSE_C2R_PRE && spec->stage_load == 2;
  k.lds_in = !c2r_regs && (spec->stage_load || pass->fuse == HY_FUSE_C2R_PRE || r2r_in);
  k.lds_out = spec->store_transposed || spec->stage_store || pass->fuse == HY_FUSE_R2C_POST || r2r_out;
  if (pass->fuse == HY_FUSE_R2R &&
      (k.bluestein || k.rader || spec->split_exchange || pass->twiddle_loop >= 0 ||
       pass->plane_inner > 0 || (spec->stage_load && r2r_in) ||
       ((spec->stage_store || spec->store_transposed) && r2r_out) || pass->r2r_len != k.n))
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: a fused r2r step needs a plain "
                    "mixed-radix pass with complex local memory", pass_index);
  const int real_split = hy_fuse_is_real(pass->fuse) && pass->fuse_loop >= 0;
  if (hy_fuse_is_real(pass->fuse) &&
      (k.bluestein || k.rader || spec->split_exchange ||
       (pass->twiddle_loop >= 0 && !(real_split && pass->fuse == HY_FUSE_C2R_PRE)) ||
       pass->plane_inner > 0 ||
       ((spec->stage_store || spec->store_transposed) && pass->fuse == HY_FUSE_R2C_POST)))
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: a fused real step needs a plain "
                    "mixed-radix pass with complex local memory", pass_index);
  if (real_split && pass->fuse == HY_FUSE_R2C_POST) {
    /* Rows j and L - j must be neighbouring transforms of one work-group
     * (planner/plan.h): an even row count and transform count per
     * work-group, the rows' loop the fastest in the transform index. */
    int order[HY_MAX_LOOPS];
    hy_cg_loop_order(pass, spec->store_transposed, order);
    if (pass->fuse_loop >= pass->nloops || pass->loops[pass->fuse_loop].n % 2 != 0 ||
        k.M % 2 != 0 || order[0] != pass->fuse_loop || spec->stage_load || spec->stage_store)
      return hy_error(HYFFT_INTERNAL, "codegen: pass %d: a split R2C step needs an even row "
                      "count and work-group, its rows' loop the fastest", pass_index);
  }
  if (real_split && (pass->fuse_loop >= pass->nloops || spec->stage_load == 1 || spec->stage_store))
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: a split real step needs its rows' loop "
                    "and unstaged loads and stores", pass_index);
  if (pass->real_end && (spec->stage_load || spec->stage_store || spec->body))
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: the end of a real Bluestein chain needs "
                    "direct loads and a direct or transposed store", pass_index);
  if (hy_fuse_is_real_odd(pass->fuse) &&
      (k.rader || pass->twiddle_loop >= 0 || pass->plane_inner > 0 || spec->store_transposed ||
       spec->body ||
       ((spec->stage_load || spec->stage_store) &&
        (k.bluestein || spec->split_exchange || !spec->transform_fastest)) ||
       (spec->stage_load && !hy_pass_dense_run(pass, 0)) ||
       (spec->stage_store && !hy_pass_dense_run(pass, 1))))
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: a fused odd real step needs a plain "
                    "mixed-radix or Bluestein pass, staged only over dense runs of a "
                    "mixed-radix one", pass_index);
  if (k.T < 1 || k.M < 1 || (int64_t)k.T * k.M > (caps->max_work_group > 0 ? caps->max_work_group : 1024))
    return hy_error(HYFFT_INVALID_ARGUMENT, "codegen: pass %d: %d threads x %d transforms per block",
                    pass_index, k.T, k.M);
  int64_t lbytes = hy_spec_local_bytes(pass, spec, k.nc);

  /* Stages. */
  int64_t prod = 1;
  for (int f = 0; f < pass->nfactors; f++) prod *= pass->factors[f];
  if (prod != nc)
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d factors multiply to %lld, not %lld",
                    pass_index, (long long)prod, (long long)nc);
  int radices[HY_MAX_FACTORS];
  int nradices = hy_spec_radices(pass, spec, radices);
  int reps = k.bluestein || k.rader ? 2 : 1;
  for (int rep = 0; rep < reps; rep++) {
    int ns = 1;
    for (int f = 0; f < nradices; f++) {
      hy_cg_stage *st = &k.st[k.nstages++];
      st->radix = radices[f];
      st->ns = ns;
      st->nb = k.nc / st->radix;
      st->per = (st->nb + k.T - 1) / k.T;
      st->guard = st->per * k.T > st->nb;
      st->kdiv = pass->plane_inner > 0 && ns >= pass->plane_inner ? (int)pass->plane_inner : 1;
      if (k.bluestein || k.rader) {
        st->sign = rep == 0 ? -1 : 1;
        st->conj = rep == 1;
      } else {
        st->sign = pass->sign;
      }
      if (st->per * st->radix > HY_CG_MAX_REGS)
        return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d needs %d registers per thread",
                        pass_index, st->per * st->radix);
      ns *= st->radix;
    }
    if (rep == 0) k.forward_end = k.nstages - 1;
  }
  if (k.nstages == 0) { /* length 1 never reaches a DFT pass, but keep it valid */
    hy_cg_stage *st = &k.st[k.nstages++];
    *st = (hy_cg_stage){1, 1, k.nc, (k.nc + k.T - 1) / k.T, 0, pass->sign, 0, 1};
    st->guard = st->per * k.T > st->nb;
  }

  int64_t count = hy_pass_count(pass);
  int64_t grid = (count + k.M - 1) / k.M;
  int big = hy_cg_extent(pass, 0) > INT32_MAX || hy_cg_extent(pass, 1) > INT32_MAX ||
            grid * k.M > INT32_MAX || (pass->twiddle_loop >= 0 && pass->twiddle_n > INT32_MAX);
  k.idx = big ? "hy_i64" : "int";

  /* Tables. */
  int t_tw = -1, t_chirp = -1, t_bh = -1, t_ftw = -1;
  if (spec->stage_twiddles)
    HY_TRY(hy_cg_stage_twiddle_table(prog, &k, k.bluestein || k.rader ? -1 : pass->sign, &t_tw));
  else
    HY_TRY(hy_cg_twiddle_table(prog, k.nc, k.bluestein || k.rader ? -1 : pass->sign,
                               pass->precision, &t_tw));
  if (k.bluestein) {
    HY_TRY(hy_cg_chirp_table(prog, k.n, pass->sign, pass->precision, &t_chirp));
    HY_TRY(hy_cg_bluestein_table(prog, k.n, k.nc, pass->sign, pass->precision, &t_bh));
  }
  int t_rin = -1, t_rout = -1;
  if (k.rader)
    HY_TRY(hy_cg_rader_tables(prog, k.n, pass->sign, pass->precision, &t_rin, &t_rout, &t_bh));
  int t_fz = -1;
  if (pass->fuse == HY_FUSE_CHIRP_IN || pass->fuse == HY_FUSE_CHIRP_OUT)
    HY_TRY(hy_cg_chirp_table(prog, pass->chirp_n, pass->fuse_sign, pass->precision, &t_fz));
  else if (pass->fuse == HY_FUSE_SPECTRUM_OUT)
    HY_TRY(hy_cg_bluestein_table(prog, pass->chirp_n, pass->bluestein_m, pass->fuse_sign,
                                 pass->precision, &t_fz));
  else if (pass->fuse == HY_FUSE_RADER_IN || pass->fuse == HY_FUSE_RADER_OUT)
    HY_TRY(hy_cg_rader_perm_table(prog, pass->chirp_n, hy_tables_primitive_root(pass->chirp_n),
                                  &t_fz));
  else if (pass->fuse == HY_FUSE_RADER_SPECTRUM_OUT)
    HY_TRY(hy_cg_rader_spectrum_table(prog, pass->chirp_n, pass->fuse_sign, pass->precision, &t_fz));
  else if (hy_fuse_is_real(pass->fuse))
    HY_TRY(hy_cg_twiddle_table(prog, pass->chirp_n, pass->fuse_sign, pass->precision, &t_fz));
  else if (pass->fuse == HY_FUSE_R2R && pass->r2r_half)
    /* The half form's split of Z into the real DFT (as the R2C step's). */
    HY_TRY(hy_cg_twiddle_table(prog, 2 * pass->r2r_len,
                               pass->r2r_kind == HYFFT_REDFT01 || pass->r2r_kind == HYFFT_RODFT01 ? 1 : -1,
                               pass->precision, &t_fz));
  /* The tables of fused r2r steps (planner/r2r_twiddle.h), if they need any. */
  int t_r2r_in = -1, t_r2r_out = -1;
  if (pass->fuse == HY_FUSE_R2R)
    HY_TRY(hy_cg_r2r_fused_tables(pass, prog, &t_r2r_in, &t_r2r_out));
  /* On-the-fly twiddles keep the argument (one entry) so launches do not change. */
  if (pass->twiddle_loop >= 0 && spec->ftw_sincos == 2)
    HY_TRY(hy_cg_twiddle_pair_table(prog, pass->twiddle_n, pass->sign, pass->precision, &t_ftw));
  else if (pass->twiddle_loop >= 0)
    HY_TRY(hy_cg_twiddle_table(prog, spec->ftw_sincos ? 1 : pass->twiddle_n, pass->sign,
                               pass->precision, &t_ftw));

  /* Header and signature. */
  hy_strbuf *sb = k.sb;
  const char *g = hy_cg_global(prog->dialect);
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0],
           spec->body ? "hy_pass%d_body%lld" : "hy_pass%d_dft%lld", pass_index, (long long)k.n);
  hy_strbuf_append(sb, "/* ");
  hy_plan_tree tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.solver = "-";
  tmp.npasses = 1;
  tmp.passes[0] = *pass;
  hy_strbuf line;
  hy_strbuf_init(&line);
  hy_plan_tree_describe(&tmp, &line);
  const char *nl = line.data ? strchr(line.data, '\n') : NULL;
  if (nl) {
    const char *p = strchr(nl + 1, ':'); /* past the "pass 0" of the one-pass tree */
    p = p ? p + 2 : nl + 1;
    hy_strbuf_appendf(sb, "pass %d: %.*s", pass_index, (int)(strcspn(p, "\n")), p);
  }
  hy_strbuf_free(&line);
  hy_strbuf_appendf(sb, "\n * %d threads x %d transforms per work-group, %lld bytes local, "
                        "pad %d, %s exchange, %s%s%s%s */\n",
                    k.T, k.M, (long long)lbytes, k.pad,
                    spec->split_exchange ? "split" : "complex",
                    spec->transform_fastest ? "threads along the transform"
                                            : "threads across transforms",
                    spec->store_transposed ? ", transposed store" : "",
                    c2r_regs ? ", C2R inputs into registers" : spec->stage_load ? ", staged load" : "",
                    spec->stage_store ? ", staged store" : "");
  /* The layout choices that differ from the planner's factors and the
   * default padding, named so that a reader of the source sees them. */
  if (spec->pow2_radix > 0 || k.pad_shift != 5 || spec->lds_row_extra) {
    hy_strbuf_append(sb, "/* stages");
    for (int s = 0; s < k.nstages && s <= k.forward_end; s++)
      hy_strbuf_appendf(sb, "%s%d", s ? "x" : " ", k.st[s].radix);
    hy_strbuf_appendf(sb, ", local rows of %d elements padded by %d every %d */\n", k.row, k.pad,
                      1 << k.pad_shift);
  }
  int uses_lds = k.nstages > 1 || k.lds_in || k.lds_out;
  const char *lds_type = spec->split_exchange ? "real" : "real2";
  if (spec->body) {
    /* A step of a persistent kernel (cg_persist.c): a function the kernel
     * calls with the block's index and its local memory. The first pass
     * streams its input past L2 (evict first); every later pass reads what
     * the one before wrote in L2, past L1 (which other SMs' writes do not
     * update), and the last streams its output. OpenCL has no cache hints: a volatile read
     * keeps L1 out. A CUDA call, not inlined: inlined into the ticket loop
     * the passes take more registers than their own kernels or spill; as
     * calls each keeps its kernel's count. */
    hy_strbuf_appendf(sb, "%s void %s(",
                      prog->dialect == HY_DIALECT_CUDA ? "__device__ __noinline__" : "HY_FN",
                      prog->names[prog->nkernels]);
    if (prog->dialect == HY_DIALECT_CUDA)
      hy_strbuf_append(sb, spec->body == 1   ? "hy_ld_stream src, real2 *dst"
                           : spec->body == 2 ? "hy_ld_l2 src, hy_st_stream dst"
                                             : "hy_ld_l2 src, real2 *dst");
    else
      hy_strbuf_appendf(sb, "%s__global const real2 *src, __global real2 *dst",
                        spec->body == 1 ? "" : "volatile ");
    hy_strbuf_appendf(sb, ", %sconst real2 *tw", g);
  } else {
    hy_cg_kernel_open(sb, prog->dialect, prog->names[prog->nkernels], k.T * k.M,
                      spec->min_blocks);
    hy_strbuf_appendf(sb, "%sconst %s *src, %s%s *dst, %sconst real2 *tw", g,
                      r2r_in || pass->fuse == HY_FUSE_R2C_ODD || (pass->fuse == HY_FUSE_CHIRP_IN && pass->real_end == 1) ? "real" : "real2", g,
                      r2r_out || pass->fuse == HY_FUSE_C2R_ODD || (pass->fuse == HY_FUSE_CHIRP_OUT && pass->real_end == 2) ? "real" : "real2", g);
  }
  if (k.bluestein) hy_strbuf_appendf(sb, ", %sconst real2 *chirp, %sconst real2 *bh", g, g);
  if (k.rader)
    hy_strbuf_appendf(sb, ", %sconst int *rin, %sconst int *rout, %sconst real2 *bh", g, g, g);
  if (pass->twiddle_loop >= 0) hy_strbuf_appendf(sb, ", %sconst real2 *ftw", g);
  if (t_fz >= 0)
    hy_strbuf_appendf(sb, ", %sconst %s *fz", g,
                      prog->tables[t_fz].type == HY_TABLE_INDEX ? "int" : "real2");
  if (t_r2r_in >= 0) hy_strbuf_appendf(sb, ", %sconst real2 *r2r_in_tab", g);
  if (t_r2r_out >= 0) hy_strbuf_appendf(sb, ", %sconst real2 *r2r_out_tab", g);
  int rader_fused = hy_fuse_is_rader(pass->fuse);
  if (rader_fused) hy_strbuf_appendf(sb, ", %sreal2 *aux", g);
  if (spec->body && prog->dialect == HY_DIALECT_CUDA) {
    /* CUDA: the function takes the kernel's shared memory itself (below)
     * and is told that every pointer it takes is global, so that each
     * access compiles to a shared or global instruction without relying
     * on NVVM following the call (which it does not do for the input's
     * accessor: without the assumption it is read with generic loads). */
    hy_strbuf_append(sb, ", const hy_i64 hy_gid) {\n  __builtin_assume(__isGlobal(src.p));\n");
    hy_strbuf_appendf(sb, "  __builtin_assume(__isGlobal(dst%s));\n",
                      spec->body == 2 ? ".p" : "");
    hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(tw));\n");
    if (k.bluestein)
      hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(chirp));\n"
                           "  __builtin_assume(__isGlobal(bh));\n");
    if (k.rader)
      hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(rin));\n"
                           "  __builtin_assume(__isGlobal(rout));\n"
                           "  __builtin_assume(__isGlobal(bh));\n");
    if (pass->twiddle_loop >= 0) hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(ftw));\n");
    if (t_fz >= 0) hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(fz));\n");
    if (rader_fused) hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(aux));\n");
  } else if (spec->body) {
    hy_strbuf_appendf(sb, ", const hy_i64 hy_gid, __local %s *lds) {\n", lds_type);
    if (!uses_lds) hy_strbuf_append(sb, "  (void)lds;\n");
  } else {
    hy_strbuf_append(sb, ", const hy_i64 hy_block0) {\n");
    hy_cg_emit_block_index(sb, spec->reverse_blocks);
  }
  /* CUDA caps static shared arrays at 48 KB; the exchange buffer is dynamic
   * shared memory there (launch shared_bytes, opted into by the backend),
   * one untyped array so that kernels of other element types can share
   * the translation unit. */
  if (spec->body && prog->dialect == HY_DIALECT_OPENCL)
    ;
  else if (uses_lds && prog->dialect == HY_DIALECT_CUDA)
    hy_strbuf_appendf(sb, "  extern __shared__ __align__(16) unsigned char hy_smem[];\n"
                          "  %s *lds = (%s *)hy_smem;\n",
                      lds_type, lds_type);
  else if (uses_lds)
    hy_strbuf_appendf(sb, "  %s%s lds[%d];\n", hy_cg_local(prog->dialect), lds_type,
                      k.M * k.row);
  hy_cg_prologue(&k, count);
  if (uses_lds) hy_strbuf_appendf(sb, "  const int mo = m * %d;\n", k.row);
  if (k.st[0].ns == 1 && k.nstages == 1) hy_strbuf_append(sb, "  (void)tw;\n");

  hy_cg_decl_regs(&k, 'x', 0);
  if (k.rader && spec->stage_store) hy_strbuf_append(sb, "  int hx0_out = 0;\n  real2 hX0 = MK(0, 0);\n");
  if (k.rader && spec->stage_load) {
    /* Rader from local memory: the rows arrive contiguously, then each
     * thread picks its convolution inputs x at g^q mod p. */
    hy_cg_stage_copy(&k, count, 0);
    hy_strbuf_append(sb, "  const real2 hx0 = lds[mo];\n");
    hy_cg_load_rader_local(&k);
  } else if (k.rader) {
    /* Rader: x_0, which every output adds (read before any store: in place). */
    hy_strbuf_append(sb, "  const real2 hx0 = valid ? src[ib] : MK(0, 0);\n");
    hy_cg_load_global(&k);
  } else if (c2r_regs) {
    hy_cg_load_global(&k);
  } else if (pass->fuse == HY_FUSE_C2R_PRE) {
    hy_cg_load_real_pre(&k, count, spec->stage_load);
    hy_cg_load_local(&k, 0, 0);
  } else if (spec->stage_load) {
    hy_cg_stage_copy(&k, count, 0);
    hy_cg_load_local(&k, 0, 0);
  } else if (r2r_in) {
    hy_cg_load_r2r_pre(&k, count);
    hy_cg_load_local(&k, 0, 0);
  } else {
    hy_cg_load_global(&k);
  }
  /* Fused Rader keeps x_0 for its last pass. */
  if (pass->fuse == HY_FUSE_RADER_IN)
    hy_strbuf_appendf(sb, "  if (valid && fk == 0 && t == 0) aux[%lld + 2 * st] = src[ib];\n",
                      (long long)pass->aux_offset);
  for (int s = 0; s < k.nstages; s++) {
    hy_cg_decl_regs(&k, 'y', s);
    hy_cg_compute(&k, s);
    if (s == k.nstages - 1) {
      /* One stage reads and writes global memory only: with in-place data
       * every thread must have read before any thread writes. */
      if (k.nstages == 1 && !k.lds_out && !k.lds_in) hy_strbuf_append(sb, "  HY_BARRIER();\n");
      /* Before overwriting local memory, every thread has done its loads. */
      if ((k.nstages > 1 || k.lds_in) && k.lds_out) hy_strbuf_append(sb, "  HY_BARRIER();\n");
      hy_cg_store_global(&k, s);
      if (k.rader && spec->stage_store) {
        hy_strbuf_append(sb, "  if (hx0_out) lds[mo] = ");
        if (pass->scale != 1.0) {
          hy_strbuf_append(sb, "cscale(hX0, ");
          hy_cg_literal(sb, k.precision, (long double)pass->scale);
          hy_strbuf_append(sb, ");\n");
        } else {
          hy_strbuf_append(sb, "hX0;\n");
        }
      }
      if (spec->store_transposed) hy_cg_store_transposed(&k, count);
      if (spec->stage_store) hy_cg_stage_copy(&k, count, 1);
      if (pass->fuse == HY_FUSE_R2C_POST) hy_cg_store_real_post(&k, count);
      if (r2r_out) hy_cg_store_r2r_post(&k, count);
    } else {
      hy_cg_decl_regs(&k, 'x', s + 1);
      hy_cg_exchange(&k, s);
    }
  }
  hy_strbuf_append(sb, "}\n\n");

  hy_launch *L = &prog->launches[prog->nlaunches++];
  L->kernel = prog->nkernels++;
  L->grid = grid;
  L->block = k.T * k.M;
  L->shared_bytes = (size_t)(uses_lds ? lbytes : 0);
  L->nargs = 0;
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->src};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->dst};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_tw};
  if (k.bluestein) {
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_chirp};
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_bh};
  }
  if (k.rader) {
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_rin};
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_rout};
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_bh};
  }
  if (pass->twiddle_loop >= 0) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_ftw};
  if (t_fz >= 0) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_fz};
  if (t_r2r_in >= 0) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_r2r_in};
  if (t_r2r_out >= 0) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_r2r_out};
  if (rader_fused) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, HY_BUF_WORK0};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  L->block_offset = 0;
  /* Block b holds transforms [b*M, b*M + M), and the transform index has
   * the outermost batch loop (loops[0]) as its slowest digit when that
   * loop has the largest input stride: then each element of that loop is
   * count/B transforms, whole blocks of them when M divides it. */
  L->batch_blocks = 0;
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, spec->store_transposed, order);
  int64_t batch = problem->batch_rank > 0 ? problem->batch[0].n : 0;
  if (batch > 1 && pass->nloops > 0 && pass->loops[0].n == batch &&
      order[pass->nloops - 1] == 0 && count % batch == 0 && (count / batch) % k.M == 0)
    L->batch_blocks = count / batch / k.M;
  return HYFFT_SUCCESS;
}
