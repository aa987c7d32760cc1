/* Step level of the generator: one Stockham stage of a kernel. A thread
 * takes its butterflies' points from registers, multiplies them by the
 * stage twiddles (from per-stage tables, one W_n table or constants) and
 * runs the straight-line radix-R butterfly of cg_radix.c. */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_internal.h"

/* Twiddle, butterfly and (Bluestein) the chirp-spectrum multiply. */
void hy_cg_compute(hy_cg_kernel *k, int s) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  int R = st->radix;
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    int tns = st->ns / st->kdiv;
    if (tns == 1 && !(k->bluestein && s == k->forward_end)) hy_strbuf_append(sb, "    (void)j;\n");
    if (tns > 1) {
      int step = k->nc / (st->ns * R);
      if (st->kdiv > 1)
        hy_strbuf_appendf(sb, "    const int k = (j %% %d) / %d;\n", st->ns, st->kdiv);
      else
        hy_strbuf_appendf(sb, "    const int k = j %% %d;\n", st->ns);
      for (int r = 1; r < R; r++) {
        if (k->spec->stage_twiddles)
          hy_strbuf_appendf(sb, "    x%d_%d = %s(x%d_%d, tw[%d + k]);\n", s, b * R + r,
                            st->conj ? "cmulc" : "cmul", s, b * R + r,
                            k->tw_off[s] + (r - 1) * tns);
        else
          hy_strbuf_appendf(sb, "    x%d_%d = %s(x%d_%d, tw[k * %d]);\n", s, b * R + r,
                            st->conj ? "cmulc" : "cmul", s, b * R + r, r * step);
      }
    }
    char in_names[64][16], out_names[64][16];
    const char *in[64], *out[64];
    for (int r = 0; r < R; r++) {
      snprintf(in_names[r], sizeof in_names[r], "x%d_%d", s, b * R + r);
      snprintf(out_names[r], sizeof out_names[r], "y%d_%d", s, b * R + r);
      in[r] = in_names[r];
      out[r] = out_names[r];
    }
    hy_cg_emit_dft(sb, k->precision, R, st->sign, in, out);
    if ((k->bluestein || k->rader) && s == k->forward_end) {
      hy_cg_out_pos(k, s);
      for (int r = 0; r < R; r++) {
        if (k->rader && r == 0 && k->spec->stage_store) {
          /* Kept until the staged store (local memory is busy until then). */
          hy_strbuf_appendf(sb, "    if (o == 0) { hx0_out = 1; hX0 = MK(hx0.x + y%d_%d.x, hx0.y + y%d_%d.y); }\n",
                            s, b * R, s, b * R);
        } else if (k->rader && r == 0) {
          /* Rader's X_0 = x_0 + the sum of the other inputs, which is the
           * convolution input's DC term: stored by the thread that has it. */
          hy_strbuf_appendf(sb, "    if (valid && o == 0) dst[ob] = ");
          if (k->pass->scale != 1.0) {
            hy_strbuf_appendf(sb, "cscale(MK(hx0.x + y%d_%d.x, hx0.y + y%d_%d.y), ", s, b * R, s, b * R);
            hy_cg_literal(sb, k->precision, (long double)k->pass->scale);
            hy_strbuf_append(sb, ");\n");
          } else {
            hy_strbuf_appendf(sb, "MK(hx0.x + y%d_%d.x, hx0.y + y%d_%d.y);\n", s, b * R, s, b * R);
          }
        }
        hy_strbuf_appendf(sb, "    y%d_%d = cmul(y%d_%d, bh[o + %d]);\n", s, b * R + r, s,
                          b * R + r, r * st->ns);
      }
    }
    hy_cg_close_b(k);
  }
}
