/* The plans an H100 gets for the standard table's hard cases, as measured
 * in docs/performance.md: a change to the planner or the generator's block
 * shapes that moves one of these has to be measured again, and this test
 * says which. No GPU needed (the H100's caps, kernels generated but not
 * compiled). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/settings.h"
#include "check.h"
#include "codegen/codegen.h"
#include "planner/kernel_model.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "../backend/cuda/h100_caps.h"

typedef struct expected {
  const char *token;
  const char *solver;
  int passes;
  int fused;      /* passes with a fused Bluestein step */
  int columns[4]; /* transforms per block of passes 0..3 (0: not checked) */
  int stages;     /* radix stages of the first kernel (0: not checked) */
  int planes;     /* plane passes (two axes in one pass) */
} expected;

static const expected hy_cases[] = {
    /* two four-step passes, 8 columns each (two blocks per SM) */
    {"c2c:f32:fwd:1048576:b64", "four-step", 2, 0, {8, 8}, 0, 0},
    {"c2c:f32:fwd:65536:b1024", "four-step", 2, 0, {16, 16}, 0, 0},
    /* f64 512-point four-step passes take 4 columns (4 blocks per SM),
     * their neighbours keep 8 and 16 */
    {"c2c:f64:fwd:262144:b128", "four-step", 2, 0, {4, 4}, 0, 0},
    {"c2c:f64:fwd:1048576:b32", "four-step", 2, 0, {8, 8}, 0, 0},
    {"c2c:f64:fwd:65536:b512", "four-step", 2, 0, {16, 16}, 0, 0},
    /* 2^26 in three passes, 1024 x 256 x 256 (two passes, 8192 x 8192,
     * moved 2 columns per block and took 2.3x as long) */
    {"c2c:f32:fwd:67108864", "four-step", 3, 0, {8, 16, 16}, 0, 0},
    /* long columns split with the columns innermost: 32 per block */
    {"c2c:f32:fwd:16384x16384", "four-step", 3, 0, {1, 32, 32}, 0, 0},
    {"c2c:f32:fwd:8192x8192", "four-step", 3, 0, {1, 64, 32}, 0, 0},
    /* 4096-point columns read four at a time beat splitting them */
    {"c2c:f32:fwd:4096x4096:b4", "axis-passes", 2, 0, {0, 4}, 0, 0},
    /* 1024^2 column pass keeps 16 columns (8 measured slower) */
    {"c2c:f32:fwd:1024x1024:b64", "axis-passes", 2, 0, {0, 16}, 0, 0},
    /* fused Bluestein: four passes, three with a fused step */
    {"c2c:f32:fwd:65537:b1023", "four-step", 4, 3, {0}, 0, 0},
    {"c2c:f64:fwd:65537:b511", "four-step", 4, 3, {0}, 0, 0},
    /* primes that fit one pass */
    {"c2c:f32:fwd:1009:b66510", "axis-passes", 1, 0, {0}, 0, 0},
    {"c2c:f32:fwd:4099:b16372", "axis-passes", 1, 0, {0}, 0, 0},
    /* radix-3 and -5 pairs merged for powers of one prime (3^7: 9*9*9*3),
     * not inside mixed lengths (1000: 8*5*5*5) */
    {"c2c:f32:fwd:2187:b30685", "axis-passes", 1, 0, {0}, 4, 0},
    {"c2c:f64:fwd:3125:b10737", "axis-passes", 1, 0, {0}, 3, 0},
    {"c2c:f64:fwd:1000:b33554", "axis-passes", 1, 0, {0}, 4, 0},
    /* ... and inside mixed lengths from 2048 points on (13500: 4*9*3*25*5,
     * not 4*3*3*3*5*5*5; 1500 keeps 4*3*5*5*5) */
    {"c2c:f32:bwd:13500:b4971", "axis-passes", 1, 0, {0}, 5, 0},
    {"c2c:f64:fwd:3375:b16000", "axis-passes", 1, 0, {0}, 4, 0},
    {"c2c:f32:fwd:1500:b60000", "axis-passes", 1, 0, {0}, 5, 0},
    /* f32 C2C of 16384 points in radix-32 stages (32*32*16), the same
     * length with a fused R2C step in radix-16 ones (8192: 16*16*16*2) */
    {"c2c:f32:fwd:16384:b4096", "axis-passes", 1, 0, {0}, 3, 0},
    {"r2c:f32:16384:b4096", "real", 1, 1, {0}, 4, 0},
    /* 3D: the two inner axes as one plane pass where two planes' blocks
     * fit one SM's shared memory, then the outer axis */
    {"c2c:f32:fwd:64x64x64:b256", "axis-passes", 2, 0, {1}, 0, 1},
    {"c2c:f32:fwd:100x100x100:b64", "axis-passes", 2, 0, {1}, 0, 1},
    {"c2c:f64:fwd:64x64x64:b128", "axis-passes", 2, 0, {1}, 0, 1},
    {"c2c:f32:fwd:64x64:b32768", "axis-passes", 1, 0, {1}, 0, 1},
    /* 128^2 f32 and 100^2 f64 planes (135 and 165 KB) fit one block but
     * not two per SM: one pass per axis */
    {"c2c:f32:fwd:128x128x128:b32", "axis-passes", 3, 0, {0}, 0, 0},
    {"c2c:f64:fwd:100x100x100:b32", "axis-passes", 3, 0, {0}, 0, 0},
    {"c2c:f32:fwd:128x128:b8", "axis-passes", 2, 0, {0}, 0, 0},
    /* 128^2 f64 (256 KB) does not fit at all: three axis passes */
    {"c2c:f64:fwd:128x128x128:b16", "axis-passes", 3, 0, {0}, 0, 0},
    /* long 1D real transforms: the half-length DFT's two four-step passes,
     * the R2C step in the last one's store and the C2R step in the first
     * one's load (rows paired, 8 and 16 per block), not a third pass */
    {"r2c:f32:1048576:b64", "real", 2, 1, {16, 8}, 0, 0},
    {"c2r:f32:1048576:b64", "real", 2, 1, {16, 8}, 0, 0},
    {"r2c:f64:1048576:b16", "real", 2, 1, {0}, 0, 0},
    {"c2r:f64:262144:b32", "real", 2, 1, {0}, 0, 0},
    /* 3^9 = 81 x 243: R2C's odd number of rows cannot pair, its step
     * stays a pass of its own; C2R's step reads both inputs of a pair
     * itself and needs no pairing */
    {"r2c:f32:39366:b64", "real", 3, 0, {0}, 0, 0},
    {"c2r:f32:39366:b64", "real", 2, 1, {0}, 0, 0},
    /* one-pass real rows in blocks of two warps (the smallest block that
     * still fills an SM), whole warps kept: 1024 points on 32 threads x 2
     * (the model's C2C block would take 8), 256 on 16 x 4, 768 on 24 x 4
     * (96 threads, not 24 x 3 = 72 in three part-filled warps); the 3D
     * real axis too (512 on 16 x 4), while the paired rows of the long
     * transforms above keep 8 and 16 */
    {"c2r:f32:1024:b131072", "real", 1, 1, {2}, 0, 0},
    {"r2c:f64:1024:b65536", "real", 1, 1, {2}, 0, 0},
    {"r2c:f32:256:b524288", "real", 1, 1, {4}, 0, 0},
    {"c2r:f64:768:b43690", "real", 1, 1, {4}, 0, 0},
    {"r2c:f32:512x512x512", "real", 3, 1, {4}, 0, 0},
    /* C2C rows of the same length keep the model's block */
    {"c2c:f32:fwd:1024:b131072", "axis-passes", 1, 0, {4}, 0, 0},
    /* column passes keep at least 16 bytes of each row where the batch
     * element's count (65 f32 columns) has no such divisor: 2 columns of
     * 4620 points (not 1); f64 columns take the divisor (625: 1 column)
     * and pieces of 16 bytes already straddle no sector */
    {"c2r:f32:4620x128:b113", "real", 2, 1, {2}, 0, 0},
    {"c2r:f64:4620x625:b5", "real", 2, 1, {1}, 0, 0},
    {"c2c:f32:fwd:3946x13:b1308", "four-step", 3, 0, {0, 0, 2}, 0, 0},
};

/* Radix stages of kernel k: every stage after the first twiddles, with
 * "const int k = j % NS;" (once per butterfly a thread does) and its own
 * NS, the product of the radices before it; so the stages are one more
 * than the distinct NS. */
static int stages_of(const hy_gpu_program *prog, int k) {
  const char *at = prog->source.data + prog->kernel_begin[k];
  const char *end = prog->source.data + prog->kernel_end[k];
  int seen[64], nseen = 0;
  for (const char *p = strstr(at, "const int k = j % "); p && p < end;
       p = strstr(p + 1, "const int k = j % ")) {
    int ns = 0, known = 0;
    sscanf(p + strlen("const int k = j % "), "%d", &ns);
    for (int i = 0; i < nseen; i++) known |= seen[i] == ns;
    if (!known && nseen < 64) seen[nseen++] = ns;
  }
  return nseen + 1;
}

/* "N threads x M transforms per work-group" of kernel k's comment. */
static int columns_of(const hy_gpu_program *prog, int k) {
  const char *at = prog->source.data + prog->kernel_begin[k];
  const char *hit = strstr(at, " transforms per work-group");
  if (!hit || hit > prog->source.data + prog->kernel_end[k]) return -1;
  const char *x = hit;
  while (x > at && x[-1] != ' ') x--;
  int m = -1;
  sscanf(x, "%d", &m);
  return m;
}

/* Whether kernel k's source holds `text`. */
static int kernel_has(const hy_gpu_program *prog, int k, const char *text) {
  const char *at = prog->source.data + prog->kernel_begin[k];
  const char *hit = strstr(at, text);
  return hit && hit < prog->source.data + prog->kernel_end[k];
}

/* Plan `token` for the H100 and generate its CUDA program; 0 (and a
 * failed check) when either step fails. */
static int plan_program(const char *token, const hy_device_caps *caps, hy_plan_tree *tree,
                        hy_gpu_program *prog) {
  hyfft_problem user;
  hy_problem prob;
  memset(prog, 0, sizeof *prog);
  if (hy_token_parse(token, &user) != HYFFT_SUCCESS || hy_problem_make(&user, &prob) != HYFFT_SUCCESS ||
      hy_planner_plan(&prob, caps, 0, tree) != HYFFT_SUCCESS ||
      hy_codegen_plan(&prob, tree, caps, HY_DIALECT_CUDA, prog) != HYFFT_SUCCESS) {
    CHECK(0, "%s: not planned or generated: %s", token, hyfft_last_error());
    return 0;
  }
  return 1;
}

int main(void) {
  hy_device_caps caps = hy_h100_caps();
  /* The plain kernels' shapes: the persistent kernel (checked at the end)
   * kept out. */
  setenv("HYFFT_KERNEL_SPEC", "persist=0", 1);
  hy_settings_reload();
  for (size_t i = 0; i < sizeof hy_cases / sizeof hy_cases[0]; i++) {
    const expected *e = &hy_cases[i];
    hyfft_problem user;
    hy_problem prob;
    CHECK_OK(hy_token_parse(e->token, &user));
    CHECK_OK(hy_problem_make(&user, &prob));
    hy_plan_tree tree;
    if (hy_planner_plan(&prob, &caps, 0, &tree) != HYFFT_SUCCESS) {
      CHECK(0, "%s: not planned: %s", e->token, hyfft_last_error());
      continue;
    }
    CHECK(strcmp(tree.solver, e->solver) == 0, "%s: solver %s, expected %s", e->token,
          tree.solver, e->solver);
    CHECK(tree.npasses == e->passes, "%s: %d passes, expected %d", e->token, tree.npasses,
          e->passes);
    int fused = 0;
    for (int p = 0; p < tree.npasses; p++) fused += tree.passes[p].fuse != HY_FUSE_NONE;
    CHECK(fused == e->fused, "%s: %d fused passes, expected %d", e->token, fused, e->fused);
    int planes = 0;
    for (int p = 0; p < tree.npasses; p++) planes += tree.passes[p].plane_inner > 0;
    CHECK(planes == e->planes, "%s: %d plane passes, expected %d", e->token, planes, e->planes);
    hy_gpu_program prog;
    memset(&prog, 0, sizeof prog);
    if (hy_codegen_plan(&prob, &tree, &caps, HY_DIALECT_CUDA, &prog) != HYFFT_SUCCESS) {
      CHECK(0, "%s: codegen: %s", e->token, hyfft_last_error());
      continue;
    }
    for (int k = 0; k < 4 && k < prog.nkernels; k++)
      if (e->columns[k])
        CHECK(columns_of(&prog, k) == e->columns[k], "%s: pass %d has %d transforms per block, "
              "expected %d", e->token, k, columns_of(&prog, k), e->columns[k]);
    if (e->stages)
      CHECK(stages_of(&prog, 0) == e->stages, "%s: %d radix stages, expected %d", e->token,
            stages_of(&prog, 0), e->stages);
    printf("  %-28s %-11s %d pass(es)\n", e->token, tree.solver, tree.npasses);
    hy_gpu_program_free(&prog);
  }
  /* Local-memory padding of one-pass Bluestein DFTs: off where the
   * convolution length's power-of-two part is below one bank period (16
   * complex f32, 8 f64: m = 2500 = 4 x 625, m = 200 = 8 x 25), on where
   * it is not (1009 points in f64: m = 2048; power-of-two rows). */
  static const struct { const char *token; int pass; int pad; } pad_cases[] = {
      {"c2c:f32:fwd:1237:b54242", 0, 0}, {"c2c:f32:fwd:74:b906221", 0, 0},
      {"c2c:f64:fwd:1009:b8192", 0, 1},  {"c2c:f32:fwd:1024:b4096", 0, 1}};
  for (size_t i = 0; i < sizeof pad_cases / sizeof pad_cases[0]; i++) {
    hyfft_problem user;
    hy_problem prob;
    hy_plan_tree tree;
    hy_kernel_spec spec;
    if (hy_token_parse(pad_cases[i].token, &user) != HYFFT_SUCCESS ||
        hy_problem_make(&user, &prob) != HYFFT_SUCCESS ||
        hy_planner_plan(&prob, &caps, 0, &tree) != HYFFT_SUCCESS ||
        hy_model_spec(&prob, &tree.passes[pad_cases[i].pass], &caps, tree.l2_chunk_bytes > 0,
                      &spec) != HYFFT_SUCCESS) {
      CHECK(0, "%s: not planned: %s", pad_cases[i].token, hyfft_last_error());
      continue;
    }
    CHECK(spec.lds_pad == pad_cases[i].pad, "%s: pass %d pad=%d, expected %d (m = %lld)",
          pad_cases[i].token, pad_cases[i].pass, spec.lds_pad, pad_cases[i].pad,
          (long long)tree.passes[pad_cases[i].pass].bluestein_m);
    printf("  %-28s pass %d pad=%d (m = %lld)\n", pad_cases[i].token, pad_cases[i].pass,
           spec.lds_pad, (long long)tree.passes[pad_cases[i].pass].bluestein_m);
  }
  /* Rader where p - 1 has no prime factor above 5 (measured faster than
   * Bluestein there: 101, 257, 401, 641), Bluestein where it has a 7 (127,
   * 1009); the switch overrides. */
  static const struct { const char *token; const char *env_spec; int rader; } rader_cases[] = {
      {"c2c:f32:fwd:257:b261120", "", 1},      {"c2c:f32:fwd:641:b104690", "", 1},
      {"c2c:f32:fwd:101:b655360", "", 1},      {"c2c:f64:fwd:401:b81920", "", 1},
      {"c2c:f32:fwd:29:b1000", "", 0},
      {"c2c:f64:fwd:97:b8", "", 1},            {"c2c:f32:fwd:1009:b66510", "", 0},
      {"c2c:f32:fwd:127:b528416", "", 0},      {"c2c:f32:fwd:257:b7", "rader=0", 0},
      {"c2c:f32:fwd:1009:b3", "rader=1", 1}};
  for (size_t i = 0; i < sizeof rader_cases / sizeof rader_cases[0]; i++) {
    setenv("HYFFT_KERNEL_SPEC", rader_cases[i].env_spec, 1);
    hy_settings_reload();
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(rader_cases[i].token, &caps, &tree, &prog)) continue;
    int rader = strstr(prog.source.data, "const int *rin") != NULL;
    CHECK(rader == rader_cases[i].rader, "%s (%s): %s, expected %s", rader_cases[i].token,
          rader_cases[i].env_spec, rader ? "Rader" : "Bluestein",
          rader_cases[i].rader ? "Rader" : "Bluestein");
    printf("  %-28s %-8s %s\n", rader_cases[i].token, rader_cases[i].env_spec,
           rader ? "Rader" : "Bluestein");
    hy_gpu_program_free(&prog);
  }
  setenv("HYFFT_KERNEL_SPEC", "", 1);
  hy_settings_reload();
  /* A strided axis whose outputs are contiguous (a matrix's slow axis
   * transformed into rows; the out-of-core 1D sweep 1): the store through
   * local memory where the block's transforms write one dense run, and
   * the four-step work layout [j1][inner][k2], pass B then reading and
   * writing neighbours along k2 (unit stride on both sides). The in-place
   * column pass keeps [k2][j1][inner] and plain stores (docs/performance.md,
   * "Strided inputs into contiguous outputs"). */
  static const struct { const char *token; int passes, staged0, k2_inner; } strided_cases[] = {
      {"c2c:f32:fwd:32768:b4096:is=4096:idist=1", 2, 1, 1},
      {"c2c:f64:bwd:1048576:b64:is=64:idist=1", 2, 1, 1},
      {"c2c:f32:fwd:1024:b65536:is=65536:idist=1", 1, 1, 0},
      {"c2c:f32:fwd:32768:b4096:is=4096:idist=1:os=4096:odist=1:ip", 2, 0, 0}};
  for (size_t i = 0; i < sizeof strided_cases / sizeof strided_cases[0]; i++) {
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(strided_cases[i].token, &caps, &tree, &prog)) continue;
    CHECK(tree.npasses == strided_cases[i].passes, "%s: %d passes, expected %d",
          strided_cases[i].token, tree.npasses, strided_cases[i].passes);
    int staged = kernel_has(&prog, 0, "staged store");
    CHECK(staged == strided_cases[i].staged0, "%s: pass 0 %s, expected %s", strided_cases[i].token,
          staged ? "stores through local memory" : "stores directly",
          strided_cases[i].staged0 ? "the staged store" : "direct stores");
    int k2_inner = 0;
    if (tree.npasses == 2) {
      const hy_pass *b = &tree.passes[1];
      for (int l = 0; l < b->nloops; l++)
        k2_inner |= b->loops[l].n > 1 && b->loops[l].in_stride == 1 && b->loops[l].out_stride == 1;
      k2_inner &= tree.passes[0].axis.out_stride == 1;
    }
    CHECK(k2_inner == strided_cases[i].k2_inner, "%s: work layout %s, expected %s",
          strided_cases[i].token, k2_inner ? "[j1][inner][k2]" : "[k2][j1][inner]",
          strided_cases[i].k2_inner ? "[j1][inner][k2]" : "[k2][j1][inner]");
    printf("  %-28s %s, %s\n", strided_cases[i].token, staged ? "staged store" : "direct store",
           k2_inner ? "k2 innermost" : "inner loops innermost");
    hy_gpu_program_free(&prog);
  }
  /* Short odd real lengths of a dense batch stage both ways (one thread a
   * transform read its inputs straight from global memory at 0.33 of
   * cuFFT for c2r:f64:13:b2581110; staged 0.81, R2C at par:
   * docs/performance.md, "GPU: short odd real transforms staged"); in
   * place only the dense side stages; a Bluestein odd length (chirped
   * load) and a strided layout keep direct loads and stores. */
  static const struct { const char *token; int load, store; } odd_cases[] = {
      {"c2r:f64:13:b2581110", 1, 1},  {"r2c:f32:27:b1000", 1, 1},
      {"r2c:f32:1000x27", 1, 1},      {"c2r:f32:13:b300:ip", 1, 0},
      {"r2c:f64:15:b300:ip", 0, 1},   {"r2c:f32:1009:b100", 0, 0},
      {"c2r:f32:13:b100:idist=9:odist=14", 0, 0}};
  for (size_t i = 0; i < sizeof odd_cases / sizeof odd_cases[0]; i++) {
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(odd_cases[i].token, &caps, &tree, &prog)) continue;
    int load = kernel_has(&prog, 0, "staged load"), store = kernel_has(&prog, 0, "staged store");
    CHECK(load == odd_cases[i].load && store == odd_cases[i].store,
          "%s: staged load %d store %d, expected %d %d", odd_cases[i].token, load, store,
          odd_cases[i].load, odd_cases[i].store);
    printf("  %-28s staged load %d, staged store %d\n", odd_cases[i].token, load, store);
    hy_gpu_program_free(&prog);
  }
  /* One-pass Bluestein convolution lengths: a longer one where it saves a
   * stage (2129: 4608 = 9*32*16 over 4320 = 16*2*9*3*5; 1087: 2304 over
   * 3^7), the plain one where it does not (1009: 2048) or past 8192
   * points (4099: 8640); on the CPU the plain one among the lengths 8
   * divides (hy_bluestein_cpu_length: 1087 takes 2304, not 3^7). */
  static const struct { const char *token; int64_t m, cpu_m; } bluestein_cases[] = {
      {"c2c:f32:bwd:2129:b31521:ip", 4608, 4320}, {"c2c:f64:bwd:1087:b30868:ip", 2304, 2304},
      {"c2c:f32:fwd:1009:b66510", 2048, 2048},    {"c2c:f32:fwd:4099:b16372", 8640, 8640}};
  hy_device_caps cpu_caps = caps;
  cpu_caps.backend = HYFFT_BACKEND_CPU;
  for (size_t i = 0; i < sizeof bluestein_cases / sizeof bluestein_cases[0]; i++) {
    hyfft_problem user;
    hy_problem prob;
    hy_pass gpu_pass, cpu_pass;
    memset(&gpu_pass, 0, sizeof gpu_pass);
    memset(&cpu_pass, 0, sizeof cpu_pass);
    CHECK_OK(hy_token_parse(bluestein_cases[i].token, &user));
    CHECK_OK(hy_problem_make(&user, &prob));
    CHECK_OK(hy_choose_dft_algo(prob.dims[0].n, &caps, &gpu_pass));
    CHECK_OK(hy_choose_dft_algo(prob.dims[0].n, &cpu_caps, &cpu_pass));
    CHECK(gpu_pass.algo == HY_ALGO_BLUESTEIN && gpu_pass.bluestein_m == bluestein_cases[i].m,
          "%s: GPU convolution length %lld, expected %lld", bluestein_cases[i].token,
          (long long)gpu_pass.bluestein_m, (long long)bluestein_cases[i].m);
    CHECK(cpu_pass.bluestein_m == bluestein_cases[i].cpu_m, "%s: CPU convolution length %lld, "
          "expected %lld", bluestein_cases[i].token, (long long)cpu_pass.bluestein_m,
          (long long)bluestein_cases[i].cpu_m);
    printf("  %-28s Bluestein m = %lld (CPU %lld)\n", bluestein_cases[i].token,
           (long long)gpu_pass.bluestein_m, (long long)cpu_pass.bluestein_m);
  }
  /* The CPU takes an odd real axis's steps into the one DFT pass where
   * the length is mixed radix and runs as one gathered lane group
   * (lane_group_max), else widens, transforms and copies in three. */
  static const struct { const char *token; int passes; hy_fuse fuse; } cpu_odd_cases[] = {
      {"r2c:f32:810x75:b2", 2, HY_FUSE_R2C_ODD}, {"c2r:f64:27:b5", 1, HY_FUSE_C2R_ODD},
      {"r2c:f64:10x2625:b3", 2, HY_FUSE_R2C_ODD}, {"c2r:f32:4095", 1, HY_FUSE_C2R_ODD},
      {"r2c:f32:6075", 3, HY_FUSE_NONE},          {"r2c:f32:1009:b8", 3, HY_FUSE_NONE},
      /* Even real axes whose reals are not complex pairs (strided,
       * interleaved, an odd row distance) take the same one pass up to
       * lane_group_l1_max (512 here), the packed half-length route above
       * it; pairs in memory keep the half-length route. */
      {"r2c:f32:256:b64:is=64:idist=1:os=64:odist=1", 1, HY_FUSE_R2C_ODD},
      {"c2r:f64:64:b9:idist=33:odist=65", 1, HY_FUSE_C2R_ODD},
      {"r2c:f64:128x64:b3:is=192,3:os=99,3:idist=1:odist=1", 2, HY_FUSE_R2C_ODD},
      {"r2c:f32:1000:b8:is=8:idist=1:os=8:odist=1", 2, HY_FUSE_NONE},
      {"c2r:f32:1024:b8:is=8:idist=1:os=8:odist=1", 2, HY_FUSE_NONE},
      {"r2c:f32:256:b64", 1, HY_FUSE_NONE}};
  cpu_caps.max_pass_length[HYFFT_F32] = cpu_caps.max_pass_length[HYFFT_F64] = INT64_MAX;
  cpu_caps.lane_group_max[HYFFT_F32] = cpu_caps.lane_group_max[HYFFT_F64] = 4096;
  cpu_caps.lane_group_l1_max[HYFFT_F32] = cpu_caps.lane_group_l1_max[HYFFT_F64] = 512;
  for (size_t i = 0; i < sizeof cpu_odd_cases / sizeof cpu_odd_cases[0]; i++) {
    hyfft_problem user;
    hy_problem prob;
    hy_plan_tree tree;
    CHECK_OK(hy_token_parse(cpu_odd_cases[i].token, &user));
    CHECK_OK(hy_problem_make(&user, &prob));
    if (hy_planner_plan(&prob, &cpu_caps, 0, &tree) != HYFFT_SUCCESS) {
      CHECK(0, "%s: not planned for the CPU: %s", cpu_odd_cases[i].token, hyfft_last_error());
      continue;
    }
    int fused = 0;
    for (int k = 0; k < tree.npasses; k++)
      if (hy_fuse_is_real_odd(tree.passes[k].fuse)) fused = k == 0 ? (int)tree.passes[k].fuse : -1;
    CHECK(tree.npasses == cpu_odd_cases[i].passes && fused == (int)cpu_odd_cases[i].fuse,
          "%s: CPU plan of %d passes, odd real step %d in its first pass; expected %d and %d",
          cpu_odd_cases[i].token, tree.npasses, fused, cpu_odd_cases[i].passes,
          (int)cpu_odd_cases[i].fuse);
    printf("  %-28s CPU: %d passes, odd real step fused: %s\n", cpu_odd_cases[i].token,
           tree.npasses, fused > 0 ? "yes" : "no");
  }
  /* Every GPU length holds the lags, is 5-smooth and at most twice the
   * lags. */
  for (int64_t n = 2; n <= 6000; n++) {
    int64_t m = hy_bluestein_gpu_length(n), plain = hy_bluestein_length(n), r = m;
    for (int p = 2; p <= 5; p++)
      while (r % p == 0) r /= p;
    if (m < 2 * n - 2 || r != 1 || m > 2 * (2 * n - 2) + 2) {
      CHECK(0, "n = %lld: GPU convolution length %lld (plain %lld)", (long long)n, (long long)m,
            (long long)plain);
      break;
    }
  }
  /* Primes too long for one pass: Rader's steps fused into the four-step
   * passes where p - 1 is 2^a x 1, 3 or 5 (a >= 4) in f64; in f32 where
   * the chain also runs as one persistent kernel (65537 x1023: split
   * 256 x 256, more intermediates than L2 holds; not 65537 x20, whose
   * intermediates fit L2, nor 40961 = 160 x 256 + 1), or with
   * $HYFFT_RADER=1. Bluestein's where not or where $HYFFT_RADER=0 says
   * so. */
  static const struct { const char *token; const char *rader_env; hy_fuse first; } fused_cases[] = {
      {"c2c:f32:fwd:65537:b1023", "", HY_FUSE_RADER_IN}, {"c2c:f64:fwd:65537:b511", "", HY_FUSE_RADER_IN},
      {"c2c:f32:fwd:65537:b20", "", HY_FUSE_CHIRP_IN},   {"c2c:f32:fwd:40961:b1638", "", HY_FUSE_CHIRP_IN},
      {"c2c:f32:fwd:65537:b1023", "0", HY_FUSE_CHIRP_IN},
      {"c2c:f32:bwd:40961:b3", "1", HY_FUSE_RADER_IN},   {"c2c:f64:fwd:786433", "", HY_FUSE_RADER_IN},
      {"c2c:f64:fwd:12289:b2", "", HY_FUSE_RADER_IN},    {"c2c:f64:fwd:114689", "", HY_FUSE_CHIRP_IN},
      {"c2c:f64:fwd:65537:b3", "0", HY_FUSE_CHIRP_IN},   {"c2c:f32:fwd:65537:b3", "1", HY_FUSE_RADER_IN}};
  for (size_t i = 0; i < sizeof fused_cases / sizeof fused_cases[0]; i++) {
    setenv("HYFFT_RADER", fused_cases[i].rader_env, 1);
    hy_settings_reload();
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(fused_cases[i].token, &caps, &tree, &prog)) continue;
    CHECK(tree.npasses == 4 && tree.passes[0].fuse == fused_cases[i].first,
          "%s (HYFFT_RADER=%s): %d passes, first fused step %d, expected 4 and %d",
          fused_cases[i].token, fused_cases[i].rader_env, tree.npasses, (int)tree.passes[0].fuse,
          (int)fused_cases[i].first);
    printf("  %-28s %-3s %s\n", fused_cases[i].token, fused_cases[i].rader_env,
           tree.passes[0].fuse == HY_FUSE_RADER_IN ? "Rader fused" : "Bluestein fused");
    hy_gpu_program_free(&prog);
  }
  setenv("HYFFT_RADER", "", 1);
  hy_settings_reload();
  /* Over a second axis the chain does not run as one persistent kernel
   * (five passes), so f32 keeps Bluestein there. */
  {
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (plan_program("c2c:f32:fwd:3x65537:b400", &caps, &tree, &prog)) {
      int rader = 0;
      for (int i = 0; i < tree.npasses; i++) rader |= tree.passes[i].fuse == HY_FUSE_RADER_IN;
      CHECK(!rader && tree.passes[0].fuse == HY_FUSE_CHIRP_IN,
            "c2c:f32:fwd:3x65537:b400: %s fused steps, expected Bluestein's",
            rader ? "Rader's" : "no chirp");
      hy_gpu_program_free(&prog);
    }
  }
  /* Three blocks per SM are asked of ptxas where a small block's points
   * per thread would take more registers than that leaves (f64 radix-25
   * stages, the f64 Bluestein pass of 1009); four for f32 Bluestein passes
   * of 128 threads that fit 128 registers (1009: a better schedule at the
   * same registers); nowhere else. The variant minblocks=0 takes the
   * demand back. */
  static const struct { const char *token; const char *env_spec; int blocks; } blocks_cases[] = {
      {"c2c:f64:fwd:3125:b10737", "", 3},      {"c2c:f64:fwd:1009:b33255", "", 3},
      {"c2c:f32:fwd:1009:b66510", "", 4},      {"c2c:f32:fwd:127:b528416", "", 0},
      {"c2c:f64:fwd:4096:b8192", "", 0},       {"c2c:f32:fwd:3125:b21474", "", 0},
      {"c2c:f64:fwd:1000:b33554", "", 0},      {"c2c:f64:fwd:3125:b10", "minblocks=0", 0},
      {"c2c:f32:fwd:1009:b66510", "minblocks=0", 0}};
  for (size_t i = 0; i < sizeof blocks_cases / sizeof blocks_cases[0]; i++) {
    setenv("HYFFT_KERNEL_SPEC", blocks_cases[i].env_spec, 1);
    hy_settings_reload();
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(blocks_cases[i].token, &caps, &tree, &prog)) continue;
    const char *lb = strstr(prog.source.data, "__launch_bounds__(");
    int threads = 0, blocks = 0;
    if (lb && sscanf(lb, "__launch_bounds__(%d, %d)", &threads, &blocks) < 2) blocks = 0;
    CHECK(blocks == blocks_cases[i].blocks, "%s (%s): %.40s, expected a demand of %d blocks",
          blocks_cases[i].token, blocks_cases[i].env_spec, lb ? lb : "(none)",
          blocks_cases[i].blocks);
    printf("  %-28s %-12s %s%.0d\n", blocks_cases[i].token, blocks_cases[i].env_spec,
           blocks ? "blocks per SM demanded: " : "ptxas' choice", blocks);
    hy_gpu_program_free(&prog);
  }
  setenv("HYFFT_KERNEL_SPEC", "", 1);
  hy_settings_reload();
  /* Threads per transform of the first kernel: one per butterfly of the
   * largest radix where 256 threads would idle over 8% of the slots and
   * the butterflies fit a block (2401 = 7^4: 343, none idle); where 256
   * or fewer suffice, as many as there are (3125 as 25x25x5: 125), but 16
   * instead of 8 for a plain CUDA batch (128 = 16 x 8): not for the
   * 128-point passes of f64 16384, nor for OpenCL on the same device;
   * twice the threads over half the columns where a four-step thread
   * takes two radix-5 butterflies (10^6: 250, not 125), not where it
   * takes one of the largest radix (2^24: 256); a named count stays. */
  static const struct {
    const char *token, *env_spec;
    int opencl, threads;
  } thread_cases[] = {
      {"c2c:f32:fwd:2401:b27950", "", 0, 343},   {"c2c:f64:fwd:2401:b100", "", 0, 343},
      {"c2c:f32:fwd:3125:b21474", "", 0, 125},   {"c2c:f32:fwd:2187:b30685", "", 0, 243},
      {"c2c:f32:fwd:128:b524288", "", 0, 16},    {"c2c:f64:fwd:128:b262144", "", 0, 16},
      {"c2c:f64:fwd:16384:b2048", "", 0, 8},     {"c2c:f32:fwd:128:b524288", "", 1, 8},
      {"c2c:f32:fwd:1000000:b67", "", 0, 250},   {"c2c:f32:fwd:16777216:b4", "", 0, 256},
      {"c2c:f32:fwd:128:b524288", "threads=8", 0, 8},
      {"c2c:f32:fwd:2401:b27950", "threads=128", 0, 128}};
  for (size_t i = 0; i < sizeof thread_cases / sizeof thread_cases[0]; i++) {
    setenv("HYFFT_KERNEL_SPEC", thread_cases[i].env_spec, 1);
    hy_settings_reload();
    hy_device_caps on = caps;
    if (thread_cases[i].opencl) on.backend = HYFFT_BACKEND_OPENCL;
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(thread_cases[i].token, &on, &tree, &prog)) continue;
    /* The kernel's comment: " * T threads x M transforms per work-group". */
    const char *at = strstr(prog.source.data, " threads x ");
    int threads = 0;
    while (at && at > prog.source.data && at[-1] >= '0' && at[-1] <= '9') at--;
    if (at) threads = atoi(at);
    CHECK(threads == thread_cases[i].threads, "%s (%s%s): %d threads per transform, expected %d",
          thread_cases[i].token, thread_cases[i].opencl ? "OpenCL " : "",
          thread_cases[i].env_spec, threads, thread_cases[i].threads);
    printf("  %-28s %-6s %-12s %d threads per transform\n", thread_cases[i].token,
           thread_cases[i].opencl ? "OpenCL" : "CUDA", thread_cases[i].env_spec, threads);
    hy_gpu_program_free(&prog);
  }
  setenv("HYFFT_KERNEL_SPEC", "", 1);
  hy_settings_reload();
  /* Local-memory layouts (hy_cg_bank_layout) and radix-32 stages: the
   * first kernel's stages, its row length and padding period. f32 8192
   * and 16384 take radix-32 stages (one exchange fewer), f64 8192 and the
   * 4096-point columns do not; 4 columns per block offset their rows to 4
   * modulo 16 (8-byte elements), 2 f64 columns to 4 modulo 8; a named
   * pad keeps the layout of before. */
  static const struct {
    const char *token, *env_spec, *layout;
  } layout_cases[] = {
      {"c2c:f32:fwd:16384:b4096", "", "stages 32x32x16, local rows of 16897 elements padded by 1 every 32"},
      {"c2c:f32:fwd:8192:b8192", "", "stages 32x32x8, local rows of 8449 elements padded by 1 every 32"},
      {"c2c:f64:fwd:8192:b4096", "", "stages 16x16x16x2, local rows of 8705 elements padded by 1 every 16"},
      {"c2c:f32:fwd:16777216:b4", "", "stages 16x16x16, local rows of 4356 elements padded by 1 every 16"},
      {"c2c:f64:fwd:16777216:b2", "", "stages 16x16x16, local rows of 4356 elements padded by 1 every 16"},
      {"c2c:f32:fwd:16777216:b4", "pad=2", NULL},
      {"c2c:f32:fwd:16384:b4096", "tworadix=16", "stages 16x16x16x4, local rows of 17409 elements padded by 1 every 16"}};
  for (size_t i = 0; i < sizeof layout_cases / sizeof layout_cases[0]; i++) {
    setenv("HYFFT_KERNEL_SPEC", layout_cases[i].env_spec, 1);
    hy_settings_reload();
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(layout_cases[i].token, &caps, &tree, &prog)) continue;
    const char *at = strstr(prog.source.data, "/* stages ");
    if (layout_cases[i].layout) {
      CHECK(at && strncmp(at + 3, layout_cases[i].layout, strlen(layout_cases[i].layout)) == 0,
            "%s (%s): %.80s, expected %s", layout_cases[i].token, layout_cases[i].env_spec,
            at ? at : "(no layout line)", layout_cases[i].layout);
    } else {
      CHECK(at == NULL, "%s (%s): %.80s, expected the default layout", layout_cases[i].token,
            layout_cases[i].env_spec, at);
    }
    printf("  %-28s %-12s %.*s\n", layout_cases[i].token, layout_cases[i].env_spec,
           at ? (int)strcspn(at, "\n") : 14, at ? at : "default layout");
    hy_gpu_program_free(&prog);
  }
  /* Persistent kernels (persist=1): the two-pass plans of 2^16-2^20 get
   * the clearing kernel and one persistent kernel, with a ring of about
   * half the 50 MB L2 and the second pass half a ring behind; ring= and
   * lag= name them (elements larger than half of L2, as 2^24, still get a
   * ring of two); plans that do not qualify (one pass, an unbatched
   * transform) keep their launches. Without the switch, plans whose
   * elements take at most 2 MB (2^16, f32 2^18) get it and larger ones
   * do not;
   * persist=0 keeps it out; every batched plan of 2-4 passes has room for
   * the counters. */
  static const struct {
    const char *token, *env_spec, *line;
  } persist_cases[] = {
      {"c2c:f32:fwd:65536:b1024", "persist=1",
       "32768 tickets over 1024 elements, each pass 25 element(s) behind the one before; passes 0-1 through a ring of 50 work slots of 524288 bytes"},
      {"c2c:f32:fwd:1048576:b64", "persist=1",
       "16384 tickets over 64 elements, each pass 1 element(s) behind the one before; passes 0-1 through a ring of 3 work slots of 8388608 bytes"},
      {"c2c:f64:fwd:262144:b128", "persist=1",
       "32768 tickets over 128 elements, each pass 3 element(s) behind the one before; passes 0-1 through a ring of 6 work slots of 4194304 bytes"},
      {"c2c:f32:fwd:262144:b256", "persist=1,ring=8,lag=2",
       "16384 tickets over 256 elements, each pass 2 element(s) behind the one before; passes 0-1 through a ring of 8 work slots of 2097152 bytes"},
      {"c2c:f32:fwd:65536:b1024", "",
       "32768 tickets over 1024 elements, each pass 25 element(s) behind the one before; passes 0-1 through a ring of 50 work slots of 524288 bytes"},
      {"c2c:f64:fwd:65536:b512", "",
       "16384 tickets over 512 elements, each pass 12 element(s) behind the one before; passes 0-1 through a ring of 25 work slots of 1048576 bytes"},
      {"c2c:f32:fwd:65536:b1024", "persist=0", NULL},
      {"c2c:f32:fwd:262144:b256", "",
       "16384 tickets over 256 elements, each pass 6 element(s) behind the one before; passes 0-1 through a ring of 12 work slots of 2097152 bytes"},
      {"c2c:f32:fwd:1048576:b64", "", NULL},
      {"c2c:f32:fwd:4096:b16384", "persist=1", NULL},
      {"c2c:f32:fwd:16777216:b4", "persist=1",
       "8192 tickets over 4 elements, each pass 1 element(s) behind the one before; passes 0-1 through a ring of 2 work slots of 134217728 bytes"},
      {"c2c:f32:fwd:1048576", "persist=1", NULL},
      /* Four fused passes (65537 by Rader, 1 MB and 512 KB elements): by
       * default, two rings in three quarters of L2, six and twelve
       * elements between passes. By Bluestein ($HYFFT_RADER=0 below), f32
       * 65537's passes have blocks of two sizes and keep their launches. */
      {"c2c:f64:fwd:65537:b511", "",
       "32704 tickets over 511 elements, each pass 6 element(s) behind the one before; "
       "passes 0-3 through a ring of 24 work slots of 1048576 bytes; passes 1-2 through a ring "
       "of 12 work slots of 1048576 bytes"},
      {"c2c:f32:fwd:65537:b1023", "",
       "65472 tickets over 1023 elements, each pass 12 element(s) behind the one before; "
       "passes 0-3 through a ring of 48 work slots of 524288 bytes; passes 1-2 through a ring "
       "of 24 work slots of 524288 bytes"},
      {"c2c:f32:fwd:65537:b1023", "persist=1,bluestein", NULL}};
  for (size_t i = 0; i < sizeof persist_cases / sizeof persist_cases[0]; i++) {
    /* "bluestein" (not a switch of the generator's) stands for
     * $HYFFT_RADER=0; the generator ignores it in the spec. */
    setenv("HYFFT_RADER", strstr(persist_cases[i].env_spec, "bluestein") ? "0" : "", 1);
    setenv("HYFFT_KERNEL_SPEC", persist_cases[i].env_spec, 1);
    hy_settings_reload();
    hy_plan_tree tree;
    hy_gpu_program prog;
    if (!plan_program(persist_cases[i].token, &caps, &tree, &prog)) continue;
    const char *at = strstr(prog.source.data, "one persistent kernel: ");
    if (persist_cases[i].line) {
      CHECK(at && strncmp(at + 23, persist_cases[i].line, strlen(persist_cases[i].line)) == 0,
            "%s (%s): %.120s, expected %s", persist_cases[i].token, persist_cases[i].env_spec,
            at ? at : "(no persistent kernel)", persist_cases[i].line);
      CHECK(prog.nkernels == 2 && prog.nlaunches == 2 &&
                strcmp(prog.names[1], "hy_persist_passes") == 0 && hy_gpu_program_has_units(&prog),
            "%s: %d kernels, %d launches", persist_cases[i].token, prog.nkernels, prog.nlaunches);
      /* With a ring, the plan needs the ring and the counters, not the
       * whole intermediate. */
      if (strstr(persist_cases[i].line, "a ring of"))
        CHECK(prog.work_elems > 0 && prog.work_elems < tree.work_elems[0],
              "%s: the program touches %lld of %lld workspace elements", persist_cases[i].token,
              (long long)prog.work_elems, (long long)tree.work_elems[0]);
      /* 132 SMs; blocks as many as fit an SM at once, by threads and shared memory. */
      CHECK(prog.launches[1].grid >= 132 && prog.launches[1].grid % 132 == 0,
            "%s: %lld persistent blocks", persist_cases[i].token,
            (long long)prog.launches[1].grid);
    } else {
      CHECK(at == NULL, "%s (%s): unexpected persistent kernel", persist_cases[i].token,
            persist_cases[i].env_spec);
    }
    int64_t batch = tree.npasses >= 2 ? tree.passes[0].loops[0].n : 0;
    int64_t esize = tree.passes[0].precision == HYFFT_F64 ? 16 : 8;
    CHECK(tree.npasses < 2 || batch < 2 ||
              (tree.sync_ints == 1 + tree.npasses * batch && tree.sync_offset > 0 &&
               tree.work_elems[0] >= tree.sync_offset + (tree.sync_ints * 4 + esize - 1) / esize),
          "%s: counters %lld at %lld of %lld workspace elements", persist_cases[i].token,
          (long long)tree.sync_ints, (long long)tree.sync_offset, (long long)tree.work_elems[0]);
    printf("  %-28s %-24s %.*s\n", persist_cases[i].token, persist_cases[i].env_spec,
           at ? (int)strcspn(at, "*\n") : 13, at ? at : "two launches");
    hy_gpu_program_free(&prog);
  }
  setenv("HYFFT_KERNEL_SPEC", "", 1);
  setenv("HYFFT_RADER", "", 1);
  hy_settings_reload();
  /* Tiers (hy_codegen_plan_tiers, for CUDA plans that run plain kernels
   * while their persistent kernel compiles): the same persistent program
   * as hy_codegen_plan's, with the plain program it was made from, which
   * is byte for byte what persist=0 generates and owns every one of its
   * tables; a program that is not persistent comes alone. */
  static const char *const tier_tokens[] = {"c2c:f32:fwd:65536:b1024", "c2c:f64:fwd:65537:b511",
                                            "c2c:f32:fwd:65537:b1023", "c2c:f32:fwd:4096:b16384"};
  for (size_t i = 0; i < sizeof tier_tokens / sizeof tier_tokens[0]; i++) {
    const char *token = tier_tokens[i];
    hyfft_problem user;
    hy_problem prob;
    hy_plan_tree tree;
    hy_gpu_program prog, main_prog, plain, plain0;
    if (!plan_program(token, &caps, &tree, &prog)) continue;
    CHECK_OK(hy_token_parse(token, &user));
    CHECK_OK(hy_problem_make(&user, &prob));
    CHECK_OK(hy_codegen_plan_tiers(&prob, &tree, &caps, HY_DIALECT_CUDA, &main_prog, &plain));
    int persistent = strstr(prog.source.data, "hy_persist_passes") != NULL;
    CHECK(main_prog.hash == prog.hash && main_prog.source.len == prog.source.len &&
              memcmp(main_prog.source.data, prog.source.data, prog.source.len) == 0,
          "%s: tiers change the main program", token);
    if (persistent) {
      /* The switches are the planner's: plan again with persist=0. */
      hy_plan_tree tree0;
      setenv("HYFFT_KERNEL_SPEC", "persist=0", 1);
      hy_settings_reload();
      CHECK_OK(hy_planner_plan(&prob, &caps, 0, &tree0));
      setenv("HYFFT_KERNEL_SPEC", "", 1);
      hy_settings_reload();
      CHECK_OK(hy_codegen_plan(&prob, &tree0, &caps, HY_DIALECT_CUDA, &plain0));
      CHECK(plain.source.data && plain.hash == plain0.hash && plain.nkernels == tree.npasses &&
                plain.nlaunches == plain0.nlaunches && plain.ntables == plain0.ntables,
            "%s: the plain tier is not persist=0's program (%d kernels, %d launches)", token,
            plain.nkernels, plain.nlaunches);
      for (int t = 0; t < plain.ntables; t++)
        CHECK(!plain.tables[t].borrowed && (plain.tables[t].data || plain.tables[t].count == 0),
              "%s: plain table %d is not its own", token, t);
      for (int t = 0; t < main_prog.ntables; t++)
        CHECK(!main_prog.tables[t].borrowed, "%s: main table %d still borrowed", token, t);
      hy_gpu_program_free(&plain0);
    } else {
      CHECK(plain.source.data == NULL && plain.nkernels == 0, "%s: not persistent, no tiers",
            token);
    }
    printf("  %-28s %s\n", token,
           persistent ? "tiers: plain program of one kernel per pass, then the persistent one"
                      : "one program");
    hy_gpu_program_free(&plain);
    hy_gpu_program_free(&main_prog);
    hy_gpu_program_free(&prog);
  }
  /* Quick trees (hy_planner_quick_tree): a plan with a plane pass gets
   * the same solver with one pass per axis, needing no more workspace;
   * plans without a plane pass get none. */
  static const struct {
    const char *token;
    int quick_passes; /* 0: no quick tree */
  } quick_cases[] = {{"c2c:f32:fwd:100x100x100:b64", 3}, {"c2c:f64:fwd:64x64x64:b128", 3},
                     {"c2c:f32:fwd:64x64x64:b256", 3}, {"c2c:f32:fwd:1024:b64", 0},
                     {"c2c:f32:fwd:65536:b1024", 0}};
  for (size_t i = 0; i < sizeof quick_cases / sizeof quick_cases[0]; i++) {
    const char *token = quick_cases[i].token;
    hyfft_problem user;
    hy_problem prob;
    hy_plan_tree tree, quick;
    CHECK_OK(hy_token_parse(token, &user));
    CHECK_OK(hy_problem_make(&user, &prob));
    CHECK_OK(hy_planner_plan(&prob, &caps, 0, &tree));
    int plane = 0, quick_plane = 0;
    for (int p = 0; p < tree.npasses; p++) plane |= tree.passes[p].plane_inner > 0;
    int found = hy_planner_quick_tree(&prob, &tree, &caps, &quick);
    if (quick_cases[i].quick_passes) {
      for (int p = 0; found && p < quick.npasses; p++) quick_plane |= quick.passes[p].plane_inner > 0;
      CHECK(plane && found && quick.npasses == quick_cases[i].quick_passes && !quick_plane &&
                strcmp(quick.solver, tree.solver) == 0,
            "%s: plane %d, quick tree %d of %d passes (plane %d)", token, plane, found,
            found ? quick.npasses : 0, quick_plane);
    } else {
      CHECK(!plane && !found, "%s: no plane pass, no quick tree (%d, %d)", token, plane, found);
    }
    printf("  %-28s %s\n", token, found ? "quick tier: one pass per axis" : "no quick tier");
  }
  /* Odd real axes whose DFT fits no single pass although the length is
   * under the pass limit (f64 primes past about 4096: Bluestein's length
   * is not) plan as the fused Bluestein chain, not NO_SOLVER; every DFT
   * pass of the tree fits one pass. */
  static const char *const odd_real[] = {"c2r:f64:4099", "r2c:f64:4099", "c2r:f64:8191:b3",
                                         "r2c:f64:8191", "c2r:f64:3x4099", "r2c:f64:5x4099"};
  for (size_t i = 0; i < sizeof odd_real / sizeof odd_real[0]; i++) {
    hyfft_problem user;
    hy_problem prob;
    hy_plan_tree tree;
    CHECK_OK(hy_token_parse(odd_real[i], &user));
    CHECK_OK(hy_problem_make(&user, &prob));
    hy_status st = hy_planner_plan(&prob, &caps, 0, &tree);
    CHECK(st == HYFFT_SUCCESS && strcmp(tree.solver, "real") == 0, "%s: status %d (%s)",
          odd_real[i], st, st ? hyfft_last_error() : tree.solver);
    if (st != HYFFT_SUCCESS) continue;
    int fits = 1;
    for (int p = 0; p < tree.npasses; p++)
      fits &= tree.passes[p].op != HY_PASS_DFT ||
              hy_pass_computed_length(&tree.passes[p]) <= caps.max_pass_length[prob.precision];
    CHECK(fits, "%s: a DFT pass longer than one pass holds", odd_real[i]);
    printf("  %-28s %d passes\n", odd_real[i], tree.npasses);
  }
  return hy_test_summary();
}
