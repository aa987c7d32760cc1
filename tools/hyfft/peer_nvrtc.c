/* Run-time compilation for the CUDA peers that launch kernels of their
 * own (the convolution route, peer_cufft_conv.c, and the DCT route,
 * peer_cufft_r2r.c): NVRTC and the driver's module calls, loaded with
 * dlopen like the rest of the CUDA peers (peer_cuda.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "peer_cuda.h"

cli_cu_rtc_api cli_rtc;

int cli_cu_rtc_load(char *err, size_t errlen) {
  if (cli_rtc.loaded) return 0;
  if (cli_cufft_load(err, errlen) != 0) return -1;
  static const char *const cuda[] = {"libcuda.so.1", NULL};
  static const char *const nvrtc[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                                      "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so", NULL};
  void *hc = cli_dlopen_first(cuda, NULL), *hn = cli_dlopen_first(nvrtc, NULL);
  if (!hc || !hn) {
    snprintf(err, errlen, "%s not found", hc ? "libnvrtc" : "libcuda.so.1");
    return -1;
  }
  int ok = cli_dlsym(hc, "cuModuleLoadData", &cli_rtc.module_load) &&
           cli_dlsym(hc, "cuModuleUnload", &cli_rtc.module_unload) &&
           cli_dlsym(hc, "cuModuleGetFunction", &cli_rtc.module_function) &&
           cli_dlsym(hc, "cuLaunchKernel", &cli_rtc.launch) &&
           cli_dlsym(hn, "nvrtcCreateProgram", &cli_rtc.nvrtc_create) &&
           cli_dlsym(hn, "nvrtcCompileProgram", &cli_rtc.nvrtc_compile) &&
           cli_dlsym(hn, "nvrtcGetPTXSize", &cli_rtc.nvrtc_ptx_size) &&
           cli_dlsym(hn, "nvrtcGetPTX", &cli_rtc.nvrtc_ptx) &&
           cli_dlsym(hn, "nvrtcDestroyProgram", &cli_rtc.nvrtc_destroy);
  if (!ok) {
    snprintf(err, errlen, "the driver or NVRTC lacks a module, launch or compile call");
    return -1;
  }
  /* Optional: the compile log, for a reason when a program fails. */
  if (!cli_dlsym(hn, "nvrtcGetProgramLogSize", &cli_rtc.nvrtc_log_size) ||
      !cli_dlsym(hn, "nvrtcGetProgramLog", &cli_rtc.nvrtc_log)) {
    cli_rtc.nvrtc_log_size = NULL;
    cli_rtc.nvrtc_log = NULL;
  }
  cli_rtc.loaded = 1;
  return 0;
}

char *cli_cu_rtc_ptx(const char *src, const char *name, char *err, size_t errlen) {
  void *prog = NULL;
  char *ptx = NULL;
  size_t size = 0;
  static const char *const opts[] = {"--gpu-architecture=compute_80", "-std=c++14"};
  if (cli_rtc.nvrtc_create(&prog, src, name, 0, NULL, NULL) != 0) {
    snprintf(err, errlen, "nvrtcCreateProgram failed");
    return NULL;
  }
  if (cli_rtc.nvrtc_compile(prog, 2, opts) != 0) {
    size_t lsize = 0;
    char log[400] = "";
    if (cli_rtc.nvrtc_log_size && cli_rtc.nvrtc_log_size(prog, &lsize) == 0 && lsize > 0) {
      char *full = malloc(lsize);
      if (full && cli_rtc.nvrtc_log(prog, full) == 0) snprintf(log, sizeof log, "%s", full);
      free(full);
    }
    snprintf(err, errlen, "NVRTC cannot compile %s%s%s", name, log[0] ? ": " : "", log);
  } else if (cli_rtc.nvrtc_ptx_size(prog, &size) == 0 && (ptx = malloc(size)) != NULL &&
             cli_rtc.nvrtc_ptx(prog, ptx) != 0) {
    free(ptx);
    ptx = NULL;
    snprintf(err, errlen, "nvrtcGetPTX failed");
  }
  cli_rtc.nvrtc_destroy(&prog);
  return ptx;
}
