/* The OpenCL backend on whatever OpenCL device is present (PoCL in CI):
 * discovery and specs, buffers, execution on host and device data, async
 * execution on a caller's queue, concurrent executions of one plan, the
 * memory and disk program caches (incl. a corrupt cache file), and, with
 * --expect-unavailable, the no-loader path. Exit 77 = no OpenCL device.
 * Links the static library to read the cache counters. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/settings.h"
#include "backend/cpu/ops_chirp.h"
#include "backend/opencl/cl_internal.h"
#include "common/check.h"
#include "exec/exec.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "hyfft.h"

/* ---- a small long-double reference ---------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

/* Contiguous batched 1D or 2D (n0 x n1) DFT of complex long double. */
static void ref_dft(const long double *x, long double *y, int64_t n0, int64_t n1, int64_t batch,
                    int sign, long double scale) {
  const long double pi = 3.141592653589793238462643383279502884L;
  int64_t n = n0 * n1;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t k0 = 0; k0 < n0; k0++)
      for (int64_t k1 = 0; k1 < n1; k1++) {
        long double re = 0, im = 0;
        for (int64_t j0 = 0; j0 < n0; j0++)
          for (int64_t j1 = 0; j1 < n1; j1++) {
            long double a = 2 * pi * sign *
                            ((long double)((j0 * k0) % n0) / n0 + (long double)((j1 * k1) % n1) / n1);
            const long double *v = x + 2 * (b * n + j0 * n1 + j1);
            re += v[0] * cosl(a) - v[1] * sinl(a);
            im += v[0] * sinl(a) + v[1] * cosl(a);
          }
        y[2 * (b * n + k0 * n1 + k1)] = re * scale;
        y[2 * (b * n + k0 * n1 + k1) + 1] = im * scale;
      }
}

typedef struct tcase {
  int64_t n0, n1, batch;
  int f64, sign;
  size_t count; /* complex elements */
  long double *x, *ref;
  void *host_in; /* in the problem's precision */
} tcase;

static void tcase_make(tcase *c, int64_t n0, int64_t n1, int64_t batch, int f64, int sign,
                       double scale) {
  c->n0 = n0, c->n1 = n1, c->batch = batch, c->f64 = f64, c->sign = sign;
  c->count = (size_t)(n0 * n1 * batch);
  c->x = malloc(c->count * 2 * sizeof(long double));
  c->ref = malloc(c->count * 2 * sizeof(long double));
  c->host_in = malloc(c->count * (f64 ? 16 : 8));
  for (size_t i = 0; i < 2 * c->count; i++) {
    double v = rnd();
    if (f64) {
      ((double *)c->host_in)[i] = v;
      c->x[i] = v;
    } else {
      ((float *)c->host_in)[i] = (float)v;
      c->x[i] = (float)v;
    }
  }
  ref_dft(c->x, c->ref, n0, n1, batch, sign, scale);
}

static void tcase_free(tcase *c) {
  free(c->x);
  free(c->ref);
  free(c->host_in);
}

/* Relative RMS error of out (problem precision) against the reference. */
static double tcase_error(const tcase *c, const void *out) {
  long double num = 0, den = 0;
  for (size_t i = 0; i < 2 * c->count; i++) {
    long double v = c->f64 ? ((const double *)out)[i] : ((const float *)out)[i];
    long double d = v - c->ref[i];
    num += d * d;
    den += c->ref[i] * c->ref[i];
  }
  double e = (double)sqrtl(num / den);
  return isnan(e) ? 1.0 : e;
}

static double tcase_gate(const tcase *c) {
  double u = c->f64 ? ldexp(1.0, -53) : ldexp(1.0, -24);
  double lg = log2((double)(c->n0 * c->n1));
  return 5.0 * u * sqrt(lg < 1 ? 1 : lg);
}

static hyfft_status plan_case(hyfft_context ctx, const tcase *c, int device_memory, double scale,
                              hyfft_plan *plan) {
  hyfft_problem p;
  int64_t n[2] = {c->n0, c->n1};
  int rank = c->n0 > 1 ? 2 : 1;
  hyfft_status st = hyfft_problem_init(&p, HYFFT_C2C, c->f64 ? HYFFT_F64 : HYFFT_F32, c->sign,
                                       rank, rank == 2 ? n : n + 1);
  if (st) return st;
  p.batch_rank = 1;
  p.batch[0] = (hyfft_dim){c->batch, c->n0 * c->n1, c->n0 * c->n1};
  p.scale = scale;
  p.memory = device_memory ? HYFFT_MEMORY_DEVICE : HYFFT_MEMORY_HOST;
  return hyfft_plan_create(ctx, &p, 0, plan);
}

/* Run on host data and return the error (1.0 on failure). */
static double run_host(hyfft_context ctx, const tcase *c, double scale) {
  hyfft_plan plan;
  hyfft_status st = plan_case(ctx, c, 0, scale, &plan);
  CHECK(st == HYFFT_SUCCESS, "plan %lldx%lld b%lld: %s", (long long)c->n0, (long long)c->n1,
        (long long)c->batch, hyfft_last_error());
  if (st) return 1.0;
  void *out = malloc(c->count * (c->f64 ? 16 : 8));
  memset(out, 0xff, c->count * (c->f64 ? 16 : 8));
  CHECK_OK(hyfft_execute(plan, c->host_in, out));
  double e = tcase_error(c, out);
  free(out);
  CHECK_OK(hyfft_plan_destroy(plan));
  return e;
}

static hy_cl_device *cl_dev(hyfft_context ctx) { return (hy_cl_device *)ctx->device; }

/* ---- the pieces ------------------------------------------------------------- */

static void test_specs(int ndev) {
  const char *bad[] = {"opencl:99:0", "opencl:0", "opencl:a:b", "opencl:0:0:0", "opencl0",
                       "opencl:-1:0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    hyfft_context ctx = NULL;
    CHECK_STATUS(hyfft_context_create(bad[i], &ctx), HYFFT_INVALID_DEVICE);
    CHECK(strlen(hyfft_last_error()) > 0, "no message for spec %s", bad[i]);
  }
  int seen = 0, total = 0;
  hyfft_device_get(0, NULL, &total);
  for (int i = 0; i < total; i++) {
    hyfft_device_info info;
    CHECK_OK(hyfft_device_get(i, &info, NULL));
    if (info.backend != HYFFT_BACKEND_OPENCL) continue;
    seen++;
    int p = -1, d = -1;
    CHECK(sscanf(info.spec, "opencl:%d:%d", &p, &d) == 2, "spec '%s'", info.spec);
    CHECK(info.name[0] != '\0' && info.platform[0] != '\0', "empty name/platform");
    CHECK(info.compute_units > 0 && info.global_memory > 0 && info.local_memory > 0 &&
              info.max_work_group > 0,
          "device %s: cu %d gmem %lld lmem %lld wg %d", info.spec, info.compute_units,
          (long long)info.global_memory, (long long)info.local_memory, info.max_work_group);
    hyfft_context ctx;
    CHECK_OK(hyfft_context_create(info.spec, &ctx));
    hyfft_device_info got;
    CHECK_OK(hyfft_context_device(ctx, &got));
    CHECK(strcmp(got.spec, info.spec) == 0 && strcmp(got.name, info.name) == 0, "context device");
    CHECK(ctx->caps.max_pass_length[0] >= 64, "max pass length %lld",
          (long long)ctx->caps.max_pass_length[0]);
    CHECK_OK(hyfft_context_destroy(ctx));
  }
  CHECK(seen == ndev, "%d OpenCL devices listed, %d expected", seen, ndev);
}

static void test_buffers(hyfft_context ctx) {
  unsigned char a[4096], b[4096];
  for (int i = 0; i < 4096; i++) a[i] = (unsigned char)(i * 7 + 3);
  void *buf = NULL;
  CHECK_OK(hyfft_buffer_alloc(ctx, sizeof a, &buf));
  CHECK_OK(hyfft_buffer_write(ctx, buf, 0, a, sizeof a));
  memset(b, 0, sizeof b);
  CHECK_OK(hyfft_buffer_read(ctx, buf, 0, b, sizeof b));
  CHECK(memcmp(a, b, sizeof a) == 0, "round trip differs");
  unsigned char patch[100];
  memset(patch, 0x5a, sizeof patch);
  CHECK_OK(hyfft_buffer_write(ctx, buf, 1000, patch, sizeof patch));
  memcpy(a + 1000, patch, sizeof patch);
  CHECK_OK(hyfft_buffer_read(ctx, buf, 900, b, 300));
  CHECK(memcmp(a + 900, b, 300) == 0, "offset read/write differs");
  CHECK_OK(hyfft_context_synchronize(ctx));
  CHECK_OK(hyfft_buffer_free(ctx, buf));
}

/* Pointers of the wrong kind: a device-memory plan given host pointers,
 * a host plan given device buffers, a buffer too small for the plan, a
 * buffer of another context, copies past a buffer's end. Each gives a
 * named status and leaves the output as it was (the process must not
 * abort inside the OpenCL runtime). */
static void test_wrong_memory(hyfft_context ctx) {
  hyfft_plan dev_plan, host_plan;
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:64:dev", 0, &dev_plan));
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:64", 0, &host_plan));
  float host_in[128], host_out[128];
  for (int i = 0; i < 128; i++) host_in[i] = (float)i;
  memset(host_out, 0x7f, sizeof host_out);
  void *din = NULL, *dout = NULL, *small = NULL;
  CHECK_OK(hyfft_buffer_alloc(ctx, sizeof host_in, &din));
  CHECK_OK(hyfft_buffer_alloc(ctx, sizeof host_out, &dout));
  CHECK_OK(hyfft_buffer_alloc(ctx, 64, &small));
  CHECK_STATUS(hyfft_execute(dev_plan, host_in, host_out), HYFFT_WRONG_MEMORY);
  CHECK(strstr(hyfft_last_error(), "input") != NULL, "message: %s", hyfft_last_error());
  CHECK_STATUS(hyfft_execute(dev_plan, din, host_out), HYFFT_WRONG_MEMORY);
  CHECK(strstr(hyfft_last_error(), "output") != NULL, "message: %s", hyfft_last_error());
  CHECK_STATUS(hyfft_execute(host_plan, din, dout), HYFFT_WRONG_MEMORY);
  CHECK_STATUS(hyfft_execute(host_plan, host_in, dout), HYFFT_WRONG_MEMORY);
  CHECK_STATUS(hyfft_execute(dev_plan, small, dout), HYFFT_INVALID_ARGUMENT);
  unsigned char check[sizeof host_out];
  memset(check, 0x7f, sizeof check);
  CHECK(memcmp(host_out, check, sizeof check) == 0, "a refused execution wrote the output");
  /* Copies: past the end, and a host pointer where a buffer belongs. */
  CHECK_STATUS(hyfft_buffer_write(ctx, small, 32, host_in, 64), HYFFT_INVALID_ARGUMENT);
  CHECK_STATUS(hyfft_buffer_read(ctx, small, 65, host_out, 1), HYFFT_INVALID_ARGUMENT);
  CHECK_STATUS(hyfft_buffer_write(ctx, host_out, 0, host_in, 64), HYFFT_WRONG_MEMORY);
  CHECK(memcmp(host_out, check, sizeof check) == 0, "a refused copy wrote host memory");
  /* A buffer of another context. */
  hyfft_context other;
  CHECK_OK(hyfft_context_create("opencl", &other));
  void *foreign = NULL;
  CHECK_OK(hyfft_buffer_alloc(other, sizeof host_in, &foreign));
  CHECK_STATUS(hyfft_execute(dev_plan, foreign, dout), HYFFT_WRONG_MEMORY);
  CHECK_STATUS(hyfft_buffer_write(ctx, foreign, 0, host_in, 64), HYFFT_WRONG_MEMORY);
  CHECK_STATUS(hyfft_buffer_free(ctx, foreign), HYFFT_WRONG_MEMORY);
  CHECK_OK(hyfft_buffer_free(other, foreign));
  CHECK_OK(hyfft_context_destroy(other));
  /* The right kinds still work. */
  CHECK_OK(hyfft_buffer_write(ctx, din, 0, host_in, sizeof host_in));
  CHECK_OK(hyfft_execute(dev_plan, din, dout));
  CHECK_OK(hyfft_execute(host_plan, host_in, host_out));
  CHECK_OK(hyfft_buffer_free(ctx, din));
  CHECK_OK(hyfft_buffer_free(ctx, dout));
  CHECK_OK(hyfft_buffer_free(ctx, small));
  CHECK_OK(hyfft_plan_destroy(dev_plan));
  CHECK_OK(hyfft_plan_destroy(host_plan));
}

static void test_host_and_device(hyfft_context ctx) {
  /* Host data: mixed radices, 2D (strided axis), f64, Bluestein, scale. */
  struct {
    int64_t n0, n1, batch;
    int f64, sign;
    double scale;
  } cases[] = {{1, 60, 3, 0, -1, 1.0}, {12, 10, 2, 1, 1, 1.0}, {1, 37, 2, 0, 1, 0.5},
               {1, 1, 5, 0, -1, 3.0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tcase c;
    tcase_make(&c, cases[i].n0, cases[i].n1, cases[i].batch, cases[i].f64, cases[i].sign,
               cases[i].scale);
    double e = run_host(ctx, &c, cases[i].scale);
    CHECK(e < tcase_gate(&c), "case %zu (%lldx%lld): error %.3g > %.3g", i, (long long)c.n0,
          (long long)c.n1, e, tcase_gate(&c));
    tcase_free(&c);
  }
  /* Device buffers, out of place. */
  tcase c;
  tcase_make(&c, 8, 9, 2, 1, -1, 1.0);
  hyfft_plan plan;
  CHECK_OK(plan_case(ctx, &c, 1, 1.0, &plan));
  size_t bytes = c.count * 16;
  void *din, *dout, *out = malloc(bytes);
  CHECK_OK(hyfft_buffer_alloc(ctx, bytes, &din));
  CHECK_OK(hyfft_buffer_alloc(ctx, bytes, &dout));
  CHECK_OK(hyfft_buffer_write(ctx, din, 0, c.host_in, bytes));
  CHECK_OK(hyfft_execute(plan, din, dout));
  CHECK_OK(hyfft_buffer_read(ctx, dout, 0, out, bytes));
  CHECK(tcase_error(&c, out) < tcase_gate(&c), "device buffers: error %.3g", tcase_error(&c, out));
  /* The input buffer is untouched out of place. */
  CHECK_OK(hyfft_buffer_read(ctx, din, 0, out, bytes));
  CHECK(memcmp(out, c.host_in, bytes) == 0, "out-of-place execution changed the input");
  CHECK_OK(hyfft_plan_destroy(plan));
  CHECK_OK(hyfft_buffer_free(ctx, din));
  CHECK_OK(hyfft_buffer_free(ctx, dout));
  free(out);
  tcase_free(&c);
}

/* hyfft_execute_async on a queue the caller created, with plan-owned and
 * caller-supplied workspace (a four-step plan, so workspace is used). */
static void test_async(hyfft_context ctx) {
  hy_cl_device *dev = cl_dev(ctx);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = dev->api->CreateCommandQueue(dev->context, dev->device, 0, &err);
  CHECK(q && err == CL_SUCCESS, "clCreateCommandQueue: %d", (int)err);
  if (!q) return;
  tcase c;
  tcase_make(&c, 1, 1024, 2, 0, -1, 1.0);
  hyfft_plan plan;
  CHECK_OK(plan_case(ctx, &c, 1, 1.0, &plan));
  size_t ws = 0;
  CHECK_OK(hyfft_plan_workspace_size(plan, &ws));
  CHECK(ws > 0, "a 1024-point plan with HYFFT_OPENCL_MAX_PASS=128 should need workspace");
  size_t bytes = c.count * 8;
  void *din, *dout, *work = NULL, *out = malloc(bytes);
  CHECK_OK(hyfft_buffer_alloc(ctx, bytes, &din));
  CHECK_OK(hyfft_buffer_alloc(ctx, bytes, &dout));
  if (ws) CHECK_OK(hyfft_buffer_alloc(ctx, ws, &work));
  CHECK_OK(hyfft_buffer_write(ctx, din, 0, c.host_in, bytes));
  for (int round = 0; round < 2; round++) {
    memset(out, 0, bytes);
    CHECK_OK(hyfft_buffer_write(ctx, dout, 0, out, bytes));
    CHECK_OK(hyfft_execute_async(plan, din, dout, round ? work : NULL, q));
    CHECK(dev->api->Finish(q) == CL_SUCCESS, "clFinish on the caller's queue");
    CHECK_OK(hyfft_buffer_read(ctx, dout, 0, out, bytes));
    CHECK(tcase_error(&c, out) < tcase_gate(&c), "async round %d: error %.3g", round,
          tcase_error(&c, out));
  }
  CHECK_OK(hyfft_plan_destroy(plan));
  hyfft_buffer_free(ctx, din);
  hyfft_buffer_free(ctx, dout);
  if (work) hyfft_buffer_free(ctx, work);
  dev->api->ReleaseCommandQueue(q);
  free(out);
  tcase_free(&c);
}

typedef struct worker {
  hyfft_plan plan;
  tcase *c;
  double error;
} worker;

static void *worker_run(void *arg) {
  worker *w = arg;
  w->error = 0;
  void *out = malloc(w->c->count * 8);
  for (int i = 0; i < 4; i++) {
    if (hyfft_execute(w->plan, w->c->host_in, out) != HYFFT_SUCCESS) {
      w->error = 1;
      break;
    }
    double e = tcase_error(w->c, out);
    if (e > w->error) w->error = e;
  }
  free(out);
  return NULL;
}

static void test_threads(hyfft_context ctx) {
  tcase a, b;
  tcase_make(&a, 1, 48, 3, 0, 1, 1.0);
  tcase_make(&b, 1, 48, 3, 0, 1, 1.0); /* different random data */
  hyfft_plan plan;
  CHECK_OK(plan_case(ctx, &a, 0, 1.0, &plan));
  worker w[2] = {{plan, &a, 0}, {plan, &b, 0}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, worker_run, &w[i]);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 2; i++)
    CHECK(w[i].error < tcase_gate(&a), "thread %d: error %.3g", i, w[i].error);
  CHECK_OK(hyfft_plan_destroy(plan));
  tcase_free(&a);
  tcase_free(&b);
}

static int count_files(const char *dir, char *last, size_t size) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    n++;
    snprintf(last, size, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  return n;
}

static void cache_round(const char *spec, tcase *c, long want_builds, long want_disk_hits,
                        long want_writes, const char *what) {
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create(spec, &ctx));
  double e = run_host(ctx, c, 0.25);
  CHECK(e < tcase_gate(c), "%s: error %.3g", what, e);
  long builds, mem, disk, writes;
  hy_cl_cache_stats(ctx->device, &builds, &mem, &disk, &writes);
  CHECK(builds == want_builds && disk == want_disk_hits && writes == want_writes,
        "%s: builds %ld disk hits %ld writes %ld (want %ld %ld %ld)", what, builds, disk, writes,
        want_builds, want_disk_hits, want_writes);
  /* A second plan of the same problem in this context: from memory. */
  e = run_host(ctx, c, 0.25);
  hy_cl_cache_stats(ctx->device, &builds, &mem, &disk, &writes);
  CHECK(mem == 1 && builds == want_builds, "%s: second plan not from the memory cache", what);
  CHECK_OK(hyfft_context_destroy(ctx));
}

static void test_disk_cache(const char *spec) {
  char dir[] = "/tmp/hyfft-cl-cache-XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  setenv("HYFFT_CACHE_DIR", dir, 1);
  hy_settings_reload();
  tcase c;
  tcase_make(&c, 1, 30, 2, 0, -1, 0.25);
  char path[512] = "";
  cache_round(spec, &c, 1, 0, 1, "first context (build)");
  CHECK(count_files(dir, path, sizeof path) == 1, "cache files after the first build");
  struct stat s1, s2;
  CHECK(stat(path, &s1) == 0, "stat %s", path);
  cache_round(spec, &c, 0, 1, 0, "second context (disk hit)");
  CHECK(stat(path, &s2) == 0 && s2.st_ino == s1.st_ino, "a disk hit must not rewrite the entry");
  CHECK(count_files(dir, path, sizeof path) == 1, "cache files after the disk hit");

  /* Corrupt the entry in the middle: ignored, rebuilt and rewritten. */
  FILE *f = fopen(path, "r+b");
  CHECK(f != NULL, "open %s", path);
  if (f) {
    fseek(f, (long)(s1.st_size / 2), SEEK_SET);
    for (int i = 0; i < 64; i++) fputc(0xA5 ^ i, f);
    fclose(f);
  }
  cache_round(spec, &c, 1, 0, 1, "corrupt entry");
  cache_round(spec, &c, 0, 1, 0, "entry rewritten after the corrupt one");
  /* A truncated entry too. */
  CHECK(truncate(path, 40) == 0, "truncate");
  cache_round(spec, &c, 1, 0, 1, "truncated entry");
  cache_round(spec, &c, 0, 1, 0, "entry after the rebuild");
  CHECK(count_files(dir, path, sizeof path) == 1, "no temporary files left behind");
  unlink(path);
  rmdir(dir);
  tcase_free(&c);
}

static void test_source(hyfft_context ctx) {
  hyfft_plan plan;
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:48:b3", 0, &plan));
  size_t need = 0;
  hyfft_status st = hyfft_plan_source(plan, NULL, 0, &need);
  CHECK((st == HYFFT_SUCCESS || st == HYFFT_BUFFER_TOO_SMALL) && need > 100, "source size %zu", need);
  char *src = malloc(need + 1);
  CHECK_OK(hyfft_plan_source(plan, src, need + 1, NULL));
  CHECK(strstr(src, "__kernel") && strstr(src, "c2c:f32:fwd:48:b3"), "source lacks kernel/token");
  free(src);
  CHECK_OK(hyfft_plan_destroy(plan));
}

/* The persistent two-pass kernel (persist=1, a ring of 3 work slots):
 * its output equals the two-launch plan's bit for bit (same pass code,
 * same order of operations), and its workspace is the ring and the
 * counters, not the whole intermediate. Needs HYFFT_OPENCL_MAX_PASS=128
 * (4096 as two passes of 64). */
static void test_persist(hyfft_context ctx) {
  const int64_t n = 4096, batch = 16;
  float *in = malloc(sizeof(float) * 2 * n * batch);
  float *out[2] = {malloc(sizeof(float) * 2 * n * batch), malloc(sizeof(float) * 2 * n * batch)};
  for (int64_t i = 0; i < 2 * n * batch; i++) in[i] = (float)(rnd() - 0.5);
  const char *specs[2] = {"persist=0", "persist=1,ring=3,lag=1"};
  size_t ws[2] = {0, 0};
  for (int v = 0; v < 2; v++) {
    setenv("HYFFT_KERNEL_SPEC", specs[v], 1);
    hy_settings_reload();
    hyfft_plan plan;
    CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:4096:b16", 0, &plan));
    CHECK_OK(hyfft_plan_workspace_size(plan, &ws[v]));
    size_t need = 0;
    hyfft_plan_source(plan, NULL, 0, &need);
    char *src = malloc(need + 1);
    CHECK_OK(hyfft_plan_source(plan, src, need + 1, NULL));
    CHECK((strstr(src, "hy_persist_passes") != NULL) == v, "%s: persistent kernel %s", specs[v],
          v ? "missing" : "unexpected");
    free(src);
    memset(out[v], 0xff, sizeof(float) * 2 * n * batch); /* poisoned: NaN */
    CHECK_OK(hyfft_execute(plan, in, out[v]));
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  setenv("HYFFT_KERNEL_SPEC", "", 1);
  hy_settings_reload();
  CHECK(memcmp(out[0], out[1], sizeof(float) * 2 * n * batch) == 0,
        "persistent output differs from the two-launch plan's");
  /* Plain: 16 elements of 4096 plus the counters; ring: 3 elements plus the counters. */
  CHECK(ws[0] >= (size_t)(8 * n * batch) && ws[1] < (size_t)(8 * n * 4) && ws[1] >= (size_t)(8 * n * 3),
        "workspace %zu bytes plain, %zu persistent", ws[0], ws[1]);
  free(in);
  free(out[0]);
  free(out[1]);
}

/* Multi-pass Bluestein's pointwise steps on the CPU (hy_cpu_op_chirp),
 * chained with naive inner DFTs: PRE, DFT_M(-1), SPECTRUM, DFT_M(+1), POST
 * must equal the length-N DFT. Runs without any device. */
static void naive_dft_d(const double *x, double *y, int64_t n, int sign) {
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int64_t k = 0; k < n; k++) {
    long double re = 0, im = 0;
    for (int64_t j = 0; j < n; j++) {
      long double a = 2 * pi * sign * (long double)((j * k) % n) / n;
      re += x[2 * j] * cosl(a) - x[2 * j + 1] * sinl(a);
      im += x[2 * j] * sinl(a) + x[2 * j + 1] * cosl(a);
    }
    y[2 * k] = (double)re;
    y[2 * k + 1] = (double)im;
  }
}

static void test_cpu_chirp(void) {
  const int64_t n = 7, m = 15, batch = 2;
  for (int sign = -1; sign <= 1; sign += 2) {
    double x[2 * 7 * 2], w0[2 * 15 * 2], w1[2 * 15 * 2], y[2 * 7 * 2];
    for (int i = 0; i < 2 * n * batch; i++) x[i] = rnd();
    hy_pass p;
    hy_pass_init(&p, HY_PASS_CHIRP, HYFFT_F64, sign);
    p.chirp_n = n;
    p.bluestein_m = m;
    p.nloops = 1;
    p.chirp_step = HY_CHIRP_PRE;
    p.axis = (hyfft_dim){m, 1, 1};
    p.loops[0] = (hyfft_dim){batch, n, m};
    CHECK_OK(hy_cpu_op_chirp(&p, x, w0));
    for (int b = 0; b < batch; b++) naive_dft_d(w0 + 2 * m * b, w1 + 2 * m * b, m, -1);
    p.chirp_step = HY_CHIRP_SPECTRUM;
    p.loops[0] = (hyfft_dim){batch, m, m};
    CHECK_OK(hy_cpu_op_chirp(&p, w1, w1)); /* in place */
    for (int b = 0; b < batch; b++) naive_dft_d(w1 + 2 * m * b, w0 + 2 * m * b, m, 1);
    p.chirp_step = HY_CHIRP_POST;
    p.axis = (hyfft_dim){n, 1, 1};
    p.loops[0] = (hyfft_dim){batch, m, n};
    p.scale = 0.5;
    CHECK_OK(hy_cpu_op_chirp(&p, w0, y));
    double worst = 0;
    for (int b = 0; b < batch; b++) {
      double ref[2 * 7];
      naive_dft_d(x + 2 * n * b, ref, n, sign);
      for (int i = 0; i < 2 * n; i++) {
        double d = fabs(y[2 * n * b + i] - 0.5 * ref[i]);
        if (d > worst) worst = d;
      }
    }
    CHECK(worst < 1e-13, "CPU chirp passes (sign %d): error %.3g", sign, worst);
  }
}

/* The CPU backend runs a GPU-shaped tree: plans made for a device whose
 * passes hold 64 points (four-step, multi-pass Bluestein with chirp passes,
 * one workspace with offsets, plane passes of 2D problems) executed by
 * hy_backend_cpu. */
static void test_cpu_runs_gpu_tree(void) {
  static const struct { int64_t n0, n; int64_t batch; int f64; int sign; int planes; } cases[] = {
      {1, 1009, 2, 1, -1, 0}, {1, 1009, 3, 0, 1, 0}, {1, 1024, 1, 0, 1, 0}, {1, 101, 3, 0, -1, 0},
      {1, 1013, 2, 0, -1, 0}, {8, 6, 3, 0, -1, 1}, {4, 12, 2, 1, 1, 1}};
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    tcase c;
    tcase_make(&c, cases[ci].n0, cases[ci].n, cases[ci].batch, cases[ci].f64, cases[ci].sign, 1.0);
    hyfft_problem up;
    int64_t dims[2] = {c.n0, c.n1};
    int rank = c.n0 > 1 ? 2 : 1;
    CHECK_OK(hyfft_problem_init(&up, HYFFT_C2C, c.f64 ? HYFFT_F64 : HYFFT_F32, c.sign, rank,
                                rank == 2 ? dims : dims + 1));
    up.batch_rank = 1;
    up.batch[0] = (hyfft_dim){c.batch, c.n0 * c.n1, c.n0 * c.n1};
    hy_problem p;
    CHECK_OK(hy_problem_make(&up, &p));
    hy_device_caps caps = {0};
    caps.backend = HYFFT_BACKEND_OPENCL;
    caps.local_memory = 32768;
    caps.max_work_group = 256;
    caps.bandwidth = 1e11;
    caps.flop_rate = 1e12;
    caps.launch_overhead = 1e-5;
    caps.max_pass_length[0] = caps.max_pass_length[1] = 64;
    hy_plan_tree tree;
    CHECK_OK(hy_planner_plan(&p, &caps, 0, &tree));
    CHECK((tree.passes[0].plane_inner > 0) == cases[ci].planes,
          "GPU tree for %lldx%lld: plane pass %lld, expected %s", (long long)c.n0,
          (long long)c.n1, (long long)tree.passes[0].plane_inner, cases[ci].planes ? "one" : "none");
    void *dev = NULL, *state = NULL;
    CHECK_OK(hy_backend_cpu.open(0, &dev));
    CHECK_OK(hy_backend_cpu.plan_prepare(dev, &p, &tree, NULL, &state));
    size_t elem = c.f64 ? 16 : 8;
    void *out = calloc(c.count, elem);
    void *work = calloc((size_t)(tree.work_elems[0] + 1), elem);
    void *bufs[HY_BUF_COUNT] = {c.host_in, out, work, NULL};
    CHECK(tree.work_elems[1] == 0, "second workspace region not folded into the first");
    CHECK_OK(hy_backend_cpu.execute(dev, state, &tree, bufs, NULL));
    double e = tcase_error(&c, out);
    CHECK(e < tcase_gate(&c), "CPU on a %d-pass GPU tree for %lldx%lld: error %.3g", tree.npasses,
          (long long)c.n0, (long long)c.n1, e);
    hy_backend_cpu.plan_release(dev, state);
    hy_backend_cpu.close(dev);
    free(out);
    free(work);
    tcase_free(&c);
  }
}

/* A layout past 2^31 elements switches the kernels to 64-bit indices; the
 * program must still build (no data that large is touched here). */
static void test_index64(hyfft_context ctx) {
  hyfft_problem p;
  CHECK_OK(hyfft_problem_parse("c2c:f32:fwd:64:b2:idist=3000000000:odist=64:dev", &p));
  hyfft_plan plan;
  hyfft_status st = hyfft_plan_create(ctx, &p, 0, &plan);
  CHECK(st == HYFFT_SUCCESS, "64-bit plan: %s (%s)", hyfft_status_name(st), hyfft_last_error());
  if (st) return;
  size_t need = 0;
  hyfft_plan_source(plan, NULL, 0, &need);
  char *src = malloc(need + 1);
  CHECK_OK(hyfft_plan_source(plan, src, need + 1, NULL));
  CHECK(strstr(src, "hy_i64 ti") != NULL, "no 64-bit index in the source of a >2^31 layout");
  free(src);
  CHECK_OK(hyfft_plan_destroy(plan));
}

/* Real transforms on a GPU device: planned with the real steps in the
 * tree, either as pointwise passes or, for an even axis whose half-length
 * DFT fits one pass or an odd axis whose DFT does, fused into that pass
 * (fused == 1: no real pass, one DFT pass with the step;
 * $HYFFT_REAL_UNFUSED gives the passes back). DFTs
 * longer than one pass are split by four-step (plans == 2: at least two
 * DFT passes for one axis); a long odd prime axis is one fused Bluestein
 * chain from the real end to the other (plans == 3: four DFT passes, the
 * first and last marked real_end, no real step); an out-of-place C2R
 * whose outer axis is such a prime copies its half spectrum into WORK1
 * and runs the unfused chain from there, its short odd real axis one
 * fused pass after it (plans == 2) (device-independent: made-up caps
 * with 4096-point passes). */
static void test_real_gpu_solver(void) {
  static const struct { const char *token; int plans, fused; } cases[] = {
      {"r2c:f32:16", 1, 1},         {"c2r:f64:15x4:b2", 1, 1}, {"r2c:f64:7:ip", 1, 1},
      {"r2c:f32:8192:b3", 1, 1},    {"r2c:f32:8194", 2, 0},    {"c2r:f32:4097", 2, 0},
      {"r2c:f32:16x8192", 1, 1},    {"r2c:f32:8192x16", 2, 1}, {"c2r:f32:1000:b3:ip", 1, 1},
      {"r2c:f32:1048583", 3, 0},    {"c2r:f32:1048583:b2", 3, 0},
      {"c2r:f32:1048583x3", 2, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    hyfft_problem u;
    hy_problem p;
    CHECK_OK(hyfft_problem_parse(cases[i].token, &u));
    CHECK_OK(hy_problem_make(&u, &p));
    for (int b = 0; b < 4; b++) {
      int unfused = b >= 2;
      if (unfused) setenv("HYFFT_REAL_UNFUSED", "1", 1);
      hy_settings_reload();
      hy_device_caps caps;
      memset(&caps, 0, sizeof caps);
      caps.backend = b % 2 == 0 ? HYFFT_BACKEND_OPENCL : HYFFT_BACKEND_CUDA;
      caps.local_memory = 65536;
      caps.max_work_group = 256;
      caps.bandwidth = caps.flop_rate = 1e9;
      caps.supports_f64 = 1;
      caps.max_pass_length[0] = caps.max_pass_length[1] = 4096;
      hy_plan_tree tree;
      hy_status st = hy_planner_plan(&p, &caps, 0, &tree);
      if (unfused) unsetenv("HYFFT_REAL_UNFUSED");
      hy_settings_reload();
      const char *dev = b % 2 == 0 ? "opencl" : "cuda";
      if (cases[i].plans == 3) {
        int ends = 0, others = 0, dfts = 0;
        for (int k = 0; st == HYFFT_SUCCESS && k < tree.npasses; k++) {
          dfts += tree.passes[k].op == HY_PASS_DFT;
          others += tree.passes[k].op != HY_PASS_DFT;
          ends += tree.passes[k].real_end == (cases[i].token[0] == 'r' ? 1 : 2);
        }
        CHECK(st == HYFFT_SUCCESS && dfts == 4 && others == 0 && ends == 2 &&
                  tree.passes[0].real_end && tree.passes[3].real_end,
              "%s on %s caps: %s, %d DFT passes, %d other, %d real ends", cases[i].token, dev,
              hyfft_status_name((hyfft_status)st), dfts, others, ends);
      } else if (cases[i].plans) {
        int real_steps = 0, fused_steps = 0, dfts = 0, fit = 1;
        for (int k = 0; st == HYFFT_SUCCESS && k < tree.npasses; k++) {
          real_steps += tree.passes[k].op >= HY_PASS_WIDEN;
          fused_steps += hy_fuse_is_real(tree.passes[k].fuse) || hy_fuse_is_real_odd(tree.passes[k].fuse);
          dfts += tree.passes[k].op == HY_PASS_DFT;
          if (tree.passes[k].op == HY_PASS_DFT)
            fit &= hy_pass_computed_length(&tree.passes[k]) <= 4096;
        }
        int want_fused = cases[i].fused && !unfused;
        CHECK(st == HYFFT_SUCCESS && strcmp(tree.solver, "real") == 0 && fit &&
                  (want_fused ? fused_steps == 1 && real_steps == 0
                              : fused_steps == 0 && real_steps >= 1) &&
                  (cases[i].plans < 2 || dfts >= 2),
              "%s on %s caps%s: %s, solver %s, %d real steps, %d fused, %d DFT passes (fit %d)",
              cases[i].token, dev, unfused ? " (HYFFT_REAL_UNFUSED)" : "",
              hyfft_status_name((hyfft_status)st), st == HYFFT_SUCCESS ? tree.solver : "-",
              real_steps, fused_steps, dfts, fit);
      } else {
        CHECK(st == HYFFT_NO_SOLVER, "%s on %s caps: the planner returned %s", cases[i].token,
              dev, hyfft_status_name((hyfft_status)st));
      }
    }
  }
  hy_error_clear();
}

/* On an OpenCL context (passes of 128 points here), real transforms
 * whose DFTs fit no pass plan: out-of-place multi-dimensional C2R whose
 * outer axis has a prime factor too long for a pass (67: a Bluestein
 * pass of 135 points; the half spectrum copied into WORK1, the chain
 * from there), in place too, and long primes along the real axis (the
 * Bluestein chains of solvers/real.c). This test once checked that they
 * were refused. */
static void test_real_refused(hyfft_context ctx) {
  static const char *const planned[] = {"c2r:f32:67x4",      "c2r:f32:67x6:b2",
                                        "c2r:f64:3x67x4",    "c2r:f32:67x4:ip",
                                        "c2r:f64:3x67x4:ip", "r2c:f32:1048583",
                                        "c2r:f32:1048583:b2", "r2c:f32:1048583:ip"};
  for (size_t i = 0; i < sizeof planned / sizeof *planned; i++) {
    hyfft_plan plan = NULL;
    hyfft_status st = hyfft_plan_token(ctx, planned[i], HYFFT_ESTIMATE, &plan);
    CHECK(st == HYFFT_SUCCESS, "%s on opencl: plan_token returned %s (%s)", planned[i],
          hyfft_status_name(st), hyfft_last_error());
    if (st == HYFFT_SUCCESS) hyfft_plan_destroy(plan);
  }
}

int main(int argc, char **argv) {
  int total = 0, ndev = 0;
  hyfft_device_get(0, NULL, &total);
  for (int i = 0; i < total; i++) {
    hyfft_device_info info;
    if (hyfft_device_get(i, &info, NULL) == HYFFT_SUCCESS && info.backend == HYFFT_BACKEND_OPENCL)
      ndev++;
  }
  if (argc > 1 && strcmp(argv[1], "--expect-unavailable") == 0) {
    hyfft_context ctx = NULL;
    CHECK(ndev == 0, "%d OpenCL devices without a loader", ndev);
    CHECK_STATUS(hyfft_context_create("opencl", &ctx), HYFFT_BACKEND_UNAVAILABLE);
    CHECK_STATUS(hyfft_context_create("opencl:0:0", &ctx), HYFFT_BACKEND_UNAVAILABLE);
    return hy_test_summary();
  }
  test_cpu_chirp();
  test_cpu_runs_gpu_tree();
  test_real_gpu_solver();
  if (ndev == 0) {
    if (hy_test_failed) return hy_test_summary();
    printf("no OpenCL device: skipped\n");
    return 77;
  }
  /* Small passes so that the async test exercises four-step workspace. */
  setenv("HYFFT_OPENCL_MAX_PASS", "128", 1);
  hy_settings_reload();
  test_specs(ndev);
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("opencl", &ctx));
  test_real_refused(ctx);
  test_buffers(ctx);
  test_wrong_memory(ctx);
  test_host_and_device(ctx);
  test_async(ctx);
  test_threads(ctx);
  test_source(ctx);
  test_persist(ctx);
  test_index64(ctx);
  hyfft_device_info info;
  hyfft_context_device(ctx, &info);
  CHECK_OK(hyfft_context_destroy(ctx));
  test_disk_cache(info.spec);
  return hy_test_summary();
}
