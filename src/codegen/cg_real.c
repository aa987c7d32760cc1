/* Kernel level: the pointwise steps of real transforms (HY_PASS_WIDEN,
 * HY_PASS_NARROW, HY_PASS_R2C_POST, HY_PASS_C2R_PRE, HY_PASS_C2R_EXTEND;
 * their definitions are in planner/plan.h). One thread per element of the
 * axis (per pair k, m - k for the even-length post- and pre-processing,
 * so that they may run in place), the axis index varying fastest so that
 * neighbouring threads touch neighbouring elements. The end of a pass that
 * holds reals is addressed as an array of reals, the other as complex. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/cg_internal.h"

/* Elements along the axis a thread takes care of. */
static int64_t hy_cg_real_items(const hy_pass *pass) {
  int64_t len = pass->axis.n;
  if (pass->op == HY_PASS_R2C_POST || pass->op == HY_PASS_C2R_PRE) return (len - 1) / 2 + 1;
  return len;
}

/* Highest offset a side reaches (in its own elements). */
static int64_t hy_cg_real_extent(const hy_pass *pass, int out) {
  int64_t e = out ? pass->dst_offset : pass->src_offset;
  int64_t len = pass->axis.n;
  int reals = out ? pass->op == HY_PASS_NARROW : pass->op == HY_PASS_WIDEN;
  if (reals && pass->real_pairs) len *= 2;
  e += (len - 1) * llabs(out ? pass->axis.out_stride : pass->axis.in_stride);
  for (int l = 0; l < pass->nloops; l++)
    e += (pass->loops[l].n - 1) * llabs(out ? pass->loops[l].out_stride : pass->loops[l].in_stride);
  return e;
}

static void hy_cg_real_scale(hy_strbuf *sb, const hy_pass *pass, const char *indent,
                             const char *v) {
  if (pass->scale == 1.0) return;
  hy_strbuf_appendf(sb, "%s%s = cscale(%s, ", indent, v, v);
  hy_cg_literal(sb, pass->precision, (long double)pass->scale);
  hy_strbuf_append(sb, ");\n");
}

/* One output of the even-length steps, stored at dst[ob + k * out_stride]
 * when `guard` holds (NULL: always): with P = x + conj(y), Q = x - conj(y) and T_k the
 * pass's twiddle, (P - i T_k Q) / 2 for R2C_POST (x = Z_k, y = Z_m-k) and
 * P + i T_k Q for C2R_PRE (x = X_k, y = X_m-k). */
static void hy_cg_real_pair_out(hy_strbuf *sb, const hy_pass *pass, const char *guard,
                                const char *x, const char *y, const char *k) {
  if (guard)
    hy_strbuf_appendf(sb, "  if (%s) {\n", guard);
  else
    hy_strbuf_append(sb, "  {\n");
  char t[48];
  snprintf(t, sizeof t, "tab[%s]", k);
  hy_cg_real_step_value(sb, pass->op == HY_PASS_R2C_POST, x, y, t, "    ");
  hy_cg_real_scale(sb, pass, "    ", "v");
  hy_strbuf_appendf(sb, "    dst[ob + %s * %lld] = v;\n  }\n", k, (long long)pass->axis.out_stride);
}

hy_status hy_cg_real_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                            const hy_device_caps *caps, hy_gpu_program *prog) {
  hy_strbuf *sb = &prog->source;
  int64_t len = pass->axis.n, items = hy_cg_real_items(pass), total;
  if (len < 1 || ((pass->op == HY_PASS_R2C_POST || pass->op == HY_PASS_C2R_PRE) && len < 2))
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: real step of length %lld", pass_index,
                    (long long)len);
  if (hy_mul_overflow_i64(hy_pass_count(pass), items, &total))
    return hy_error(HYFFT_SIZE_OVERFLOW, "codegen: pass %d has too many elements", pass_index);
  int block = caps->max_work_group >= 256 ? 256 : (caps->max_work_group > 0 ? caps->max_work_group : 64);
  int big = total > INT32_MAX || hy_cg_real_extent(pass, 0) > INT32_MAX ||
            hy_cg_real_extent(pass, 1) > INT32_MAX;
  const char *idx = big ? "hy_i64" : "int";
  int64_t m = len - 1, n = 2 * m; /* the even-length steps */
  int table = -1;
  if (pass->op == HY_PASS_R2C_POST) HY_TRY(hy_cg_twiddle_table(prog, n, -1, pass->precision, &table));
  if (pass->op == HY_PASS_C2R_PRE) HY_TRY(hy_cg_twiddle_table(prog, n, 1, pass->precision, &table));

  static const char *const what[5] = {"real to complex", "complex to real",
                                      "R2C post-processing", "C2R pre-processing",
                                      "C2R Hermitian extension"};
  int op = (int)pass->op - (int)HY_PASS_WIDEN;
  const char *g = hy_cg_global(prog->dialect);
  const char *src_t = pass->op == HY_PASS_WIDEN ? "real" : "real2";
  const char *dst_t = pass->op == HY_PASS_NARROW ? "real" : "real2";
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0], "hy_pass%d_real%d", pass_index, op);
  hy_strbuf_appendf(sb, "/* pass %d: %s, n=%lld%s */\n", pass_index, what[op], (long long)len,
                    pass->real_pairs ? ", reals in pairs" : "");
  hy_cg_kernel_open(sb, prog->dialect, prog->names[prog->nkernels], block, 0);
  hy_strbuf_appendf(sb, "%sconst %s *src, %s%s *dst", g, src_t, g, dst_t);
  if (table >= 0) hy_strbuf_appendf(sb, ", %sconst real2 *tab", g);
  hy_strbuf_append(sb, ", const hy_i64 hy_block0) {\n");
  hy_cg_emit_block_index(sb, 0);
  int64_t grid, batch_blocks;
  hy_cg_pointwise_index(sb, problem, pass, items, total, block, idx, 0, &grid, &batch_blocks);
  long long is = (long long)pass->axis.in_stride, os = (long long)pass->axis.out_stride;
  char guard[64];
  switch (pass->op) {
    case HY_PASS_WIDEN:
      if (pass->real_pairs)
        hy_strbuf_appendf(sb, "  real2 v = MK(src[ib + (2 * e) * %lld], src[ib + (2 * e + 1) * %lld]);\n",
                          is, is);
      else
        hy_strbuf_appendf(sb, "  real2 v = MK(src[ib + e * %lld], (real)0);\n", is);
      hy_cg_real_scale(sb, pass, "  ", "v");
      hy_strbuf_appendf(sb, "  dst[ob + e * %lld] = v;\n", os);
      break;
    case HY_PASS_NARROW:
      hy_strbuf_appendf(sb, "  real2 v = src[ib + e * %lld];\n", is);
      hy_cg_real_scale(sb, pass, "  ", "v");
      if (pass->real_pairs)
        hy_strbuf_appendf(sb, "  dst[ob + (2 * e) * %lld] = v.x;\n  dst[ob + (2 * e + 1) * %lld] = v.y;\n",
                          os, os);
      else
        hy_strbuf_appendf(sb, "  dst[ob + e * %lld] = v.x;\n", os);
      break;
    case HY_PASS_R2C_POST:
      /* Pair k, m - k: Z_m is read as Z_0. */
      hy_strbuf_appendf(sb, "  const %s k = e, j = %lld - e;\n", idx, (long long)m);
      hy_strbuf_appendf(sb, "  const real2 a = src[ib + (k < %lld ? k : 0) * %lld];\n", (long long)m, is);
      hy_strbuf_appendf(sb, "  const real2 b = src[ib + (j < %lld ? j : 0) * %lld];\n", (long long)m, is);
      hy_cg_real_pair_out(sb, pass, NULL, "a", "b", "k");
      hy_cg_real_pair_out(sb, pass, "j != k", "b", "a", "j");
      break;
    case HY_PASS_C2R_PRE:
      /* Pair k, m - k of the inputs X_0..X_m (imaginary parts of X_0 and
       * X_m taken as 0); outputs k < m only. */
      hy_strbuf_appendf(sb, "  const %s k = e, j = %lld - e;\n", idx, (long long)m);
      hy_strbuf_appendf(sb, "  real2 a = src[ib + k * %lld], b = src[ib + j * %lld];\n", is, is);
      hy_strbuf_appendf(sb, "  if (k == 0) { a.y = (real)0; b.y = (real)0; }\n");
      hy_cg_real_pair_out(sb, pass, NULL, "a", "b", "k");
      snprintf(guard, sizeof guard, "j != k && j < %lld", (long long)m);
      hy_cg_real_pair_out(sb, pass, guard, "b", "a", "j");
      break;
    case HY_PASS_C2R_EXTEND: {
      int64_t half = len / 2;
      hy_strbuf_appendf(sb, "  real2 v;\n  if (e <= %lld) {\n    v = src[ib + e * %lld];\n",
                        (long long)half, is);
      if (len % 2 == 0)
        hy_strbuf_appendf(sb, "    if (e == 0 || e == %lld) v.y = (real)0;\n", (long long)half);
      else
        hy_strbuf_append(sb, "    if (e == 0) v.y = (real)0;\n");
      hy_strbuf_appendf(sb, "  } else {\n    v = src[ib + (%lld - e) * %lld];\n    v.y = -v.y;\n  }\n",
                        (long long)len, is);
      hy_cg_real_scale(sb, pass, "  ", "v");
      hy_strbuf_appendf(sb, "  dst[ob + e * %lld] = v;\n", os);
      break;
    }
    default:
      return hy_error(HYFFT_INTERNAL, "codegen: pass %d is not a real step", pass_index);
  }
  hy_strbuf_append(sb, "}\n\n");

  hy_cg_pointwise_launch(prog, pass, grid, block, batch_blocks, table);
  return HYFFT_SUCCESS;
}
