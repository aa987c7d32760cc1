/* The generated programs of every problem of bench/suites/standard.txt and
 * quick.txt, for CUDA and OpenCL on an H100's caps, with the model's
 * switches and with each variant the tuner tries: their hashes (source
 * text, launches and table contents of the plan's program, of the plain
 * program a persistent one was made from, and of the quick first tier of
 * a plane plan) must equal tests/unit/golden_sources.txt. A refactoring
 * of the planner or the generator keeps them; a change that means to
 * change kernels rewrites the file (`hyfft_unit_golden_sources --write
 * FILE`) and says why in its commit. No GPU or compiler needed.
 *
 * Usage: hyfft_unit_golden_sources SUITES_DIR GOLDEN_FILE [--write OUT] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/settings.h"
#include "check.h"
#include "codegen/codegen.h"
#include "planner/planner.h"
#include "../backend/cuda/h100_caps.h"

/* Variants the tuner tries (api/tune.c), each applied to every DFT pass. */
static const char *const hy_variants[] = {"",        "rader=1",     "rader=0",     "ftwsin=1",
                                          "ftwsin=2", "tmul=2",     "tdiv=2",      "mmul=2",
                                          "mdiv=2",  "minblocks=3", "pad=0",       "pad=1",
                                          "tworadix=32", "tworadix=16", "persist=1", "persist=0",
                                          "split=1", "split=0",     "twstage=0",   "merge=0",
                                          "merge=2", "tdiv=2,mmul=2", "stagein=1", NULL};

static uint64_t hash_program(uint64_t h, const hy_gpu_program *p) {
  h = hy_hash_u64(h, (uint64_t)p->source.len);
  if (p->source.len) h = hy_hash_bytes(h, p->source.data, p->source.len);
  h = hy_hash_u64(h, (uint64_t)p->nkernels);
  for (int k = 0; k < p->nkernels; k++) h = hy_hash_str(h, p->names[k]);
  h = hy_hash_u64(h, (uint64_t)p->ntables);
  for (int t = 0; t < p->ntables; t++) {
    h = hy_hash_u64(h, (uint64_t)p->tables[t].count);
    h = hy_hash_u64(h, (uint64_t)p->tables[t].type);
    h = hy_hash_bytes(h, p->tables[t].data, hy_table_bytes(&p->tables[t]));
  }
  h = hy_hash_u64(h, (uint64_t)p->nlaunches);
  for (int i = 0; i < p->nlaunches; i++) {
    const hy_launch *l = &p->launches[i];
    h = hy_hash_u64(h, (uint64_t)l->kernel);
    h = hy_hash_u64(h, (uint64_t)l->grid);
    h = hy_hash_u64(h, (uint64_t)l->block);
    h = hy_hash_u64(h, (uint64_t)l->shared_bytes);
    h = hy_hash_u64(h, (uint64_t)l->block_offset);
    h = hy_hash_u64(h, (uint64_t)l->batch_blocks);
    h = hy_hash_u64(h, (uint64_t)l->nargs);
    for (int a = 0; a < l->nargs; a++) {
      h = hy_hash_u64(h, (uint64_t)l->args[a].kind);
      h = hy_hash_u64(h, (uint64_t)l->args[a].index);
    }
  }
  return hy_hash_u64(h, (uint64_t)p->work_elems);
}

/* The hash of everything generated for `token` with `variant` in `dialect`
 * (0 when it does not plan or generate: a variant may exceed a limit). */
static uint64_t hash_problem(const char *token, const char *variant, hy_dialect dialect,
                             const hy_device_caps *caps) {
  hyfft_problem user;
  hy_problem prob;
  hy_plan_tree tree, quick;
  if (hy_token_parse(token, &user) != HYFFT_SUCCESS || hy_problem_make(&user, &prob) != HYFFT_SUCCESS ||
      hy_planner_plan(&prob, caps, 0, &tree) != HYFFT_SUCCESS ||
      hy_planner_set_variant(&prob, caps, &tree, variant) != HYFFT_SUCCESS) {
    hy_error_clear();
    return 0;
  }
  hy_gpu_program prog, plain;
  if (hy_codegen_plan_tiers(&prob, &tree, caps, dialect, &prog, &plain) != HYFFT_SUCCESS) {
    hy_error_clear();
    return 0;
  }
  uint64_t h = hash_program(HY_HASH_INIT, &prog);
  h = hash_program(h, &plain);
  hy_gpu_program_free(&prog);
  hy_gpu_program_free(&plain);
  if (hy_planner_quick_tree(&prob, &tree, caps, &quick)) {
    /* The quick tier is planned without plane passes (hy_planner_quick_tree). */
    hy_device_caps quick_caps = *caps;
    quick_caps.no_planes = 1;
    hy_planner_set_variant(&prob, &quick_caps, &quick, variant);
    if (hy_codegen_plan(&prob, &quick, caps, dialect, &prog) == HYFFT_SUCCESS) {
      h = hash_program(hy_hash_u64(h, 1), &prog);
      hy_gpu_program_free(&prog);
    } else {
      hy_error_clear();
      h = hy_hash_u64(h, 2);
    }
  }
  return h ? h : 1;
}

/* Tokens of a suite file: one per line, '#' comments and blank lines skipped. */
static int read_suite(const char *path, char tokens[][128], int max, int n) {
  FILE *f = fopen(path, "r");
  if (!f) {
    CHECK(0, "cannot open %s", path);
    return n;
  }
  char line[256];
  while (fgets(line, sizeof line, f) && n < max) {
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strcspn(s, "#\r\n");
    while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
    *e = '\0';
    if (!*s) continue;
    int dup = 0;
    for (int i = 0; i < n && !dup; i++) dup = strcmp(tokens[i], s) == 0;
    if (!dup && strlen(s) < 128) memcpy(tokens[n++], s, strlen(s) + 1);
  }
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  if (argc != 3 && !(argc == 5 && strcmp(argv[3], "--write") == 0)) {
    fprintf(stderr, "usage: %s SUITES_DIR GOLDEN_FILE [--write OUT]\n", argv[0]);
    return 2;
  }
  /* The model's choices only: no switch from the environment. */
  static const char *const env[] = {"HYFFT_KERNEL_SPEC", "HYFFT_RADER", "HYFFT_L2_CHUNK",
                                    "HYFFT_REVERSE", "HYFFT_PERSIST", "HYFFT_MEASURE", NULL};
  for (int i = 0; env[i]; i++) unsetenv(env[i]);
  hy_settings_reload();
  static char tokens[512][128];
  char path[1024];
  snprintf(path, sizeof path, "%s/standard.txt", argv[1]);
  int n = read_suite(path, tokens, 512, 0);
  snprintf(path, sizeof path, "%s/quick.txt", argv[1]);
  n = read_suite(path, tokens, 512, n);
  CHECK(n > 50, "only %d problems read from %s", n, argv[1]);

  hy_device_caps cuda = hy_h100_caps();
  hy_device_caps opencl = cuda;
  opencl.backend = HYFFT_BACKEND_OPENCL;
  FILE *out = NULL;
  if (argc == 5) {
    out = fopen(argv[4], "w");
    if (!out) {
      fprintf(stderr, "cannot write %s\n", argv[4]);
      return 1;
    }
    fprintf(out, "# Hashes of the generated programs (tests/unit/test_golden_sources.c):\n"
                 "# token variant cuda-hash opencl-hash (0: not generated)\n");
  }
  FILE *golden = out ? NULL : fopen(argv[2], "r");
  if (!out) CHECK(golden != NULL, "cannot open %s", argv[2]);
  int compared = 0, differ = 0;
  char line[512];
  for (int t = 0; t < n; t++) {
    for (int v = 0; hy_variants[v]; v++) {
      uint64_t hc = hash_problem(tokens[t], hy_variants[v], HY_DIALECT_CUDA, &cuda);
      uint64_t ho = hash_problem(tokens[t], hy_variants[v], HY_DIALECT_OPENCL, &opencl);
      const char *vname = *hy_variants[v] ? hy_variants[v] : "-";
      if (out) {
        fprintf(out, "%s %s %016llx %016llx\n", tokens[t], vname, (unsigned long long)hc,
                (unsigned long long)ho);
        continue;
      }
      /* The golden file lists the same problems in the same order. */
      int got = 0;
      char gt[128], gv[64];
      unsigned long long gc = 0, go = 0;
      while (golden && fgets(line, sizeof line, golden))
        if (line[0] != '#' && sscanf(line, "%127s %63s %llx %llx", gt, gv, &gc, &go) == 4) {
          got = 1;
          break;
        }
      if (!got || strcmp(gt, tokens[t]) != 0 || strcmp(gv, vname) != 0) {
        CHECK(0, "golden file out of step at %s %s (rewrite it with --write)", tokens[t], vname);
        t = n;
        break;
      }
      compared++;
      differ += gc != hc || go != ho;
      CHECK(gc == hc && go == ho, "%s %s: cuda %016llx (golden %016llx), opencl %016llx (golden %016llx)",
            tokens[t], vname, (unsigned long long)hc, gc, (unsigned long long)ho, go);
    }
  }
  if (out) {
    fclose(out);
    printf("wrote %d problems x %d variants to %s\n", n, (int)(sizeof hy_variants / sizeof *hy_variants) - 1,
           argv[4]);
    return 0;
  }
  if (golden) fclose(golden);
  printf("%d problems, %d programs compared, %d differ\n", n, compared, differ);
  return hy_test_summary();
}
