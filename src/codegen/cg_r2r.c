/* Kernel level: the pointwise steps of real-to-real transforms
 * (HY_PASS_R2R_PRE, HY_PASS_R2R_POST; what each kind computes is in
 * solvers/r2r.c, the CPU's version in backend/cpu/ops_r2r.c). One thread
 * per element it writes (the N complex values of PRE, the n reals of
 * POST), the axis index varying fastest. The kind is fixed when the
 * kernel is generated, so each kernel holds one kind's formula only; the
 * twiddles come from a table (planner/r2r_twiddle.h). Dialect-neutral:
 * the same text is CUDA C and OpenCL C through the prelude's macros. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/cg_internal.h"
#include "planner/r2r_twiddle.h"

/* Highest offset a side reaches (in its own elements). */
static int64_t hy_cg_r2r_extent(const hy_pass *pass, int out) {
  int64_t e = out ? pass->dst_offset : pass->src_offset;
  e += (pass->axis.n - 1) * llabs(out ? pass->axis.out_stride : pass->axis.in_stride);
  if (!out && pass->op == HY_PASS_R2R_POST)
    e = pass->src_offset + (pass->r2r_len - 1) * llabs(pass->axis.in_stride);
  if (out && pass->op == HY_PASS_R2R_PRE)
    e = pass->dst_offset + (pass->r2r_len - 1) * llabs(pass->axis.out_stride);
  for (int l = 0; l < pass->nloops; l++)
    e += (pass->loops[l].n - 1) * llabs(out ? pass->loops[l].out_stride : pass->loops[l].in_stride);
  return e;
}

/* PRE: v, the complex element e of the row, from the reals src[ib + j*is]. */
static void hy_cg_r2r_pre(hy_strbuf *sb, const hy_pass *pass, const char *idx) {
  const long long n = (long long)pass->axis.n, N = (long long)pass->r2r_len;
  const long long is = (long long)pass->axis.in_stride;
  switch ((hyfft_r2r_kind)pass->r2r_kind) {
    case HYFFT_REDFT10:
    case HYFFT_RODFT10:
      /* Makhoul's permutation; DST-II alternates the signs of x. */
      hy_strbuf_appendf(sb, "  const int j = e < %lld ? 2 * e : 2 * (%lld - e) + 1;\n", (n + 1) / 2,
                        n - 1);
      hy_strbuf_appendf(sb, "  real x = src[ib + (%s)j * %lld];\n", idx, is);
      if (pass->r2r_kind == HYFFT_RODFT10) hy_strbuf_append(sb, "  if (j & 1) x = -x;\n");
      hy_strbuf_append(sb, "  real2 v = MK(x, (real)0);\n");
      break;
    case HYFFT_REDFT01:
    case HYFFT_RODFT01: {
      /* (a - i b) tab[e], a = x_e, b = x_n-e (0 for e = 0); DST-III reads
       * x reversed. */
      int dst = pass->r2r_kind == HYFFT_RODFT01;
      if (dst)
        hy_strbuf_appendf(sb,
                          "  const real a = src[ib + (%s)(%lld - e) * %lld];\n"
                          "  const real b = e == 0 ? (real)0 : src[ib + (%s)(e - 1) * %lld];\n",
                          idx, n - 1, is, idx, is);
      else
        hy_strbuf_appendf(sb,
                          "  const real a = src[ib + (%s)e * %lld];\n"
                          "  const real b = e == 0 ? (real)0 : src[ib + (%s)(%lld - e) * %lld];\n",
                          idx, is, idx, n, is);
      hy_strbuf_append(sb, "  const real2 t = tab[e];\n"
                           "  real2 v = MK(a * t.x + b * t.y, a * t.y - b * t.x);\n");
      break;
    }
    case HYFFT_REDFT11:
    case HYFFT_RODFT11:
      hy_strbuf_appendf(sb,
                        "  real2 v = MK((real)0, (real)0);\n"
                        "  if (e < %lld) {\n"
                        "    const real x = src[ib + (%s)e * %lld];\n"
                        "    const real2 t = tab[e];\n"
                        "    v = MK(x * t.x, x * t.y);\n"
                        "  }\n",
                        n, idx, is);
      break;
    case HYFFT_REDFT00:
      hy_strbuf_appendf(sb, "  real2 v = MK(src[ib + (%s)(e < %lld ? e : %lld - e) * %lld], (real)0);\n",
                        idx, n, N, is);
      break;
    case HYFFT_RODFT00:
      hy_strbuf_appendf(sb,
                        "  real x = (real)0;\n"
                        "  if (e >= 1 && e <= %lld) x = src[ib + (%s)(e - 1) * %lld];\n"
                        "  else if (e > %lld) x = -src[ib + (%s)(%lld - e) * %lld];\n"
                        "  real2 v = MK(x, (real)0);\n",
                        n, idx, is, n + 1, idx, N - 1, is);
      break;
    default: /* HYFFT_DHT */
      hy_strbuf_appendf(sb, "  real2 v = MK(src[ib + (%s)e * %lld], (real)0);\n", idx, is);
      break;
  }
}

/* POST: y, the real output e of the row, from the complex src[ib + k*is]. */
static void hy_cg_r2r_post(hy_strbuf *sb, const hy_pass *pass, const char *idx) {
  const long long n = (long long)pass->axis.n, is = (long long)pass->axis.in_stride;
  switch ((hyfft_r2r_kind)pass->r2r_kind) {
    case HYFFT_REDFT10:
    case HYFFT_RODFT10:
      /* 2 Re(tab[k] X_k); DST-II writes it reversed. */
      if (pass->r2r_kind == HYFFT_RODFT10)
        hy_strbuf_appendf(sb, "  const int k = %lld - e;\n", n - 1);
      else
        hy_strbuf_append(sb, "  const int k = e;\n");
      hy_strbuf_appendf(sb,
                        "  const real2 z = src[ib + (%s)k * %lld], t = tab[k];\n"
                        "  real y = (real)2 * (t.x * z.x - t.y * z.y);\n",
                        idx, is);
      break;
    case HYFFT_REDFT01:
    case HYFFT_RODFT01:
      /* Even outputs from the front, odd ones from the back; DST-III
       * alternates the signs. */
      hy_strbuf_appendf(sb,
                        "  const int k = (e & 1) == 0 ? e / 2 : %lld - (e - 1) / 2;\n"
                        "  real y = src[ib + (%s)k * %lld].x;\n",
                        n - 1, idx, is);
      if (pass->r2r_kind == HYFFT_RODFT01) hy_strbuf_append(sb, "  if (e & 1) y = -y;\n");
      break;
    case HYFFT_REDFT11:
    case HYFFT_RODFT11:
      hy_strbuf_appendf(sb, "  const real2 z = src[ib + (%s)e * %lld], t = tab[e];\n", idx, is);
      if (pass->r2r_kind == HYFFT_REDFT11)
        hy_strbuf_append(sb, "  real y = (real)2 * (t.x * z.x - t.y * z.y);\n");
      else
        hy_strbuf_append(sb, "  real y = (real)-2 * (t.x * z.y + t.y * z.x);\n");
      break;
    case HYFFT_REDFT00:
      hy_strbuf_appendf(sb, "  real y = src[ib + (%s)e * %lld].x;\n", idx, is);
      break;
    case HYFFT_RODFT00:
      hy_strbuf_appendf(sb, "  real y = -src[ib + (%s)(e + 1) * %lld].y;\n", idx, is);
      break;
    default: /* HYFFT_DHT */
      hy_strbuf_appendf(sb, "  const real2 z = src[ib + (%s)e * %lld];\n  real y = z.x - z.y;\n",
                        idx, is);
      break;
  }
}

hy_status hy_cg_r2r_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                           const hy_device_caps *caps, hy_gpu_program *prog) {
  hy_strbuf *sb = &prog->source;
  const int pre = pass->op == HY_PASS_R2R_PRE;
  const hyfft_r2r_kind kind = (hyfft_r2r_kind)pass->r2r_kind;
  const char *name = hy_r2r_kind_name(kind);
  int64_t items = pre ? pass->r2r_len : pass->axis.n, total;
  if (!name || pass->axis.n < 1 || pass->r2r_len < 1)
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d: r2r step of kind %d, n %lld", pass_index,
                    pass->r2r_kind, (long long)pass->axis.n);
  if (items > INT32_MAX)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d: an r2r axis of %lld elements",
                    pass_index, (long long)items);
  if (hy_mul_overflow_i64(hy_pass_count(pass), items, &total))
    return hy_error(HYFFT_SIZE_OVERFLOW, "codegen: pass %d has too many elements", pass_index);
  int block = caps->max_work_group >= 256 ? 256 : (caps->max_work_group > 0 ? caps->max_work_group : 64);
  int big = total > INT32_MAX || hy_cg_r2r_extent(pass, 0) > INT32_MAX ||
            hy_cg_r2r_extent(pass, 1) > INT32_MAX;
  const char *idx = big ? "hy_i64" : "int";
  int table = -1;
  hy_r2r_twiddle tw;
  if (hy_r2r_twiddle_of(pass, &tw)) HY_TRY(hy_cg_r2r_table(prog, &tw, pass->precision, &table));

  const char *g = hy_cg_global(prog->dialect);
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0], "hy_pass%d_r2r_%s_%s", pass_index,
           pre ? "pre" : "post", name);
  hy_strbuf_appendf(sb, "/* pass %d: %s %s-processing, n=%lld, dft %lld */\n", pass_index, name,
                    pre ? "pre" : "post", (long long)pass->axis.n, (long long)pass->r2r_len);
  hy_cg_kernel_open(sb, prog->dialect, prog->names[prog->nkernels], block, 0);
  hy_strbuf_appendf(sb, "%sconst %s *src, %s%s *dst", g, pre ? "real" : "real2", g,
                    pre ? "real2" : "real");
  if (table >= 0) hy_strbuf_appendf(sb, ", %sconst real2 *tab", g);
  hy_strbuf_append(sb, ", const hy_i64 hy_block0) {\n");
  hy_cg_emit_block_index(sb, 0);
  int64_t grid, batch_blocks;
  hy_cg_pointwise_index(sb, problem, pass, items, total, block, idx, 0, &grid, &batch_blocks);
  if (pre) {
    hy_cg_r2r_pre(sb, pass, idx);
    if (pass->scale != 1.0) {
      hy_strbuf_append(sb, "  v = cscale(v, ");
      hy_cg_literal(sb, pass->precision, (long double)pass->scale);
      hy_strbuf_append(sb, ");\n");
    }
    hy_strbuf_appendf(sb, "  dst[ob + (%s)e * %lld] = v;\n", idx, (long long)pass->axis.out_stride);
  } else {
    hy_cg_r2r_post(sb, pass, idx);
    if (pass->scale != 1.0) {
      hy_strbuf_append(sb, "  y = y * ");
      hy_cg_literal(sb, pass->precision, (long double)pass->scale);
      hy_strbuf_append(sb, ";\n");
    }
    hy_strbuf_appendf(sb, "  dst[ob + (%s)e * %lld] = y;\n", idx, (long long)pass->axis.out_stride);
  }
  hy_strbuf_append(sb, "}\n\n");
  hy_cg_pointwise_launch(prog, pass, grid, block, batch_blocks, table);
  return HYFFT_SUCCESS;
}
