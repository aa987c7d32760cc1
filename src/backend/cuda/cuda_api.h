/* The CUDA driver and NVRTC entry points hyfft uses, loaded with dlopen.
 *
 * The types and constants below are our own minimal declarations, checked
 * against cuda.h / nvrtc.h of CUDA 12 and 13; including those headers would
 * make the CUDA toolkit a build dependency, which hyfft must not have. */
#ifndef HY_CUDA_API_H
#define HY_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "util/hy_util.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* CUdeviceptr_v2: 64-bit on every 64-bit host */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUarray_st *CUarray;

#define HY_CUDA_SUCCESS 0
#define HY_CUDA_ERROR_INVALID_VALUE 1
#define HY_CUDA_ERROR_OUT_OF_MEMORY 2
#define HY_CUDA_ERROR_NO_DEVICE 100

/* CUdevice_attribute values. */
#define HY_CU_ATTR_MAX_THREADS_PER_BLOCK 1
#define HY_CU_ATTR_MAX_GRID_DIM_X 5
#define HY_CU_ATTR_MAX_SHARED_PER_BLOCK 8
#define HY_CU_ATTR_WARP_SIZE 10
#define HY_CU_ATTR_CLOCK_RATE 13
#define HY_CU_ATTR_MULTIPROCESSOR_COUNT 16
#define HY_CU_ATTR_MEMORY_CLOCK_RATE 36
#define HY_CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH 37
#define HY_CU_ATTR_L2_CACHE_SIZE 38
#define HY_CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR 39
#define HY_CU_ATTR_CC_MAJOR 75
#define HY_CU_ATTR_CC_MINOR 76
#define HY_CU_ATTR_MAX_SHARED_PER_MULTIPROCESSOR 81
#define HY_CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN 97
#define HY_CU_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR 106

#define HY_CU_FUNC_ATTR_MAX_THREADS 0        /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
#define HY_CU_FUNC_ATTR_NUM_REGS 4           /* CU_FUNC_ATTRIBUTE_NUM_REGS */
#define HY_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
#define HY_CU_MEMORYTYPE_HOST 1
#define HY_CU_MEMORYTYPE_DEVICE 2
#define HY_CU_MEMORYTYPE_UNIFIED 4
#define HY_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
#define HY_CU_EVENT_DEFAULT 0
#define HY_CU_EVENT_DISABLE_TIMING 2
#define HY_CU_STREAM_DEFAULT 0

/* CUDA_MEMCPY2D_v2 and CUDA_MEMCPY3D_v2, field for field. */
typedef struct hy_cu_memcpy2d {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} hy_cu_memcpy2d;

typedef struct hy_cu_memcpy3d {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void *reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
} hy_cu_memcpy3d;

typedef struct hy_cuda_driver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
  CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice dev);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev); /* _v2 */
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev); /* _v2 */
  CUresult (*cuCtxPushCurrent)(CUcontext ctx);         /* _v2 */
  CUresult (*cuCtxPopCurrent)(CUcontext *ctx);         /* _v2 */
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuMemGetInfo)(size_t *free_bytes, size_t *total); /* _v2 */
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);      /* _v2 */
  CUresult (*cuMemFree)(CUdeviceptr ptr);                      /* _v2 */
  CUresult (*cuMemHostAlloc)(void **ptr, size_t bytes, unsigned flags);
  CUresult (*cuMemFreeHost)(void *ptr);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
  CUresult (*cuMemcpy2DAsync)(const hy_cu_memcpy2d *copy, CUstream s);
  CUresult (*cuMemcpy3DAsync)(const hy_cu_memcpy3d *copy, CUstream s);
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t n, CUstream s);
  CUresult (*cuStreamCreate)(CUstream *s, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream s); /* _v2 */
  CUresult (*cuStreamSynchronize)(CUstream s);
  CUresult (*cuStreamWaitEvent)(CUstream s, CUevent e, unsigned flags);
  CUresult (*cuEventCreate)(CUevent *e, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent e); /* _v2 */
  CUresult (*cuEventRecord)(CUevent e, CUstream s);
  CUresult (*cuEventSynchronize)(CUevent e);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
  CUresult (*cuModuleLoadData)(CUmodule *m, const void *image);
  CUresult (*cuModuleUnload)(CUmodule m);
  CUresult (*cuModuleGetFunction)(CUfunction *f, CUmodule m, const char *name);
  CUresult (*cuFuncSetAttribute)(CUfunction f, int attrib, int value);
  CUresult (*cuFuncGetAttribute)(int *value, int attrib, CUfunction f);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, CUstream s,
                             void **params, void **extra);
  CUresult (*cuGetErrorName)(CUresult r, const char **name);
  /* Optional (NULL when the driver lacks it): what a pointer is; unlike
   * the singular form it answers CUDA_SUCCESS with zeroed values for
   * memory the driver does not know (no API error under the sanitizer). */
  CUresult (*cuPointerGetAttributes)(unsigned count, int *attributes, void **data,
                                     CUdeviceptr ptr);
  CUresult (*cuGetErrorString)(CUresult r, const char **text);
  /* Optional (NULL when the driver lacks them): peer access between two
   * devices, for multi-device slab plans' device-to-device copies. */
  CUresult (*cuDeviceCanAccessPeer)(int *can, CUdevice dev, CUdevice peer);
  CUresult (*cuCtxEnablePeerAccess)(CUcontext peer, unsigned flags);
  int driver_version; /* e.g. 13000 */
  int device_count;
} hy_cuda_driver;

typedef struct _nvrtcProgram *nvrtcProgram;
typedef struct hy_nvrtc {
  int (*nvrtcVersion)(int *major, int *minor);
  int (*nvrtcGetNumSupportedArchs)(int *n);
  int (*nvrtcGetSupportedArchs)(int *archs);
  int (*nvrtcCreateProgram)(nvrtcProgram *prog, const char *src, const char *name, int nheaders,
                            const char *const *headers, const char *const *include_names);
  int (*nvrtcDestroyProgram)(nvrtcProgram *prog);
  int (*nvrtcCompileProgram)(nvrtcProgram prog, int nopts, const char *const *opts);
  int (*nvrtcGetProgramLogSize)(nvrtcProgram prog, size_t *size);
  int (*nvrtcGetProgramLog)(nvrtcProgram prog, char *log);
  int (*nvrtcGetCUBINSize)(nvrtcProgram prog, size_t *size);
  int (*nvrtcGetCUBIN)(nvrtcProgram prog, char *cubin);
  int (*nvrtcGetPTXSize)(nvrtcProgram prog, size_t *size);
  int (*nvrtcGetPTX)(nvrtcProgram prog, char *ptx);
  const char *(*nvrtcGetErrorString)(int result);
  int version; /* major * 1000 + minor * 10, like the driver's numbers */
  char path[256];
} hy_nvrtc;

/* The driver, loaded and cuInit'ed once per process. NULL (with the reason
 * in the detail message, status HYFFT_BACKEND_UNAVAILABLE) when libcuda is
 * missing or cuInit fails, e.g. on machines without an NVIDIA GPU. */
hy_status hy_cuda_driver_get(const hy_cuda_driver **driver);
/* NVRTC, loaded once; works without a driver or GPU. */
hy_status hy_cuda_nvrtc_get(const hy_nvrtc **nvrtc);

/* Record a driver failure as HYFFT_BACKEND_ERROR (or OUT_OF_MEMORY) naming
 * the call. */
hy_status hy_cuda_fail(const hy_cuda_driver *cu, CUresult r, const char *call);

/* Compile CUDA C source to a CUBIN for sm_<arch> (e.g. 90). *image is
 * hy_malloc'ed. On a compile error the NVRTC log is in the detail message
 * and the status is HYFFT_COMPILE_ERROR. When this NVRTC does not know
 * the architecture, PTX for the newest one it knows is produced instead
 * (the driver JIT-compiles it) and *is_ptx is set. */
hy_status hy_cuda_compile(const char *source, int arch, void **image, size_t *size, int *is_ptx);

/* Disk cache of compiled images, keyed by a 64-bit key that covers the
 * program, the architecture, the driver and the generator version. */
hy_status hy_cuda_cache_load(uint64_t key, void **image, size_t *size); /* NOT_SUPPORTED: miss */
void hy_cuda_cache_store(uint64_t key, const void *image, size_t size);
/* The file a key is stored in ("" when the disk cache is off). */
void hy_cuda_cache_path(uint64_t key, char *path, size_t path_size);

#endif /* HY_CUDA_API_H */
