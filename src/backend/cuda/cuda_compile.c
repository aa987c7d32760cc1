/* Generated CUDA C -> device image through NVRTC, for the exact
 * architecture of the device (a CUBIN needs no JIT at load time). */
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_api.h"

/* Pick what to build: sm_<arch> when this NVRTC knows it, else PTX for the
 * newest architecture it knows below `arch` (the driver JIT-compiles PTX
 * for newer GPUs). */
static hy_status hy_cuda_pick_target(const hy_nvrtc *nv, int arch, int *target, int *is_ptx) {
  int n = 0;
  if (nv->nvrtcGetNumSupportedArchs(&n) != 0 || n <= 0 || n > 256) {
    *target = arch;
    *is_ptx = 0;
    return HYFFT_SUCCESS;
  }
  int archs[256];
  if (nv->nvrtcGetSupportedArchs(archs) != 0) {
    *target = arch;
    *is_ptx = 0;
    return HYFFT_SUCCESS;
  }
  int best_below = 0;
  for (int i = 0; i < n; i++) {
    if (archs[i] == arch) {
      *target = arch;
      *is_ptx = 0;
      return HYFFT_SUCCESS;
    }
    if (archs[i] < arch && archs[i] > best_below) best_below = archs[i];
  }
  if (!best_below)
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "NVRTC %d.%d (%s) cannot compile for sm_%d: the GPU is older than "
                    "anything this NVRTC supports (oldest sm_%d)",
                    nv->version / 1000, nv->version % 1000 / 10, nv->path, arch, archs[0]);
  *target = best_below;
  *is_ptx = 1;
  return HYFFT_SUCCESS;
}

hy_status hy_cuda_compile(const char *source, int arch, void **image, size_t *size, int *is_ptx) {
  const hy_nvrtc *nv;
  HY_TRY(hy_cuda_nvrtc_get(&nv));
  int target = arch, ptx = 0;
  HY_TRY(hy_cuda_pick_target(nv, arch, &target, &ptx));

  char arch_opt[48];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", target);
  const char *opts[4];
  int nopts = 0;
  opts[nopts++] = arch_opt;
  opts[nopts++] = "-std=c++17";
  /* Line tables cost nothing at run time and let compute-sanitizer and
   * profilers point at generated source lines. */
  if (hy_getenv("HYFFT_CUDA_LINEINFO")) opts[nopts++] = "-lineinfo";

  nvrtcProgram prog = NULL;
  int r = nv->nvrtcCreateProgram(&prog, source, "hyfft_generated.cu", 0, NULL, NULL);
  if (r != 0)
    return hy_error(HYFFT_COMPILE_ERROR, "nvrtcCreateProgram failed: %s",
                    nv->nvrtcGetErrorString(r));
  hy_status st = HYFFT_SUCCESS;
  r = nv->nvrtcCompileProgram(prog, nopts, opts);
  if (r != 0) {
    size_t log_size = 0;
    char *log = NULL;
    if (nv->nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 0)
      log = hy_malloc(log_size + 1);
    if (log && nv->nvrtcGetProgramLog(prog, log) == 0) {
      log[log_size] = '\0';
    } else if (log) {
      log[0] = '\0';
    }
    st = hy_error(HYFFT_COMPILE_ERROR, "NVRTC (%s) failed for %s: %s\n%s", nv->path, arch_opt,
                  nv->nvrtcGetErrorString(r), log ? log : "(no log)");
    hy_free(log);
    nv->nvrtcDestroyProgram(&prog);
    return st;
  }
  size_t bytes = 0;
  r = ptx ? nv->nvrtcGetPTXSize(prog, &bytes) : nv->nvrtcGetCUBINSize(prog, &bytes);
  char *out = r == 0 && bytes > 0 ? hy_malloc(bytes) : NULL;
  if (r != 0 || bytes == 0) {
    st = hy_error(HYFFT_COMPILE_ERROR, "NVRTC produced no %s for %s", ptx ? "PTX" : "CUBIN",
                  arch_opt);
  } else if (!out) {
    st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot hold a compiled image of %zu bytes", bytes);
  } else {
    r = ptx ? nv->nvrtcGetPTX(prog, out) : nv->nvrtcGetCUBIN(prog, out);
    if (r != 0) st = hy_error(HYFFT_COMPILE_ERROR, "nvrtcGet%s failed: %s", ptx ? "PTX" : "CUBIN",
                              nv->nvrtcGetErrorString(r));
  }
  nv->nvrtcDestroyProgram(&prog);
  if (st != HYFFT_SUCCESS) {
    hy_free(out);
    return st;
  }
  *image = out;
  *size = bytes;
  *is_ptx = ptx;
  return HYFFT_SUCCESS;
}
