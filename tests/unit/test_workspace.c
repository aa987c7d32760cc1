/* Work areas (docs/api.md, "Work areas"):
 *   hyfft_unit_workspace            the CPU backend and a fake GPU (the CPU
 *                                   backend's table under a CUDA id)
 *   hyfft_unit_workspace --opencl   the same on an OpenCL device (exit 77,
 *                                   skipped, without one)
 *   hyfft_unit_workspace --device cuda   the same on a CUDA device (exit 77
 *                                   without one)
 * Checked: a caller's workspace (hyfft_plan_set_workspace) is what the
 * executions use (a poisoned buffer changes, the plan's own area is gone),
 * a too small one is refused, results are identical with and without it
 * and after going back; plans of a GPU context share one area that holds
 * the largest need, not the sum, with executions interleaved, from several
 * threads and on another queue; on a fake that tracks pending work per
 * queue, no execution on another queue overlaps the context's queue on the
 * shared area, own-queue executions do not wait, and growing waits before
 * it frees the old buffer; on a fake with events, executions on either
 * queue never wait on the host, the queues wait for each other on the
 * device where a work area changes queue, and areas are freed only after
 * their last use; HYFFT_OWN_WORKSPACE keeps a plan out of it; a workspace over HYFFT_DEVICE_MEMORY_LIMIT fails with
 * HYFFT_OUT_OF_MEMORY naming the bytes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/exec.h"
#include "util/settings.h"

static hy_backend fake;

static void fill(void *buf, size_t bytes, unsigned seed) {
  float *f = buf;
  for (size_t i = 0; i < bytes / sizeof(float); i++) {
    seed = seed * 1664525u + 1013904223u;
    f[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

static void set_limit(const char *value) {
  if (value) setenv("HYFFT_DEVICE_MEMORY_LIMIT", value, 1);
  else unsetenv("HYFFT_DEVICE_MEMORY_LIMIT");
  hy_settings_reload();
}

/* Extents of a plan's data in bytes. */
static void extents(hyfft_plan plan, size_t *in_bytes, size_t *out_bytes) {
  const hy_problem *p = &plan->problem;
  *in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  *out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
}

/* Data for one plan: host copies of input and output, and the buffers the
 * plan takes (the same host memory, or device buffers of `ctx`). */
typedef struct data {
  hyfft_context ctx;
  int device;
  size_t in_bytes, out_bytes;
  void *hin, *hout;
  void *in, *out;
} data;

static void data_make(data *d, hyfft_context ctx, hyfft_plan plan, int device, unsigned seed) {
  memset(d, 0, sizeof *d);
  d->ctx = ctx;
  d->device = device;
  extents(plan, &d->in_bytes, &d->out_bytes);
  d->hin = malloc(d->in_bytes);
  d->hout = malloc(d->out_bytes);
  fill(d->hin, d->in_bytes, seed);
  if (device) {
    CHECK_OK(hyfft_buffer_alloc(ctx, d->in_bytes, &d->in));
    CHECK_OK(hyfft_buffer_alloc(ctx, d->out_bytes, &d->out));
  } else {
    d->in = malloc(d->in_bytes);
    d->out = malloc(d->out_bytes);
  }
}

static void data_free(data *d) {
  if (d->device) {
    hyfft_buffer_free(d->ctx, d->in);
    hyfft_buffer_free(d->ctx, d->out);
  } else {
    free(d->in);
    free(d->out);
  }
  free(d->hin);
  free(d->hout);
}

/* Run `plan` on the data's input (restored first) into d->hout: through
 * hyfft_execute (async 0) or hyfft_execute_async on `queue` with
 * `workspace`, then a synchronisation. */
static hyfft_status run(hyfft_plan plan, data *d, int async, void *workspace, void *queue) {
  hyfft_status st;
  if (d->device) {
    st = hyfft_buffer_write(d->ctx, d->in, 0, d->hin, d->in_bytes);
  } else {
    memcpy(d->in, d->hin, d->in_bytes);
    memset(d->out, 0, d->out_bytes);
    st = HYFFT_SUCCESS;
  }
  if (st == HYFFT_SUCCESS)
    st = async ? hyfft_execute_async(plan, d->in, d->out, workspace, queue)
               : hyfft_execute(plan, d->in, d->out);
  if (st == HYFFT_SUCCESS && async) st = hyfft_context_synchronize(d->ctx);
  if (st == HYFFT_SUCCESS && d->device) st = hyfft_buffer_read(d->ctx, d->out, 0, d->hout, d->out_bytes);
  else if (st == HYFFT_SUCCESS) memcpy(d->hout, d->out, d->out_bytes);
  return st;
}

/* Whether a work buffer still holds its poison everywhere. */
static int poisoned(hyfft_context ctx, int device, void *ws, size_t bytes) {
  unsigned char *h = malloc(bytes);
  if (device) hyfft_buffer_read(ctx, ws, 0, h, bytes);
  else memcpy(h, ws, bytes);
  int all = 1;
  for (size_t i = 0; i < bytes && all; i++) all = h[i] == 0x7f;
  free(h);
  return all;
}

static void poison(hyfft_context ctx, int device, void *ws, size_t bytes) {
  unsigned char *h = malloc(bytes);
  memset(h, 0x7f, bytes);
  if (device) hyfft_buffer_write(ctx, ws, 0, h, bytes);
  else memcpy(ws, h, bytes);
  free(h);
}

/* hyfft_plan_set_workspace on `token`: used, refused when too small,
 * identical results, and back to the default. */
static void caller_workspace(hyfft_context ctx, const char *token, int device) {
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_ESTIMATE, &ref));
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_ESTIMATE, &plan));
  if (!ref || !plan) return;
  size_t ws_bytes = 0;
  CHECK_OK(hyfft_plan_workspace_size(plan, &ws_bytes));
  CHECK(ws_bytes > 0, "%s: no workspace to test with", token);
  data d;
  data_make(&d, ctx, plan, device, 7);
  void *want = malloc(d.out_bytes);
  CHECK_OK(run(ref, &d, 0, NULL, NULL));
  memcpy(want, d.hout, d.out_bytes);

  void *ws = NULL, *small = NULL;
  if (device) {
    CHECK_OK(hyfft_buffer_alloc(ctx, ws_bytes, &ws));
    CHECK_OK(hyfft_buffer_alloc(ctx, ws_bytes / 2, &small));
  } else {
    ws = malloc(ws_bytes);
    small = malloc(ws_bytes / 2);
  }
  /* Too small by its given size, and (device buffers) by its real size. */
  CHECK_STATUS(hyfft_plan_set_workspace(plan, ws, ws_bytes - 1), HYFFT_BUFFER_TOO_SMALL);
  CHECK(strstr(hyfft_last_error(), "hyfft_plan_workspace_size") != NULL, "%s: message '%s'", token,
        hyfft_last_error());
  if (device) CHECK_STATUS(hyfft_plan_set_workspace(plan, small, ws_bytes), HYFFT_BUFFER_TOO_SMALL);

  CHECK_OK(hyfft_plan_set_workspace(plan, ws, ws_bytes));
  CHECK(plan->work[0] == NULL && plan->work[1] == NULL, "%s: the plan still holds its own area",
        token);
  for (int async = 0; async < 2; async++) {
    poison(ctx, device, ws, ws_bytes);
    CHECK_OK(run(plan, &d, async, NULL, NULL));
    CHECK(!poisoned(ctx, device, ws, ws_bytes), "%s: the caller's workspace was not used (async %d)",
          token, async);
    CHECK(memcmp(d.hout, want, d.out_bytes) == 0, "%s: result differs with the caller's "
          "workspace (async %d)", token, async);
  }
  /* Back to the default: the caller's buffer is left alone. */
  CHECK_OK(hyfft_plan_set_workspace(plan, NULL, 0));
  CHECK(plan->user_work == NULL, "%s: still on the caller's workspace", token);
  if (!plan->work_shared)
    CHECK(plan->work[0] != NULL, "%s: no own area after going back", token);
  poison(ctx, device, ws, ws_bytes);
  CHECK_OK(run(plan, &d, 0, NULL, NULL));
  CHECK(poisoned(ctx, device, ws, ws_bytes), "%s: the caller's workspace used after NULL", token);
  CHECK(memcmp(d.hout, want, d.out_bytes) == 0, "%s: result differs after going back", token);

  if (device) {
    hyfft_buffer_free(ctx, ws);
    hyfft_buffer_free(ctx, small);
  } else {
    free(ws);
    free(small);
  }
  free(want);
  data_free(&d);
  CHECK_OK(hyfft_plan_destroy(ref));
  CHECK_OK(hyfft_plan_destroy(plan));
}

/* ---- the context's shared area -------------------------------------------------- */

#define NPLANS 3

typedef struct worker {
  hyfft_plan plan;
  data *d;
  const void *want;
  int rounds, bad;
  hyfft_status st;
} worker;

static void *worker_run(void *arg) {
  worker *w = arg;
  /* Each thread its own data: the plans differ, the area is shared. */
  void *in = malloc(w->d->in_bytes), *out = malloc(w->d->out_bytes);
  for (int r = 0; r < w->rounds && w->st == HYFFT_SUCCESS; r++) {
    memcpy(in, w->d->hin, w->d->in_bytes);
    w->st = hyfft_execute(w->plan, in, out);
    if (w->st == HYFFT_SUCCESS && memcmp(out, w->want, w->d->out_bytes) != 0) w->bad++;
  }
  free(in);
  free(out);
  return NULL;
}

/* Plans of `tokens` on `ctx`, against the same plans holding their own
 * area (HYFFT_OWN_WORKSPACE): the context's area is the largest need per
 * slot, results are identical, interleaved and (host memory) from threads. */
static void shared_area(hyfft_context ctx, const char *const *tokens, int device, int threads) {
  hyfft_plan plans[NPLANS] = {NULL}, own[NPLANS] = {NULL};
  data d[NPLANS];
  void *want[NPLANS];
  size_t slot[2] = {0, 0}, sum = 0, before = 0;
  CHECK_OK(hyfft_context_workspace_bytes(ctx, &before));
  for (int i = 0; i < NPLANS; i++) {
    CHECK_OK(hyfft_plan_token(ctx, tokens[i], HYFFT_ESTIMATE, &plans[i]));
    CHECK_OK(hyfft_plan_token(ctx, tokens[i], HYFFT_OWN_WORKSPACE, &own[i]));
    if (!plans[i] || !own[i]) return;
    CHECK(plans[i]->work_shared && !plans[i]->work[0] && !plans[i]->work[1],
          "%s: the plan holds an area of its own", tokens[i]);
    CHECK(!own[i]->work_shared && own[i]->work[0], "%s: HYFFT_OWN_WORKSPACE plan shares",
          tokens[i]);
    size_t elem = plans[i]->problem.precision == HYFFT_F64 ? 16 : 8, ws = 0;
    CHECK_OK(hyfft_plan_workspace_size(plans[i], &ws));
    sum += ws;
    for (int w = 0; w < 2; w++) {
      size_t b = (size_t)plans[i]->tree.work_elems[w] * elem;
      if (b > slot[w]) slot[w] = b;
    }
    data_make(&d[i], ctx, plans[i], device, 100u + (unsigned)i);
    want[i] = malloc(d[i].out_bytes);
    CHECK_OK(run(own[i], &d[i], 0, NULL, NULL));
    memcpy(want[i], d[i].hout, d[i].out_bytes);
  }
  size_t bytes = 0;
  CHECK_OK(hyfft_context_workspace_bytes(ctx, &bytes));
  CHECK(bytes == before, "own-area plans grew the shared area to %zu bytes", bytes);
  /* Interleaved, blocking and async on the context's queue, and on
   * another queue (the fake's and OpenCL's: the context's own, given by
   * handle, is not what a NULL queue means here, so only the fake). */
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < NPLANS; i++) {
      void *queue = NULL;
      if (round == 2 && !device) queue = &d[i]; /* any non-NULL queue: the fake ignores it */
      CHECK_OK(run(plans[i], &d[i], round > 0, NULL, queue));
      CHECK(memcmp(d[i].hout, want[i], d[i].out_bytes) == 0, "%s: round %d differs", tokens[i],
            round);
    }
  CHECK_OK(hyfft_context_workspace_bytes(ctx, &bytes));
  size_t most = slot[0] + slot[1];
  if (before <= most)
    CHECK(bytes == most, "shared area %zu bytes, expected %zu (largest need per slot)", bytes,
          most);
  if (before <= most) CHECK(bytes < sum, "shared area %zu bytes is not below the sum %zu", bytes, sum);
  if (threads && !device) {
    pthread_t t[NPLANS];
    worker w[NPLANS];
    for (int i = 0; i < NPLANS; i++) {
      w[i] = (worker){plans[i], &d[i], want[i], 20, 0, HYFFT_SUCCESS};
      pthread_create(&t[i], NULL, worker_run, &w[i]);
    }
    for (int i = 0; i < NPLANS; i++) {
      pthread_join(t[i], NULL);
      CHECK(w[i].st == HYFFT_SUCCESS && w[i].bad == 0, "%s: thread: %s, %d bad results",
            tokens[i], hyfft_status_name(w[i].st), w[i].bad);
    }
  }
  for (int i = 0; i < NPLANS; i++) {
    free(want[i]);
    data_free(&d[i]);
    CHECK_OK(hyfft_plan_destroy(plans[i]));
    CHECK_OK(hyfft_plan_destroy(own[i]));
  }
}

/* A workspace over HYFFT_DEVICE_MEMORY_LIMIT. */
static void budget(hyfft_context ctx, const char *token, const char *limit, const char *bytes) {
  set_limit(limit);
  hyfft_plan plan = NULL;
  CHECK_STATUS(hyfft_plan_token(ctx, token, HYFFT_ESTIMATE, &plan), HYFFT_OUT_OF_MEMORY);
  CHECK(strstr(hyfft_last_error(), bytes) && strstr(hyfft_last_error(), "HYFFT_DEVICE_MEMORY_LIMIT"),
        "%s: message '%s' does not name %s bytes and the limit", token, hyfft_last_error(), bytes);
  if (plan) hyfft_plan_destroy(plan);
  set_limit(NULL);
}

/* ---- ordering on an asynchronous fake -------------------------------------------- */

/* A fake GPU that tracks which queues have work not yet waited for: the
 * context's own (queue NULL) and "another" (any other). Executions that
 * use the context's shared area must not overlap work on the other queue,
 * and the shared area's old buffer must not be freed while work is
 * pending. */
static hy_backend order_fake;
static hyfft_context order_ctx;
static int pending_own, pending_other, violations;

static hy_status order_execute(void *device, const void *plan_state, const hy_plan_tree *tree,
                               void *const buffers[HY_BUF_COUNT], void *queue) {
  int shared = buffers[HY_BUF_WORK0] && buffers[HY_BUF_WORK0] == order_ctx->work[0];
  if (shared && (queue ? pending_own : pending_other)) violations++;
  if (queue) pending_other = 1;
  else pending_own = 1;
  return hy_backend_cpu.execute(device, plan_state, tree, buffers, queue);
}
static hy_status order_synchronize(void *device, void *queue) {
  if (queue) pending_other = 0;
  else pending_own = 0;
  return hy_backend_cpu.synchronize(device, queue);
}
static void order_release(void *device, void *buffer) {
  if ((buffer == order_ctx->work[0] || buffer == order_ctx->work[1]) && pending_own) violations++;
  hy_backend_cpu.release(device, buffer);
}

static void ordering(void) {
  CHECK_OK(hyfft_context_create("cpu", &order_ctx));
  if (!order_ctx) return;
  order_fake = hy_backend_cpu;
  order_fake.id = HYFFT_BACKEND_CUDA;
  order_fake.execute = order_execute;
  order_fake.synchronize = order_synchronize;
  order_fake.release = order_release;
  order_ctx->backend = &order_fake;
  /* Smallest need first, so that the area grows under pending work. */
  const char *const tokens[NPLANS] = {"r2r:f32:dct2:1000:dev", "c2r:f32:64x64:dev",
                                      "c2r:f32:30x32:b7:dev"};
  hyfft_plan plans[NPLANS] = {NULL};
  data d[NPLANS];
  int other = 0;
  for (int i = 0; i < NPLANS; i++) {
    CHECK_OK(hyfft_plan_token(order_ctx, tokens[i], HYFFT_ESTIMATE, &plans[i]));
    if (!plans[i]) return;
    data_make(&d[i], order_ctx, plans[i], 0, 7u + (unsigned)i);
    memcpy(d[i].in, d[i].hin, d[i].in_bytes);
  }
  /* Own queue, other queue, own queue again, growing on the way. */
  for (int i = 0; i < NPLANS; i++) {
    CHECK_OK(hyfft_execute_async(plans[i], d[i].in, d[i].out, NULL, NULL));
    CHECK_OK(hyfft_execute_async(plans[i], d[i].in, d[i].out, NULL, &other));
    CHECK(pending_other == 0, "%s: an execution on another queue returned with its work "
          "pending on the shared area", tokens[i]);
  }
  CHECK_OK(hyfft_execute_async(plans[0], d[0].in, d[0].out, NULL, NULL));
  CHECK(pending_own == 1, "executions on the context's queue synchronised (they need not)");
  CHECK_OK(hyfft_context_synchronize(order_ctx));
  CHECK(violations == 0, "%d uses of the shared area overlapped pending work or freed it early",
        violations);
  for (int i = 0; i < NPLANS; i++) {
    data_free(&d[i]);
    CHECK_OK(hyfft_plan_destroy(plans[i]));
  }
  CHECK_OK(hyfft_context_destroy(order_ctx));
}

/* ---- ordering by events on an asynchronous fake ------------------------------------- */

/* A fake GPU with events, as CUDA has them: queue 0 is the context's own
 * (NULL), queue 1 any other. Each execution is a numbered piece of work on
 * its queue; a queue's later work runs after the work of another queue
 * that it waited for through an event (transitively), and the host knows
 * work complete after synchronize or event_wait. A use of a work area
 * must come after the area's last use on the other queue in that order,
 * and an area may only be freed once its uses are complete. */
typedef struct ev_fake_event {
  int queue;
  int gen[2]; /* work of each queue that precedes the recording */
} ev_fake_event;
static hy_backend ev_fake;
static hyfft_context ev_ctx;
static int ev_gen[2], ev_done[2], ev_after[2][2]; /* ev_after[q][r]: q's next work follows r's */
static int ev_syncs, ev_waits, ev_violations;
#define EV_AREAS 8
static const void *ev_area[EV_AREAS];
static int ev_area_gen[EV_AREAS][2];

static int ev_q(void *queue) { return queue ? 1 : 0; }

static void ev_use(const void *area, int q) {
  if (!area) return;
  int k = 0;
  while (k < EV_AREAS && ev_area[k] && ev_area[k] != area) k++;
  if (k == EV_AREAS) return;
  ev_area[k] = area;
  int r = 1 - q;
  if (ev_area_gen[k][r] > ev_after[q][r] && ev_area_gen[k][r] > ev_done[r]) ev_violations++;
  ev_area_gen[k][q] = ev_gen[q];
}
static hy_status ev_execute(void *device, const void *plan_state, const hy_plan_tree *tree,
                            void *const buffers[HY_BUF_COUNT], void *queue) {
  int q = ev_q(queue);
  ev_gen[q]++;
  ev_after[q][q] = ev_gen[q];
  ev_use(buffers[HY_BUF_WORK0], q);
  ev_use(buffers[HY_BUF_WORK1], q);
  return hy_backend_cpu.execute(device, plan_state, tree, buffers, queue);
}
static hy_status ev_synchronize(void *device, void *queue) {
  ev_syncs++;
  ev_done[ev_q(queue)] = ev_gen[ev_q(queue)];
  return hy_backend_cpu.synchronize(device, queue);
}
static hy_status ev_event_create(void *device, void **event) {
  (void)device;
  *event = calloc(1, sizeof(ev_fake_event));
  return *event ? HYFFT_SUCCESS : HYFFT_OUT_OF_MEMORY;
}
static void ev_event_release(void *device, void *event) {
  (void)device;
  free(event);
}
static hy_status ev_event_record(void *device, void *event, void *queue) {
  (void)device;
  ev_fake_event *e = event;
  e->queue = ev_q(queue);
  for (int r = 0; r < 2; r++) e->gen[r] = ev_after[e->queue][r];
  return HYFFT_SUCCESS;
}
static hy_status ev_queue_wait(void *device, void *queue, void *event) {
  (void)device;
  const ev_fake_event *e = event;
  int q = ev_q(queue);
  ev_waits++;
  for (int r = 0; r < 2; r++)
    if (e->gen[r] > ev_after[q][r]) ev_after[q][r] = e->gen[r];
  return HYFFT_SUCCESS;
}
static hy_status ev_event_wait(void *device, void *event) {
  (void)device;
  const ev_fake_event *e = event;
  for (int r = 0; r < 2; r++)
    if (e->gen[r] > ev_done[r]) ev_done[r] = e->gen[r];
  return HYFFT_SUCCESS;
}
static void ev_release(void *device, void *buffer) {
  for (int k = 0; k < EV_AREAS; k++)
    if (ev_area[k] == buffer) {
      for (int r = 0; r < 2; r++)
        if (ev_area_gen[k][r] > ev_done[r]) ev_violations++;
      ev_area[k] = NULL;
      ev_area_gen[k][0] = ev_area_gen[k][1] = 0;
    }
  hy_backend_cpu.release(device, buffer);
}

/* Executions on the context's queue and another one, alternating, on the
 * shared area (growing on the way) and on a plan's own area: the host
 * never waits, the queues wait for each other on the device where they
 * switch, no use overlaps the other queue's and nothing is freed early. */
static void ordering_events(void) {
  CHECK_OK(hyfft_context_create("cpu", &ev_ctx));
  if (!ev_ctx) return;
  ev_fake = hy_backend_cpu;
  ev_fake.id = HYFFT_BACKEND_CUDA;
  ev_fake.execute = ev_execute;
  ev_fake.synchronize = ev_synchronize;
  ev_fake.release = ev_release;
  ev_fake.event_create = ev_event_create;
  ev_fake.event_release = ev_event_release;
  ev_fake.event_record = ev_event_record;
  ev_fake.queue_wait = ev_queue_wait;
  ev_fake.event_wait = ev_event_wait;
  ev_ctx->backend = &ev_fake;
  const char *const tokens[NPLANS] = {"r2r:f32:dct2:1000:dev", "c2r:f32:64x64:dev",
                                      "c2r:f32:30x32:b7:dev"};
  hyfft_plan plans[NPLANS] = {NULL}, own = NULL;
  data d[NPLANS];
  int other = 0;
  for (int i = 0; i < NPLANS; i++) {
    CHECK_OK(hyfft_plan_token(ev_ctx, tokens[i], HYFFT_ESTIMATE, &plans[i]));
    if (!plans[i]) return;
    data_make(&d[i], ev_ctx, plans[i], 0, 17u + (unsigned)i);
    memcpy(d[i].in, d[i].hin, d[i].in_bytes);
  }
  CHECK_OK(hyfft_plan_token(ev_ctx, tokens[2], HYFFT_OWN_WORKSPACE, &own));
  if (!own) return;
  CHECK(own->work[0] != NULL, "the HYFFT_OWN_WORKSPACE plan holds no area");
  int syncs = ev_syncs;
  for (int i = 0; i < NPLANS; i++) {
    CHECK_OK(hyfft_execute_async(plans[i], d[i].in, d[i].out, NULL, NULL));
    CHECK_OK(hyfft_execute_async(plans[i], d[i].in, d[i].out, NULL, &other));
    CHECK_OK(hyfft_execute_async(own, d[2].in, d[2].out, NULL, NULL));
    CHECK_OK(hyfft_execute_async(own, d[2].in, d[2].out, NULL, &other));
  }
  CHECK_OK(hyfft_execute_async(plans[0], d[0].in, d[0].out, NULL, NULL));
  CHECK(ev_syncs == syncs, "%d host waits for queues in asynchronous executions", ev_syncs - syncs);
  /* Switches of queue: 5 on the own area, 6 on the shared one less the
   * two right after it grew (a fresh buffer has no earlier use). */
  CHECK(ev_waits == 3 * NPLANS, "%d waits between queues, expected %d", ev_waits, 3 * NPLANS);
  CHECK(ev_violations == 0, "%d uses of a work area overlapped the other queue's or freed it early",
        ev_violations);
  /* Destroying plans and the context waits for the areas' last uses. */
  CHECK_OK(hyfft_plan_destroy(own));
  for (int i = 0; i < NPLANS; i++) {
    data_free(&d[i]);
    CHECK_OK(hyfft_plan_destroy(plans[i]));
  }
  CHECK_OK(hyfft_context_destroy(ev_ctx));
  CHECK(ev_violations == 0, "%d work areas freed before their last use completed", ev_violations);
}

static const char *const fake_tokens[NPLANS] = {"c2r:f32:64x64:dev", "r2r:f32:dct2:1000:dev",
                                                "c2r:f32:30x32:b7:dev"};

static int test_cpu_and_fake(void) {
  hyfft_context cpu = NULL, gpu = NULL;
  CHECK_OK(hyfft_context_create("cpu", &cpu));
  CHECK_OK(hyfft_context_create("cpu", &gpu));
  if (!cpu || !gpu) return hy_test_summary();
  fake = *gpu->backend;
  fake.id = HYFFT_BACKEND_CUDA;
  gpu->backend = &fake;

  /* The CPU backend: plans hold their own area; the context none. */
  caller_workspace(cpu, "c2r:f32:64x64", 0);
  caller_workspace(cpu, "r2r:f64:dst1xdht:12x10:b8", 0);
  size_t bytes = 1;
  CHECK_OK(hyfft_context_workspace_bytes(cpu, &bytes));
  CHECK(bytes == 0, "a CPU context holds a shared area of %zu bytes", bytes);
  /* On the fake GPU, plans share the context's area. */
  caller_workspace(gpu, "c2r:f32:64x64:dev", 0);
  shared_area(gpu, fake_tokens, 0, 1);
  /* Growth: a fresh context, the smallest need first. */
  {
    hyfft_context g2 = NULL;
    CHECK_OK(hyfft_context_create("cpu", &g2));
    g2->backend = &fake;
    const char *const grow[NPLANS] = {"r2r:f32:dct2:1000:dev", "c2r:f32:64x64:dev",
                                      "c2r:f32:30x32:b7:dev"};
    shared_area(g2, grow, 0, 0);
    CHECK_OK(hyfft_context_destroy(g2));
  }
  /* Caller's workspace refusals: NULL plan, bad handle. */
  CHECK_STATUS(hyfft_plan_set_workspace(NULL, NULL, 0), HYFFT_NULL_POINTER);
  CHECK_STATUS(hyfft_context_workspace_bytes(gpu, NULL), HYFFT_NULL_POINTER);
  budget(gpu, "c2r:f32:64x64:dev", "4K", "16896");
  ordering();
  ordering_events();
  CHECK_OK(hyfft_context_destroy(cpu));
  CHECK_OK(hyfft_context_destroy(gpu));
  return hy_test_summary();
}

/* The first token of `list` whose plan on `ctx` has a workspace (NULL if
 * none: the device plans them all in one pass). */
static const char *with_workspace(hyfft_context ctx, const char *const *list) {
  for (; *list; list++) {
    hyfft_plan plan = NULL;
    size_t ws = 0;
    if (hyfft_plan_token(ctx, *list, HYFFT_ESTIMATE, &plan) != HYFFT_SUCCESS) continue;
    hyfft_plan_workspace_size(plan, &ws);
    int two = plan->tree.work_elems[1] != 0;
    hyfft_plan_destroy(plan);
    if (ws > 0 && !two) return *list;
  }
  return NULL;
}

/* A GPU device (spec "opencl" or "cuda"): device buffers, the shared area
 * and the limit. */
static int test_device(const char *spec) {
  hyfft_context ctx = NULL;
  if (hyfft_context_create(spec, &ctx) != HYFFT_SUCCESS) {
    printf("no %s device: skipped\n", spec);
    return 77;
  }
  /* Multi-pass sizes: one has a workspace on any device. */
  const char *const candidates[] = {"c2c:f32:fwd:65536:dev", "c2c:f32:fwd:16777216:dev",
                                    "c2c:f32:fwd:1024x1024:b8:dev", "c2c:f32:fwd:256x256:dev",
                                    "c2c:f32:fwd:32x32x32:dev", NULL};
  const char *big = with_workspace(ctx, candidates);
  CHECK(big != NULL, "no candidate plan has a workspace on %s", spec);
  if (big) {
    caller_workspace(ctx, big, 1);
    const char *const tokens[NPLANS] = {"c2c:f32:fwd:256x256:dev", big, "c2c:f32:fwd:32x32x32:dev"};
    shared_area(ctx, tokens, 1, 0);
  }
  /* A host pointer is no device buffer (OpenCL: no cl_mem at all; CUDA:
   * the driver says host memory). */
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_token(ctx, big ? big : "c2c:f32:fwd:256x256:dev", HYFFT_ESTIMATE, &plan));
  static char host[1 << 22];
  if (plan) {
    CHECK_STATUS(hyfft_plan_set_workspace(plan, host, sizeof host), HYFFT_WRONG_MEMORY);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  /* Bluestein's workspace under a limit: a device plan fails, a host plan
   * counts it in the whole staging, which then exceeds the limit, and goes
   * out of core (by Bluestein's convolution through an M-point plan). */
  hyfft_device_info info;
  CHECK_OK(hyfft_context_device(ctx, &info));
  if (info.backend == HYFFT_BACKEND_OPENCL) {
    budget(ctx, "c2c:f32:fwd:100003:dev", "2M", "3247208");
    set_limit("3M");
    plan = NULL;
    CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:100003", HYFFT_ESTIMATE, &plan));
    if (plan) {
      char text[8192];
      CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
      CHECK(strstr(text, "staged whole it needs 4847256 bytes") && strstr(text, "Bluestein"),
            "c2c:f32:fwd:100003 under 3M is not out of core by its whole staging:\n%s", text);
      CHECK_OK(hyfft_plan_destroy(plan));
    }
    set_limit(NULL);
  } else if (big) {
    size_t ws = 0;
    CHECK_OK(hyfft_plan_token(ctx, big, HYFFT_ESTIMATE, &plan));
    if (plan) {
      CHECK_OK(hyfft_plan_workspace_size(plan, &ws));
      CHECK_OK(hyfft_plan_destroy(plan));
    }
    char limit[32], bytes[32];
    snprintf(limit, sizeof limit, "%zu", ws / 2);
    snprintf(bytes, sizeof bytes, "%zu", ws);
    budget(ctx, big, limit, bytes);
  }
  CHECK_OK(hyfft_context_destroy(ctx));
  return hy_test_summary();
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--opencl") == 0) return test_device("opencl");
  if (argc > 2 && strcmp(argv[1], "--device") == 0) return test_device(argv[2]);
  return test_cpu_and_fake();
}
