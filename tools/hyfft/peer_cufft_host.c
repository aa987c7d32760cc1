/* Peers for host-resident data on a CUDA device (`hyfft bench --host`):
 *
 * - `cufft-host`: what a user writes without hyfft: copy the input to the
 *   device, run cuFFT, copy the output back, on one stream, from and to
 *   the very host buffers hyfft is given (ordinary pageable memory). The
 *   cuFFT plan is the `cufft` peer's, made on device buffers of the
 *   problem's extents that this peer owns.
 * - `bus`: the bus floor, a copy of the problem's input bytes to the
 *   device and of its output bytes back at the same time (two streams),
 *   between page-locked host buffers and device buffers. A transform of
 *   host data cannot finish sooner than this; a single multi-dimensional
 *   transform cannot even overlap the two directions (every output
 *   depends on every input), so its floor is the two directions one after
 *   the other: the row's note gives each direction's bandwidth alone.
 *
 * Both are timed on the host clock, as bench times hyfft on host data. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "peer.h"
#include "peer_cuda.h"

/* Device buffers of the problem's extents in the primary context of bench's
 * CUDA device. */
typedef struct cli_host_buffers {
  int retained;
  cli_cu_context ctx;
  cli_cu_ptr din, dout;
  size_t in_bytes, out_bytes;
  int inplace;
} cli_host_buffers;

static void cli_host_buffers_free(cli_host_buffers *b) {
  if (!b->retained) return;
  cli_cu.push(b->ctx);
  if (b->dout && b->dout != b->din) cli_cu.mem_free(b->dout);
  if (b->din) cli_cu.mem_free(b->din);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(cli_cuda_ordinal);
  b->retained = 0;
}

static int cli_host_buffers_alloc(const hyfft_problem *p, cli_host_buffers *b, char *err,
                                  size_t errlen) {
  memset(b, 0, sizeof *b);
  if (cli_cuda_ordinal < 0) {
    snprintf(err, errlen, "needs a CUDA context (--device cuda[:N])");
    return -1;
  }
  cli_layout L;
  if (cli_layout_init(&L, p, err, errlen)) return -1;
  b->in_bytes = L.buf_in_bytes;
  b->out_bytes = L.buf_out_bytes;
  b->inplace = p->inplace;
  if (cli_cu.primary_retain(&b->ctx, cli_cuda_ordinal) != 0) {
    snprintf(err, errlen, "cuDevicePrimaryCtxRetain failed");
    return -1;
  }
  b->retained = 1;
  cli_cu.push(b->ctx);
  int rc = cli_cu.mem_alloc(&b->din, b->in_bytes);
  if (rc == 0) {
    if (b->inplace) b->dout = b->din;
    else rc = cli_cu.mem_alloc(&b->dout, b->out_bytes);
  }
  cli_cu_context popped;
  cli_cu.pop(&popped);
  if (rc != 0) {
    snprintf(err, errlen, "cuMemAlloc of %zu + %zu bytes failed (error %d)", b->in_bytes,
             b->inplace ? (size_t)0 : b->out_bytes, rc);
    cli_host_buffers_free(b);
    return -1;
  }
  return 0;
}

/* ---- page-locked user buffers (bench --pinned) ------------------------------------- */

int cli_cuda_pin(void *ptr, size_t bytes, char *err, size_t errlen) {
  if (cli_cu_load(err, errlen) != 0) return -1;
  if (cli_cuda_ordinal < 0) {
    snprintf(err, errlen, "--pinned needs a CUDA context (--device cuda[:N])");
    return -1;
  }
  cli_cu_context ctx;
  if (cli_cu.primary_retain(&ctx, cli_cuda_ordinal) != 0) {
    snprintf(err, errlen, "cuDevicePrimaryCtxRetain failed");
    return -1;
  }
  cli_cu.push(ctx);
  int r = cli_cu.host_register(ptr, bytes, 1 /* CU_MEMHOSTREGISTER_PORTABLE */);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(cli_cuda_ordinal);
  if (r != 0) {
    snprintf(err, errlen, "cuMemHostRegister of %zu bytes failed (error %d)", bytes, r);
    return -1;
  }
  return 0;
}

void cli_cuda_unpin(void *ptr) {
  cli_cu_context ctx;
  if (cli_cuda_ordinal < 0 || cli_cu.primary_retain(&ctx, cli_cuda_ordinal) != 0) return;
  cli_cu.push(ctx);
  cli_cu.host_unregister(ptr);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  cli_cu.primary_release(cli_cuda_ordinal);
}

/* ---- cufft-host ------------------------------------------------------------------ */

typedef struct cli_cufft_host {
  cli_host_buffers b;
  void *cufft; /* the cufft peer's state, planned on b.din / b.dout */
} cli_cufft_host;

static int cli_cufft_host_load(char *err, size_t errlen) {
  return cli_peer_cufft.load(err, errlen);
}

static void cli_cufft_host_destroy(void *state) {
  cli_cufft_host *s = state;
  if (!s) return;
  if (s->cufft) cli_peer_cufft.destroy(s->cufft);
  cli_host_buffers_free(&s->b);
  free(s);
}

static int cli_cufft_host_plan(const hyfft_problem *p, hyfft_backend_id backend, void *in,
                               void *out, int threads, int rigor, void **state, char *err,
                               size_t errlen) {
  (void)in;
  (void)out;
  cli_cufft_host *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  hyfft_problem dp = *p;
  dp.memory = HYFFT_MEMORY_DEVICE;
  if (cli_host_buffers_alloc(p, &s->b, err, errlen) ||
      cli_peer_cufft.plan(&dp, backend, (void *)(uintptr_t)s->b.din,
                          (void *)(uintptr_t)s->b.dout, threads, rigor, &s->cufft, err,
                          errlen)) {
    s->cufft = NULL;
    cli_cufft_host_destroy(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int cli_cufft_host_run(void *state, void *in, void *out) {
  cli_cufft_host *s = state;
  cli_cu.push(s->b.ctx);
  int r = cli_cu.memcpy_htod(s->b.din, in, s->b.in_bytes);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  if (r != 0) return -1;
  if (cli_peer_cufft.run(s->cufft, (void *)(uintptr_t)s->b.din, (void *)(uintptr_t)s->b.dout))
    return -1;
  cli_cu.push(s->b.ctx);
  r = cli_cu.memcpy_dtoh(out, s->b.dout, s->b.out_bytes);
  cli_cu.pop(&popped);
  return r == 0 ? 0 : -1;
}

/* The host input is copied, never handed to cuFFT: it stays intact. */
static int cli_cufft_host_destroys_input(const hyfft_problem *p) {
  (void)p;
  return 0;
}

const cli_peer cli_peer_cufft_host = {
    .name = "cufft-host",
    .memory = HYFFT_MEMORY_HOST,
    .device_backend = HYFFT_BACKEND_CUDA,
    .load = cli_cufft_host_load,
    .plan = cli_cufft_host_plan,
    .run = cli_cufft_host_run,
    .destroys_input = cli_cufft_host_destroys_input,
    .destroy = cli_cufft_host_destroy,
};

/* ---- bus ------------------------------------------------------------------------- */

typedef struct cli_bus {
  cli_host_buffers b;
  void *pin_in, *pin_out;
  cli_cu_stream up, down;
  double in_gbps, out_gbps; /* each direction alone, measured at plan time */
} cli_bus;

static int cli_bus_load(char *err, size_t errlen) { return cli_cu_load(err, errlen); }

static double cli_bus_moved_bytes(const hyfft_problem *p) {
  cli_layout L;
  char err[128];
  if (cli_layout_init(&L, p, err, sizeof err)) return 0;
  return (double)L.buf_in_bytes + (double)L.buf_out_bytes;
}

static void cli_bus_destroy(void *state) {
  cli_bus *s = state;
  if (!s) return;
  if (s->b.retained) {
    cli_cu.push(s->b.ctx);
    if (s->up) {
      cli_cu.stream_sync(s->up);
      cli_cu.stream_destroy(s->up);
    }
    if (s->down) {
      cli_cu.stream_sync(s->down);
      cli_cu.stream_destroy(s->down);
    }
    if (s->pin_in) cli_cu.mem_free_host(s->pin_in);
    if (s->pin_out) cli_cu.mem_free_host(s->pin_out);
    cli_cu_context popped;
    cli_cu.pop(&popped);
  }
  cli_host_buffers_free(&s->b);
  free(s);
}

/* Both copies at once (dir 2), or the upload (0) or download (1) alone;
 * the context must be current. */
static int cli_bus_copy(cli_bus *s, int dir) {
  int r = 0;
  if (dir != 1) r = cli_cu.memcpy_htod_async(s->b.din, s->pin_in, s->b.in_bytes, s->up);
  if (r == 0 && dir != 0)
    r = cli_cu.memcpy_dtoh_async(s->pin_out, s->b.dout, s->b.out_bytes, s->down);
  if (r == 0) r = cli_cu.stream_sync(s->up);
  if (r == 0) r = cli_cu.stream_sync(s->down);
  return r == 0 ? 0 : -1;
}

/* Best of three copies in one direction, in GB/s. */
static double cli_bus_alone(cli_bus *s, int dir) {
  double best = 0;
  size_t bytes = dir == 0 ? s->b.in_bytes : s->b.out_bytes;
  for (int i = 0; i < 3; i++) {
    double t0 = cli_now();
    if (cli_bus_copy(s, dir)) return 0;
    double dt = cli_now() - t0;
    if (dt > 0 && (double)bytes / dt * 1e-9 > best) best = (double)bytes / dt * 1e-9;
  }
  return best;
}

static int cli_bus_plan(const hyfft_problem *p, hyfft_backend_id backend, void *in, void *out,
                        int threads, int rigor, void **state, char *err, size_t errlen) {
  (void)backend;
  (void)in;
  (void)out;
  (void)threads;
  (void)rigor;
  cli_bus *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  /* Out of place even for an in-place problem: the floor moves the input
   * in and the output out, which in place are the same bytes. */
  hyfft_problem op = *p;
  op.inplace = 0;
  if (cli_host_buffers_alloc(&op, &s->b, err, errlen)) {
    free(s);
    return -1;
  }
  cli_cu.push(s->b.ctx);
  int rc = -1;
  if (cli_cu.mem_alloc_host(&s->pin_in, s->b.in_bytes) != 0 ||
      cli_cu.mem_alloc_host(&s->pin_out, s->b.out_bytes) != 0) {
    snprintf(err, errlen, "cuMemAllocHost of %zu + %zu bytes failed", s->b.in_bytes,
             s->b.out_bytes);
  } else if (cli_cu.stream_create(&s->up, 1) != 0 || cli_cu.stream_create(&s->down, 1) != 0) {
    snprintf(err, errlen, "cannot create CUDA streams");
  } else {
    memset(s->pin_in, 0, s->b.in_bytes);
    memset(s->pin_out, 0, s->b.out_bytes);
    s->in_gbps = cli_bus_alone(s, 0);
    s->out_gbps = cli_bus_alone(s, 1);
    rc = s->in_gbps > 0 && s->out_gbps > 0 ? 0 : -1;
    if (rc) snprintf(err, errlen, "a pinned copy failed");
  }
  cli_cu_context popped;
  cli_cu.pop(&popped);
  if (rc) {
    cli_bus_destroy(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int cli_bus_run(void *state, void *in, void *out) {
  (void)in;
  (void)out;
  cli_bus *s = state;
  cli_cu.push(s->b.ctx);
  int r = cli_bus_copy(s, 2);
  cli_cu_context popped;
  cli_cu.pop(&popped);
  return r;
}

static int cli_bus_destroys_input(const hyfft_problem *p) {
  (void)p;
  return 0;
}

static void cli_bus_describe(void *state, char *buf, size_t len) {
  const cli_bus *s = state;
  snprintf(buf, len, "bus floor, both ways at once; alone: in %.1f GB/s, out %.1f GB/s",
           s->in_gbps, s->out_gbps);
}

const cli_peer cli_peer_bus = {
    .name = "bus",
    .memory = HYFFT_MEMORY_HOST,
    .device_backend = HYFFT_BACKEND_CUDA,
    .no_accuracy = 1,
    .moved_bytes = cli_bus_moved_bytes,
    .load = cli_bus_load,
    .plan = cli_bus_plan,
    .run = cli_bus_run,
    .destroys_input = cli_bus_destroys_input,
    .destroy = cli_bus_destroy,
    .describe = cli_bus_describe,
};
