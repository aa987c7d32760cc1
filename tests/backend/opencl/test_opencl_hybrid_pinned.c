/* The hybrid CPU share on PoCL with page-locked host memory, as it runs on
 * CUDA: the OpenCL backend's table with the staging hooks added as
 * synchronous stand-ins (host buffers from malloc, the device's own
 * in-order queue, an event wait that finishes that queue) and host_pinned
 * answering yes for the stand-in's own allocations only. A HYFFT_HYBRID
 * plan then calibrates and searches both splits on the real kernels (the
 * page-locked one on page-locked probe buffers), and each execution runs
 * the split of the memory it is given: page-locked input and output, or
 * malloc'd (and one of each), the output against a CPU plan's. The shares
 * go into wisdom (format 3) and come back from it without calibrating;
 * shares from a wisdom text (0.25 pageable, 0.5 page-locked) make both
 * splits run both sides.
 * Exit 77 without an OpenCL device. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "exec/exec.h"
#include "exec/hybrid.h"
#include "planner/plan.h"
#include "planner/wisdom.h"
#include "util/settings.h"

static hy_backend wrap;
static const hy_backend *cl;

#define PINNED_MAX 64
static struct {
  char *ptr;
  size_t bytes;
} pinned_list[PINNED_MAX];
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;

static hy_status w_host_alloc(void *device, size_t bytes, void **host) {
  (void)device;
  char *p = malloc(bytes ? bytes : 1);
  int i = 0;
  pthread_mutex_lock(&pinned_lock);
  while (p && i < PINNED_MAX && pinned_list[i].ptr) i++;
  if (p && i < PINNED_MAX) {
    pinned_list[i].ptr = p;
    pinned_list[i].bytes = bytes;
  }
  pthread_mutex_unlock(&pinned_lock);
  if (!p || i == PINNED_MAX) {
    free(p);
    return hy_error(HYFFT_OUT_OF_MEMORY, "host_alloc stand-in");
  }
  *host = p;
  return HYFFT_SUCCESS;
}
static void w_host_release(void *device, void *host) {
  (void)device;
  pthread_mutex_lock(&pinned_lock);
  for (int i = 0; i < PINNED_MAX; i++)
    if (pinned_list[i].ptr == host) pinned_list[i].ptr = NULL;
  pthread_mutex_unlock(&pinned_lock);
  free(host);
}
static int w_host_pinned(void *device, const void *ptr, size_t bytes) {
  (void)device;
  const char *c = ptr;
  int yes = 0;
  pthread_mutex_lock(&pinned_lock);
  for (int i = 0; i < PINNED_MAX && !yes; i++)
    yes = pinned_list[i].ptr && c >= pinned_list[i].ptr &&
          c + bytes <= pinned_list[i].ptr + pinned_list[i].bytes;
  pthread_mutex_unlock(&pinned_lock);
  return yes;
}
/* NULL: the device's own in-order queue. */
static hy_status w_queue_create(void *device, void **queue) {
  (void)device;
  *queue = NULL;
  return HYFFT_SUCCESS;
}
static void w_queue_release(void *device, void *queue) { (void)device, (void)queue; }
static hy_status w_event_create(void *device, void **event) {
  (void)device;
  *event = malloc(1);
  return *event ? HYFFT_SUCCESS : hy_error(HYFFT_OUT_OF_MEMORY, "event stand-in");
}
static void w_event_release(void *device, void *event) {
  (void)device;
  free(event);
}
static hy_status w_event_record(void *device, void *event, void *queue) {
  (void)device, (void)event, (void)queue;
  return HYFFT_SUCCESS;
}
static hy_status w_queue_wait(void *device, void *queue, void *event) {
  (void)device, (void)queue, (void)event;
  return HYFFT_SUCCESS;
}
/* Everything queued so far is done, the event's work with it. */
static hy_status w_event_wait(void *device, void *event) {
  (void)event;
  return cl->synchronize(device, NULL);
}

static void fill(float *f, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    f[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

/* Execute `plan` with input and output page-locked or not, compare with
 * the CPU plan `ref`, and return the kind of split that ran. */
static int run(hyfft_plan plan, hyfft_plan ref, void *dev, int pin_in, int pin_out) {
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  void *in = NULL, *out = NULL;
  float *a = malloc(in_bytes), *want = malloc(out_bytes);
  if (pin_in) CHECK_OK(w_host_alloc(dev, in_bytes, &in));
  else in = malloc(in_bytes);
  if (pin_out) CHECK_OK(w_host_alloc(dev, out_bytes, &out));
  else out = malloc(out_bytes);
  if (!in || !out || !a || !want) return -2;
  fill(in, in_bytes / sizeof(float), 4242);
  memcpy(a, in, in_bytes);
  CHECK_OK(hyfft_execute(ref, a, want));
  CHECK_OK(hyfft_execute(plan, in, out));
  int kind = hy_hybrid_last_kind(plan);
  double num = 0, den = 0;
  for (size_t i = 0; i < out_bytes / sizeof(float); i++) {
    double x = ((float *)out)[i], y = want[i];
    if (!(fabs(x - y) <= num)) num = fabs(x - y);
    if (fabs(y) > den) den = fabs(y);
  }
  CHECK(num <= 1e-5 * den, "in %s, out %s: hybrid differs from CPU by %.3g (of %.3g)",
        pin_in ? "page-locked" : "pageable", pin_out ? "page-locked" : "pageable", num, den);
  if (pin_in) w_host_release(dev, in);
  else free(in);
  if (pin_out) w_host_release(dev, out);
  else free(out);
  free(a);
  free(want);
  return kind;
}

int main(void) {
  hyfft_context ctx = NULL, cpu = NULL;
  if (hyfft_context_create("opencl", &ctx) != HYFFT_SUCCESS) {
    printf("SKIP: no OpenCL device (%s)\n", hyfft_last_error());
    return 77;
  }
  CHECK_OK(hyfft_context_create("cpu", &cpu));
  if (!cpu) return hy_test_summary();
  cl = ctx->backend;
  wrap = *cl;
  wrap.host_alloc = w_host_alloc;
  wrap.host_release = w_host_release;
  wrap.queue_create = w_queue_create;
  wrap.queue_release = w_queue_release;
  wrap.event_create = w_event_create;
  wrap.event_release = w_event_release;
  wrap.event_record = w_event_record;
  wrap.queue_wait = w_queue_wait;
  wrap.event_wait = w_event_wait;
  wrap.host_pinned = w_host_pinned;
  ctx->backend = &wrap;
  unsetenv("HYFFT_CPU_SHARE");
  hy_settings_reload();
  hyfft_wisdom_forget();

  const char *token = "c2c:f32:fwd:1024:b64";
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_token(cpu, token, HYFFT_ESTIMATE, &ref));
  long calibrations = hy_hybrid_calibrations();
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_HYBRID, &plan));
  CHECK(hy_hybrid_calibrations() == calibrations + 2, "%ld calibrations, not one per kind",
        hy_hybrid_calibrations() - calibrations);
  double shares[2] = {-1, -1};
  if (plan && ref) {
    char text[16384];
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    printf("%s", text);
    CHECK(hy_hybrid_pinnable(plan), "the stand-ins do not page-lock");
    CHECK(strstr(text, "for page-locked input and output") &&
              strstr(text, "page-locked calibration (batch entries/s)") &&
              strstr(text, "pageable calibration (batch entries/s)"),
          "describe lacks a split");
    shares[0] = hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE);
    shares[1] = hy_hybrid_share_for(plan, HY_HYBRID_PINNED);
    void *dev = ctx->device;
    CHECK(run(plan, ref, dev, 1, 1) == HY_HYBRID_PINNED, "page-locked ran the pageable split");
    CHECK(run(plan, ref, dev, 0, 0) == HY_HYBRID_PAGEABLE, "pageable ran the page-locked split");
    CHECK(run(plan, ref, dev, 1, 0) == HY_HYBRID_PAGEABLE, "a pageable output ran page-locked");
    CHECK(run(plan, ref, dev, 0, 1) == HY_HYBRID_PAGEABLE, "a pageable input ran page-locked");
  }
  if (plan) CHECK_OK(hyfft_plan_destroy(plan));
  double stored = -1, pinned = -1;
  CHECK(hy_wisdom_lookup_share(token, ctx->info.name, &stored, &pinned) && stored == shares[0] &&
            pinned == shares[1],
        "wisdom holds %g and %g, the plan %g and %g", stored, pinned, shares[0], shares[1]);
  /* From wisdom: no calibration, the same shares, the page-locked split
   * still computing the transform. */
  plan = NULL;
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_HYBRID, &plan));
  CHECK(hy_hybrid_calibrations() == calibrations + 2, "the second plan calibrated");
  if (plan && ref) {
    CHECK(hy_hybrid_share_for(plan, HY_HYBRID_PINNED) == shares[1], "page-locked share %g, not %g",
          hy_hybrid_share_for(plan, HY_HYBRID_PINNED), shares[1]);
    CHECK(run(plan, ref, ctx->device, 1, 1) == HY_HYBRID_PINNED, "from wisdom, page-locked");
  }
  if (plan) CHECK_OK(hyfft_plan_destroy(plan));
  /* Shares from wisdom that split both ways (the calibration on PoCL tends
   * to give the CPU everything): the GPU side's kernels run on the staged
   * pipeline, page-locked data copied directly. */
  char text[512];
  snprintf(text, sizeof text, "hyfft-wisdom 3\n%d %s share 0.25 0.5 %s\n", HY_CODEGEN_VERSION,
           token, ctx->info.name);
  hyfft_wisdom_forget();
  CHECK_OK(hyfft_wisdom_import_string(text));
  plan = NULL;
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_HYBRID, &plan));
  if (plan && ref) {
    CHECK(hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE) == 0.25 &&
              hy_hybrid_share_for(plan, HY_HYBRID_PINNED) == 0.5,
          "shares from wisdom: %g and %g", hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE),
          hy_hybrid_share_for(plan, HY_HYBRID_PINNED));
    for (int k = 0; k < 2; k++) {
      CHECK(run(plan, ref, ctx->device, 1, 1) == HY_HYBRID_PINNED, "split, page-locked");
      CHECK(run(plan, ref, ctx->device, 0, 0) == HY_HYBRID_PAGEABLE, "split, pageable");
    }
  }
  if (plan) CHECK_OK(hyfft_plan_destroy(plan));
  if (ref) CHECK_OK(hyfft_plan_destroy(ref));
  hyfft_wisdom_forget();
  ctx->backend = cl;
  CHECK_OK(hyfft_context_destroy(ctx));
  CHECK_OK(hyfft_context_destroy(cpu));
  return hy_test_summary();
}
