/* cuFFT as a peer: libcufft (12, 11 or unversioned) through dlopen, planned
 * with cufftMakePlanMany64 on hyfft's own strides and run on the very
 * device buffers hyfft uses (both live in the device's primary context).
 * Timing is done on the device with CUDA events on the peer's own stream,
 * like cli_cuda_time_plan does for hyfft, so the two numbers compare. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "peer.h"
#include "peer_cuda.h"

#define CLI_CUFFT_R2C 0x2a
#define CLI_CUFFT_C2R 0x2c
#define CLI_CUFFT_C2C 0x29
#define CLI_CUFFT_D2Z 0x6a
#define CLI_CUFFT_Z2D 0x6c
#define CLI_CUFFT_Z2Z 0x69

cli_cu_driver cli_cu;
int cli_cuda_ordinal = -1;

cli_cufft_api cli_cufft;

int cli_cu_load(char *err, size_t errlen) {
  if (cli_cu.loaded) return 0;
  static const char *const names[] = {"libcuda.so.1", NULL};
  void *h = cli_dlopen_first(names, NULL);
  if (!h) {
    snprintf(err, errlen, "libcuda.so.1 not found (no NVIDIA driver)");
    return -1;
  }
  int ok = cli_dlsym(h, "cuInit", &cli_cu.init) &&
           cli_dlsym(h, "cuPointerGetAttribute", &cli_cu.pointer_attr) &&
           cli_dlsym(h, "cuDevicePrimaryCtxRetain", &cli_cu.primary_retain) &&
           cli_dlsym(h, "cuDevicePrimaryCtxRelease_v2", &cli_cu.primary_release) &&
           cli_dlsym(h, "cuCtxPushCurrent_v2", &cli_cu.push) &&
           cli_dlsym(h, "cuCtxPopCurrent_v2", &cli_cu.pop) &&
           cli_dlsym(h, "cuStreamCreate", &cli_cu.stream_create) &&
           cli_dlsym(h, "cuStreamDestroy_v2", &cli_cu.stream_destroy) &&
           cli_dlsym(h, "cuStreamSynchronize", &cli_cu.stream_sync) &&
           cli_dlsym(h, "cuEventCreate", &cli_cu.event_create) &&
           cli_dlsym(h, "cuEventDestroy_v2", &cli_cu.event_destroy) &&
           cli_dlsym(h, "cuEventRecord", &cli_cu.event_record) &&
           cli_dlsym(h, "cuEventSynchronize", &cli_cu.event_sync) &&
           cli_dlsym(h, "cuEventElapsedTime", &cli_cu.event_elapsed) &&
           cli_dlsym(h, "cuMemcpyDtoDAsync_v2", &cli_cu.memcpy_dtod_async) &&
           cli_dlsym(h, "cuMemAlloc_v2", &cli_cu.mem_alloc) &&
           cli_dlsym(h, "cuMemFree_v2", &cli_cu.mem_free) &&
           cli_dlsym(h, "cuMemAllocHost_v2", &cli_cu.mem_alloc_host) &&
           cli_dlsym(h, "cuMemFreeHost", &cli_cu.mem_free_host) &&
           cli_dlsym(h, "cuMemcpyHtoD_v2", &cli_cu.memcpy_htod) &&
           cli_dlsym(h, "cuMemcpyDtoH_v2", &cli_cu.memcpy_dtoh) &&
           cli_dlsym(h, "cuMemcpyHtoDAsync_v2", &cli_cu.memcpy_htod_async) &&
           cli_dlsym(h, "cuMemcpyDtoHAsync_v2", &cli_cu.memcpy_dtoh_async) &&
           cli_dlsym(h, "cuMemHostRegister_v2", &cli_cu.host_register) &&
           cli_dlsym(h, "cuMemHostUnregister", &cli_cu.host_unregister);
  if (!ok || cli_cu.init(0) != 0) {
    snprintf(err, errlen, "the CUDA driver is unusable (missing symbols or cuInit failed)");
    return -1;
  }
  cli_cu.loaded = 1;
  return 0;
}

int cli_cufft_load(char *err, size_t errlen) {
  if (cli_cu_load(err, errlen) != 0) return -1;
  static const char *const names[] = {"libcufft.so.12", "libcufft.so.11", "libcufft.so",
                                      "/usr/local/cuda/lib64/libcufft.so.12",
                                      "/usr/local/cuda/lib64/libcufft.so", NULL};
  const char *which = NULL;
  void *h = cli_dlopen_first(names, &which);
  if (!h) {
    snprintf(err, errlen, "libcufft.so.12/.11/.so not found (add the CUDA toolkit's lib64 "
             "to LD_LIBRARY_PATH)");
    return -1;
  }
  int ok = cli_dlsym(h, "cufftCreate", &cli_cufft.create) &&
           cli_dlsym(h, "cufftMakePlanMany64", &cli_cufft.make_many64) &&
           cli_dlsym(h, "cufftSetStream", &cli_cufft.set_stream) &&
           cli_dlsym(h, "cufftDestroy", &cli_cufft.destroy) &&
           cli_dlsym(h, "cufftGetVersion", &cli_cufft.get_version) &&
           cli_dlsym(h, "cufftExecC2C", &cli_cufft.exec_c2c) &&
           cli_dlsym(h, "cufftExecZ2Z", &cli_cufft.exec_z2z) &&
           cli_dlsym(h, "cufftExecR2C", &cli_cufft.exec_r2c) &&
           cli_dlsym(h, "cufftExecD2Z", &cli_cufft.exec_d2z) &&
           cli_dlsym(h, "cufftExecC2R", &cli_cufft.exec_c2r) &&
           cli_dlsym(h, "cufftExecZ2D", &cli_cufft.exec_z2d);
  if (!ok) {
    snprintf(err, errlen, "%s lacks cufftMakePlanMany64 or an exec function", which);
    return -1;
  }
  /* Optional: half-precision plans (cuFFT 10+). */
  if (!cli_dlsym(h, "cufftXtMakePlanMany", &cli_cufft.xt_make_many) ||
      !cli_dlsym(h, "cufftXtExec", &cli_cufft.xt_exec)) {
    cli_cufft.xt_make_many = NULL;
    cli_cufft.xt_exec = NULL;
  }
  return 0;
}

typedef struct cli_cufft_state {
  void *r2r; /* set: an R2R problem on the DCT route (peer_cufft_r2r.c) */
  int plan;
  int kind, precision, sign;
  int device;
  cli_cu_context ctx;
  cli_cu_stream stream;
  cli_cu_event start, stop;
} cli_cufft_state;

static void cli_cufft_destroy_state(cli_cufft_state *s);

/* Batch dims must collapse into one (n, idist, odist): each outer dim
 * strides over exactly the inner ones on both sides. */
static int cli_cufft_batch(const hyfft_problem *p, long long *count, long long *idist,
                           long long *odist, char *err, size_t errlen) {
  *count = 1;
  *idist = 1;
  *odist = 1;
  if (p->batch_rank == 0) return 0;
  int last = -1;
  for (int b = p->batch_rank - 1; b >= 0; b--) {
    const hyfft_dim *d = &p->batch[b];
    if (d->n == 1) continue;
    if (last < 0) {
      *count = d->n;
      *idist = d->in_stride;
      *odist = d->out_stride;
    } else if (d->in_stride == *idist * p->batch[last].n &&
               d->out_stride == *odist * p->batch[last].n && *count == p->batch[last].n) {
      *count *= d->n;
    } else {
      snprintf(err, errlen, "cuFFT takes one batch distance; these batch dims do not merge");
      return -1;
    }
    last = b;
  }
  return 0;
}

static int cli_cufft_plan(const hyfft_problem *p, hyfft_backend_id backend, void *in, void *out,
                          int threads, int rigor, void **state, char *err, size_t errlen) {
  (void)backend; /* always CUDA: bench offers it only there (device_backend) */
  if (p->memory != HYFFT_MEMORY_DEVICE) {
    snprintf(err, errlen, "the cuFFT peer runs on device buffers only");
    return -1;
  }
  if (p->kind == HYFFT_R2R) {
    /* cuFFT has no R2R: the route a user writes around it. */
    cli_cufft_state *w = calloc(1, sizeof *w);
    if (!w) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    if (cli_cufft_r2r_plan(p, in, out, &w->r2r, err, errlen) != 0) {
      free(w);
      return -1;
    }
    *state = w;
    return 0;
  }
  if (p->rank < 1 || p->rank > 3) {
    snprintf(err, errlen, "cuFFT supports rank 1..3, not %d", p->rank);
    return -1;
  }
  if (p->scale != 0 && p->scale != 1) {
    snprintf(err, errlen, "cuFFT does not scale its output (scale %g)", p->scale);
    return -1;
  }
  long long n[3] = {0}, inembed[3] = {0}, onembed[3] = {0};
  long long istride = p->dims[p->rank - 1].in_stride, ostride = p->dims[p->rank - 1].out_stride;
  for (int d = 0; d < p->rank; d++) {
    n[d] = p->dims[d].n;
    if (p->dims[d].in_stride <= 0 || p->dims[d].out_stride <= 0) {
      snprintf(err, errlen, "cuFFT needs positive strides");
      return -1;
    }
  }
  /* inembed[d] = stride[d-1] / stride[d]: the advanced layout is a row-major
   * embedding scaled by the innermost stride. */
  inembed[0] = n[0];
  onembed[0] = n[0];
  for (int d = 1; d < p->rank; d++) {
    long long is = p->dims[d].in_stride, os = p->dims[d].out_stride;
    long long iso = p->dims[d - 1].in_stride, oso = p->dims[d - 1].out_stride;
    if (iso % is != 0 || oso % os != 0) {
      snprintf(err, errlen, "strides of dim %d are not multiples of dim %d's: not expressible "
               "as cuFFT embeddings", d - 1, d);
      return -1;
    }
    inembed[d] = iso / is;
    onembed[d] = oso / os;
  }
  long long batch, idist, odist;
  if (cli_cufft_batch(p, &batch, &idist, &odist, err, errlen) != 0) return -1;
  if (p->batch_rank == 0 || batch == 1) {
    idist = p->dims[0].in_stride * n[0];
    odist = p->dims[0].out_stride * n[0];
  }
  int type;
  int f64 = p->precision == HYFFT_F64;
  /* f16/bf16 storage (cudaDataType: CUDA_R_16F 2, CUDA_C_16F 6, CUDA_R_16BF
   * 14, CUDA_C_16BF 15) through cufftXtMakePlanMany; cuFFT takes powers of
   * two only there and says so by its status. */
  int half = p->precision == HYFFT_F16 || p->precision == HYFFT_BF16;
  int real_t = p->precision == HYFFT_F16 ? 2 : 14, complex_t = p->precision == HYFFT_F16 ? 6 : 15;
  if (half && (!cli_cufft.xt_make_many || !cli_cufft.xt_exec)) {
    snprintf(err, errlen, "this cuFFT lacks cufftXtMakePlanMany/cufftXtExec (f16/bf16)");
    return -1;
  }
  if (p->kind == HYFFT_C2C) type = f64 ? CLI_CUFFT_Z2Z : CLI_CUFFT_C2C;
  else if (p->kind == HYFFT_R2C) type = f64 ? CLI_CUFFT_D2Z : CLI_CUFFT_R2C;
  else type = f64 ? CLI_CUFFT_Z2D : CLI_CUFFT_C2R;

  cli_cufft_state *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  s->kind = p->kind;
  s->precision = p->precision;
  s->sign = p->sign;
  s->plan = -1;
  /* Work in the primary context of the device that owns the buffers, the
   * one hyfft uses; the runtime inside cuFFT picks up a current primary
   * context. */
  if (cli_cu.pointer_attr(&s->device, CLI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                          (cli_cu_ptr)(uintptr_t)in) != 0) {
    snprintf(err, errlen, "the input is not a CUDA device pointer");
    free(s);
    return -1;
  }
  if (cli_cu.primary_retain(&s->ctx, s->device) != 0) {
    snprintf(err, errlen, "cuDevicePrimaryCtxRetain failed");
    free(s);
    return -1;
  }
  cli_cu.push(s->ctx);
  int rc = -1;
  size_t work = 0;
  if (cli_cu.stream_create(&s->stream, 0) != 0 || cli_cu.event_create(&s->start, 0) != 0 ||
      cli_cu.event_create(&s->stop, 0) != 0) {
    snprintf(err, errlen, "cannot create a CUDA stream or events");
  } else if (cli_cufft.create(&s->plan) != 0) {
    snprintf(err, errlen, "cufftCreate failed");
  } else {
    int r = half ? cli_cufft.xt_make_many(s->plan, p->rank, n, inembed, istride, idist,
                                          p->kind == HYFFT_R2C ? real_t : complex_t, onembed,
                                          ostride, odist, p->kind == HYFFT_C2R ? real_t : complex_t,
                                          batch, &work, complex_t)
                 : cli_cufft.make_many64(s->plan, p->rank, n, inembed, istride, idist, onembed,
                                         ostride, odist, type, batch, &work);
    if (r != 0) {
      snprintf(err, errlen, "%s failed with cufftResult %d",
               half ? "cufftXtMakePlanMany" : "cufftMakePlanMany64", r);
    } else if (cli_cufft.set_stream(s->plan, s->stream) != 0) {
      snprintf(err, errlen, "cufftSetStream failed");
    } else {
      rc = 0;
    }
  }
  cli_cu_context popped;
  cli_cu.pop(&popped);
  if (rc != 0) {
    cli_cufft_destroy_state(s);
    return -1;
  }
  *state = s;
  return 0;
}

/* Enqueue one execution; the context must be current. */
static int cli_cufft_enqueue(cli_cufft_state *s, void *in, void *out) {
  int f64 = s->precision == HYFFT_F64;
  if (s->precision == HYFFT_F16 || s->precision == HYFFT_BF16)
    return cli_cufft.xt_exec(s->plan, in, out,
                             s->kind == HYFFT_C2C ? s->sign : s->kind == HYFFT_R2C ? -1 : 1);
  if (s->kind == HYFFT_C2C)
    return f64 ? cli_cufft.exec_z2z(s->plan, in, out, s->sign)
               : cli_cufft.exec_c2c(s->plan, in, out, s->sign);
  if (s->kind == HYFFT_R2C)
    return f64 ? cli_cufft.exec_d2z(s->plan, in, out) : cli_cufft.exec_r2c(s->plan, in, out);
  return f64 ? cli_cufft.exec_z2d(s->plan, in, out) : cli_cufft.exec_c2r(s->plan, in, out);
}

static int cli_cufft_run(void *state, void *in, void *out) {
  cli_cufft_state *s = state;
  if (s->r2r) return cli_cufft_r2r_run(s->r2r, in, out);
  cli_cu.push(s->ctx);
  int r = cli_cufft_enqueue(s, in, out);
  if (r == 0) r = cli_cu.stream_sync(s->stream);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  return r == 0 ? 0 : -1;
}

static int cli_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Declared in peer_cuda.h (the copy peer times its copies with it too). */
int cli_cuda_time_loop(cli_cu_context ctx, cli_cu_stream stream, cli_cu_event e0, cli_cu_event e1,
                       int (*enqueue)(void *, void *, void *), void *arg, void *in, void *out,
                       int warmup, int runs, double *median) {
  if (runs < 1) runs = 1;
  double *t = malloc(sizeof(double) * (size_t)runs);
  if (!t) return -1;
  cli_cu.push(ctx);
  int rc = 0;
  for (int i = 0; i < warmup && rc == 0; i++) rc = enqueue(arg, in, out);
  for (int i = 0; i < runs && rc == 0; i++) {
    float ms = 0;
    cli_cu_result r = cli_cu.event_record(e0, stream);
    if (r == 0 && enqueue(arg, in, out) != 0) r = -1;
    if (r == 0) r = cli_cu.event_record(e1, stream);
    if (r == 0) r = cli_cu.event_sync(e1);
    if (r == 0) r = cli_cu.event_elapsed(&ms, e0, e1);
    if (r != 0) {
      if (r > 0) cli_msg("bench", "CUDA event timing: driver error %d", r);
      rc = -1;
    }
    t[i] = ms * 1e-3;
  }
  if (rc == 0) {
    qsort(t, (size_t)runs, sizeof *t, cli_cmp_double);
    *median = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
  }
  cli_cu_context popped;
  cli_cu.pop(&popped);
  free(t);
  return rc;
}

static int cli_cufft_enqueue_any(void *state, void *in, void *out) {
  return cli_cufft_enqueue(state, in, out) == 0 ? 0 : -1;
}

static int cli_cufft_time(void *state, void *in, void *out, int warmup, int runs,
                          double *median) {
  cli_cufft_state *s = state;
  if (s->r2r) return cli_cufft_r2r_time(s->r2r, in, out, warmup, runs, median);
  return cli_cuda_time_loop(s->ctx, s->stream, s->start, s->stop, cli_cufft_enqueue_any, s, in,
                            out, warmup, runs, median);
}

/* hyfft on a CUDA context, timed exactly like cuFFT above. */
typedef struct cli_hyfft_timed {
  hyfft_plan plan;
  cli_cu_stream stream;
} cli_hyfft_timed;

static int cli_hyfft_enqueue(void *arg, void *in, void *out) {
  cli_hyfft_timed *h = arg;
  hyfft_status st = hyfft_execute_async(h->plan, in, out, NULL, h->stream);
  if (st != HYFFT_SUCCESS) cli_status_msg("bench", "hyfft_execute_async on a CUDA stream", st);
  return st == HYFFT_SUCCESS ? 0 : -1;
}

int cli_cuda_time_plan(hyfft_plan plan, const void *in, void *out, int warmup, int runs,
                       double *median) {
  char err[160];
  if (cli_cu_load(err, sizeof err) != 0) return -1;
  int device = 0;
  if (cli_cu.pointer_attr(&device, CLI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                          (cli_cu_ptr)(uintptr_t)in) != 0)
    return -1;
  cli_cu_context ctx;
  if (cli_cu.primary_retain(&ctx, device) != 0) return -1;
  cli_cu.push(ctx);
  cli_hyfft_timed h = {plan, NULL};
  cli_cu_event e0 = NULL, e1 = NULL;
  int rc = -1;
  if (cli_cu.stream_create(&h.stream, 0) == 0 && cli_cu.event_create(&e0, 0) == 0 &&
      cli_cu.event_create(&e1, 0) == 0)
    rc = cli_cuda_time_loop(ctx, h.stream, e0, e1, cli_hyfft_enqueue, &h, (void *)in, out,
                            warmup, runs, median);
  if (h.stream) cli_cu.stream_sync(h.stream);
  if (e0) cli_cu.event_destroy(e0);
  if (e1) cli_cu.event_destroy(e1);
  if (h.stream) cli_cu.stream_destroy(h.stream);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(device);
  return rc;
}

static int cli_cufft_destroys_input(const hyfft_problem *p) {
  /* cuFFT's C2R (any rank) and multi-dimensional transforms may use the
   * input as scratch; the DCT route reads its input once into its own
   * workspaces. */
  if (p->kind == HYFFT_R2R) return p->inplace;
  return p->inplace || p->kind == HYFFT_C2R;
}

static void cli_cufft_destroy_state(cli_cufft_state *s) {
  if (!s) return;
  if (s->r2r) {
    cli_cufft_r2r_destroy(s->r2r);
    free(s);
    return;
  }
  cli_cu.push(s->ctx);
  if (s->stream) cli_cu.stream_sync(s->stream);
  if (s->plan >= 0) cli_cufft.destroy(s->plan);
  if (s->start) cli_cu.event_destroy(s->start);
  if (s->stop) cli_cu.event_destroy(s->stop);
  if (s->stream) cli_cu.stream_destroy(s->stream);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(s->device);
  free(s);
}

static void cli_cufft_destroy(void *state) { cli_cufft_destroy_state(state); }

const cli_peer cli_peer_cufft = {
    .name = "cufft",
    .memory = HYFFT_MEMORY_DEVICE,
    .device_backend = HYFFT_BACKEND_CUDA,
    .load = cli_cufft_load,
    .plan = cli_cufft_plan,
    .run = cli_cufft_run,
    .destroys_input = cli_cufft_destroys_input,
    .destroy = cli_cufft_destroy,
    .time = cli_cufft_time,
};
