/* Fault injection (util/fault.c): every allocation, file operation and
 * compile along a scenario's life fails in turn. For each scenario the
 * fault points it passes are counted, then for every k the k-th point
 * fails; the scenario must report a status from the table (never crash),
 * leave its output untouched when the execution fails, and release what it
 * made (the ASan build's leak checker sees any leak at exit). Scenarios: a
 * CPU context; CPU plans (C2C 2D, R2C, R2R, f16 storage) created, described and run;
 * host data through a fake GPU (the CPU backend under a GPU id with the
 * staging hooks: chunked and whole-buffer staging, bf16 chunks); out of core on that
 * fake GPU under a small HYFFT_DEVICE_MEMORY_LIMIT (2D C2C, C2R through its
 * host scratch, 1D four-step, single 1D R2C and C2R whose real step runs
 * by columns on a helper thread); CPU f16 Bluestein; a hybrid CPU share, fixed and calibrated
 * with the search and its wisdom entry; a multi-device context ("cpu,cpu")
 * created, planned on and run; a CPU convolution with padding and a crop;
 * wisdom exported to and imported from a
 * file; the shared work area of a fake-GPU context growing, and a caller's
 * workspace; an OpenCL context (PoCL in CI) whose plan compiles its
 * kernels, the compile among the fault points. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "exec/exec.h"
#include "util/settings.h"

/* ---- a fake GPU with the staging hooks (synchronous) ------------------------- */

static hy_status fake_host_alloc(void *device, size_t bytes, void **host) {
  (void)device;
  *host = hy_malloc(bytes ? bytes : 1);
  return *host ? HYFFT_SUCCESS : hy_error(HYFFT_OUT_OF_MEMORY, "fake host_alloc");
}
static void fake_host_release(void *device, void *host) {
  (void)device;
  hy_free(host);
}
static hy_status fake_object(void *device, void **object) {
  (void)device;
  *object = hy_malloc(1);
  return *object ? HYFFT_SUCCESS : hy_error(HYFFT_OUT_OF_MEMORY, "fake queue/event");
}
static void fake_release(void *device, void *object) {
  (void)device;
  hy_free(object);
}
static hy_status fake_record(void *device, void *event, void *queue) {
  (void)device, (void)event, (void)queue;
  return HYFFT_SUCCESS;
}
static hy_status fake_queue_wait(void *device, void *queue, void *event) {
  (void)device, (void)queue, (void)event;
  return HYFFT_SUCCESS;
}
static hy_status fake_event_wait(void *device, void *event) {
  (void)device, (void)event;
  return HYFFT_SUCCESS;
}
static hy_backend fake;

/* ---- scenarios ------------------------------------------------------------------ */

typedef struct world {
  hyfft_context cpu, gpu;
} world;

static int is_table_status(hyfft_status st) {
  return strcmp(hyfft_status_name(st), "HYFFT_UNKNOWN_STATUS") != 0 && st != HYFFT_INTERNAL;
}

/* Plan `token` on `ctx`, describe it, run it on poisoned output; returns
 * the first failing status (or SUCCESS). `untouched` 1: a failed execution
 * must leave the output as it was (every plan but those below); 0: a
 * hybrid or multi-device plan, whose sides run at once: one side may have
 * written its part when another fails, and the message must then name the
 * failing side or device; 2: an out-of-core plan, whose first sweep writes the output before
 * the second sweep's buffers are allocated, so a failure there leaves the
 * first sweep's result. */
/* Callbacks the next plan_and_run plans with (NULL: none). */
static const hyfft_callbacks *plan_callbacks;

static hyfft_status plan_and_run(hyfft_context ctx, const char *token, int untouched) {
  const unsigned flags = 0;
  hyfft_plan plan = NULL;
  hyfft_status st;
  if (plan_callbacks) {
    hyfft_problem prob;
    st = hyfft_problem_parse(token, &prob);
    if (st == HYFFT_SUCCESS)
      st = hyfft_plan_create_with_callbacks(ctx, &prob, flags, plan_callbacks, &plan);
  } else {
    st = hyfft_plan_token(ctx, token, flags, &plan);
  }
  if (st != HYFFT_SUCCESS) {
    CHECK(plan == NULL, "%s: a failed plan creation returned a plan", token);
    return st;
  }
  char text[2048];
  st = hyfft_plan_describe(plan, text, sizeof text, NULL);
  hyfft_problem p;
  hyfft_plan_problem(plan, &p);
  /* Buffers of the largest contiguous layout of the problem's shape (a
   * complex element a point, two more on the last axis for a padded real
   * row) and 4 KiB beyond: the tokens here are contiguous, and each run
   * fills and compares the whole buffers. */
  size_t bytes = p.precision == HYFFT_F64 ? 16 : p.precision == HYFFT_F32 ? 8 : 4;
  for (int d = 0; d < p.rank; d++)
    bytes *= (size_t)p.dims[d].n + (d == p.rank - 1 ? 2 : 0);
  for (int d = 0; d < p.batch_rank; d++) bytes *= (size_t)p.batch[d].n;
  bytes += 4096;
  unsigned char *in = malloc(bytes), *out = malloc(bytes), *ref = malloc(bytes);
  for (size_t i = 0; i < bytes; i++) in[i] = (unsigned char)((i * 7) % 13);
  memset(out, 0x5a, bytes);
  memcpy(ref, out, bytes);
  if (st == HYFFT_SUCCESS || st == HYFFT_BUFFER_TOO_SMALL) {
    st = hyfft_execute(plan, in, out);
    if (st != HYFFT_SUCCESS && untouched == 1)
      CHECK(memcmp(out, ref, bytes) == 0, "%s: a failed execution (%s: %s) wrote its output",
            token, hyfft_status_name(st), hyfft_last_error());
    if (st != HYFFT_SUCCESS && untouched == 0 && memcmp(out, ref, bytes) != 0)
      CHECK(strstr(hyfft_last_error(), "side of a hybrid plan") != NULL ||
                strstr(hyfft_last_error(), "of a multi-device plan") != NULL,
            "%s: a failed hybrid or multi-device execution wrote output without naming the "
            "side or device: %s", token, hyfft_last_error());
  }
  free(in);
  free(out);
  free(ref);
  CHECK_OK(hyfft_plan_destroy(plan));
  return st;
}

static hyfft_status sc_context(world *w) {
  (void)w;
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create("cpu", &ctx);
  if (st == HYFFT_SUCCESS) CHECK_OK(hyfft_context_destroy(ctx));
  return st;
}
/* An OpenCL context made for the run (PoCL in CI), a plan whose kernels
 * compile (the disk cache is off for this scenario and the context, with
 * its in-memory programs, is new each time), run on host data: the
 * compile's fault point among the allocations. */
static hyfft_status sc_opencl(world *w) {
  (void)w;
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create("opencl:0:0", &ctx);
  if (st != HYFFT_SUCCESS) {
    CHECK(ctx == NULL, "a failed OpenCL context creation returned a context");
    return st;
  }
  st = plan_and_run(ctx, "c2c:f32:fwd:16:b3", 1);
  CHECK_OK(hyfft_context_destroy(ctx));
  return st;
}
/* CPU callback functions (hyfft_callbacks): the load scratch and the store pass. */
static void cb_load(void *value, const void *in, int64_t index, void *user) {
  (void)user;
  memcpy(value, (const double *)in + 2 * index, 2 * sizeof(double));
}
static void cb_store(void *out, int64_t index, const void *value, void *user) {
  (void)user;
  memcpy((double *)out + 2 * index, value, 2 * sizeof(double));
}
static hyfft_status sc_cpu_callbacks(world *w) {
  hyfft_callbacks cb = {NULL, NULL, cb_load, cb_store, NULL, NULL};
  plan_callbacks = &cb;
  hyfft_status st = plan_and_run(w->cpu, "c2c:f64:fwd:60:b2", 1);
  if (st == HYFFT_SUCCESS) st = plan_and_run(w->cpu, "c2c:f64:bwd:24x10:b2", 1);
  plan_callbacks = NULL;
  return st;
}
/* A real 2D convolution of three filters with a zero-padded input and a
 * cropped output (exec/conv.c: forward with the padding's callback, the
 * fused multiply, inverse, crop pass), the spectra from kernels first. */
static hyfft_status sc_cpu_conv(world *w) {
  const char *token = "conv:r2c:f64:16x12:b2:k3:pad=10x7:crop=8x6@2x3";
  hyfft_problem prob;
  hyfft_window win;
  int64_t k;
  hyfft_status st = hyfft_convolution_parse(token, &prob, &k, &win);
  if (st != HYFFT_SUCCESS) return st;
  size_t spec_bytes = (size_t)(3 * 16 * 7) * 16;
  double *kernels = calloc(3 * 16 * 12, sizeof *kernels), *spectra = calloc(1, spec_bytes);
  double *in = calloc(2 * 10 * 7, sizeof *in), *out = malloc(2 * 3 * 8 * 6 * sizeof *out);
  double *ref = malloc(2 * 3 * 8 * 6 * sizeof *ref);
  for (int i = 0; i < 3 * 16 * 12; i++) kernels[i] = (i * 7) % 5 - 2;
  for (int i = 0; i < 2 * 10 * 7; i++) in[i] = (i * 3) % 7 - 3;
  memset(out, 0x5a, 2 * 3 * 8 * 6 * sizeof *out);
  memcpy(ref, out, 2 * 3 * 8 * 6 * sizeof *out);
  hyfft_plan plan = NULL;
  st = hyfft_convolution_spectra(w->cpu, &prob, 3, kernels, spectra, spec_bytes);
  if (st == HYFFT_SUCCESS)
    st = hyfft_plan_convolution(w->cpu, &prob, k, spectra, spec_bytes, &win, 0, &plan);
  if (st != HYFFT_SUCCESS) CHECK(plan == NULL, "%s: a failed plan creation returned a plan", token);
  char text[4096];
  if (st == HYFFT_SUCCESS) st = hyfft_plan_describe(plan, text, sizeof text, NULL);
  if (st == HYFFT_SUCCESS) {
    st = hyfft_execute(plan, in, out);
    if (st != HYFFT_SUCCESS)
      CHECK(memcmp(out, ref, 2 * 3 * 8 * 6 * sizeof *out) == 0,
            "%s: a failed execution (%s: %s) wrote its output", token, hyfft_status_name(st),
            hyfft_last_error());
  }
  if (plan) CHECK_OK(hyfft_plan_destroy(plan));
  free(kernels);
  free(spectra);
  free(in);
  free(out);
  free(ref);
  return st;
}

static hyfft_status sc_cpu_c2c(world *w) { return plan_and_run(w->cpu, "c2c:f32:fwd:64x48:b3", 1); }
static hyfft_status sc_cpu_r2c(world *w) { return plan_and_run(w->cpu, "r2c:f64:1000:b2", 1); }
static hyfft_status sc_cpu_r2r(world *w) { return plan_and_run(w->cpu, "r2r:f64:dct2xdst3:12x10", 1); }
static hyfft_status sc_cpu_bluestein(world *w) { return plan_and_run(w->cpu, "c2c:f64:bwd:1009", 1); }
/* A prime axis after a pass that writes the output (its convolution's
 * buffer taken per call: fewer transforms than a lane group). */
static hyfft_status sc_cpu_prime_second(world *w) {
  return plan_and_run(w->cpu, "c2c:f64:fwd:1009x3", 1);
}
/* Half-precision storage: the CPU's f32 copies and a Bluestein scratch;
 * staged chunks of halves on the fake GPU. */
static hyfft_status sc_cpu_f16(world *w) { return plan_and_run(w->cpu, "c2c:f16:fwd:1009:b2", 1); }
static hyfft_status sc_gpu_f16(world *w) {
  return plan_and_run(w->gpu, "c2c:bf16:bwd:256:b16384", 1); /* 16 MiB of halves: chunks */
}
static hyfft_status sc_gpu_chunked(world *w) {
  return plan_and_run(w->gpu, "c2c:f32:fwd:256:b8192", 1); /* 16 MiB: chunks */
}
static hyfft_status sc_gpu_whole(world *w) { return plan_and_run(w->gpu, "c2c:f32:fwd:64x64", 1); }
static hyfft_status sc_ooc_2d(world *w) { return plan_and_run(w->gpu, "c2c:f32:fwd:64x48", 2); }
static hyfft_status sc_ooc_c2r(world *w) { return plan_and_run(w->gpu, "c2r:f64:30x21:b2", 2); }
static hyfft_status sc_ooc_1d(world *w) { return plan_and_run(w->gpu, "c2c:f32:bwd:3000:b2", 2); }
/* Single 1D real transforms: the step by columns on its helper thread. */
static hyfft_status sc_ooc_1d_r2c(world *w) { return plan_and_run(w->gpu, "r2c:f32:8192", 2); }
static hyfft_status sc_ooc_1d_c2r(world *w) { return plan_and_run(w->gpu, "c2r:f64:6000", 2); }
static hyfft_status sc_hybrid(world *w) { return plan_and_run(w->gpu, "c2c:f32:fwd:256:b64", 0); }
/* A multi-device context of the CPU twice, a plan split across it, run
 * (its devices run at once: a failed device may leave the others' ranges
 * written, and the message then names it). */
static hyfft_status sc_multi(world *w) {
  (void)w;
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create("cpu,cpu", &ctx);
  if (st != HYFFT_SUCCESS) {
    CHECK(ctx == NULL, "a failed multi-device context creation returned a context");
    return st;
  }
  st = plan_and_run(ctx, "c2c:f32:fwd:128:b5", 0);
  CHECK_OK(hyfft_context_destroy(ctx));
  return st;
}
/* One transform split in slabs across "cpu,cpu": device to device, and
 * through host memory on tables without the device-to-device copy. */
static hy_backend no_peer;
static hyfft_status sc_multi_slab(world *w) {
  (void)w;
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create("cpu,cpu", &ctx);
  if (st != HYFFT_SUCCESS) {
    CHECK(ctx == NULL, "a failed multi-device context creation returned a context");
    return st;
  }
  st = plan_and_run(ctx, "c2c:f32:fwd:12x10x6", 0);
  no_peer = hy_backend_cpu;
  no_peer.peer_access = NULL;
  no_peer.copy_peer = NULL;
  ctx->backend = &no_peer;
  for (int i = 0; i < ctx->n_sub; i++) ctx->sub[i]->backend = &no_peer;
  hyfft_status st2 = plan_and_run(ctx, "c2c:f64:bwd:7x9", 0);
  /* An out-of-place C2R bounces through a host buffer of its own. */
  if (st2 == HYFFT_SUCCESS) st2 = plan_and_run(ctx, "c2r:f32:8x6", 0);
  ctx->backend = &hy_backend_cpu;
  for (int i = 0; i < ctx->n_sub; i++) ctx->sub[i]->backend = &hy_backend_cpu;
  CHECK_OK(hyfft_context_destroy(ctx));
  return st != HYFFT_SUCCESS ? st : st2;
}
/* Calibration, the search and its wisdom entry: wisdom is emptied first so
 * that every run searches. */
static hyfft_status sc_hybrid_search(world *w) {
  hyfft_wisdom_forget();
  hyfft_status st = plan_and_run(w->gpu, "c2c:f32:fwd:256:b64", 0);
  hyfft_wisdom_forget();
  return st;
}
/* The shared work area of a fresh fake-GPU context (two device-data plans
 * of different needs, so that it grows once) and a caller's workspace. */
static hyfft_status sc_work_areas(world *w) {
  (void)w;
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create("cpu", &ctx);
  if (st != HYFFT_SUCCESS) return st;
  ctx->backend = &fake;
  hyfft_plan a = NULL, b = NULL;
  size_t bytes = (size_t)1 << 20, ws = 0;
  unsigned char *in = calloc(1, bytes), *out = calloc(1, bytes), *work = calloc(1, bytes);
  st = hyfft_plan_token(ctx, "r2r:f32:dct2:1000:dev", 0, &a);
  if (st == HYFFT_SUCCESS) st = hyfft_plan_token(ctx, "c2r:f32:64x64:dev", 0, &b);
  if (st == HYFFT_SUCCESS) st = hyfft_execute(a, in, out);
  if (st == HYFFT_SUCCESS) st = hyfft_execute(b, in, out);
  if (st == HYFFT_SUCCESS) st = hyfft_plan_workspace_size(b, &ws);
  if (st == HYFFT_SUCCESS) st = hyfft_plan_set_workspace(b, work, ws);
  if (st == HYFFT_SUCCESS) st = hyfft_execute(b, in, out);
  if (st == HYFFT_SUCCESS) st = hyfft_plan_set_workspace(b, NULL, 0);
  if (a) CHECK_OK(hyfft_plan_destroy(a));
  if (b) CHECK_OK(hyfft_plan_destroy(b));
  free(in);
  free(out);
  free(work);
  CHECK_OK(hyfft_context_destroy(ctx));
  return st;
}
static hyfft_status sc_wisdom(world *w) {
  char path[] = "/tmp/hyfft-faults-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return HYFFT_IO_ERROR;
  close(fd);
  hyfft_status st = hyfft_wisdom_export_file(w->cpu, path);
  if (st == HYFFT_SUCCESS) st = hyfft_wisdom_import_file(w->cpu, path);
  unlink(path);
  return st;
}

typedef struct scenario {
  const char *name;
  hyfft_status (*run)(world *);
  const char *cpu_share; /* HYFFT_CPU_SHARE while it runs, or NULL */
  const char *limit;     /* HYFFT_DEVICE_MEMORY_LIMIT while it runs, or NULL */
} scenario;

int main(void) {
  world w = {NULL, NULL};
  CHECK_OK(hyfft_context_create("cpu", &w.cpu));
  CHECK_OK(hyfft_context_create("cpu", &w.gpu));
  if (!w.cpu || !w.gpu) return hy_test_summary();
  fake = *w.gpu->backend;
  fake.id = HYFFT_BACKEND_CUDA;
  fake.host_alloc = fake_host_alloc;
  fake.host_release = fake_host_release;
  fake.queue_create = fake_object;
  fake.queue_release = fake_release;
  fake.event_create = fake_object;
  fake.event_release = fake_release;
  fake.event_record = fake_record;
  fake.queue_wait = fake_queue_wait;
  fake.event_wait = fake_event_wait;
  w.gpu->backend = &fake;

  const scenario scenarios[] = {
      {"context", sc_context, NULL, NULL},
      {"cpu c2c 2D", sc_cpu_c2c, NULL, NULL},
      {"cpu r2c", sc_cpu_r2c, NULL, NULL},
      {"cpu r2r", sc_cpu_r2r, NULL, NULL},
      {"cpu bluestein", sc_cpu_bluestein, NULL, NULL},
      {"cpu prime second pass", sc_cpu_prime_second, NULL, NULL},
      {"cpu callbacks", sc_cpu_callbacks, NULL, NULL},
      {"cpu convolution", sc_cpu_conv, NULL, NULL},
      {"gpu chunked staging", sc_gpu_chunked, NULL, NULL},
      {"cpu f16 bluestein", sc_cpu_f16, NULL, NULL},
      {"gpu bf16 chunked staging", sc_gpu_f16, NULL, NULL},
      {"gpu whole staging", sc_gpu_whole, NULL, NULL},
      {"out of core 2D", sc_ooc_2d, NULL, "8K"},
      {"out of core C2R", sc_ooc_c2r, NULL, "3K"},
      {"out of core 1D", sc_ooc_1d, NULL, "8K"},
      {"out of core 1D R2C by columns", sc_ooc_1d_r2c, NULL, "8K"},
      {"out of core 1D C2R by columns", sc_ooc_1d_c2r, NULL, "8K"},
      {"hybrid share", sc_hybrid, "0.25", NULL},
      {"multi-device", sc_multi, NULL, NULL},
      {"multi-device slab", sc_multi_slab, NULL, NULL},
      {"hybrid search", sc_hybrid_search, "auto", NULL},
      {"wisdom file", sc_wisdom, NULL, NULL},
      {"work areas", sc_work_areas, NULL, NULL},
      {"opencl compile", sc_opencl, NULL, NULL},
  };
  /* The OpenCL scenario where a device answers (PoCL in CI). */
  hyfft_context probe = NULL;
  int have_opencl = hyfft_context_create("opencl:0:0", &probe) == HYFFT_SUCCESS;
  if (probe) CHECK_OK(hyfft_context_destroy(probe));
  if (!have_opencl) printf("no OpenCL device: the OpenCL compile scenario is skipped\n");
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    const scenario *s = &scenarios[i];
    if (s->run == sc_opencl && !have_opencl) continue;
    if (s->run == sc_opencl) setenv("HYFFT_CACHE_DIR", "off", 1);
    if (s->cpu_share) setenv("HYFFT_CPU_SHARE", s->cpu_share, 1);
    else unsetenv("HYFFT_CPU_SHARE");
    if (s->limit) setenv("HYFFT_DEVICE_MEMORY_LIMIT", s->limit, 1);
    else unsetenv("HYFFT_DEVICE_MEMORY_LIMIT");
    hy_settings_reload();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* Count the points of a clean run (which must succeed). */
    hy_fault_arm(LONG_MAX);
    hyfft_status st = s->run(&w);
    long points = hy_fault_disarm();
    CHECK(st == HYFFT_SUCCESS, "%s: the clean run failed: %s: %s", s->name,
          hyfft_status_name(st), hyfft_last_error());
    long failed = 0;
    for (long k = 1; k <= points; k++) {
      hy_fault_arm(k);
      st = s->run(&w);
      hy_fault_disarm();
      CHECK(is_table_status(st), "%s, fault at point %ld: status %d (%s)", s->name, k, (int)st,
            hyfft_status_name(st));
      failed += st != HYFFT_SUCCESS;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%-24s %4ld fault points, %4ld runs failed with a status, %4ld recovered  %6.2f s\n",
           s->name, points, failed, points - failed,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    if (s->run == sc_opencl) unsetenv("HYFFT_CACHE_DIR");
    CHECK(points > 0, "%s: no fault point passed", s->name);
  }
  unsetenv("HYFFT_CPU_SHARE");
  unsetenv("HYFFT_DEVICE_MEMORY_LIMIT");
  hy_settings_reload();
  w.gpu->backend = &hy_backend_cpu;
  CHECK_OK(hyfft_context_destroy(w.gpu));
  CHECK_OK(hyfft_context_destroy(w.cpu));
  return hy_test_summary();
}
