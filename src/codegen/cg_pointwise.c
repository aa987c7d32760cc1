/* Kernel level: the pointwise passes of multi-pass Bluestein
 * (HY_PASS_CHIRP, see planner/plan.h) and the four-step twiddles of a
 * piece (HY_PASS_TWIDDLE). One thread per element; the element
 * index along the axis varies fastest so accesses are coalesced. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/cg_internal.h"

static int64_t hy_cg_pw_extent(const hy_pass *pass, int out) {
  int64_t e = out ? pass->dst_offset : pass->src_offset;
  e += (pass->axis.n - 1) * llabs(out ? pass->axis.out_stride : pass->axis.in_stride);
  for (int l = 0; l < pass->nloops; l++)
    e += (pass->loops[l].n - 1) * llabs(out ? pass->loops[l].out_stride : pass->loops[l].in_stride);
  return e;
}

/* The index prologue of a pointwise kernel of `total` threads, `items`
 * per transform: blocks are dealt per element of the outermost loop (the
 * problem's outermost batch loop, loops[0]), so that whole elements are
 * runs of whole blocks (the L2 chunks of codegen.c); e is the thread's
 * place along the axis, and ib, ob the offsets of its transform (plus
 * e times the axis strides when with_axis). *grid and *batch_blocks are
 * the launch's. */
void hy_cg_pointwise_index(hy_strbuf *sb, const hy_problem *problem, const hy_pass *pass,
                           int64_t items, int64_t total, int block, const char *idx,
                           int with_axis, int64_t *grid, int64_t *batch_blocks) {
  int64_t outer = 1;
  if (problem->batch_rank > 0 && pass->nloops > 0 && pass->loops[0].n == problem->batch[0].n &&
      problem->batch[0].n > 1)
    outer = pass->loops[0].n;
  int64_t per = total / outer, per_blocks = (per + block - 1) / block;
  if (outer > 1) {
    hy_strbuf_appendf(sb, "  const %s w = (%s)(HY_GID %% %lld) * %d + HY_LID;\n", idx, idx,
                      (long long)per_blocks, block);
    hy_strbuf_appendf(sb, "  if (w >= %lld) return;\n", (long long)per);
    hy_strbuf_appendf(sb, "  const %s gi = (%s)(HY_GID / %lld) * %lld + w;\n", idx, idx,
                      (long long)per_blocks, (long long)per);
  } else {
    hy_strbuf_appendf(sb, "  const %s gi = (%s)(HY_GID * %d + HY_LID);\n", idx, idx, block);
    hy_strbuf_appendf(sb, "  if (gi >= %lld) return;\n", (long long)total);
  }
  hy_strbuf_appendf(sb, "  const int e = (int)(gi %% %lld);\n", (long long)items);
  if (pass->nloops > 0) hy_strbuf_appendf(sb, "  %s rem = gi / %lld, q;\n", idx, (long long)items);
  if (with_axis)
    hy_strbuf_appendf(sb, "  %s ib = %lld + (%s)e * %lld, ob = %lld + (%s)e * %lld;\n", idx,
                      (long long)pass->src_offset, idx, (long long)pass->axis.in_stride,
                      (long long)pass->dst_offset, idx, (long long)pass->axis.out_stride);
  else
    hy_strbuf_appendf(sb, "  %s ib = %lld, ob = %lld;\n", idx, (long long)pass->src_offset,
                      (long long)pass->dst_offset);
  /* The pass's loops are listed outermost first: innermost varies fastest. */
  int order[HY_MAX_LOOPS];
  for (int l = 0; l < pass->nloops; l++) order[l] = pass->nloops - 1 - l;
  hy_cg_emit_loop_offsets(sb, pass, order, "  ", "ib", "ob", NULL, NULL);
  *grid = outer * per_blocks;
  *batch_blocks = outer > 1 ? per_blocks : 0;
}

/* The launch of a pointwise kernel: src, dst, the table if any (index
 * >= 0), the block offset. */
void hy_cg_pointwise_launch(hy_gpu_program *prog, const hy_pass *pass, int64_t grid, int block,
                            int64_t batch_blocks, int table) {
  hy_launch *L = &prog->launches[prog->nlaunches++];
  L->kernel = prog->nkernels++;
  L->grid = grid;
  L->block = block;
  L->shared_bytes = 0;
  L->nargs = 0;
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->src};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->dst};
  if (table >= 0) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, table};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  L->block_offset = 0;
  L->batch_blocks = batch_blocks;
}

hy_status hy_cg_chirp_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                             const hy_device_caps *caps, hy_gpu_program *prog) {
  hy_strbuf *sb = &prog->source;
  int64_t n = pass->chirp_n, m = pass->bluestein_m, len = pass->axis.n;
  /* The ends of a real transform's chain (hy_pass.real_end): PRE reads
   * reals (R2C) or the Hermitian extension of h = N/2 + 1 inputs (C2R);
   * POST stores outputs k < h (R2C, axis h long) or real parts (C2R). */
  const int real_in = pass->real_end == 1 && pass->chirp_step == HY_CHIRP_PRE;
  const int half_in = pass->real_end == 2 && pass->chirp_step == HY_CHIRP_PRE;
  const int real_out = pass->real_end == 2 && pass->chirp_step == HY_CHIRP_POST;
  const int half_out = pass->real_end == 1 && pass->chirp_step == HY_CHIRP_POST;
  int64_t post_len = half_out ? n / 2 + 1 : n;
  if (n < 1 || m < 2 * n - 2 || (pass->real_end && (n % 2 == 0 || pass->chirp_step == HY_CHIRP_SPECTRUM)) ||
      (pass->chirp_step == HY_CHIRP_POST ? len != post_len : len != m))
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: chirp lengths N=%lld M=%lld axis %lld",
                    pass_index, (long long)n, (long long)m, (long long)len);
  int64_t total;
  if (hy_mul_overflow_i64(hy_pass_count(pass), len, &total))
    return hy_error(HYFFT_SIZE_OVERFLOW, "codegen: pass %d has too many elements", pass_index);
  int block = caps->max_work_group >= 256 ? 256 : (caps->max_work_group > 0 ? caps->max_work_group : 64);
  int big = total > INT32_MAX || hy_cg_pw_extent(pass, 0) > INT32_MAX ||
            hy_cg_pw_extent(pass, 1) > INT32_MAX;
  const char *idx = big ? "hy_i64" : "int";
  int table;
  if (pass->chirp_step == HY_CHIRP_SPECTRUM)
    HY_TRY(hy_cg_bluestein_table(prog, n, m, pass->sign, pass->precision, &table));
  else
    HY_TRY(hy_cg_chirp_table(prog, n, pass->sign, pass->precision, &table));

  static const char *const what[3] = {"chirp multiply and zero padding",
                                      "chirp-spectrum multiply", "output chirp multiply"};
  const char *g = hy_cg_global(prog->dialect);
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0], "hy_pass%d_chirp%d", pass_index,
           (int)pass->chirp_step);
  hy_strbuf_appendf(sb, "/* pass %d: Bluestein %s, N=%lld M=%lld */\n", pass_index,
                    what[pass->chirp_step], (long long)n, (long long)m);
  hy_cg_kernel_open(sb, prog->dialect, prog->names[prog->nkernels], block, 0);
  hy_strbuf_appendf(sb, "%sconst %s *src, %s%s *dst, %sconst real2 *tab, const hy_i64 hy_block0) {\n",
                    g, real_in ? "real" : "real2", g, real_out ? "real" : "real2", g);
  hy_cg_emit_block_index(sb, 0);
  int64_t grid, batch_blocks;
  hy_cg_pointwise_index(sb, problem, pass, len, total, block, idx, 1, &grid, &batch_blocks);
  switch (pass->chirp_step) {
    case HY_CHIRP_PRE:
      if (real_in) {
        hy_strbuf_appendf(sb, "  dst[ob] = e < %lld ? cmul(MK(src[ib], (real)0), tab[e]) : MK(0, 0);\n",
                          (long long)n);
      } else if (half_in) {
        /* X_e for e >= h is conj(X_(N-e)), read from the row's start
         * (ib less e strides); X_0's imaginary part counts as 0. */
        long long h = (long long)(n / 2 + 1);
        hy_strbuf_appendf(sb, "  if (e >= %lld) { dst[ob] = MK(0, 0); return; }\n", (long long)n);
        hy_strbuf_appendf(sb, "  const int he = e < %lld ? e : %lld - e;\n", h, (long long)n);
        hy_strbuf_appendf(sb, "  const real2 hv = src[ib + ((%s)he - (%s)e) * %lld];\n", idx, idx,
                          (long long)pass->axis.in_stride);
        hy_strbuf_appendf(sb, "  dst[ob] = cmul(MK(hv.x, e == 0 ? (real)0 : e < %lld ? hv.y : -hv.y), tab[e]);\n",
                          h);
      } else {
        hy_strbuf_appendf(sb, "  dst[ob] = e < %lld ? cmul(src[ib], tab[e]) : MK(0, 0);\n",
                          (long long)n);
      }
      break;
    case HY_CHIRP_SPECTRUM:
      hy_strbuf_append(sb, "  dst[ob] = cmul(src[ib], tab[e]);\n");
      break;
    case HY_CHIRP_POST:
      hy_strbuf_append(sb, "  real2 v = cmul(src[ib], tab[e]);\n");
      if (pass->scale != 1.0) {
        hy_strbuf_append(sb, "  v = cscale(v, ");
        hy_cg_literal(sb, pass->precision, (long double)pass->scale);
        hy_strbuf_append(sb, ");\n");
      }
      hy_strbuf_append(sb, real_out ? "  dst[ob] = v.x;\n" : "  dst[ob] = v;\n");
      break;
  }
  hy_strbuf_append(sb, "}\n\n");

  hy_cg_pointwise_launch(prog, pass, grid, block, batch_blocks, table);
  return HYFFT_SUCCESS;
}

/* HY_PASS_TWIDDLE: the four-step twiddles of a piece of columns, one
 * thread per element with e (along the axis) fastest. The column index
 * j = (m + base) mod (N / axis.n) comes from the piece's first column,
 * which the kernel reads from the input buffer (written there before each
 * execution), so one kernel serves every piece. The twiddle
 * W_N^(e*j) (e*j < N, no reduction) is the product of the two short
 * tables of hy_cg_twiddle_pair_table, each factor rounded once from long
 * double: f64 tables, the product and the multiply in double, for f32
 * data too where the device has f64 (then the twiddled f32 value is
 * rounded once, from double), else the in-core four-step's f32 way
 * (ftwsin=2). */
hy_status hy_cg_twiddle_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                               const hy_device_caps *caps, hy_gpu_program *prog) {
  (void)problem;
  hy_strbuf *sb = &prog->source;
  int64_t len = pass->axis.n, nt = pass->twiddle_n;
  if (pass->nloops != 1 || pass->twiddle_loop != 0 || len < 1 || nt < len || nt % len != 0)
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: twiddle pass of %lld points, N=%lld",
                    pass_index, (long long)len, (long long)nt);
  int64_t period = nt / len, count = pass->loops[0].n, total;
  if (hy_mul_overflow_i64(count, len, &total))
    return hy_error(HYFFT_SIZE_OVERFLOW, "codegen: pass %d has too many elements", pass_index);
  int block = caps->max_work_group >= 256 ? 256 : (caps->max_work_group > 0 ? caps->max_work_group : 64);
  int wide = pass->precision == HYFFT_F32 && caps->supports_f64, table;
  HY_TRY(hy_cg_twiddle_pair_table(prog, nt, pass->sign, wide ? HYFFT_F64 : pass->precision,
                                  &table));
  int64_t sp = hy_twiddle_split(nt);
  int shift = 0;
  while (((int64_t)1 << shift) < sp) shift++;
  const char *g = hy_cg_global(prog->dialect);
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0], "hy_pass%d_twiddle", pass_index);
  hy_strbuf_appendf(sb, "/* pass %d: four-step twiddles of a piece, N=%lld, %lld columns of %lld */\n",
                    pass_index, (long long)nt, (long long)count, (long long)len);
  hy_cg_kernel_open(sb, prog->dialect, prog->names[prog->nkernels], block, 0);
  hy_strbuf_appendf(sb,
                    "%sconst real2 *src, %sreal2 *dst, %sconst %s *tab, %sconst real2 *in, "
                    "const hy_i64 hy_block0) {\n",
                    g, g, g, wide ? "double2" : "real2", g);
  hy_cg_emit_block_index(sb, 0);
  hy_strbuf_appendf(sb, "  const hy_i64 gi = HY_GID * %d + HY_LID;\n", block);
  hy_strbuf_appendf(sb, "  if (gi >= %lld) return;\n", (long long)total);
  hy_strbuf_appendf(sb, "  const hy_i64 e = gi %% %lld, m = gi / %lld;\n", (long long)len,
                    (long long)len);
  if (pass->aux_offset >= 0)
    hy_strbuf_appendf(sb, "  const hy_i64 base = ((%sconst hy_i64 *)in)[%lld];\n", g,
                      (long long)(pass->aux_offset * (pass->precision == HYFFT_F64 ? 2 : 1)));
  else
    hy_strbuf_append(sb, "  const hy_i64 base = 0;\n");
  hy_strbuf_appendf(sb, "  const hy_i64 a = e * ((m + base) %% %lld);\n", (long long)period);
  hy_strbuf_appendf(sb, "  const hy_i64 ib = %lld + e * %lld + m * %lld, ob = %lld + e * %lld + m * %lld;\n",
                    (long long)pass->src_offset, (long long)pass->axis.in_stride,
                    (long long)pass->loops[0].in_stride, (long long)pass->dst_offset,
                    (long long)pass->axis.out_stride, (long long)pass->loops[0].out_stride);
  if (wide) {
    hy_strbuf_appendf(sb, "  const double2 wa = tab[a & %lld], wb = tab[%lld + (a >> %d)];\n",
                      (long long)(sp - 1), (long long)sp, shift);
    hy_strbuf_append(sb,
                     "  const double wr = wa.x * wb.x - wa.y * wb.y, wi = wa.x * wb.y + wa.y * wb.x;\n"
                     "  const real2 x = src[ib];\n"
                     "  double yr = (double)x.x * wr - (double)x.y * wi;\n"
                     "  double yi = (double)x.x * wi + (double)x.y * wr;\n");
    if (pass->scale != 1.0) {
      hy_strbuf_append(sb, "  yr *= ");
      hy_cg_literal(sb, HYFFT_F64, (long double)pass->scale);
      hy_strbuf_append(sb, ";\n  yi *= ");
      hy_cg_literal(sb, HYFFT_F64, (long double)pass->scale);
      hy_strbuf_append(sb, ";\n");
    }
    hy_strbuf_append(sb, "  dst[ob] = MK((real)yr, (real)yi);\n}\n\n");
  } else {
    hy_strbuf_appendf(sb, "  real2 v = cmul(src[ib], cmul(tab[a & %lld], tab[%lld + (a >> %d)]));\n",
                      (long long)(sp - 1), (long long)sp, shift);
    if (pass->scale != 1.0) {
      hy_strbuf_append(sb, "  v = cscale(v, ");
      hy_cg_literal(sb, pass->precision, (long double)pass->scale);
      hy_strbuf_append(sb, ");\n");
    }
    hy_strbuf_append(sb, "  dst[ob] = v;\n}\n\n");
  }

  hy_launch *L = &prog->launches[prog->nlaunches++];
  L->kernel = prog->nkernels++;
  L->grid = (total + block - 1) / block;
  L->block = block;
  L->shared_bytes = 0;
  L->nargs = 0;
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->src};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->dst};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, table};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, HY_BUF_IN};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  L->block_offset = 0;
  L->batch_blocks = 0;
  return HYFFT_SUCCESS;
}
