/* OpenCL backend internals. The ICD loader is opened with dlopen and every
 * entry point resolved with dlsym, so the library has no link dependency
 * on OpenCL and runs (with 0 OpenCL devices) where no loader is installed. */
#ifndef HY_CL_INTERNAL_H
#define HY_CL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <pthread.h>

#include "backend/backend.h"
#include "codegen/codegen.h"

typedef struct hy_cl_api {
  cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
  cl_int (*GetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
  cl_int (*GetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
  cl_int (*GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *, size_t *);
  cl_context (*CreateContext)(const cl_context_properties *, cl_uint, const cl_device_id *,
                              void(CL_CALLBACK *)(const char *, const void *, size_t, void *),
                              void *, cl_int *);
  cl_int (*ReleaseContext)(cl_context);
  cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties,
                                         cl_int *);
  cl_int (*ReleaseCommandQueue)(cl_command_queue);
  cl_mem (*CreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
  cl_int (*ReleaseMemObject)(cl_mem);
  cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                              const cl_event *, cl_event *);
  cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,
                               cl_uint, const cl_event *, cl_event *);
  cl_int (*Finish)(cl_command_queue);
  cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *,
                                        cl_int *);
  cl_program (*CreateProgramWithBinary)(cl_context, cl_uint, const cl_device_id *,
                                        const size_t *, const unsigned char **, cl_int *,
                                        cl_int *);
  cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *,
                         void(CL_CALLBACK *)(cl_program, void *), void *);
  cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_program_build_info, size_t, void *,
                                size_t *);
  cl_int (*GetProgramInfo)(cl_program, cl_program_info, size_t, void *, size_t *);
  cl_int (*ReleaseProgram)(cl_program);
  cl_int (*RetainProgram)(cl_program);
  cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
  cl_int (*ReleaseKernel)(cl_kernel);
  cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
  cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                 const size_t *, const size_t *, cl_uint, const cl_event *,
                                 cl_event *);
} hy_cl_api;

/* The loaded API, or NULL when no loader/platform is present (cached). */
const hy_cl_api *hy_cl_load(void);

/* One compiled program, shared by the plans of a context with the same
 * source hash. */
typedef struct hy_cl_program {
  uint64_t hash;
  cl_program program;
  int refs;
  struct hy_cl_program *next;
} hy_cl_program;

typedef struct hy_cl_device {
  const hy_cl_api *api;
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  hyfft_device_info info;
  hy_device_caps caps;
  char driver[128];
  pthread_mutex_t lock; /* guards programs and the counters */
  hy_cl_program *programs;
  /* Evidence for tests: where each prepared program came from. */
  long builds, memory_hits, disk_hits, disk_writes;
} hy_cl_device;

/* Disk cache of program binaries (cl_cache.c). Both are best effort: a
 * missing, unreadable or corrupt entry simply means "build from source". */
cl_program hy_cl_cache_load(hy_cl_device *dev, uint64_t hash);
void hy_cl_cache_store(hy_cl_device *dev, uint64_t hash, cl_program program);

/* Counters of a context's device (tests read them). */
void hy_cl_cache_stats(const void *device, long *builds, long *memory_hits, long *disk_hits,
                       long *disk_writes);

#endif /* HY_CL_INTERNAL_H */
