/* The CUDA backend's memory, copies, queues and events: device and
 * page-locked host allocations, plain and strided (2D/3D) copies, streams
 * and events, for the backend table's entries and for the strided copies,
 * streams and timing events cuda_backend.h offers the out-of-core code and
 * the tests. Each entry enters the device's context and leaves it. */
#include <string.h>

#include "backend/cuda/cuda_internal.h"

hy_status hy_cuda_alloc(void *device, size_t bytes, void **buffer) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUdeviceptr p = 0;
  CUresult r = d->cu->cuMemAlloc(&p, bytes ? bytes : 1);
  size_t free_bytes = 0, total = 0;
  if (r != HY_CUDA_SUCCESS && d->cu->cuMemGetInfo(&free_bytes, &total) != HY_CUDA_SUCCESS)
    free_bytes = total = 0;
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) {
    hy_cuda_fail(d->cu, r, "cuMemAlloc");
    return hy_error(r == HY_CUDA_ERROR_OUT_OF_MEMORY ? HYFFT_OUT_OF_MEMORY : HYFFT_BACKEND_ERROR,
                    "CUDA: cannot allocate %zu bytes on cuda:%d, which has %zu of %zu bytes "
                    "free (%s)", bytes, d->index, free_bytes, total, hyfft_last_error());
  }
  *buffer = (void *)(uintptr_t)p;
  return HYFFT_SUCCESS;
}

/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) and _DEVICE_ORDINAL (9), asked
 * together; memory types CU_MEMORYTYPE_HOST (1), _DEVICE (2), _UNIFIED
 * (4), and 0 for pageable memory the driver never saw: host. */
hy_memory_kind hy_cuda_memory_kind(void *device, const void *ptr) {
  hy_cuda_device *d = device;
  if (!d->cu->cuPointerGetAttributes || hy_cuda_enter(d) != HYFFT_SUCCESS) return HY_MEMKIND_UNKNOWN;
  unsigned type = 0;
  int ordinal = -1;
  int attributes[2] = {2, 9};
  void *data[2] = {&type, &ordinal};
  CUresult r = d->cu->cuPointerGetAttributes(2, attributes, data, (CUdeviceptr)(uintptr_t)ptr);
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) return HY_MEMKIND_UNKNOWN;
  if (type == 0 || type == 1) return HY_MEMKIND_HOST;
  if (type == 2) return ordinal == d->index ? HY_MEMKIND_DEVICE : HY_MEMKIND_OTHER_DEVICE;
  /* Unified (managed) memory serves either kind of plan: unknown. */
  return HY_MEMKIND_UNKNOWN;
}

/* Page-locked host memory reports CU_MEMORYTYPE_HOST (1); pageable memory
 * reports no type. Both ends must lie in the same allocation (buffer id). */
int hy_cuda_host_pinned(void *device, const void *ptr, size_t bytes) {
  hy_cuda_device *d = device;
  if (!ptr || bytes == 0 || !d->cu->cuPointerGetAttributes || hy_cuda_enter(d) != HYFFT_SUCCESS)
    return 0;
  unsigned type[2] = {0, 0};
  unsigned long long id[2] = {0, 0};
  int attributes[2] = {2, 7}; /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE, _BUFFER_ID */
  int pinned = 1;
  for (int end = 0; end < 2 && pinned; end++) {
    void *data[2] = {&type[end], &id[end]};
    const char *p = (const char *)ptr + (end ? bytes - 1 : 0);
    CUresult r = d->cu->cuPointerGetAttributes(2, attributes, data, (CUdeviceptr)(uintptr_t)p);
    pinned = r == HY_CUDA_SUCCESS && type[end] == 1;
  }
  hy_cuda_leave(d);
  return pinned && id[0] == id[1];
}

void hy_cuda_release(void *device, void *buffer) {
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

hy_status hy_cuda_write(void *device, void *queue, void *buffer, size_t offset,
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

hy_status hy_cuda_read(void *device, void *queue, const void *buffer, size_t offset,
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

hy_status hy_cuda_synchronize(void *device, void *queue) {
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

hy_status hy_cuda_copy_2d(void *device, void *queue, int to_device, void *buffer, size_t dev_offset,
                          size_t dev_pitch, void *host, size_t host_pitch, size_t width,
                          size_t height) {
  char *dev = (char *)buffer + dev_offset;
  hy_copy_region g = {to_device ? (void *)dev : host, to_device, to_device ? dev_pitch : host_pitch, 0,
                      to_device ? (const void *)host : dev, !to_device,
                      to_device ? host_pitch : dev_pitch, 0, width, height, 1};
  return hy_cuda_copy_region(device, queue, &g, 0);
}

/* ---- device to device (multi-device slab plans) ------------------------- */

/* 1 when `device` may read and write `src_device`'s memory directly: the same
 * context, or peer access the driver allows (enabled here, once per
 * context pair; the driver keeps it for the context's life). */
int hy_cuda_peer_access(void *device, void *src_device) {
  hy_cuda_device *d = device, *s = src_device;
  if (d->ctx == s->ctx) return 1;
  const hy_cuda_driver *cu = d->cu;
  if (!cu->cuDeviceCanAccessPeer || !cu->cuCtxEnablePeerAccess) return 0;
  int can = 0;
  if (cu->cuDeviceCanAccessPeer(&can, d->dev, s->dev) != HY_CUDA_SUCCESS || !can) return 0;
  if (hy_cuda_enter(d) != HYFFT_SUCCESS) return 0;
  CUresult r = cu->cuCtxEnablePeerAccess(s->ctx, 0);
  hy_cuda_leave(d);
  return r == HY_CUDA_SUCCESS || r == HY_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
}

/* One cuMemcpy2DAsync on `device`'s stream; unified addressing finds each
 * end's device. */
hy_status hy_cuda_copy_peer(void *device, void *queue, void *dst, size_t dst_offset,
                            size_t dst_pitch, void *src_device, const void *src,
                            size_t src_offset, size_t src_pitch, size_t width, size_t height) {
  hy_cuda_device *d = device;
  (void)src_device;
  if (width == 0 || height == 0) return HYFFT_SUCCESS;
  HY_TRY(hy_cuda_enter(d));
  CUstream s = hy_cuda_stream(d, queue);
  hy_cu_memcpy2d c;
  memset(&c, 0, sizeof c);
  c.srcMemoryType = HY_CU_MEMORYTYPE_UNIFIED;
  c.srcDevice = (CUdeviceptr)(uintptr_t)src + src_offset;
  c.srcPitch = height > 1 ? src_pitch : width;
  c.dstMemoryType = HY_CU_MEMORYTYPE_UNIFIED;
  c.dstDevice = (CUdeviceptr)(uintptr_t)dst + dst_offset;
  c.dstPitch = height > 1 ? dst_pitch : width;
  c.WidthInBytes = width;
  c.Height = height;
  CUresult r = d->cu->cuMemcpy2DAsync(&c, s);
  hy_cuda_leave(d);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuMemcpy2DAsync (peer)");
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
hy_status hy_cuda_host_alloc(void *device, size_t bytes, void **host) {
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

void hy_cuda_host_release(void *device, void *host) {
  hy_cuda_device *d = device;
  if (!host || hy_cuda_enter(d) != HYFFT_SUCCESS) return;
  d->cu->cuMemFreeHost(host);
  hy_cuda_leave(d);
}

/* Events without timing: recording and waiting on them is cheaper. */
hy_status hy_cuda_event_create(void *device, void **event) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUevent e = NULL;
  CUresult r = d->cu->cuEventCreate(&e, HY_CU_EVENT_DISABLE_TIMING);
  hy_cuda_leave(d);
  if (r != HY_CUDA_SUCCESS) return hy_cuda_fail(d->cu, r, "cuEventCreate");
  *event = e;
  return HYFFT_SUCCESS;
}

hy_status hy_cuda_event_rerecord(void *device, void *event, void *queue) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUresult r = d->cu->cuEventRecord((CUevent)event, hy_cuda_stream(d, queue));
  hy_cuda_leave(d);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuEventRecord");
}

hy_status hy_cuda_event_wait(void *device, void *event) {
  hy_cuda_device *d = device;
  HY_TRY(hy_cuda_enter(d));
  CUresult r = d->cu->cuEventSynchronize((CUevent)event);
  hy_cuda_leave(d);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuEventSynchronize");
}
