/* Rewrites of a finished kernel's accesses to the caller's buffers:
 * half-precision storage (HYFFT_F16, HYFFT_BF16), described here, and the
 * user's load and store callbacks (hyfft_callbacks; the second part of
 * this file says how).
 *
 * Kernels compute in f32 (real = float) and are written, by every level
 * below, as if each buffer held real2 (or real, at a real end of R2C/C2R).
 * A pass's `src` or `dst` that is the caller's input or output buffer
 * holds halves instead: a complex element is a pair of 16-bit patterns
 * (hy_half2: ushort2, real part in .x), a real one a single pattern
 * (hy_half1). Once a pass's kernel text is complete, hy_cg_storage_kernel
 * turns it into the half-precision kernel: such a parameter is declared
 * hy_half2 (hy_half1), a read `src[i]` becomes `hy_ld_h(src[i])`
 * (`hy_ld_s`) and a store `dst[i] = v;` becomes `dst[i] = hy_st_h(v);`
 * (`hy_st_s`). A real buffer viewed as complex (a DFT reading R2C's reals
 * in pairs) is a hy_half2 buffer as it is a real2 one. The work buffers
 * between passes stay f32, so a multi-pass plan rounds to the format only
 * where a pass writes the caller's buffers (its last pass, and a pass that
 * keeps an intermediate in the output buffer: the later axes of a 2D/3D
 * plan, the steps of a real transform that run in place on the output).
 * A use of such a buffer in any other form (pointer arithmetic, a
 * compound assignment) is refused, so nothing can read halves as f32
 * unnoticed.
 *
 * The conversions (hy_cg_storage_preamble) are the bit algorithms of
 * util/half.h in OpenCL C (integer operations and bit casts only, so no
 * cl_khr_fp16 is needed) and for bf16 on CUDA devices below compute
 * capability 8.0; f16 in CUDA C, and bf16 from 8.0, use the PTX
 * conversion instructions (inline asm, no header under NVRTC).
 * f16 -> f32 is exact (subnormals and inf kept, NaN stays NaN), f32 -> f16
 * and f32 -> bf16 round to nearest even, overflow to inf, keep NaN NaN.
 * The persistent kernel (cg_persist.c) is not made for these plans. */
#include <string.h>

#include "codegen/cg_internal.h"
#include "util/half.h"

void hy_cg_storage_preamble(hy_strbuf *sb, hy_dialect dialect, hyfft_precision storage) {
  if (!hy_precision_is_half(storage)) return;
  int cl = dialect == HY_DIALECT_OPENCL;
  hy_strbuf_appendf(sb,
                    "/* %s storage: halves in memory, f32 in registers (cg_storage.c). */\n"
                    "typedef ushort2 hy_half2;\ntypedef %s hy_half1;\n"
                    "#define HY_U2F(u) %s(u)\n#define HY_F2U(f) %s(f)\n"
                    "#define HY_MKH(a, b) %s\n",
                    storage == HYFFT_F16 ? "f16" : "bf16", cl ? "ushort" : "unsigned short",
                    cl ? "as_float" : "__uint_as_float",
                    cl ? "as_uint" : "__float_as_uint",
                    cl ? "((hy_half2)((ushort)(a), (ushort)(b)))"
                       : "make_ushort2((unsigned short)(a), (unsigned short)(b))");
  if (storage == HYFFT_F16 && !cl) {
    /* CUDA: the hardware's conversions (PTX cvt; exact widening, round to
     * nearest even with overflow to inf, NaN kept NaN), a few instructions
     * where the bit algorithm below takes branches in every load and store
     * of a memory-bound pass. */
    hy_strbuf_append(sb,
                     "HY_FN float hy_h2f(unsigned int h) {\n"
                     "  float f;\n  const unsigned short s = (unsigned short)h;\n"
                     "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(s));\n  return f;\n}\n"
                     "HY_FN unsigned int hy_f2h(float f) {\n"
                     "  unsigned short s;\n"
                     "  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(s) : \"f\"(f));\n  return s;\n}\n");
  } else if (storage == HYFFT_F16) {
    hy_strbuf_append(
        sb,
        "HY_FN float hy_h2f(unsigned int h) {\n"
        "  const unsigned int sign = (h & 0x8000u) << 16;\n"
        "  const unsigned int e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
        "  if (e == 0x1fu) return HY_U2F(sign | 0x7f800000u | (m << 13));\n"
        "  if (e != 0u) return HY_U2F(sign | ((e + 112u) << 23) | (m << 13));\n"
        "  /* zero or subnormal: m * 2^-24, exact (a normal f32) */\n"
        "  return HY_U2F(sign | HY_F2U((float)m * 5.9604644775390625e-8f));\n"
        "}\n"
        "HY_FN unsigned int hy_f2h(float f) {\n"
        "  const unsigned int u = HY_F2U(f);\n"
        "  const unsigned int sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;\n"
        "  if (a > 0x7f800000u) {\n"
        "    const unsigned int m = (a >> 13) & 0x3ffu;\n"
        "    return sign | 0x7c00u | (m != 0u ? m : 0x200u);\n"
        "  }\n"
        "  if (a >= 0x477ff000u) return sign | 0x7c00u; /* 65520 and above: inf */\n"
        "  if (a >= 0x38800000u) {\n"
        "    unsigned int r = a - 0x38000000u;\n"
        "    r += 0xfffu + ((r >> 13) & 1u);\n"
        "    return sign | (r >> 13);\n"
        "  }\n"
        "  if (a <= 0x33000000u) return sign;\n"
        "  const unsigned int e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, sh = 126u - e;\n"
        "  const unsigned int rem = m & ((1u << sh) - 1u), hf = 1u << (sh - 1u);\n"
        "  unsigned int q = m >> sh;\n"
        "  if (rem > hf || (rem == hf && (q & 1u) != 0u)) q++;\n"
        "  return sign | q;\n"
        "}\n");
  } else {
    /* bf16: widening is a shift; narrowing rounds to nearest even. CUDA
     * devices of compute capability 8.0 and above have the instruction
     * (PTX cvt.rn.bf16.f32, a NaN stays a NaN); older ones and OpenCL
     * take the bit algorithm. */
    hy_strbuf_append(sb, "HY_FN float hy_h2f(unsigned int h) { return HY_U2F(h << 16); }\n"
                         "HY_FN unsigned int hy_f2h(float f) {\n");
    if (!cl)
      hy_strbuf_append(sb, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
                           "  unsigned short s;\n"
                           "  asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(s) : \"f\"(f));\n"
                           "  return s;\n"
                           "#else\n");
    hy_strbuf_append(sb, "  unsigned int u = HY_F2U(f);\n"
                         "  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;\n"
                         "  u += 0x7fffu + ((u >> 16) & 1u);\n"
                         "  return u >> 16;\n");
    if (!cl) hy_strbuf_append(sb, "#endif\n");
    hy_strbuf_append(sb, "}\n");
  }
  hy_strbuf_append(sb,
                   "HY_FN real2 hy_ld_h(hy_half2 v) { return MK(hy_h2f(v.x), hy_h2f(v.y)); }\n"
                   "HY_FN hy_half2 hy_st_h(real2 v) { return HY_MKH(hy_f2h(v.x), hy_f2h(v.y)); }\n"
                   "HY_FN real hy_ld_s(hy_half1 v) { return hy_h2f(v); }\n"
                   "HY_FN hy_half1 hy_st_s(real v) { return (hy_half1)hy_f2h(v); }\n\n");
}

static int hy_cg_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Index of the bracket or parenthesis closing the one at `open`, or -1. */
static long hy_cg_closing(const char *t, size_t len, size_t open) {
  int depth = 0;
  for (size_t i = open; i < len; i++) {
    if (t[i] == '[' || t[i] == '(') depth++;
    else if (t[i] == ']' || t[i] == ')') {
      if (--depth == 0) return (long)i;
    }
  }
  return -1;
}

/* End of the expression starting at `from`: the `;` at depth 0. */
static long hy_cg_statement_end(const char *t, size_t len, size_t from) {
  int depth = 0;
  for (size_t i = from; i < len; i++) {
    if (t[i] == '[' || t[i] == '(') depth++;
    else if (t[i] == ']' || t[i] == ')') depth--;
    else if (t[i] == ';' && depth == 0) return (long)i;
  }
  return -1;
}

typedef struct hy_cg_rw {
  const char *names[2];
  int scalar[2]; /* declared `real *` (a real end: one half an element) */
  int nnames;
  int bad; /* a use of a half buffer that is neither a read nor a store */
  /* 1: the callback rewrite (hy_cg_callback_kernel): reads of a name with
   * role 'l' become hy_load_cb calls, stores to a name with role 's'
   * hy_store_cb calls (hy_load_cb2/hy_store_cb2 where a real end is
   * declared real2: reals viewed as complex pairs); the other uses, and a
   * complex end declared `real *`, are bad. 0: the half-precision
   * rewrite. */
  int cb;
  char role[2];
  int realend[2]; /* the name is a real end (R2C's input, C2R's output) */
} hy_cg_rw;

/* The name of a half buffer starting at t[i] (whole identifier), or -1. */
static int hy_cg_half_name(const hy_cg_rw *rw, const char *t, size_t len, size_t i) {
  if (i > 0 && hy_cg_ident_char(t[i - 1])) return -1;
  for (int k = 0; k < rw->nnames; k++) {
    size_t n = strlen(rw->names[k]);
    if (i + n <= len && memcmp(t + i, rw->names[k], n) == 0 &&
        (i + n == len || !hy_cg_ident_char(t[i + n])))
      return k;
  }
  return -1;
}

/* Append t[0, len) rewritten (see the file's comment). */
static void hy_cg_rewrite(hy_cg_rw *rw, hy_strbuf *sb, const char *t, size_t len) {
  size_t i = 0, copied = 0;
  while (i < len) {
    /* A parameter declaration "real2 *name" or "real *name". */
    for (int sc = 0; sc < 2; sc++) {
      const char *decl = sc ? "real *" : "real2 *";
      size_t dl = strlen(decl);
      int k = len - i > dl && memcmp(t + i, decl, dl) == 0 &&
                      (i == 0 || !hy_cg_ident_char(t[i - 1]))
                  ? hy_cg_half_name(rw, t, len, i + dl)
                  : -1;
      if (k < 0) continue;
      rw->scalar[k] = sc;
      if (rw->cb) {
        /* The declaration stays; only a real end is declared `real *`. */
        if (sc && !rw->realend[k]) rw->bad = 1;
        i += dl;
        break;
      }
      hy_strbuf_appendf(sb, "%.*s%s *", (int)(i - copied), t + copied, sc ? "hy_half1" : "hy_half2");
      i += dl;
      copied = i;
      break;
    }
    int k = hy_cg_half_name(rw, t, len, i);
    if (k < 0) {
      i++;
      continue;
    }
    size_t n = strlen(rw->names[k]);
    long close = i + n < len && t[i + n] == '[' ? hy_cg_closing(t, len, i + n) : -1;
    if (close < 0) {
      /* The name in its (rewritten) declaration, or a bare use. */
      if (i > 0 && t[i - 1] == '*') {
        i += n;
        continue;
      }
      rw->bad = 1;
      i += n;
      continue;
    }
    hy_strbuf_appendf(sb, "%.*s", (int)(i - copied), t + copied);
    size_t a0 = i + n + 1, a1 = (size_t)close, j = a1 + 1;
    while (j < len && t[j] == ' ') j++;
    int store = j < len && t[j] == '=' && (j + 1 >= len || t[j + 1] != '=');
    if (j + 1 < len && strchr("+-*/", t[j]) && t[j + 1] == '=') rw->bad = 1;
    if (store) {
      long end = hy_cg_statement_end(t, len, j + 1);
      if (end < 0) {
        rw->bad = 1;
        end = (long)len;
      }
      size_t e0 = j + 1;
      while (e0 < (size_t)end && t[e0] == ' ') e0++;
      if (rw->cb) {
        if (rw->role[k] != 's') rw->bad = 1;
        hy_strbuf_appendf(sb, "%s(%s, ", rw->realend[k] && !rw->scalar[k] ? "hy_store_cb2" : "hy_store_cb",
                          rw->names[k]);
        hy_cg_rewrite(rw, sb, t + a0, a1 - a0);
        hy_strbuf_append(sb, ", ");
        hy_cg_rewrite(rw, sb, t + e0, (size_t)end - e0);
        hy_strbuf_append(sb, ", hy_store_user)");
        i = copied = (size_t)end;
        continue;
      }
      hy_strbuf_appendf(sb, "%s[", rw->names[k]);
      hy_cg_rewrite(rw, sb, t + a0, a1 - a0);
      hy_strbuf_append(sb, rw->scalar[k] ? "] = hy_st_s(" : "] = hy_st_h(");
      hy_cg_rewrite(rw, sb, t + e0, (size_t)end - e0);
      hy_strbuf_append(sb, ")");
      i = copied = (size_t)end;
    } else if (rw->cb) {
      if (rw->role[k] != 'l') rw->bad = 1;
      hy_strbuf_appendf(sb, "%s(%s, ", rw->realend[k] && !rw->scalar[k] ? "hy_load_cb2" : "hy_load_cb",
                        rw->names[k]);
      hy_cg_rewrite(rw, sb, t + a0, a1 - a0);
      hy_strbuf_append(sb, ", hy_load_user)");
      i = copied = a1 + 1;
    } else {
      hy_strbuf_appendf(sb, "%s(%s[", rw->scalar[k] ? "hy_ld_s" : "hy_ld_h", rw->names[k]);
      hy_cg_rewrite(rw, sb, t + a0, a1 - a0);
      hy_strbuf_append(sb, "])");
      i = copied = a1 + 1;
    }
  }
  hy_strbuf_appendf(sb, "%.*s", (int)(len - copied), t + copied);
}

static int hy_cg_caller_buffer(hy_buffer b) { return b == HY_BUF_IN || b == HY_BUF_OUT; }

hy_status hy_cg_storage_kernel(const hy_problem *problem, const hy_pass *pass, hy_strbuf *sb,
                               size_t begin) {
  if (!hy_precision_is_half(problem->storage)) return HYFFT_SUCCESS;
  if (problem->kind == HYFFT_R2R || pass->precision != HYFFT_F32)
    return hy_error(HYFFT_INTERNAL, "codegen: half-precision storage of a %s pass",
                    problem->kind == HYFFT_R2R ? "r2r" : "non-f32");
  HY_TRY(hy_strbuf_status(sb));
  hy_cg_rw rw = {{NULL, NULL}, {0, 0}, 0, 0, 0, {0, 0}, {0, 0}};
  if (hy_cg_caller_buffer(pass->src)) rw.names[rw.nnames++] = "src";
  if (hy_cg_caller_buffer(pass->dst)) rw.names[rw.nnames++] = "dst";
  if (rw.nnames == 0) return HYFFT_SUCCESS;
  size_t len = sb->len - begin;
  char *text = hy_malloc(len + 1);
  if (!text) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: half-precision rewrite (%zu bytes)", len);
  memcpy(text, sb->data + begin, len);
  text[len] = '\0';
  sb->len = begin;
  sb->data[begin] = '\0';
  hy_cg_rewrite(&rw, sb, text, len);
  hy_free(text);
  if (rw.bad)
    return hy_error(HYFFT_INTERNAL, "codegen: a kernel uses a half-precision buffer other than "
                                    "by reading or storing an element");
  return hy_strbuf_status(sb);
}

/* ---- load and store callbacks (hyfft_callbacks) ----
 *
 * The same rewrite routes a kernel's use of the caller's buffers through
 * the user's callbacks: in the pass that reads the caller's input (the
 * first), a read `src[i]` becomes `hy_load_cb(src, i, hy_load_user)`; in
 * the pass that writes the caller's output (the last), a store
 * `dst[i] = v;` becomes `hy_store_cb(dst, i, v, hy_store_user);`. The index
 * is the element's offset in the caller's buffer, as the kernel computes
 * it. The kernel takes the user pointers as extra parameters after
 * hy_block0, and its launches pass the buffers HY_BUF_LOAD_USER and
 * HY_BUF_STORE_USER there. Passes in between, and the stores and loads
 * of intermediates that a pass keeps in the caller's buffers, are left as
 * they are. The callbacks themselves are functions of the prelude, the
 * snippet preceded by `#line 1 "load_callback"` (or "store_callback") so
 * that a compiler's messages name the snippet's own lines. */

static void hy_cg_count_lines(const hy_strbuf *sb, long *lines) {
  long n = 1;
  for (size_t i = 0; i < sb->len; i++) n += sb->data[i] == '\n';
  *lines = n;
}

void hy_cg_callback_preamble(hy_strbuf *sb, hy_dialect dialect, const hy_problem *problem) {
  if (!problem->load_cb && !problem->store_cb) return;
  hy_strbuf_appendf(sb, "/* User callbacks (hyfft_callbacks, cg_storage.c). */\n"
                        "#define HY_GLOBAL %s\n",
                    dialect == HY_DIALECT_OPENCL ? "__global" : "");
  for (int s = 0; s < 2; s++) {
    const char *text = s ? problem->store_cb : problem->load_cb;
    if (!text) continue;
    /* R2C's input and C2R's output are reals: the callback takes one. */
    const char *t = (s ? problem->kind == HYFFT_C2R : problem->kind == HYFFT_R2C) ? "real" : "real2";
    if (s)
      hy_strbuf_appendf(sb, "HY_FN void hy_store_cb(HY_GLOBAL %s *out, hy_i64 index, "
                            "%s value, HY_GLOBAL void *user) {\n#line 1 \"store_callback\"\n",
                        t, t);
    else
      hy_strbuf_appendf(sb, "HY_FN %s hy_load_cb(const HY_GLOBAL %s *in, hy_i64 index, "
                            "HY_GLOBAL void *user) {\n#line 1 \"load_callback\"\n", t, t);
    hy_strbuf_append(sb, text);
    long lines;
    hy_cg_count_lines(sb, &lines);
    /* Back to the program's own numbering after the snippet. */
    hy_strbuf_appendf(sb, "\n}\n#line %ld \"hyfft\"\n", lines + 3);
    if (t[4] == '2') continue;
    /* A kernel that views the real buffer as complex pairs reads or
     * writes reals 2i and 2i+1 through element i. */
    if (s)
      hy_strbuf_append(sb, "HY_FN void hy_store_cb2(HY_GLOBAL real2 *out, hy_i64 index, "
                           "real2 value, HY_GLOBAL void *user) {\n"
                           "  hy_store_cb((HY_GLOBAL real *)out, 2 * index, value.x, user);\n"
                           "  hy_store_cb((HY_GLOBAL real *)out, 2 * index + 1, value.y, user);\n"
                           "}\n");
    else
      hy_strbuf_append(sb, "HY_FN real2 hy_load_cb2(const HY_GLOBAL real2 *in, hy_i64 index, "
                           "HY_GLOBAL void *user) {\n"
                           "  return MK(hy_load_cb((const HY_GLOBAL real *)in, 2 * index, user),\n"
                           "            hy_load_cb((const HY_GLOBAL real *)in, 2 * index + 1, "
                           "user));\n}\n");
  }
  hy_strbuf_append(sb, "\n");
}

hy_status hy_cg_callback_kernel(const hy_problem *problem, const hy_plan_tree *tree,
                                int pass_index, hy_gpu_program *prog, int kernel, size_t begin) {
  if (!problem->load_cb && !problem->store_cb) return HYFFT_SUCCESS;
  hy_strbuf *sb = &prog->source;
  HY_TRY(hy_strbuf_status(sb));
  const hy_pass *pass = &tree->passes[pass_index];
  int caller_src = hy_cg_caller_buffer(pass->src), caller_dst = hy_cg_caller_buffer(pass->dst);
  int load = problem->load_cb && pass_index == 0;
  int store = problem->store_cb && pass_index == tree->npasses - 1;
  if (load && !caller_src)
    return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: the plan's first pass reads %s, not the "
                    "caller's input, so no pass could apply the load callback once per element",
                    pass->src == HY_BUF_WORK0 ? "work0" : "work1");
  /* A later pass that reads the caller's input before any pass wrote
   * there reads input elements that the load callback did not see
   * (intermediates a pass keeps there, as with HYFFT_DESTROY_INPUT or in
   * place, are another matter). */
  int reads_input = problem->inplace ? caller_src : pass->src == HY_BUF_IN;
  if (problem->load_cb && pass_index > 0 && reads_input) {
    int written = 0;
    for (int j = 0; j < pass_index; j++) {
      hy_buffer d = tree->passes[j].dst;
      written |= problem->inplace ? hy_cg_caller_buffer(d) : d == HY_BUF_IN;
    }
    if (!written)
      return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: pass %d reads the caller's input as "
                      "given; the load callback applies in the first pass only", pass_index);
  }
  if (store && !caller_dst)
    return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: the plan's last pass writes a work buffer, "
                    "not the caller's output");
  if (!load && !store) return HYFFT_SUCCESS;
  hy_cg_rw rw = {{NULL, NULL}, {0, 0}, 0, 0, 1, {0, 0}, {0, 0}};
  if (load) {
    rw.role[rw.nnames] = 'l';
    rw.realend[rw.nnames] = problem->kind == HYFFT_R2C;
    rw.names[rw.nnames++] = "src";
  }
  if (store) {
    rw.role[rw.nnames] = 's';
    rw.realend[rw.nnames] = problem->kind == HYFFT_C2R;
    rw.names[rw.nnames++] = "dst";
  }
  size_t len = sb->len - begin;
  char *text = hy_malloc(len + 1);
  if (!text) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: callback rewrite (%zu bytes)", len);
  memcpy(text, sb->data + begin, len);
  text[len] = '\0';
  /* The user pointers join the parameters after hy_block0, the last. */
  const char *param = "const hy_i64 hy_block0)";
  const char *at = strstr(text, param);
  if (!at) {
    hy_free(text);
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d's kernel has no hy_block0 parameter",
                    pass_index);
  }
  size_t cut = (size_t)(at - text) + strlen(param) - 1;
  sb->len = begin;
  sb->data[begin] = '\0';
  hy_cg_rewrite(&rw, sb, text, cut);
  const char *g = hy_cg_global(prog->dialect);
  if (load) hy_strbuf_appendf(sb, ", %svoid *hy_load_user", g);
  if (store) hy_strbuf_appendf(sb, ", %svoid *hy_store_user", g);
  hy_cg_rewrite(&rw, sb, text + cut, len - cut);
  hy_free(text);
  if (rw.bad)
    return hy_error(HYFFT_NOT_SUPPORTED, "callbacks: pass %d's kernel (%s) uses the caller's "
                    "buffer other than by reading or storing one complex element; it cannot take "
                    "the callbacks", pass_index, prog->names[kernel]);
  for (int l = 0; l < prog->nlaunches; l++) {
    hy_launch *L = &prog->launches[l];
    if (L->kernel != kernel) continue;
    if (L->nargs + load + store > HY_MAX_KERNEL_ARGS)
      return hy_error(HYFFT_INTERNAL, "codegen: too many kernel arguments with callbacks");
    if (load) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, HY_BUF_LOAD_USER};
    if (store) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, HY_BUF_STORE_USER};
  }
  return hy_strbuf_status(sb);
}
