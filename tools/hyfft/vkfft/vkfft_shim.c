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

/* ---- real-to-real: VkFFT's own DCT/DST ---------------------------------------
 * performDCT = 1..4 (DCT-I..IV) or performDST = 1..4 (DST-I..IV) on every
 * axis, run forward: FFTW's REDFT00..11 / RODFT00..11 with FFTW's
 * normalisation (VkFFT's precision samples compare them to FFTW's r2r
 * unscaled). Real data, contiguous row major, batched; out of place as
 * isInputFormatted (inputBuffer = in, buffer = out) or in place. */
int hyvk_plan_create_r2r(int rank, const long long *n, long long batch, int dct, int dst, int f64,
                         int inplace, void *din, void *dout, void *stream, int ordinal,
                         void **handle, char *err, size_t errlen) {
  if (rank < 1 || rank > 3 || batch < 1 || (dct < 1 && dst < 1) || dct > 4 || dst > 4) {
    snprintf(err, errlen, "VkFFT peer: rank 1..3, a positive batch and one DCT/DST type 1..4");
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
  long long count = 1;
  for (int d = 0; d < rank; d++) {
    c.size[d] = (pfUINT)n[rank - 1 - d];
    count *= n[d];
  }
  c.numberBatches = (pfUINT)batch;
  c.doublePrecision = f64 ? 1 : 0;
  if (dct > 0) c.performDCT = (pfUINT)dct;
  else c.performDST = (pfUINT)dst;
  c.device = &p->device;
  c.stream = &p->stream;
  c.num_streams = 1;
  p->inverse = -1;
  p->size_out = p->size_in = (uint64_t)count * (uint64_t)batch * (f64 ? 8u : 4u);
  p->buffer = dout;
  c.buffer = &p->buffer;
  c.bufferSize = &p->size_out;
  if (!inplace) {
    p->input = din;
    c.isInputFormatted = 1;
    c.inputBuffer = &p->input;
    c.inputBufferSize = &p->size_in;
  }
  VkFFTResult r = initializeVkFFT(&p->app, c);
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  if (r != VKFFT_SUCCESS) {
    snprintf(err, errlen, "VkFFT's initializeVkFFT (%s-%d) failed: %s (%d)",
             dct > 0 ? "DCT" : "DST", dct > 0 ? dct : dst, getVkFFTErrorString(r), (int)r);
    cuDevicePrimaryCtxRelease(ordinal);
    free(p);
    return -1;
  }
  *handle = p;
  return 0;
}

/* ---- convolutions: VkFFT's performConvolution ---------------------------------
 * hyfft's conv:KIND:PREC:SHAPE:bB:kK (contiguous, unwindowed, scale 1):
 * out[b][k] = IFFT(FFT(in[b]) . FFT(h[k])) / N. The K kernels are
 * transformed once by a kernelConvolution application (numberBatches K, in
 * place in VkFFT's layout: R2C rows padded to n/2+1 complex); the
 * convolution application (performConvolution, numberKernels K,
 * coordinateFeatures 1, normalize 1, numberBatches 1) reads one signal
 * from the input (isInputFormatted) and writes its K results into the
 * peer's output buffer in VkFFT's layout (R2C rows padded as above); one
 * append per signal, at offsets given at launch (VkFFT 1.3.4 has no
 * batch-of-signals times K-kernels mode). */
typedef struct hyvk_conv {
  VkFFTApplication app, kapp;
  int have_app, have_kapp;
  CUdevice device;
  CUcontext ctx;
  CUstream stream;
  int ordinal, real, f64, rank;
  long long batch, kernels, n[3], rows, nlast, padded_row; /* padded_row in reals (R2C) */
  uint64_t in_bytes, in_signal, out_bytes, out_signal, ker_bytes;
  CUdeviceptr kbuf, obuf;
  void *kptr, *optr, *iptr;
} hyvk_conv;

void hyvk_conv_destroy(void *handle) {
  hyvk_conv *v = handle;
  if (!v) return;
  cuCtxPushCurrent(v->ctx);
  if (v->stream) cuStreamSynchronize(v->stream);
  if (v->have_app) deleteVkFFT(&v->app);
  if (v->have_kapp) deleteVkFFT(&v->kapp);
  if (v->kbuf) cuMemFree(v->kbuf);
  if (v->obuf) cuMemFree(v->obuf);
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  cuDevicePrimaryCtxRelease(v->ordinal);
  free(v);
}

/* host_kernels: K spatial kernels, each n reals (real) or n complex
 * (interleaved), contiguous row major; din: the B signals, contiguous. */
int hyvk_conv_create(int rank, const long long *n, long long batch, long long kernels, int real,
                     int f64, const void *host_kernels, void *din, void *stream, int ordinal,
                     void **handle, char *err, size_t errlen) {
  if (rank < 1 || rank > 3 || batch < 1 || kernels < 1) {
    snprintf(err, errlen, "VkFFT conv: rank 1..3, positive batch and kernel count");
    return -1;
  }
  hyvk_conv *v = calloc(1, sizeof *v);
  if (!v) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  v->ordinal = ordinal;
  v->stream = (CUstream)stream;
  v->real = real;
  v->f64 = f64;
  v->rank = rank;
  v->batch = batch;
  v->kernels = kernels;
  if (cuDeviceGet(&v->device, ordinal) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&v->ctx, v->device) != CUDA_SUCCESS) {
    snprintf(err, errlen, "VkFFT conv: cannot get CUDA device %d", ordinal);
    free(v);
    return -1;
  }
  cuCtxPushCurrent(v->ctx);
  size_t rs = f64 ? 8 : 4;
  long long total = 1;
  for (int d = 0; d < rank; d++) {
    v->n[d] = n[d];
    total *= n[d];
  }
  v->nlast = n[rank - 1];
  v->rows = total / v->nlast;
  /* Reals per row of VkFFT's layout: R2C rows hold n/2+1 complex. */
  v->padded_row = real ? 2 * (v->nlast / 2 + 1) : 2 * v->nlast;
  uint64_t sig_layout = (uint64_t)(v->rows * v->padded_row) * rs; /* one signal, VkFFT layout */
  v->in_signal = (uint64_t)total * (real ? rs : 2 * rs);
  v->in_bytes = v->in_signal * (uint64_t)batch;
  v->out_signal = sig_layout * (uint64_t)kernels;
  v->out_bytes = v->out_signal * (uint64_t)batch;
  v->ker_bytes = sig_layout * (uint64_t)kernels;
  char *hk = malloc((size_t)v->ker_bytes);
  int rc = -1;
  VkFFTResult r = VKFFT_SUCCESS;
  if (!hk || cuMemAlloc(&v->kbuf, (size_t)v->ker_bytes) != CUDA_SUCCESS ||
      cuMemAlloc(&v->obuf, (size_t)v->out_bytes) != CUDA_SUCCESS) {
    snprintf(err, errlen, "VkFFT conv: cannot allocate the kernel and output buffers");
    goto done;
  }
  /* The kernels in VkFFT's layout. */
  memset(hk, 0, (size_t)v->ker_bytes);
  size_t row_in = (size_t)v->nlast * (real ? rs : 2 * rs), row_out = (size_t)v->padded_row * rs;
  for (long long k = 0; k < kernels; k++)
    for (long long row = 0; row < v->rows; row++)
      memcpy(hk + (size_t)(k * v->rows + row) * row_out,
             (const char *)host_kernels + (size_t)(k * v->rows + row) * row_in, row_in);
  if (cuMemcpyHtoD(v->kbuf, hk, (size_t)v->ker_bytes) != CUDA_SUCCESS) {
    snprintf(err, errlen, "VkFFT conv: cannot upload the kernels");
    goto done;
  }
  VkFFTConfiguration c;
  memset(&c, 0, sizeof c);
  c.FFTdim = (pfUINT)rank;
  for (int d = 0; d < rank; d++) c.size[d] = (pfUINT)n[rank - 1 - d];
  c.doublePrecision = f64 ? 1 : 0;
  c.performR2C = real ? 1 : 0;
  c.device = &v->device;
  c.stream = &v->stream;
  c.num_streams = 1;
  c.coordinateFeatures = 1;
  /* 1. The kernels' forward transforms, in place. */
  VkFFTConfiguration kc = c;
  kc.kernelConvolution = 1;
  kc.numberBatches = (pfUINT)kernels;
  v->kptr = (void *)(uintptr_t)v->kbuf;
  kc.buffer = &v->kptr;
  kc.bufferSize = &v->ker_bytes;
  r = initializeVkFFT(&v->kapp, kc);
  if (r != VKFFT_SUCCESS) {
    snprintf(err, errlen, "VkFFT conv: initializeVkFFT of the kernel transform failed: %s (%d)",
             getVkFFTErrorString(r), (int)r);
    goto done;
  }
  v->have_kapp = 1;
  VkFFTLaunchParams lp;
  memset(&lp, 0, sizeof lp);
  lp.buffer = &v->kptr;
  r = VkFFTAppend(&v->kapp, -1, &lp);
  if (r != VKFFT_SUCCESS || cuStreamSynchronize(v->stream) != CUDA_SUCCESS) {
    snprintf(err, errlen, "VkFFT conv: the kernel transform failed (VkFFTResult %d)", (int)r);
    goto done;
  }
  /* 2. The convolution: one signal in, K results out per append. */
  VkFFTConfiguration cc = c;
  cc.performConvolution = 1;
  cc.numberKernels = (pfUINT)kernels;
  cc.numberBatches = 1;
  cc.normalize = 1;
  cc.isInputFormatted = 1;
  cc.specifyOffsetsAtLaunch = 1;
  v->iptr = din;
  v->optr = (void *)(uintptr_t)v->obuf;
  cc.inputBuffer = &v->iptr;
  cc.inputBufferSize = &v->in_bytes;
  cc.buffer = &v->optr;
  cc.bufferSize = &v->out_bytes;
  cc.kernel = &v->kptr;
  cc.kernelSize = &v->ker_bytes;
  r = initializeVkFFT(&v->app, cc);
  if (r != VKFFT_SUCCESS) {
    snprintf(err, errlen, "VkFFT conv: initializeVkFFT of the convolution failed: %s (%d)",
             getVkFFTErrorString(r), (int)r);
    goto done;
  }
  v->have_app = 1;
  rc = 0;
done:
  free(hk);
  {
    CUcontext popped;
    cuCtxPopCurrent(&popped);
  }
  if (rc != 0) {
    v->stream = NULL; /* the caller's; nothing of ours queued on it */
    hyvk_conv_destroy(v);
    return -1;
  }
  *handle = v;
  return 0;
}

/* Queue the B convolutions (each one signal times the K kernels) on the
 * stream. */
int hyvk_conv_enqueue(void *handle, void *din) {
  hyvk_conv *v = handle;
  cuCtxPushCurrent(v->ctx);
  VkFFTResult r = VKFFT_SUCCESS;
  for (long long b = 0; b < v->batch && r == VKFFT_SUCCESS; b++) {
    VkFFTLaunchParams lp;
    memset(&lp, 0, sizeof lp);
    void *in = din;
    lp.buffer = &v->optr;
    lp.inputBuffer = &in;
    lp.kernel = &v->kptr;
    lp.bufferOffset = (pfUINT)((uint64_t)b * v->out_signal);
    lp.inputBufferOffset = (pfUINT)((uint64_t)b * v->in_signal);
    lp.kernelOffset = 0;
    r = VkFFTAppend(&v->app, -1, &lp);
  }
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  return r == VKFFT_SUCCESS ? 0 : -1;
}

/* The B x K results in hyfft's layout (contiguous, the padding of R2C rows
 * dropped) into host memory; 0 on success. */
int hyvk_conv_output(void *handle, void *host) {
  hyvk_conv *v = handle;
  size_t rs = v->f64 ? 8 : 4;
  char *all = malloc((size_t)v->out_bytes);
  if (!all) return -1;
  cuCtxPushCurrent(v->ctx);
  int rc = cuStreamSynchronize(v->stream) == CUDA_SUCCESS &&
                   cuMemcpyDtoH(all, v->obuf, (size_t)v->out_bytes) == CUDA_SUCCESS
               ? 0
               : -1;
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  size_t row_in = (size_t)v->padded_row * rs, row_out = (size_t)v->nlast * (v->real ? rs : 2 * rs);
  long long rows = v->batch * v->kernels * v->rows;
  for (long long r = 0; rc == 0 && r < rows; r++)
    memcpy((char *)host + (size_t)r * row_out, all + (size_t)r * row_in, row_out);
  free(all);
  return rc;
}
