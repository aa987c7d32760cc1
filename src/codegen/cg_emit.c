/* Small emission helpers every level of the generator uses: local-memory
 * indices, register declarations, the per-butterfly loop a thread runs in
 * a stage, and output positions. They only append text. */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_internal.h"

/* Local-memory index of element expression e within the thread's row. */
void hy_cg_lx(hy_cg_kernel *k, const char *e) {
  if (k->pad)
    hy_strbuf_appendf(k->sb, "lds[mo + (%s) + ((%s) >> %d) * %d]", e, e, k->pad_shift, k->pad);
  else
    hy_strbuf_appendf(k->sb, "lds[mo + (%s)]", e);
}

void hy_cg_decl_regs(hy_cg_kernel *k, char prefix, int s) {
  const hy_cg_stage *st = &k->st[s];
  int nregs = st->per * st->radix;
  hy_strbuf_append(k->sb, "  real2");
  for (int i = 0; i < nregs; i++)
    hy_strbuf_appendf(k->sb, "%s %c%d_%d = MK(0, 0)", i ? "," : "", prefix, s, i);
  hy_strbuf_append(k->sb, ";\n");
}

/* Open the block of butterfly b of stage s: defines j (and guards it). */
void hy_cg_open_b(hy_cg_kernel *k, int s, int b) {
  const hy_cg_stage *st = &k->st[s];
  hy_strbuf_appendf(k->sb, "  {\n    const int j = t + %d;\n", b * k->T);
  if (st->guard && (b + 1) * k->T > st->nb) hy_strbuf_appendf(k->sb, "    if (j < %d) {\n", st->nb);
  else hy_strbuf_append(k->sb, "    {\n");
}

void hy_cg_close_b(hy_cg_kernel *k) { hy_strbuf_append(k->sb, "    }\n  }\n"); }

/* Output position o of butterfly j in stage s (outputs are o + r*NS). */
void hy_cg_out_pos(hy_cg_kernel *k, int s) {
  const hy_cg_stage *st = &k->st[s];
  if (st->ns == 1)
    hy_strbuf_appendf(k->sb, "    const int o = j * %d;\n", st->radix);
  else
    hy_strbuf_appendf(k->sb, "    const int o = (j / %d) * %d + j %% %d;\n", st->ns,
                      st->ns * st->radix, st->ns);
}

/* The even-length real steps' value from x, y and twiddle t (expressions):
 * with P = x + conj(y), Q = x - conj(y), v = (P - i t Q) / 2 for the R2C
 * post-processing (x = Z_k, y = Z_m-k) and v = P + i t Q for the C2R
 * pre-processing (x = X_k, y = X_m-k). Declares real2 v; every line starts
 * with `indent`. */
void hy_cg_real_step_value(hy_strbuf *sb, int post, const char *x, const char *y, const char *t,
                           const char *indent) {
  hy_strbuf_appendf(sb, "%sconst real2 P = MK(%s.x + %s.x, %s.y - %s.y), Q = MK(%s.x - %s.x, %s.y + %s.y);\n",
                    indent, x, y, x, y, x, y, x, y);
  hy_strbuf_appendf(sb, "%sconst real2 TQ = cmul(%s, Q);\n", indent, t);
  if (post)
    hy_strbuf_appendf(sb, "%sreal2 v = MK((P.x + TQ.y) * (real)0.5, (P.y - TQ.x) * (real)0.5);\n", indent);
  else
    hy_strbuf_appendf(sb, "%sreal2 v = MK(P.x - TQ.y, P.y + TQ.x);\n", indent);
}
