/* The CUDA backend: NVIDIA GPUs through the driver API (libcuda, dlopen'ed)
 * with kernels from the generator compiled by NVRTC.
 *
 * Every entry point that calls the driver pushes the device's primary
 * context and pops it on the way out: user threads may have another
 * context current (or none), and hyfft must leave theirs untouched.
 * The primary context is the one the CUDA runtime uses, so device pointers
 * from cudaMalloc and streams from cudaStreamCreate work here directly. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_compile.h"
#include "planner/planner.h"

/* A module loaded in one context, shared by the plans whose programs hash
 * the same. */
typedef struct hy_cuda_module {
  struct hy_cuda_module *next;
  uint64_t key;
  CUmodule module;
  int refs;
} hy_cuda_module;

typedef struct hy_cuda_device {
  const hy_cuda_driver *cu;
  int index;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream; /* the context's own queue */
  int arch;        /* 10 * major + minor */
  int max_grid_x;
  int shared_optin;
  hy_device_caps caps;
  pthread_mutex_t lock; /* guards modules */
  hy_cuda_module *modules;
  atomic_long compiled, disk_hits, memory_hits;
  atomic_long background, switched, background_failed;
} hy_cuda_device;

/* A generated program loaded in the context. */
typedef struct hy_cuda_loaded {
  hy_gpu_program program;
  /* A program compiled as one unit is all in modules[0]; one compiled a
   * unit per kernel (per_kernel) has kernel k in modules[k]. */
  int per_kernel;
  hy_cuda_module *modules[HY_MAX_KERNELS];
  CUfunction functions[HY_MAX_KERNELS];
  int max_threads[HY_MAX_KERNELS]; /* what the compiled kernel can launch with */
  /* The program's tables, all in one allocation (one cuMemAlloc per plan
   * instead of one per table: warm plans of several tables are quicker). */
  CUdeviceptr table_block;
  CUdeviceptr tables[HY_MAX_TABLES];
} hy_cuda_loaded;

/* What a plan runs: most plans one program, `main`, from the start.
 *
 * Two kinds of program are long compiles: a persistent kernel
 * (cg_persist.c; 1.2-1.6 s for the 65537-point plans on the H100's host)
 * and a kernel over whole 2D planes (axis_passes.c; most of a second for
 * 100 x 100). Each has a quick alternative: the plain program of one
 * kernel per pass the persistent one was made from, or the program of one
 * pass per axis (hy_planner_quick_tree), whose small kernels compile in
 * parallel in a fraction of that. So when such a program is in neither
 * cache, the plan is tiered: it loads the quick program (`plain`) and
 * runs it, while a thread compiles the main one (`job`; its tables are
 * uploaded already). The first execution after that compile has finished,
 * or hy_cuda_plan_wait, loads it and switches `active` to it, under
 * `lock`; both programs compute the same transform. A compile that fails
 * leaves the plan on its quick program, with the failure kept for
 * hy_cuda_plan_wait to report. $HYFFT_CUDA_BACKGROUND=0 turns tiering off
 * (every plan compiles its program before it is returned). */
typedef struct hy_cuda_plan {
  _Atomic(hy_cuda_loaded *) active;
  hy_cuda_loaded *main;  /* the program the generator made for the tree */
  hy_cuda_loaded *plain; /* tiered plans: the quick program, run until main is compiled */
  hy_cuda_background *job;
  uint64_t main_key;     /* main's module key (tiered plans) */
  atomic_int settled;    /* tiered plans: 1 once switched, or given up */
  pthread_mutex_t lock;
  hy_status failure;     /* why a tiered plan stayed on plain */
  char *failure_message;
} hy_cuda_plan;

/* ---- context entry/exit ------------------------------------------------- */

static hy_status hy_cuda_enter(const hy_cuda_device *d) {
  CUresult r = d->cu->cuCtxPushCurrent(d->ctx);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuCtxPushCurrent");
}

static void hy_cuda_leave(const hy_cuda_device *d) {
  CUcontext popped;
  d->cu->cuCtxPopCurrent(&popped);
}

#define HY_CU_CALL(d, call, name)                                              \
  do {                                                                         \
    CUresult hy_cu_r_ = (call);                                                \
    if (hy_cu_r_ != HY_CUDA_SUCCESS) return hy_cuda_fail((d)->cu, hy_cu_r_, name); \
  } while (0)

static CUstream hy_cuda_stream(const hy_cuda_device *d, void *queue) {
  return queue ? (CUstream)queue : d->stream;
}

/* ---- discovery ------------------------------------------------------------ */

static hy_status hy_cuda_device_count(int *count) {
  const hy_cuda_driver *cu;
  *count = 0;
  /* A missing driver is not an error for discovery: 0 devices. */
  if (hy_cuda_driver_get(&cu) != HYFFT_SUCCESS) {
    hy_error_clear();
    return HYFFT_SUCCESS;
  }
  *count = cu->device_count;
  return HYFFT_SUCCESS;
}

static int hy_cuda_attr(const hy_cuda_driver *cu, CUdevice dev, int attr) {
  int v = 0;
  if (cu->cuDeviceGetAttribute(&v, attr, dev) != HY_CUDA_SUCCESS) v = 0;
  return v;
}

static hy_status hy_cuda_lookup(int index, const hy_cuda_driver **cu, CUdevice *dev) {
  HY_TRY(hy_cuda_driver_get(cu));
  if (index < 0 || index >= (*cu)->device_count)
    return hy_error(HYFFT_INVALID_DEVICE, "cuda:%d: no such device (%d CUDA devices)", index,
                    (*cu)->device_count);
  CUresult r = (*cu)->cuDeviceGet(dev, index);
  if (r != HY_CUDA_SUCCESS) return hy_cuda_fail(*cu, r, "cuDeviceGet");
  return HYFFT_SUCCESS;
}

static hy_status hy_cuda_device_info(int index, hyfft_device_info *info) {
  const hy_cuda_driver *cu;
  CUdevice dev;
  HY_TRY(hy_cuda_lookup(index, &cu, &dev));
  hyfft_device_info out;
  memset(&out, 0, sizeof out);
  out.backend = HYFFT_BACKEND_CUDA;
  snprintf(out.spec, sizeof out.spec, "cuda:%d", index);
  if (cu->cuDeviceGetName(out.name, (int)sizeof out.name, dev) != HY_CUDA_SUCCESS)
    snprintf(out.name, sizeof out.name, "CUDA device %d", index);
  int major = hy_cuda_attr(cu, dev, HY_CU_ATTR_CC_MAJOR);
  int minor = hy_cuda_attr(cu, dev, HY_CU_ATTR_CC_MINOR);
  snprintf(out.platform, sizeof out.platform, "CUDA driver %d.%d, sm_%d%d",
           cu->driver_version / 1000, cu->driver_version % 1000 / 10, major, minor);
  out.compute_units = hy_cuda_attr(cu, dev, HY_CU_ATTR_MULTIPROCESSOR_COUNT);
  size_t total = 0;
  if (cu->cuDeviceTotalMem(&total, dev) == HY_CUDA_SUCCESS) out.global_memory = (int64_t)total;
  int optin = hy_cuda_attr(cu, dev, HY_CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN);
  out.local_memory = optin > 0 ? optin : hy_cuda_attr(cu, dev, HY_CU_ATTR_MAX_SHARED_PER_BLOCK);
  out.l2_cache = hy_cuda_attr(cu, dev, HY_CU_ATTR_L2_CACHE_SIZE);
  out.max_work_group = hy_cuda_attr(cu, dev, HY_CU_ATTR_MAX_THREADS_PER_BLOCK);
  out.supports_f64 = 1;
  out.is_gpu = 1;
  *info = out;
  return HYFFT_SUCCESS;
}

/* Largest power of two <= v (v >= 1). */
static int64_t hy_floor_pow2(int64_t v) {
  int64_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

static void hy_cuda_fill_caps(hy_cuda_device *d, const hyfft_device_info *info) {
  const hy_cuda_driver *cu = d->cu;
  hy_device_caps *c = &d->caps;
  memset(c, 0, sizeof *c);
  c->backend = HYFFT_BACKEND_CUDA;
  c->compute_units = info->compute_units;
  c->local_memory = info->local_memory;
  c->max_work_group = info->max_work_group;
  c->l2_cache = info->l2_cache;
  c->global_memory = info->global_memory;
  /* Peak DRAM bandwidth is 2 transfers per memory clock over the bus; a
   * device-to-device copy reaches about 90% of it. */
  double mem_khz = hy_cuda_attr(cu, d->dev, HY_CU_ATTR_MEMORY_CLOCK_RATE);
  double bus_bits = hy_cuda_attr(cu, d->dev, HY_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH);
  double peak = 2.0 * mem_khz * 1e3 * bus_bits / 8.0;
  c->bandwidth = peak > 0 ? 0.9 * peak : 1e12;
  c->launch_overhead = 4e-6;
  /* 128 FP32 lanes per SM, 2 flops per FMA, on every architecture since
   * Ampere; older ones only make this an overestimate. */
  double clock_khz = hy_cuda_attr(cu, d->dev, HY_CU_ATTR_CLOCK_RATE);
  c->flop_rate = clock_khz > 0 ? c->compute_units * 128.0 * 2.0 * clock_khz * 1e3 : 2e13;
  c->supports_f64 = 1;
  /* One pass keeps a whole transform in shared memory, one complex element
   * per point; the generator needs power-of-two headroom. */
  int64_t shared = d->shared_optin > 0 ? d->shared_optin : c->local_memory;
  c->max_pass_length[HYFFT_F32] = hy_floor_pow2(shared / 8 > 1 ? shared / 8 : 1);
  c->max_pass_length[HYFFT_F64] = hy_floor_pow2(shared / 16 > 1 ? shared / 16 : 1);
}

static hy_status hy_cuda_open(int index, void **device) {
  const hy_cuda_driver *cu;
  CUdevice dev;
  HY_TRY(hy_cuda_lookup(index, &cu, &dev));
  hyfft_device_info info;
  HY_TRY(hy_cuda_device_info(index, &info));
  hy_cuda_device *d = hy_calloc(1, sizeof *d);
  if (!d) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CUDA device state");
  d->cu = cu;
  d->index = index;
  d->dev = dev;
  d->arch = 10 * hy_cuda_attr(cu, dev, HY_CU_ATTR_CC_MAJOR) + hy_cuda_attr(cu, dev, HY_CU_ATTR_CC_MINOR);
  d->max_grid_x = hy_cuda_attr(cu, dev, HY_CU_ATTR_MAX_GRID_DIM_X);
  d->shared_optin = hy_cuda_attr(cu, dev, HY_CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN);
  CUresult r = cu->cuDevicePrimaryCtxRetain(&d->ctx, dev);
  if (r != HY_CUDA_SUCCESS) {
    hy_status st = hy_cuda_fail(cu, r, "cuDevicePrimaryCtxRetain");
    hy_free(d);
    return st;
  }
  hy_status st = hy_cuda_enter(d);
  if (st == HYFFT_SUCCESS) {
    r = cu->cuStreamCreate(&d->stream, HY_CU_STREAM_DEFAULT);
    if (r != HY_CUDA_SUCCESS) st = hy_cuda_fail(cu, r, "cuStreamCreate");
    hy_cuda_leave(d);
  }
  if (st != HYFFT_SUCCESS) {
    cu->cuDevicePrimaryCtxRelease(dev);
    hy_free(d);
    return st;
  }
  pthread_mutex_init(&d->lock, NULL);
  hy_cuda_fill_caps(d, &info);
  *device = d;
  return HYFFT_SUCCESS;
}

static void hy_cuda_close(void *device) {
  hy_cuda_device *d = device;
  if (!d) return;
  if (hy_cuda_enter(d) == HYFFT_SUCCESS) {
    d->cu->cuStreamSynchronize(d->stream);
    d->cu->cuStreamDestroy(d->stream);
    /* Plans hold references; modules left here belong to plans the user
     * never destroyed, and go with the context. */
    for (hy_cuda_module *m = d->modules, *next; m; m = next) {
      next = m->next;
      d->cu->cuModuleUnload(m->module);
      hy_free(m);
    }
    hy_cuda_leave(d);
  }
  d->cu->cuDevicePrimaryCtxRelease(d->dev);
  pthread_mutex_destroy(&d->lock);
  hy_free(d);
}

static hy_status hy_cuda_caps(void *device, hy_device_caps *caps) {
  *caps = ((hy_cuda_device *)device)->caps;
  return HYFFT_SUCCESS;
}

void *hy_cuda_context(void *device) { return ((hy_cuda_device *)device)->ctx; }

void hy_cuda_get_stats(void *device, hy_cuda_stats *stats) {
  hy_cuda_device *d = device;
  stats->compiled = atomic_load(&d->compiled);
  stats->disk_hits = atomic_load(&d->disk_hits);
  stats->memory_hits = atomic_load(&d->memory_hits);
  stats->background = atomic_load(&d->background);
  stats->switched = atomic_load(&d->switched);
  stats->background_failed = atomic_load(&d->background_failed);
}

/* ---- memory --------------------------------------------------------------- */

static hy_status hy_cuda_alloc(void *device, size_t bytes, void **buffer) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUdeviceptr p = 0;
  CUresult r = d->cu->cuMemAlloc(&p, bytes ? bytes : 1);
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) {
    hy_cuda_fail(d->cu, r, "cuMemAlloc");
    return hy_error(r == HY_CUDA_ERROR_OUT_OF_MEMORY ? HYFFT_OUT_OF_MEMORY : HYFFT_BACKEND_ERROR,
                    "CUDA: cannot allocate %zu bytes on cuda:%d (%s)", bytes, d->index,
                    hyfft_last_error());
  }
  *buffer = (void *)(uintptr_t)p;
  return HYFFT_SUCCESS;
}

static void hy_cuda_release(void *device, void *buffer) {
  hy_cuda_device *d = device;
  if (!buffer || hy_cuda_enter(d) != HYFFT_SUCCESS) return;
  d->cu->cuMemFree((CUdeviceptr)(uintptr_t)buffer);
  hy_cuda_leave(d);
}

static hy_status hy_cuda_finish(hy_cuda_device *d, CUstream s, int blocking) {
  if (!blocking) return HYFFT_SUCCESS;
  HY_CU_CALL(d, d->cu->cuStreamSynchronize(s), "cuStreamSynchronize");
  return HYFFT_SUCCESS;
}

static hy_status hy_cuda_write(void *device, void *queue, void *buffer, size_t offset,
                               const void *host, size_t bytes, int blocking) {
  hy_cuda_device *d = device;
  if (bytes == 0) return HYFFT_SUCCESS;
  HY_TRY(hy_cuda_enter(d));
  CUstream s = hy_cuda_stream(d, queue);
  CUresult r = d->cu->cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)buffer + offset, host, bytes, s);
  hy_status st = r == HY_CUDA_SUCCESS ? hy_cuda_finish(d, s, blocking)
                                      : hy_cuda_fail(d->cu, r, "cuMemcpyHtoDAsync");
  hy_cuda_leave(d);
  return st;
}

static hy_status hy_cuda_read(void *device, void *queue, const void *buffer, size_t offset,
                              void *host, size_t bytes, int blocking) {
  hy_cuda_device *d = device;
  if (bytes == 0) return HYFFT_SUCCESS;
  HY_TRY(hy_cuda_enter(d));
  CUstream s = hy_cuda_stream(d, queue);
  CUresult r = d->cu->cuMemcpyDtoHAsync(host, (CUdeviceptr)(uintptr_t)buffer + offset, bytes, s);
  hy_status st = r == HY_CUDA_SUCCESS ? hy_cuda_finish(d, s, blocking)
                                      : hy_cuda_fail(d->cu, r, "cuMemcpyDtoHAsync");
  hy_cuda_leave(d);
  return st;
}

static hy_status hy_cuda_synchronize(void *device, void *queue) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  hy_status st = hy_cuda_finish(d, hy_cuda_stream(d, queue), 1);
  hy_cuda_leave(d);
  return st;
}

static hy_status hy_cuda_copy_region_in(hy_cuda_device *d, CUstream s, const hy_copy_region *g) {
  if (g->depth <= 1 && g->height <= 1) {
    if (g->src_device && g->dst_device)
      HY_CU_CALL(d, d->cu->cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)g->dst,
                                             (CUdeviceptr)(uintptr_t)g->src, g->width, s),
                 "cuMemcpyDtoDAsync");
    else if (g->dst_device)
      HY_CU_CALL(d, d->cu->cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)g->dst, g->src, g->width, s),
                 "cuMemcpyHtoDAsync");
    else if (g->src_device)
      HY_CU_CALL(d, d->cu->cuMemcpyDtoHAsync(g->dst, (CUdeviceptr)(uintptr_t)g->src, g->width, s),
                 "cuMemcpyDtoHAsync");
    else
      memcpy(g->dst, g->src, g->width);
    return HYFFT_SUCCESS;
  }
  if (g->depth <= 1) {
    hy_cu_memcpy2d c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = g->src_device ? HY_CU_MEMORYTYPE_DEVICE : HY_CU_MEMORYTYPE_HOST;
    c.srcHost = g->src;
    c.srcDevice = (CUdeviceptr)(uintptr_t)g->src;
    c.srcPitch = g->src_pitch;
    c.dstMemoryType = g->dst_device ? HY_CU_MEMORYTYPE_DEVICE : HY_CU_MEMORYTYPE_HOST;
    c.dstHost = g->dst;
    c.dstDevice = (CUdeviceptr)(uintptr_t)g->dst;
    c.dstPitch = g->dst_pitch;
    c.WidthInBytes = g->width;
    c.Height = g->height;
    HY_CU_CALL(d, d->cu->cuMemcpy2DAsync(&c, s), "cuMemcpy2DAsync");
    return HYFFT_SUCCESS;
  }
  hy_cu_memcpy3d c;
  memset(&c, 0, sizeof c);
  c.srcMemoryType = g->src_device ? HY_CU_MEMORYTYPE_DEVICE : HY_CU_MEMORYTYPE_HOST;
  c.srcHost = g->src;
  c.srcDevice = (CUdeviceptr)(uintptr_t)g->src;
  c.srcPitch = g->src_pitch;
  c.srcHeight = g->src_rows;
  c.dstMemoryType = g->dst_device ? HY_CU_MEMORYTYPE_DEVICE : HY_CU_MEMORYTYPE_HOST;
  c.dstHost = g->dst;
  c.dstDevice = (CUdeviceptr)(uintptr_t)g->dst;
  c.dstPitch = g->dst_pitch;
  c.dstHeight = g->dst_rows;
  c.WidthInBytes = g->width;
  c.Height = g->height;
  c.Depth = g->depth;
  HY_CU_CALL(d, d->cu->cuMemcpy3DAsync(&c, s), "cuMemcpy3DAsync");
  return HYFFT_SUCCESS;
}

hy_status hy_cuda_copy_region(void *device, void *queue, const hy_copy_region *region,
                              int blocking) {
  hy_cuda_device *d = device;
  if (!region || !region->dst || !region->src)
    return hy_error(HYFFT_NULL_POINTER, "copy region or one of its pointers is NULL");
  if ((region->height > 1 && (region->src_pitch < region->width || region->dst_pitch < region->width)) ||
      (region->depth > 1 && (region->src_rows < region->height || region->dst_rows < region->height)))
    return hy_error(HYFFT_INVALID_ARGUMENT,
                    "copy region: pitch smaller than the width or rows fewer than the height");
  if (region->width == 0 || region->height == 0 || region->depth == 0) return HYFFT_SUCCESS;
  HY_TRY(hy_cuda_enter(d));
  CUstream s = hy_cuda_stream(d, queue);
  hy_status st = hy_cuda_copy_region_in(d, s, region);
  if (st == HYFFT_SUCCESS) st = hy_cuda_finish(d, s, blocking);
  hy_cuda_leave(d);
  return st;
}

/* ---- queues and events ------------------------------------------------- */

hy_status hy_cuda_queue_create(void *device, void **queue) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUstream s = NULL;
  CUresult r = d->cu->cuStreamCreate(&s, HY_CU_STREAM_DEFAULT);
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) return hy_cuda_fail(d->cu, r, "cuStreamCreate");
  *queue = s;
  return HYFFT_SUCCESS;
}

void hy_cuda_queue_release(void *device, void *queue) {
  hy_cuda_device *d = device;
  if (!queue || hy_cuda_enter(d) != HYFFT_SUCCESS) return;
  d->cu->cuStreamDestroy((CUstream)queue);
  hy_cuda_leave(d);
}

hy_status hy_cuda_event_record(void *device, void *queue, void **event) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUevent e = NULL;
  CUresult r = d->cu->cuEventCreate(&e, HY_CU_EVENT_DEFAULT);
  hy_status st = HYFFT_SUCCESS;
  if (r != HY_CUDA_SUCCESS) {
    st = hy_cuda_fail(d->cu, r, "cuEventCreate");
  } else {
    r = d->cu->cuEventRecord(e, hy_cuda_stream(d, queue));
    if (r != HY_CUDA_SUCCESS) {
      st = hy_cuda_fail(d->cu, r, "cuEventRecord");
      d->cu->cuEventDestroy(e);
    }
  }
  hy_cuda_leave(d);
  if (st == HYFFT_SUCCESS) *event = e;
  return st;
}

hy_status hy_cuda_queue_wait(void *device, void *queue, void *event) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUresult r = d->cu->cuStreamWaitEvent(hy_cuda_stream(d, queue), (CUevent)event, 0);
  hy_cuda_leave(d);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuStreamWaitEvent");
}

hy_status hy_cuda_event_elapsed(void *device, void *start, void *end, double *seconds) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  float ms = 0;
  CUresult r = d->cu->cuEventSynchronize((CUevent)end);
  if (r == HY_CUDA_SUCCESS) r = d->cu->cuEventElapsedTime(&ms, (CUevent)start, (CUevent)end);
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) return hy_cuda_fail(d->cu, r, "cuEventElapsedTime");
  *seconds = ms * 1e-3;
  return HYFFT_SUCCESS;
}

void hy_cuda_event_release(void *device, void *event) {
  hy_cuda_device *d = device;
  if (!event || hy_cuda_enter(d) != HYFFT_SUCCESS) return;
  d->cu->cuEventDestroy((CUevent)event);
  hy_cuda_leave(d);
}

/* ---- staging hooks (backend table) --------------------------------------- */

/* Page-locked host memory: the only kind the DMA engines copy from without
 * an intermediate driver copy, so copies from it overlap kernels. */
static hy_status hy_cuda_host_alloc(void *device, size_t bytes, void **host) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  void *p = NULL;
  CUresult r = d->cu->cuMemHostAlloc(&p, bytes ? bytes : 1, 0);
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) {
    hy_cuda_fail(d->cu, r, "cuMemHostAlloc");
    return hy_error(r == HY_CUDA_ERROR_OUT_OF_MEMORY ? HYFFT_OUT_OF_MEMORY : HYFFT_BACKEND_ERROR,
                    "CUDA: cannot allocate %zu bytes of page-locked host memory (%s)", bytes,
                    hyfft_last_error());
  }
  *host = p;
  return HYFFT_SUCCESS;
}

static void hy_cuda_host_release(void *device, void *host) {
  hy_cuda_device *d = device;
  if (!host || hy_cuda_enter(d) != HYFFT_SUCCESS) return;
  d->cu->cuMemFreeHost(host);
  hy_cuda_leave(d);
}

/* Events without timing: recording and waiting on them is cheaper. */
static hy_status hy_cuda_event_create(void *device, void **event) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUevent e = NULL;
  CUresult r = d->cu->cuEventCreate(&e, HY_CU_EVENT_DISABLE_TIMING);
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) return hy_cuda_fail(d->cu, r, "cuEventCreate");
  *event = e;
  return HYFFT_SUCCESS;
}

static hy_status hy_cuda_event_rerecord(void *device, void *event, void *queue) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUresult r = d->cu->cuEventRecord((CUevent)event, hy_cuda_stream(d, queue));
  hy_cuda_leave(d);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuEventRecord");
}

static hy_status hy_cuda_event_wait(void *device, void *event) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUresult r = d->cu->cuEventSynchronize((CUevent)event);
  hy_cuda_leave(d);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuEventSynchronize");
}

/* ---- programs ------------------------------------------------------------- */

/* Key of a program's compiled image: what it is (source bytes, the
 * generator's hash and version) and what it was built for (architecture,
 * driver). */
static uint64_t hy_cuda_program_key(const hy_cuda_device *d, const hy_gpu_program *p) {
  uint64_t h = hy_hash_str(HY_HASH_INIT, "hyfft-cuda-image");
  h = hy_hash_u64(h, p->hash);
  h = hy_hash_bytes(h, p->source.data ? p->source.data : "", p->source.len);
  h = hy_hash_u64(h, (uint64_t)d->arch);
  h = hy_hash_u64(h, (uint64_t)d->cu->driver_version);
  h = hy_hash_u64(h, (uint64_t)HY_CODEGEN_VERSION);
  return hy_cuda_options_hash(h);
}

/* The loaded module for `key` with a reference taken, or NULL. */
static hy_cuda_module *hy_cuda_module_find(hy_cuda_device *d, uint64_t key) {
  pthread_mutex_lock(&d->lock);
  for (hy_cuda_module *m = d->modules; m; m = m->next) {
    if (m->key == key) {
      m->refs++;
      pthread_mutex_unlock(&d->lock);
      atomic_fetch_add(&d->memory_hits, 1);
      return m;
    }
  }
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

/* Record a freshly loaded module under `key` (owned from here on, also on
 * failure). If another thread recorded the key meanwhile, theirs is used
 * and this one unloaded. */
static hy_status hy_cuda_module_add(hy_cuda_device *d, uint64_t key, CUmodule module,
                                    hy_cuda_module **out) {
  hy_cuda_module *m = hy_calloc(1, sizeof *m);
  if (!m) {
    d->cu->cuModuleUnload(module);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a module record");
  }
  m->key = key;
  m->module = module;
  m->refs = 1;
  pthread_mutex_lock(&d->lock);
  for (hy_cuda_module *o = d->modules; o; o = o->next) {
    if (o->key == key) {
      o->refs++;
      pthread_mutex_unlock(&d->lock);
      d->cu->cuModuleUnload(module);
      hy_free(m);
      *out = o;
      return HYFFT_SUCCESS;
    }
  }
  m->next = d->modules;
  d->modules = m;
  pthread_mutex_unlock(&d->lock);
  *out = m;
  return HYFFT_SUCCESS;
}

/* The module for `key` from memory or the disk cache, or *out = NULL when
 * neither has it (or the driver rejects the cached image); called with
 * the context current. */
static hy_status hy_cuda_module_cached(hy_cuda_device *d, uint64_t key, hy_cuda_module **out) {
  *out = hy_cuda_module_find(d, key);
  if (*out) return HYFFT_SUCCESS;
  void *image = NULL;
  size_t size = 0;
  if (hy_cuda_cache_load(key, &image, &size) != HYFFT_SUCCESS) {
    hy_error_clear();
    return HYFFT_SUCCESS;
  }
  CUmodule module = NULL;
  CUresult r = d->cu->cuModuleLoadData(&module, image);
  hy_free(image);
  if (r != HY_CUDA_SUCCESS) return HYFFT_SUCCESS;
  atomic_fetch_add(&d->disk_hits, 1);
  return hy_cuda_module_add(d, key, module, out);
}

/* Compile `source` with NVRTC, store its image in the disk cache and load
 * it as the module for `key`; called with the context current. PTX images
 * are valid too (the driver JITs them), so both are cached; the driver
 * version in the key keeps them apart across upgrades. */
static hy_status hy_cuda_module_build(hy_cuda_device *d, const char *source, uint64_t key,
                                      hy_cuda_module **out) {
  void *image = NULL;
  size_t size = 0;
  int is_ptx = 0;
  HY_TRY(hy_cuda_compile(source, d->arch, &image, &size, &is_ptx));
  hy_cuda_cache_store(key, image, size);
  atomic_fetch_add(&d->compiled, 1);
  CUmodule module = NULL;
  CUresult r = d->cu->cuModuleLoadData(&module, image);
  hy_free(image);
  if (r != HY_CUDA_SUCCESS) return hy_cuda_fail(d->cu, r, "cuModuleLoadData");
  return hy_cuda_module_add(d, key, module, out);
}

/* Find or build the module for `key`; called with the context current.
 * Compiles outside the lock: NVRTC takes long and other plans of the
 * context should not wait. Two threads racing on one key both build; the
 * loser's module is dropped by hy_cuda_module_add. A cached image the
 * driver rejects counts as a miss, so it is rebuilt. */
static hy_status hy_cuda_module_get(hy_cuda_device *d, const hy_gpu_program *p, uint64_t key,
                                    hy_cuda_module **out) {
  HY_TRY(hy_cuda_module_cached(d, key, out));
  if (*out) return HYFFT_SUCCESS;
  return hy_cuda_module_build(d, p->source.data, key, out);
}

/* Key of one kernel's own unit (prelude + its block): its text and what it
 * was built for. The text holds nothing of the plan but the kernel, so
 * plans that share a kernel share its image and module. */
static uint64_t hy_cuda_unit_key(const hy_cuda_device *d, const hy_strbuf *text) {
  uint64_t h = hy_hash_str(HY_HASH_INIT, "hyfft-cuda-kernel");
  h = hy_hash_bytes(h, text->data, text->len);
  h = hy_hash_u64(h, (uint64_t)d->arch);
  h = hy_hash_u64(h, (uint64_t)d->cu->driver_version);
  h = hy_hash_u64(h, (uint64_t)HY_CODEGEN_VERSION);
  return hy_cuda_options_hash(h);
}

/* The modules of a program of several kernels, one per kernel, so that a
 * cold plan waits for its slowest kernel's compile, not for the sum: the
 * kernels in neither cache are compiled together on parallel threads.
 * Called with the context current; out[k] is set as each module is taken,
 * and the caller puts back whatever is set should this fail. */
static hy_status hy_cuda_units_get(hy_cuda_device *d, const hy_gpu_program *p,
                                   hy_cuda_module **out) {
  int n = p->nkernels, nmiss = 0;
  hy_strbuf text[HY_MAX_KERNELS];
  hy_cuda_unit units[HY_MAX_KERNELS];
  uint64_t keys[HY_MAX_KERNELS];
  int which[HY_MAX_KERNELS], from_disk[HY_MAX_KERNELS];
  hy_status st = HYFFT_SUCCESS;
  for (int k = 0; k < n; k++) hy_strbuf_init(&text[k]);
  for (int k = 0; k < n && st == HYFFT_SUCCESS; k++) {
    st = hy_gpu_program_unit(p, k, &text[k]);
    if (st != HYFFT_SUCCESS) break;
    uint64_t key = hy_cuda_unit_key(d, &text[k]);
    out[k] = hy_cuda_module_find(d, key);
    if (out[k]) continue;
    keys[nmiss] = key;
    which[nmiss] = k;
    units[nmiss] = (hy_cuda_unit){.name = p->names[k], .source = text[k].data};
    nmiss++;
  }
  /* Disk cache, then NVRTC for the rest, outside the lock like
   * hy_cuda_module_get (a racing thread's duplicate module is dropped by
   * hy_cuda_module_add). */
  if (st == HYFFT_SUCCESS && nmiss > 0)
    st = hy_cuda_units_build(units, keys, from_disk, nmiss, d->arch);
  for (int i = 0; i < nmiss && st == HYFFT_SUCCESS; i++) {
    if (!from_disk[i]) atomic_fetch_add(&d->compiled, 1);
    CUmodule module = NULL;
    CUresult r = d->cu->cuModuleLoadData(&module, units[i].image);
    if (r != HY_CUDA_SUCCESS && from_disk[i]) {
      /* A cached image the driver rejects is rebuilt once. */
      st = hy_cuda_module_build(d, units[i].source, keys[i], &out[which[i]]);
      continue;
    }
    if (r != HY_CUDA_SUCCESS) {
      st = hy_cuda_fail(d->cu, r, "cuModuleLoadData");
      break;
    }
    if (from_disk[i]) atomic_fetch_add(&d->disk_hits, 1);
    st = hy_cuda_module_add(d, keys[i], module, &out[which[i]]);
  }
  for (int i = 0; i < nmiss; i++) hy_free(units[i].image);
  for (int k = 0; k < n; k++) hy_strbuf_free(&text[k]);
  return st;
}

static void hy_cuda_module_put(hy_cuda_device *d, hy_cuda_module *m) {
  if (!m) return;
  pthread_mutex_lock(&d->lock);
  int last = --m->refs == 0;
  if (last) {
    for (hy_cuda_module **pp = &d->modules; *pp; pp = &(*pp)->next) {
      if (*pp == m) {
        *pp = m->next;
        break;
      }
    }
  }
  pthread_mutex_unlock(&d->lock);
  if (last) {
    d->cu->cuModuleUnload(m->module);
    hy_free(m);
  }
}

/* Frees a loaded program's device resources; called with the context
 * current. */
static void hy_cuda_loaded_free_in(hy_cuda_device *d, hy_cuda_loaded *s) {
  if (!s) return;
  if (s->table_block) d->cu->cuMemFree(s->table_block);
  for (int k = 0; k < HY_MAX_KERNELS; k++) hy_cuda_module_put(d, s->modules[k]);
  hy_gpu_program_free(&s->program);
  hy_free(s);
}

/* Frees a plan; waits for its background compile if one still runs (its
 * image still goes to the disk cache). Called with the context current. */
static void hy_cuda_plan_free_in(hy_cuda_device *d, hy_cuda_plan *s) {
  hy_cuda_background_free(s->job);
  hy_cuda_loaded_free_in(d, s->main);
  hy_cuda_loaded_free_in(d, s->plain);
  hy_free(s->failure_message);
  pthread_mutex_destroy(&s->lock);
  hy_free(s);
}

/* Frees a plan that failed before anything of it reached the device (no
 * modules, tables or background compile): its programs and itself. Needs
 * no context. */
static void hy_cuda_plan_discard(hy_cuda_plan *s) {
  hy_cuda_loaded *parts[2] = {s->main, s->plain};
  for (int i = 0; i < 2; i++) {
    if (!parts[i]) continue;
    hy_gpu_program_free(&parts[i]->program);
    hy_free(parts[i]);
  }
  pthread_mutex_destroy(&s->lock);
  hy_free(s);
}

/* A plan state around nothing yet: the caller sets main (and plain). */
static hy_cuda_plan *hy_cuda_plan_new(void) {
  hy_cuda_plan *s = hy_calloc(1, sizeof *s);
  if (!s) return NULL;
  atomic_init(&s->active, NULL);
  atomic_init(&s->settled, 1);
  pthread_mutex_init(&s->lock, NULL);
  return s;
}

/* Wraps a generated program (taking it over, also on failure). */
static hy_cuda_loaded *hy_cuda_loaded_new(hy_gpu_program *program) {
  hy_cuda_loaded *s = hy_calloc(1, sizeof *s);
  if (!s) {
    hy_gpu_program_free(program);
    hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CUDA plan state");
    return NULL;
  }
  s->program = *program;
  memset(program, 0, sizeof *program);
  return s;
}

static hy_status hy_cuda_check_program(const hy_cuda_device *d, const hy_gpu_program *p) {
  if (p->dialect != HY_DIALECT_CUDA)
    return hy_error(HYFFT_INTERNAL, "the CUDA backend was given a non-CUDA program");
  if (!p->source.data || p->source.len == 0)
    return hy_error(HYFFT_INTERNAL, "the generated CUDA program has no source");
  if (p->nkernels < 0 || p->nkernels > HY_MAX_KERNELS || p->ntables < 0 ||
      p->ntables > HY_MAX_TABLES || p->nlaunches < 0 || p->nlaunches > HY_MAX_LAUNCHES)
    return hy_error(HYFFT_INTERNAL, "generated program: counts out of range (%d kernels, %d "
                    "tables, %d launches)", p->nkernels, p->ntables, p->nlaunches);
  for (int i = 0; i < p->nlaunches; i++) {
    const hy_launch *l = &p->launches[i];
    if (l->kernel < 0 || l->kernel >= p->nkernels)
      return hy_error(HYFFT_INTERNAL, "launch %d names kernel %d of %d", i, l->kernel, p->nkernels);
    if (l->grid < 1 || l->grid > (d->max_grid_x > 0 ? d->max_grid_x : INT32_MAX))
      return hy_error(HYFFT_NOT_SUPPORTED,
                      "launch %d of kernel %s needs %lld blocks, more than the device's grid "
                      "limit %d", i, p->names[l->kernel], (long long)l->grid, d->max_grid_x);
    if (l->block < 1 || l->block > d->caps.max_work_group)
      return hy_error(HYFFT_INTERNAL, "launch %d: block of %d threads (device limit %d)", i,
                      l->block, d->caps.max_work_group);
    if (l->shared_bytes > (size_t)(d->shared_optin > 0 ? d->shared_optin : d->caps.local_memory))
      return hy_error(HYFFT_NOT_SUPPORTED,
                      "launch %d of kernel %s needs %zu bytes of shared memory; cuda:%d has %d",
                      i, p->names[l->kernel], l->shared_bytes, d->index, d->shared_optin);
    if (l->nargs < 0 || l->nargs > HY_MAX_KERNEL_ARGS)
      return hy_error(HYFFT_INTERNAL, "launch %d: %d arguments", i, l->nargs);
    for (int a = 0; a < l->nargs; a++) {
      const hy_kernel_arg *g = &l->args[a];
      if (g->kind == HY_ARG_BLOCK_OFFSET) continue;
      int limit = g->kind == HY_ARG_BUFFER ? HY_BUF_COUNT : p->ntables;
      if (g->index < 0 || g->index >= limit)
        return hy_error(HYFFT_INTERNAL, "launch %d argument %d: index %d out of range", i, a,
                        g->index);
    }
  }
  return HYFFT_SUCCESS;
}

/* Every kernel's function from the program's modules, with its thread
 * limit and shared memory opt-in; called with the context current. */
static hy_status hy_cuda_loaded_functions(hy_cuda_device *d, hy_cuda_loaded *s) {
  const hy_gpu_program *p = &s->program;
  for (int k = 0; k < p->nkernels; k++) {
    CUmodule module = s->modules[s->per_kernel ? k : 0]->module;
    CUresult r = d->cu->cuModuleGetFunction(&s->functions[k], module, p->names[k]);
    if (r != HY_CUDA_SUCCESS) {
      hy_cuda_fail(d->cu, r, "cuModuleGetFunction");
      return hy_error(HYFFT_INTERNAL, "generated kernel '%s' is not in the compiled module (%s)",
                      p->names[k], hyfft_last_error());
    }
    /* Registers per thread times the block size must fit the SM's register
     * file; the compiler's answer is per kernel. */
    int most_threads = 0;
    if (d->cu->cuFuncGetAttribute(&most_threads, HY_CU_FUNC_ATTR_MAX_THREADS, s->functions[k]) !=
            HY_CUDA_SUCCESS || most_threads <= 0)
      most_threads = d->caps.max_work_group;
    s->max_threads[k] = most_threads;
    /* Above 48 KB, dynamic shared memory must be opted into per kernel. */
    size_t most = 0;
    for (int i = 0; i < p->nlaunches; i++)
      if (p->launches[i].kernel == k && p->launches[i].shared_bytes > most)
        most = p->launches[i].shared_bytes;
    if (most > 48 * 1024)
      HY_CU_CALL(d, d->cu->cuFuncSetAttribute(s->functions[k], HY_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED,
                                              (int)most),
                 "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  return HYFFT_SUCCESS;
}

/* The program's tables on the device; called with the context current. */
static hy_status hy_cuda_loaded_tables(hy_cuda_device *d, hy_cuda_loaded *s) {
  const hy_gpu_program *p = &s->program;
  /* Each table starts on a 256-byte boundary of the block. */
  size_t offset[HY_MAX_TABLES], total = 0;
  for (int t = 0; t < p->ntables; t++) {
    offset[t] = total;
    total += (hy_table_bytes(&p->tables[t]) + 255) & ~(size_t)255;
  }
  if (total == 0) return HYFFT_SUCCESS;
  HY_CU_CALL(d, d->cu->cuMemAlloc(&s->table_block, total), "cuMemAlloc (constant tables)");
  for (int t = 0; t < p->ntables; t++) {
    const hy_table *tb = &p->tables[t];
    size_t bytes = hy_table_bytes(tb);
    if (bytes == 0 || !tb->data) continue;
    s->tables[t] = s->table_block + offset[t];
    HY_CU_CALL(d, d->cu->cuMemcpyHtoDAsync(s->tables[t], tb->data, bytes, d->stream),
               "cuMemcpyHtoDAsync (constant table)");
  }
  /* Tables must be on the device before any user stream runs the plan. */
  HY_CU_CALL(d, d->cu->cuStreamSynchronize(d->stream), "cuStreamSynchronize");
  return HYFFT_SUCCESS;
}

/* Compile or find the program's modules, then its functions and tables;
 * called with the context current. */
static hy_status hy_cuda_loaded_load_in(hy_cuda_device *d, hy_cuda_loaded *s) {
  const hy_gpu_program *p = &s->program;
  HY_TRY(hy_cuda_check_program(d, p));
  /* Several kernels compile in parallel, one unit each; one kernel (or a
   * program without the generator's layout) is one unit as it is. */
  s->per_kernel = p->nkernels > 1 && hy_gpu_program_has_units(p);
  if (s->per_kernel)
    HY_TRY(hy_cuda_units_get(d, p, s->modules));
  else
    HY_TRY(hy_cuda_module_get(d, p, hy_cuda_program_key(d, p), &s->modules[0]));
  HY_TRY(hy_cuda_loaded_functions(d, s));
  return hy_cuda_loaded_tables(d, s);
}

hy_status hy_cuda_program_load(void *device, hy_gpu_program *program, void **plan_state) {
  hy_cuda_device *d = device;
  hy_cuda_plan *s = hy_cuda_plan_new();
  if (!s) {
    hy_gpu_program_free(program);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CUDA plan state");
  }
  s->main = hy_cuda_loaded_new(program);
  hy_status st = s->main ? hy_cuda_enter(d) : HYFFT_OUT_OF_MEMORY;
  if (st != HYFFT_SUCCESS) {
    hy_cuda_plan_discard(s);
    return st;
  }
  st = hy_cuda_loaded_load_in(d, s->main);
  if (st == HYFFT_SUCCESS) atomic_store(&s->active, s->main);
  else hy_cuda_plan_free_in(d, s);
  hy_cuda_leave(d);
  if (st == HYFFT_SUCCESS) *plan_state = s;
  return st;
}

/* Where a plan with a plane pass gets its quick program: the same solver's
 * tree with one pass per axis (hy_planner_quick_tree). It is planned and
 * generated only when the plane program is in neither cache, so a warm
 * plan costs no more than an untiered one. */
typedef struct hy_cuda_quick {
  const hy_problem *problem;
  const hy_plan_tree *tree;
  const hy_device_caps *caps;
} hy_cuda_quick;

/* The quick program from `q` into *plain, or 0 (nothing made, no error
 * left) when the solver has no quick tree that fits the plan's workspace. */
static int hy_cuda_quick_program(const hy_cuda_quick *q, hy_gpu_program *plain) {
  memset(plain, 0, sizeof *plain);
  hy_plan_tree quick;
  if (!q || !hy_planner_quick_tree(q->problem, q->tree, q->caps, &quick)) return 0;
  if (hy_codegen_plan(q->problem, &quick, q->caps, HY_DIALECT_CUDA, plain) != HYFFT_SUCCESS) {
    hy_error_clear();
    memset(plain, 0, sizeof *plain);
    return 0;
  }
  return 1;
}

/* A program with a long compile (see hy_cuda_plan), cached as one unit
 * under its program key. Found in a cache, it runs from the start and
 * `plain` is dropped. Otherwise its compile starts on a thread and the
 * plan runs its quick program meanwhile: `plain` (a persistent program's
 * plain one) or, when that is empty, the one `quick` makes. With neither,
 * the program is loaded as an untiered one. Takes both programs over,
 * also on failure. */
static hy_status hy_cuda_program_load_tiered(hy_cuda_device *d, hy_gpu_program *program,
                                             hy_gpu_program *plain, const hy_cuda_quick *quick,
                                             void **plan_state) {
  hy_cuda_plan *s = hy_cuda_plan_new();
  if (!s) {
    hy_gpu_program_free(program);
    hy_gpu_program_free(plain);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CUDA plan state");
  }
  hy_status st = HYFFT_SUCCESS;
  s->main = hy_cuda_loaded_new(program);
  if (plain->source.data) {
    s->plain = hy_cuda_loaded_new(plain);
    if (!s->plain) st = HYFFT_OUT_OF_MEMORY;
  }
  if (!s->main) {
    hy_gpu_program_free(plain);
    st = HYFFT_OUT_OF_MEMORY;
  }
  if (st == HYFFT_SUCCESS) st = hy_cuda_enter(d);
  if (st != HYFFT_SUCCESS) {
    hy_cuda_plan_discard(s);
    return st;
  }
  hy_cuda_loaded *m = s->main;
  st = hy_cuda_check_program(d, &m->program);
  s->main_key = hy_cuda_program_key(d, &m->program);
  if (st == HYFFT_SUCCESS) st = hy_cuda_module_cached(d, s->main_key, &m->modules[0]);
  if (st == HYFFT_SUCCESS && !m->modules[0] && !s->plain) {
    hy_gpu_program made;
    if (hy_cuda_quick_program(quick, &made)) {
      s->plain = hy_cuda_loaded_new(&made);
      if (!s->plain) st = HYFFT_OUT_OF_MEMORY;
    }
  }
  if (st == HYFFT_SUCCESS && (m->modules[0] || !s->plain)) {
    /* Compiled already, or nothing quicker to run meanwhile: no tiers. */
    hy_cuda_loaded_free_in(d, s->plain);
    s->plain = NULL;
    if (m->modules[0]) {
      st = hy_cuda_loaded_functions(d, m);
      if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_tables(d, m);
    } else {
      st = hy_cuda_loaded_load_in(d, m);
    }
    if (st == HYFFT_SUCCESS) atomic_store(&s->active, m);
  } else if (st == HYFFT_SUCCESS) {
    /* The long compile starts first, then the plain program's kernels
     * compile in parallel beside it. */
    st = hy_cuda_background_start(m->program.source.data, d->arch, s->main_key, &s->job);
    if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_load_in(d, s->plain);
    if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_tables(d, m);
    if (st == HYFFT_SUCCESS) {
      atomic_store(&s->active, s->plain);
      atomic_store(&s->settled, 0);
      atomic_fetch_add(&d->background, 1);
    }
  }
  if (st != HYFFT_SUCCESS) hy_cuda_plan_free_in(d, s);
  hy_cuda_leave(d);
  if (st == HYFFT_SUCCESS) *plan_state = s;
  return st;
}

/* Smallest thread limit among a program's kernels whose launches exceed
 * theirs, or 0 when every launch fits. */
static int hy_cuda_thread_overrun(const hy_cuda_loaded *s) {
  int limit = 0;
  for (int i = 0; i < s->program.nlaunches; i++) {
    const hy_launch *l = &s->program.launches[i];
    int most = s->max_threads[l->kernel];
    if (l->block > most && (limit == 0 || most < limit)) limit = most;
  }
  return limit;
}

/* A tiered plan whose background compile has finished (or, with `wait`,
 * once it has): load the persistent program and make it the one that runs.
 * On failure the plan stays on its plain program and keeps the reason
 * for hy_cuda_plan_wait (an execution goes on, on the plain program).
 * Called with the context current. */
static void hy_cuda_plan_settle(hy_cuda_device *d, hy_cuda_plan *s, int wait) {
  if (atomic_load(&s->settled)) return;
  if (!wait && !hy_cuda_background_done(s->job)) return;
  pthread_mutex_lock(&s->lock);
  if (!atomic_load(&s->settled)) {
    hy_cuda_loaded *m = s->main;
    void *image = NULL;
    size_t size = 0;
    hy_status st = hy_cuda_background_finish(s->job, &image, &size);
    if (st == HYFFT_SUCCESS) {
      CUmodule module = NULL;
      CUresult r = d->cu->cuModuleLoadData(&module, image);
      if (r != HY_CUDA_SUCCESS) st = hy_cuda_fail(d->cu, r, "cuModuleLoadData");
      else st = hy_cuda_module_add(d, s->main_key, module, &m->modules[0]);
    }
    hy_free(image);
    if (st == HYFFT_SUCCESS) atomic_fetch_add(&d->compiled, 1);
    if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_functions(d, m);
    int limit = st == HYFFT_SUCCESS ? hy_cuda_thread_overrun(m) : 0;
    if (limit > 0)
      st = hy_error(HYFFT_NOT_SUPPORTED,
                    "the persistent kernel allows %d threads per block, fewer than it launches "
                    "with; the plan keeps its plain kernels", limit);
    if (st == HYFFT_SUCCESS) {
      atomic_store(&s->active, m);
      atomic_fetch_add(&d->switched, 1);
    } else {
      const char *msg = hyfft_last_error();
      size_t len = strlen(msg);
      s->failure = st;
      s->failure_message = hy_malloc(len + 1);
      if (s->failure_message) memcpy(s->failure_message, msg, len + 1);
      atomic_fetch_add(&d->background_failed, 1);
    }
    hy_cuda_background_free(s->job);
    s->job = NULL;
    atomic_store(&s->settled, 1);
  }
  pthread_mutex_unlock(&s->lock);
}

hy_status hy_cuda_plan_wait(void *device, void *plan_state) {
  hy_cuda_device *d = device;
  hy_cuda_plan *s = plan_state;
  if (!s || atomic_load(&s->settled)) {
    if (s && s->failure != HYFFT_SUCCESS) goto failed;
    return HYFFT_SUCCESS;
  }
  HY_TRY(hy_cuda_enter(d));
  hy_cuda_plan_settle(d, s, 1);
  hy_cuda_leave(d);
  if (s->failure == HYFFT_SUCCESS) return HYFFT_SUCCESS;
failed:
  return hy_error(s->failure, "the plan's persistent kernel did not build, and the plan runs its "
                  "plain kernels: %s", s->failure_message ? s->failure_message : "(message lost)");
}

int hy_cuda_plan_tier(const void *plan_state) {
  const hy_cuda_plan *s = plan_state;
  if (!s->plain) return 0;
  return atomic_load(&((hy_cuda_plan *)s)->active) == s->plain ? 1 : 2;
}

/* Every launch of a loaded program; called with the context current. */
static hy_status hy_cuda_launch_all(hy_cuda_device *d, const hy_cuda_loaded *s,
                                    void *const buffers[HY_BUF_COUNT], void *queue) {
  const hy_gpu_program *p = &s->program;
  CUstream stream = hy_cuda_stream(d, queue);
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < p->nlaunches && st == HYFFT_SUCCESS; i++) {
    const hy_launch *l = &p->launches[i];
    CUdeviceptr values[HY_MAX_KERNEL_ARGS];
    void *params[HY_MAX_KERNEL_ARGS];
    for (int a = 0; a < l->nargs; a++) {
      const hy_kernel_arg *g = &l->args[a];
      if (g->kind == HY_ARG_BUFFER) {
        values[a] = (CUdeviceptr)(uintptr_t)buffers[g->index];
        if (!values[a])
          st = hy_error(HYFFT_INTERNAL, "launch %d of %s uses buffer %d, which is not set", i,
                        p->names[l->kernel], g->index);
      } else if (g->kind == HY_ARG_BLOCK_OFFSET) {
        /* Passed as the kernel's 64-bit hy_block0 (same size as a pointer). */
        values[a] = (CUdeviceptr)l->block_offset;
      } else {
        values[a] = s->tables[g->index];
      }
      params[a] = &values[a];
    }
    if (st != HYFFT_SUCCESS) break;
    CUresult r = d->cu->cuLaunchKernel(s->functions[l->kernel], (unsigned)l->grid, 1, 1,
                                       (unsigned)l->block, 1, 1, (unsigned)l->shared_bytes,
                                       stream, l->nargs ? params : NULL, NULL);
    if (r != HY_CUDA_SUCCESS) st = hy_cuda_fail(d->cu, r, p->names[l->kernel]);
  }
  return st;
}

hy_status hy_cuda_plan_run_tier(void *device, const void *plan_state, int tier,
                                void *const buffers[HY_BUF_COUNT], void *queue) {
  hy_cuda_device *d = device;
  hy_cuda_plan *plan = (hy_cuda_plan *)plan_state;
  if (tier == 1 && !plan->plain)
    return hy_error(HYFFT_INVALID_ARGUMENT, "the plan has no plain tier");
  HY_TRY(hy_cuda_enter(d));
  const hy_cuda_loaded *s = plan->plain;
  if (tier != 1) {
    hy_cuda_plan_settle(d, plan, 0);
    s = atomic_load(&plan->active);
  }
  hy_status st = hy_cuda_launch_all(d, s, buffers, queue);
  hy_cuda_leave(d);
  return st;
}

hy_status hy_cuda_program_run(void *device, const void *plan_state,
                              void *const buffers[HY_BUF_COUNT], void *queue) {
  return hy_cuda_plan_run_tier(device, plan_state, 0, buffers, queue);
}

/* ---- plans ------------------------------------------------------------------ */

static void hy_cuda_plan_release(void *device, void *plan_state);

static hy_status hy_cuda_plan_prepare(void *device, const hy_problem *problem,
                                      const hy_plan_tree *tree, void **plan_state) {
  hy_cuda_device *d = device;
  hy_device_caps caps = d->caps;
  /* The generator sizes blocks from the caps and marks every kernel with
   * __launch_bounds__(block), so ptxas keeps registers within what that
   * block may have. Should a kernel still report a smaller thread limit
   * (a driver or compiler that ignores the bound), it is generated again
   * with that limit instead of failing with LAUNCH_OUT_OF_RESOURCES. */
  const char *env = hy_getenv("HYFFT_CUDA_BACKGROUND");
  int may_tier = !(env && strcmp(env, "0") == 0);
  for (int attempt = 0;; attempt++) {
    hy_gpu_program program, plain;
    memset(&program, 0, sizeof program);
    memset(&plain, 0, sizeof plain);
    HY_TRY(hy_codegen_plan_tiers(problem, tree, &caps, HY_DIALECT_CUDA, &program,
                                 may_tier ? &plain : NULL));
    /* A plan with a plane pass is tiered too: its quick tier is one pass
     * per axis, made only if the plane program is in no cache. */
    int plane = hy_plan_tree_has_plane(tree);
    hy_cuda_quick quick = {problem, tree, &caps};
    void *state = NULL;
    /* A tiered plan's final program is compiled as one unit (a persistent
     * program's clearing kernel is tiny; a plane plan's other kernels are
     * small), cached under the program's key. */
    if (may_tier && (plain.source.data || plane)) {
      HY_TRY(hy_cuda_program_load_tiered(d, &program, &plain, plane ? &quick : NULL, &state));
    } else {
      HY_TRY(hy_cuda_program_load(d, &program, &state));
    }
    int limit = hy_cuda_thread_overrun(atomic_load(&((hy_cuda_plan *)state)->active));
    if (limit == 0) {
      *plan_state = state;
      return HYFFT_SUCCESS;
    }
    hy_cuda_plan_release(d, state);
    int64_t fit = hy_floor_pow2(limit);
    if (attempt >= 3 || fit < 32 || fit >= caps.max_work_group)
      return hy_error(HYFFT_NOT_SUPPORTED,
                      "generated CUDA kernel needs blocks larger than the %d threads its "
                      "registers allow on cuda:%d", limit, d->index);
    caps.max_work_group = (int)fit;
  }
}

static void hy_cuda_plan_release(void *device, void *plan_state) {
  hy_cuda_device *d = device;
  if (!plan_state) return;
  if (hy_cuda_enter(d) != HYFFT_SUCCESS) return;
  hy_cuda_plan_free_in(d, plan_state);
  hy_cuda_leave(d);
}

/* A tiered plan's source is its persistent program's: the kernels it
 * runs from the switch on. */
static hy_status hy_cuda_plan_source(void *device, const void *plan_state, hy_strbuf *sb) {
  const hy_cuda_plan *s = plan_state;
  if (s && s->main->program.source.data) hy_strbuf_append(sb, s->main->program.source.data);
  return hy_strbuf_status(sb);
}

/* A tiered plan may run its plain program, which uses the tree's whole
 * workspace (0); the persistent kernel's ring is within it. */
static int64_t hy_cuda_plan_workspace(void *device, const void *plan_state) {
  (void)device;
  const hy_cuda_plan *s = plan_state;
  if (!s || s->plain) return 0;
  return s->main->program.work_elems;
}

static hy_status hy_cuda_execute(void *device, const void *plan_state, const hy_plan_tree *tree,
                                 void *const buffers[HY_BUF_COUNT], void *queue) {
  return hy_cuda_program_run(device, plan_state, buffers, queue);
}

const hy_backend hy_backend_cuda = {
    .id = HYFFT_BACKEND_CUDA,
    .name = "cuda",
    .device_count = hy_cuda_device_count,
    .device_info = hy_cuda_device_info,
    .open = hy_cuda_open,
    .close = hy_cuda_close,
    .caps = hy_cuda_caps,
    .alloc = hy_cuda_alloc,
    .release = hy_cuda_release,
    .write = hy_cuda_write,
    .read = hy_cuda_read,
    .synchronize = hy_cuda_synchronize,
    .plan_prepare = hy_cuda_plan_prepare,
    .plan_release = hy_cuda_plan_release,
    .plan_source = hy_cuda_plan_source,
    .plan_workspace = hy_cuda_plan_workspace,
    .plan_wait = hy_cuda_plan_wait,
    .execute = hy_cuda_execute,
    .host_alloc = hy_cuda_host_alloc,
    .host_release = hy_cuda_host_release,
    .queue_create = hy_cuda_queue_create,
    .queue_release = hy_cuda_queue_release,
    .event_create = hy_cuda_event_create,
    .event_release = hy_cuda_event_release,
    .event_record = hy_cuda_event_rerecord,
    .queue_wait = hy_cuda_queue_wait,
    .event_wait = hy_cuda_event_wait,
};
