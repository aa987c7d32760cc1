/* Loads the OpenCL ICD loader at run time. */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "backend/opencl/cl_internal.h"
#include "util/settings.h"

static hy_cl_api hy_cl_api_table;
static const hy_cl_api *hy_cl_api_loaded;
static pthread_once_t hy_cl_once = PTHREAD_ONCE_INIT;

#define HY_CL_SYM(field)                                                       \
  do {                                                                         \
    void *sym_ = dlsym(lib, "cl" #field);                                      \
    if (!sym_) goto fail;                                                      \
    memcpy(&api->field, &sym_, sizeof sym_);                                   \
  } while (0)

static void hy_cl_do_load(void) {
  const char *path = hy_settings_get()->opencl_library;
  void *lib = dlopen(path ? path : "libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib && !path) lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  hy_cl_api *api = &hy_cl_api_table;
  HY_CL_SYM(GetPlatformIDs);
  HY_CL_SYM(GetPlatformInfo);
  HY_CL_SYM(GetDeviceIDs);
  HY_CL_SYM(GetDeviceInfo);
  HY_CL_SYM(CreateContext);
  HY_CL_SYM(ReleaseContext);
  HY_CL_SYM(CreateCommandQueue);
  HY_CL_SYM(ReleaseCommandQueue);
  HY_CL_SYM(CreateBuffer);
  HY_CL_SYM(ReleaseMemObject);
  HY_CL_SYM(EnqueueReadBuffer);
  HY_CL_SYM(EnqueueWriteBuffer);
  HY_CL_SYM(Finish);
  HY_CL_SYM(CreateProgramWithSource);
  HY_CL_SYM(CreateProgramWithBinary);
  HY_CL_SYM(BuildProgram);
  HY_CL_SYM(GetProgramBuildInfo);
  HY_CL_SYM(GetProgramInfo);
  HY_CL_SYM(ReleaseProgram);
  HY_CL_SYM(RetainProgram);
  HY_CL_SYM(CreateKernel);
  HY_CL_SYM(ReleaseKernel);
  HY_CL_SYM(SetKernelArg);
  HY_CL_SYM(EnqueueNDRangeKernel);
  hy_cl_api_loaded = api;
  return; /* the loader stays open for the life of the process */
fail:
  dlclose(lib);
}

const hy_cl_api *hy_cl_load(void) {
  pthread_once(&hy_cl_once, hy_cl_do_load);
  return hy_cl_api_loaded;
}
