/* Kernels of one plan compiled one translation unit each, in parallel.
 *
 * Without a GPU (NVRTC only; exit 77 when NVRTC is missing): a generated
 * multi-kernel program cut into its units, built through the disk cache
 * (first all compiled, then all read back byte for byte, a corrupt entry
 * rebuilt alone), and a unit that does not compile failing the whole
 * build with its own name and NVRTC log and no image left behind; and
 * the background compile of one unit (a tiered plan's persistent kernel).
 * With a GPU: the same program loaded by the backend (one module per
 * kernel: compiled once each, then memory hits, then disk hits from a new
 * context), and multi-kernel plans through the public API against their
 * exact answer (a shifted impulse gives a pure tone).
 *
 * Usage: test_cuda_cuda_units [TOKEN]   (default c2c:f32:fwd:65537) */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/settings.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_compile.h"
#include "common/check.h"
#include "planner/planner.h"
#include "h100_caps.h"

static hy_status hy_generate(const char *token, const hy_device_caps *caps, hy_gpu_program *out) {
  hyfft_problem user;
  hy_problem prob;
  hy_plan_tree tree;
  memset(out, 0, sizeof *out);
  HY_TRY(hy_token_parse(token, &user));
  HY_TRY(hy_problem_make(&user, &prob));
  HY_TRY(hy_planner_plan(&prob, caps, 0, &tree));
  return hy_codegen_plan(&prob, &tree, caps, HY_DIALECT_CUDA, out);
}

/* The program's units as the backend makes them; keys from the text. */
typedef struct hy_units {
  int n;
  hy_strbuf text[HY_MAX_KERNELS];
  hy_cuda_unit unit[HY_MAX_KERNELS];
  uint64_t key[HY_MAX_KERNELS];
  int from_disk[HY_MAX_KERNELS];
} hy_units;

static void hy_units_make(const hy_gpu_program *p, hy_units *u) {
  memset(u, 0, sizeof *u);
  u->n = p->nkernels;
  for (int k = 0; k < u->n; k++) {
    hy_strbuf_init(&u->text[k]);
    CHECK_OK(hy_gpu_program_unit(p, k, &u->text[k]));
    u->unit[k].name = p->names[k];
    u->unit[k].source = u->text[k].data;
    u->key[k] = hy_hash_str(hy_hash_u64(HY_HASH_INIT, 0x7e57), u->text[k].data ? u->text[k].data : "");
  }
}

static void hy_units_drop_images(hy_units *u) {
  for (int k = 0; k < u->n; k++) {
    hy_free(u->unit[k].image);
    u->unit[k].image = NULL;
  }
}

static void hy_units_free(hy_units *u) {
  hy_units_drop_images(u);
  for (int k = 0; k < u->n; k++) hy_strbuf_free(&u->text[k]);
}

static int hy_count_disk(const hy_units *u) {
  int c = 0;
  for (int k = 0; k < u->n; k++) c += u->from_disk[k];
  return c;
}

static void hy_test_build(const char *token, const char *dir) {
  hy_device_caps caps = hy_h100_caps();
  hy_gpu_program p;
  hy_status st = hy_generate(token, &caps, &p);
  CHECK(st == HYFFT_SUCCESS, "%s: %s", token, hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  CHECK(p.nkernels > 1 && hy_gpu_program_has_units(&p), "%s: %d kernels, layout %d", token,
        p.nkernels, hy_gpu_program_has_units(&p));
  /* The prelude holds no kernel and each unit exactly its own. */
  CHECK(strstr(p.source.data, "__global__") > p.source.data + p.prelude_end,
        "the prelude holds no kernel");
  hy_units u;
  hy_units_make(&p, &u);
  setenv("HYFFT_CACHE_DIR", dir, 1);
  hy_settings_reload();

  double t0 = hy_now();
  CHECK_OK(hy_cuda_units_build(u.unit, u.key, u.from_disk, u.n, 90));
  double cold = hy_now() - t0;
  CHECK(hy_count_disk(&u) == 0, "first build compiles every unit (%d from disk)",
        hy_count_disk(&u));
  void *first[HY_MAX_KERNELS];
  size_t first_size[HY_MAX_KERNELS];
  for (int k = 0; k < u.n; k++) {
    CHECK(u.unit[k].image && u.unit[k].size > 0, "unit %d has an image", k);
    for (int j = 0; j < u.n && u.unit[k].image; j++) {
      int has = memmem(u.unit[k].image, u.unit[k].size, p.names[j], strlen(p.names[j])) != NULL;
      CHECK(has == (j == k), "unit %d's image %s %s", k, has ? "holds" : "lacks", p.names[j]);
    }
    first[k] = u.unit[k].image;
    first_size[k] = u.unit[k].size;
    u.unit[k].image = NULL;
  }

  t0 = hy_now();
  CHECK_OK(hy_cuda_units_build(u.unit, u.key, u.from_disk, u.n, 90));
  double warm = hy_now() - t0;
  CHECK(hy_count_disk(&u) == u.n, "second build reads every unit from disk (%d of %d)",
        hy_count_disk(&u), u.n);
  for (int k = 0; k < u.n; k++)
    CHECK(u.unit[k].image && u.unit[k].size == first_size[k] &&
              memcmp(u.unit[k].image, first[k], first_size[k]) == 0,
          "unit %d read back as stored", k);
  hy_units_drop_images(&u);
  printf("%s: %d units, cold %.2f s (compiled in parallel, %d threads), warm %.4f s (disk)\n",
         token, u.n, cold, hy_num_threads(), warm);

  /* A corrupt entry is rebuilt alone and replaced. */
  int bad = u.n / 2;
  char path[640];
  hy_cuda_cache_path(u.key[bad], path, sizeof path);
  FILE *f = fopen(path, "r+b");
  CHECK(f != NULL, "open %s", path);
  if (f) {
    fseek(f, 40, SEEK_SET);
    fputs("garbage", f);
    fclose(f);
  }
  CHECK_OK(hy_cuda_units_build(u.unit, u.key, u.from_disk, u.n, 90));
  CHECK(hy_count_disk(&u) == u.n - 1 && !u.from_disk[bad],
        "only the corrupt unit %d is rebuilt (%d from disk)", bad, hy_count_disk(&u));
  CHECK(u.unit[bad].image && u.unit[bad].size == first_size[bad], "rebuilt unit has its image");
  hy_units_drop_images(&u);
  CHECK_OK(hy_cuda_units_build(u.unit, u.key, u.from_disk, u.n, 90));
  CHECK(hy_count_disk(&u) == u.n, "the rebuilt entry is read back (%d of %d)",
        hy_count_disk(&u), u.n);
  hy_units_drop_images(&u);

  /* One unit that does not compile fails the build with its name and
   * log; no image is left (cache off, so nothing comes from disk). */
  setenv("HYFFT_CACHE_DIR", "off", 1);
  hy_settings_reload();
  const char *saved = u.unit[bad].source;
  u.unit[bad].source = "extern \"C\" __global__ void hy_broken_unit( { }\n";
  CHECK_STATUS(hy_cuda_units_build(u.unit, u.key, u.from_disk, u.n, 90), HYFFT_COMPILE_ERROR);
  CHECK(strstr(hyfft_last_error(), p.names[bad]) != NULL && strstr(hyfft_last_error(), "error"),
        "the message names the failing kernel and holds its log: %.300s", hyfft_last_error());
  for (int k = 0; k < u.n; k++) CHECK(u.unit[k].image == NULL, "no image left for unit %d", k);
  /* The same through the bare parallel compiler, one thread and many. */
  CHECK_STATUS(hy_cuda_compile_units(u.unit, u.n, 90, 1), HYFFT_COMPILE_ERROR);
  CHECK_STATUS(hy_cuda_compile_units(u.unit, u.n, 90, 64), HYFFT_COMPILE_ERROR);
  for (int k = 0; k < u.n; k++) CHECK(u.unit[k].image == NULL, "no image left for unit %d", k);
  u.unit[bad].source = saved;
  CHECK_OK(hy_cuda_compile_units(u.unit, 1, 90, 8));
  CHECK(u.unit[0].image != NULL && u.unit[1].image == NULL, "one unit compiled alone");
  CHECK_OK(hy_cuda_compile_units(u.unit, 0, 90, 8));

  for (int k = 0; k < u.n; k++) hy_free(first[k]);
  hy_units_free(&u);
  hy_gpu_program_free(&p);
}

/* The background compile (a tiered plan's persistent kernel): the image
 * it hands over is what the synchronous compile makes and lands in the
 * disk cache under its key; a source that does not compile comes back as
 * the compile error with NVRTC's log; a job freed unfinished is waited
 * for. No GPU needed. */
static void hy_test_background(const char *dir) {
  hy_device_caps caps = hy_h100_caps();
  hy_gpu_program p;
  hy_status st = hy_generate("c2c:f32:fwd:65536:b64", &caps, &p);
  CHECK(st == HYFFT_SUCCESS, "c2c:f32:fwd:65536:b64: %s", hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  CHECK(strstr(p.source.data, "hy_persist_passes") != NULL, "65536 x64 is a persistent program");
  setenv("HYFFT_CACHE_DIR", dir, 1);
  hy_settings_reload();
  const uint64_t key = 0x7165726564ull; /* any key: the test's own entry */
  hy_cuda_background *job = NULL;
  double t0 = hy_now();
  CHECK_OK(hy_cuda_background_start(p.source.data, 90, key, &job));
  double started = hy_now() - t0;
  void *image = NULL, *sync_image = NULL, *cached = NULL;
  size_t size = 0, sync_size = 0, cached_size = 0;
  int is_ptx = 0;
  if (job) {
    CHECK_OK(hy_cuda_background_finish(job, &image, &size));
    double done = hy_now() - t0;
    CHECK(hy_cuda_background_done(job), "finished jobs say so");
    CHECK(image && size > 0 && memmem(image, size, "hy_persist_passes", 17) != NULL,
          "the background image holds the persistent kernel");
    CHECK_STATUS(hy_cuda_background_finish(job, &cached, &cached_size), HYFFT_INTERNAL);
    hy_cuda_background_free(job);
    CHECK_OK(hy_cuda_compile(p.source.data, 90, &sync_image, &sync_size, &is_ptx));
    CHECK(image && sync_image && size == sync_size && memcmp(image, sync_image, size) == 0,
          "the background image is the synchronous compile's (%zu and %zu bytes)", size,
          sync_size);
    CHECK_OK(hy_cuda_cache_load(key, &cached, &cached_size));
    CHECK(cached && cached_size == size && memcmp(cached, image, size) == 0,
          "the disk cache holds the background image");
    printf("background compile of the persistent program: start returned in %.4f s, image "
           "after %.2f s\n", started, done);
  }
  hy_free(image);
  hy_free(sync_image);
  hy_free(cached);
  /* A source that does not compile. */
  job = NULL;
  CHECK_OK(hy_cuda_background_start("extern \"C\" __global__ void hy_broken( { }\n", 90, key + 1,
                                    &job));
  if (job) {
    image = NULL;
    CHECK_STATUS(hy_cuda_background_finish(job, &image, &size), HYFFT_COMPILE_ERROR);
    CHECK(image == NULL && strstr(hyfft_last_error(), "error"),
          "no image, and the message holds the log: %.200s", hyfft_last_error());
    CHECK_STATUS(hy_cuda_cache_load(key + 1, &image, &size), HYFFT_NOT_SUPPORTED);
    hy_cuda_background_free(job);
  }
  /* Freed while it may still run: waited for, nothing leaked. */
  job = NULL;
  CHECK_OK(hy_cuda_background_start(p.source.data, 90, key + 2, &job));
  hy_cuda_background_free(job);
  hy_cuda_background_free(NULL);
  CHECK_STATUS(hy_cuda_background_start(NULL, 90, key, &job), HYFFT_NULL_POINTER);
  CHECK(job == NULL, "no job from a NULL source");
  hy_gpu_program_free(&p);
}

/* $HYFFT_NVRTC_OPTIONS reaches NVRTC (an option it does not know fails
 * the compile with NVRTC's word for it) and every image key. */
static void hy_test_nvrtc_options(void) {
  const char *src = "extern \"C\" __global__ void hy_small(float *x) { x[threadIdx.x] *= 2.0f; }\n";
  void *image = NULL;
  size_t size = 0;
  int is_ptx = 0;
  uint64_t plain = hy_cuda_options_hash(1);
  setenv("HYFFT_NVRTC_OPTIONS", "-Ofc=mid --hyfft-no-such-option", 1);
  hy_settings_reload();
  CHECK(hy_cuda_options_hash(1) != plain, "the options change the image keys");
  CHECK_STATUS(hy_cuda_compile(src, 90, &image, &size, &is_ptx), HYFFT_COMPILE_ERROR);
  CHECK(image == NULL && strstr(hyfft_last_error(), "hyfft-no-such-option") != NULL,
        "NVRTC names the unknown option: %.200s", hyfft_last_error());
  setenv("HYFFT_NVRTC_OPTIONS", "-Ofc=mid", 1);
  hy_settings_reload();
  CHECK_OK(hy_cuda_compile(src, 90, &image, &size, &is_ptx));
  CHECK(image && size > 0, "a known option compiles");
  hy_free(image);
  unsetenv("HYFFT_NVRTC_OPTIONS");
  hy_settings_reload();
  CHECK(hy_cuda_options_hash(1) == plain, "without the variable the keys are as before");
}

/* ---- with a GPU ------------------------------------------------------------ */

static void hy_test_backend(const char *token, const char *dir) {
  const hy_backend *b = &hy_backend_cuda;
  setenv("HYFFT_CACHE_DIR", dir, 1);
  hy_settings_reload();
  void *dev = NULL;
  CHECK_OK(b->open(0, &dev));
  if (!dev) return;
  hy_device_caps caps;
  CHECK_OK(b->caps(dev, &caps));
  hy_gpu_program p;
  hy_status st = hy_generate(token, &caps, &p);
  CHECK(st == HYFFT_SUCCESS, "%s: %s", token, hyfft_last_error());
  if (st != HYFFT_SUCCESS) {
    b->close(dev);
    return;
  }
  long nk = p.nkernels;
  hy_gpu_program again;
  CHECK_OK(hy_generate(token, &caps, &again));
  hy_gpu_program third;
  CHECK_OK(hy_generate(token, &caps, &third));

  double t0 = hy_now();
  void *s1 = NULL, *s2 = NULL, *s3 = NULL;
  CHECK_OK(hy_cuda_program_load(dev, &p, &s1));
  double cold = hy_now() - t0;
  hy_cuda_stats s;
  hy_cuda_get_stats(dev, &s);
  CHECK(s.compiled == nk && s.disk_hits == 0 && s.memory_hits == 0,
        "cold: %ld kernels compiled (%ld, %ld, %ld)", nk, s.compiled, s.disk_hits, s.memory_hits);
  CHECK_OK(hy_cuda_program_load(dev, &again, &s2));
  hy_cuda_get_stats(dev, &s);
  CHECK(s.compiled == nk && s.memory_hits == nk, "same context: %ld memory hits (%ld, %ld)", nk,
        s.compiled, s.memory_hits);
  b->plan_release(dev, s1);
  b->plan_release(dev, s2);
  b->close(dev);

  CHECK_OK(b->open(0, &dev));
  if (!dev) return;
  t0 = hy_now();
  CHECK_OK(hy_cuda_program_load(dev, &third, &s3));
  double warm = hy_now() - t0;
  hy_cuda_get_stats(dev, &s);
  CHECK(s.compiled == 0 && s.disk_hits == nk, "new context: %ld disk hits (%ld, %ld)", nk,
        s.compiled, s.disk_hits);
  b->plan_release(dev, s3);
  b->close(dev);
  printf("backend %s: %ld kernels, load cold %.2f s, warm (disk) %.4f s\n", token, nk, cold, warm);
}

/* x = impulse at 1 in every transform: X[k] = exp(-+2 pi i k / n). */
static void hy_test_plan(const char *token, int64_t n, int64_t batch) {
  hyfft_context ctx = NULL;
  CHECK_OK(hyfft_context_create("cuda:0", &ctx));
  if (!ctx) return;
  hyfft_problem prob;
  CHECK_OK(hyfft_problem_parse(token, &prob));
  hyfft_plan plan = NULL;
  double t0 = hy_now();
  CHECK_OK(hyfft_plan_create(ctx, &prob, HYFFT_ESTIMATE, &plan));
  double t_plan = hy_now() - t0;
  size_t count = (size_t)(n * batch);
  float complex *in = calloc(count, sizeof *in), *out = calloc(count, sizeof *out);
  if (plan && in && out) {
    for (int64_t b = 0; b < batch; b++) in[b * n + 1] = 1.0f;
    CHECK_OK(hyfft_execute(plan, in, out));
    double worst = 0;
    for (int64_t b = 0; b < batch; b++)
      for (int64_t k = 0; k < n; k++) {
        long double a = -2.0L * 3.14159265358979323846264338327950288L * (long double)k / (long double)n;
        double complex want = (double)cosl(a) + I * (double)sinl(a);
        double e = cabs((double complex)out[b * n + k] - want);
        if (e > worst) worst = e;
      }
    CHECK(worst < 1e-3, "%s: worst error %g", token, worst);
    printf("plan %s: created in %.2f s, worst error %.2e\n", token, t_plan, worst);
  }
  free(in);
  free(out);
  if (plan) hyfft_plan_destroy(plan);
  hyfft_context_destroy(ctx);
}

int main(int argc, char **argv) {
  const char *token = argc > 1 ? argv[1] : "c2c:f32:fwd:65537";
  const hy_nvrtc *nv;
  if (hy_cuda_nvrtc_get(&nv) != HYFFT_SUCCESS) {
    printf("SKIP: NVRTC is not installed (%s)\n", hyfft_last_error());
    return 77;
  }
  char dir[] = "/tmp/hyfft-units-XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  hy_test_build(token, dir);
  hy_test_background(dir);
  hy_test_nvrtc_options();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'/cuda-*.bin", dir);
  CHECK(system(cmd) == 0, "emptying the cache");

  int devices = 0;
  CHECK_OK(hy_backend_cuda.device_count(&devices));
  if (devices > 0) {
    hy_test_backend(token, dir);
    CHECK(system(cmd) == 0, "emptying the cache");
    hy_test_plan("c2c:f32:fwd:65537", 65537, 1);
    hy_test_plan("c2c:f32:fwd:1048576:b4", 1048576, 4);
    hy_test_plan("c2c:f32:fwd:65537", 65537, 1); /* again: disk cache */
  } else {
    printf("no CUDA device: backend module loading not exercised\n");
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0, "removing the cache directory");
  return hy_test_summary();
}
