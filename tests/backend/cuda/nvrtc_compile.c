/* Every CUDA kernel of a representative plan matrix compiles with NVRTC
 * for sm_90 (an H100), without a GPU: plan each problem for the caps of an
 * H100, generate its CUDA program, compile it, and check that each named
 * kernel is in the image. Multi-kernel programs are also compiled the way
 * the backend builds them on a cache miss, one unit per kernel on parallel
 * threads, and both wall times printed (not asserted: machines differ).
 * Fails with the NVRTC log on any error; exits 77
 * (CTest "skipped") only when NVRTC itself is not installed.
 *
 * Usage: test_cuda_nvrtc_compile [--arch NN] [--print] [--callbacks | --conv] [TOKEN...]
 * --conv takes convolution tokens (conv:c2c:f32:64x64:b8:k3) and compiles
 * the forward plan and the inverse with the pointwise multiply in its
 * load callback (hy_conv_snippet), as hyfft_plan_convolution builds them,
 * checking that the inverse's first kernel calls it.
 * --print also writes each plan tree and its generated source (a way to
 * read, or feed to ptxas -v, the kernels an H100 would get, without one).
 *
 * HYFFT_TEST_NVRTC_CACHE=DIR keeps each successful CUBIN in DIR (files
 * nvrtc-test-<key>.bin of the disk cache's format, util/disk_cache.h), keyed by
 * the exact source text, the target, the NVRTC library (version and path)
 * and the line-table option: a later run that generates the same text
 * reads the image instead of compiling it again, and still runs every
 * check on it. A changed generator gives new text, so new compiles.
 * CI sets it (scripts/test-all.sh), as PoCL keeps its kernels between
 * runs; without it every program is compiled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/cuda/cuda_compile.h"
#include "codegen/codegen.h"
#include "exec/conv.h"
#include "common/check.h"
#include "planner/planner.h"
#include "util/disk_cache.h"
#include "util/settings.h"
#include "h100_caps.h"

/* All radices and odd primes, Bluestein, batched, multi-dimensional,
 * four-step lengths up to 2^24, both precisions and directions. */
static const char *const hy_tokens[] = {
    "c2c:f32:fwd:2", "c2c:f32:fwd:3", "c2c:f32:fwd:4", "c2c:f32:fwd:5", "c2c:f32:fwd:6",
    "c2c:f32:fwd:7", "c2c:f32:fwd:8", "c2c:f32:fwd:9", "c2c:f32:fwd:10", "c2c:f32:fwd:11",
    "c2c:f32:fwd:12", "c2c:f32:fwd:13", "c2c:f32:fwd:14", "c2c:f32:fwd:15", "c2c:f32:fwd:16",
    "c2c:f32:fwd:17", "c2c:f32:fwd:19", "c2c:f32:fwd:23", "c2c:f32:fwd:29", "c2c:f32:fwd:31",
    "c2c:f32:fwd:32", "c2c:f32:bwd:64", "c2c:f32:fwd:125", "c2c:f32:fwd:128:b64",
    "c2c:f32:fwd:243", "c2c:f32:fwd:256:b1000", "c2c:f32:fwd:343", "c2c:f32:fwd:1000",
    "c2c:f32:fwd:1024", "c2c:f32:bwd:1024:b256", "c2c:f32:fwd:1024:b64:ip", "c2c:f32:fwd:2048",
    "c2c:f32:fwd:4096", "c2c:f32:fwd:4096:b1024", "c2c:f32:fwd:8192", "c2c:f32:fwd:16384",
    "c2c:f32:fwd:32768", "c2c:f32:fwd:65536", "c2c:f32:fwd:1048576", "c2c:f32:fwd:16777216",
    "c2c:f32:fwd:97", "c2c:f32:fwd:101", "c2c:f32:fwd:1009", "c2c:f32:fwd:4099",
    "c2c:f32:fwd:65537", "c2c:f32:fwd:1000000", "c2c:f32:fwd:3000:b10", "c2c:f32:fwd:6561",
    "c2c:f32:fwd:15625", "c2c:f32:fwd:16807", "c2c:f32:fwd:64x64", "c2c:f32:fwd:128x256",
    "c2c:f32:bwd:1024x1024", "c2c:f32:fwd:4096x4096", "c2c:f32:fwd:100x100",
    "c2c:f32:fwd:97x31", "c2c:f32:fwd:64x64x64", "c2c:f32:fwd:256x256x256",
    "c2c:f32:fwd:32x64x128:b4", "c2c:f32:fwd:2x3x5x7", "c2c:f64:fwd:2", "c2c:f64:fwd:3",
    "c2c:f64:fwd:5", "c2c:f64:fwd:7", "c2c:f64:fwd:11", "c2c:f64:fwd:13", "c2c:f64:fwd:16",
    "c2c:f64:bwd:64", "c2c:f64:fwd:256:b512", "c2c:f64:fwd:1024", "c2c:f64:fwd:4096",
    "c2c:f64:fwd:8192", "c2c:f64:fwd:65536", "c2c:f64:bwd:1048576", "c2c:f64:fwd:16777216",
    "c2c:f64:fwd:101", "c2c:f64:fwd:1009", "c2c:f64:fwd:65537", "c2c:f64:fwd:1000:ip",
    "c2c:f64:fwd:512x512", "c2c:f64:fwd:128x128x128", "c2c:f64:bwd:100x100x100",
    "c2c:f64:fwd:17x19", "r2c:f32:1024", "r2c:f32:4096:b64", "r2c:f32:512x512",
    "c2r:f32:1024", "c2r:f32:256x256", "r2c:f64:1024", "c2r:f64:4096", "r2c:f32:1000",
    "r2c:f32:97", "r2c:f64:128x128x128", "c2r:f64:64x64x64", "c2c:f32:fwd:1",
    "c2c:f32:fwd:1x1:b8", "c2c:f64:fwd:65537:b511", "c2c:f32:fwd:65536:b1024",
};

/* Strided layouts the token grammar may not spell: built directly. */
static int hy_strided_problems(hyfft_problem *out, int max) {
  int n = 0;
  int64_t d1[1] = {256};
  /* Every 3rd element, transforms interleaved (FFTW guru). */
  if (n < max && hyfft_problem_init(&out[n], HYFFT_C2C, HYFFT_F32, HYFFT_FORWARD, 1, d1) == 0) {
    out[n].dims[0] = (hyfft_dim){256, 3, 3};
    out[n].batch_rank = 1;
    out[n].batch[0] = (hyfft_dim){3, 1, 1};
    n++;
  }
  /* Columns of a 512x512 matrix (stride 512), out-of-place contiguous. */
  if (n < max && hyfft_problem_init(&out[n], HYFFT_C2C, HYFFT_F64, HYFFT_BACKWARD, 1, d1) == 0) {
    out[n].dims[0] = (hyfft_dim){512, 512, 1};
    out[n].batch_rank = 1;
    out[n].batch[0] = (hyfft_dim){512, 1, 512};
    n++;
  }
  /* Padded rows: 1000 transforms of 1000 with distance 1024. */
  if (n < max && hyfft_problem_init(&out[n], HYFFT_C2C, HYFFT_F32, HYFFT_FORWARD, 1, d1) == 0) {
    out[n].dims[0] = (hyfft_dim){1000, 1, 1};
    out[n].batch_rank = 1;
    out[n].batch[0] = (hyfft_dim){1000, 1024, 1024};
    n++;
  }
  /* Scaled in-place 2D. */
  int64_t d2[2] = {64, 96};
  if (n < max && hyfft_problem_init(&out[n], HYFFT_C2C, HYFFT_F32, HYFFT_BACKWARD, 2, d2) == 0) {
    out[n].inplace = 1;
    out[n].scale = 1.0 / (64 * 96);
    n++;
  }
  return n;
}

static long hy_compiled_programs, hy_not_planned, hy_split_programs, hy_cached_images;

/* ---- the test cache of compiled images (HYFFT_TEST_NVRTC_CACHE) ----------- */

/* Entries of the shared disk cache's format (util/disk_cache.h: header,
 * checksum, atomic rename) in a directory of the test's own. */
static hy_disk_kind hy_test_images = {"nvrtc-test", "HYNVTST1", NULL};

static uint64_t hy_image_key(const char *source, int arch) {
  const hy_nvrtc *nv = NULL;
  uint64_t h = hy_hash_str(HY_HASH_INIT, "hyfft-nvrtc-test-image");
  h = hy_hash_str(h, source);
  h = hy_hash_u64(h, (uint64_t)arch);
  h = hy_hash_u64(h, (uint64_t)hy_settings_get()->cuda_lineinfo);
  if (hy_cuda_nvrtc_get(&nv) == HYFFT_SUCCESS) {
    h = hy_hash_u64(h, (uint64_t)nv->version);
    h = hy_hash_str(h, nv->path);
  }
  return h;
}

/* 1 and the image (hy_malloc'd) when the test cache holds it, else 0. */
static int hy_image_load(uint64_t key, void **image, size_t *size) {
  return hy_test_images.dir && hy_disk_cache_load(&hy_test_images, key, image, size) == HYFFT_SUCCESS;
}

static void hy_image_store(uint64_t key, const void *image, size_t size) {
  if (hy_test_images.dir) hy_disk_cache_store(&hy_test_images, key, image, size);
}

/* hy_cuda_compile through the test cache; *cached says which it was. */
static hy_status hy_test_compile(const char *source, int arch, void **image, size_t *size,
                                 int *is_ptx, int *cached) {
  uint64_t key = hy_image_key(source, arch);
  *cached = hy_image_load(key, image, size);
  if (*cached) {
    *is_ptx = 0;
    hy_cached_images++;
    return HYFFT_SUCCESS;
  }
  hy_status st = hy_cuda_compile(source, arch, image, size, is_ptx);
  if (st == HYFFT_SUCCESS && !*is_ptx) hy_image_store(key, *image, *size);
  return st;
}
static double hy_time_whole, hy_time_split; /* over the programs compiled both ways */

static double hy_seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* What the CUDA backend does on a cache miss for a multi-kernel program:
 * one translation unit per kernel (prelude + its block), all compiled at
 * once on parallel threads. Each image must hold its own kernel and no
 * other. `whole` is the one-unit compile time, printed beside (negative:
 * the one unit came from the test cache). Units in the test cache are read
 * and the others compiled. */
static void hy_compile_split(const char *name, const hy_gpu_program *program, int arch,
                             double whole) {
  int n = program->nkernels;
  hy_strbuf text[HY_MAX_KERNELS];
  hy_cuda_unit units[HY_MAX_KERNELS];
  memset(units, 0, sizeof units);
  hy_status st = HYFFT_SUCCESS;
  for (int k = 0; k < n; k++) {
    hy_strbuf_init(&text[k]);
    if (st == HYFFT_SUCCESS) st = hy_gpu_program_unit(program, k, &text[k]);
    units[k].name = program->names[k];
    units[k].source = text[k].data;
  }
  CHECK(st == HYFFT_SUCCESS, "%s: kernel units: %s", name, hyfft_last_error());
  int threads = hy_num_threads() < n ? hy_num_threads() : n;
  double split = 0;
  int from_cache = 0;
  if (st == HYFFT_SUCCESS) {
    /* Units the test cache holds are read; the others compiled at once. */
    uint64_t keys[HY_MAX_KERNELS];
    hy_cuda_unit build[HY_MAX_KERNELS];
    int pending[HY_MAX_KERNELS], nb = 0;
    for (int k = 0; k < n; k++) {
      keys[k] = hy_image_key(units[k].source, arch);
      if (hy_image_load(keys[k], &units[k].image, &units[k].size)) {
        from_cache++;
        hy_cached_images++;
      } else {
        pending[nb] = k;
        build[nb++] = units[k];
      }
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (nb) st = hy_cuda_compile_units(build, nb, arch, threads < nb ? threads : nb);
    split = hy_seconds_since(&t0);
    for (int j = 0; j < nb; j++) {
      units[pending[j]] = build[j];
      if (st == HYFFT_SUCCESS && build[j].image && !build[j].is_ptx)
        hy_image_store(keys[pending[j]], build[j].image, build[j].size);
    }
    CHECK(st == HYFFT_SUCCESS, "%s: split compile: %s", name, hyfft_last_error());
    if (st != HYFFT_SUCCESS)
      for (int k = 0; k < n; k++) printf("--- unit %d ---\n%s", k, units[k].source);
    for (int k = 0; k < n && st == HYFFT_SUCCESS; k++) {
      CHECK(units[k].image && !units[k].is_ptx, "%s: unit %d has no CUBIN", name, k);
      if (!units[k].image) continue;
      for (int j = 0; j < n; j++) {
        int has = memmem(units[k].image, units[k].size, program->names[j],
                         strlen(program->names[j])) != NULL;
        CHECK(has == (j == k), "%s: unit %d's CUBIN %s kernel %s", name, k,
              has ? "holds" : "lacks", program->names[j]);
      }
    }
    if (st == HYFFT_SUCCESS && from_cache == 0 && whole >= 0) {
      hy_split_programs++;
      hy_time_whole += whole;
      hy_time_split += split;
      printf("     %-36s split into %d units on %d threads: %.2f s (one unit %.2f s)\n", "",
             n, threads, split, whole);
    } else if (st == HYFFT_SUCCESS) {
      printf("     %-36s split into %d units, %d from the test cache\n", "", n, from_cache);
    }
  }
  for (int k = 0; k < n; k++) {
    hy_free(units[k].image);
    hy_strbuf_free(&text[k]);
  }
}

static int hy_print;

/* --callbacks: every problem with a load callback (a window read through
 * the user pointer) and a store callback (a mask and a scale), as
 * hyfft_plan_create_with_callbacks gives them to the generator. */
static int hy_callbacks;
static const char *const hy_load_snippet =
    "const HY_GLOBAL real *w = (const HY_GLOBAL real *)user;\n"
    "real2 v = in[index];\n"
    "return MK(v.x * w[index], v.y * w[index]);\n";
static const char *const hy_store_snippet =
    "real s = index % 5 == 1 ? (real)0 : (real)0.5;\n"
    "out[index] = MK(value.x * s, value.y * s);\n";
/* R2C's input and C2R's output: one real an element. */
static const char *const hy_load_snippet_real =
    "const HY_GLOBAL real *w = (const HY_GLOBAL real *)user;\n"
    "return in[index] * w[index];\n";
static const char *const hy_store_snippet_real =
    "out[index] = index % 5 == 1 ? (real)0 : (real)0.5 * value;\n";

/* The checks of a callback program beyond compiling: the first pass's
 * kernel calls the load callback, the last one's the store callback, a
 * different snippet gives a different program hash (the cache key), and
 * a snippet that does not compile gives HYFFT_COMPILE_ERROR with NVRTC's
 * log naming the snippet's line. */
static void hy_check_callback_program(const char *name, const hy_problem *prob,
                                      const hy_plan_tree *tree, const hy_device_caps *caps,
                                      const hy_gpu_program *program, int arch) {
  const char *text = program->source.data;
  CHECK(strstr(text, "hy_load_cb(src, ") || strstr(text, "hy_load_cb2(src, "),
        "%s: no load callback call", name);
  CHECK(strstr(text, "hy_store_cb(dst, ") || strstr(text, "hy_store_cb2(dst, "),
        "%s: no store callback call", name);
  CHECK(tree->npasses == program->nkernels, "%s: %d passes, %d kernels (a persistent kernel?)",
        name, tree->npasses, program->nkernels);
  /* Only the first kernel loads through the callback, only the last
   * stores through it. */
  for (int k = 0; k < program->nkernels && hy_gpu_program_has_units(program); k++) {
    size_t b = program->kernel_begin[k], e = program->kernel_end[k];
    const char *kt = program->source.data + b;
    int loads = memmem(kt, e - b, "hy_load_cb(src, ", 16) != NULL ||
                memmem(kt, e - b, "hy_load_cb2(src, ", 17) != NULL;
    int stores = memmem(kt, e - b, "hy_store_cb(dst, ", 17) != NULL ||
                 memmem(kt, e - b, "hy_store_cb2(dst, ", 18) != NULL;
    CHECK(loads == (k == 0), "%s: kernel %d %s the load callback", name, k,
          loads ? "calls" : "lacks");
    CHECK(stores == (k == program->nkernels - 1), "%s: kernel %d %s the store callback", name, k,
          stores ? "calls" : "lacks");
  }
  hy_problem other = *prob;
  other.store_cb = prob->kind == HYFFT_C2R ? "out[index] = (real)0.25 * value;\n"
                                            : "out[index] = cscale(value, (real)0.25);\n";
  hy_gpu_program p2;
  memset(&p2, 0, sizeof p2);
  hy_status st = hy_codegen_plan(&other, tree, caps, HY_DIALECT_CUDA, &p2);
  CHECK(st == HYFFT_SUCCESS, "%s: codegen of the second snippet: %s", name, hyfft_last_error());
  if (st == HYFFT_SUCCESS)
    CHECK(p2.hash != program->hash, "%s: two snippets, one program hash", name);
  hy_gpu_program_free(&p2);
  other = *prob;
  other.load_cb = "real2 v = in[index];\nreturn v +* ;\n";
  memset(&p2, 0, sizeof p2);
  st = hy_codegen_plan(&other, tree, caps, HY_DIALECT_CUDA, &p2);
  if (st == HYFFT_SUCCESS) {
    void *image = NULL;
    size_t size = 0;
    int is_ptx = 0;
    st = hy_cuda_compile(p2.source.data, arch, &image, &size, &is_ptx);
    CHECK(st == HYFFT_COMPILE_ERROR, "%s: a bad snippet gave %s", name, hyfft_status_name(st));
    CHECK(strstr(hyfft_last_error(), "load_callback(2)") != NULL,
          "%s: the NVRTC log does not name load_callback(2): %s", name, hyfft_last_error());
    hy_free(image);
  }
  hy_gpu_program_free(&p2);
}

/* --ooc-twiddle: each token names a 1D length N, compiled as the first
 * sweep's sub-plan of an out-of-core plan (exec/out_of_core.c): the
 * n1-point DFTs of a block of columns out of place into [column][k1], then
 * the twiddle pass (HY_PASS_TWIDDLE) with the block's first column read
 * from behind the input. */
static int64_t hy_twiddle_n;

/* --conv: the load snippet of the inverse being compiled (NULL: none). */
static int hy_conv_mode;
static const char *hy_conv_load;

static void hy_compile_problem(const char *name, const hyfft_problem *user, int arch,
                               const hy_device_caps *caps) {
  hy_problem prob;
  hy_status st = hy_problem_make(user, &prob);
  CHECK(st == HYFFT_SUCCESS, "%s: problem rejected: %s", name, hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  if (hy_conv_load) prob.load_cb = hy_conv_load;
  if (hy_callbacks) {
    prob.load_cb = prob.kind == HYFFT_R2C ? hy_load_snippet_real : hy_load_snippet;
    prob.store_cb = prob.kind == HYFFT_C2R ? hy_store_snippet_real : hy_store_snippet;
  }
  hy_plan_tree tree;
  st = hy_planner_plan(&prob, caps, 0, &tree);
  if (st == HYFFT_NOT_SUPPORTED || st == HYFFT_NO_SOLVER) {
    /* Not a compile failure: reported, counted, and listed at the end. */
    printf("  not planned  %-28s %s: %s\n", name, hyfft_status_name(st), hyfft_last_error());
    hy_not_planned++;
    return;
  }
  CHECK(st == HYFFT_SUCCESS, "%s: planner: %s", name, hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  if (hy_twiddle_n) {
    hyfft_dim axis = {prob.dims[0].n, 1, 1}, loop = {prob.batch[0].n, prob.dims[0].n, prob.dims[0].n};
    st = hy_planner_append_twiddle(&tree, prob.precision, prob.sign, hy_twiddle_n, HY_BUF_OUT, axis,
                                   loop, prob.batch[0].n * prob.dims[0].n);
    CHECK(st == HYFFT_SUCCESS, "%s: twiddle pass: %s", name, hyfft_last_error());
    if (st != HYFFT_SUCCESS) return;
  }
  hy_gpu_program program;
  memset(&program, 0, sizeof program);
  st = hy_codegen_plan(&prob, &tree, caps, HY_DIALECT_CUDA, &program);
  if (st == HYFFT_NOT_SUPPORTED) {
    printf("  not generated %-27s %s\n", name, hyfft_last_error());
    hy_not_planned++;
    return;
  }
  CHECK(st == HYFFT_SUCCESS, "%s: codegen: %s", name, hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  if (hy_print) {
    hy_strbuf d;
    hy_strbuf_init(&d);
    hy_plan_tree_describe(&tree, &d);
    printf("==== %s\n%s\n%s\n==== end %s\n", name, d.data ? d.data : "", program.source.data,
           name);
    hy_strbuf_free(&d);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  void *image = NULL;
  size_t size = 0;
  int is_ptx = 0, cached = 0;
  st = hy_test_compile(program.source.data, arch, &image, &size, &is_ptx, &cached);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double whole = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  CHECK(st == HYFFT_SUCCESS, "%s: %s\n--- source ---\n%s", name, hyfft_last_error(),
        program.source.data);
  if (st == HYFFT_SUCCESS) {
    hy_compiled_programs++;
    CHECK(!is_ptx, "%s: NVRTC fell back to PTX for sm_%d", name, arch);
    /* Kernel names appear in the image's symbol table. */
    for (int k = 0; k < program.nkernels; k++)
      CHECK(memmem(image, size, program.names[k], strlen(program.names[k])) != NULL,
            "%s: kernel %s not in the image", name, program.names[k]);
    if (cached)
      printf("  ok %-36s %d kernel(s) %d launch(es) %7zu bytes  (test cache)\n", name,
             program.nkernels, program.nlaunches, size);
    else
      printf("  ok %-36s %d kernel(s) %d launch(es) %7zu bytes  %.2f s\n", name,
             program.nkernels, program.nlaunches, size, whole);
  }
  hy_free(image);
  if (st == HYFFT_SUCCESS && hy_callbacks)
    hy_check_callback_program(name, &prob, &tree, caps, &program, arch);
  if (st == HYFFT_SUCCESS && hy_conv_load && hy_gpu_program_has_units(&program)) {
    /* The multiply, padding or crop is in the first kernel's loads and
     * nowhere else. */
    for (int k = 0; k < program.nkernels; k++) {
      size_t b = program.kernel_begin[k], e = program.kernel_end[k];
      const char *kt = program.source.data + b;
      int loads = memmem(kt, e - b, "hy_load_cb(src, ", 16) != NULL ||
                  memmem(kt, e - b, "hy_load_cb2(src, ", 17) != NULL;
      CHECK(loads == (k == 0), "%s: kernel %d %s the load callback", name, k,
            loads ? "calls" : "lacks");
    }
  }
  CHECK(hy_gpu_program_has_units(&program), "%s: no valid prelude/kernel layout", name);
  if (st == HYFFT_SUCCESS && program.nkernels > 1 && hy_gpu_program_has_units(&program))
    hy_compile_split(name, &program, arch, cached ? -1.0 : whole);
  hy_gpu_program_free(&program);
}

int main(int argc, char **argv) {
  int arch = 90;
  int first_token = 1;
  if (argc > 2 && strcmp(argv[1], "--arch") == 0) {
    arch = atoi(argv[2]);
    first_token = 3;
  }
  if (argc > first_token && strcmp(argv[first_token], "--print") == 0) {
    hy_print = 1;
    first_token++;
  }
  if (argc > first_token && strcmp(argv[first_token], "--callbacks") == 0) {
    hy_callbacks = 1;
    first_token++;
  } else if (argc > first_token && strcmp(argv[first_token], "--conv") == 0) {
    hy_conv_mode = 1;
    first_token++;
  }
  int ooc_twiddle = 0;
  if (argc > first_token && strcmp(argv[first_token], "--ooc-twiddle") == 0) {
    ooc_twiddle = 1;
    first_token++;
  }
  const char *test_cache = getenv("HYFFT_TEST_NVRTC_CACHE");
  hy_test_images.dir = test_cache && test_cache[0] ? test_cache : NULL;
  const hy_nvrtc *nv;
  if (hy_cuda_nvrtc_get(&nv) != HYFFT_SUCCESS) {
    printf("SKIP: NVRTC is not installed (%s)\n", hyfft_last_error());
    return 77;
  }
  printf("NVRTC %d.%d from %s, target sm_%d\n", nv->version / 1000, nv->version % 1000 / 10,
         nv->path, arch);
  hy_device_caps caps = hy_h100_caps();
  if (hy_conv_mode) {
    for (int i = first_token; i < argc; i++) {
      hyfft_problem sig, fwd, inv, crop_p;
      hyfft_window win;
      int64_t k = 0;
      int conv = strncmp(argv[i], "conv:", 5) == 0;
      hy_status st = conv ? hy_conv_token_parse(argv[i], &sig, &k, &win)
                          : hy_window_token_parse(argv[i], &sig, &win);
      CHECK(st == HYFFT_SUCCESS, "token %s: %s", argv[i], hyfft_last_error());
      if (st != HYFFT_SUCCESS) continue;
      if (!conv) k = 0;
      hy_strbuf pad, crop, mul;
      hy_strbuf_init(&pad);
      hy_strbuf_init(&crop);
      hy_strbuf_init(&mul);
      st = hy_conv_window_programs(&sig, k, &win, &pad, &crop, &crop_p);
      CHECK(st == HYFFT_SUCCESS, "token %s: window: %s", argv[i], hyfft_last_error());
      fwd = sig;
      if (conv) fwd.sign = HYFFT_FORWARD;
      fwd.inplace = 0;
      /* A padded input: the first transform sees n contiguous points. */
      if (pad.data) {
        int64_t acc = 1;
        for (int d = fwd.rank - 1; d >= 0; d--) {
          fwd.dims[d].in_stride = acc;
          acc *= fwd.dims[d].n;
        }
        for (int d = fwd.batch_rank - 1; d >= 0; d--) {
          fwd.batch[d].in_stride = acc;
          acc *= fwd.batch[d].n;
        }
      }
      char name[300];
      snprintf(name, sizeof name, "%s %s", argv[i], conv ? "forward" : "transform");
      hy_conv_load = pad.data;
      if (st == HYFFT_SUCCESS) hy_compile_problem(name, &fwd, arch, &caps);
      if (st == HYFFT_SUCCESS && conv) {
        st = hy_conv_inverse_problem(&sig, k, &inv);
        CHECK(st == HYFFT_SUCCESS, "token %s: inverse: %s", argv[i], hyfft_last_error());
        hy_conv_snippet(hy_conv_spectrum_elems(&sig), k, &mul);
        hy_conv_load = mul.data;
        snprintf(name, sizeof name, "%s inverse", argv[i]);
        if (st == HYFFT_SUCCESS) hy_compile_problem(name, &inv, arch, &caps);
      }
      if (st == HYFFT_SUCCESS && crop.data) {
        hy_conv_load = crop.data;
        snprintf(name, sizeof name, "%s crop", argv[i]);
        hy_compile_problem(name, &crop_p, arch, &caps);
      }
      hy_conv_load = NULL;
      hy_strbuf_free(&pad);
      hy_strbuf_free(&crop);
      hy_strbuf_free(&mul);
    }
  } else if (argc > first_token) {
    for (int i = first_token; i < argc; i++) {
      hyfft_problem p;
      hy_status st = hy_token_parse(argv[i], &p);
      CHECK(st == HYFFT_SUCCESS, "token %s: %s", argv[i], hyfft_last_error());
      if (st == HYFFT_SUCCESS && ooc_twiddle) {
        /* A block of up to 2048 columns of the split n = n1 x n2. */
        int64_t n = p.dims[0].n, n1 = 1;
        for (int64_t d = 2; d * d <= n; d++)
          if (n % d == 0) n1 = d;
        int64_t n2 = n / n1, count = n2 < 2048 ? n2 : 2048;
        p.rank = 1;
        p.batch_rank = 1;
        p.inplace = 0;
        p.dims[0] = (hyfft_dim){n1, count, 1};
        p.batch[0] = (hyfft_dim){count, 1, n1};
        p.memory = HYFFT_MEMORY_DEVICE;
        hy_twiddle_n = n;
        /* f32 twiddles from f64 tables, and (a device without f64) from
         * f32 ones. */
        if (p.precision == HYFFT_F32) {
          hy_device_caps no_f64 = caps;
          no_f64.supports_f64 = 0;
          hy_compile_problem(argv[i], &p, arch, &no_f64);
        }
      }
      if (st == HYFFT_SUCCESS) hy_compile_problem(argv[i], &p, arch, &caps);
    }
  } else {
    for (size_t i = 0; i < sizeof hy_tokens / sizeof hy_tokens[0]; i++) {
      hyfft_problem p;
      hy_status st = hy_token_parse(hy_tokens[i], &p);
      CHECK(st == HYFFT_SUCCESS, "token %s: %s", hy_tokens[i], hyfft_last_error());
      if (st == HYFFT_SUCCESS) hy_compile_problem(hy_tokens[i], &p, arch, &caps);
    }
    hyfft_problem strided[8];
    int ns = hy_strided_problems(strided, 8);
    for (int i = 0; i < ns; i++) {
      char name[128];
      if (hyfft_problem_print(&strided[i], name, sizeof name, NULL) != HYFFT_SUCCESS)
        snprintf(name, sizeof name, "strided #%d", i);
      hy_compile_problem(name, &strided[i], arch, &caps);
    }
  }
  printf("%ld programs built for sm_%d, %ld problems not planned or generated\n",
         hy_compiled_programs, arch, hy_not_planned);
  if (hy_test_images.dir)
    printf("%ld images read from the test cache %s\n", hy_cached_images, hy_test_images.dir);
  if (hy_split_programs)
    printf("%ld multi-kernel programs: %.2f s as one unit each, %.2f s split per kernel in "
           "parallel (%d threads at most)\n",
           hy_split_programs, hy_time_whole, hy_time_split, hy_num_threads());
  return hy_test_summary();
}
