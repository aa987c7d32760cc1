/* The CUDA program of the cuFFT peer's DCT route (peer_cufft_r2r.c): a
 * prelude for the precision, the element functions of
 * cufft_r2r_kernels.cuh (embedded by the build as cli_r2r_kernels_src) and
 * four grid-stride kernels around them, all with one parameter list:
 *   (const T *in, T *out, const T *tw, unsigned long long total),
 * the lengths, the rank and the index type being constants of the
 * program (one per plan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cufft_r2r_src.h"
#include "cufft_r2r_kernels.inc"

static const char cli_r2r_wrappers[] =
    "#define HY_KERNEL(name, call) \\\n"
    "  extern \"C\" __global__ void name(const HY_REAL *in, HY_REAL *out, const HY_REAL *tw, \\\n"
    "      unsigned long long count) { \\\n"
    "    const HY_REAL *tw0 = tw, *tw1 = tw + 2 * HY_N0, *tw2 = tw1 + 2 * HY_N1; \\\n"
    "    HY_IDX total = (HY_IDX)count; \\\n"
    "    (void)tw0; (void)tw1; (void)tw2; \\\n"
    "    for (HY_IDX i = blockIdx.x * (HY_IDX)blockDim.x + threadIdx.x; i < total; \\\n"
    "         i += (HY_IDX)gridDim.x * blockDim.x) \\\n"
    "      call; \\\n"
    "  }\n"
    "HY_KERNEL(hy_dct2_pre_k, hy_dct2_pre(in, out, i, HY_N0, HY_N1, HY_N2))\n"
    "HY_KERNEL(hy_dct2_post_k, hy_dct2_post(in, out, i, HY_N0, HY_N1, HY_N2, HY_D, tw0, tw1, tw2))\n"
    "HY_KERNEL(hy_dct3_pre_k, hy_dct3_pre(in, out, i, HY_N0, HY_N1, HY_N2, HY_D, tw0, tw1, tw2))\n"
    "HY_KERNEL(hy_dct3_post_k, hy_dct3_post(in, out, i, HY_N0, HY_N1, HY_N2))\n";

const char *const cli_r2r_kernel_names[4] = {"hy_dct2_pre_k", "hy_dct2_post_k", "hy_dct3_pre_k",
                                             "hy_dct3_post_k"};

char *cli_r2r_route_source(int f64, long long n0, long long n1, long long n2, int d, int idx64) {
  char prelude[512];
  const char *suffix = idx64 ? "ull" : "u";
  snprintf(prelude, sizeof prelude,
           "#define HY_DEV __device__ __forceinline__\n#define HY_REAL %s\n"
           "#define HY_IDX %s\n#define HY_N0 %lld%s\n#define HY_N1 %lld%s\n"
           "#define HY_N2 %lld%s\n#define HY_D %d\n",
           f64 ? "double" : "float", idx64 ? "unsigned long long" : "unsigned int", n0, suffix,
           n1, suffix, n2, suffix, d);
  size_t len = strlen(prelude) + strlen(cli_r2r_kernels_src) + strlen(cli_r2r_wrappers) + 1;
  char *src = malloc(len);
  if (src) snprintf(src, len, "%s%s%s", prelude, cli_r2r_kernels_src, cli_r2r_wrappers);
  return src;
}

void cli_r2r_twiddles(long long n0, long long n1, long long n2, double *tw) {
  const long double pi = acosl(-1.0L);
  long long n[3] = {n0, n1, n2}, off = 0;
  for (int a = 0; a < 3; a++)
    for (long long k = 0; k < n[a]; k++, off++) {
      long double x = pi * (long double)k / (long double)(2 * n[a]);
      tw[2 * off] = (double)cosl(x);
      tw[2 * off + 1] = (double)sinl(x);
    }
}
