// L2 reuse microbenchmark (not part of the build; docs/performance.md cites
// it): how much of a second pass over the data L2 can save on this GPU, with
// plain copies standing in for FFT passes. 512 MiB go x -> w -> y as two
// passes over everything, or in chunks of 8-32 MB (two launches per chunk,
// or one cooperative kernel with a grid barrier per chunk), with and without
// streaming hints on x and y (__ldcs/__stcs) and with the read workspace
// lines discarded (discard.global.L2) so that L2 never writes them back.
//   nvcc -O3 -arch=sm_90 -std=c++17 -o l2_reuse bench/micro/l2_reuse.cu && ./l2_reuse
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__device__ __forceinline__ float4 ldcs(const float4 *p) { return __ldcs(p); }
__device__ __forceinline__ void stcs(float4 *p, float4 v) { __stcs(p, v); }

// pass B reading the work buffer and discarding its lines (no write-back)
__global__ void copyd(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = a[i];
    __stcs(b + i, v);
    // one thread per 128-byte line (8 float4) discards it after the warp's reads
    __syncwarp();
    if ((i & 7) == 0) asm volatile("discard.global.L2 [%0], 128;" :: "l"(a + i) : "memory");
  }
}
template <int HINT> __global__ void copy(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    if (HINT == 1) b[i] = ldcs(a + i);       // streaming read (input), normal write (work)
    else if (HINT == 2) stcs(b + i, a[i]);   // normal read (work), streaming write (output)
    else b[i] = a[i];
  }
}

// persistent: per chunk, A: x->w[c%2], grid sync, B: w[c%2]->y
__global__ void fused(const float4 *__restrict__ x, float4 *__restrict__ w, float4 *__restrict__ y, size_t n, size_t chunk, int hint) {
  cg::grid_group g = cg::this_grid();
  size_t nch = n / chunk;
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
  for (size_t c = 0; c < nch; c++) {
    float4 *wc = w + (c % 2) * chunk;
    const float4 *xc = x + c * chunk;
    for (size_t i = tid; i < chunk; i += stride) wc[i] = hint ? __ldcs(xc + i) : xc[i];
    g.sync();
    float4 *yc = y + c * chunk;
    for (size_t i = tid; i < chunk; i += stride) { if (hint) __stcs(yc + i, wc[i]); else yc[i] = wc[i]; }
  }
}

int main() {
  size_t bytes = 512ull << 20, n = bytes / 16;
  float4 *x, *y, *w;
  CK(cudaMalloc(&x, bytes)); CK(cudaMalloc(&y, bytes)); CK(cudaMalloc(&w, bytes));
  CK(cudaMemset(x, 1, bytes)); CK(cudaMemset(y, 0, bytes)); CK(cudaMemset(w, 0, bytes));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  auto timeit = [&](const char *name, auto fn) {
    for (int i = 0; i < 3; i++) fn();
    cudaEventRecord(e0); for (int i = 0; i < 10; i++) fn(); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1); ms /= 10;
    printf("%-44s %.4f ms  (%.0f GB/s of x->y)\n", name, ms, 2.0 * bytes / ms / 1e6);
    cudaError_t err = cudaGetLastError(); if (err) printf("  error %s\n", cudaGetErrorString(err));
  };
  int grid = sms * 8, block = 256;
  timeit("one copy x->y", [&] { copy<0><<<grid, block>>>(x, y, n); });
  timeit("two passes x->w->y (full w)", [&] { copy<0><<<grid, block>>>(x, w, n); copy<0><<<grid, block>>>(w, y, n); });
  for (size_t mb : {8, 16, 24, 32}) {
    size_t chunk = (mb << 20) / 16;
    char name[64];
    for (int hint = 0; hint < 2; hint++) {
      snprintf(name, sizeof name, "chunked launches %zu MB%s", mb, hint ? " +cs" : "");
      timeit(name, [&] {
        for (size_t c = 0; c < n / chunk; c++) {
          float4 *wc = w + (c % 2) * chunk;
          if (hint) { copy<1><<<grid, block>>>(x + c * chunk, wc, chunk); copy<2><<<grid, block>>>(wc, y + c * chunk, chunk); }
          else { copy<0><<<grid, block>>>(x + c * chunk, wc, chunk); copy<0><<<grid, block>>>(wc, y + c * chunk, chunk); }
        }
      });
    }
    snprintf(name, sizeof name, "chunked full-w %zu MB +cs +discard", mb);
    timeit(name, [&] {
      for (size_t c = 0; c < n / chunk; c++) {
        copy<1><<<grid, block>>>(x + c * chunk, w + c * chunk, chunk); copyd<<<grid, block>>>(w + c * chunk, y + c * chunk, chunk);
      }
    });
    snprintf(name, sizeof name, "chunked full-w %zu MB +cs", mb);
    timeit(name, [&] {
      for (size_t c = 0; c < n / chunk; c++) {
        copy<1><<<grid, block>>>(x + c * chunk, w + c * chunk, chunk); copy<2><<<grid, block>>>(w + c * chunk, y + c * chunk, chunk);
      }
    });
    snprintf(name, sizeof name, "chunked small-w %zu MB +cs +discard", mb);
    timeit(name, [&] {
      for (size_t c = 0; c < n / chunk; c++) {
        float4 *wc = w + (c % 2) * chunk;
        copy<1><<<grid, block>>>(x + c * chunk, wc, chunk); copyd<<<grid, block>>>(wc, y + c * chunk, chunk);
      }
    });
    int nb = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, fused, block, 0);
    int fgrid = nb * sms;
    for (int hint = 0; hint < 2; hint++) {
      snprintf(name, sizeof name, "persistent grid.sync %zu MB%s", mb, hint ? " +cs" : "");
      size_t nn = n, cc = chunk; int hh = hint;
      void *args[] = {&x, &w, &y, &nn, &cc, &hh};
      timeit(name, [&] { cudaLaunchCooperativeKernel((void *)fused, fgrid, block, args, 0, 0); });
    }
  }
  return 0;
}
