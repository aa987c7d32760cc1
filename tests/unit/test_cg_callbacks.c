/* The generator's load and store callbacks (codegen/cg_storage.c,
 * hy_cg_callback_kernel), on the programs an H100 would get, in both
 * dialects (no GPU or compiler needed; compiling them is
 * cuda.nvrtc_callbacks' job, running them accuracy.*.callbacks'):
 *   - the snippets sit in the prelude behind `#line 1 "load_callback"`
 *     (`"store_callback"`), so a compiler's log names their own lines;
 *   - only the first kernel loads through hy_load_cb and none of its reads
 *     of src is left plain; only the last kernel stores through
 *     hy_store_cb and none of its stores to dst is left plain; each takes
 *     its user pointer as a parameter and its launches pass the buffer
 *     HY_BUF_LOAD_USER / HY_BUF_STORE_USER;
 *   - every pass is persist=0 and the program is one kernel per pass;
 *   - another snippet gives another program hash (the caches' key), and
 *     the program without callbacks has no trace of them;
 *   - trees on which a callback could not apply once per element are
 *     refused with HYFFT_NOT_SUPPORTED (first pass not reading the input,
 *     a later pass reading it again, a last pass writing a work buffer). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"
#include "planner/planner.h"
#include "../backend/cuda/h100_caps.h"

static const char *const load_snippet =
    "const HY_GLOBAL real *w = (const HY_GLOBAL real *)user;\n"
    "real2 v = in[index];\n"
    "return MK(v.x * w[index], v.y * w[index]);\n";
static const char *const store_snippet = "out[index] = cscale(value, (real)0.5);\n";

static int kernel_has(const hy_gpu_program *p, int k, const char *what) {
  size_t n = p->kernel_end[k] - p->kernel_begin[k], w = strlen(what);
  const char *t = p->source.data + p->kernel_begin[k];
  for (size_t i = 0; i + w <= n; i++)
    if (memcmp(t + i, what, w) == 0) return 1;
  return 0;
}

static int launch_has(const hy_gpu_program *p, int k, int buffer) {
  int all = 1, any = 0;
  for (int l = 0; l < p->nlaunches; l++) {
    if (p->launches[l].kernel != k) continue;
    int has = 0;
    for (int a = 0; a < p->launches[l].nargs; a++)
      has |= p->launches[l].args[a].kind == HY_ARG_BUFFER && p->launches[l].args[a].index == buffer;
    all &= has;
    any |= has;
  }
  return all ? 1 : any ? -1 : 0;
}

/* Tokens ending in "+destroy" plan with HYFFT_DESTROY_INPUT (multi-
 * dimensional C2R then runs its later axes in place on the input). */
static int plan(const char *token, const char *load, const char *store, hy_problem *prob,
                hy_plan_tree *tree) {
  hyfft_problem user;
  char tok[128];
  snprintf(tok, sizeof tok, "%s", token);
  char *plus = strchr(tok, '+');
  if (plus) *plus = '\0';
  if (hy_token_parse(tok, &user) != HYFFT_SUCCESS || hy_problem_make(&user, prob) != HYFFT_SUCCESS) {
    CHECK(0, "%s: not a problem: %s", token, hyfft_last_error());
    return 0;
  }
  if (plus && !prob->inplace) prob->destroy_input = 1;
  prob->load_cb = load;
  prob->store_cb = store;
  hy_device_caps caps = hy_h100_caps();
  hy_status st = hy_planner_plan(prob, &caps, 0, tree);
  CHECK(st == HYFFT_SUCCESS, "%s: planner: %s", token, hyfft_last_error());
  return st == HYFFT_SUCCESS;
}

static void check_token(const char *token, hy_dialect dialect) {
  hy_problem prob;
  hy_plan_tree tree;
  if (!plan(token, load_snippet, store_snippet, &prob, &tree)) return;
  hy_device_caps caps = hy_h100_caps();
  hy_gpu_program prog;
  memset(&prog, 0, sizeof prog);
  hy_status st = hy_codegen_plan(&prob, &tree, &caps, dialect, &prog);
  CHECK(st == HYFFT_SUCCESS, "%s: codegen: %s", token, hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  const char *src = prog.source.data;
  const char *line1 = strstr(src, "#line 1 \"load_callback\"\n");
  CHECK(line1 && strncmp(line1 + strlen("#line 1 \"load_callback\"\n"), load_snippet,
                         strlen(load_snippet)) == 0,
        "%s: the load snippet does not follow #line 1 \"load_callback\"", token);
  CHECK(strstr(src, "#line 1 \"store_callback\"\n") != NULL, "%s: no store_callback #line", token);
  CHECK(line1 && (size_t)(line1 - src) < prog.prelude_end, "%s: the snippet is not in the prelude",
        token);
  CHECK(prog.nkernels == tree.npasses, "%s: %d kernels for %d passes", token, prog.nkernels,
        tree.npasses);
  int last = prog.nkernels - 1;
  for (int k = 0; k < prog.nkernels && k < tree.npasses; k++) {
    CHECK(tree.passes[k].spec.persist == 0, "%s: pass %d persist=%d", token, k,
          tree.passes[k].spec.persist);
    int load = k == 0, store = k == last;
    /* A real end viewed as complex pairs goes through hy_load_cb2/hy_store_cb2. */
    int loads = kernel_has(&prog, k, "hy_load_cb(src, ") || kernel_has(&prog, k, "hy_load_cb2(src, ");
    int stores = kernel_has(&prog, k, "hy_store_cb(dst, ") || kernel_has(&prog, k, "hy_store_cb2(dst, ");
    CHECK(loads == load, "%s: kernel %d load callback", token, k);
    CHECK(kernel_has(&prog, k, "hy_load_user") == load, "%s: kernel %d load parameter", token, k);
    CHECK(launch_has(&prog, k, HY_BUF_LOAD_USER) == load, "%s: kernel %d load launch argument",
          token, k);
    CHECK(stores == store, "%s: kernel %d store callback", token, k);
    CHECK(kernel_has(&prog, k, "hy_store_user") == store, "%s: kernel %d store parameter", token, k);
    CHECK(launch_has(&prog, k, HY_BUF_STORE_USER) == store, "%s: kernel %d store launch argument",
          token, k);
    if (load) CHECK(!kernel_has(&prog, k, "src["), "%s: kernel 0 reads src plainly", token);
    if (store) CHECK(!kernel_has(&prog, k, "dst["), "%s: the last kernel stores dst plainly", token);
  }
  /* Another store snippet: another hash. No callbacks: none in the text. */
  hy_problem other = prob;
  other.store_cb = "out[index] = cscale(value, (real)0.25);\n";
  hy_gpu_program p2;
  memset(&p2, 0, sizeof p2);
  if (hy_codegen_plan(&other, &tree, &caps, dialect, &p2) == HYFFT_SUCCESS)
    CHECK(p2.hash != prog.hash, "%s: two snippets, one hash", token);
  hy_gpu_program_free(&p2);
  hy_problem plain;
  hy_plan_tree plain_tree;
  if (plan(token, NULL, NULL, &plain, &plain_tree)) {
    memset(&p2, 0, sizeof p2);
    if (hy_codegen_plan(&plain, &plain_tree, &caps, dialect, &p2) == HYFFT_SUCCESS) {
      CHECK(strstr(p2.source.data, "hy_load_cb") == NULL && strstr(p2.source.data, "HY_GLOBAL") == NULL,
            "%s: a plan without callbacks mentions them", token);
      CHECK(p2.hash != prog.hash, "%s: callbacks or not, one hash", token);
    }
    hy_gpu_program_free(&p2);
  }
  hy_gpu_program_free(&prog);
}

/* A tree changed so that a callback could not apply once per element. */
static void check_refused(const char *token, const char *what, int pass, int src, int dst) {
  hy_problem prob;
  hy_plan_tree tree;
  if (!plan(token, load_snippet, store_snippet, &prob, &tree)) return;
  if (pass < 0) pass += tree.npasses;
  if (pass < 0 || pass >= tree.npasses) {
    CHECK(0, "%s: no pass %d", token, pass);
    return;
  }
  if (src >= 0) tree.passes[pass].src = (hy_buffer)src;
  if (dst >= 0) tree.passes[pass].dst = (hy_buffer)dst;
  hy_device_caps caps = hy_h100_caps();
  hy_gpu_program prog;
  memset(&prog, 0, sizeof prog);
  hy_status st = hy_codegen_plan(&prob, &tree, &caps, HY_DIALECT_OPENCL, &prog);
  CHECK(st == HYFFT_NOT_SUPPORTED, "%s (%s): %s", token, what, hyfft_status_name(st));
  if (st == HYFFT_SUCCESS) hy_gpu_program_free(&prog);
}

int main(void) {
  static const char *const tokens[] = {
      "c2c:f32:fwd:64",          "c2c:f64:bwd:60:b3",        "c2c:f32:fwd:65536:b1024",
      "c2c:f32:bwd:1048576:b64:ip", "c2c:f64:fwd:65537",     "c2c:f32:fwd:4099:b3",
      "c2c:f32:fwd:1024x1024",   "c2c:f64:bwd:64x64x64:ip",  "c2c:f32:fwd:97",
      "c2c:f32:fwd:1:b8",        "c2c:f32:fwd:16777216",     "r2c:f32:1024",
      "r2c:f64:512x512:ip",      "c2r:f32:4096:b64",         "c2r:f64:256x256",
      "c2r:f32:64x48x40+destroy", "r2c:f32:97",              "c2r:f32:1000000",
  };
  for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
    check_token(tokens[i], HY_DIALECT_OPENCL);
    check_token(tokens[i], HY_DIALECT_CUDA);
  }
  check_refused("c2c:f32:fwd:1024x1024", "first pass reads work0", 0, HY_BUF_WORK0, -1);
  check_refused("c2c:f32:fwd:1024x1024", "a later pass reads the input", 1, HY_BUF_IN, -1);
  check_refused("c2c:f32:fwd:1024x1024+destroy", "a later pass reads the input", 1, HY_BUF_IN, -1);
  check_refused("c2c:f32:fwd:1024x1024", "the last pass writes work0", -1, -1, HY_BUF_WORK0);
  return hy_test_summary();
}
