/* Running a plan on caller data: argument checks, workspace, and staging of
 * host data through the device for GPU backends. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/hybrid.h"
#include "exec/batch_chunks.h"
#include "exec/conv.h"
#include "exec/multi_device.h"
#include "exec/out_of_core.h"
#include "exec/staging.h"
#include "util/settings.h"

static size_t hy_complex_size(const hy_problem *p) {
  return p->precision == HYFFT_F64 ? 16 : 8;
}

size_t hy_exec_workspace_bytes(const struct hyfft_plan_s *plan) {
  size_t elem = hy_complex_size(&plan->problem);
  return (size_t)(plan->tree.work_elems[0] + plan->tree.work_elems[1]) * elem;
}

void hy_exec_fit_workspace(const hy_backend *backend, void *device, const void *plan_state,
                           hy_plan_tree *tree) {
  if (!backend->plan_workspace || tree->work_elems[1] != 0) return;
  int64_t used = backend->plan_workspace(device, plan_state);
  if (used > 0 && used < tree->work_elems[0]) tree->work_elems[0] = used;
}

/* Byte ranges touched by the input and output. */
static void hy_exec_extents(const hy_problem *p, size_t *in_bytes, size_t *out_bytes) {
  *in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  *out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
}

/* in_bytes, out_bytes: the extents hy_exec_extents gives. */
static hy_status hy_exec_check_pointers(const struct hyfft_plan_s *plan, const void *in,
                                        const void *out, size_t in_bytes, size_t out_bytes) {
  const hy_problem *p = &plan->problem;
  if (!in) return hy_error(HYFFT_NULL_POINTER, "input pointer is NULL");
  if (!out) return hy_error(HYFFT_NULL_POINTER, "output pointer is NULL");
  if (p->inplace) {
    if (in != out)
      return hy_error(HYFFT_INVALID_ARGUMENT,
                      "the plan is in-place but input and output differ (%p, %p)", in, out);
    return HYFFT_SUCCESS;
  }
  if (in == out)
    return hy_error(HYFFT_ALIASING,
                    "the plan is out-of-place but input and output are the same buffer; "
                    "make an in-place plan");
  /* Overlap of address ranges is only meaningful for real addresses. */
  int addresses = p->memory == HYFFT_MEMORY_HOST || plan->context->backend->id != HYFFT_BACKEND_OPENCL;
  if (addresses) {
    uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
    if (a < b + out_bytes && b < a + in_bytes)
      return hy_error(HYFFT_ALIASING,
                      "input [%p, +%zu bytes) and output [%p, +%zu bytes) overlap", in, in_bytes,
                      out, out_bytes);
  }
  return HYFFT_SUCCESS;
}

static const char *hy_exec_kind_name(hy_memory_kind k) {
  return k == HY_MEMKIND_HOST ? "host memory"
         : k == HY_MEMKIND_DEVICE ? "memory of this device"
                                  : "memory of another device";
}

/* Whether `ptr` is the memory the plan was made for, as far as can be told:
 * hyfft_buffer_alloc's buffers are known (their context and size), CUDA
 * pointers are asked of the driver, and on OpenCL a device-memory plan
 * takes only hyfft's buffers (anything else is not a cl_mem at all). */
hy_status hy_exec_check_memory(const struct hyfft_plan_s *plan, const void *ptr,
                               const char *which, size_t need) {
  hyfft_context ctx = plan->context;
  const hy_backend *b = ctx->backend;
  if (b->id == HYFFT_BACKEND_CPU) return HYFFT_SUCCESS; /* one memory */
  int device_plan = plan->problem.memory == HYFFT_MEMORY_DEVICE;
  const char *plan_kind = device_plan ? "device memory" : "host memory";
  const void *owner = NULL;
  size_t size = 0;
  if (hy_handle_buffer_info(ptr, &owner, &size)) {
    if (!device_plan)
      return hy_error(HYFFT_WRONG_MEMORY, "the plan is for host memory; the %s %p is a device "
                      "buffer from hyfft_buffer_alloc (plan with memory DEVICE, token ':dev')",
                      which, ptr);
    if (owner != ctx)
      return hy_error(HYFFT_WRONG_MEMORY, "the %s %p is a buffer of another context", which, ptr);
    if (size < need)
      return hy_error(HYFFT_INVALID_ARGUMENT, "the %s buffer %p holds %zu bytes; the plan "
                      "reaches %zu", which, ptr, size, need);
    return HYFFT_SUCCESS;
  }
  if (device_plan && b->id == HYFFT_BACKEND_OPENCL)
    return hy_error(HYFFT_WRONG_MEMORY, "the plan is for device memory; the %s %p is not a buffer "
                    "from hyfft_buffer_alloc on this context (host memory?)", which, ptr);
  hy_memory_kind kind = b->memory_kind ? b->memory_kind(ctx->device, ptr) : HY_MEMKIND_UNKNOWN;
  int wrong = device_plan ? kind == HY_MEMKIND_HOST || kind == HY_MEMKIND_OTHER_DEVICE
                          : kind == HY_MEMKIND_DEVICE || kind == HY_MEMKIND_OTHER_DEVICE;
  if (wrong)
    return hy_error(HYFFT_WRONG_MEMORY, "the plan is for %s; the %s %p is %s", plan_kind, which,
                    ptr, hy_exec_kind_name(kind));
  return HYFFT_SUCCESS;
}

/* ---- work areas ------------------------------------------------------------- */

void hy_context_work_init(struct hyfft_context_s *context) {
  pthread_mutex_init(&context->work_lock, NULL);
  context->work[0] = context->work[1] = NULL;
  context->work_bytes[0] = context->work_bytes[1] = 0;
}

/* Whether the backend orders a work area's users by events on the device
 * (struct hy_work_order); the CPU backend runs synchronously. */
static int hy_work_events(const hy_backend *b) {
  return b->id != HYFFT_BACKEND_CPU && b->event_create && b->event_release && b->event_record &&
         b->queue_wait && b->event_wait;
}

/* Before a use of the area on `queue`: the queue waits on the device for
 * the last use, if that was on another queue. */
static hy_status hy_work_order_before(struct hyfft_context_s *ctx, struct hy_work_order *o,
                                      void *queue) {
  if (!o->used || o->queue == queue) return HYFFT_SUCCESS;
  return ctx->backend->queue_wait(ctx->device, queue, o->event);
}

/* After it: the event, recorded on `queue`, marks this use as the last. */
static hy_status hy_work_order_after(struct hyfft_context_s *ctx, struct hy_work_order *o,
                                     void *queue) {
  const hy_backend *b = ctx->backend;
  if (!o->event) HY_TRY(b->event_create(ctx->device, &o->event));
  hy_status st = b->event_record(ctx->device, o->event, queue);
  if (st != HYFFT_SUCCESS) {
    /* No event marks this use: wait for it here, so that none is pending. */
    b->synchronize(ctx->device, queue);
    o->used = 0;
    return st;
  }
  o->queue = queue;
  o->used = 1;
  return HYFFT_SUCCESS;
}

void hy_work_order_drain(struct hyfft_context_s *ctx, struct hy_work_order *o) {
  const hy_backend *b = ctx->backend;
  if (o->event) {
    if (o->used) b->event_wait(ctx->device, o->event);
    b->event_release(ctx->device, o->event);
  }
  o->event = NULL;
  o->queue = NULL;
  o->used = 0;
}

void hy_context_work_release(struct hyfft_context_s *context) {
  hy_work_order_drain(context, &context->work_order);
  for (int w = 0; w < 2; w++)
    if (context->work[w]) context->backend->release(context->device, context->work[w]);
  pthread_mutex_destroy(&context->work_lock);
}

size_t hy_context_work_bytes(struct hyfft_context_s *context) {
  pthread_mutex_lock(&context->work_lock);
  size_t bytes = context->work_bytes[0] + context->work_bytes[1];
  pthread_mutex_unlock(&context->work_lock);
  return bytes;
}

hy_status hy_exec_check_budget(const struct hyfft_context_s *context, size_t bytes) {
  const hy_settings *s = hy_settings_get();
  if (context->backend->id == HYFFT_BACKEND_CPU || s->device_memory_limit <= 0 ||
      bytes <= (size_t)s->device_memory_limit)
    return HYFFT_SUCCESS;
  return hy_error(HYFFT_OUT_OF_MEMORY, "the plan's workspace needs %zu bytes of device memory, "
                  "over the budget of %lld bytes (HYFFT_DEVICE_MEMORY_LIMIT)", bytes,
                  (long long)s->device_memory_limit);
}

/* Grow the context's shared area to `need` bytes per slot. Caller holds
 * work_lock. Work queued earlier may still use the old buffer, so its
 * last use is waited for before the buffer is freed: the event of that
 * use where the backend orders by events, else the context's queue (work
 * on other queues then never outlives the lock). */
static hy_status hy_exec_grow_shared(struct hyfft_context_s *ctx, const size_t need[2]) {
  const hy_backend *b = ctx->backend;
  int synced = 0;
  for (int w = 0; w < 2; w++) {
    if (need[w] <= ctx->work_bytes[w]) continue;
    if (ctx->work[w]) {
      if (!synced && hy_work_events(b)) hy_work_order_drain(ctx, &ctx->work_order);
      else if (!synced) HY_TRY(b->synchronize(ctx->device, NULL));
      synced = 1;
      b->release(ctx->device, ctx->work[w]);
      ctx->work[w] = NULL;
      ctx->work_bytes[w] = 0;
    }
    HY_TRY(b->alloc(ctx->device, need[w], &ctx->work[w]));
    ctx->work_bytes[w] = need[w];
  }
  return HYFFT_SUCCESS;
}

/* Run on the context's shared area (see struct hyfft_context_s). */
static hy_status hy_exec_shared(struct hyfft_plan_s *plan, void *buffers[HY_BUF_COUNT],
                                void *queue) {
  hyfft_context ctx = plan->context;
  const hy_backend *b = ctx->backend;
  size_t elem = hy_complex_size(&plan->problem);
  size_t need[2] = {(size_t)plan->tree.work_elems[0] * elem, (size_t)plan->tree.work_elems[1] * elem};
  pthread_mutex_lock(&ctx->work_lock);
  const int events = hy_work_events(b);
  hy_status st = hy_exec_grow_shared(ctx, need);
  /* Ordered on the device after the area's last use (events), or, without
   * events, another queue starts after the context's queue has finished
   * with the area and returns once its own use is over. */
  if (st == HYFFT_SUCCESS) {
    if (events) st = hy_work_order_before(ctx, &ctx->work_order, queue);
    else if (queue) st = b->synchronize(ctx->device, NULL);
  }
  if (st == HYFFT_SUCCESS) {
    buffers[HY_BUF_WORK0] = ctx->work[0];
    buffers[HY_BUF_WORK1] = ctx->work[1];
    st = b->execute(ctx->device, plan->backend_state, &plan->tree, buffers, queue);
  }
  if (st == HYFFT_SUCCESS) {
    if (events) st = hy_work_order_after(ctx, &ctx->work_order, queue);
    else if (queue) st = b->synchronize(ctx->device, queue);
  }
  pthread_mutex_unlock(&ctx->work_lock);
  return st;
}

/* Slot buffers inside one caller buffer: WORK1 after WORK0 where buffers
 * are addresses; on OpenCL a cl_mem holds one slot only. */
static int hy_exec_split_work(const struct hyfft_plan_s *plan, void *workspace,
                              void *buffers[HY_BUF_COUNT]) {
  if (plan->context->backend->id != HYFFT_BACKEND_OPENCL) {
    buffers[HY_BUF_WORK0] = workspace;
    buffers[HY_BUF_WORK1] =
        (char *)workspace + (size_t)plan->tree.work_elems[0] * hy_complex_size(&plan->problem);
    return 1;
  }
  if (plan->tree.work_elems[1] != 0) return 0;
  buffers[HY_BUF_WORK0] = workspace;
  return 1;
}

hy_status hy_exec_direct(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                         void *queue) {
  hyfft_context ctx = plan->context;
  void *buffers[HY_BUF_COUNT] = {(void *)in, out, NULL, NULL, plan->cb_user[0], plan->cb_user[1]};
  int needs = plan->tree.work_elems[0] || plan->tree.work_elems[1];
  /* The workspace argument, then hyfft_plan_set_workspace's buffer: the
   * caller orders their users. */
  if (workspace && hy_exec_split_work(plan, workspace, buffers))
    return ctx->backend->execute(ctx->device, plan->backend_state, &plan->tree, buffers, queue);
  if (plan->user_work && hy_exec_split_work(plan, plan->user_work, buffers))
    return ctx->backend->execute(ctx->device, plan->backend_state, &plan->tree, buffers, queue);
  if (needs && plan->work_shared) return hy_exec_shared(plan, buffers, queue);
  int locked = 0;
  const int events = hy_work_events(ctx->backend);
  hy_status st = HYFFT_SUCCESS;
  if (needs) {
    pthread_mutex_lock(&plan->work_lock);
    locked = 1;
    if (events) st = hy_work_order_before(ctx, &plan->work_order, queue);
  }
  buffers[HY_BUF_WORK0] = plan->work[0];
  buffers[HY_BUF_WORK1] = plan->work[1];
  if (st == HYFFT_SUCCESS)
    st = ctx->backend->execute(ctx->device, plan->backend_state, &plan->tree, buffers, queue);
  /* The plan-owned workspace may be reused once this use is over: on the
   * device after its event, else when the host has waited for it. */
  if (locked) {
    if (st == HYFFT_SUCCESS)
      st = events ? hy_work_order_after(ctx, &plan->work_order, queue)
                  : ctx->backend->synchronize(ctx->device, queue);
    pthread_mutex_unlock(&plan->work_lock);
  }
  return st;
}

/* Whether `ptr` can be a work area of `bytes` for the plan's context. */
static hy_status hy_exec_check_workspace(const struct hyfft_plan_s *plan, const void *ptr,
                                         size_t bytes) {
  hyfft_context ctx = plan->context;
  const hy_backend *b = ctx->backend;
  const void *owner = NULL;
  size_t size = 0;
  if (hy_handle_buffer_info(ptr, &owner, &size)) {
    if (owner != ctx)
      return hy_error(HYFFT_WRONG_MEMORY, "the workspace %p is a buffer of another context", ptr);
    if (size < bytes)
      return hy_error(HYFFT_BUFFER_TOO_SMALL, "the workspace %p holds %zu bytes, fewer than the "
                      "%zu given", ptr, size, bytes);
    return HYFFT_SUCCESS;
  }
  if (b->id == HYFFT_BACKEND_OPENCL)
    return hy_error(HYFFT_WRONG_MEMORY, "the workspace %p is not a buffer from hyfft_buffer_alloc "
                    "on this OpenCL context", ptr);
  hy_memory_kind kind = b->memory_kind ? b->memory_kind(ctx->device, ptr) : HY_MEMKIND_UNKNOWN;
  if (b->id != HYFFT_BACKEND_CPU && (kind == HY_MEMKIND_HOST || kind == HY_MEMKIND_OTHER_DEVICE))
    return hy_error(HYFFT_WRONG_MEMORY, "the workspace %p is %s, not memory of this device", ptr,
                    hy_exec_kind_name(kind));
  return HYFFT_SUCCESS;
}

hy_status hy_exec_set_workspace(struct hyfft_plan_s *plan, void *workspace, size_t bytes) {
  hyfft_context ctx = plan->context;
  size_t need = hy_exec_workspace_bytes(plan);
  int own = !plan->ooc && !plan->hybrid && !plan->work_shared;
  if (workspace) {
    if (bytes < need)
      return hy_error(HYFFT_BUFFER_TOO_SMALL, "the workspace holds %zu bytes; the plan needs %zu "
                      "(hyfft_plan_workspace_size)", bytes, need);
    HY_TRY(hy_exec_check_workspace(plan, workspace, bytes));
    if (ctx->backend->id == HYFFT_BACKEND_OPENCL && plan->tree.work_elems[1] != 0)
      return hy_error(HYFFT_NOT_SUPPORTED, "this OpenCL plan uses two work buffers (%lld and %lld "
                      "elements); one cl_mem cannot hold both, so it keeps its own",
                      (long long)plan->tree.work_elems[0], (long long)plan->tree.work_elems[1]);
    pthread_mutex_lock(&plan->work_lock);
    plan->user_work = workspace;
    plan->user_work_bytes = bytes;
    /* The memory is really given back: the plan's own area goes, once its
     * last use is over. */
    hy_work_order_drain(ctx, &plan->work_order);
    for (int w = 0; w < 2; w++) {
      if (plan->work[w]) ctx->backend->release(ctx->device, plan->work[w]);
      plan->work[w] = NULL;
    }
    pthread_mutex_unlock(&plan->work_lock);
    return HYFFT_SUCCESS;
  }
  /* Back to the default: a plan that owns its area allocates it again;
   * should that fail, the caller's buffer stays in use. */
  hy_status st = HYFFT_SUCCESS;
  pthread_mutex_lock(&plan->work_lock);
  size_t elem = hy_complex_size(&plan->problem);
  for (int w = 0; w < 2 && st == HYFFT_SUCCESS && own; w++)
    if (plan->tree.work_elems[w] > 0 && !plan->work[w])
      st = ctx->backend->alloc(ctx->device, (size_t)plan->tree.work_elems[w] * elem, &plan->work[w]);
  if (st == HYFFT_SUCCESS) {
    plan->user_work = NULL;
    plan->user_work_bytes = 0;
  } else if (plan->user_work) {
    hy_work_order_drain(ctx, &plan->work_order);
    for (int w = 0; w < 2; w++) {
      if (plan->work[w]) ctx->backend->release(ctx->device, plan->work[w]);
      plan->work[w] = NULL;
    }
  }
  pthread_mutex_unlock(&plan->work_lock);
  return st;
}

/* Host data on a GPU backend without a plan-owned stage (OpenCL, or
 * HYFFT_STAGING=simple): allocate, copy in, run, copy out, free, on every
 * call. The output's current contents go to the device first so that
 * elements between strided outputs come back unchanged. */
static hy_status hy_exec_staged(struct hyfft_plan_s *plan, const void *in, void *out,
                                void *workspace, void *queue) {
  hyfft_context ctx = plan->context;
  const hy_backend *b = ctx->backend;
  const hy_problem *p = &plan->problem;
  size_t in_bytes, out_bytes;
  hy_exec_extents(p, &in_bytes, &out_bytes);
  void *din = NULL, *dout = NULL;
  /* In place, one buffer holds both ends: R2C's complex output reaches
   * past its padded real input's last element, C2R's the other way. */
  size_t din_bytes = p->inplace && out_bytes > in_bytes ? out_bytes : in_bytes;
  hy_status st = b->alloc(ctx->device, din_bytes, &din);
  if (st == HYFFT_SUCCESS) st = b->write(ctx->device, queue, din, 0, in, in_bytes, 0);
  if (st == HYFFT_SUCCESS) {
    if (p->inplace) {
      dout = din;
    } else {
      st = b->alloc(ctx->device, out_bytes, &dout);
      if (st == HYFFT_SUCCESS) st = b->write(ctx->device, queue, dout, 0, out, out_bytes, 0);
    }
  }
  if (st == HYFFT_SUCCESS) st = hy_exec_direct(plan, din, dout, workspace, queue);
  if (st == HYFFT_SUCCESS) st = b->read(ctx->device, queue, dout, 0, out, out_bytes, 1);
  if (dout && dout != din) b->release(ctx->device, dout);
  if (din) b->release(ctx->device, din);
  return st;
}

/* Whether side `out` (0: input, 1: output) of a problem holds complex
 * elements (R2C's input and C2R's output are real). */
static int hy_exec_cb_complex(const hy_problem *p, int out) {
  return !((p->kind == HYFFT_R2C && !out) || (p->kind == HYFFT_C2R && out));
}

/* Logical elements of one side: the transform lengths (n/2+1 along the
 * last dim of a real transform's complex side) times the batch. */
static int64_t hy_exec_cb_count(const hy_problem *p, int out) {
  int64_t count = p->total_batch;
  for (int d = 0; d < p->rank; d++) {
    int64_t n = p->dims[d].n;
    if (d == p->rank - 1 && p->kind != HYFFT_C2C && hy_exec_cb_complex(p, out)) n = n / 2 + 1;
    count *= n;
  }
  return count;
}

/* Offset of logical element i of the input (out = 0) or output (out = 1),
 * in elements of that side: the transform dims fastest, then the batch
 * dims. */
static int64_t hy_exec_cb_offset(const hy_problem *p, int64_t i, int out) {
  int64_t off = 0;
  for (int d = p->rank - 1; d >= 0; d--) {
    int64_t n = p->dims[d].n;
    if (d == p->rank - 1 && p->kind != HYFFT_C2C && hy_exec_cb_complex(p, out)) n = n / 2 + 1;
    off += (i % n) * (out ? p->dims[d].out_stride : p->dims[d].in_stride);
    i /= n;
  }
  for (int d = p->batch_rank - 1; d >= 0; d--) {
    off += (i % p->batch[d].n) * (out ? p->batch[d].out_stride : p->batch[d].in_stride);
    i /= p->batch[d].n;
  }
  return off;
}

/* A CPU plan with callback functions: the load function fills a scratch
 * copy of the input (every logical element, once, in logical order), the
 * transform runs from it, then the store function receives every logical
 * output element once and writes `out` itself. In place, the transform
 * runs in the scratch copy and the store (or a plain copy) puts the
 * results into the caller's buffer. Elements are complex of the plan's
 * precision, real ones on R2C's input and C2R's output side. */
static hy_status hy_exec_run_callbacks(struct hyfft_plan_s *plan, const void *in, void *out,
                                       void *workspace, void *queue) {
  const hy_problem *p = &plan->problem;
  size_t es = p->precision == HYFFT_F64 ? 16 : 8;
  size_t in_es = hy_exec_cb_complex(p, 0) ? es : es / 2;
  size_t out_es = hy_exec_cb_complex(p, 1) ? es : es / 2;
  char *scratch = NULL;
  const void *src = in;
  if (plan->load_fn) {
    size_t bytes = (size_t)(p->in_extent > 0 ? p->in_extent : 1) * in_es;
    size_t out_bytes = (size_t)(p->out_extent > 0 ? p->out_extent : 1) * out_es;
    if (p->inplace && out_bytes > bytes) bytes = out_bytes;
    scratch = hy_calloc(bytes, 1);
    if (!scratch)
      return hy_error(HYFFT_OUT_OF_MEMORY, "callbacks: cannot allocate the %zu-byte load scratch",
                      bytes);
    int64_t total = hy_exec_cb_count(p, 0);
    for (int64_t i = 0; i < total; i++) {
      int64_t o = hy_exec_cb_offset(p, i, 0);
      plan->load_fn(scratch + (size_t)o * in_es, in, o, plan->cb_user[0]);
    }
    src = scratch;
  }
  char *dst = p->inplace && scratch ? scratch : out;
  hy_status st = hy_exec_direct(plan, src, dst, workspace, queue);
  if (st == HYFFT_SUCCESS && (plan->store_fn || dst != (char *)out)) {
    double value[2];
    int64_t total = hy_exec_cb_count(p, 1);
    for (int64_t i = 0; i < total; i++) {
      int64_t o = hy_exec_cb_offset(p, i, 1);
      memcpy(value, dst + (size_t)o * out_es, out_es);
      if (plan->store_fn)
        plan->store_fn(out, o, value, plan->cb_user[1]);
      else
        memcpy((char *)out + (size_t)o * out_es, value, out_es);
    }
  }
  hy_free(scratch);
  return st;
}

hy_status hy_exec_run(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                      void *queue, int blocking) {
  if (plan->conv) {
    hy_status cst = hy_conv_run(plan, in, out, queue);
    if (cst == HYFFT_SUCCESS && blocking)
      cst = plan->context->backend->synchronize(plan->context->device, queue);
    if (cst == HYFFT_SUCCESS) hy_exec_progress(plan, 1.0);
    return cst;
  }
  /* The kind of memory first: address overlaps mean nothing for handles
   * that are not addresses (cl_mem given to a host plan). */
  size_t in_bytes, out_bytes;
  hy_exec_extents(&plan->problem, &in_bytes, &out_bytes);
  if (in && out && plan->context->backend->id != HYFFT_BACKEND_CPU) {
    /* The CPU backend has one kind of memory: nothing to check. */
    size_t in_need = plan->problem.inplace && out_bytes > in_bytes ? out_bytes : in_bytes;
    HY_TRY(hy_exec_check_memory(plan, in, "input", in_need));
    if (out != in) HY_TRY(hy_exec_check_memory(plan, out, "output", out_bytes));
  }
  HY_TRY(hy_exec_check_pointers(plan, in, out, in_bytes, out_bytes));
  hyfft_context ctx = plan->context;
  hy_status st = hy_exec_dispatch(plan, in, out, workspace, queue);
  if (st == HYFFT_SUCCESS && blocking) st = ctx->backend->synchronize(ctx->device, queue);
  /* Host data on a GPU backend is complete when the staged, out-of-core
   * or hybrid path returns; anything else once synchronized. */
  int complete = blocking || (plan->problem.memory == HYFFT_MEMORY_HOST &&
                              ctx->backend->id != HYFFT_BACKEND_CPU);
  if (st == HYFFT_SUCCESS && complete) hy_exec_progress(plan, 1.0);
  return st;
}

hy_status hy_exec_dispatch(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                           void *queue) {
  hyfft_context ctx = plan->context;
  hy_status st;
  if (plan->multi)
    st = hy_multi_run(plan, in, out, queue);
  else if (plan->chunks)
    st = hy_chunks_run(plan, in, out);
  else if (plan->hybrid)
    st = hy_hybrid_run(plan, in, out, queue);
  else if (plan->ooc)
    st = hy_ooc_run(plan, in, out, queue);
  else if (plan->problem.memory == HYFFT_MEMORY_HOST && ctx->backend->id != HYFFT_BACKEND_CPU)
    st = plan->stage ? hy_stage_run(plan, in, out, workspace, queue)
                     : hy_exec_staged(plan, in, out, workspace, queue);
  else if (plan->load_fn || plan->store_fn)
    st = hy_exec_run_callbacks(plan, in, out, workspace, queue);
  else
    st = hy_exec_direct(plan, in, out, workspace, queue);
  return st;
}
