/* The CUDA backend's entry: NVIDIA GPUs through the driver API (libcuda,
 * dlopen'ed) with kernels from the generator compiled by NVRTC. This file
 * discovers devices, opens and closes a device's state (its primary
 * context, its own stream, the caps the planner sees), reports statistics,
 * and fills the backend table from the entries of the other files of this
 * folder (cuda_internal.h says which file holds what). */
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"

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

static void hy_cuda_fill_caps(hy_cuda_device *d, const hyfft_device_info *info) {
  const hy_cuda_driver *cu = d->cu;
  hy_device_caps *c = &d->caps;
  memset(c, 0, sizeof *c);
  c->backend = HYFFT_BACKEND_CUDA;
  c->compute_units = info->compute_units;
  c->local_memory = info->local_memory;
  int unit_shared = hy_cuda_attr(cu, d->dev, HY_CU_ATTR_MAX_SHARED_PER_MULTIPROCESSOR);
  c->unit_local_memory = unit_shared > 0 ? unit_shared : 0;
  c->max_work_group = info->max_work_group;
  c->l2_cache = info->l2_cache;
  c->global_memory = info->global_memory;
  int sm_threads = hy_cuda_attr(cu, d->dev, HY_CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
  int sm_blocks = hy_cuda_attr(cu, d->dev, HY_CU_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR);
  c->min_full_block = sm_threads > 0 && sm_blocks > 0 ? (sm_threads + sm_blocks - 1) / sm_blocks : 0;
  c->warp_size = hy_cuda_attr(cu, d->dev, HY_CU_ATTR_WARP_SIZE);
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
  c->supports_half = 1; /* f16/bf16 storage: generated conversions (codegen/cg_storage.c) */
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
    .plan_tiers = hy_cuda_plan_tiers,
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
    .memory_kind = hy_cuda_memory_kind,
    .host_pinned = hy_cuda_host_pinned,
    .copy_2d = hy_cuda_copy_2d,
    .peer_access = hy_cuda_peer_access,
    .copy_peer = hy_cuda_copy_peer,
};
