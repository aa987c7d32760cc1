/* The generator's half-precision storage (codegen/cg_storage.c), on the
 * programs an H100 would get (no GPU or compiler needed; compiling them is
 * cuda.nvrtc_half's job, running them accuracy.opencl.half's):
 *   - f32, f16 and bf16 programs of one shape differ in source, so every
 *     kernel cache (keyed by the source) keeps them apart;
 *   - in a half program no kernel declares the caller's buffers as f32
 *     (`real2 *src`, `real *dst`, ...) where the pass touches them, every
 *     pass that reads the input converts (hy_ld_h/hy_ld_s) and every pass
 *     that writes the output converts (hy_st_h/hy_st_s), and work buffers
 *     keep f32 (a pass from WORK0 to WORK0 has no conversion);
 *   - the planner marks every pass of a half plan persist=0 (the
 *     persistent kernel is not rewritten), so `hyfft plan` prints what runs;
 *   - the f32 program is the one of before (no conversion in it). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"
#include "planner/planner.h"
#include "../backend/cuda/h100_caps.h"

static int make(const char *token, hy_dialect dialect, hy_plan_tree *tree, hy_gpu_program *prog) {
  hyfft_problem user;
  hy_problem prob;
  if (hy_token_parse(token, &user) != HYFFT_SUCCESS || hy_problem_make(&user, &prob) != HYFFT_SUCCESS) {
    CHECK(0, "%s: not a problem: %s", token, hyfft_last_error());
    return 0;
  }
  hy_device_caps caps = hy_h100_caps();
  memset(prog, 0, sizeof *prog);
  hy_status st = hy_planner_plan(&prob, &caps, 0, tree);
  if (st == HYFFT_SUCCESS) st = hy_codegen_plan(&prob, tree, &caps, dialect, prog);
  CHECK(st == HYFFT_SUCCESS, "%s: %s", token, hyfft_last_error());
  return st == HYFFT_SUCCESS;
}

/* Whether kernel k's text holds `what`. */
static int kernel_has(const hy_gpu_program *p, int k, const char *what) {
  size_t n = p->kernel_end[k] - p->kernel_begin[k], w = strlen(what);
  const char *t = p->source.data + p->kernel_begin[k];
  for (size_t i = 0; i + w <= n; i++)
    if (memcmp(t + i, what, w) == 0) return 1;
  return 0;
}

static void check_half(const char *token, hy_dialect dialect) {
  hy_plan_tree tree;
  hy_gpu_program prog;
  if (!make(token, dialect, &tree, &prog)) return;
  CHECK(strstr(prog.source.data, "hy_half2") != NULL, "%s: no half type in the prelude", token);
  for (int k = 0; k < prog.nkernels && k < tree.npasses; k++) {
    const hy_pass *pass = &tree.passes[k];
    CHECK(pass->spec.persist == 0, "%s: pass %d may run persistent (persist=%d)", token, k,
          pass->spec.persist);
    int reads_in = pass->src == HY_BUF_IN || pass->src == HY_BUF_OUT;
    int writes_out = pass->dst == HY_BUF_IN || pass->dst == HY_BUF_OUT;
    CHECK(!reads_in || (!kernel_has(&prog, k, "real2 *src") && !kernel_has(&prog, k, "real *src")),
          "%s: kernel %d declares the caller's input as f32", token, k);
    CHECK(!writes_out || (!kernel_has(&prog, k, "real2 *dst") && !kernel_has(&prog, k, "real *dst")),
          "%s: kernel %d declares the caller's output as f32", token, k);
    CHECK(!reads_in || kernel_has(&prog, k, "hy_ld_h(src[") || kernel_has(&prog, k, "hy_ld_s(src["),
          "%s: kernel %d reads the input without converting", token, k);
    CHECK(!writes_out || kernel_has(&prog, k, "= hy_st_h(") || kernel_has(&prog, k, "= hy_st_s("),
          "%s: kernel %d writes the output without converting", token, k);
    if (!reads_in && !writes_out)
      CHECK(!kernel_has(&prog, k, "hy_ld_") && !kernel_has(&prog, k, "hy_st_"),
            "%s: kernel %d converts a work buffer", token, k);
  }
  hy_gpu_program_free(&prog);
}

static void check_distinct(const char *shape) {
  static const char *const prec[3] = {"f32", "f16", "bf16"};
  uint64_t h[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) {
    char token[96];
    snprintf(token, sizeof token, "c2c:%s:fwd:%s", prec[i], shape);
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!make(token, HY_DIALECT_CUDA, &tree, &prog)) return;
    h[i] = prog.hash;
    if (i == 0)
      CHECK(strstr(prog.source.data, "hy_ld_") == NULL && strstr(prog.source.data, "hy_half") == NULL,
            "%s: an f32 program converts", token);
    hy_gpu_program_free(&prog);
  }
  CHECK(h[0] != h[1] && h[0] != h[2] && h[1] != h[2], "c2c:*:fwd:%s: programs of f32/f16/bf16 "
        "share a hash", shape);
}

int main(void) {
  static const char *const tokens[] = {
      "c2c:f16:fwd:1024:b64",    "c2c:bf16:bwd:97:b8",       "c2c:f16:fwd:4099",
      "c2c:bf16:fwd:65537:b3",   "c2c:f16:fwd:65536:b1024",  "c2c:bf16:bwd:1048576:b64:ip",
      "c2c:f16:fwd:100x100:b8",  "c2c:bf16:fwd:64x64x64",    "c2c:f16:fwd:1:b8:scale=0.5",
      "r2c:f16:1024",            "c2r:bf16:4096:b64",        "r2c:f16:512x512",
      "c2r:f16:256x256:ip",      "r2c:bf16:1000",            "c2r:f16:4097",
  };
  for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
    check_half(tokens[i], HY_DIALECT_CUDA);
    check_half(tokens[i], HY_DIALECT_OPENCL);
  }
  check_distinct("1024:b64");
  check_distinct("256x256");
  return hy_test_summary();
}
