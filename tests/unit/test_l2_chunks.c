/* The L2 chunk schedule of multi-pass GPU programs (codegen.c): plans for
 * an H100's caps are generated (no GPU or compiler needed) and their
 * launch lists checked. Chunked, every pass's launches must cover its
 * blocks exactly once, in order, and the launches of one chunk must cover
 * the same batch elements in every pass, passes in plan order. Whether the
 * chunked programs compute the right thing is the accuracy suite's job
 * (accuracy.<device>.l2chunks forces tiny chunks on OpenCL). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/settings.h"
#include "check.h"
#include "codegen/codegen.h"
#include "planner/planner.h"
#include "../backend/cuda/h100_caps.h"

static int make_program(const char *token, hy_plan_tree *tree, hy_gpu_program *prog) {
  hyfft_problem user;
  hy_problem prob;
  if (hy_token_parse(token, &user) != HYFFT_SUCCESS || hy_problem_make(&user, &prob) != HYFFT_SUCCESS) {
    CHECK(0, "%s: not a problem: %s", token, hyfft_last_error());
    return 0;
  }
  hy_device_caps caps = hy_h100_caps();
  CHECK_OK(hy_planner_plan(&prob, &caps, 0, tree));
  memset(prog, 0, sizeof *prog);
  CHECK_OK(hy_codegen_plan(&prob, tree, &caps, HY_DIALECT_CUDA, prog));
  return prog->nlaunches > 0;
}

/* Launch list of a chunked program: returns the number of chunks (1 when
 * the plain order), checking coverage and order. */
static int check_schedule(const char *token, const hy_plan_tree *tree, const hy_gpu_program *p,
                          int64_t batch) {
  int passes = tree->npasses;
  CHECK(p->nlaunches % passes == 0, "%s: %d launches for %d passes", token, p->nlaunches, passes);
  if (p->nlaunches % passes) return 0;
  int chunks = p->nlaunches / passes;
  int64_t next[HY_MAX_PASSES] = {0};
  int64_t elements_done = 0;
  for (int c = 0; c < chunks; c++) {
    int64_t first = -1, count = -1;
    for (int i = 0; i < passes; i++) {
      const hy_launch *l = &p->launches[c * passes + i];
      CHECK(l->kernel == i, "%s: chunk %d launch %d runs kernel %d", token, c, i, l->kernel);
      CHECK(l->block_offset == next[i], "%s: chunk %d pass %d starts at block %lld, not %lld",
            token, c, i, (long long)l->block_offset, (long long)next[i]);
      next[i] = l->block_offset + l->grid;
      CHECK(l->args[l->nargs - 1].kind == HY_ARG_BLOCK_OFFSET,
            "%s: the block offset is not the last argument", token);
      if (chunks > 1) {
        CHECK(l->batch_blocks > 0 && l->block_offset % l->batch_blocks == 0 &&
                  l->grid % l->batch_blocks == 0,
              "%s: chunk %d pass %d does not cover whole batch elements", token, c, i);
        if (l->batch_blocks <= 0) continue;
        int64_t f = l->block_offset / l->batch_blocks, n = l->grid / l->batch_blocks;
        if (i == 0) {
          first = f;
          count = n;
        }
        CHECK(f == first && n == count, "%s: chunk %d: pass %d covers elements [%lld, +%lld), "
              "pass 0 [%lld, +%lld)", token, c, i, (long long)f, (long long)n,
              (long long)first, (long long)count);
      }
    }
    if (chunks > 1) {
      CHECK(first == elements_done, "%s: chunk %d starts at element %lld", token, c, (long long)first);
      elements_done = first + count;
    }
  }
  if (chunks > 1)
    CHECK(elements_done == batch, "%s: chunks cover %lld of %lld elements", token,
          (long long)elements_done, (long long)batch);
  /* Every pass's blocks covered once: the total is what one launch needs. */
  for (int i = 0; i < passes; i++) {
    const hy_pass *pass = &tree->passes[i];
    if (pass->op != HY_PASS_DFT) continue;
    int64_t blocks = p->launches[i].batch_blocks > 0 ? p->launches[i].batch_blocks * batch : 0;
    if (blocks) CHECK(next[i] == blocks, "%s: pass %d ran %lld blocks of %lld", token, i,
                      (long long)next[i], (long long)blocks);
  }
  return chunks;
}

static void expect(const char *token, int64_t batch, int want_chunked) {
  hy_plan_tree tree;
  hy_gpu_program prog;
  if (!make_program(token, &tree, &prog)) return;
  int chunks = check_schedule(token, &tree, &prog, batch);
  if (want_chunked)
    CHECK(chunks > 1, "%s: expected an L2-chunked schedule, got %d chunk(s)", token, chunks);
  else
    CHECK(chunks == 1, "%s: expected the plain pass order, got %d chunks", token, chunks);
  printf("  %-34s %d pass(es), %2d launches, %d chunk(s)\n", token, tree.npasses, prog.nlaunches,
         chunks);
  hy_gpu_program_free(&prog);
}

int main(void) {
  /* The default: no plan runs chunked (measured slower on the H100 for
   * every kind that could, kernel_model.c), not even the three in-place
   * passes of 3D batches whose elements fit in half the L2. */
  setenv("HYFFT_L2_CHUNK", "", 1);
  setenv("HYFFT_PLANES", "0", 1); /* 3D as three axis passes */
  hy_settings_reload();
  expect("c2c:f32:fwd:64x64x64:b256", 256, 0);
  expect("c2c:f32:fwd:128x128x128:b32", 32, 0);
  expect("r2c:f32:100x100x100:b64", 64, 0);
  setenv("HYFFT_PLANES", "", 1); /* a plane pass and one axis pass */
  hy_settings_reload();
  expect("c2c:f32:fwd:64x64x64:b256", 256, 0);
  expect("c2c:f32:fwd:1048576:b64", 64, 0);
  expect("c2c:f32:fwd:1024x1024:b64", 64, 0);
  expect("c2c:f32:fwd:256x256x256:b4", 4, 0);
  /* A budget of half the H100's L2 chunks the 3D batches as the former
   * default did. */
  setenv("HYFFT_L2_CHUNK", "26214400", 1);
  setenv("HYFFT_PLANES", "0", 1);
  hy_settings_reload();
  expect("c2c:f32:fwd:64x64x64:b256", 256, 1);
  expect("c2c:f32:fwd:128x128x128:b32", 32, 1);
  expect("r2c:f32:100x100x100:b64", 64, 1);
  expect("c2c:f32:fwd:256x256x256:b4", 4, 0); /* 128 MB per element */
  setenv("HYFFT_PLANES", "", 1);
  /* Any multi-pass plan with the budget given. */
  setenv("HYFFT_L2_CHUNK", "25000000", 1);
  hy_settings_reload();
  expect("c2c:f32:fwd:1048576:b64", 64, 1);          /* four-step, 8 MB per element */
  expect("c2c:f32:fwd:65536:b1024", 1024, 1);        /* capped by HY_MAX_LAUNCHES */
  expect("c2c:f64:fwd:1024x1024:b32", 32, 1);
  expect("c2c:f32:fwd:65537:b1023", 1023, 1);        /* seven passes with chirps */
  /* Not chunked: one pass; one element; an element larger than the budget. */
  expect("c2c:f32:fwd:1024:b65536", 65536, 0);
  expect("c2c:f32:fwd:8192x8192", 1, 0);
  expect("c2c:f32:fwd:16777216:b4", 4, 0);
  /* Not chunked: a work buffer that changes its layout between passes
   * (the half spectrum of a C2R in WORK0, then the fused Bluestein chain
   * of its long prime axis writing WORK0 with rows of its own length; the
   * half spectrum in WORK1, then a split DFT through WORK1). */
  setenv("HYFFT_L2_CHUNK", "400000000", 1);
  hy_settings_reload();
  expect("c2r:f32:3x1048583:b4", 4, 0);
  expect("c2r:f32:3x59049:b8", 8, 0);
  expect("c2r:f64:3x19683:b8", 8, 0);
  expect("c2c:f32:fwd:1048576:b64", 64, 1); /* the same budget chunks a plain plan */
  /* Off by the environment, and a budget of one element per chunk. */
  setenv("HYFFT_L2_CHUNK", "0", 1);
  hy_settings_reload();
  expect("c2c:f32:fwd:1048576:b64", 64, 0);
  setenv("HYFFT_L2_CHUNK", "1", 1);
  hy_settings_reload();
  expect("c2c:f32:fwd:1048576:b64", 64, 0); /* an element exceeds 1 byte: plain */
  setenv("HYFFT_L2_CHUNK", "8388608", 1);
  hy_settings_reload();
  expect("c2c:f32:fwd:1048576:b20", 20, 1); /* one element per chunk */
  return hy_test_summary();
}
