/* The 1D out-of-core path on PoCL as it runs on CUDA with page-locked user
 * memory: the OpenCL backend's table with the staging hooks added as
 * synchronous stand-ins (host buffers from malloc, the device's own
 * in-order queue for both pipeline queues, an event wait that finishes
 * that queue) and every host pointer reported page-locked, its 2D copies
 * done row by row with the backend's own write and read. The real OpenCL
 * kernels (the sub-plans, the twiddle pass) then run on the
 * double-buffered pipeline with the direct copies (copy_2d), and, with
 * HYFFT_STAGING=packed, with the pinned bounce buffers instead; every
 * output against the long-double reference (FFTW's fftwl), gated as the
 * accuracy suite is.
 *
 * Cases: n1 != n2 and factors other than 2, f32 and f64, both directions,
 * batched, scaled, in place (the host scratch), under a 1 MiB budget. Out
 * of place, no piece may go through a buffer of the plan's (writes and
 * reads of more than one word: the first sweep's column offsets are one).
 * Exit 77 without an OpenCL device. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/harness.h"
#include "exec/exec.h"
#include "exec/out_of_core.h"
#include "util/settings.h"

static hy_backend wrap;
static const hy_backend *cl;
static atomic_long copies_2d, bulk_copies;

static hy_status w_host_alloc(void *device, size_t bytes, void **host) {
  (void)device;
  *host = malloc(bytes ? bytes : 1);
  return *host ? HYFFT_SUCCESS : hy_error(HYFFT_OUT_OF_MEMORY, "host_alloc stand-in");
}
static void w_host_release(void *device, void *host) {
  (void)device;
  free(host);
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
static int w_host_pinned(void *device, const void *ptr, size_t bytes) {
  (void)device, (void)ptr, (void)bytes;
  return 1;
}
static hy_status w_copy_2d(void *device, void *queue, int to_device, void *buffer,
                           size_t dev_offset, size_t dev_pitch, void *host, size_t host_pitch,
                           size_t width, size_t height) {
  (void)queue;
  atomic_fetch_add(&copies_2d, 1);
  for (size_t r = 0; r < height; r++) {
    hy_status st =
        to_device
            ? cl->write(device, NULL, buffer, dev_offset + r * dev_pitch,
                        (char *)host + r * host_pitch, width, 1)
            : cl->read(device, NULL, buffer, dev_offset + r * dev_pitch,
                       (char *)host + r * host_pitch, width, 1);
    if (st != HYFFT_SUCCESS) return st;
  }
  return HYFFT_SUCCESS;
}
static hy_status w_write(void *device, void *queue, void *buffer, size_t offset, const void *host,
                         size_t bytes, int blocking) {
  if (bytes > 8) atomic_fetch_add(&bulk_copies, 1);
  return cl->write(device, queue, buffer, offset, host, bytes, blocking);
}
static hy_status w_read(void *device, void *queue, const void *buffer, size_t offset, void *host,
                        size_t bytes, int blocking) {
  if (bytes > 8) atomic_fetch_add(&bulk_copies, 1);
  return cl->read(device, queue, buffer, offset, host, bytes, blocking);
}

static void set_env(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  hy_settings_reload();
}

/* One case: out of core and double-buffered, direct or packed as asked,
 * and within the gates against the reference. */
static void run_case(hyt_device *dev, const char *token, uint64_t seed, int packed) {
  hyfft_problem prob;
  CHECK_OK(hyfft_problem_parse(token, &prob));
  hyt_layout lay;
  char why[256];
  if (hyt_layout_make(&prob, &lay, why, sizeof why)) {
    CHECK(0, "%s: layout: %s", token, why);
    return;
  }
  set_env("HYFFT_DEVICE_MEMORY_LIMIT", "1M");
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_create(dev->ctx, &prob, HYFFT_ESTIMATE, &plan));
  set_env("HYFFT_DEVICE_MEMORY_LIMIT", NULL);
  hyt_cvec x = {0}, y = {0}, ref = {0};
  hyt_buffers b;
  memset(&b, 0, sizeof b);
  if (!plan) goto out;
  CHECK(plan->ooc && hy_ooc_overlapped(plan), "%s: out of core %d, double-buffered %d", token,
        plan->ooc != NULL, hy_ooc_overlapped(plan));
  hyt_rng rng;
  hyt_rng_seed_token(&rng, seed, token);
  if (hyt_buffers_alloc(&lay, dev, &b) || hyt_random_input(&lay, &rng, &x)) {
    CHECK(0, "%s: no memory", token);
    goto out;
  }
  long copies = atomic_load(&copies_2d), bulk = atomic_load(&bulk_copies);
  hyt_run_result res;
  int rc = hyt_run(plan, &b, &x, &y, &res);
  CHECK(rc == 0, "%s: %s: %s", token, hyfft_status_name(res.status), res.message);
  if (rc) goto out;
  copies = atomic_load(&copies_2d) - copies;
  bulk = atomic_load(&bulk_copies) - bulk;
  if (packed)
    CHECK(copies == 0, "%s, HYFFT_STAGING=packed: %ld 2D copies", token, copies);
  else if (!prob.inplace)
    CHECK(copies > 0 && bulk == 0, "%s: %ld 2D copies, %ld piece copies through the plan's buffers",
          token, copies, bulk);
  CHECK(res.gaps_touched == 0 && res.input_changed == 0, "%s: %lld gap elements touched, %lld "
        "input elements changed", token, (long long)res.gaps_touched,
        (long long)res.input_changed);
  if (hyt_reference(&lay, &x, &ref)) {
    CHECK(0, "%s: reference failed", token);
    goto out;
  }
  hyt_errors e = hyt_compare(&lay, &y, &ref);
  CHECK(e.pass, "%s%s: rel RMS %.3e (gate %.3e), max %.3e (gate %.3e)", token,
        packed ? " packed" : "", e.rms, e.rms_gate, e.max, e.max_gate);
  printf("  %-34s %s rel RMS %.3e max %.3e %ld 2D copies\n", token, packed ? "packed" : "direct",
         e.rms, e.max, copies);
out:
  hyt_buffers_free(&b);
  hyt_cvec_free(&x);
  hyt_cvec_free(&y);
  hyt_cvec_free(&ref);
  if (plan) hyfft_plan_destroy(plan);
  hyt_layout_free(&lay);
}

int main(void) {
  static const char *const tokens[] = {
      "c2c:f32:fwd:200000",          "c2c:f64:bwd:150000",  "c2c:f32:bwd:300125",
      "c2c:f64:fwd:255255",          "c2c:f32:fwd:98304:b3", "c2c:f32:bwd:200000:scale=1/N",
      "c2c:f64:bwd:135135:ip"};
  hyt_device dev;
  memset(&dev, 0, sizeof dev);
  if (hyfft_context_create("opencl", &dev.ctx) != HYFFT_SUCCESS) {
    printf("SKIP: no OpenCL device (%s)\n", hyfft_last_error());
    return 77;
  }
  CHECK_OK(hyfft_context_device(dev.ctx, &dev.info));
  printf("device: %s (%s)\n", dev.info.spec, dev.info.name);
  cl = dev.ctx->backend;
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
  wrap.copy_2d = w_copy_2d;
  wrap.write = w_write;
  wrap.read = w_read;
  dev.ctx->backend = &wrap;
  uint64_t seed = 20261126;
  for (int packed = 0; packed < 2; packed++) {
    set_env("HYFFT_STAGING", packed ? "packed" : NULL);
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++)
      run_case(&dev, tokens[i], seed, packed);
  }
  set_env("HYFFT_STAGING", NULL);
  dev.ctx->backend = cl;
  hyt_device_close(&dev);
  return hy_test_summary();
}
