/* The cuFFT peer's DCT route (peer_cufft_r2r.c) without a GPU:
 *
 * 1. the element functions of cufft_r2r_kernels.cuh, compiled here as C
 *    (double), run over every element around a direct N-D DFT in place of
 *    cuFFT's R2C / C2R, against the direct definitions of FFTW's REDFT10
 *    (DCT-II) and REDFT01 (DCT-III), rank 1..3, odd and even lengths,
 *    length 1, batched; and the reorder's index maps are inverses;
 * 2. where NVRTC loads (libnvrtc), the very program the peer compiles
 *    (both precisions) compiles, and its PTX holds the four kernels.
 *
 * Usage: test_cli_r2r_route. Exit 0 on success, 1 on a mismatch. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cufft_r2r_src.h"

#define HY_DEV static
#define HY_REAL double
#define HY_IDX long long
#include "cufft_r2r_kernels.cuh"

/* Direct N-D DFT of a real batched n0 x n1 x n2 array (sign -1), the half
 * spectrum (last dim n2/2+1, interleaved), as cuFFT's R2C. */
static void hy_r2c(const double *v, double *V, long long batch, const long long *n) {
  long long h = n[2] / 2 + 1, nn = n[0] * n[1] * n[2];
  for (long long b = 0; b < batch; b++)
    for (long long k0 = 0; k0 < n[0]; k0++)
      for (long long k1 = 0; k1 < n[1]; k1++)
        for (long long k2 = 0; k2 < h; k2++) {
          double re = 0, im = 0;
          for (long long j = 0; j < nn; j++) {
            long long j2 = j % n[2], j1 = (j / n[2]) % n[1], j0 = j / (n[1] * n[2]);
            double ph = -2 * M_PI *
                        ((double)(j0 * k0 % n[0]) / (double)n[0] +
                         (double)(j1 * k1 % n[1]) / (double)n[1] +
                         (double)(j2 * k2 % n[2]) / (double)n[2]);
            re += v[b * nn + j] * cos(ph);
            im += v[b * nn + j] * sin(ph);
          }
          long long q = ((b * n[0] + k0) * n[1] + k1) * h + k2;
          V[2 * q] = re;
          V[2 * q + 1] = im;
        }
}

/* Unnormalised inverse DFT (sign +1) from a half spectrum, real part, as
 * cuFFT's C2R (the other half by Hermitian symmetry). */
static void hy_c2r(const double *U, double *u, long long batch, const long long *n) {
  long long h = n[2] / 2 + 1, nn = n[0] * n[1] * n[2];
  for (long long b = 0; b < batch; b++)
    for (long long j = 0; j < nn; j++) {
      long long j2 = j % n[2], j1 = (j / n[2]) % n[1], j0 = j / (n[1] * n[2]);
      double acc = 0;
      for (long long k = 0; k < nn; k++) {
        long long k2 = k % n[2], k1 = (k / n[2]) % n[1], k0 = k / (n[1] * n[2]);
        double re, im;
        if (k2 < h) {
          long long q = ((b * n[0] + k0) * n[1] + k1) * h + k2;
          re = U[2 * q];
          im = U[2 * q + 1];
        } else {
          long long q = ((b * n[0] + (n[0] - k0) % n[0]) * n[1] + (n[1] - k1) % n[1]) * h +
                        (n[2] - k2);
          re = U[2 * q];
          im = -U[2 * q + 1];
        }
        double ph = 2 * M_PI *
                    ((double)(j0 * k0 % n[0]) / (double)n[0] +
                     (double)(j1 * k1 % n[1]) / (double)n[1] +
                     (double)(j2 * k2 % n[2]) / (double)n[2]);
        acc += re * cos(ph) - im * sin(ph);
      }
      u[b * nn + j] = acc;
    }
}

/* FFTW's REDFT10 (dct3 = 0) or REDFT01 (dct3 = 1) on every transformed
 * axis (the first 3 - d of n are 1 and not transformed), directly. */
static void hy_direct(const double *x, double *y, long long batch, const long long *n, int d,
                      int dct3) {
  long long nn = n[0] * n[1] * n[2];
  for (long long b = 0; b < batch; b++)
    for (long long k = 0; k < nn; k++) {
      long long kk[3] = {k / (n[1] * n[2]), (k / n[2]) % n[1], k % n[2]};
      double acc = 0;
      for (long long j = 0; j < nn; j++) {
        long long jj[3] = {j / (n[1] * n[2]), (j / n[2]) % n[1], j % n[2]};
        double f = 1;
        for (int a = 3 - d; a < 3; a++) {
          if (!dct3)
            f *= 2 * cos(M_PI * ((double)jj[a] + 0.5) * (double)kk[a] / (double)n[a]);
          else
            f *= (jj[a] == 0 ? 1 : 2) *
                 cos(M_PI * (double)jj[a] * ((double)kk[a] + 0.5) / (double)n[a]);
        }
        acc += x[b * nn + j] * f;
      }
      y[b * nn + k] = acc;
    }
}

static int hy_check(int d, long long a, long long b_, long long c, long long batch) {
  long long n[3] = {1, 1, 1};
  long long given[3] = {a, b_, c};
  for (int i = 0; i < d; i++) n[3 - d + i] = given[i];
  long long nn = n[0] * n[1] * n[2], h = n[0] * n[1] * (n[2] / 2 + 1);
  double *x = malloc(sizeof(double) * (size_t)(batch * nn));
  double *v = malloc(sizeof(double) * (size_t)(batch * nn));
  double *V = malloc(sizeof(double) * (size_t)(2 * batch * h));
  double *y = malloc(sizeof(double) * (size_t)(batch * nn));
  double *ref = malloc(sizeof(double) * (size_t)(batch * nn));
  double *tw = malloc(sizeof(double) * (size_t)(2 * (n[0] + n[1] + n[2])));
  int fail = 0;
  if (!x || !v || !V || !y || !ref || !tw) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  unsigned seed = (unsigned)(a * 131 + b_ * 17 + c * 7 + batch);
  for (long long i = 0; i < batch * nn; i++) {
    seed = seed * 1103515245u + 12345u;
    x[i] = (double)(seed >> 8) / (double)(1u << 24) - 0.5;
  }
  cli_r2r_twiddles(n[0], n[1], n[2], tw);
  const double *tw0 = tw, *tw1 = tw + 2 * n[0], *tw2 = tw1 + 2 * n[1];
  for (int dct3 = 0; dct3 < 2; dct3++) {
    if (!dct3) {
      for (long long i = 0; i < batch * nn; i++) hy_dct2_pre(x, v, i, n[0], n[1], n[2]);
      hy_r2c(v, V, batch, n);
      for (long long i = 0; i < batch * nn; i++) hy_dct2_post(V, y, i, n[0], n[1], n[2], d, tw0, tw1, tw2);
    } else {
      for (long long i = 0; i < batch * h; i++) hy_dct3_pre(x, V, i, n[0], n[1], n[2], d, tw0, tw1, tw2);
      hy_c2r(V, v, batch, n);
      for (long long i = 0; i < batch * nn; i++) hy_dct3_post(v, y, i, n[0], n[1], n[2]);
    }
    hy_direct(x, ref, batch, n, d, dct3);
    double emax = 0, rmax = 0;
    for (long long i = 0; i < batch * nn; i++) {
      if (fabs(y[i] - ref[i]) > emax || y[i] != y[i]) emax = fabs(y[i] - ref[i]);
      if (fabs(ref[i]) > rmax) rmax = fabs(ref[i]);
    }
    double rel = emax / (rmax > 0 ? rmax : 1);
    int ok = rel < 1e-12;
    printf("%s rank %d %lldx%lldx%lld batch %lld: max error %.2e of the largest output %s\n",
           dct3 ? "dct3" : "dct2", d, n[0], n[1], n[2], batch, rel, ok ? "PASS" : "FAIL");
    fail |= !ok;
  }
  free(x);
  free(v);
  free(V);
  free(y);
  free(ref);
  free(tw);
  return fail;
}

/* The NVRTC compile of the peer's program, where NVRTC loads. */
static int hy_nvrtc(void) {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                      "/usr/local/cuda/lib64/libnvrtc.so", NULL};
  void *h = NULL;
  for (int i = 0; names[i] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("NVRTC not found: the kernels' compile is not checked here\n");
    return 0;
  }
  int (*create)(void **, const char *, const char *, int, const char *const *,
                const char *const *);
  int (*compile)(void *, int, const char *const *);
  int (*ptx_size)(void *, size_t *);
  int (*get_ptx)(void *, char *);
  int (*log_size)(void *, size_t *);
  int (*get_log)(void *, char *);
  int (*destroy)(void **);
  void *f[7] = {dlsym(h, "nvrtcCreateProgram"), dlsym(h, "nvrtcCompileProgram"),
                dlsym(h, "nvrtcGetPTXSize"),    dlsym(h, "nvrtcGetPTX"),
                dlsym(h, "nvrtcGetProgramLogSize"), dlsym(h, "nvrtcGetProgramLog"),
                dlsym(h, "nvrtcDestroyProgram")};
  for (int i = 0; i < 7; i++)
    if (!f[i]) {
      printf("NVRTC lacks a function: the kernels' compile is not checked here\n");
      return 0;
    }
  memcpy(&create, &f[0], sizeof f[0]);
  memcpy(&compile, &f[1], sizeof f[1]);
  memcpy(&ptx_size, &f[2], sizeof f[2]);
  memcpy(&get_ptx, &f[3], sizeof f[3]);
  memcpy(&log_size, &f[4], sizeof f[4]);
  memcpy(&get_log, &f[5], sizeof f[5]);
  memcpy(&destroy, &f[6], sizeof f[6]);
  int fail = 0;
  /* Programs as the peer makes them: f32 2D with 32-bit indices, f64 3D
   * with 32-bit and with 64-bit ones, f32 1D. */
  static const long long cfg[4][6] = {{0, 1, 1024, 1024, 2, 0}, {1, 256, 256, 256, 3, 0},
                                      {1, 128, 128, 128, 3, 1}, {0, 1, 1, 4096, 1, 0}};
  for (int c = 0; c < 4; c++) {
    int f64 = (int)cfg[c][0];
    /* The options the peer compiles with (cli_cu_rtc_ptx). */
    static const char *const opts[] = {"--gpu-architecture=compute_80", "-std=c++14"};
    char *src = cli_r2r_route_source(f64, cfg[c][1], cfg[c][2], cfg[c][3], (int)cfg[c][4],
                                     (int)cfg[c][5]);
    void *prog = NULL;
    size_t size = 0;
    if (!src || create(&prog, src, "hyfft_dct_route.cu", 0, NULL, NULL) != 0) {
      printf("nvrtcCreateProgram failed\n");
      free(src);
      return 1;
    }
    int r = compile(prog, 2, opts);
    if (r != 0) {
      size_t ls = 0;
      log_size(prog, &ls);
      char *log = malloc(ls + 1);
      if (log && get_log(prog, log) == 0) printf("%s\n", log);
      free(log);
      printf("NVRTC %s: compile FAILED\n", f64 ? "f64" : "f32");
      fail = 1;
    } else if (ptx_size(prog, &size) == 0) {
      char *ptx = malloc(size);
      if (ptx && get_ptx(prog, ptx) == 0) {
        for (int k = 0; k < 4; k++) {
          char entry[64];
          snprintf(entry, sizeof entry, ".entry %s", cli_r2r_kernel_names[k]);
          if (!strstr(ptx, entry)) {
            printf("NVRTC %s: no %s in the PTX FAIL\n", f64 ? "f64" : "f32",
                   cli_r2r_kernel_names[k]);
            fail = 1;
          }
        }
        printf("NVRTC %s %lldx%lldx%lld rank %lld, %s indices: the route's 4 kernels compile "
               "(%zu bytes of PTX)\n", f64 ? "f64" : "f32", cfg[c][1], cfg[c][2], cfg[c][3],
               cfg[c][4], cfg[c][5] ? "64-bit" : "32-bit", size);
      }
      free(ptx);
    }
    destroy(&prog);
    free(src);
  }
  return fail;
}

int main(void) {
  int fail = 0;
  /* The reorder's maps are inverse permutations. */
  for (long long n = 1; n <= 33; n++)
    for (long long m = 0; m < n; m++)
      if (hy_mk_pos(hy_mk_src(m, n), n) != m) {
        printf("src/pos of n=%lld m=%lld are not inverses FAIL\n", n, m);
        fail = 1;
      }
  static const long long shapes[][5] = {
      {1, 1, 1, 1, 1},  {1, 2, 1, 1, 1},  {1, 3, 1, 1, 1}, {1, 5, 1, 1, 3}, {1, 8, 1, 1, 1},
      {1, 9, 1, 1, 2},  {1, 16, 1, 1, 1}, {2, 4, 6, 1, 1}, {2, 5, 3, 1, 2}, {2, 1, 4, 1, 1},
      {2, 6, 1, 1, 1},  {2, 7, 7, 1, 1},  {3, 3, 4, 5, 1}, {3, 2, 3, 2, 2}, {3, 4, 4, 4, 1},
      {3, 5, 1, 3, 1},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    fail |= hy_check((int)shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], shapes[i][4]);
  fail |= hy_nvrtc();
  printf("%s\n", fail ? "FAILED" : "all passed");
  return fail;
}
