/* Plan trees: initialisation, their kernel specs and the text that
 * `hyfft plan` prints. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "planner/kernel_spec.h"

static const char *const hy_buffer_names[HY_BUF_COUNT] = {"in", "out", "work0", "work1", "load_user", "store_user"};

void hy_pass_init(hy_pass *pass, hy_pass_op op, hyfft_precision precision, int sign) {
  *pass = (hy_pass){0};
  pass->op = op;
  pass->precision = precision;
  pass->sign = sign;
  pass->scale = 1.0;
  pass->twiddle_loop = -1;
  pass->fuse_loop = -1;
}

void hy_plan_tree_reserve_sync(hy_plan_tree *tree) {
  tree->sync_offset = tree->sync_ints = 0;
  int k = tree->npasses;
  if (k < 2 || k > 4 || tree->work_elems[1] != 0) return;
  int64_t batch = tree->passes[0].nloops > 0 ? tree->passes[0].loops[0].n : 0;
  for (int i = 0; i < k; i++) {
    const hy_pass *p = &tree->passes[i];
    if (p->op != HY_PASS_DFT || p->nloops < 1 || p->loops[0].n != batch) return;
  }
  if (batch < 2 || batch > (INT32_MAX - 1) / k) return;
  int64_t elem = tree->passes[0].precision == HYFFT_F64 ? 16 : 8;
  tree->sync_offset = tree->work_elems[0];
  tree->sync_ints = 1 + k * batch;
  tree->work_elems[0] += (tree->sync_ints * 4 + elem - 1) / elem;
}

void hy_pass_loop_offsets(const hy_pass *pass, int64_t t, int64_t *in, int64_t *out) {
  int64_t ib = 0, ob = 0, rem = t;
  for (int l = pass->nloops - 1; l >= 0; l--) {
    int64_t q = rem % pass->loops[l].n;
    rem /= pass->loops[l].n;
    ib += q * pass->loops[l].in_stride;
    ob += q * pass->loops[l].out_stride;
  }
  *in = ib;
  *out = ob;
}

int64_t hy_pass_count(const hy_pass *pass) {
  int64_t count = 1;
  for (int i = 0; i < pass->nloops; i++) count *= pass->loops[i].n;
  return count;
}

int hy_plan_tree_has_plane(const hy_plan_tree *tree) {
  for (int i = 0; i < tree->npasses; i++)
    if (tree->passes[i].plane_inner > 0) return 1;
  return 0;
}

int hy_plan_tree_in_out_may_alias(const hy_plan_tree *tree) {
  if (tree->l2_chunk_bytes > 0 || tree->sync_ints > 0) return 0;
  int out_written = 0;
  for (int i = 0; i < tree->npasses; i++) {
    const hy_pass *p = &tree->passes[i];
    if (p->dst == HY_BUF_IN) return 0;
    if (p->src == HY_BUF_IN && out_written) return 0;
    if (p->src == HY_BUF_IN && p->dst == HY_BUF_OUT) return 0;
    if (p->dst == HY_BUF_OUT) out_written = 1;
  }
  return 1;
}

void hy_plan_tree_describe(const hy_plan_tree *tree, hy_strbuf *sb) {
  hy_strbuf_appendf(sb, "  solver %s: %d pass%s, model cost %.3g s\n", tree->solver,
                    tree->npasses, tree->npasses == 1 ? "" : "es", tree->cost);
  if (tree->kernel_spec[0]) hy_strbuf_appendf(sb, "  kernel variant %s\n", tree->kernel_spec);
  if (tree->l2_chunk_bytes > 0)
    hy_strbuf_appendf(sb, "  passes run chunk by chunk of the batch, %lld bytes of L2 a chunk\n",
                      (long long)tree->l2_chunk_bytes);
  for (int i = 0; i < tree->npasses; i++) {
    const hy_pass *p = &tree->passes[i];
    static const char *const chirp_names[3] = {"chirp-pre", "chirp-spectrum", "chirp-post"};
    const char *op = p->op == HY_PASS_COPY            ? "copy"
                     : p->op == HY_PASS_DFT           ? "dft"
                     : p->op == HY_PASS_CHIRP         ? chirp_names[p->chirp_step]
                     : p->op == HY_PASS_WIDEN         ? (p->real_pairs ? "pack-real-pairs" : "widen-real")
                     : p->op == HY_PASS_NARROW        ? (p->real_pairs ? "unpack-real-pairs" : "real-part")
                     : p->op == HY_PASS_R2C_POST      ? "r2c-post"
                     : p->op == HY_PASS_C2R_PRE       ? "c2r-pre"
                     : p->op == HY_PASS_C2R_EXTEND    ? "c2r-extend"
                     : p->op == HY_PASS_R2R_PRE       ? "r2r-pre"
                     : p->op == HY_PASS_R2R_POST      ? "r2r-post"
                     : p->op == HY_PASS_TWIDDLE       ? "twiddle"
                                                      : "unknown";
    hy_strbuf_appendf(sb, "    pass %d: %s %s", i, op, hy_buffer_names[p->src]);
    if (p->src_offset) hy_strbuf_appendf(sb, "+%lld", (long long)p->src_offset);
    hy_strbuf_appendf(sb, " -> %s", hy_buffer_names[p->dst]);
    if (p->dst_offset) hy_strbuf_appendf(sb, "+%lld", (long long)p->dst_offset);
    if (p->op == HY_PASS_CHIRP)
      hy_strbuf_appendf(sb, " n=%lld (N=%lld M=%lld) stride %lld->%lld", (long long)p->axis.n,
                        (long long)p->chirp_n, (long long)p->bluestein_m,
                        (long long)p->axis.in_stride, (long long)p->axis.out_stride);
    if (p->op == HY_PASS_TWIDDLE)
      hy_strbuf_appendf(sb, " n=%lld stride %lld->%lld", (long long)p->axis.n,
                        (long long)p->axis.in_stride, (long long)p->axis.out_stride);
    if (p->op == HY_PASS_R2C_POST || p->op == HY_PASS_C2R_PRE)
      hy_strbuf_appendf(sb, " n=%lld (real %lld) stride %lld->%lld", (long long)p->axis.n,
                        (long long)(2 * (p->axis.n - 1)), (long long)p->axis.in_stride,
                        (long long)p->axis.out_stride);
    if (p->op == HY_PASS_WIDEN || p->op == HY_PASS_NARROW || p->op == HY_PASS_C2R_EXTEND)
      hy_strbuf_appendf(sb, " n=%lld stride %lld->%lld", (long long)p->axis.n,
                        (long long)p->axis.in_stride, (long long)p->axis.out_stride);
    if (p->op == HY_PASS_R2R_PRE || p->op == HY_PASS_R2R_POST) {
      const char *kind = hy_r2r_kind_name((hyfft_r2r_kind)p->r2r_kind);
      hy_strbuf_appendf(sb, " %s n=%lld (dft %lld) stride %lld->%lld", kind ? kind : "?",
                        (long long)p->axis.n, (long long)p->r2r_len,
                        (long long)p->axis.in_stride, (long long)p->axis.out_stride);
    }
    if (p->op == HY_PASS_DFT && p->plane_inner > 0)
      hy_strbuf_appendf(sb, " n=%lld (plane %lldx%lld) stride %lld->%lld", (long long)p->axis.n,
                        (long long)(p->axis.n / p->plane_inner), (long long)p->plane_inner,
                        (long long)p->axis.in_stride, (long long)p->axis.out_stride);
    else if (p->op == HY_PASS_DFT)
      hy_strbuf_appendf(sb, " n=%lld stride %lld->%lld", (long long)p->axis.n,
                        (long long)p->axis.in_stride, (long long)p->axis.out_stride);
    hy_strbuf_append(sb, " loops [");
    for (int l = 0; l < p->nloops; l++)
      hy_strbuf_appendf(sb, "%s%lld:%lld->%lld", l ? " " : "", (long long)p->loops[l].n,
                        (long long)p->loops[l].in_stride, (long long)p->loops[l].out_stride);
    hy_strbuf_append(sb, "]");
    if (p->op == HY_PASS_DFT) {
      if (p->algo == HY_ALGO_BLUESTEIN)
        hy_strbuf_appendf(sb, " bluestein m=%lld radices", (long long)p->bluestein_m);
      else if (p->algo == HY_ALGO_RADER)
        hy_strbuf_appendf(sb, " rader m=%lld radices", (long long)p->bluestein_m);
      else
        hy_strbuf_append(sb, " radices");
      for (int f = 0; f < p->nfactors; f++)
        hy_strbuf_appendf(sb, "%s%d", f ? "x" : " ", p->factors[f]);
    }
    if (p->twiddle_loop >= 0)
      hy_strbuf_appendf(sb, " twiddle(loop %d, N=%lld)", p->twiddle_loop, (long long)p->twiddle_n);
    if (p->op == HY_PASS_TWIDDLE && p->aux_offset >= 0)
      hy_strbuf_appendf(sb, " first column at in+%lld", (long long)p->aux_offset);
    if (p->fuse == HY_FUSE_R2R) {
      const char *kind = hy_r2r_kind_name((hyfft_r2r_kind)p->r2r_kind);
      hy_strbuf_appendf(sb, " %s%s%s(n=%lld%s)", p->r2r_fuse & 1 ? "r2r-pre+" : "",
                        kind ? kind : "?", p->r2r_fuse & 2 ? "+r2r-post" : "",
                        (long long)p->r2r_n, p->r2r_half ? ", half" : "");
    } else if (hy_fuse_is_real_odd(p->fuse)) {
      hy_strbuf_appendf(sb, " %s", p->fuse == HY_FUSE_R2C_ODD ? "r2c-odd" : "c2r-odd");
    } else if (hy_fuse_is_real(p->fuse)) {
      hy_strbuf_appendf(sb, " %s(N=%lld", p->fuse == HY_FUSE_R2C_POST ? "r2c-post" : "c2r-pre",
                        (long long)p->chirp_n);
      if (p->fuse_loop >= 0) hy_strbuf_appendf(sb, ", rows loop %d", p->fuse_loop);
      hy_strbuf_append(sb, ")");
    } else if (p->fuse != HY_FUSE_NONE) {
      static const char *const fuse_names[7] = {"",         "chirp-in",
                                                "spectrum-out", "chirp-out",
                                                "rader-in", "rader-spectrum-out",
                                                "rader-out"};
      hy_strbuf_appendf(sb, " %s(loop %d, split %lld, N=%lld M=%lld)", fuse_names[p->fuse],
                        p->fuse_loop, (long long)p->fuse_split, (long long)p->chirp_n,
                        (long long)p->bluestein_m);
      if (p->real_end) hy_strbuf_append(sb, p->real_end == 1 ? " r2c-end" : " c2r-end");
    } else if (p->op == HY_PASS_CHIRP && p->real_end) {
      hy_strbuf_append(sb, p->real_end == 1 ? " r2c-end" : " c2r-end");
    }
    if (p->scale != 1.0) hy_strbuf_appendf(sb, " scale %.17g", p->scale);
    hy_strbuf_append(sb, "\n");
    if (tree->specs_ready && p->op == HY_PASS_DFT) {
      hy_strbuf_append(sb, "      kernel ");
      hy_kernel_spec_describe(&p->spec, sb);
      hy_strbuf_append(sb, "\n");
    }
  }
}
