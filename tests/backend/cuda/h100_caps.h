/* The planner's view of an NVIDIA H100 (sm_90), for tests that generate and
 * compile CUDA kernels without a GPU. The numbers are what the CUDA backend
 * reports on that card (docs/cuda.md). */
#ifndef HY_TEST_H100_CAPS_H
#define HY_TEST_H100_CAPS_H

#include <string.h>

#include "backend/backend.h"

static inline hy_device_caps hy_h100_caps(void) {
  hy_device_caps c;
  memset(&c, 0, sizeof c);
  c.backend = HYFFT_BACKEND_CUDA;
  c.compute_units = 132;
  c.local_memory = 227 * 1024;
  c.unit_local_memory = 228 * 1024;
  c.max_work_group = 1024;
  c.min_full_block = 64; /* 2048 threads, 32 blocks per SM */
  c.warp_size = 32;
  c.l2_cache = 50 * 1024 * 1024;
  c.global_memory = (int64_t)80 << 30;
  c.bandwidth = 3.0e12;
  c.launch_overhead = 4e-6;
  c.flop_rate = 6.0e13;
  c.supports_f64 = 1;
  c.supports_half = 1;
  c.max_pass_length[HYFFT_F32] = 16384; /* 227 KB of complex f32, a power of two */
  c.max_pass_length[HYFFT_F64] = 8192;
  return c;
}

#endif /* HY_TEST_H100_CAPS_H */
