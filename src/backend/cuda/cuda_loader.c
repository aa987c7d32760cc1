/* Loading libcuda and NVRTC at run time, so that hyfft builds and runs
 * where neither exists. Each library is opened once per process (under
 * pthread_once); the outcome, success or the reason for failure, is kept
 * and reported again to every later caller. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_api.h"
#include "util/settings.h"

/* ---- driver ------------------------------------------------------------- */

static pthread_once_t hy_cu_once = PTHREAD_ONCE_INIT;
static hy_cuda_driver hy_cu;
static hy_status hy_cu_status;
static char hy_cu_reason[256];

/* Resolve `name` into `slot`; an absent symbol fails the whole load. */
static int hy_cu_sym(void *lib, const char *name, void *slot) {
  void *f = dlsym(lib, name);
  if (!f) {
    snprintf(hy_cu_reason, sizeof hy_cu_reason, "libcuda.so.1 lacks the symbol %s", name);
    return 0;
  }
  memcpy(slot, &f, sizeof f);
  return 1;
}

static void hy_cu_load(void) {
  hy_cu_status = HYFFT_BACKEND_UNAVAILABLE;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    snprintf(hy_cu_reason, sizeof hy_cu_reason,
             "the NVIDIA driver library libcuda.so.1 was not found (%s)", why ? why : "?");
    return;
  }
  hy_cuda_driver *d = &hy_cu;
  /* The _v2 names are the entry points the toolkit's macros select. */
  int ok = hy_cu_sym(lib, "cuInit", &d->cuInit) &&
           hy_cu_sym(lib, "cuDriverGetVersion", &d->cuDriverGetVersion) &&
           hy_cu_sym(lib, "cuDeviceGetCount", &d->cuDeviceGetCount) &&
           hy_cu_sym(lib, "cuDeviceGet", &d->cuDeviceGet) &&
           hy_cu_sym(lib, "cuDeviceGetName", &d->cuDeviceGetName) &&
           hy_cu_sym(lib, "cuDeviceGetAttribute", &d->cuDeviceGetAttribute) &&
           hy_cu_sym(lib, "cuDeviceTotalMem_v2", &d->cuDeviceTotalMem) &&
           hy_cu_sym(lib, "cuDevicePrimaryCtxRetain", &d->cuDevicePrimaryCtxRetain) &&
           hy_cu_sym(lib, "cuDevicePrimaryCtxRelease_v2", &d->cuDevicePrimaryCtxRelease) &&
           hy_cu_sym(lib, "cuCtxPushCurrent_v2", &d->cuCtxPushCurrent) &&
           hy_cu_sym(lib, "cuCtxPopCurrent_v2", &d->cuCtxPopCurrent) &&
           hy_cu_sym(lib, "cuCtxSynchronize", &d->cuCtxSynchronize) &&
           hy_cu_sym(lib, "cuMemGetInfo_v2", &d->cuMemGetInfo) &&
           hy_cu_sym(lib, "cuMemAlloc_v2", &d->cuMemAlloc) &&
           hy_cu_sym(lib, "cuMemFree_v2", &d->cuMemFree) &&
           hy_cu_sym(lib, "cuMemHostAlloc", &d->cuMemHostAlloc) &&
           hy_cu_sym(lib, "cuMemFreeHost", &d->cuMemFreeHost) &&
           hy_cu_sym(lib, "cuMemcpyHtoDAsync_v2", &d->cuMemcpyHtoDAsync) &&
           hy_cu_sym(lib, "cuMemcpyDtoHAsync_v2", &d->cuMemcpyDtoHAsync) &&
           hy_cu_sym(lib, "cuMemcpyDtoDAsync_v2", &d->cuMemcpyDtoDAsync) &&
           hy_cu_sym(lib, "cuMemcpy2DAsync_v2", &d->cuMemcpy2DAsync) &&
           hy_cu_sym(lib, "cuMemcpy3DAsync_v2", &d->cuMemcpy3DAsync) &&
           hy_cu_sym(lib, "cuMemsetD8Async", &d->cuMemsetD8Async) &&
           hy_cu_sym(lib, "cuStreamCreate", &d->cuStreamCreate) &&
           hy_cu_sym(lib, "cuStreamDestroy_v2", &d->cuStreamDestroy) &&
           hy_cu_sym(lib, "cuStreamSynchronize", &d->cuStreamSynchronize) &&
           hy_cu_sym(lib, "cuStreamWaitEvent", &d->cuStreamWaitEvent) &&
           hy_cu_sym(lib, "cuEventCreate", &d->cuEventCreate) &&
           hy_cu_sym(lib, "cuEventDestroy_v2", &d->cuEventDestroy) &&
           hy_cu_sym(lib, "cuEventRecord", &d->cuEventRecord) &&
           hy_cu_sym(lib, "cuEventSynchronize", &d->cuEventSynchronize) &&
           hy_cu_sym(lib, "cuEventElapsedTime", &d->cuEventElapsedTime) &&
           hy_cu_sym(lib, "cuModuleLoadData", &d->cuModuleLoadData) &&
           hy_cu_sym(lib, "cuModuleUnload", &d->cuModuleUnload) &&
           hy_cu_sym(lib, "cuModuleGetFunction", &d->cuModuleGetFunction) &&
           hy_cu_sym(lib, "cuFuncSetAttribute", &d->cuFuncSetAttribute) &&
           hy_cu_sym(lib, "cuFuncGetAttribute", &d->cuFuncGetAttribute) &&
           hy_cu_sym(lib, "cuLaunchKernel", &d->cuLaunchKernel) &&
           hy_cu_sym(lib, "cuGetErrorName", &d->cuGetErrorName) &&
           hy_cu_sym(lib, "cuGetErrorString", &d->cuGetErrorString);
  /* The library stays open for the life of the process: function pointers
   * into it are handed out without reference counting. */
  if (!ok) return;
  if (!hy_cu_sym(lib, "cuPointerGetAttributes", &d->cuPointerGetAttributes))
    d->cuPointerGetAttributes = NULL;
  if (!hy_cu_sym(lib, "cuDeviceCanAccessPeer", &d->cuDeviceCanAccessPeer) ||
      !hy_cu_sym(lib, "cuCtxEnablePeerAccess", &d->cuCtxEnablePeerAccess))
    d->cuDeviceCanAccessPeer = NULL, d->cuCtxEnablePeerAccess = NULL;
  CUresult r = d->cuInit(0);
  if (r != HY_CUDA_SUCCESS) {
    const char *name = "?";
    d->cuGetErrorName(r, &name);
    snprintf(hy_cu_reason, sizeof hy_cu_reason,
             "cuInit failed with %s (%d): no usable NVIDIA GPU or driver", name ? name : "?", r);
    return;
  }
  if (d->cuDriverGetVersion(&d->driver_version) != HY_CUDA_SUCCESS) d->driver_version = 0;
  if (d->cuDeviceGetCount(&d->device_count) != HY_CUDA_SUCCESS) d->device_count = 0;
  hy_cu_status = HYFFT_SUCCESS;
}

hy_status hy_cuda_driver_get(const hy_cuda_driver **driver) {
  pthread_once(&hy_cu_once, hy_cu_load);
  if (hy_cu_status != HYFFT_SUCCESS) {
    *driver = NULL;
    return hy_error(hy_cu_status, "CUDA backend: %s", hy_cu_reason);
  }
  *driver = &hy_cu;
  return HYFFT_SUCCESS;
}

hy_status hy_cuda_fail(const hy_cuda_driver *cu, CUresult r, const char *call) {
  const char *name = NULL, *text = NULL;
  if (cu) {
    cu->cuGetErrorName(r, &name);
    cu->cuGetErrorString(r, &text);
  }
  return hy_error(r == HY_CUDA_ERROR_OUT_OF_MEMORY ? HYFFT_OUT_OF_MEMORY : HYFFT_BACKEND_ERROR,
                  "CUDA: %s failed with %s (%d): %s", call, name ? name : "?", r,
                  text ? text : "unknown error");
}

/* ---- NVRTC -------------------------------------------------------------- */

static pthread_once_t hy_nv_once = PTHREAD_ONCE_INIT;
static hy_nvrtc hy_nv;
static hy_status hy_nv_status;
static char hy_nv_reason[512];

static void *hy_nv_open(void) {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  const char *homes[3] = {hy_settings_get()->cuda_home, hy_settings_get()->cuda_path, "/usr/local/cuda"};
  char path[256];
  for (int n = 0; n < 3; n++) {
    for (int h = 0; h < 3; h++) {
      if (!homes[h]) continue;
      snprintf(path, sizeof path, "%s/lib64/%s", homes[h], names[n]);
      void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (lib) {
        snprintf(hy_nv.path, sizeof hy_nv.path, "%s", path);
        return lib;
      }
    }
    void *lib = dlopen(names[n], RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      snprintf(hy_nv.path, sizeof hy_nv.path, "%s", names[n]);
      return lib;
    }
  }
  return NULL;
}

static int hy_nv_sym(void *lib, const char *name, void *slot) {
  void *f = dlsym(lib, name);
  if (!f) {
    snprintf(hy_nv_reason, sizeof hy_nv_reason, "%s lacks the symbol %s", hy_nv.path, name);
    return 0;
  }
  memcpy(slot, &f, sizeof f);
  return 1;
}

static void hy_nv_load(void) {
  hy_nv_status = HYFFT_BACKEND_UNAVAILABLE;
  void *lib = hy_nv_open();
  if (!lib) {
    snprintf(hy_nv_reason, sizeof hy_nv_reason,
             "NVRTC (libnvrtc.so.13/.12/.so) was not found in $CUDA_HOME/lib64, "
             "/usr/local/cuda/lib64 or the default library path");
    return;
  }
  hy_nvrtc *n = &hy_nv;
  int ok = hy_nv_sym(lib, "nvrtcVersion", &n->nvrtcVersion) &&
           hy_nv_sym(lib, "nvrtcGetNumSupportedArchs", &n->nvrtcGetNumSupportedArchs) &&
           hy_nv_sym(lib, "nvrtcGetSupportedArchs", &n->nvrtcGetSupportedArchs) &&
           hy_nv_sym(lib, "nvrtcCreateProgram", &n->nvrtcCreateProgram) &&
           hy_nv_sym(lib, "nvrtcDestroyProgram", &n->nvrtcDestroyProgram) &&
           hy_nv_sym(lib, "nvrtcCompileProgram", &n->nvrtcCompileProgram) &&
           hy_nv_sym(lib, "nvrtcGetProgramLogSize", &n->nvrtcGetProgramLogSize) &&
           hy_nv_sym(lib, "nvrtcGetProgramLog", &n->nvrtcGetProgramLog) &&
           hy_nv_sym(lib, "nvrtcGetCUBINSize", &n->nvrtcGetCUBINSize) &&
           hy_nv_sym(lib, "nvrtcGetCUBIN", &n->nvrtcGetCUBIN) &&
           hy_nv_sym(lib, "nvrtcGetPTXSize", &n->nvrtcGetPTXSize) &&
           hy_nv_sym(lib, "nvrtcGetPTX", &n->nvrtcGetPTX) &&
           hy_nv_sym(lib, "nvrtcGetErrorString", &n->nvrtcGetErrorString);
  if (!ok) return;
  int major = 0, minor = 0;
  if (n->nvrtcVersion(&major, &minor) != 0) {
    snprintf(hy_nv_reason, sizeof hy_nv_reason, "nvrtcVersion failed in %s", n->path);
    return;
  }
  n->version = major * 1000 + minor * 10;
  hy_nv_status = HYFFT_SUCCESS;
}

hy_status hy_cuda_nvrtc_get(const hy_nvrtc **nvrtc) {
  pthread_once(&hy_nv_once, hy_nv_load);
  if (hy_nv_status != HYFFT_SUCCESS) {
    *nvrtc = NULL;
    return hy_error(hy_nv_status, "CUDA backend: %s", hy_nv_reason);
  }
  *nvrtc = &hy_nv;
  return HYFFT_SUCCESS;
}
