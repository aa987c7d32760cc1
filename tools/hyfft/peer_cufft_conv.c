/* cuFFT's convolution, the peer of `hyfft bench --vs cufft` for
 * convolution tokens (conv.c): what a cuFFT user writes for
 * hyfft_plan_convolution, in three steps on one stream:
 *
 *   1. cuFFT forward of the B signals (R2C or C2C, batch B) into T;
 *   2. a pointwise kernel: U[b][k][s] = T[b][s] * H[k][s] / N (one thread
 *      per element of the B x K spectra; compiled here with NVRTC to PTX,
 *      loaded with cuModuleLoadData);
 *   3. cuFFT inverse of the B x K spectra (C2R or C2C, batch B x K) into
 *      the output.
 *
 * Contiguous layouts, no window (padding and cropping are not part of
 * this peer). Timed with CUDA events around the three, like the cufft
 * peer (cli_cuda_time_loop). Built with the tool everywhere (the driver,
 * cuFFT and NVRTC are loaded with dlopen) and usable only on a CUDA
 * context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conv.h"
#include "peer_cuda.h"

#define CLI_CUFFT_R2C 0x2a
#define CLI_CUFFT_C2R 0x2c
#define CLI_CUFFT_C2C 0x29
#define CLI_CUFFT_D2Z 0x6a
#define CLI_CUFFT_Z2D 0x6c
#define CLI_CUFFT_Z2Z 0x69
#define CLI_CUFFT_INVERSE 1

/* The pointwise kernel, one thread per element of the B x K spectra
 * (grid-stride), T the real type. */
static const char cli_cv_source[] =
    "template <typename T> struct cplx { T x, y; };\n"
    "template <typename T>\n"
    "__device__ void conv_mul(const cplx<T> *t, const cplx<T> *h, cplx<T> *u, long long s,\n"
    "                         long long k, long long total, T scale) {\n"
    "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;\n"
    "       i += (long long)gridDim.x * blockDim.x) {\n"
    "    long long j = i % s, e = i / s;\n"
    "    cplx<T> a = t[(e / k) * s + j], b = h[(e % k) * s + j], r;\n"
    "    r.x = (a.x * b.x - a.y * b.y) * scale;\n"
    "    r.y = (a.x * b.y + a.y * b.x) * scale;\n"
    "    u[i] = r;\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void conv_mul_f32(const cplx<float> *t, const cplx<float> *h,\n"
    "    cplx<float> *u, long long s, long long k, long long total, float scale) {\n"
    "  conv_mul(t, h, u, s, k, total, scale);\n"
    "}\n"
    "extern \"C\" __global__ void conv_mul_f64(const cplx<double> *t, const cplx<double> *h,\n"
    "    cplx<double> *u, long long s, long long k, long long total, double scale) {\n"
    "  conv_mul(t, h, u, s, k, total, scale);\n"
    "}\n";

typedef struct cli_cv_state {
  int f64, real;
  long long s, k, total;
  double scale;
  int fwd, inv; /* cuFFT plans, -1 when not made */
  cli_cu_ptr t, u, h;
  cli_cu_module module;
  cli_cu_function fn;
  cli_cu_stream stream;
} cli_cv_state;

static int cli_cv_enqueue(void *arg, void *in, void *out) {
  cli_cv_state *c = arg;
  void *t = (void *)(uintptr_t)c->t, *u = (void *)(uintptr_t)c->u;
  int r = c->real ? (c->f64 ? cli_cufft.exec_d2z(c->fwd, in, t) : cli_cufft.exec_r2c(c->fwd, in, t))
                  : (c->f64 ? cli_cufft.exec_z2z(c->fwd, in, t, -1)
                            : cli_cufft.exec_c2c(c->fwd, in, t, -1));
  if (r == 0) {
    float s32 = (float)c->scale;
    double s64 = c->scale;
    void *params[] = {&c->t, &c->h, &c->u, &c->s, &c->k, &c->total,
                      c->f64 ? (void *)&s64 : (void *)&s32};
    long long blocks = (c->total + 255) / 256;
    if (blocks > 65535LL * 16) blocks = 65535LL * 16;
    r = cli_rtc.launch(c->fn, (unsigned)blocks, 1, 1, 256, 1, 1, 0, c->stream, params, NULL);
  }
  if (r == 0)
    r = c->real ? (c->f64 ? cli_cufft.exec_z2d(c->inv, u, out) : cli_cufft.exec_c2r(c->inv, u, out))
                : (c->f64 ? cli_cufft.exec_z2z(c->inv, u, out, CLI_CUFFT_INVERSE)
                          : cli_cufft.exec_c2c(c->inv, u, out, CLI_CUFFT_INVERSE));
  return r == 0 ? 0 : -1;
}

int cli_cufft_conv_time(const hyfft_problem *p, int64_t filters, const void *host_in,
                        size_t in_bytes, const void *spectra, size_t spectra_bytes, int warmup,
                        int runs, double *median, void *host_out, char *err, size_t errlen) {
  if (cli_cu_rtc_load(err, errlen) != 0) return -1;
  if (cli_cuda_ordinal < 0) {
    snprintf(err, errlen, "not a CUDA context");
    return -1;
  }
  cli_cv_state c;
  memset(&c, 0, sizeof c);
  c.fwd = c.inv = -1;
  c.f64 = p->precision == HYFFT_F64;
  c.real = p->kind == HYFFT_R2C;
  long long n[3], batch = 1, nt = 1, st = 1;
  for (int d = 0; d < p->rank; d++) {
    n[d] = p->dims[d].n;
    nt *= n[d];
    st *= d == p->rank - 1 && c.real ? n[d] / 2 + 1 : n[d];
  }
  for (int d = 0; d < p->batch_rank; d++) batch *= p->batch[d].n;
  c.s = st;
  c.k = filters;
  c.total = batch * filters * st;
  c.scale = (p->scale != 0 ? p->scale : 1.0) / (double)nt;
  size_t es = c.f64 ? 16 : 8, rs = c.real ? es / 2 : es;
  size_t out_bytes = (size_t)(batch * filters * nt) * rs;
  cli_cu_context ctx;
  if (cli_cu.primary_retain(&ctx, cli_cuda_ordinal) != 0) {
    snprintf(err, errlen, "cuDevicePrimaryCtxRetain failed");
    return -1;
  }
  cli_cu.push(ctx);
  cli_cu_ptr din = 0, dout = 0;
  cli_cu_event e0 = NULL, e1 = NULL;
  char *ptx = cli_cu_rtc_ptx(cli_cv_source, "conv_mul.cu", err, errlen);
  int rc = -1;
  size_t work;
  int ftype = c.real ? (c.f64 ? CLI_CUFFT_D2Z : CLI_CUFFT_R2C) : (c.f64 ? CLI_CUFFT_Z2Z : CLI_CUFFT_C2C);
  int itype = c.real ? (c.f64 ? CLI_CUFFT_Z2D : CLI_CUFFT_C2R) : (c.f64 ? CLI_CUFFT_Z2Z : CLI_CUFFT_C2C);
  if (!ptx) {
    /* err says why */
  } else if (cli_cu.stream_create(&c.stream, 0) != 0 || cli_cu.event_create(&e0, 0) != 0 ||
             cli_cu.event_create(&e1, 0) != 0) {
    snprintf(err, errlen, "cannot create a CUDA stream or events");
  } else if (cli_rtc.module_load(&c.module, ptx) != 0 ||
             cli_rtc.module_function(&c.fn, c.module, c.f64 ? "conv_mul_f64" : "conv_mul_f32")) {
    snprintf(err, errlen, "cannot load the pointwise kernel's PTX");
  } else if (cli_cu.mem_alloc(&din, in_bytes) != 0 || cli_cu.mem_alloc(&dout, out_bytes) != 0 ||
             cli_cu.mem_alloc(&c.t, (size_t)(batch * st) * es) != 0 ||
             cli_cu.mem_alloc(&c.u, (size_t)c.total * es) != 0 ||
             cli_cu.mem_alloc(&c.h, spectra_bytes) != 0 ||
             cli_cu.memcpy_htod(din, host_in, in_bytes) != 0 ||
             cli_cu.memcpy_htod(c.h, spectra, spectra_bytes) != 0) {
    snprintf(err, errlen, "cannot allocate or fill the device buffers");
  } else if (cli_cufft.create(&c.fwd) != 0 || cli_cufft.create(&c.inv) != 0 ||
             cli_cufft.make_many64(c.fwd, p->rank, n, NULL, 1, 0, NULL, 1, 0, ftype, batch,
                                   &work) != 0 ||
             cli_cufft.make_many64(c.inv, p->rank, n, NULL, 1, 0, NULL, 1, 0, itype,
                                   batch * filters, &work) != 0 ||
             cli_cufft.set_stream(c.fwd, c.stream) != 0 ||
             cli_cufft.set_stream(c.inv, c.stream) != 0) {
    snprintf(err, errlen, "cannot make the cuFFT plans");
  } else {
    rc = cli_cuda_time_loop(ctx, c.stream, e0, e1, cli_cv_enqueue, &c,
                            (void *)(uintptr_t)din, (void *)(uintptr_t)dout, warmup, runs,
                            median);
    if (rc != 0) {
      snprintf(err, errlen, "a cuFFT convolution failed");
    } else if (host_out && (cli_cu.stream_sync(c.stream) != 0 ||
                            cli_cu.memcpy_dtoh(host_out, dout, out_bytes) != 0)) {
      snprintf(err, errlen, "cannot read cuFFT's convolution back");
      rc = -1;
    }
  }
  if (c.stream) cli_cu.stream_sync(c.stream);
  if (c.fwd >= 0) cli_cufft.destroy(c.fwd);
  if (c.inv >= 0) cli_cufft.destroy(c.inv);
  cli_cu_ptr bufs[5] = {din, dout, c.t, c.u, c.h};
  for (int i = 0; i < 5; i++)
    if (bufs[i]) cli_cu.mem_free(bufs[i]);
  if (c.module) cli_rtc.module_unload(c.module);
  if (e0) cli_cu.event_destroy(e0);
  if (e1) cli_cu.event_destroy(e1);
  if (c.stream) cli_cu.stream_destroy(c.stream);
  free(ptx);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(cli_cuda_ordinal);
  return rc;
}
