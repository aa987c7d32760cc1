// L2 reuse microbenchmark (not part of the build; docs/performance.md cites
// it): how much of a second pass over the data L2 can save on this GPU, with
// plain copies standing in for FFT passes. 512 MiB go x -> w -> y as two
// passes over everything, or in chunks of 8-32 MB (two launches per chunk,
// or one cooperative kernel with a grid barrier per chunk), with and without
// streaming hints on x and y (__ldcs/__stcs) and with the read workspace
// lines discarded (discard.global.L2) so that L2 never writes them back;
// then persistent blocks that take tickets and wait on per-element
// counters with a ring of work slots (src/codegen/cg_persist.c's scheme).
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

// persistent tickets (the scheme of src/codegen/cg_persist.c): elements of
// E float4; A(e) copies x -> w[e % R], B(e) copies w[e % R] -> y, each by
// blocks of PB float4; tickets A(0..L-1), then A(e), B(e-L), ...; B(e)
// waits for A(e)'s blocks, A(e) for B(e-R)'s. ctr: 1 + 2 * nel ints, zeroed.
__global__ void tickets(const float4 *__restrict__ x, float4 *__restrict__ w, float4 *__restrict__ y,
                        int *ctr, int nel, size_t E, int PB, int R, int L) {
  __shared__ int tk_s;
  const int nb = (int)(E / PB), round = 2 * nb, head = L * nb, mid = (nel - L) * round;
  const int total = nel * 2 * nb;
  for (;;) {
    if (threadIdx.x == 0) tk_s = atomicAdd(ctr, 1);
    __syncthreads();
    const int tk = tk_s;
    __syncthreads();
    if (tk >= total) break;
    int ph, e, j;
    if (tk < head) { ph = 0; e = tk / nb; j = tk % nb; }
    else if (tk - head < mid) {
      const int r = (tk - head) / round, o = (tk - head) % round;
      if (o < nb) { ph = 0; e = L + r; j = o; } else { ph = 1; e = r; j = o - nb; }
    } else { const int r = tk - head - mid; ph = 1; e = nel - L + r / nb; j = r % nb; }
    const int wi = ph ? 1 + e : (e >= R ? 1 + nel + e - R : 0), wn = ph || e >= R ? nb : 0;
    if (threadIdx.x == 0) { while (*(volatile int *)(ctr + wi) < wn) __nanosleep(64); __threadfence(); }
    __syncthreads();
    float4 *slot = w + (size_t)(e % R) * E + (size_t)j * PB;
    if (ph == 0) {
      const float4 *a = x + (size_t)e * E + (size_t)j * PB;
      for (int i = threadIdx.x; i < PB; i += blockDim.x) slot[i] = __ldcs(a + i);
    } else {
      float4 *b = y + (size_t)e * E + (size_t)j * PB;
      for (int i = threadIdx.x; i < PB; i += blockDim.x) __stcs(b + i, __ldcg(slot + i));
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(ctr + (ph ? 1 + nel + e : 1 + e), 1);
    __syncthreads();
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
  // Persistent tickets with counters: elements of 512 KB (2^16 f32), 2 MB and
  // 8 MB (2^20 f32); blocks of 64 KB; a ring of about 24 MB, lag half of it.
  int *ctr; CK(cudaMalloc(&ctr, 4 * (1 + 2 * 1024)));
  for (size_t ekb : {512, 2048, 8192}) {
    size_t E = (ekb << 10) / 16; int nel = (int)(n / E), PB = 4096;
    int R = (int)((24u << 20) / (ekb << 10)); if (R < 2) R = 2;
    for (int L : {1, R / 2 > 1 ? R / 2 : 1}) {
      int nb = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, tickets, block, 0);
      char name[80];
      snprintf(name, sizeof name, "tickets %zu KB elements, ring %d, lag %d", ekb, R, L);
      timeit(name, [&] {
        cudaMemsetAsync(ctr, 0, 4 * (1 + 2 * nel));
        tickets<<<nb * sms, block>>>(x, w, y, ctr, nel, E, PB, R, L);
      });
    }
  }
  return 0;
}
