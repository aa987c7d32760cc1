/* VkFFT as a peer (`hyfft bench --vs vkfft`, CUDA devices): the shim
 * library libhyfft_vkfft_peer.so (tools/hyfft/vkfft/vkfft_shim.c, built
 * where the VkFFT headers are given) loaded with dlopen from
 * $HYFFT_VKFFT_PEER, else next to this executable, else the library path.
 * It runs on the device buffers hyfft uses and is timed by the loop that
 * times cuFFT and hyfft (CUDA events on the peer's own stream). Contiguous
 * row-major layouts only (FFTW's, batched); real transforms out of place.
 * R2R problems run VkFFT's own DCT/DST (performDCT / performDST 1..4, the
 * same kind on every axis; FFTW's normalisation), and convolution tokens
 * VkFFT's performConvolution (cli_vkfft_conv_time, called by conv.c). */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conv.h"
#include "peer.h"
#include "peer_cuda.h"

static struct {
  unsigned (*version)(void);
  int (*plan_create)(int rank, const long long *n, long long batch, int kind, int f64, int sign,
                     int inplace, void *din, void *dout, void *stream, int ordinal,
                     void **handle, char *err, size_t errlen);
  int (*enqueue)(void *handle, void *din, void *dout);
  void (*destroy)(void *handle);
  /* Optional (NULL: a shim built before them): DCT/DST and convolutions. */
  int (*plan_create_r2r)(int rank, const long long *n, long long batch, int dct, int dst, int f64,
                         int inplace, void *din, void *dout, void *stream, int ordinal,
                         void **handle, char *err, size_t errlen);
  int (*conv_create)(int rank, const long long *n, long long batch, long long kernels, int real,
                     int f64, const void *host_kernels, void *din, void *stream, int ordinal,
                     void **handle, char *err, size_t errlen);
  int (*conv_enqueue)(void *handle, void *din);
  int (*conv_output)(void *handle, void *host);
  void (*conv_destroy)(void *handle);
} cli_vk;

static int cli_vkfft_load(char *err, size_t errlen) {
  if (cli_vk.enqueue) return 0;
  if (cli_cu_load(err, errlen) != 0) return -1;
  char beside[PATH_MAX + 64] = "";
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = '\0';
    snprintf(beside, sizeof beside, "%s/vkfft/libhyfft_vkfft_peer.so", dirname(exe));
  }
  const char *env = getenv("HYFFT_VKFFT_PEER");
  const char *names[4];
  int k = 0;
  if (env && *env) names[k++] = env;
  if (beside[0]) names[k++] = beside;
  names[k++] = "libhyfft_vkfft_peer.so";
  names[k] = NULL;
  void *h = cli_dlopen_first(names, NULL);
  if (!h) {
    snprintf(err, errlen, "libhyfft_vkfft_peer.so not found (configure with "
             "-DHYFFT_VKFFT_DIR=<folder of vkFFT.h> on a machine with the CUDA toolkit, or "
             "set HYFFT_VKFFT_PEER)");
    return -1;
  }
  if (!cli_dlsym(h, "hyvk_version", &cli_vk.version) ||
      !cli_dlsym(h, "hyvk_plan_create", &cli_vk.plan_create) ||
      !cli_dlsym(h, "hyvk_destroy", &cli_vk.destroy) ||
      !cli_dlsym(h, "hyvk_enqueue", &cli_vk.enqueue)) {
    snprintf(err, errlen, "libhyfft_vkfft_peer.so lacks the hyvk_ functions");
    cli_vk.enqueue = NULL;
    return -1;
  }
  if (!cli_dlsym(h, "hyvk_plan_create_r2r", &cli_vk.plan_create_r2r))
    cli_vk.plan_create_r2r = NULL;
  if (!cli_dlsym(h, "hyvk_conv_create", &cli_vk.conv_create) ||
      !cli_dlsym(h, "hyvk_conv_enqueue", &cli_vk.conv_enqueue) ||
      !cli_dlsym(h, "hyvk_conv_output", &cli_vk.conv_output) ||
      !cli_dlsym(h, "hyvk_conv_destroy", &cli_vk.conv_destroy))
    cli_vk.conv_create = NULL;
  return 0;
}

/* VkFFT's DCT (1..4) or DST (1..4) type for an FFTW r2r kind, or 0. */
static void cli_vkfft_r2r_type(hyfft_r2r_kind k, int *dct, int *dst) {
  *dct = *dst = 0;
  switch (k) {
  case HYFFT_REDFT00: *dct = 1; break;
  case HYFFT_REDFT10: *dct = 2; break;
  case HYFFT_REDFT01: *dct = 3; break;
  case HYFFT_REDFT11: *dct = 4; break;
  case HYFFT_RODFT00: *dst = 1; break;
  case HYFFT_RODFT10: *dst = 2; break;
  case HYFFT_RODFT01: *dst = 3; break;
  case HYFFT_RODFT11: *dst = 4; break;
  default: break;
  }
}

typedef struct cli_vkfft_state {
  void *plan;
  int device;
  cli_cu_context ctx;
  cli_cu_stream stream;
  cli_cu_event start, stop;
} cli_vkfft_state;

static void cli_vkfft_destroy(void *state) {
  cli_vkfft_state *s = state;
  if (!s) return;
  cli_cu.push(s->ctx);
  if (s->stream) cli_cu.stream_sync(s->stream);
  if (s->plan) cli_vk.destroy(s->plan);
  if (s->start) cli_cu.event_destroy(s->start);
  if (s->stop) cli_cu.event_destroy(s->stop);
  if (s->stream) cli_cu.stream_destroy(s->stream);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(s->device);
  free(s);
}

/* Whether `p` is contiguous row major on both sides with one batch
 * distance of a whole transform: the layouts this peer can describe. */
static int cli_vkfft_contiguous(const hyfft_problem *p, long long *batch) {
  long long in_step = 1, out_step = 1;
  for (int d = p->rank - 1; d >= 0; d--) {
    long long n_in = p->dims[d].n, n_out = p->dims[d].n;
    if (d == p->rank - 1 && p->kind == HYFFT_R2C) n_out = n_out / 2 + 1;
    if (d == p->rank - 1 && p->kind == HYFFT_C2R) n_in = n_in / 2 + 1;
    if (p->dims[d].in_stride != in_step || p->dims[d].out_stride != out_step) return 0;
    in_step *= n_in;
    out_step *= n_out;
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

static int cli_vkfft_plan(const hyfft_problem *p, hyfft_backend_id backend, void *in, void *out,
                          int threads, int rigor, void **state, char *err, size_t errlen) {
  (void)backend;
  (void)threads;
  (void)rigor;
  long long batch = 1;
  if (p->rank < 1 || p->rank > 3) {
    snprintf(err, errlen, "the VkFFT peer takes rank 1..3, not %d", p->rank);
    return -1;
  }
  if (p->scale != 0 && p->scale != 1) {
    snprintf(err, errlen, "the VkFFT peer does not scale (scale %g)", p->scale);
    return -1;
  }
  if (!cli_vkfft_contiguous(p, &batch)) {
    snprintf(err, errlen, "the VkFFT peer takes contiguous row-major layouts only");
    return -1;
  }
  int dct = 0, dst = 0;
  if (p->kind == HYFFT_R2R) {
    if (!cli_vk.plan_create_r2r) {
      snprintf(err, errlen, "peer does not support r2r here: this libhyfft_vkfft_peer.so predates "
               "hyvk_plan_create_r2r (rebuild it)");
      return -1;
    }
    cli_vkfft_r2r_type(p->r2r_kind[0], &dct, &dst);
    for (int d = 1; d < p->rank; d++)
      if (p->r2r_kind[d] != p->r2r_kind[0]) dct = dst = 0;
    if (!dct && !dst) {
      snprintf(err, errlen, "peer does not support this r2r: VkFFT runs DCT-I..IV or DST-I..IV, "
               "the same kind on every axis (no DHT, no mixed kinds)");
      return -1;
    }
  } else if (p->inplace && p->kind != HYFFT_C2C) {
    snprintf(err, errlen, "the VkFFT peer runs real transforms out of place only");
    return -1;
  }
  cli_vkfft_state *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (cli_cu.pointer_attr(&s->device, CLI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                          (cli_cu_ptr)(uintptr_t)in) != 0 ||
      cli_cu.primary_retain(&s->ctx, s->device) != 0) {
    snprintf(err, errlen, "the input is not a CUDA device pointer");
    free(s);
    return -1;
  }
  cli_cu.push(s->ctx);
  int rc = -1;
  if (cli_cu.stream_create(&s->stream, 0) != 0 || cli_cu.event_create(&s->start, 0) != 0 ||
      cli_cu.event_create(&s->stop, 0) != 0) {
    snprintf(err, errlen, "cannot create a CUDA stream or events");
  } else {
    long long n[3];
    for (int d = 0; d < p->rank; d++) n[d] = p->dims[d].n;
    int kind = p->kind == HYFFT_C2C ? 0 : p->kind == HYFFT_R2C ? 1 : 2;
    if (p->kind == HYFFT_R2R)
      rc = cli_vk.plan_create_r2r(p->rank, n, batch, dct, dst, p->precision == HYFFT_F64,
                                  p->inplace, in, out, s->stream, s->device, &s->plan, err,
                                  errlen);
    else
      rc = cli_vk.plan_create(p->rank, n, batch, kind, p->precision == HYFFT_F64, p->sign,
                              p->inplace, in, out, s->stream, s->device, &s->plan, err, errlen);
  }
  cli_cu_context popped;
  cli_cu.pop(&popped);
  if (rc != 0) {
    s->plan = NULL;
    cli_vkfft_destroy(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int cli_vkfft_enqueue(void *state, void *in, void *out) {
  cli_vkfft_state *s = state;
  return cli_vk.enqueue(s->plan, in, out);
}

static int cli_vkfft_run(void *state, void *in, void *out) {
  cli_vkfft_state *s = state;
  cli_cu.push(s->ctx);
  int r = cli_vkfft_enqueue(s, in, out);
  if (r == 0) r = cli_cu.stream_sync(s->stream) == 0 ? 0 : -1;
  cli_cu_context popped;
  cli_cu.pop(&popped);
  return r;
}

static int cli_vkfft_time(void *state, void *in, void *out, int warmup, int runs,
                          double *median) {
  cli_vkfft_state *s = state;
  return cli_cuda_time_loop(s->ctx, s->stream, s->start, s->stop, cli_vkfft_enqueue, s, in, out,
                            warmup, runs, median);
}

/* Backward transforms read their input as VkFFT's work buffer; R2R is
 * taken to as well (not established either way). */
static int cli_vkfft_destroys_input(const hyfft_problem *p) {
  return p->inplace || p->kind == HYFFT_R2R || p->sign > 0;
}

/* VkFFT's convolution (see vkfft_shim.c): conv.c calls this for
 * `--vs vkfft` on a conv token. */
typedef struct cli_vkfft_conv_run {
  void *handle;
} cli_vkfft_conv_run;

static int cli_vkfft_conv_enqueue(void *arg, void *in, void *out) {
  (void)out;
  cli_vkfft_conv_run *r = arg;
  return cli_vk.conv_enqueue(r->handle, in);
}

int cli_vkfft_conv_time(const hyfft_problem *p, int64_t filters, const void *host_in,
                        size_t in_bytes, const void *host_kernels, int warmup, int runs,
                        double *median, void *host_out, char *err, size_t errlen) {
  if (cli_vkfft_load(err, errlen) != 0) return -1;
  if (!cli_vk.conv_create) {
    snprintf(err, errlen, "this libhyfft_vkfft_peer.so predates hyvk_conv_create (rebuild it)");
    return -1;
  }
  if (cli_cuda_ordinal < 0) {
    snprintf(err, errlen, "not a CUDA context");
    return -1;
  }
  if (p->rank < 1 || p->rank > 3) {
    snprintf(err, errlen, "peer does not support rank %d (VkFFT: 1..3)", p->rank);
    return -1;
  }
  if (p->scale != 0 && p->scale != 1) {
    snprintf(err, errlen, "peer does not support scale %g (VkFFT normalises by 1/N only)",
             p->scale);
    return -1;
  }
  long long n[3], batch = 1;
  for (int d = 0; d < p->rank; d++) n[d] = p->dims[d].n;
  for (int d = 0; d < p->batch_rank; d++) batch *= p->batch[d].n;
  cli_cu_context ctx;
  if (cli_cu.primary_retain(&ctx, cli_cuda_ordinal) != 0) {
    snprintf(err, errlen, "cuDevicePrimaryCtxRetain failed");
    return -1;
  }
  cli_cu.push(ctx);
  cli_cu_ptr din = 0;
  cli_cu_stream stream = NULL;
  cli_cu_event e0 = NULL, e1 = NULL;
  cli_vkfft_conv_run r = {NULL};
  int rc = -1;
  if (cli_cu.stream_create(&stream, 0) != 0 || cli_cu.event_create(&e0, 0) != 0 ||
      cli_cu.event_create(&e1, 0) != 0) {
    snprintf(err, errlen, "cannot create a CUDA stream or events");
  } else if (cli_cu.mem_alloc(&din, in_bytes) != 0 ||
             cli_cu.memcpy_htod(din, host_in, in_bytes) != 0) {
    snprintf(err, errlen, "cannot allocate or fill the input");
  } else if (cli_vk.conv_create(p->rank, n, batch, filters, p->kind == HYFFT_R2C,
                                p->precision == HYFFT_F64, host_kernels,
                                (void *)(uintptr_t)din, stream, cli_cuda_ordinal, &r.handle, err,
                                errlen) != 0) {
    r.handle = NULL; /* err says why */
  } else {
    rc = cli_cuda_time_loop(ctx, stream, e0, e1, cli_vkfft_conv_enqueue, &r,
                            (void *)(uintptr_t)din, NULL, warmup, runs, median);
    if (rc != 0) snprintf(err, errlen, "a VkFFT convolution failed");
    else if (host_out && cli_vk.conv_output(r.handle, host_out) != 0) {
      snprintf(err, errlen, "cannot read VkFFT's convolution back");
      rc = -1;
    }
  }
  if (stream) cli_cu.stream_sync(stream);
  if (r.handle) cli_vk.conv_destroy(r.handle);
  if (din) cli_cu.mem_free(din);
  if (e0) cli_cu.event_destroy(e0);
  if (e1) cli_cu.event_destroy(e1);
  if (stream) cli_cu.stream_destroy(stream);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(cli_cuda_ordinal);
  return rc;
}

const cli_peer cli_peer_vkfft = {
    .name = "vkfft",
    .memory = HYFFT_MEMORY_DEVICE,
    .device_backend = HYFFT_BACKEND_CUDA,
    .load = cli_vkfft_load,
    .plan = cli_vkfft_plan,
    .run = cli_vkfft_run,
    .destroys_input = cli_vkfft_destroys_input,
    .destroy = cli_vkfft_destroy,
    .time = cli_vkfft_time,
};
