/* The copy floor as a peer: a plain copy of the problem's bytes from
 * hyfft's input buffer to its output buffer, in the same process on the
 * same buffers, so that bench can say what fraction of the device's copy
 * bandwidth hyfft reaches (DESIGN section 8: a one-pass transform cannot
 * beat one read plus one write of its data).
 *
 * One name on every backend, each timed like hyfft is timed there:
 * - CUDA: cuMemcpyDtoDAsync_v2 on the peer's own stream, CUDA events
 *   around each copy (the loop that times cuFFT and hyfft, peer_cuda.h);
 * - OpenCL: clEnqueueCopyBuffer on the cl_mem buffers on a queue of the
 *   buffers' own context and device, clFinish after each copy on the host
 *   clock (as bench times hyfft_execute + hyfft_context_synchronize);
 * - CPU: memcpy on the host clock.
 *
 * What is copied: out of place, the smaller of the input and output
 * extents (the output buffer must hold it). In place there is one buffer
 * and a copy onto itself is not a copy (memcpy and cuMemcpy leave overlap
 * undefined, OpenCL refuses it), so the first half goes onto the second
 * half; moved_bytes() reports what was really moved, so the GB/s and %copy
 * stay honest. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "peer.h"
#include "peer_cuda.h"

/* ---- what to copy --------------------------------------------------------------- */

typedef struct cli_copy_extent {
  size_t bytes, src_off, dst_off;
} cli_copy_extent;

static int cli_copy_extent_of(const hyfft_problem *p, cli_copy_extent *e, char *err,
                              size_t errlen) {
  cli_layout L;
  if (cli_layout_init(&L, p, err, errlen)) return -1;
  memset(e, 0, sizeof *e);
  if (p->inplace) {
    /* Half onto the other half, the half kept a multiple of 256 bytes when
     * it can be, so neither side starts misaligned for the copy engines. */
    e->bytes = L.buf_in_bytes / 2;
    if (e->bytes >= 256) e->bytes &= ~(size_t)255;
    e->dst_off = e->bytes;
  } else {
    e->bytes = L.in_bytes < L.out_bytes ? L.in_bytes : L.out_bytes;
  }
  return 0;
}

static double cli_copy_moved_bytes(const hyfft_problem *p) {
  cli_copy_extent e;
  char err[128];
  if (cli_copy_extent_of(p, &e, err, sizeof err)) return 0;
  return 2.0 * (double)e.bytes; /* one read and one write of each byte */
}

/* ---- OpenCL through dlopen ------------------------------------------------------- */

typedef int32_t cli_cl_int;
typedef uint32_t cli_cl_uint;
typedef struct cli_cl_mem_s *cli_cl_mem;
typedef struct cli_cl_context_s *cli_cl_context;
typedef struct cli_cl_device_s *cli_cl_device;
typedef struct cli_cl_queue_s *cli_cl_queue;
typedef struct cli_cl_event_s *cli_cl_event;

#define CLI_CL_MEM_CONTEXT 0x1106
#define CLI_CL_CONTEXT_DEVICES 0x1081

static struct {
  cli_cl_int (*get_mem_info)(cli_cl_mem, cli_cl_uint, size_t, void *, size_t *);
  cli_cl_int (*get_context_info)(cli_cl_context, cli_cl_uint, size_t, void *, size_t *);
  cli_cl_queue (*create_queue)(cli_cl_context, cli_cl_device, uint64_t, cli_cl_int *);
  cli_cl_int (*release_queue)(cli_cl_queue);
  cli_cl_int (*copy_buffer)(cli_cl_queue, cli_cl_mem, cli_cl_mem, size_t, size_t, size_t,
                            cli_cl_uint, const cli_cl_event *, cli_cl_event *);
  cli_cl_int (*finish)(cli_cl_queue);
  int loaded;
} cli_cl;

/* The same loader the library opens ($HYFFT_OPENCL_LIBRARY, else
 * libOpenCL.so.1, else libOpenCL.so), so the peer sees the same platforms
 * and its calls dispatch on the library's cl_mem objects. */
static int cli_cl_load(char *err, size_t errlen) {
  if (cli_cl.loaded) return 0;
  const char *path = getenv("HYFFT_OPENCL_LIBRARY");
  if (path && !*path) path = NULL;
  void *h = dlopen(path ? path : "libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h && !path) h = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(err, errlen, "cannot dlopen %s", path ? path : "libOpenCL.so.1");
    return -1;
  }
  int ok = cli_dlsym(h, "clGetMemObjectInfo", &cli_cl.get_mem_info) &&
           cli_dlsym(h, "clGetContextInfo", &cli_cl.get_context_info) &&
           cli_dlsym(h, "clCreateCommandQueue", &cli_cl.create_queue) &&
           cli_dlsym(h, "clReleaseCommandQueue", &cli_cl.release_queue) &&
           cli_dlsym(h, "clEnqueueCopyBuffer", &cli_cl.copy_buffer) &&
           cli_dlsym(h, "clFinish", &cli_cl.finish);
  if (!ok) {
    snprintf(err, errlen, "the OpenCL loader lacks clEnqueueCopyBuffer or a query function");
    return -1;
  }
  cli_cl.loaded = 1; /* left open, like the library's loader */
  return 0;
}

/* ---- the peer -------------------------------------------------------------------- */

typedef struct cli_copy_state {
  hyfft_backend_id backend;
  cli_copy_extent e;
  /* CUDA */
  int device, retained;
  cli_cu_context ctx;
  cli_cu_stream stream;
  cli_cu_event start, stop;
  /* OpenCL */
  cli_cl_queue queue;
} cli_copy_state;

/* The drivers are loaded in plan(), once the backend is known: a CPU run
 * must not need CUDA or OpenCL. */
static int cli_copy_load(char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  return 0;
}

static void cli_copy_destroy(void *state);

static int cli_copy_plan_cuda(cli_copy_state *s, void *in, char *err, size_t errlen) {
  if (cli_cu_load(err, errlen) != 0) return -1;
  if (cli_cu.pointer_attr(&s->device, CLI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                          (cli_cu_ptr)(uintptr_t)in) != 0) {
    snprintf(err, errlen, "the input is not a CUDA device pointer");
    return -1;
  }
  /* The primary context is the one hyfft's buffers live in. */
  if (cli_cu.primary_retain(&s->ctx, s->device) != 0) {
    snprintf(err, errlen, "cuDevicePrimaryCtxRetain failed");
    return -1;
  }
  s->retained = 1;
  cli_cu.push(s->ctx);
  int rc = 0;
  if (cli_cu.stream_create(&s->stream, 0) != 0 || cli_cu.event_create(&s->start, 0) != 0 ||
      cli_cu.event_create(&s->stop, 0) != 0) {
    snprintf(err, errlen, "cannot create a CUDA stream or events");
    rc = -1;
  }
  cli_cu_context popped;
  cli_cu.pop(&popped);
  return rc;
}

static int cli_copy_plan_opencl(cli_copy_state *s, void *in, char *err, size_t errlen) {
  if (cli_cl_load(err, errlen) != 0) return -1;
  cli_cl_context ctx = NULL;
  if (cli_cl.get_mem_info((cli_cl_mem)in, CLI_CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL) != 0 ||
      !ctx) {
    snprintf(err, errlen, "clGetMemObjectInfo(CL_MEM_CONTEXT) failed on hyfft's input buffer");
    return -1;
  }
  size_t size = 0;
  if (cli_cl.get_context_info(ctx, CLI_CL_CONTEXT_DEVICES, 0, NULL, &size) != 0 ||
      size < sizeof(cli_cl_device)) {
    snprintf(err, errlen, "clGetContextInfo(CL_CONTEXT_DEVICES) failed");
    return -1;
  }
  cli_cl_device *devs = malloc(size);
  if (!devs) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  /* hyfft's contexts hold the one device they run on: the first is it. */
  cli_cl_int r = cli_cl.get_context_info(ctx, CLI_CL_CONTEXT_DEVICES, size, devs, NULL);
  cli_cl_device dev = devs[0];
  free(devs);
  if (r != 0) {
    snprintf(err, errlen, "clGetContextInfo(CL_CONTEXT_DEVICES) failed with %d", (int)r);
    return -1;
  }
  r = 0;
  s->queue = cli_cl.create_queue(ctx, dev, 0, &r);
  if (!s->queue || r != 0) {
    s->queue = NULL;
    snprintf(err, errlen, "clCreateCommandQueue failed with %d", (int)r);
    return -1;
  }
  return 0;
}

static int cli_copy_plan(const hyfft_problem *p, hyfft_backend_id backend, void *in, void *out,
                         int threads, int rigor, void **state, char *err, size_t errlen) {
  (void)out; /* the same context as `in` */
  (void)threads; /* one memcpy: the bandwidth of one core is the host floor here */
  (void)rigor;
  cli_copy_state *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  s->backend = backend;
  int rc = cli_copy_extent_of(p, &s->e, err, errlen);
  /* Host memory on the CPU backend, device memory only on a GPU one. */
  int dev = p->memory == HYFFT_MEMORY_DEVICE && backend != HYFFT_BACKEND_CPU;
  if (rc == 0 && dev && backend == HYFFT_BACKEND_CUDA) rc = cli_copy_plan_cuda(s, in, err, errlen);
  else if (rc == 0 && dev && backend == HYFFT_BACKEND_OPENCL)
    rc = cli_copy_plan_opencl(s, in, err, errlen);
  else if (rc == 0 && dev) {
    snprintf(err, errlen, "no copy for backend %d", (int)backend);
    rc = -1;
  }
  if (!dev) s->backend = HYFFT_BACKEND_CPU;
  if (rc != 0) {
    cli_copy_destroy(s);
    return -1;
  }
  *state = s;
  return 0;
}

/* One CUDA copy on the peer's stream; the context must be current. */
static int cli_copy_enqueue_cuda(void *state, void *in, void *out) {
  cli_copy_state *s = state;
  cli_cu_ptr src = (cli_cu_ptr)(uintptr_t)in + s->e.src_off;
  cli_cu_ptr dst = (cli_cu_ptr)(uintptr_t)out + s->e.dst_off;
  return cli_cu.memcpy_dtod_async(dst, src, s->e.bytes, s->stream) == 0 ? 0 : -1;
}

static int cli_copy_run(void *state, void *in, void *out) {
  cli_copy_state *s = state;
  if (s->backend == HYFFT_BACKEND_CUDA) {
    cli_cu.push(s->ctx);
    int r = cli_copy_enqueue_cuda(s, in, out);
    if (r == 0) r = cli_cu.stream_sync(s->stream) == 0 ? 0 : -1;
    cli_cu_context popped;
    cli_cu.pop(&popped);
    return r;
  }
  if (s->backend == HYFFT_BACKEND_OPENCL) {
    if (cli_cl.copy_buffer(s->queue, (cli_cl_mem)in, (cli_cl_mem)out, s->e.src_off,
                           s->e.dst_off, s->e.bytes, 0, NULL, NULL) != 0)
      return -1;
    return cli_cl.finish(s->queue) == 0 ? 0 : -1;
  }
  memcpy((char *)out + s->e.dst_off, (const char *)in + s->e.src_off, s->e.bytes);
  return 0;
}

static int cli_copy_time(void *state, void *in, void *out, int warmup, int runs,
                         double *median) {
  cli_copy_state *s = state;
  /* OpenCL and the CPU: bench's host clock, as it times hyfft there. */
  if (s->backend != HYFFT_BACKEND_CUDA) return 1;
  return cli_cuda_time_loop(s->ctx, s->stream, s->start, s->stop, cli_copy_enqueue_cuda, s, in,
                            out, warmup, runs, median);
}

/* The copy reads its input intact out of place; in place it overwrites the
 * second half, but a copy's speed does not depend on the values, and bench
 * restores in-place inputs from its pristine copy before every library.
 * Saying 0 keeps short copies in repeated (>= 1 ms) host-timed samples. */
static int cli_copy_destroys_input(const hyfft_problem *p) {
  (void)p;
  return 0;
}

static void cli_copy_destroy(void *state) {
  cli_copy_state *s = state;
  if (!s) return;
  if (s->retained) {
    cli_cu.push(s->ctx);
    if (s->stream) cli_cu.stream_sync(s->stream);
    if (s->start) cli_cu.event_destroy(s->start);
    if (s->stop) cli_cu.event_destroy(s->stop);
    if (s->stream) cli_cu.stream_destroy(s->stream);
    cli_cu_context popped;
    cli_cu.pop(&popped);
    cli_cu.primary_release(s->device);
  }
  if (s->queue) {
    cli_cl.finish(s->queue);
    cli_cl.release_queue(s->queue);
  }
  free(s);
}

const cli_peer cli_peer_copy = {
    .name = "copy",
    .memory = HYFFT_MEMORY_DEVICE,
    .device_backend = HYFFT_BACKEND_CPU, /* unused: any_device */
    .any_device = 1,
    .no_accuracy = 1,
    .moved_bytes = cli_copy_moved_bytes,
    .load = cli_copy_load,
    .plan = cli_copy_plan,
    .run = cli_copy_run,
    .destroys_input = cli_copy_destroys_input,
    .destroy = cli_copy_destroy,
    .time = cli_copy_time,
};

/* ---- the convolution's floor (conv.c) --------------------------------------- */

typedef struct cli_copy_fan {
  size_t bytes;
  int times;
  cli_cu_stream stream;
} cli_copy_fan;

static int cli_copy_fan_enqueue(void *arg, void *in, void *out) {
  cli_copy_fan *f = arg;
  for (int i = 0; i < f->times; i++)
    if (cli_cu.memcpy_dtod_async((cli_cu_ptr)(uintptr_t)out + (size_t)i * f->bytes,
                                 (cli_cu_ptr)(uintptr_t)in, f->bytes, f->stream) != 0)
      return -1;
  return 0;
}

int cli_cuda_copy_fan_time(const void *src, void *dst, size_t bytes, int times, int warmup,
                           int runs, double *median, char *err, size_t errlen) {
  if (cli_cu_load(err, errlen) != 0) return -1;
  int device = 0;
  if (cli_cu.pointer_attr(&device, CLI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                          (cli_cu_ptr)(uintptr_t)src) != 0) {
    snprintf(err, errlen, "not a CUDA device pointer");
    return -1;
  }
  cli_cu_context ctx;
  if (cli_cu.primary_retain(&ctx, device) != 0) {
    snprintf(err, errlen, "cuDevicePrimaryCtxRetain failed");
    return -1;
  }
  cli_cu.push(ctx);
  cli_copy_fan f = {bytes, times, NULL};
  cli_cu_event e0 = NULL, e1 = NULL;
  int rc = -1;
  if (cli_cu.stream_create(&f.stream, 0) == 0 && cli_cu.event_create(&e0, 0) == 0 &&
      cli_cu.event_create(&e1, 0) == 0)
    rc = cli_cuda_time_loop(ctx, f.stream, e0, e1, cli_copy_fan_enqueue, &f, (void *)src, dst,
                            warmup, runs, median);
  if (rc != 0) snprintf(err, errlen, "the CUDA copies failed");
  if (f.stream) cli_cu.stream_sync(f.stream);
  if (e0) cli_cu.event_destroy(e0);
  if (e1) cli_cu.event_destroy(e1);
  if (f.stream) cli_cu.stream_destroy(f.stream);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(device);
  return rc;
}
