/* CUDA backend internals shared by its files and its tests: compiled
 * programs outside the planner (tests, tools), cache statistics, and the
 * strided copies, streams and events that out-of-core execution will use
 * (not in the generic backend table yet: only CUDA has them). */
#ifndef HY_CUDA_BACKEND_H
#define HY_CUDA_BACKEND_H

#include "backend/backend.h"
#include "codegen/codegen.h"

/* Where a program's module came from, counted per context. */
typedef struct hy_cuda_stats {
  long compiled;    /* NVRTC ran */
  long disk_hits;   /* image read from the disk cache */
  long memory_hits; /* module already loaded in this context */
  long background;  /* tiered plans: started on plain kernels, persistent one compiling */
  long switched;    /* ... that then switched to the persistent kernel */
  long background_failed; /* ... whose persistent kernel failed to build or load */
} hy_cuda_stats;

void hy_cuda_get_stats(void *device, hy_cuda_stats *stats);
/* The CUDA primary context of a device (a CUcontext), for interop. */
void *hy_cuda_context(void *device);

/* Load a generated program on the device (compile or take it from a cache,
 * upload its tables) and take ownership of *program (it is cleared), also
 * on failure. The state is what plan_prepare returns. */
hy_status hy_cuda_program_load(void *device, hy_gpu_program *program, void **plan_state);
/* Wait for a tiered plan's background compile and switch it to the
 * persistent kernel (see hy_cuda_plan in cuda_internal.h); at once for
 * other plans. Returns the compile's failure, if it failed: the plan then
 * keeps running its plain kernels. */
hy_status hy_cuda_plan_wait(void *device, void *plan_state);
/* 0: the plan has one program; 1: tiered, running its plain kernels; 2:
 * tiered, switched to its persistent kernel. */
int hy_cuda_plan_tier(const void *plan_state);
/* For tests: run a tiered plan's plain program (tier 1) whether or not
 * it has switched; tier 0 is what hy_cuda_program_run runs. */
hy_status hy_cuda_plan_run_tier(void *device, const void *plan_state, int tier,
                                void *const buffers[HY_BUF_COUNT], void *queue);
/* Run every launch of a loaded program on `queue` (NULL: the context's). */
hy_status hy_cuda_program_run(void *device, const void *plan_state,
                              void *const buffers[HY_BUF_COUNT], void *queue);

/* A strided box copy between host and device memory or within the device:
 * `depth` slices of `height` rows of `width` bytes; rows `pitch` bytes
 * apart, slices `pitch * rows` bytes apart on each side. */
typedef struct hy_copy_region {
  void *dst;
  int dst_device; /* 1: dst is a device pointer, 0: host memory */
  size_t dst_pitch, dst_rows;
  const void *src;
  int src_device;
  size_t src_pitch, src_rows;
  size_t width, height, depth;
} hy_copy_region;
hy_status hy_cuda_copy_region(void *device, void *queue, const hy_copy_region *region,
                              int blocking);
/* The backend's copy_2d: one asynchronous 2D region copy. */
hy_status hy_cuda_copy_2d(void *device, void *queue, int to_device, void *buffer, size_t dev_offset,
                          size_t dev_pitch, void *host, size_t host_pitch, size_t width,
                          size_t height);

/* The backend's peer_access and copy_peer (multi-device slab plans). */
int hy_cuda_peer_access(void *device, void *src_device);
hy_status hy_cuda_copy_peer(void *device, void *queue, void *dst, size_t dst_offset,
                            size_t dst_pitch, void *src_device, const void *src,
                            size_t src_offset, size_t src_pitch, size_t width, size_t height);

hy_status hy_cuda_queue_create(void *device, void **queue);
void hy_cuda_queue_release(void *device, void *queue);
/* Record an event on `queue`; make `queue` wait for one; time two. */
hy_status hy_cuda_event_record(void *device, void *queue, void **event);
hy_status hy_cuda_queue_wait(void *device, void *queue, void *event);
hy_status hy_cuda_event_elapsed(void *device, void *start, void *end, double *seconds);
void hy_cuda_event_release(void *device, void *event);

#endif /* HY_CUDA_BACKEND_H */
