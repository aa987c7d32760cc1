/* Every problem a user may send plans on every kind of device: problems
 * drawn at random by written rules (kinds, precisions, ranks 1..4,
 * lengths from each size class up to 2^27 points, batches, in place,
 * strided and padded layouts, the middle axis of a 3D array) are planned for an H100, for a GPU with
 * 48 KiB of local memory (the OpenCL devices of older and smaller GPUs)
 * and for the CPU, and their GPU programs generated (not compiled). A
 * problem that validates must get a plan whose every DFT pass fits one
 * pass of that device, and a program; HYFFT_NO_SOLVER for a valid
 * problem fails the test and names it.
 *
 * The draws come from a fixed seed, so CI checks the same problems every
 * run; HYFFT_SWEEP_SEED=N draws another sample (a number, or "time"),
 * HYFFT_SWEEP_COUNT=N draws more, HYFFT_SWEEP_MAX_BITS=B caps 1D lengths
 * at 2^B points, multi-dimensional ones near that, and below 22 a batch
 * at 2^(B+4) points (scripts/gpu-check.sh and the verify.unseen tests
 * run such samples through hyfft verify), HYFFT_SWEEP_TOKEN=TOKEN plans one problem,
 * HYFFT_SWEEP_VERBOSE=1 prints each token first (with HYFFT_SWEEP_TOKEN:
 * the plan tree each device gets). No GPU or compiler needed. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../backend/cuda/h100_caps.h"
#include "check.h"
#include "codegen/codegen.h"
#include "codegen/program.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "problem/problem.h"

static uint64_t hy_rng_state;
static int hy_max_bits = 27; /* longest 1D transform: 2^hy_max_bits points */

static uint64_t rng_next(void) {
  /* splitmix64 */
  uint64_t z = (hy_rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int64_t rng_range(int64_t lo, int64_t hi) { /* inclusive */
  return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

static int is_prime(int64_t n) {
  if (n < 2) return 0;
  for (int64_t d = 2; d * d <= n; d++)
    if (n % d == 0) return 0;
  return 1;
}

static int64_t largest_factor(int64_t n) {
  int64_t big = 1;
  for (int64_t d = 2; d * d <= n; d++)
    while (n % d == 0) {
      big = d;
      n /= d;
    }
  return n > 1 ? n : big;
}

/* A length of about 2^bits points (log-uniform below max_bits) in one of
 * the size classes of bench/suites/broad.txt: powers of two, 7-smooth,
 * 13-smooth, one larger prime factor, primes. */
static int64_t draw_length(int max_bits) {
  int cls = (int)rng_range(0, 4);
  for (int tries = 0; tries < 1000; tries++) {
    double bits = 1.0 + (double)(rng_next() % 10000) / 10000.0 * (max_bits - 1);
    int64_t target = (int64_t)(__builtin_exp2(bits));
    if (target < 2) target = 2;
    switch (cls) {
    case 0:
      return (int64_t)1 << (int)bits;
    case 1:
    case 2: {
      static const int p7[] = {2, 3, 5, 7}, p13[] = {2, 3, 5, 7, 11, 13};
      const int *ps = cls == 1 ? p7 : p13;
      int np = cls == 1 ? 4 : 6;
      int64_t n = 1;
      while (n * 13 <= target) n *= ps[rng_range(0, np - 1)];
      if (n >= 2) return n;
      break;
    }
    case 3: {
      int64_t n = rng_range(target / 2 + 2, target + 2);
      if (largest_factor(n) > 13 && !is_prime(n)) return n;
      break;
    }
    default: {
      int64_t n = rng_range(target / 2 + 2, target + 2);
      while (!is_prime(n)) n++;
      return n;
    }
    }
  }
  return 2;
}

/* Draw R2R problems and half-precision storage too (HYFFT_SWEEP_R2R=0,
 * HYFFT_SWEEP_HALF=0 leave them out). */
static int hy_with_r2r, hy_with_half;

/* One random token: kind, precision, shape, batch and layout. */
static void draw_token(char *buf, size_t size) {
  static const char *const kinds[] = {"c2c", "r2c", "c2r", "r2r"};
  const char *kind = kinds[rng_range(0, hy_with_r2r ? 3 : 2)];
  int f64 = (int)rng_range(0, 1);
  const char *half = NULL;
  if (hy_with_half && strcmp(kind, "r2r") != 0 && rng_range(0, 2) == 0) {
    half = rng_range(0, 1) ? "f16" : "bf16";
    f64 = 0;
  }
  int rank = (int)rng_range(1, 3);
  /* A quarter of the 3D draws are 4D. */
  if (rank == 3 && rng_range(0, 3) == 0) rank = 4;
  int64_t lens[4];
  /* At most 2^27 points in one transform, at most 2^14 per axis of a 2D,
   * 2^10 of a 3D and 2^6 of a 4D one (the suites' shapes: long 1D,
   * images, volumes). */
  int axis_bits = rank == 1 ? hy_max_bits : rank == 2 ? 14 : rank == 3 ? 10 : 6;
  /* Under a cap, a multi-dimensional transform keeps about 2^cap points. */
  if (hy_max_bits < 27 && rank > 1 && axis_bits > hy_max_bits / rank + 1)
    axis_bits = hy_max_bits / rank + 1;
  for (int d = 0; d < rank; d++) lens[d] = draw_length(axis_bits);
  int64_t points = 1;
  for (int d = 0; d < rank; d++) points *= lens[d];
  int64_t batch = 1;
  if (rng_range(0, 3) != 0) {
    /* Batches fill 2^26 points (2^(cap + 4) under a cap). */
    int64_t room = ((int64_t)1 << (hy_max_bits < 22 ? hy_max_bits + 4 : 26)) / points;
    if (room > 1) batch = rng_range(1, room > 65536 ? 65536 : room);
  }
  int pos = snprintf(buf, size, "%s:%s%s:", kind, half ? half : f64 ? "f64" : "f32",
                     kind[0] == 'c' && kind[2] == 'c' ? (rng_range(0, 1) ? ":fwd" : ":bwd") : "");
  if (strcmp(kind, "r2r") == 0) {
    static const char *const r2r[] = {"dct1", "dct2", "dct3", "dct4", "dst1",
                                      "dst2", "dst3", "dst4", "dht"};
    for (int d = 0; d < rank; d++) {
      const char *k = r2r[rng_range(0, 8)];
      /* DCT-I needs at least 2 points. */
      if (strcmp(k, "dct1") == 0 && lens[d] < 2) k = "dct2";
      pos += snprintf(buf + pos, size - (size_t)pos, "%s%s", d ? "x" : "", k);
    }
    pos += snprintf(buf + pos, size - (size_t)pos, ":");
  }
  for (int d = 0; d < rank; d++)
    pos += snprintf(buf + pos, size - (size_t)pos, "%s%lld", d ? "x" : "", (long long)lens[d]);
  const int batch_at = pos;
  if (batch > 1) pos += snprintf(buf + pos, size - (size_t)pos, ":b%lld", (long long)batch);
  int layout = (int)rng_range(0, 5);
  if (layout == 0) {
    pos += snprintf(buf + pos, size - (size_t)pos, ":ip");
  } else if (layout == 1 && strcmp(kind, "c2c") == 0 && rank == 1 && batch > 1) {
    /* Along the slow axis of a row-major matrix: stride = batch count,
     * batch distance 1. */
    pos += snprintf(buf + pos, size - (size_t)pos, ":is=%lld:os=%lld:idist=1:odist=1",
                    (long long)batch, (long long)batch);
  } else if (layout == 3 && strcmp(kind, "r2c") != 0 && strcmp(kind, "c2r") != 0 &&
             rank == 1 && batch >= 4) {
    /* Along the middle axis of a 3D array [b1][n][b2]: stride b2, two
     * batch dims that do not merge (distances n * b2 and 1). */
    int64_t b2 = rng_range(2, batch / 2 < 64 ? batch / 2 : 64), b1 = batch / b2;
    const int cut = batch_at;
    pos = cut + snprintf(buf + cut, size - (size_t)cut,
                         ":b%lldx%lld:is=%lld:os=%lld:idist=%lld,1:odist=%lld,1", (long long)b1,
                         (long long)b2, (long long)b2, (long long)b2, (long long)(lens[0] * b2),
                         (long long)(lens[0] * b2));
  } else if (layout == 2 && strcmp(kind, "c2c") == 0 && rank == 2) {
    /* Padded rows on both sides. */
    int64_t pad = lens[1] + rng_range(1, 17);
    pos += snprintf(buf + pos, size - (size_t)pos, ":is=%lld,1:os=%lld,1", (long long)pad,
                    (long long)pad);
  }
  (void)pos;
}

static hy_device_caps small_gpu_caps(void) {
  hy_device_caps c = hy_h100_caps();
  c.backend = HYFFT_BACKEND_OPENCL;
  c.compute_units = 20;
  c.local_memory = 48 * 1024;
  c.unit_local_memory = 64 * 1024;
  c.max_work_group = 256;
  c.min_full_block = 64;
  c.l2_cache = 4 * 1024 * 1024;
  c.global_memory = (int64_t)8 << 30;
  c.max_pass_length[HYFFT_F32] = 4096;
  c.max_pass_length[HYFFT_F64] = 2048;
  return c;
}

static hy_device_caps cpu_caps(void) {
  hy_device_caps c;
  memset(&c, 0, sizeof c);
  c.backend = HYFFT_BACKEND_CPU;
  c.compute_units = 2;
  c.local_memory = 32 * 1024;
  c.unit_local_memory = 32 * 1024;
  c.max_work_group = 1;
  c.min_full_block = 1;
  c.warp_size = 1;
  c.l2_cache = 1024 * 1024;
  c.global_memory = (int64_t)24 << 30;
  c.bandwidth = 2.0e10;
  c.launch_overhead = 1e-7;
  c.flop_rate = 1.0e11;
  c.supports_f64 = 1;
  c.max_pass_length[HYFFT_F32] = INT64_MAX;
  c.max_pass_length[HYFFT_F64] = INT64_MAX;
  return c;
}

typedef struct device_case {
  const char *name;
  hy_device_caps caps;
  hy_dialect dialect; /* generated for GPUs only */
  int gpu;
} device_case;

static void plan_one(const char *token, const device_case *dev, int *planned) {
  hyfft_problem user;
  hy_problem prob;
  if (hy_token_parse(token, &user) != HYFFT_SUCCESS || hy_problem_make(&user, &prob) != HYFFT_SUCCESS)
    return; /* an invalid draw (e.g. an in-place layout that does not fit) */
  hy_plan_tree tree;
  hy_status st = hy_planner_plan(&prob, &dev->caps, 0, &tree);
  CHECK(st == HYFFT_SUCCESS, "%s on %s: %s (%s)", token, dev->name, hyfft_status_name(st),
        st ? hyfft_last_error() : "");
  if (st != HYFFT_SUCCESS) return;
  ++*planned;
  if (getenv("HYFFT_SWEEP_VERBOSE") && getenv("HYFFT_SWEEP_TOKEN")) {
    hy_strbuf sb;
    hy_strbuf_init(&sb);
    hy_plan_tree_describe(&tree, &sb);
    printf("%s on %s:\n%s\n", token, dev->name, sb.data ? sb.data : "");
    hy_strbuf_free(&sb);
  }
  if (!dev->gpu) return;
  for (int p = 0; p < tree.npasses; p++)
    CHECK(tree.passes[p].op != HY_PASS_DFT ||
              hy_pass_computed_length(&tree.passes[p]) <= dev->caps.max_pass_length[prob.precision],
          "%s on %s: pass %d computes %lld points, past the pass limit", token, dev->name, p,
          (long long)hy_pass_computed_length(&tree.passes[p]));
  /* Programs of transforms past 2^22 points are planned but not
   * generated here: their Bluestein chirps and spectra (tables of the
   * whole length, computed in long double) take seconds each. */
  int64_t points = 1;
  for (int d = 0; d < prob.rank; d++) points *= prob.dims[d].n;
  if (points > ((int64_t)1 << 22)) return;
  hy_gpu_program prog;
  memset(&prog, 0, sizeof prog);
  st = hy_codegen_plan(&prob, &tree, &dev->caps, dev->dialect, &prog);
  CHECK(st == HYFFT_SUCCESS, "%s on %s: codegen: %s", token, dev->name,
        st ? hyfft_last_error() : "");
  if (st == HYFFT_SUCCESS) hy_gpu_program_free(&prog);
}

/* CPU plane passes: the two inner axes as one pass where a plane's input
 * and output fit the L2 (1 MiB in cpu_caps) and there is more than one
 * plane; otherwise one pass per axis. */
static void check_cpu_planes(void) {
  static const struct { const char *token; int passes, plane_inner; } cases[] = {
      {"c2c:f32:fwd:64x64x64", 2, 64},      /* 64 KB a plane */
      {"c2c:f64:bwd:64x64:b16", 1, 64},     /* batched planes, 128 KB */
      {"c2c:f32:fwd:30x128x128", 2, 128},   /* 256 KB */
      {"c2c:f64:fwd:128x128x128", 2, 128},  /* 512 KB */
      {"c2c:f32:fwd:6x256x256", 2, 256},    /* 1 MiB: the limit */
      {"c2c:f64:fwd:6x256x256", 3, 0},      /* 2 MiB */
      {"c2c:f32:fwd:64x64", 2, 0},          /* one plane */
  };
  hy_device_caps caps = cpu_caps();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hyfft_problem user;
    hy_problem prob;
    hy_plan_tree tree;
    CHECK(hy_token_parse(cases[i].token, &user) == HYFFT_SUCCESS &&
              hy_problem_make(&user, &prob) == HYFFT_SUCCESS &&
              hy_planner_plan(&prob, &caps, 0, &tree) == HYFFT_SUCCESS,
          "%s: plans on the CPU", cases[i].token);
    CHECK(tree.npasses == cases[i].passes, "%s: %d passes on the CPU, expected %d", cases[i].token,
          tree.npasses, cases[i].passes);
    CHECK(tree.passes[0].plane_inner == cases[i].plane_inner,
          "%s: first pass plane_inner %lld on the CPU, expected %d", cases[i].token,
          (long long)tree.passes[0].plane_inner, cases[i].plane_inner);
  }
}

int main(void) {
  check_cpu_planes();
  const char *seed_env = getenv("HYFFT_SWEEP_SEED"), *count_env = getenv("HYFFT_SWEEP_COUNT");
  uint64_t seed = 20261205;
  if (seed_env && strcmp(seed_env, "time") == 0)
    seed = (uint64_t)time(NULL);
  else if (seed_env)
    seed = strtoull(seed_env, NULL, 10);
  int count = count_env ? atoi(count_env) : 300;
  hy_with_r2r = !getenv("HYFFT_SWEEP_R2R") || atoi(getenv("HYFFT_SWEEP_R2R"));
  hy_with_half = !getenv("HYFFT_SWEEP_HALF") || atoi(getenv("HYFFT_SWEEP_HALF"));
  const char *bits_env = getenv("HYFFT_SWEEP_MAX_BITS");
  if (bits_env && atoi(bits_env) >= 4 && atoi(bits_env) <= 27) hy_max_bits = atoi(bits_env);
  hy_rng_state = seed;
  printf("plan sweep: %d problems, seed %llu\n", count, (unsigned long long)seed);
  device_case devs[] = {{"H100 (CUDA)", hy_h100_caps(), HY_DIALECT_CUDA, 1},
                        {"48 KiB GPU (OpenCL)", small_gpu_caps(), HY_DIALECT_OPENCL, 1},
                        {"CPU", cpu_caps(), HY_DIALECT_CUDA, 0}};
  int ndev = (int)(sizeof devs / sizeof devs[0]);
  int planned[3] = {0, 0, 0};
  char token[256];
  const char *one = getenv("HYFFT_SWEEP_TOKEN");
  if (one) {
    /* Reproduce one problem of an earlier sweep. */
    for (int d = 0; d < ndev; d++) plan_one(one, &devs[d], &planned[d]);
    count = 0;
  }
  for (int i = 0; i < count; i++) {
    draw_token(token, sizeof token);
    if (getenv("HYFFT_SWEEP_VERBOSE")) printf("%s\n", token), fflush(stdout);
    for (int d = 0; d < ndev; d++) plan_one(token, &devs[d], &planned[d]);
  }
  for (int d = 0; d < ndev; d++) printf("  %-22s %d planned\n", devs[d].name, planned[d]);
  return hy_test_summary();
}
