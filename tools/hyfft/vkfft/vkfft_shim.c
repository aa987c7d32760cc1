/* VkFFT (CUDA backend) behind a small C interface, built into
 * libhyfft_vkfft_peer.so only where the VkFFT headers are given
 * (-DHYFFT_VKFFT_DIR=folder of vkFFT.h) and the CUDA toolkit is found; the
 * `vkfft` peer of hyfft bench (peer_vkfft.c) loads it with dlopen, so that
 * neither VkFFT nor the CUDA toolkit is a build dependency of the tool.
 *
 * One plan is one VkFFTApplication for one problem and direction, on
 * contiguous row-major data (FFTW's layouts, the complex side of real
 * transforms n/2+1 long), batched, out of place or (C2C) in place, run on
 * the caller's stream in the primary context of the buffers' device:
 *
 *   C2C forward: isInputFormatted, inputBuffer = in, buffer = out;
 *   C2C backward and C2R: isInputFormatted with inverseReturnToInputBuffer,
 *     inputBuffer = out, buffer = in (VkFFT may use `in` as scratch);
 *   R2C: isInputFormatted, inputBuffer = the real input, buffer = out;
 *   C2C in place: buffer = the one buffer. */
#define VKFFT_BACKEND 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkFFT.h"

typedef struct hyvk_plan {
  VkFFTApplication app;
  CUdevice device;
  CUcontext ctx;
  CUstream stream;
  int ordinal;
  int inverse; /* VkFFTAppend's direction: -1 forward, 1 inverse */
  int swap;    /* buffer = in, inputBuffer = out (backward out of place) */
  int inplace;
  uint64_t size_in, size_out;
  /* The buffers the configuration points at (VkFFT keeps the pointers). */
  void *buffer, *input;
} hyvk_plan;

unsigned hyvk_version(void) { return (unsigned)VkFFTGetVersion(); }

void hyvk_destroy(void *handle) {
  hyvk_plan *p = handle;
  if (!p) return;
  cuCtxPushCurrent(p->ctx);
  deleteVkFFT(&p->app);
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  cuDevicePrimaryCtxRelease(p->ordinal);
  free(p);
}

/* kind: 0 C2C, 1 R2C, 2 C2R; n slowest first; sign -1 forward, +1
 * backward. Returns 0 and *handle, or -1 with a reason in err. */
int hyvk_plan_create(int rank, const long long *n, long long batch, int kind, int f64, int sign,
                     int inplace, void *din, void *dout, void *stream, int ordinal,
                     void **handle, char *err, size_t errlen) {
  if (rank < 1 || rank > 3 || batch < 1) {
    snprintf(err, errlen, "VkFFT peer: rank 1..3 and a positive batch only");
    return -1;
  }
  if (kind != 0 && inplace) {
    snprintf(err, errlen, "VkFFT peer: real transforms out of place only");
    return -1;
  }
  hyvk_plan *p = calloc(1, sizeof *p);
  if (!p) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  p->ordinal = ordinal;
  p->stream = (CUstream)stream;
  p->inplace = inplace;
  if (cuDeviceGet(&p->device, ordinal) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&p->ctx, p->device) != CUDA_SUCCESS) {
    snprintf(err, errlen, "VkFFT peer: cannot get CUDA device %d", ordinal);
    free(p);
    return -1;
  }
  cuCtxPushCurrent(p->ctx);
  VkFFTConfiguration c;
  memset(&c, 0, sizeof c);
  c.FFTdim = (pfUINT)rank;
  long long complex_last = kind == 0 ? n[rank - 1] : n[rank - 1] / 2 + 1;
  long long real_count = 1, complex_count = 1;
  for (int d = 0; d < rank; d++) {
    c.size[d] = (pfUINT)n[rank - 1 - d]; /* VkFFT lists the fastest axis first */
    real_count *= n[d];
    complex_count *= d == rank - 1 ? complex_last : n[d];
  }
  c.numberBatches = (pfUINT)batch;
  c.doublePrecision = f64 ? 1 : 0;
  c.performR2C = kind != 0;
  c.device = &p->device;
  c.stream = &p->stream;
  c.num_streams = 1;
  uint64_t elem = f64 ? 16 : 8, relem = f64 ? 8 : 4;
  uint64_t complex_bytes = (uint64_t)complex_count * (uint64_t)batch * elem;
  uint64_t real_bytes = (uint64_t)real_count * (uint64_t)batch * (kind == 0 ? elem : relem);
  p->inverse = sign < 0 ? -1 : 1;
  if (inplace) {
    p->size_out = complex_bytes;
    p->buffer = dout;
    c.buffer = &p->buffer;
    c.bufferSize = &p->size_out;
  } else {
    /* buffer: the complex side VkFFT computes in; inputBuffer: the other. */
    p->swap = sign > 0;
    p->size_out = complex_bytes;
    p->size_in = real_bytes;
    p->buffer = p->swap ? din : dout;
    p->input = p->swap ? dout : din;
    c.isInputFormatted = 1;
    c.inverseReturnToInputBuffer = p->swap;
    c.buffer = &p->buffer;
    c.bufferSize = &p->size_out;
    c.inputBuffer = &p->input;
    c.inputBufferSize = &p->size_in;
  }
  VkFFTResult r = initializeVkFFT(&p->app, c);
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  if (r != VKFFT_SUCCESS) {
    snprintf(err, errlen, "VkFFT's initializeVkFFT failed with VkFFTResult %d", (int)r);
    cuDevicePrimaryCtxRelease(ordinal);
    free(p);
    return -1;
  }
  *handle = p;
  return 0;
}

/* Queue one execution on the plan's stream. */
int hyvk_enqueue(void *handle, void *din, void *dout) {
  hyvk_plan *p = handle;
  VkFFTLaunchParams lp;
  memset(&lp, 0, sizeof lp);
  void *buffer = p->inplace ? dout : p->swap ? din : dout;
  void *input = p->swap ? dout : din;
  lp.buffer = &buffer;
  if (!p->inplace) lp.inputBuffer = &input;
  cuCtxPushCurrent(p->ctx);
  VkFFTResult r = VkFFTAppend(&p->app, p->inverse, &lp);
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  return r == VKFFT_SUCCESS ? 0 : -1;
}
