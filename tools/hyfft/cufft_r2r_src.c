/* The CUDA program of the cuFFT peer's DCT route (peer_cufft_r2r.c): a
 * prelude for the precision, the element functions of
 * cufft_r2r_kernels.cuh (embedded by the build as cli_r2r_kernels_src) and
 * four grid-stride kernels around them, all with one parameter list:
 *   (const T *in, T *out, long long total, long long n0, long long n1,
 *    long long n2, int d). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cufft_r2r_src.h"
#include "cufft_r2r_kernels.inc"

static const char cli_r2r_wrappers[] =
    "#define HY_KERNEL(name, call) \\\n"
    "  extern \"C\" __global__ void name(const HY_REAL *in, HY_REAL *out, long long total, \\\n"
    "      long long n0, long long n1, long long n2, int d) { \\\n"
    "    (void)d; \\\n"
    "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; \\\n"
    "         i += (long long)gridDim.x * blockDim.x) \\\n"
    "      call; \\\n"
    "  }\n"
    "HY_KERNEL(hy_dct2_pre_k, hy_dct2_pre(in, out, i, n0, n1, n2))\n"
    "HY_KERNEL(hy_dct2_post_k, hy_dct2_post(in, out, i, n0, n1, n2, d))\n"
    "HY_KERNEL(hy_dct3_pre_k, hy_dct3_pre(in, out, i, n0, n1, n2, d))\n"
    "HY_KERNEL(hy_dct3_post_k, hy_dct3_post(in, out, i, n0, n1, n2))\n";

const char *const cli_r2r_kernel_names[4] = {"hy_dct2_pre_k", "hy_dct2_post_k", "hy_dct3_pre_k",
                                             "hy_dct3_post_k"};

char *cli_r2r_route_source(int f64) {
  const char *prelude = f64 ? "#define HY_DEV __device__\n#define HY_REAL double\n"
                              "#define HY_SINCOSPI sincospi\n"
                            : "#define HY_DEV __device__\n#define HY_REAL float\n"
                              "#define HY_SINCOSPI sincospif\n";
  size_t len = strlen(prelude) + strlen(cli_r2r_kernels_src) + strlen(cli_r2r_wrappers) + 1;
  char *src = malloc(len);
  if (src) snprintf(src, len, "%s%s%s", prelude, cli_r2r_kernels_src, cli_r2r_wrappers);
  return src;
}
