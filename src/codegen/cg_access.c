/* Memory-access level of the generator: how a kernel reads its inputs and
 * writes its outputs. Loads from global memory (strided, staged through
 * local memory, Rader's permuted gather), exchanges between stages through
 * local memory (whole complex values or real and imaginary parts one at a
 * time, rows padded against bank conflicts), stores to global memory
 * (scaled, four-step twiddled, transposed across transforms, Rader's
 * scatter), and the index arithmetic that maps a transform number to its
 * place over the pass's loops. Everything here appends text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "planner/kernel_spec.h"

void hy_cg_load_global(hy_cg_kernel *k) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[0];
  int64_t is = k->pass->axis.in_stride;
  hy_strbuf_append(sb, "  if (valid) {\n");
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, 0, b);
    for (int r = 0; r < st->radix; r++) {
      int i = b * st->radix + r;
      hy_strbuf_appendf(sb, "    { const int e = j + %d;\n", r * st->nb);
      char addr[128];
      if (is == 1)
        snprintf(addr, sizeof addr, "ib + (%s)e", k->idx);
      else
        snprintf(addr, sizeof addr, "ib + (%s)e * %lld", k->idx, (long long)is);
      if (k->bluestein && k->pass->fuse == HY_FUSE_R2C_ODD) {
        /* A real input, imaginary part 0, times the chirp; zero padding. */
        hy_strbuf_appendf(sb, "      if (e < %lld) x0_%d = cmul(MK(src[%s], (real)0), chirp[e]);\n",
                          (long long)k->n, i, addr);
      } else if (k->bluestein && k->pass->fuse == HY_FUSE_C2R_ODD) {
        /* The Hermitian extension of the h = n/2 + 1 inputs, times the
         * chirp; zero padding. */
        long long n = (long long)k->n, h = n / 2 + 1;
        hy_strbuf_appendf(sb, "      if (e < %lld) {\n        const int he = e < %lld ? e : %lld - e;\n",
                          n, h, n);
        hy_strbuf_appendf(sb, "        const real2 hv = src[ib + (%s)he * %lld];\n", k->idx, (long long)is);
        hy_strbuf_appendf(sb, "        x0_%d = cmul(MK(hv.x, e == 0 ? (real)0 : e < %lld ? hv.y : -hv.y), chirp[e]);\n      }\n",
                          i, h);
      } else if (k->bluestein) {
        /* Only the first n points are data; the rest is zero padding. */
        hy_strbuf_appendf(sb, "      if (e < %lld) ", (long long)k->n);
        hy_strbuf_appendf(sb, "x0_%d = cmul(src[%s], chirp[e]);\n", i, addr);
      } else if (k->rader) {
        /* Convolution input q is x at g^q mod p. */
        if (is == 1)
          hy_strbuf_appendf(sb, "      x0_%d = src[ib + (%s)rin[e]];\n", i, k->idx);
        else
          hy_strbuf_appendf(sb, "      x0_%d = src[ib + (%s)rin[e] * %lld];\n", i, k->idx,
                            (long long)is);
      } else if (k->pass->fuse == HY_FUSE_RADER_IN) {
        /* Rader's input i = fk + S*e is x at g^i mod N (fz[i]), from the
         * transform's start (ib less the fused loop's offset). */
        const hy_pass *ps = k->pass;
        int64_t lis = ps->loops[ps->fuse_loop].in_stride;
        hy_strbuf_appendf(sb, "      const %s fi = fk + (%s)e * %lld;\n", k->idx, k->idx,
                          (long long)ps->fuse_split);
        hy_strbuf_appendf(sb, "      x0_%d = src[ib - fk * %lld + (%s)fz[fi] * %lld];\n", i,
                          (long long)lis, k->idx, (long long)lis);
      } else if (k->pass->fuse == HY_FUSE_C2R_PRE && k->pass->fuse_loop >= 0) {
        /* The split form (planner/plan.h): element e of row jr is index
         * kk = jr + L*e, its partner X_m-kk element n - e of row 0 or
         * element n - 1 - e of row L - jr (read by that row's work-group
         * at about the same time, so mostly from L2). */
        const hy_pass *ps = k->pass;
        long long n = (long long)k->n, L = (long long)ps->loops[ps->fuse_loop].n;
        long long ls = (long long)ps->loops[ps->fuse_loop].in_stride;
        hy_strbuf_appendf(sb, "      const %s kk = jr + (%s)e * %lld;\n", k->idx, k->idx, L);
        hy_strbuf_appendf(sb, "      real2 a = src[ib + (%s)e * %lld], b;\n", k->idx, (long long)is);
        hy_strbuf_appendf(sb, "      if (jr == 0) b = src[ib + (%s)(%lld - e) * %lld];\n", k->idx, n,
                          (long long)is);
        hy_strbuf_appendf(sb, "      else b = src[ib + (%lld - 2 * jr) * %lld + (%s)(%lld - e) * %lld];\n",
                          L, ls, k->idx, n - 1, (long long)is);
        hy_strbuf_append(sb, "      if (kk == 0) { a.y = (real)0; b.y = (real)0; }\n");
        hy_cg_real_step_value(sb, 0, "a", "b", "fz[kk]", "      ");
        hy_strbuf_appendf(sb, "      x0_%d = v;\n", i);
      } else if (k->pass->fuse == HY_FUSE_C2R_PRE) {
        /* The C2R pre-processing of element e alone: from X_e and X_m-e
         * (X_0's and X_m's imaginary parts taken as 0). The thread that
         * forms element m - e reads the same two inputs, from L1. */
        long long m = (long long)k->n;
        hy_strbuf_appendf(sb, "      real2 a = src[ib + (%s)e * %lld], b = src[ib + (%s)(%lld - e) * %lld];\n",
                          k->idx, (long long)is, k->idx, m, (long long)is);
        hy_strbuf_append(sb, "      if (e == 0) { a.y = (real)0; b.y = (real)0; }\n");
        hy_cg_real_step_value(sb, 0, "a", "b", "fz[e]", "      ");
        hy_strbuf_appendf(sb, "      x0_%d = v;\n", i);
      } else if (k->pass->fuse == HY_FUSE_R2C_ODD) {
        /* A real input, imaginary part 0. */
        hy_strbuf_appendf(sb, "      x0_%d = MK(src[%s], (real)0);\n", i, addr);
      } else if (k->pass->fuse == HY_FUSE_C2R_ODD) {
        /* The Hermitian extension of the h = n/2 + 1 inputs. */
        long long n = (long long)k->n, h = n / 2 + 1;
        hy_strbuf_appendf(sb, "      { const int he = e < %lld ? e : %lld - e;\n", h, n);
        if (is == 1)
          hy_strbuf_appendf(sb, "        const real2 hv = src[ib + (%s)he];\n", k->idx);
        else
          hy_strbuf_appendf(sb, "        const real2 hv = src[ib + (%s)he * %lld];\n", k->idx,
                            (long long)is);
        hy_strbuf_appendf(sb, "        x0_%d = MK(hv.x, e == 0 ? (real)0 : e < %lld ? hv.y : -hv.y); }\n",
                          i, h);
      } else if (k->pass->fuse == HY_FUSE_CHIRP_IN && k->pass->real_end == 2) {
        /* Element fi = fk + S*e of the chirped input: the Hermitian
         * extension of the row's h inputs, read from the row's start (ib
         * less the fused loop's offset). */
        const hy_pass *ps = k->pass;
        long long nn = (long long)ps->chirp_n, h = nn / 2 + 1;
        int64_t lis = ps->loops[ps->fuse_loop].in_stride;
        hy_strbuf_appendf(sb, "      const %s fi = fk + (%s)e * %lld;\n", k->idx, k->idx,
                          (long long)ps->fuse_split);
        hy_strbuf_appendf(sb, "      if (fi < %lld) {\n        const %s hj = fi < %lld ? fi : %lld - fi;\n",
                          nn, k->idx, h, nn);
        hy_strbuf_appendf(sb, "        const real2 hv = src[ib - fk * %lld + hj * %lld];\n",
                          (long long)lis, (long long)lis);
        hy_strbuf_appendf(sb, "        x0_%d = cmul(MK(hv.x, fi == 0 ? (real)0 : fi < %lld ? hv.y : -hv.y), fz[fi]);\n      }\n",
                          i, h);
      } else if (k->pass->fuse == HY_FUSE_CHIRP_IN) {
        /* Element fk + S*e of the chirped, zero-padded Bluestein input
         * (reals, imaginary parts 0, for an R2C chain). */
        hy_strbuf_appendf(sb, "      const %s fi = fk + (%s)e * %lld;\n", k->idx, k->idx,
                          (long long)k->pass->fuse_split);
        if (k->pass->real_end == 1)
          hy_strbuf_appendf(sb, "      if (fi < %lld) x0_%d = cmul(MK(src[%s], (real)0), fz[fi]);\n",
                            (long long)k->pass->chirp_n, i, addr);
        else
          hy_strbuf_appendf(sb, "      if (fi < %lld) x0_%d = cmul(src[%s], fz[fi]);\n",
                            (long long)k->pass->chirp_n, i, addr);
      } else {
        hy_strbuf_appendf(sb, "      x0_%d = src[%s];\n", i, addr);
      }
      hy_strbuf_append(sb, "    }\n");
    }
    hy_cg_close_b(k);
  }
  hy_strbuf_append(sb, "  }\n");
}

/* part: 0 = complex, 1 = real parts, 2 = imaginary parts */
static void hy_cg_store_local(hy_cg_kernel *k, int s, int part) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  static const char *const sel[3] = {"", ".x", ".y"};
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    hy_cg_out_pos(k, s);
    for (int r = 0; r < st->radix; r++) {
      char e[48];
      snprintf(e, sizeof e, "o + %d", r * st->ns);
      hy_strbuf_append(sb, "    ");
      hy_cg_lx(k, e);
      hy_strbuf_appendf(sb, " = y%d_%d%s;\n", s, b * st->radix + r, sel[part]);
    }
    hy_cg_close_b(k);
  }
}

void hy_cg_load_local(hy_cg_kernel *k, int s, int part) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  static const char *const sel[3] = {"", ".x", ".y"};
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    for (int r = 0; r < st->radix; r++) {
      char e[48];
      snprintf(e, sizeof e, "j + %d", r * st->nb);
      hy_strbuf_appendf(sb, "    x%d_%d%s = ", s, b * st->radix + r, sel[part]);
      hy_cg_lx(k, e);
      hy_strbuf_append(sb, ";\n");
    }
    hy_cg_close_b(k);
  }
}

/* Rader's first stage from a staged row: convolution input q = j + r*NB
 * is x at rin[q] (g^q mod p) of the row in local memory. */
void hy_cg_load_rader_local(hy_cg_kernel *k) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[0];
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, 0, b);
    for (int r = 0; r < st->radix; r++) {
      hy_strbuf_appendf(sb, "    { const int e = rin[j + %d];\n      x0_%d = ", r * st->nb,
                        b * st->radix + r);
      hy_cg_lx(k, "e");
      hy_strbuf_append(sb, "; }\n");
    }
    hy_cg_close_b(k);
  }
}

/* Fused Rader's last store (HY_FUSE_RADER_OUT): convolution output
 * fo = S*e + fk (fk: the value of the variable named `fk`) plus x_0 is X
 * at g^-fo = g^(L-fo) mod N (fz[L - fo], L = N - 1) from the transform's
 * start (`o`, the output offset, less the fused loop's part); the thread
 * of fo = 0 also writes
 * X_0 = x_0 plus the kept sum of the inputs. x_0 and the sum come from
 * the stash slot `st` and are scaled here; `v` is already scaled. */
static void hy_cg_emit_rader_store(hy_cg_kernel *k, const char *in, const char *fk, const char *o,
                                   const char *st, const char *v) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int64_t los = pass->loops[pass->fuse_loop].out_stride;
  hy_strbuf_appendf(sb, "%sconst %s fo = (%s)e * %lld + %s;\n", in, k->idx, k->idx,
                    (long long)pass->fuse_split, fk);
  hy_strbuf_appendf(sb, "%sconst %s obase = %s - %s * %lld;\n", in, k->idx, o, fk, (long long)los);
  hy_strbuf_appendf(sb, "%sconst real2 vr = %s;\n", in, v);
  for (int part = 0; part < 2; part++) {
    const char *name = part == 0 ? "x0" : "a0";
    hy_strbuf_appendf(sb, "%s%sreal2 %s = aux[%lld + 2 * %s%s];\n", in, part ? "  " : "", name,
                      (long long)pass->aux_offset, st, part ? " + 1" : "");
    if (pass->scale != 1.0) {
      hy_strbuf_appendf(sb, "%s%s%s = cscale(%s, ", in, part ? "  " : "", name, name);
      hy_cg_literal(sb, k->precision, (long double)pass->scale);
      hy_strbuf_append(sb, ");\n");
    }
    if (part == 0) {
      hy_strbuf_appendf(sb, "%sdst[obase + (%s)fz[fo == 0 ? 0 : %lld - fo] * %lld] = "
                            "MK(x0.x + vr.x, x0.y + vr.y);\n",
                        in, k->idx, (long long)pass->bluestein_m, (long long)los);
      hy_strbuf_appendf(sb, "%sif (fo == 0) {\n", in);
    }
  }
  hy_strbuf_appendf(sb, "%s  dst[obase] = MK(x0.x + a0.x, x0.y + a0.y);\n%s}\n", in, in);
}

void hy_cg_store_global(hy_cg_kernel *k, int s) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  const hy_pass *pass = k->pass;
  int64_t os = pass->axis.out_stride;
  hy_strbuf_append(sb, "  if (valid) {\n");
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    hy_cg_out_pos(k, s);
    for (int r = 0; r < st->radix; r++) {
      int i = b * st->radix + r;
      hy_strbuf_appendf(sb, "    { const int e = o + %d;\n", r * st->ns);
      if (k->bluestein) {
        if ((int64_t)k->nc > k->n) hy_strbuf_appendf(sb, "      if (e < %lld) {\n", (long long)k->n);
        else hy_strbuf_append(sb, "      {\n");
        hy_strbuf_appendf(sb, "      real2 v = cmul(y%d_%d, chirp[e]);\n", s, i);
      } else if (k->rader) {
        hy_strbuf_appendf(sb, "      {\n      real2 v = MK(y%d_%d.x + hx0.x, y%d_%d.y + hx0.y);\n", s, i,
                          s, i);
      } else {
        hy_strbuf_appendf(sb, "      {\n      real2 v = y%d_%d;\n", s, i);
      }
      if (pass->twiddle_loop >= 0 && k->spec->ftw_sincos == 1) {
        /* exp(sign*2*pi*i*a/N) with a reduced to (-N/2, N/2] in integers,
         * so x = 2a/N is in (-1, 1] and rounds once (exactly for N = 2^k). */
        int64_t mmax = pass->loops[pass->twiddle_loop].n - 1;
        int64_t nt = pass->twiddle_n;
        hy_strbuf_appendf(sb, "      { %s a = tm * (%s)e", k->idx, k->idx);
        if (mmax > 0 && mmax * (k->n - 1) >= nt) hy_strbuf_appendf(sb, " %% %lld", (long long)nt);
        hy_strbuf_appendf(sb, ";\n        if (a > %lld) a -= %lld;\n", (long long)(nt / 2), (long long)nt);
        hy_strbuf_appendf(sb, "        const real x = ((real)a * (real)2) / (real)%lld;\n", (long long)nt);
        hy_strbuf_append(sb, "        real ws, wc;\n        HY_SINCOSPI(x, ws, wc);\n");
        hy_strbuf_appendf(sb, "        v = cmul(v, MK(wc, %sws)); }\n", pass->sign < 0 ? "-" : "");
      } else if (pass->twiddle_loop >= 0 && k->spec->ftw_sincos == 2) {
        int64_t mmax = pass->loops[pass->twiddle_loop].n - 1;
        int64_t nt = pass->twiddle_n, sp = hy_twiddle_split(nt);
        int shift = 0;
        while (((int64_t)1 << shift) < sp) shift++;
        hy_strbuf_appendf(sb, "      { const %s a = tm * (%s)e", k->idx, k->idx);
        if (mmax > 0 && mmax * (k->n - 1) >= nt) hy_strbuf_appendf(sb, " %% %lld", (long long)nt);
        hy_strbuf_appendf(sb, ";\n        v = cmul(v, cmul(ftw[a & %lld], ftw[%lld + (a >> %d)])); }\n",
                          (long long)(sp - 1), (long long)sp, shift);
      } else if (pass->twiddle_loop >= 0) {
        int64_t mmax = pass->loops[pass->twiddle_loop].n - 1;
        if (mmax > 0 && mmax * (k->n - 1) >= pass->twiddle_n)
          hy_strbuf_appendf(sb, "      v = cmul(v, ftw[(tm * (%s)e) %% %lld]);\n", k->idx,
                            (long long)pass->twiddle_n);
        else
          hy_strbuf_appendf(sb, "      v = cmul(v, ftw[tm * (%s)e]);\n", k->idx);
      }
      int64_t fuse_n = pass->fuse == HY_FUSE_CHIRP_OUT ? pass->chirp_n : pass->bluestein_m;
      if (pass->fuse == HY_FUSE_RADER_SPECTRUM_OUT) {
        /* Output 0 of the forward transform is the sum of the inputs
         * x_n, n > 0: kept for X_0 before the spectrum multiply. */
        hy_strbuf_appendf(sb, "      const %s fo = (%s)e * %lld + fk;\n", k->idx, k->idx,
                          (long long)pass->fuse_split);
        hy_strbuf_appendf(sb, "      if (fo == 0) aux[%lld + 2 * st + 1] = v;\n",
                          (long long)pass->aux_offset);
        hy_strbuf_append(sb, "      v = cmul(v, fz[fo]);\n");
      }
      if (pass->fuse == HY_FUSE_SPECTRUM_OUT || pass->fuse == HY_FUSE_CHIRP_OUT) {
        /* Output k = S*e + fk of the Bluestein convolution. */
        hy_strbuf_appendf(sb, "      const %s fo = (%s)e * %lld + fk;\n", k->idx, k->idx,
                          (long long)pass->fuse_split);
        hy_strbuf_appendf(sb, "      if (fo < %lld) v = cmul(v, fz[fo]);\n", (long long)fuse_n);
      }
      if (pass->scale != 1.0) {
        hy_strbuf_append(sb, "      v = cscale(v, ");
        hy_cg_literal(sb, k->precision, (long double)pass->scale);
        hy_strbuf_append(sb, ");\n");
      }
      if (pass->fuse == HY_FUSE_RADER_OUT && !k->spec->store_transposed) {
        /* Straight from the registers (hy_cg_emit_rader_store). */
        hy_strbuf_append(sb, "      {\n");
        hy_cg_emit_rader_store(k, "        ", "fk", "ob", "st", "v");
        hy_strbuf_append(sb, "      }\n");
      } else if (k->rader && k->spec->stage_store) {
        /* Convolution output r is X at g^-r mod p, placed in the row. */
        hy_strbuf_append(sb, "      { const int x = rout[e]; ");
        hy_cg_lx(k, "x");
        hy_strbuf_append(sb, " = v; }\n");
      } else if (k->rader) {
        /* Convolution output r is X at g^-r mod p. */
        hy_strbuf_appendf(sb, "      dst[ob + (%s)rout[e] * %lld] = v;\n", k->idx, (long long)os);
      } else if (k->lds_out) {
        hy_strbuf_append(sb, "      ");
        hy_cg_lx(k, "e");
        hy_strbuf_append(sb, " = v;\n");
      } else if (hy_fuse_is_real_odd(pass->fuse)) {
        /* R2C keeps outputs k < n/2 + 1, C2R the real parts. */
        char oaddr[96];
        if (os == 1)
          snprintf(oaddr, sizeof oaddr, "ob + (%s)e", k->idx);
        else
          snprintf(oaddr, sizeof oaddr, "ob + (%s)e * %lld", k->idx, (long long)os);
        if (pass->fuse == HY_FUSE_R2C_ODD)
          hy_strbuf_appendf(sb, "      if (e < %lld) dst[%s] = v;\n", (long long)(k->n / 2 + 1), oaddr);
        else
          hy_strbuf_appendf(sb, "      dst[%s] = v.x;\n", oaddr);
      } else {
        /* An R2C chain keeps outputs below h, a C2R chain the real parts. */
        int64_t keep = pass->fuse == HY_FUSE_CHIRP_OUT && pass->real_end == 1
                           ? pass->chirp_n / 2 + 1 : fuse_n;
        const char *part = pass->fuse == HY_FUSE_CHIRP_OUT && pass->real_end == 2 ? ".x" : "";
        if (pass->fuse == HY_FUSE_CHIRP_OUT) hy_strbuf_appendf(sb, "      if (fo < %lld)", (long long)keep);
        if (os == 1)
          hy_strbuf_appendf(sb, "      dst[ob + (%s)e] = v%s;\n", k->idx, part);
        else
          hy_strbuf_appendf(sb, "      dst[ob + (%s)e * %lld] = v%s;\n", k->idx, (long long)os, part);
      }
      hy_strbuf_append(sb, "      }\n    }\n");
    }
    hy_cg_close_b(k);
  }
  hy_strbuf_append(sb, "  }\n");
}

/* Second half of the transposed store: the work-group's outputs are in
 * local memory; thread i stores element i / M of transform i % M, so
 * consecutive threads write neighbouring transforms (coalesced when their
 * loop stride is small). */
void hy_cg_store_transposed(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int block = k->T * k->M;
  int iters = (int)((k->n * k->M + block - 1) / block);
  hy_strbuf_append(sb, "  HY_BARRIER();\n");
  hy_strbuf_appendf(sb, "  for (int it = 0; it < %d; it++) {\n", iters);
  hy_strbuf_appendf(sb, "    const int i = HY_LID + it * %d;\n", block);
  hy_strbuf_appendf(sb, "    const int mm = i %% %d, e = i / %d;\n", k->M, k->M);
  hy_strbuf_appendf(sb, "    const %s tj = (%s)(HY_GID * %d + mm);\n", k->idx, k->idx, k->M);
  hy_strbuf_appendf(sb, "    if (e < %lld && tj < %lld) {\n", (long long)k->n, (long long)count);
  hy_strbuf_appendf(sb, "      %s o2 = %lld;\n", k->idx, (long long)pass->dst_offset);
  int fk2 = pass->fuse == HY_FUSE_CHIRP_OUT || pass->fuse == HY_FUSE_RADER_OUT;
  if (fk2) hy_strbuf_appendf(sb, "      %s fk2 = 0;\n", k->idx);
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, k->spec->store_transposed, order);
  if (pass->nloops > 0) {
    hy_strbuf_appendf(sb, "      %s rem = tj, q;\n", k->idx);
    hy_cg_emit_loop_offsets(sb, pass, order, "      ", NULL, "o2", NULL, fk2 ? "fk2" : NULL);
  }
  char e[64];
  if (k->pad)
    snprintf(e, sizeof e, "lds[mm * %d + e + (e >> %d) * %d]", k->row, k->pad_shift, k->pad);
  else
    snprintf(e, sizeof e, "lds[mm * %d + e]", k->row);
  if (pass->fuse == HY_FUSE_RADER_OUT) {
    /* From local memory, as in hy_cg_emit_rader_store. */
    hy_cg_emit_stash_index(k, order, "      ", "tj", "st2");
    hy_cg_emit_rader_store(k, "      ", "fk2", "o2", "st2", e);
    hy_strbuf_append(sb, "    }\n  }\n");
    return;
  }
  /* The fused output chirp keeps only the first N outputs (h of them, or
   * their real parts, at the end of a real chain). */
  if (pass->fuse == HY_FUSE_CHIRP_OUT)
    hy_strbuf_appendf(sb, "      if ((%s)e * %lld + fk2 < %lld)", k->idx, (long long)pass->fuse_split,
                      (long long)(pass->real_end == 1 ? pass->chirp_n / 2 + 1 : pass->chirp_n));
  hy_strbuf_appendf(sb, "      dst[o2 + (%s)e * %lld] = %s%s;\n", k->idx,
                    (long long)pass->axis.out_stride, e,
                    pass->fuse == HY_FUSE_CHIRP_OUT && pass->real_end == 2 ? ".x" : "");
  hy_strbuf_append(sb, "    }\n  }\n");
}

/* Staged load (out = 0) or store (out = 1) of a dense run: the work-group's
 * M*n elements move between global and local memory with consecutive
 * threads on consecutive elements, so every warp reads or writes whole
 * segments however short the transforms are. */
void hy_cg_stage_copy(hy_cg_kernel *k, int64_t count, int out) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int block = k->T * k->M;
  /* Elements per transform on this side: n, or the n/2 + 1 complex values
   * on the complex side of an odd real step. */
  const int64_t per = hy_pass_side_length(pass, out);
  const int r2c_odd = pass->fuse == HY_FUSE_R2C_ODD, c2r_odd = pass->fuse == HY_FUSE_C2R_ODD;
  int64_t run = per * k->M;
  int iters = (int)((run + block - 1) / block);
  /* A plane pass whose planes are not one dense run has one per block,
   * at the ib the prologue computed. */
  int by_ib = !out && pass->plane_inner > 0 && !hy_pass_dense_input(pass);
  if (out) hy_strbuf_append(sb, "  HY_BARRIER();\n");
  if (by_ib)
    hy_strbuf_append(sb, "  {\n");
  else
    hy_strbuf_appendf(sb, "  {\n    const %s base = (%s)(HY_GID * %lld);\n", k->idx, k->idx,
                      (long long)run);
  hy_strbuf_appendf(sb, "#pragma unroll\n    for (int it = 0; it < %d; it++) {\n", iters);
  hy_strbuf_appendf(sb, "      const int i = HY_LID + it * %d;\n", block);
  /* The last work-group may hold fewer than M transforms. */
  hy_strbuf_append(sb, "      if (");
  if ((int64_t)iters * block > run) hy_strbuf_appendf(sb, "i < %lld && ", (long long)run);
  if (by_ib)
    hy_strbuf_append(sb, "valid) {\n");
  else
    hy_strbuf_appendf(sb, "base + i < %lld) {\n", (long long)(count * per));
  if (!out && pass->plane_inner > 0) {
    /* Plane element (a, b) at a*B + b goes to the Stockham position
     * b*A + a: the stages run B's radices over the plane's rows first,
     * and the output comes out in the plane's own order. */
    int64_t B = pass->plane_inner, A = k->n / B;
    hy_strbuf_appendf(sb, "        const int mm = i / %lld, p = i %% %lld;\n", (long long)k->n,
                      (long long)k->n);
    hy_strbuf_appendf(sb, "        const int e = (p %% %lld) * %lld + p / %lld;\n", (long long)B,
                      (long long)A, (long long)B);
  } else {
    hy_strbuf_appendf(sb, "        const int mm = i / %lld, e = i %% %lld;\n", (long long)per,
                      (long long)per);
  }
  char l[96], lm[96];
  if (k->pad) {
    snprintf(l, sizeof l, "lds[mm * %d + e + (e >> %d) * %d]", k->row, k->pad_shift, k->pad);
    snprintf(lm, sizeof lm, "lds[mm * %d + (%lld - e) + ((%lld - e) >> %d) * %d]", k->row,
             (long long)k->n, (long long)k->n, k->pad_shift, k->pad);
  } else {
    snprintf(l, sizeof l, "lds[mm * %d + e]", k->row);
    snprintf(lm, sizeof lm, "lds[mm * %d + (%lld - e)]", k->row, (long long)k->n);
  }
  if (r2c_odd && !out) {
    /* A real input, imaginary part 0. */
    hy_strbuf_appendf(sb, "        %s = MK(src[%lld + base + i], (real)0);\n", l,
                      (long long)pass->src_offset);
  } else if (c2r_odd && !out) {
    /* Input e < n/2 + 1 and its conjugate at n - e: the Hermitian
     * extension (X_0's imaginary part taken as 0). */
    hy_strbuf_appendf(sb, "        const real2 hv = src[%lld + base + i];\n",
                      (long long)pass->src_offset);
    hy_strbuf_appendf(sb, "        %s = MK(hv.x, e == 0 ? (real)0 : hv.y);\n", l);
    hy_strbuf_appendf(sb, "        if (e > 0) %s = MK(hv.x, -hv.y);\n", lm);
  } else if (c2r_odd) {
    /* The real parts. */
    hy_strbuf_appendf(sb, "        dst[%lld + base + i] = %s.x;\n", (long long)pass->dst_offset, l);
  } else if (out)
    hy_strbuf_appendf(sb, "        dst[%lld + base + i] = %s;\n", (long long)pass->dst_offset, l);
  else if (by_ib)
    hy_strbuf_appendf(sb, "        %s = src[ib + i];\n", l);
  else
    hy_strbuf_appendf(sb, "        %s = src[%lld + base + i];\n", l, (long long)pass->src_offset);
  hy_strbuf_append(sb, "      }\n    }\n  }\n");
  if (!out) hy_strbuf_append(sb, "  HY_BARRIER();\n");
}

/* The loop over the elements of a fused real step: element e of row mm
 * of the work-group (transform tj), `per` elements a row, with `var` its
 * offset on the side the step touches. */
void hy_cg_real_loop_open(hy_cg_kernel *k, int64_t count, int64_t per, int out,
                          const char *var) {
  hy_cg_real_loop_open_row(k, count, per, out, var, NULL);
}

void hy_cg_real_loop_open_row(hy_cg_kernel *k, int64_t count, int64_t per, int out,
                              const char *var, const char *row) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int block = k->T * k->M;
  int64_t run = per * k->M;
  int iters = (int)((run + block - 1) / block);
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, k->spec->store_transposed, order);
  hy_strbuf_appendf(sb, "  for (int it = 0; it < %d; it++) {\n", iters);
  hy_strbuf_appendf(sb, "    const int i = HY_LID + it * %d;\n", block);
  /* Where the block's transforms lie side by side in memory (a strided
   * axis, the next transform the next element), consecutive threads take
   * the same element of neighbouring transforms: a warp then reads runs of
   * M elements from a few rows instead of one element from each of 32
   * rows. Otherwise consecutive threads walk along one row. */
  int64_t axis_stride = llabs(out ? pass->axis.out_stride : pass->axis.in_stride);
  int64_t loop_stride = pass->nloops > 0 ? llabs(out ? pass->loops[order[0]].out_stride
                                                     : pass->loops[order[0]].in_stride) : 0;
  if (k->M > 1 && axis_stride > 1 && loop_stride == 1)
    hy_strbuf_appendf(sb, "    const int mm = i %% %d, e = i / %d;\n", k->M, k->M);
  else
    hy_strbuf_appendf(sb, "    const int mm = i / %lld, e = i %% %lld;\n", (long long)per,
                      (long long)per);
  hy_strbuf_appendf(sb, "    const %s tj = (%s)(HY_GID * %d + mm);\n", k->idx, k->idx, k->M);
  hy_strbuf_append(sb, "    if (");
  if ((int64_t)iters * block > run) hy_strbuf_appendf(sb, "i < %lld && ", (long long)run);
  hy_strbuf_appendf(sb, "tj < %lld) {\n", (long long)count);
  hy_strbuf_appendf(sb, "      %s %s = %lld;\n", k->idx, var,
                    (long long)(out ? pass->dst_offset : pass->src_offset));
  if (row) hy_strbuf_appendf(sb, "      %s %s = 0;\n", k->idx, row);
  if (pass->nloops > 0) {
    hy_strbuf_appendf(sb, "      { %s rem = tj, q;\n", k->idx);
    hy_cg_emit_loop_offsets(sb, pass, order, "        ", out ? NULL : var, out ? var : NULL, NULL,
                            row);
    hy_strbuf_append(sb, "      }\n");
  }
}

/* Local-memory element e2 of row mm, into `out`. */
void hy_cg_real_lds(hy_cg_kernel *k, const char *e2, char *out, size_t size) {
  if (k->pad)
    snprintf(out, size, "lds[mm * %d + (%s) + ((%s) >> %d) * %d]", k->row, e2, e2, k->pad_shift,
             k->pad);
  else
    snprintf(out, size, "lds[mm * %d + (%s)]", k->row, e2);
}

static void hy_cg_load_real_pre_pairs(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  int64_t m = k->n, is = k->pass->axis.in_stride, pairs = m / 2 + 1;
  char le[128], lj[128];
  hy_cg_real_lds(k, "e", le, sizeof le);
  hy_cg_real_lds(k, "j", lj, sizeof lj);
  /* Pairs e, m - e (e <= m/2): each input is read once, by one thread
   * that forms both values it enters. */
  hy_strbuf_appendf(sb, "  /* C2R pre-processing: the pair X_e, X_%lld-e into local memory */\n",
                    (long long)m);
  hy_cg_real_loop_open(k, count, pairs, 0, "i2");
  hy_strbuf_appendf(sb, "      const int j = %lld - e;\n", (long long)m);
  hy_strbuf_appendf(sb, "      real2 a = src[i2 + (%s)e * %lld], b = src[i2 + (%s)j * %lld];\n",
                    k->idx, (long long)is, k->idx, (long long)is);
  hy_strbuf_append(sb, "      if (e == 0) { a.y = (real)0; b.y = (real)0; }\n      {\n");
  hy_cg_real_step_value(sb, 0, "a", "b", "fz[e]", "        ");
  hy_strbuf_appendf(sb, "        %s = v;\n      }\n", le);
  hy_strbuf_appendf(sb, "      if (j != e && j < %lld) {\n", (long long)m);
  hy_cg_real_step_value(sb, 0, "b", "a", "fz[j]", "        ");
  hy_strbuf_appendf(sb, "        %s = v;\n      }\n    }\n  }\n  HY_BARRIER();\n", lj);
}

static void hy_cg_load_real_pre_staged(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  int64_t m = k->n, is = k->pass->axis.in_stride, pairs = m / 2 + 1;
  char le[128], lj[128];
  hy_cg_real_lds(k, "e", le, sizeof le);
  hy_cg_real_lds(k, "j", lj, sizeof lj);
  /* First X_0..X_m-1 of each row into local memory, consecutive threads
   * on consecutive elements (every warp reads whole segments, and the
   * unrolled loop keeps all of a thread's loads in flight at once). */
  hy_strbuf_appendf(sb, "  /* C2R pre-processing: X_0..X_%lld into local memory, then the pairs "
                        "X_e, X_%lld-e there */\n",
                    (long long)m - 1, (long long)m);
  hy_strbuf_append(sb, "#pragma unroll\n");
  hy_cg_real_loop_open(k, count, m, 0, "i2");
  hy_strbuf_appendf(sb, "      %s = src[i2 + (%s)e * %lld];\n    }\n  }\n  HY_BARRIER();\n", le,
                    k->idx, (long long)is);
  /* Then the pairs e, m - e (e <= m/2) in place: one thread owns both
   * slots of a pair, so no other thread touches them. X_m (which the row
   * in local memory need not hold) comes from global memory. */
  hy_cg_real_loop_open(k, count, pairs, 0, "i2");
  hy_strbuf_appendf(sb, "      const int j = %lld - e;\n", (long long)m);
  hy_strbuf_appendf(sb, "      real2 a = %s, b;\n", le);
  hy_strbuf_appendf(sb,
                    "      if (e == 0) { b = src[i2 + (%s)%lld * %lld]; a.y = (real)0; b.y = (real)0; }\n",
                    k->idx, (long long)m, (long long)is);
  hy_strbuf_appendf(sb, "      else b = %s;\n      {\n", lj);
  hy_cg_real_step_value(sb, 0, "a", "b", "fz[e]", "        ");
  hy_strbuf_appendf(sb, "        %s = v;\n      }\n", le);
  hy_strbuf_appendf(sb, "      if (j != e && j < %lld) {\n", (long long)m);
  hy_cg_real_step_value(sb, 0, "b", "a", "fz[j]", "        ");
  hy_strbuf_appendf(sb, "        %s = v;\n      }\n    }\n  }\n  HY_BARRIER();\n", lj);
}


/* The split form's C2R pre-processing (planner/plan.h) into local
 * memory: slot e of row j (index k = j + L*e) from X_k and its partner
 * X_m-k, both read from global memory, neighbouring threads on
 * neighbouring rows, so that both reads take whole runs of the rows. The
 * partner rows' work-group reads the same data at about the same time
 * (every work-group of a transform runs at once), so the second read of
 * each input mostly comes from L2. Four iterations unrolled keep several
 * loads of a thread in flight. */
static void hy_cg_load_real_pre_split(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int64_t n = k->n, is = pass->axis.in_stride, L = pass->loops[pass->fuse_loop].n;
  int64_t ls = pass->loops[pass->fuse_loop].in_stride;
  char le[128];
  hy_cg_real_lds(k, "e", le, sizeof le);
  hy_strbuf_appendf(sb, "  /* C2R pre-processing across the rows j, %lld - j: X_j+%lld*e and its "
                        "partner into local memory */\n",
                    (long long)L, (long long)L);
  hy_strbuf_append(sb, "#pragma unroll 4\n");
  hy_cg_real_loop_open_row(k, count, n, 0, "i2", "jr");
  hy_strbuf_appendf(sb, "      const %s kk = jr + (%s)e * %lld;\n", k->idx, k->idx, (long long)L);
  hy_strbuf_appendf(sb, "      real2 a = src[i2 + (%s)e * %lld], b;\n", k->idx, (long long)is);
  hy_strbuf_appendf(sb, "      if (jr == 0) b = src[i2 + (%s)(%lld - e) * %lld];\n", k->idx,
                    (long long)n, (long long)is);
  hy_strbuf_appendf(sb,
                    "      else b = src[i2 + (%lld - 2 * jr) * %lld + (%s)(%lld - e) * %lld];\n",
                    (long long)L, (long long)ls, k->idx, (long long)(n - 1), (long long)is);
  hy_strbuf_append(sb, "      if (kk == 0) { a.y = (real)0; b.y = (real)0; }\n      {\n");
  hy_cg_real_step_value(sb, 0, "a", "b", "fz[kk]", "        ");
  hy_strbuf_appendf(sb, "        %s = v;\n      }\n    }\n  }\n  HY_BARRIER();\n", le);
}

/* The C2R pre-processing step into local memory, the input read by pairs
 * (each thread reads X_e and X_m-e from global memory) or, with `staged`
 * (the spec's stagein), densely first and paired in local memory; the
 * split form (fuse_loop >= 0) pairs across rows. */
void hy_cg_load_real_pre(hy_cg_kernel *k, int64_t count, int staged) {
  if (k->pass->fuse_loop >= 0)
    hy_cg_load_real_pre_split(k, count);
  else if (staged)
    hy_cg_load_real_pre_staged(k, count);
  else
    hy_cg_load_real_pre_pairs(k, count);
}

/* The split form's R2C post-processing (planner/plan.h) from local
 * memory: output e of row j (index k = j + L*e) from Z_k in this row and
 * Z_m-k in the partner row (mm ^ 1, or this row for rows 0 and L/2),
 * neighbouring threads on neighbouring rows as in the transposed store;
 * row 0 also stores output m. Four iterations unrolled keep several
 * table reads of a thread in flight. */
static void hy_cg_store_real_post_split(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int64_t n = k->n, os = pass->axis.out_stride, L = pass->loops[pass->fuse_loop].n;
  char x[256], y[256], ex[64];
  snprintf(ex, sizeof ex, "e < %lld ? e : 0", (long long)n);
  hy_cg_real_lds(k, ex, x, sizeof x);
  if (k->pad)
    snprintf(y, sizeof y, "lds[pm * %d + ey + (ey >> %d) * %d]", k->row, k->pad_shift, k->pad);
  else
    snprintf(y, sizeof y, "lds[pm * %d + ey]", k->row);
  hy_strbuf_appendf(sb, "  /* R2C post-processing across the rows j, %lld - j: output j+%lld*e "
                        "from Z there and its partner */\n  HY_BARRIER();\n",
                    (long long)L, (long long)L);
  hy_strbuf_append(sb, "#pragma unroll 4\n");
  hy_cg_real_loop_open_row(k, count, n + 1, 1, "o2", "jr");
  hy_strbuf_appendf(sb, "      if (e < %lld || jr == 0) {\n", (long long)n);
  hy_strbuf_appendf(sb, "        const int pm = jr == 0 || jr == %lld ? mm : (mm ^ 1);\n",
                    (long long)(L / 2));
  hy_strbuf_appendf(sb,
                    "        const int ey = jr != 0 ? %lld - e : e > 0 && e < %lld ? %lld - e : 0;\n",
                    (long long)(n - 1), (long long)n, (long long)n);
  hy_strbuf_appendf(sb, "        const %s kk = jr + (%s)e * %lld;\n", k->idx, k->idx, (long long)L);
  hy_strbuf_appendf(sb, "        const real2 x = %s, y = %s;\n", x, y);
  hy_cg_real_step_value(sb, 1, "x", "y", "fz[kk]", "        ");
  hy_strbuf_appendf(sb, "        dst[o2 + (%s)e * %lld] = v;\n      }\n    }\n  }\n", k->idx,
                    (long long)os);
}

void hy_cg_store_real_post(hy_cg_kernel *k, int64_t count) {
  if (k->pass->fuse_loop >= 0) {
    hy_cg_store_real_post_split(k, count);
    return;
  }
  hy_strbuf *sb = k->sb;
  int64_t m = k->n, os = k->pass->axis.out_stride;
  char x[256], y[256], ex[64], ey[64];
  snprintf(ex, sizeof ex, "e < %lld ? e : 0", (long long)m);
  snprintf(ey, sizeof ey, "e > 0 ? %lld - e : 0", (long long)m);
  hy_cg_real_lds(k, ex, x, sizeof x);
  hy_cg_real_lds(k, ey, y, sizeof y);
  hy_strbuf_appendf(sb, "  /* R2C post-processing: output e from Z_e and Z_%lld-e */\n  HY_BARRIER();\n",
                    (long long)m);
  hy_cg_real_loop_open(k, count, m + 1, 1, "o2");
  hy_strbuf_appendf(sb, "      const real2 x = %s, y = %s;\n", x, y);
  hy_cg_real_step_value(sb, 1, "x", "y", "fz[e]", "      ");
  hy_strbuf_appendf(sb, "      dst[o2 + (%s)e * %lld] = v;\n    }\n  }\n", k->idx, (long long)os);
}

/* Move the outputs of stage s into the inputs of stage s+1 through local
 * memory. A barrier first when an earlier exchange (or the staged load) may
 * still be reading. */
void hy_cg_exchange(hy_cg_kernel *k, int s) {
  hy_strbuf *sb = k->sb;
  if (s > 0 || k->lds_in) hy_strbuf_append(sb, "  HY_BARRIER();\n");
  if (!k->spec->split_exchange) {
    hy_cg_store_local(k, s, 0);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_load_local(k, s + 1, 0);
  } else {
    hy_cg_store_local(k, s, 1);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_load_local(k, s + 1, 1);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_store_local(k, s, 2);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_load_local(k, s + 1, 2);
  }
}

/* Largest element index a pass touches on one side, for the index type. */
int64_t hy_cg_extent(const hy_pass *pass, int out) {
  int64_t e = out ? pass->dst_offset : pass->src_offset;
  int64_t s = out ? pass->axis.out_stride : pass->axis.in_stride;
  /* A fused real step reads (C2R) or writes (R2C) element m too. */
  int64_t last = pass->axis.n - 1;
  if ((out && pass->fuse == HY_FUSE_R2C_POST) || (!out && pass->fuse == HY_FUSE_C2R_PRE)) last++;
  /* The half-length r2r form reads and writes n = 2 axis.n reals. */
  if (pass->fuse == HY_FUSE_R2R && pass->r2r_half) last = pass->r2r_n - 1;
  e += last * llabs(s);
  for (int l = 0; l < pass->nloops; l++)
    e += (pass->loops[l].n - 1) * llabs(out ? pass->loops[l].out_stride : pass->loops[l].in_stride);
  return e;
}

/* Loop order for decomposing the transform index: smallest input stride
 * fastest, so the M transforms of a work-group are memory neighbours; or,
 * for a transposed store (by_out: each transform is read as one contiguous
 * row anyway), smallest output stride fastest, so that the store writes
 * neighbours (the last pass of a three-pass four-step, whose reading-order
 * neighbours lie far apart in the output). */
void hy_cg_loop_order(const hy_pass *pass, int by_out, int *order) {
  hy_pass_loop_order(pass, by_out, order);
}

void hy_cg_emit_loop_offsets(hy_strbuf *sb, const hy_pass *pass, const int *order,
                             const char *indent, const char *in_var, const char *out_var,
                             const char *tm_var, const char *fk_var) {
  for (int a = 0; a < pass->nloops; a++) {
    const hyfft_dim *d = &pass->loops[order[a]];
    if (a == pass->nloops - 1)
      hy_strbuf_appendf(sb, "%sq = rem;\n", indent);
    else
      hy_strbuf_appendf(sb, "%sq = rem %% %lld; rem /= %lld;\n", indent, (long long)d->n,
                        (long long)d->n);
    if (order[a] == pass->fuse_loop && pass->fuse == HY_FUSE_R2C_POST)
      /* The rows of a split R2C step by pairs (planner/plan.h): j and
       * L - j are neighbouring transforms. */
      hy_strbuf_appendf(sb, "%sq = (q & 1) == 0 ? (q >> 1) : q == 1 ? %lld : %lld - (q >> 1);\n",
                        indent, (long long)(d->n / 2), (long long)d->n);
    if (in_var && out_var)
      hy_strbuf_appendf(sb, "%s%s += q * %lld; %s += q * %lld;\n", indent, in_var,
                        (long long)d->in_stride, out_var, (long long)d->out_stride);
    else if (out_var)
      hy_strbuf_appendf(sb, "%s%s += q * %lld;\n", indent, out_var, (long long)d->out_stride);
    else if (in_var)
      hy_strbuf_appendf(sb, "%s%s += q * %lld;\n", indent, in_var, (long long)d->in_stride);
    if (tm_var && order[a] == pass->twiddle_loop)
      hy_strbuf_appendf(sb, "%s%s = q;\n", indent, tm_var);
    if (fk_var && order[a] == pass->fuse_loop)
      hy_strbuf_appendf(sb, "%s%s = q;\n", indent, fk_var);
  }
}

/* Fused Rader's stash slot: `out` = the transform index `from` (taken
 * apart in `order`, as for the offsets) over the loops other than the
 * fused step's, row-major in loop order, so every pass of the plan finds
 * the same slot for one transform. */
void hy_cg_emit_stash_index(hy_cg_kernel *k, const int *order, const char *indent,
                                   const char *from, const char *out) {
  const hy_pass *pass = k->pass;
  int64_t stride[HY_MAX_LOOPS], prod = 1;
  for (int l = pass->nloops - 1; l >= 0; l--) {
    stride[l] = prod;
    if (l != pass->fuse_loop) prod *= pass->loops[l].n;
  }
  hy_strbuf_appendf(k->sb, "%s%s %s = 0;\n%s{\n%s  %s rs = %s, qs;\n", indent, k->idx, out, indent,
                    indent, k->idx, from);
  for (int a = 0; a < pass->nloops; a++) {
    const hyfft_dim *d = &pass->loops[order[a]];
    if (a == pass->nloops - 1)
      hy_strbuf_appendf(k->sb, "%s  qs = rs;\n", indent);
    else
      hy_strbuf_appendf(k->sb, "%s  qs = rs %% %lld; rs /= %lld;\n", indent, (long long)d->n,
                        (long long)d->n);
    if (order[a] != pass->fuse_loop)
      hy_strbuf_appendf(k->sb, "%s  %s += qs * %lld;\n", indent, out, (long long)stride[order[a]]);
  }
  hy_strbuf_appendf(k->sb, "%s  (void)qs;\n%s}\n", indent, indent);
}
