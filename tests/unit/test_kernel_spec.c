/* The kernel-spec key table (parse, check, print, the tuner's variants)
 * and the planner as the one place that decides what runs: the tree of a
 * GPU plan records Rader where the generator builds Rader, every pass's
 * switches, and the generator refuses a tree the planner did not finish. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "util/settings.h"
#include "../backend/cuda/h100_caps.h"

static void describe(const hy_plan_tree *tree, char *out, size_t size) {
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_plan_tree_describe(tree, &sb);
  snprintf(out, size, "%s", sb.data ? sb.data : "");
  hy_strbuf_free(&sb);
}

int main(void) {
  unsetenv("HYFFT_KERNEL_SPEC");
  unsetenv("HYFFT_RADER");
  hy_settings_reload();
  /* Checking: well formed, known keys, values in range. */
  CHECK_OK(hy_kernel_spec_check(""));
  CHECK_OK(hy_kernel_spec_check("threads=64,transforms=4,tworadix=32,tworadix=0"));
  CHECK_STATUS(hy_kernel_spec_check("thread=64"), HYFFT_INVALID_ARGUMENT);
  CHECK(strstr(hyfft_last_error(), "unknown key 'thread'") != NULL, "%s", hyfft_last_error());
  CHECK_STATUS(hy_kernel_spec_check("pad=9"), HYFFT_INVALID_ARGUMENT);
  CHECK(strstr(hyfft_last_error(), "pad takes 0..8") != NULL, "%s", hyfft_last_error());
  CHECK_STATUS(hy_kernel_spec_check("tworadix=12"), HYFFT_INVALID_ARGUMENT);
  CHECK_STATUS(hy_kernel_spec_check("pad=1;split=0"), HYFFT_INVALID_ARGUMENT);
  CHECK_STATUS(hy_kernel_spec_check("pad"), HYFFT_INVALID_ARGUMENT);
  for (int v = 0; hy_spec_tune_variants[v]; v++)
    CHECK_OK(hy_kernel_spec_check(hy_spec_tune_variants[v]));

  /* Applying: absolute and relative keys, out-of-range values skipped. */
  hy_kernel_spec s;
  memset(&s, 0, sizeof s);
  s.threads_per_transform = 16;
  s.transforms_per_block = 8;
  hy_kernel_spec_apply(&s, "tmul=2,mdiv=4,pad=3,split=7,ftwsin=2,mdiv=16");
  CHECK(s.threads_per_transform == 32 && s.transforms_per_block == 2 && s.lds_pad == 3 &&
            s.split_exchange == 0 && s.ftw_sincos == 2,
        "applied: threads %d transforms %d pad %d split %d ftwsin %d", s.threads_per_transform,
        s.transforms_per_block, s.lds_pad, s.split_exchange, s.ftw_sincos);
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_kernel_spec_describe(&s, &sb);
  CHECK(sb.data && strstr(sb.data, "threads=32 transforms=2") && strstr(sb.data, "ftwsin=2") &&
            !strstr(sb.data, "tmul"),
        "describe: %s", sb.data ? sb.data : "(empty)");
  hy_strbuf_free(&sb);

  /* The tree says Rader where Rader runs (97 = 1 + 32*3 on a GPU), and
   * Bluestein where the variant rader=0 asks for it. */
  hy_device_caps caps = hy_h100_caps();
  hyfft_problem user;
  hy_problem prob;
  hy_plan_tree tree;
  char text[4096];
  CHECK_OK(hy_token_parse("c2c:f32:fwd:97:b64", &user));
  CHECK_OK(hy_problem_make(&user, &prob));
  CHECK_OK(hy_planner_plan(&prob, &caps, 0, &tree));
  CHECK(tree.specs_ready && tree.passes[0].algo == HY_ALGO_RADER, "97: algo %d, specs %d",
        (int)tree.passes[0].algo, tree.specs_ready);
  describe(&tree, text, sizeof text);
  CHECK(strstr(text, "rader m=96") && strstr(text, "kernel split="), "97 describes as:\n%s", text);
  CHECK_OK(hy_planner_set_variant(&prob, &caps, &tree, "rader=0"));
  CHECK(tree.passes[0].algo == HY_ALGO_BLUESTEIN, "97 rader=0: algo %d", (int)tree.passes[0].algo);
  CHECK_OK(hy_planner_set_variant(&prob, &caps, &tree, "rader=1,tmul=2"));
  CHECK(tree.passes[0].algo == HY_ALGO_RADER, "97 rader=1: algo %d", (int)tree.passes[0].algo);
  CHECK_STATUS(hy_planner_set_variant(&prob, &caps, &tree, "rader=2"), HYFFT_INVALID_ARGUMENT);
  /* $HYFFT_KERNEL_SPEC is read when the planner plans. */
  setenv("HYFFT_KERNEL_SPEC", "rader=0", 1);
  hy_settings_reload();
  CHECK_OK(hy_planner_plan(&prob, &caps, 0, &tree));
  CHECK(tree.passes[0].algo == HY_ALGO_BLUESTEIN, "HYFFT_KERNEL_SPEC=rader=0: algo %d",
        (int)tree.passes[0].algo);
  unsetenv("HYFFT_KERNEL_SPEC");
  hy_settings_reload();

  /* The CPU takes no kernel specs, but the planner picks Rader for its
   * primes too (wherever p - 1 factors into the engine's radices), and
   * $HYFFT_RADER=0 keeps Bluestein. */
  hy_device_caps cpu = caps;
  cpu.backend = HYFFT_BACKEND_CPU;
  CHECK_OK(hy_planner_plan(&prob, &cpu, 0, &tree));
  CHECK(!tree.specs_ready && tree.passes[0].algo == HY_ALGO_RADER &&
            tree.passes[0].bluestein_m == 96,
        "cpu: algo %d specs %d m %lld", (int)tree.passes[0].algo, tree.specs_ready,
        (long long)tree.passes[0].bluestein_m);
  setenv("HYFFT_RADER", "0", 1);
  hy_settings_reload();
  CHECK_OK(hy_planner_plan(&prob, &cpu, 0, &tree));
  CHECK(!tree.specs_ready && tree.passes[0].algo == HY_ALGO_BLUESTEIN,
        "cpu, HYFFT_RADER=0: algo %d specs %d", (int)tree.passes[0].algo, tree.specs_ready);
  unsetenv("HYFFT_RADER");
  hy_settings_reload();

  /* A tree the planner did not finish is refused by the generator. */
  CHECK_OK(hy_planner_plan(&prob, &caps, 0, &tree));
  tree.specs_ready = 0;
  hy_gpu_program prog;
  CHECK_STATUS(hy_codegen_plan(&prob, &tree, &caps, HY_DIALECT_CUDA, &prog), HYFFT_INTERNAL);
  return hy_test_summary();
}
