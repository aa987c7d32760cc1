/* Plan trees: initialisation and the text that `hyfft plan` prints. */
#include "planner/plan.h"

static const char *const hy_buffer_names[HY_BUF_COUNT] = {"in", "out", "work0", "work1"};

void hy_pass_init(hy_pass *pass, hy_pass_op op, hyfft_precision precision, int sign) {
  *pass = (hy_pass){0};
  pass->op = op;
  pass->precision = precision;
  pass->sign = sign;
  pass->scale = 1.0;
  pass->twiddle_loop = -1;
}

int64_t hy_pass_count(const hy_pass *pass) {
  int64_t count = 1;
  for (int i = 0; i < pass->nloops; i++) count *= pass->loops[i].n;
  return count;
}

void hy_plan_tree_describe(const hy_plan_tree *tree, hy_strbuf *sb) {
  hy_strbuf_appendf(sb, "  solver %s: %d pass%s, model cost %.3g s\n", tree->solver,
                    tree->npasses, tree->npasses == 1 ? "" : "es", tree->cost);
  for (int i = 0; i < tree->npasses; i++) {
    const hy_pass *p = &tree->passes[i];
    static const char *const chirp_names[3] = {"chirp-pre", "chirp-spectrum", "chirp-post"};
    const char *op = p->op == HY_PASS_COPY ? "copy"
                     : p->op == HY_PASS_DFT ? "dft"
                                            : chirp_names[p->chirp_step];
    hy_strbuf_appendf(sb, "    pass %d: %s %s", i, op, hy_buffer_names[p->src]);
    if (p->src_offset) hy_strbuf_appendf(sb, "+%lld", (long long)p->src_offset);
    hy_strbuf_appendf(sb, " -> %s", hy_buffer_names[p->dst]);
    if (p->dst_offset) hy_strbuf_appendf(sb, "+%lld", (long long)p->dst_offset);
    if (p->op == HY_PASS_CHIRP)
      hy_strbuf_appendf(sb, " n=%lld (N=%lld M=%lld) stride %lld->%lld", (long long)p->axis.n,
                        (long long)p->chirp_n, (long long)p->bluestein_m,
                        (long long)p->axis.in_stride, (long long)p->axis.out_stride);
    if (p->op == HY_PASS_DFT)
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
      else
        hy_strbuf_append(sb, " radices");
      for (int f = 0; f < p->nfactors; f++)
        hy_strbuf_appendf(sb, "%s%d", f ? "x" : " ", p->factors[f]);
    }
    if (p->twiddle_loop >= 0)
      hy_strbuf_appendf(sb, " twiddle(loop %d, N=%lld)", p->twiddle_loop, (long long)p->twiddle_n);
    if (p->scale != 1.0) hy_strbuf_appendf(sb, " scale %.17g", p->scale);
    hy_strbuf_append(sb, "\n");
  }
}
