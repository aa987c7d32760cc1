/* The cuFFT peer on R2R problems (`hyfft bench --vs cufft` with an r2r
 * token): the route a cuFFT user writes for a DCT, since cuFFT has none.
 * Makhoul's algorithm over every axis at once, three launches on one
 * stream (cufft_r2r_kernels.cuh holds the element functions):
 *
 *   DCT-II (REDFT10 on every axis):
 *     1. reorder kernel: v = x with evens ascending then odds descending
 *        along each axis (one gather, one write);
 *     2. cuFFT R2C (D2Z) of rank d, batched, v -> V (half spectrum);
 *     3. twiddle kernel: Y(k) = 2 sum_s Re(w prod w^s V(..)), reading
 *        2^(d-1) entries of V per output (Hermitian symmetry for the other
 *        half).
 *   DCT-III (REDFT01 on every axis), its inverse:
 *     1. twiddle kernel: U = conj(w...) sum_R (-i)^|R| X(reflected), the
 *        half spectrum, reading 2^d inputs per entry;
 *     2. cuFFT C2R (Z2D) of rank d, batched, U -> u;
 *     3. reorder kernel: y_j = u_pos(j) along each axis.
 *
 * FFTW's normalisation (no scaling; DCT-III(DCT-II(x)) = 2n x per axis).
 * The kernels are compiled with NVRTC when the peer plans (not timed) and
 * the three launches are timed together with CUDA events. Contiguous
 * row-major layouts (batched), out of place or in place; the two
 * workspaces (the reordered reals and the half spectrum) are the peer's
 * own. Other kinds, mixed kinds and strided layouts: the peer says it
 * does not support them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cufft_r2r_src.h"
#include "peer.h"
#include "peer_cuda.h"

#define CLI_CUFFT_R2C 0x2a
#define CLI_CUFFT_C2R 0x2c
#define CLI_CUFFT_D2Z 0x6a
#define CLI_CUFFT_Z2D 0x6c

typedef struct cli_r2r_state {
  int f64, dct3, d;
  long long n0, n1, n2, batch;
  long long total_real, total_half; /* elements of the batched arrays */
  int plan;
  cli_cu_ptr ws_real, ws_half, tw; /* workspaces; the twiddle table */
  cli_cu_module module;
  cli_cu_function pre, post;
  int device;
  cli_cu_context ctx;
  cli_cu_stream stream;
  cli_cu_event start, stop;
} cli_r2r_state;

void cli_cufft_r2r_destroy(void *state) {
  cli_r2r_state *s = state;
  if (!s) return;
  cli_cu.push(s->ctx);
  if (s->stream) cli_cu.stream_sync(s->stream);
  if (s->plan >= 0) cli_cufft.destroy(s->plan);
  if (s->ws_real) cli_cu.mem_free(s->ws_real);
  if (s->ws_half) cli_cu.mem_free(s->ws_half);
  if (s->tw) cli_cu.mem_free(s->tw);
  if (s->module) cli_rtc.module_unload(s->module);
  if (s->start) cli_cu.event_destroy(s->start);
  if (s->stop) cli_cu.event_destroy(s->stop);
  if (s->stream) cli_cu.stream_destroy(s->stream);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(s->device);
  free(s);
}

static const char *cli_r2r_kind_name(hyfft_r2r_kind k) {
  static const char *const names[] = {"none", "dct1", "dct2", "dct3", "dct4", "dst1",
                                      "dst2", "dst3", "dst4", "dht"};
  int i = (int)k;
  return i >= 0 && i <= (int)HYFFT_DHT ? names[i] : "?";
}

/* Contiguous row major on both sides, batch dims stacked: the batch count. */
static int cli_r2r_contiguous(const hyfft_problem *p, long long *batch) {
  long long in_step = 1, out_step = 1;
  for (int d = p->rank - 1; d >= 0; d--) {
    if (p->dims[d].n != 1 &&
        (p->dims[d].in_stride != in_step || p->dims[d].out_stride != out_step))
      return 0;
    in_step *= p->dims[d].n;
    out_step *= p->dims[d].n;
  }
  *batch = 1;
  for (int b = p->batch_rank - 1; b >= 0; b--) {
    if (p->batch[b].n == 1) continue;
    if (p->batch[b].in_stride != in_step || p->batch[b].out_stride != out_step) return 0;
    in_step *= p->batch[b].n;
    out_step *= p->batch[b].n;
    *batch *= p->batch[b].n;
  }
  return 1;
}

int cli_cufft_r2r_plan(const hyfft_problem *p, void *in, void *out, void **state, char *err,
                       size_t errlen) {
  (void)out;
  if (cli_cu_rtc_load(err, errlen) != 0) return -1;
  hyfft_r2r_kind k0 = p->r2r_kind[0];
  for (int d = 0; d < p->rank; d++) {
    if (p->r2r_kind[d] != k0 || (k0 != HYFFT_REDFT10 && k0 != HYFFT_REDFT01)) {
      snprintf(err, errlen, "peer does not support %s along dim %d: the cuFFT route runs DCT-II "
               "or DCT-III, the same kind on every axis", cli_r2r_kind_name(p->r2r_kind[d]), d);
      return -1;
    }
  }
  if (p->precision != HYFFT_F32 && p->precision != HYFFT_F64) {
    snprintf(err, errlen, "peer does not support this precision (f32 and f64 only)");
    return -1;
  }
  if (p->scale != 0 && p->scale != 1) {
    snprintf(err, errlen, "peer does not support scaling (scale %g)", p->scale);
    return -1;
  }
  long long batch = 1;
  if (p->rank < 1 || p->rank > 3 || !cli_r2r_contiguous(p, &batch)) {
    snprintf(err, errlen, "peer does not support this layout: the cuFFT route takes "
             "contiguous row-major data of rank 1..3");
    return -1;
  }
  cli_r2r_state *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  s->plan = -1;
  s->f64 = p->precision == HYFFT_F64;
  s->dct3 = k0 == HYFFT_REDFT01;
  s->d = p->rank;
  long long n[3] = {1, 1, 1};
  for (int d = 0; d < p->rank; d++) n[3 - p->rank + d] = p->dims[d].n;
  s->n0 = n[0];
  s->n1 = n[1];
  s->n2 = n[2];
  s->batch = batch;
  s->total_real = batch * n[0] * n[1] * n[2];
  s->total_half = batch * n[0] * n[1] * (n[2] / 2 + 1);
  if (cli_cu.pointer_attr(&s->device, CLI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                          (cli_cu_ptr)(uintptr_t)in) != 0 ||
      cli_cu.primary_retain(&s->ctx, s->device) != 0) {
    snprintf(err, errlen, "the input is not a CUDA device pointer");
    free(s);
    return -1;
  }
  cli_cu.push(s->ctx);
  size_t rs = s->f64 ? 8 : 4, work = 0;
  long long fn[3];
  for (int d = 0; d < p->rank; d++) fn[d] = p->dims[d].n;
  int type = s->dct3 ? (s->f64 ? CLI_CUFFT_Z2D : CLI_CUFFT_C2R)
                     : (s->f64 ? CLI_CUFFT_D2Z : CLI_CUFFT_R2C);
  /* 32-bit indices where every index (interleaved reals included) and the
   * grid stride stay below 2^31. */
  int idx64 = 2 * s->total_half + 2 > ((long long)1 << 30) || s->total_real > ((long long)1 << 30);
  char *src = cli_r2r_route_source(s->f64, n[0], n[1], n[2], s->d, idx64);
  size_t ntw = (size_t)(n[0] + n[1] + n[2]) * 2;
  double *tw = malloc(ntw * sizeof *tw);
  float *tw32 = s->f64 ? NULL : malloc(ntw * sizeof *tw32);
  if (tw) cli_r2r_twiddles(n[0], n[1], n[2], tw);
  if (tw && tw32)
    for (size_t i = 0; i < ntw; i++) tw32[i] = (float)tw[i];
  const void *tw_host = !tw ? NULL : s->f64 ? (const void *)tw : (const void *)tw32;
  char *ptx = src ? cli_cu_rtc_ptx(src, "hyfft_dct_route.cu", err, errlen) : NULL;
  int rc = -1;
  if (!src || !tw_host) {
    snprintf(err, errlen, "out of memory");
  } else if (!ptx) {
    /* err says why */
  } else if (cli_rtc.module_load(&s->module, ptx) != 0 ||
             cli_rtc.module_function(&s->pre, s->module, cli_r2r_kernel_names[s->dct3 ? 2 : 0]) ||
             cli_rtc.module_function(&s->post, s->module, cli_r2r_kernel_names[s->dct3 ? 3 : 1])) {
    snprintf(err, errlen, "cannot load the route's kernels from their PTX");
  } else if (cli_cu.stream_create(&s->stream, 0) != 0 || cli_cu.event_create(&s->start, 0) != 0 ||
             cli_cu.event_create(&s->stop, 0) != 0) {
    snprintf(err, errlen, "cannot create a CUDA stream or events");
  } else if (cli_cu.mem_alloc(&s->ws_real, (size_t)s->total_real * rs) != 0 ||
             cli_cu.mem_alloc(&s->ws_half, (size_t)s->total_half * 2 * rs) != 0 ||
             cli_cu.mem_alloc(&s->tw, ntw * rs) != 0 ||
             cli_cu.memcpy_htod(s->tw, tw_host, ntw * rs) != 0) {
    snprintf(err, errlen, "cannot allocate the route's workspaces (%.0f MiB)",
             ((double)s->total_real + 2.0 * (double)s->total_half) * (double)rs / 1048576.0);
  } else if (cli_cufft.create(&s->plan) != 0) {
    snprintf(err, errlen, "cufftCreate failed");
  } else {
    int r = cli_cufft.make_many64(s->plan, p->rank, fn, NULL, 1, 0, NULL, 1, 0, type, batch,
                                  &work);
    if (r != 0)
      snprintf(err, errlen, "cufftMakePlanMany64 (%s) failed with cufftResult %d",
               s->dct3 ? "C2R" : "R2C", r);
    else if (cli_cufft.set_stream(s->plan, s->stream) != 0)
      snprintf(err, errlen, "cufftSetStream failed");
    else
      rc = 0;
  }
  free(src);
  free(ptx);
  free(tw);
  free(tw32);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  if (rc != 0) {
    cli_cufft_r2r_destroy(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int cli_r2r_launch(cli_r2r_state *s, cli_cu_function f, cli_cu_ptr a, cli_cu_ptr b,
                          long long total) {
  unsigned long long count = (unsigned long long)total;
  void *params[] = {&a, &b, &s->tw, &count};
  long long blocks = (total + 255) / 256;
  if (blocks > 65535LL * 32) blocks = 65535LL * 32;
  return cli_rtc.launch(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, s->stream, params, NULL);
}

/* Enqueue the three steps; the context must be current. */
static int cli_r2r_enqueue(void *state, void *in, void *out) {
  cli_r2r_state *s = state;
  cli_cu_ptr din = (cli_cu_ptr)(uintptr_t)in, dout = (cli_cu_ptr)(uintptr_t)out;
  void *wr = (void *)(uintptr_t)s->ws_real, *wh = (void *)(uintptr_t)s->ws_half;
  int r;
  if (!s->dct3) {
    r = cli_r2r_launch(s, s->pre, din, s->ws_real, s->total_real);
    if (r == 0)
      r = s->f64 ? cli_cufft.exec_d2z(s->plan, wr, wh) : cli_cufft.exec_r2c(s->plan, wr, wh);
    if (r == 0) r = cli_r2r_launch(s, s->post, s->ws_half, dout, s->total_real);
  } else {
    r = cli_r2r_launch(s, s->pre, din, s->ws_half, s->total_half);
    if (r == 0)
      r = s->f64 ? cli_cufft.exec_z2d(s->plan, wh, wr) : cli_cufft.exec_c2r(s->plan, wh, wr);
    if (r == 0) r = cli_r2r_launch(s, s->post, s->ws_real, dout, s->total_real);
  }
  return r == 0 ? 0 : -1;
}

int cli_cufft_r2r_run(void *state, void *in, void *out) {
  cli_r2r_state *s = state;
  cli_cu.push(s->ctx);
  int r = cli_r2r_enqueue(s, in, out);
  if (r == 0) r = cli_cu.stream_sync(s->stream) == 0 ? 0 : -1;
  cli_cu_context popped;
  cli_cu.pop(&popped);
  return r;
}

int cli_cufft_r2r_time(void *state, void *in, void *out, int warmup, int runs, double *median) {
  cli_r2r_state *s = state;
  return cli_cuda_time_loop(s->ctx, s->stream, s->start, s->stop, cli_r2r_enqueue, s, in, out,
                            warmup, runs, median);
}
