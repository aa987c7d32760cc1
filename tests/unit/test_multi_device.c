/* Unit tests of multi-device execution (src/exec/multi_device.c, device
 * lists in src/api/context.c) without a GPU: a list of the same device
 * twice (or three times) is a multi-device context of that many
 * sub-contexts, so the split, each device's offsets, the threads that run
 * the devices at once and the refusals are all checked against a plan of
 * the same problem on one device. A "cpu,cpu" context whose backend tables
 * are swapped for the CPU's under a GPU id runs the GPU path (host data
 * staged per call through each sub-context) on both threads at once; one
 * whose second device reports three times the compute units takes the
 * shares by compute units.
 *
 *   hyfft_unit_multi_device            on "cpu,cpu" (and "cpu,cpu,cpu")
 *   hyfft_unit_multi_device --opencl   on "opencl:0:0,0:0": host data
 *                                      staged through each sub-context
 *                                      (exit 77, skipped, without a device)
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/exec.h"
#include "exec/multi_device.h"
#include "exec/multi_slab.h"
#include "util/settings.h"

static void fill(void *buf, size_t bytes, unsigned seed) {
  float *f = buf;
  for (size_t i = 0; i < bytes / sizeof(float); i++) {
    seed = seed * 1664525u + 1013904223u;
    f[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

/* Largest difference of two outputs relative to the largest |want|. */
static double rel_diff(const void *got, const void *want, size_t bytes, int f64) {
  double num = 0, den = 0;
  size_t n = bytes / (f64 ? 8 : 4);
  for (size_t i = 0; i < n; i++) {
    double x = f64 ? ((const double *)got)[i] : ((const float *)got)[i];
    double y = f64 ? ((const double *)want)[i] : ((const float *)want)[i];
    if (!(fabs(x - y) <= num)) num = fabs(x - y);
    if (fabs(y) > den) den = fabs(y);
  }
  return den > 0 ? num / den : num;
}

/* Plan `token` on the single device and on the multi-device context,
 * check each device's entries against `entries` (-1 ends the list), and
 * compare the outputs, gaps included; an out-of-place input must stay as
 * it was. */
static void multi_case(hyfft_context one, hyfft_context multi, const char *token,
                       const int64_t *entries) {
  hyfft_problem u;
  CHECK_OK(hyfft_problem_parse(token, &u));
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_create(one, &u, HYFFT_ESTIMATE, &ref));
  CHECK_OK(hyfft_plan_create(multi, &u, HYFFT_ESTIMATE, &plan));
  if (!ref || !plan) return;
  CHECK(plan->multi != NULL && plan->hybrid == NULL, "%s: not a multi-device plan", token);
  for (int i = 0; i < multi->n_sub; i++) {
    int64_t want = entries[i] < 0 ? 0 : entries[i];
    CHECK(hy_multi_entries(plan, i) == want, "%s: device %d runs %lld entries, expected %lld",
          token, i, (long long)hy_multi_entries(plan, i), (long long)want);
    if (entries[i] < 0) break;
  }
  char text[8192];
  CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
  CHECK(strstr(text, "multi-device: ") != NULL, "%s: describe lacks the split:\n%s", token, text);
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  int f64 = p->precision == HYFFT_F64;
  void *in = malloc(in_bytes), *in2 = malloc(in_bytes);
  void *want = malloc(out_bytes), *got = malloc(out_bytes);
  fill(in, in_bytes, 4242);
  memcpy(in2, in, in_bytes);
  fill(want, out_bytes, 99);
  memcpy(got, want, out_bytes);
  if (p->inplace) {
    void *a = malloc(in_bytes);
    memcpy(a, in, in_bytes);
    CHECK_OK(hyfft_execute(ref, a, a));
    memcpy(want, a, out_bytes);
    CHECK_OK(hyfft_execute(plan, in2, in2));
    memcpy(got, in2, out_bytes);
    free(a);
  } else {
    CHECK_OK(hyfft_execute(ref, in, want));
    CHECK_OK(hyfft_execute(plan, in2, got));
    CHECK(memcmp(in, in2, in_bytes) == 0, "%s: input changed", token);
  }
  double d = rel_diff(got, want, out_bytes, f64);
  CHECK(d <= (f64 ? 1e-13 : 1e-5), "%s: multi-device differs from one device by %.3g", token, d);
  free(in);
  free(in2);
  free(want);
  free(got);
  CHECK_OK(hyfft_plan_destroy(ref));
  CHECK_OK(hyfft_plan_destroy(plan));
}

/* ---- one transform split in slabs across the devices ---------------------------- */

/* The FFTW-MPI block rule, as the test expects it. */
static void block(int64_t n, int devices, int i, int64_t *first, int64_t *count) {
  int64_t b = (n + devices - 1) / devices;
  *first = b * i < n ? b * i : n;
  *count = n - *first < b ? n - *first : b;
}

/* `token` (unbatched C2C, 2 or 3 dims) on the multi-device context must be
 * a slab plan with the block rule's rows and columns, exchanging device to
 * device when `peer`; its output (poisoned with NaNs before) matches one
 * device's, the out-of-place input is unchanged; run twice (the plan's
 * buffers reused). */
static void slab_case(hyfft_context one, hyfft_context multi, const char *token, int peer) {
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_token(one, token, HYFFT_ESTIMATE, &ref));
  CHECK_OK(hyfft_plan_token(multi, token, HYFFT_ESTIMATE, &plan));
  if (!ref || !plan) {
    if (ref) hyfft_plan_destroy(ref);
    if (plan) hyfft_plan_destroy(plan);
    return;
  }
  const struct hy_slab *slab = hy_multi_slab(plan);
  CHECK(slab != NULL, "%s: not a slab plan", token);
  const hy_problem *p = &plan->problem;
  if (slab) {
    for (int i = 0; i < multi->n_sub; i++) {
      int64_t a, cnt, c, w, wa, wcnt, wc, ww;
      int got_peer;
      CHECK(hy_slab_split(slab, i, &a, &cnt, &c, &w, &got_peer), "%s: device %d", token, i);
      block(p->dims[0].n, multi->n_sub, i, &wa, &wcnt);
      int64_t n1 = p->dims[1].n;
      if (p->kind != HYFFT_C2C && p->rank == 2) n1 = n1 / 2 + 1; /* the halved axis */
      block(n1, multi->n_sub, i, &wc, &ww);
      CHECK(a == wa && cnt == wcnt && c == wc && w == ww,
            "%s: device %d rows [%lld,+%lld) cols [%lld,+%lld), expected [%lld,+%lld) [%lld,+%lld)",
            token, i, (long long)a, (long long)cnt, (long long)c, (long long)w, (long long)wa,
            (long long)wcnt, (long long)wc, (long long)ww);
      CHECK(got_peer == peer, "%s: exchange %s, expected %s", token,
            got_peer ? "device to device" : "through the host", peer ? "device to device" : "host");
    }
    char text[16384];
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "in slabs over") && strstr(text, "device to device:") &&
              strstr(text, "host to device"),
          "%s: describe lacks the decomposition:\n%s", token, text);
  }
  size_t bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > bytes) bytes = out_bytes;
  int f64 = p->precision == HYFFT_F64;
  size_t big = bytes > out_bytes ? bytes : out_bytes;
  void *in = malloc(big), *keep = malloc(big), *want = malloc(big), *got = malloc(big);
  fill(in, bytes, 555);
  if (p->kind == HYFFT_C2R) {
    /* A Hermitian input: the C2R of a real signal's spectrum. */
    hyfft_problem u;
    hyfft_plan_problem(plan, &u);
    u.kind = HYFFT_R2C;
    u.sign = HYFFT_FORWARD;
    for (int k = 0; k < u.rank; k++) {
      int64_t t = u.dims[k].in_stride;
      u.dims[k].in_stride = u.dims[k].out_stride;
      u.dims[k].out_stride = t;
    }
    hyfft_plan fwd = NULL;
    CHECK_OK(hyfft_plan_create(one, &u, HYFFT_ESTIMATE, &fwd));
    if (fwd) {
      void *sig = malloc(big);
      fill(sig, big, 777);
      CHECK_OK(hyfft_execute(fwd, sig, p->inplace ? sig : in));
      if (p->inplace) memcpy(in, sig, bytes);
      free(sig);
      CHECK_OK(hyfft_plan_destroy(fwd));
    }
  }
  memcpy(keep, in, bytes);
  for (int rep = 0; rep < 2; rep++) {
    memset(got, 0xff, big); /* NaNs */
    if (p->inplace) {
      memcpy(want, keep, bytes);
      CHECK_OK(hyfft_execute(ref, want, want));
      memcpy(got, keep, bytes);
      CHECK_OK(hyfft_execute(plan, got, got));
    } else {
      memset(want, 0xff, big);
      CHECK_OK(hyfft_execute(ref, in, want));
      CHECK_OK(hyfft_execute(plan, in, got));
      CHECK(memcmp(in, keep, bytes) == 0, "%s: input changed", token);
    }
    /* In place, the padding of a real side is not compared. */
    int64_t n_last = p->dims[p->rank - 1].n;
    if (p->inplace && p->kind == HYFFT_C2R) {
      size_t line = (size_t)(n_last / 2 + 1) * 2 * (f64 ? 8 : 4);
      for (size_t off = (size_t)n_last * (f64 ? 8 : 4); off < bytes; off += line)
        memset((char *)got + off, 0, line - (size_t)n_last * (f64 ? 8 : 4)),
            memset((char *)want + off, 0, line - (size_t)n_last * (f64 ? 8 : 4));
    }
    double d = rel_diff(got, want, p->inplace ? bytes : out_bytes, f64);
    CHECK(d <= (f64 ? 1e-13 : 1e-5), "%s: slab plan differs from one device by %.3g (run %d)",
          token, d, rep);
  }
  free(in);
  free(keep);
  free(want);
  free(got);
  CHECK_OK(hyfft_plan_destroy(ref));
  CHECK_OK(hyfft_plan_destroy(plan));
}

/* Problems the slab split does not take run as before, and say why; the
 * budget refusal; bad pointers. */
static void slab_refusals(hyfft_context multi) {
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_token(multi, "r2r:f32:dct2xdct2:64x64", 0, &plan));
  if (plan) {
    char text[8192];
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(hy_multi_slab(plan) == NULL && strstr(text, "no slab split") &&
              strstr(text, "R2R does not split"),
          "r2r: describe:\n%s", text);
    CHECK_OK(hyfft_plan_destroy(plan));
    plan = NULL;
  }
  CHECK_OK(hyfft_plan_token(multi, "c2c:f32:fwd:32x32:is=64,2", 0, &plan));
  if (plan) {
    CHECK(hy_multi_slab(plan) == NULL, "a strided layout made a slab plan");
    CHECK_OK(hyfft_plan_destroy(plan));
    plan = NULL;
  }
  /* Over a device's budget: refused, named. */
  setenv("HYFFT_DEVICE_MEMORY_LIMIT", "20000", 1);
  hy_settings_reload();
  CHECK_STATUS(hyfft_plan_token(multi, "c2c:f64:fwd:64x64", 0, &plan), HYFFT_OUT_OF_MEMORY);
  CHECK(plan == NULL && strstr(hyfft_last_error(), "slab plan") &&
            strstr(hyfft_last_error(), "budget"),
        "message: %s", hyfft_last_error());
  unsetenv("HYFFT_DEVICE_MEMORY_LIMIT");
  hy_settings_reload();
  /* Bad pointers and the in-place rule, before any data moves. */
  CHECK_OK(hyfft_plan_token(multi, "c2c:f32:fwd:16x12", 0, &plan));
  if (plan) {
    float *a = calloc(2 * 16 * 12 + 8, sizeof *a);
    CHECK_STATUS(hyfft_execute(plan, NULL, a), HYFFT_NULL_POINTER);
    CHECK_STATUS(hyfft_execute(plan, a, NULL), HYFFT_NULL_POINTER);
    CHECK_STATUS(hyfft_execute(plan, a, a + 2), HYFFT_ALIASING);
    int q = 0;
    CHECK_STATUS(hyfft_execute_async(plan, a, a + 2 * 16 * 12, NULL, &q), HYFFT_NOT_SUPPORTED);
    free(a);
    CHECK_OK(hyfft_plan_destroy(plan));
    plan = NULL;
  }
  CHECK_OK(hyfft_plan_token(multi, "c2c:f32:fwd:16x12:ip", 0, &plan));
  if (plan) {
    float *a = calloc(2 * 16 * 12, sizeof *a), *b = calloc(2 * 16 * 12, sizeof *b);
    CHECK(hyfft_execute(plan, a, b) != HYFFT_SUCCESS, "in-place plan ran out of place");
    free(a);
    free(b);
    CHECK_OK(hyfft_plan_destroy(plan));
    plan = NULL;
  }
}

/* The slab cases of a context of `devices` entries: uneven splits (n0 and
 * n1 not divisible, n0 < devices), both precisions and directions, in
 * place and out of place, 2D and 3D. */
static void slab_cases(hyfft_context one, hyfft_context multi, int peer, int quick) {
  slab_case(one, multi, "c2c:f32:fwd:64x48", peer);
  slab_case(one, multi, "c2c:f64:bwd:5x7x3", peer);
  slab_case(one, multi, "c2c:f32:bwd:9x10x11:ip", peer);
  slab_case(one, multi, "c2c:f64:fwd:33x17:ip", peer);
  slab_case(one, multi, "r2c:f32:8x6", peer);
  slab_case(one, multi, "c2r:f64:5x7x3", peer);
  slab_case(one, multi, "r2c:f64:9x10x11:ip", peer);
  slab_case(one, multi, "c2r:f32:33x17:ip", peer);
  if (quick) return;
  slab_case(one, multi, "c2r:f32:2x9", peer);
  slab_case(one, multi, "r2c:f32:3x2x40", peer);
  slab_case(one, multi, "c2r:f64:64x48x30", peer);
  slab_case(one, multi, "r2c:f64:100x3:ip", peer);
  slab_case(one, multi, "c2c:f32:fwd:2x9", peer);
  slab_case(one, multi, "c2c:f64:fwd:3x2x40", peer);
  slab_case(one, multi, "c2c:f32:fwd:128x96x20", peer);
  slab_case(one, multi, "c2c:f64:bwd:100x3:ip", peer);
  slab_case(one, multi, "c2c:f32:fwd:1x32x30:b1", peer);
}

/* ---- two user threads executing one multi-device plan at once ---------------- */

typedef struct exec_job {
  hyfft_plan plan;
  const void *in;
  void *out;
  hyfft_status status;
} exec_job;

static void *exec_thread(void *arg) {
  exec_job *job = arg;
  for (int r = 0; r < 3 && job->status == HYFFT_SUCCESS; r++)
    job->status = hyfft_execute(job->plan, job->in, job->out);
  return NULL;
}

static void concurrent_case(hyfft_context one, hyfft_context multi, const char *token) {
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_token(one, token, HYFFT_ESTIMATE, &ref));
  CHECK_OK(hyfft_plan_token(multi, token, HYFFT_ESTIMATE, &plan));
  if (!ref || !plan) return;
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  void *in = malloc(in_bytes), *want = calloc(1, out_bytes);
  void *out[2] = {calloc(1, out_bytes), calloc(1, out_bytes)};
  fill(in, in_bytes, 7);
  CHECK_OK(hyfft_execute(ref, in, want));
  exec_job job[2] = {{plan, in, out[0], HYFFT_SUCCESS}, {plan, in, out[1], HYFFT_SUCCESS}};
  pthread_t t;
  int started = pthread_create(&t, NULL, exec_thread, &job[1]) == 0;
  exec_thread(&job[0]);
  if (started) pthread_join(t, NULL);
  else exec_thread(&job[1]);
  for (int k = 0; k < 2; k++) {
    CHECK(job[k].status == HYFFT_SUCCESS, "%s: concurrent execution %d: %s", token, k,
          hyfft_status_name(job[k].status));
    double d = rel_diff(out[k], want, out_bytes, p->precision == HYFFT_F64);
    CHECK(d <= 1e-5, "%s: concurrent execution %d differs by %.3g", token, k, d);
  }
  free(in);
  free(want);
  free(out[0]);
  free(out[1]);
  CHECK_OK(hyfft_plan_destroy(ref));
  CHECK_OK(hyfft_plan_destroy(plan));
}

/* ---- refusals ------------------------------------------------------------------ */

static void bad_spec(const char *spec, hyfft_status expected, const char *phrase) {
  hyfft_context ctx = NULL;
  CHECK_STATUS(hyfft_context_create(spec, &ctx), expected);
  CHECK(ctx == NULL, "'%s': a context came back", spec);
  CHECK(strstr(hyfft_last_error(), phrase) != NULL, "'%s': message lacks '%s': %s", spec, phrase,
        hyfft_last_error());
  if (ctx) hyfft_context_destroy(ctx);
}

static void refusals(hyfft_context multi) {
  /* Device data: each device has its own memory. */
  hyfft_plan plan = NULL;
  CHECK_STATUS(hyfft_plan_token(multi, "c2c:f32:fwd:256:b8:dev", 0, &plan), HYFFT_NOT_SUPPORTED);
  CHECK(plan == NULL && strstr(hyfft_last_error(), "device-resident") != NULL, "message: %s",
        hyfft_last_error());
  /* The hybrid CPU share is not combined with several devices. */
  CHECK_STATUS(hyfft_plan_token(multi, "c2c:f32:fwd:256:b8", HYFFT_HYBRID, &plan),
               HYFFT_NOT_SUPPORTED);
  CHECK(plan == NULL && strstr(hyfft_last_error(), "HYFFT_HYBRID") != NULL, "message: %s",
        hyfft_last_error());
  /* $HYFFT_CPU_SHARE is ignored: the devices' plans never split again. */
  setenv("HYFFT_CPU_SHARE", "0.5", 1);
  hy_settings_reload();
  CHECK_OK(hyfft_plan_token(multi, "c2c:f32:fwd:256:b8", 0, &plan));
  if (plan) {
    CHECK(plan->multi && plan->hybrid == NULL, "HYFFT_CPU_SHARE made a hybrid plan");
    /* A user queue belongs to one device. */
    float *buf = calloc(2 * 256 * 8, sizeof *buf);
    int dummy_queue = 0;
    float *out = calloc(2 * 256 * 8, sizeof *out);
    CHECK_STATUS(hyfft_execute_async(plan, buf, out, NULL, &dummy_queue), HYFFT_NOT_SUPPORTED);
    CHECK_OK(hyfft_execute_async(plan, buf, out, NULL, NULL));
    free(buf);
    free(out);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  unsetenv("HYFFT_CPU_SHARE");
  hy_settings_reload();
  /* Device buffers belong to one device. */
  void *b = NULL;
  CHECK_STATUS(hyfft_buffer_alloc(multi, 64, &b), HYFFT_NOT_SUPPORTED);
  CHECK(b == NULL, "a buffer came back");
  CHECK_OK(hyfft_context_synchronize(multi));
}

/* "cpu,cpu" under a GPU id: each device's part goes through
 * hy_exec_staged's alloc/write/execute/read, on its own thread. */
static hy_backend fake;

static void fake_gpu_cases(hyfft_context one) {
  hyfft_context multi = NULL;
  CHECK_OK(hyfft_context_create("cpu,cpu", &multi));
  if (!multi) return;
  fake = *multi->backend;
  fake.id = HYFFT_BACKEND_CUDA;
  multi->backend = &fake;
  for (int i = 0; i < multi->n_sub; i++) multi->sub[i]->backend = &fake;
  multi_case(one, multi, "c2c:f32:fwd:512:b9", (const int64_t[]){5, 4});
  multi_case(one, multi, "r2c:f64:96x40:b5", (const int64_t[]){3, 2});
  multi_case(one, multi, "c2r:f32:256:b6:ip", (const int64_t[]){3, 3});
  concurrent_case(one, multi, "c2c:f32:fwd:256:b16");
  /* A GPU backend without the device-to-device copy: slab plans bounce
   * through host memory. */
  fake.peer_access = NULL;
  fake.copy_peer = NULL;
  slab_cases(one, multi, 0, 0);
  multi->backend = &hy_backend_cpu;
  for (int i = 0; i < multi->n_sub; i++) multi->sub[i]->backend = &hy_backend_cpu;
  CHECK_OK(hyfft_context_destroy(multi));
}

/* Devices that differ share by compute units: the second "device" made
 * to report three times the first's gets three quarters. */
static void unlike_devices(hyfft_context one) {
  hyfft_context multi = NULL;
  CHECK_OK(hyfft_context_create("cpu,cpu", &multi));
  if (!multi) return;
  int cu = multi->sub[0]->info.compute_units > 0 ? multi->sub[0]->info.compute_units : 1;
  multi->sub[0]->info.compute_units = cu;
  multi->sub[1]->info.compute_units = 3 * cu;
  multi_case(one, multi, "c2c:f32:fwd:256:b8", (const int64_t[]){2, 6});
  multi_case(one, multi, "c2c:f32:fwd:256:b3", (const int64_t[]){1, 2});
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_token(multi, "c2c:f32:fwd:64:b4", 0, &plan));
  if (plan) {
    char text[4096];
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "shares by compute units") != NULL, "describe:\n%s", text);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  CHECK_OK(hyfft_context_destroy(multi));
}

static int run(const char *one_spec, const char *two_spec, const char *three_spec) {
  hyfft_context one = NULL, multi = NULL;
  if (hyfft_context_create(one_spec, &one) != HYFFT_SUCCESS) {
    printf("no %s device: skipped\n", one_spec);
    return 77;
  }
  CHECK_OK(hyfft_context_create(two_spec, &multi));
  if (!multi) return hy_test_summary();
  hyfft_device_info info;
  CHECK_OK(hyfft_context_device(multi, &info));
  CHECK(multi->n_sub == 2, "%s: %d sub-contexts", two_spec, multi->n_sub);

  /* Batches not divisible by the device count, padded entries, merged
   * batch dims, real transforms both ways, both precisions, in place. */
  multi_case(one, multi, "c2c:f32:fwd:1024:b5", (const int64_t[]){3, 2});
  multi_case(one, multi, "c2c:f64:bwd:256:b7:idist=300", (const int64_t[]){4, 3});
  multi_case(one, multi, "c2c:f32:fwd:64x48:b9:ip", (const int64_t[]){5, 4});
  multi_case(one, multi, "c2c:f32:fwd:128:b6x5", (const int64_t[]){15, 15});
  multi_case(one, multi, "r2c:f32:1000:b33", (const int64_t[]){17, 16});
  multi_case(one, multi, "r2c:f64:100x30:b3:ip", (const int64_t[]){2, 1});
  multi_case(one, multi, "c2r:f64:30x32:b7", (const int64_t[]){4, 3});
  multi_case(one, multi, "c2r:f32:64:b9", (const int64_t[]){5, 4});
  multi_case(one, multi, "c2r:f32:48:b4:ip", (const int64_t[]){2, 2});
  /* Nothing to split: one entry, no batch, entries that interleave. All
   * runs on the first device. */
  multi_case(one, multi, "c2c:f32:fwd:256:b1", (const int64_t[]){1, 0});
  multi_case(one, multi, "r2r:f64:dct2xdct2:64x64", (const int64_t[]){1, 0});
  multi_case(one, multi, "c2c:f32:fwd:64:b8:is=8:idist=1:os=8:odist=1", (const int64_t[]){8, 0});
  concurrent_case(one, multi, "c2c:f32:fwd:512:b12");
  refusals(multi);
  /* One transform split in slabs: device to device where the backend
   * copies so (the CPU), else through host memory (OpenCL). */
  int cpu = one->backend->id == HYFFT_BACKEND_CPU;
  slab_cases(one, multi, cpu, !cpu);
  concurrent_case(one, multi, "c2c:f32:fwd:40x30");
  slab_refusals(multi);
  /* HYFFT_MULTI_EXCHANGE=host: through host memory even where the devices
   * copy device to device; a bad value fails context creation. */
  setenv("HYFFT_MULTI_EXCHANGE", "host", 1);
  hy_settings_reload();
  slab_case(one, multi, "c2c:f32:fwd:64x48", 0);
  slab_case(one, multi, "c2r:f64:5x7x3", 0);
  setenv("HYFFT_MULTI_EXCHANGE", "peer", 1);
  hy_settings_reload();
  hyfft_context bad = NULL;
  CHECK_STATUS(hyfft_context_create("cpu", &bad), HYFFT_INVALID_ARGUMENT);
  CHECK(bad == NULL && strstr(hyfft_last_error(), "HYFFT_MULTI_EXCHANGE") != NULL, "message: %s",
        hyfft_last_error());
  unsetenv("HYFFT_MULTI_EXCHANGE");
  hy_settings_reload();
  if (one->backend->id == HYFFT_BACKEND_CPU) {
    fake_gpu_cases(one);
    unlike_devices(one);
  }

  /* Three devices, fewer entries than devices: the last one idles. */
  hyfft_context three = NULL;
  CHECK_OK(hyfft_context_create(three_spec, &three));
  if (three) {
    multi_case(one, three, "c2c:f32:fwd:256:b2", (const int64_t[]){1, 1, 0});
    multi_case(one, three, "c2c:f64:fwd:256:b10", (const int64_t[]){4, 3, 3});
    /* n0 and n1 fewer than the devices: a device with no rows or columns. */
    int cpu3 = one->backend->id == HYFFT_BACKEND_CPU;
    slab_case(one, three, "c2c:f32:fwd:2x9", cpu3);
    slab_case(one, three, "c2c:f64:bwd:7x2x5:ip", cpu3);
    slab_case(one, three, "c2c:f32:fwd:2x2", cpu3);
    slab_case(one, three, "r2c:f64:2x9", cpu3);
    slab_case(one, three, "c2r:f32:7x2x5:ip", cpu3);
    CHECK_OK(hyfft_context_destroy(three));
  }
  /* A plan outlives its context's handle. */
  hyfft_plan late = NULL;
  CHECK_OK(hyfft_plan_token(multi, "c2c:f32:fwd:64:b4", 0, &late));
  CHECK_OK(hyfft_context_destroy(multi));
  if (late) CHECK_OK(hyfft_plan_destroy(late));
  CHECK_OK(hyfft_context_destroy(one));
  return hy_test_summary();
}

int main(int argc, char **argv) {
  /* The grammar is checked before any backend is asked: a machine without
   * CUDA reports these as typos, not as missing devices. */
  bad_spec("cuda:0,", HYFFT_INVALID_DEVICE, "entry 2 is empty");
  bad_spec("cuda:0,,1", HYFFT_INVALID_DEVICE, "entry 2 is empty");
  bad_spec(",cuda:0", HYFFT_INVALID_DEVICE, "expected a list");
  bad_spec("cuda:0,cpu", HYFFT_INVALID_DEVICE, "one list holds devices of one backend");
  bad_spec("cpu,opencl:0:0", HYFFT_INVALID_DEVICE, "one list holds devices of one backend");
  bad_spec("cuda:0,x1", HYFFT_INVALID_DEVICE, "one list holds devices of one backend");
  bad_spec("cuda:0,-1", HYFFT_INVALID_DEVICE, "expected an index");
  bad_spec("opencl:0:0,0", HYFFT_INVALID_DEVICE, "expected an index");
  bad_spec("cpu,cpu:all", HYFFT_INVALID_DEVICE, "expected an index");
  bad_spec("auto,cpu", HYFFT_INVALID_DEVICE, "expected a list");
  bad_spec("cuda,cuda", HYFFT_INVALID_DEVICE, "names no device in a list");
  bad_spec("cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu,cpu",
           HYFFT_INVALID_DEVICE, "more than 16 devices");
  /* A list naming one device is a context of that device. */
  hyfft_context ctx = NULL;
  CHECK_OK(hyfft_context_create("cpu:all", &ctx));
  if (ctx) {
    CHECK(ctx->n_sub == 0, "cpu:all: %d sub-contexts", ctx->n_sub);
    CHECK_OK(hyfft_context_destroy(ctx));
  }
  if (argc > 1 && strcmp(argv[1], "--opencl") == 0)
    return run("opencl:0:0", "opencl:0:0,0:0", "opencl:0:0,opencl:0:0,0:0");
  return run("cpu", "cpu,cpu", "cpu,cpu,cpu");
}
