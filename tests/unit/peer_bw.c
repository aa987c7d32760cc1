/* hyfft_peer_bw: the raw bandwidth of the copies a multi-device slab plan
 * makes (exec/multi_slab.c), to set its exchange beside the link's speed:
 * for each ordered pair of the first devices of a list, the backend's
 * device-to-device copy (copy_peer) of one contiguous block and of the
 * slab exchange's shape (rows of `width` bytes out of rows twice as long),
 * and each device's host-to-device and device-to-host copy from
 * page-locked memory where the backend has it (pageable otherwise).
 *
 *   hyfft_peer_bw [DEVICE_LIST [MIB [REPS]]]   default cuda:all 256 10
 *
 * Then an all-to-all over every device of the list (up to 8): each device
 * holds MIB MiB cut into one block per device and sends block e to device
 * e, as the slab exchange does; first by the backend's device-to-device
 * copies, all devices at once, in six schedules (each device pushing its
 * blocks to the others or pulling the others' blocks to itself, peers in
 * rotated order or in order, on one queue or one per peer; the slab
 * exchange's is the first, push rotated on one queue), then, when NCCL loads (libnccl.so.2, or
 * the file HYFFT_NCCL_LIBRARY names; CUDA lists only), by NCCL's grouped
 * send/receive on the same buffers in the same process. Both results are
 * checked block by block. The line gives the bytes each device receives
 * from the others over the time (NCCL's "bus bandwidth" of an
 * all-to-all: its algorithm bandwidth, which counts the block a device
 * keeps, times (n - 1) / n).
 *
 * Prints one line per copy: GB/s (1e9 bytes per second, the bytes copied
 * once, not read plus written). Exit 0, 1 on a failure, 77 when the list
 * does not open or the backend has no device-to-device copy. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

#define HY_A2A_MAX 8

static int failed(const char *what, hyfft_status st) {
  fprintf(stderr, "hyfft_peer_bw: %s: %s: %s\n", what, hyfft_status_name(st), hyfft_last_error());
  return 1;
}

/* ---- all-to-all ------------------------------------------------------------- */

/* The NCCL entry points used, by their C signatures (nccl.h: ncclComm_t
 * and cudaStream_t are pointers, ncclResult_t and ncclDataType_t enums;
 * ncclInt8 is 0). */
typedef int (*hy_nccl_init_all_fn)(void **comms, int ndev, const int *devlist);
typedef int (*hy_nccl_destroy_fn)(void *comm);
typedef int (*hy_nccl_group_fn)(void);
typedef int (*hy_nccl_send_fn)(const void *buf, size_t count, int type, int peer, void *comm,
                               void *stream);
typedef int (*hy_nccl_recv_fn)(void *buf, size_t count, int type, int peer, void *comm,
                               void *stream);
typedef const char *(*hy_nccl_error_fn)(int result);

typedef struct hy_nccl {
  void *lib;
  hy_nccl_init_all_fn init_all;
  hy_nccl_destroy_fn destroy;
  hy_nccl_group_fn group_start, group_end;
  hy_nccl_send_fn send;
  hy_nccl_recv_fn recv;
  hy_nccl_error_fn error;
} hy_nccl;

/* Loads NCCL; 0 with `why` set when it is not there. */
static int hy_nccl_load(hy_nccl *n, const char **why) {
  memset(n, 0, sizeof *n);
  const char *path = getenv("HYFFT_NCCL_LIBRARY");
  n->lib = dlopen(path && *path ? path : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!n->lib) {
    *why = dlerror();
    return 0;
  }
  *(void **)&n->init_all = dlsym(n->lib, "ncclCommInitAll");
  *(void **)&n->destroy = dlsym(n->lib, "ncclCommDestroy");
  *(void **)&n->group_start = dlsym(n->lib, "ncclGroupStart");
  *(void **)&n->group_end = dlsym(n->lib, "ncclGroupEnd");
  *(void **)&n->send = dlsym(n->lib, "ncclSend");
  *(void **)&n->recv = dlsym(n->lib, "ncclRecv");
  *(void **)&n->error = dlsym(n->lib, "ncclGetErrorString");
  if (!n->init_all || !n->destroy || !n->group_start || !n->group_end || !n->send || !n->recv ||
      !n->error) {
    *why = "a symbol is missing (NCCL older than 2.7)";
    dlclose(n->lib);
    n->lib = NULL;
    return 0;
  }
  return 1;
}

static int nccl_failed(const hy_nccl *n, const char *what, int r) {
  fprintf(stderr, "hyfft_peer_bw: %s: NCCL error %d: %s\n", what, r, n->error(r));
  return 1;
}

/* The byte block e of device d's send buffer holds: distinct per pair, so
 * a block delivered to the wrong place or not at all shows. */
static unsigned char hy_a2a_byte(int d, int e) { return (unsigned char)(0x11 + 16 * d + e); }

/* Fills the send buffers, poisons the receive buffers. */
static int hy_a2a_fill(hyfft_context ctx, int n, size_t blk, void **send, void **recv,
                       unsigned char *host) {
  const hy_backend *b = ctx->backend;
  for (int d = 0; d < n; d++) {
    void *dev = ctx->sub[d]->device;
    for (int e = 0; e < n; e++) memset(host + (size_t)e * blk, hy_a2a_byte(d, e), blk);
    hy_status st = b->write(dev, NULL, send[d], 0, host, blk * (size_t)n, 1);
    if (st != HYFFT_SUCCESS) return failed("write (all-to-all send)", st);
    memset(host, 0xA5, blk * (size_t)n);
    st = b->write(dev, NULL, recv[d], 0, host, blk * (size_t)n, 1);
    if (st != HYFFT_SUCCESS) return failed("write (all-to-all poison)", st);
  }
  return 0;
}

/* Device d's receive block e must hold what device e sent to d. */
static int hy_a2a_check(hyfft_context ctx, int n, size_t blk, void **recv, unsigned char *host,
                        const char *who) {
  const hy_backend *b = ctx->backend;
  for (int d = 0; d < n; d++) {
    hy_status st = b->read(ctx->sub[d]->device, NULL, recv[d], 0, host, blk * (size_t)n, 1);
    if (st != HYFFT_SUCCESS) return failed("read (all-to-all check)", st);
    for (int e = 0; e < n; e++) {
      if (e == d) continue;
      const unsigned char *p = host + (size_t)e * blk;
      unsigned char want = hy_a2a_byte(e, d);
      for (size_t k = 0; k < blk; k += 4093)
        if (p[k] != want || p[blk - 1] != want) {
          fprintf(stderr, "hyfft_peer_bw: %s all-to-all: %s block from %s holds 0x%02x, not 0x%02x\n",
                  who, ctx->sub[d]->info.spec, ctx->sub[e]->info.spec, p[k], want);
          return 1;
        }
    }
  }
  return 0;
}

static void hy_a2a_print(const char *who, int n, size_t blk, double best) {
  printf("  all-to-all, %-34s %8.2f GB/s per device (%.3f ms)\n", who,
         (double)blk * (double)(n - 1) / best * 1e-9, best * 1e3);
}

/* One all-to-all by device-to-device copies, waited for: device d's block
 * e goes to device e's block d. Pull: each device copies into itself on
 * its queues; push: each device copies out of itself. Rotated: device d
 * takes its peers in the order d + 1, d + 2, ... (mod n), so that each
 * step pairs every device with a different one; in order: 0, 1, ...
 * Spread: one queue per peer (the copies of a device at once), else one
 * queue per device (one after the other). A push writes another device's
 * buffer from the source's queue, which backend.h's copy_peer does not
 * promise; CUDA's unified addressing and the CPU's memory allow it, and
 * the check after each schedule shows that it happened. */
static int hy_a2a_copies(hyfft_context ctx, int n, size_t blk, void **send, void **recv,
                         void **queue, void *spread[][HY_A2A_MAX], int push, int rotate,
                         int spread_queues) {
  const hy_backend *b = ctx->backend;
  for (int d = 0; d < n; d++)
    for (int k = 1; k < n; k++) {
      int e = rotate ? (d + k) % n : (k <= d ? k - 1 : k);
      void *q = spread_queues ? spread[d][k] : queue[d];
      int dst = push ? e : d, src = push ? d : e;
      hy_status st = b->copy_peer(ctx->sub[d]->device, q, recv[dst], (size_t)src * blk, blk,
                                  ctx->sub[src]->device, send[src],
                                  (size_t)dst * blk, blk, blk, 1);
      if (st != HYFFT_SUCCESS) return failed("copy_peer (all-to-all)", st);
    }
  for (int d = 0; d < n; d++)
    for (int k = 0; k < n; k++) {
      if (k > 0 && !spread_queues) break;
      hy_status st = b->synchronize(ctx->sub[d]->device, k ? spread[d][k] : queue[d]);
      if (st != HYFFT_SUCCESS) return failed("synchronize (all-to-all)", st);
    }
  return 0;
}

/* The all-to-all over the first n devices of ctx, each sending n blocks of
 * blk bytes (its own block stays): by device-to-device copies, then by
 * NCCL where it loads. */
static int hy_all_to_all(hyfft_context ctx, int n, size_t blk, int reps) {
  const hy_backend *b = ctx->backend;
  void *send[HY_A2A_MAX] = {0}, *recv[HY_A2A_MAX] = {0}, *queue[HY_A2A_MAX] = {0};
  void *spread[HY_A2A_MAX][HY_A2A_MAX] = {{0}};
  size_t bytes = blk * (size_t)n;
  unsigned char *host = malloc(bytes);
  int rc = host ? 0 : failed("host memory", HYFFT_OUT_OF_MEMORY);
  for (int d = 0; d < n && !rc; d++) {
    void *dev = ctx->sub[d]->device;
    hy_status st = b->alloc(dev, bytes, &send[d]);
    if (st == HYFFT_SUCCESS) st = b->alloc(dev, bytes, &recv[d]);
    if (st == HYFFT_SUCCESS && b->queue_create) st = b->queue_create(dev, &queue[d]);
    for (int k = 1; k < n && st == HYFFT_SUCCESS && b->queue_create; k++)
      st = b->queue_create(dev, &spread[d][k]);
    if (st != HYFFT_SUCCESS) rc = failed("alloc (all-to-all)", st);
  }
  printf("hyfft_peer_bw: all-to-all over %d devices, %zu MiB per device (blocks of %.2f MiB), "
         "best of %d\n", n, bytes >> 20, (double)blk / (1 << 20), reps);
  /* Device-to-device copies, all devices at once, in several schedules
   * (hy_a2a_copies); the slab exchange (exec/multi_slab.c) uses the
   * first. */
  static const struct { int push, rotate, spread; const char *name; } sched[] = {
      {1, 1, 0, "push, rotated, one queue:"},  {0, 1, 0, "pull, rotated, one queue:"},
      {0, 0, 0, "pull, in order, one queue:"}, {1, 0, 0, "push, in order, one queue:"},
      {1, 1, 1, "push, one queue per peer:"},  {0, 1, 1, "pull, one queue per peer:"},
  };
  double best = 0;
  for (size_t v = 0; v < sizeof sched / sizeof sched[0] && !rc; v++) {
    if (sched[v].spread && !b->queue_create) continue;
    rc = hy_a2a_fill(ctx, n, blk, send, recv, host);
    best = 0;
    for (int r = 0; r <= reps && !rc; r++) {
      double t0 = hy_now();
      rc = hy_a2a_copies(ctx, n, blk, send, recv, queue, spread, sched[v].push, sched[v].rotate,
                         sched[v].spread);
      double dt = hy_now() - t0;
      if (r > 0 && (best == 0 || dt < best)) best = dt;
    }
    if (!rc) rc = hy_a2a_check(ctx, n, blk, recv, host, sched[v].name);
    if (!rc) hy_a2a_print(sched[v].name, n, blk, best);
  }

  /* NCCL on the same buffers and queues. */
  hy_nccl nc;
  const char *why = NULL;
  int cuda = strcmp(b->name, "cuda") == 0;
  if (!rc && !cuda) printf("  all-to-all by NCCL: not run (the %s backend is not CUDA)\n", b->name);
  if (!rc && cuda && !hy_nccl_load(&nc, &why))
    printf("  all-to-all by NCCL: not run (NCCL did not load: %s)\n", why ? why : "unknown");
  else if (!rc && cuda) {
    void *comm[HY_A2A_MAX] = {0};
    int ordinal[HY_A2A_MAX];
    for (int d = 0; d < n; d++) {
      const char *colon = strchr(ctx->sub[d]->info.spec, ':');
      ordinal[d] = colon ? atoi(colon + 1) : d;
    }
    int r = nc.init_all(comm, n, ordinal);
    if (r != 0) rc = nccl_failed(&nc, "ncclCommInitAll", r);
    if (!rc) rc = hy_a2a_fill(ctx, n, blk, send, recv, host);
    best = 0;
    for (int k = 0; k <= reps && !rc; k++) {
      double t0 = hy_now();
      r = nc.group_start();
      for (int d = 0; d < n && r == 0; d++)
        for (int e = 0; e < n && r == 0; e++) {
          if (e == d) continue;
          r = nc.send((const char *)send[d] + (size_t)e * blk, blk, 0, e, comm[d], queue[d]);
          if (r == 0) r = nc.recv((char *)recv[d] + (size_t)e * blk, blk, 0, e, comm[d], queue[d]);
        }
      int r2 = nc.group_end();
      if (r != 0 || r2 != 0) {
        rc = nccl_failed(&nc, "ncclSend/ncclRecv in a group", r ? r : r2);
        break;
      }
      for (int d = 0; d < n && !rc; d++) {
        hy_status st = b->synchronize(ctx->sub[d]->device, queue[d]);
        if (st != HYFFT_SUCCESS) rc = failed("synchronize (NCCL all-to-all)", st);
      }
      double dt = hy_now() - t0;
      if (k > 0 && (best == 0 || dt < best)) best = dt;
    }
    if (!rc) rc = hy_a2a_check(ctx, n, blk, recv, host, "NCCL");
    if (!rc) hy_a2a_print("NCCL (grouped ncclSend/ncclRecv):", n, blk, best);
    for (int d = 0; d < n; d++)
      if (comm[d]) nc.destroy(comm[d]);
    /* NCCL stays loaded: its threads may outlive the communicators. */
  }
  for (int d = 0; d < n; d++) {
    void *dev = ctx->sub[d]->device;
    if (queue[d]) b->queue_release(dev, queue[d]);
    for (int k = 1; k < n; k++)
      if (spread[d][k]) b->queue_release(dev, spread[d][k]);
    if (send[d]) b->release(dev, send[d]);
    if (recv[d]) b->release(dev, recv[d]);
  }
  free(host);
  return rc;
}

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "cuda:all";
  size_t mib = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 256;
  int reps = argc > 3 ? atoi(argv[3]) : 10;
  if (mib == 0) mib = 1;
  if (reps < 1) reps = 1;
  size_t bytes = mib << 20;
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create(spec, &ctx);
  if (st != HYFFT_SUCCESS || ctx->n_sub < 2) {
    printf("hyfft_peer_bw: '%s' is not a list of 2 devices or more (%s): skipped\n", spec,
           st == HYFFT_SUCCESS ? "one device" : hyfft_last_error());
    if (ctx) hyfft_context_destroy(ctx);
    return 77;
  }
  const hy_backend *b = ctx->backend;
  if (!b->copy_peer || !b->peer_access) {
    printf("hyfft_peer_bw: the %s backend has no device-to-device copy (slab plans bounce "
           "through host memory): skipped\n", b->name);
    hyfft_context_destroy(ctx);
    return 77;
  }
  int n = ctx->n_sub < 4 ? ctx->n_sub : 4;
  void *buf[4] = {NULL, NULL, NULL, NULL};
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    st = b->alloc(ctx->sub[i]->device, bytes, &buf[i]);
    if (st != HYFFT_SUCCESS) rc = failed("alloc", st);
  }
  printf("hyfft_peer_bw: %s, %zu MiB per copy, best of %d\n", spec, mib, reps);
  for (int d = 0; d < n && !rc; d++) {
    for (int e = 0; e < n && !rc; e++) {
      if (d == e) continue;
      void *dd = ctx->sub[d]->device, *ed = ctx->sub[e]->device;
      int peer = b->peer_access(dd, ed);
      /* Shapes: one block; rows of 64 KiB out of rows of 128 KiB (the
       * slab exchange's: a column block of each row). */
      for (int shape = 0; shape < 2 && !rc; shape++) {
        size_t width = shape ? (size_t)64 << 10 : bytes, height = shape ? bytes / 2 / width : 1;
        size_t pitch = shape ? 2 * width : width;
        double best = 0;
        for (int r = 0; r <= reps && !rc; r++) {
          double t0 = hy_now();
          st = b->copy_peer(dd, NULL, buf[d], 0, width, ed, buf[e], 0, pitch, width, height);
          if (st == HYFFT_SUCCESS) st = b->synchronize(dd, NULL);
          double dt = hy_now() - t0;
          if (st != HYFFT_SUCCESS) rc = failed("copy_peer", st);
          else if (r > 0 && (best == 0 || dt < best)) best = dt;
        }
        if (!rc)
          printf("  %s <- %s%s: %-28s %8.2f GB/s\n", ctx->sub[d]->info.spec,
                 ctx->sub[e]->info.spec, peer ? " (peer access)" : " (no peer access)",
                 shape ? "2D, 64 KiB rows of 128 KiB" : "contiguous",
                 (double)(width * height) / best * 1e-9);
      }
    }
  }
  /* The bus, for comparison. */
  for (int d = 0; d < n && !rc; d++) {
    void *dev = ctx->sub[d]->device;
    void *host = NULL;
    int pinned = b->host_alloc && b->host_alloc(dev, bytes, &host) == HYFFT_SUCCESS;
    if (!pinned) host = calloc(1, bytes);
    if (!host) {
      rc = failed("host memory", HYFFT_OUT_OF_MEMORY);
      break;
    }
    for (int dir = 0; dir < 2 && !rc; dir++) {
      double best = 0;
      for (int r = 0; r <= reps && !rc; r++) {
        double t0 = hy_now();
        st = dir ? b->read(dev, NULL, buf[d], 0, host, bytes, 1)
                 : b->write(dev, NULL, buf[d], 0, host, bytes, 1);
        double dt = hy_now() - t0;
        if (st != HYFFT_SUCCESS) rc = failed(dir ? "read" : "write", st);
        else if (r > 0 && (best == 0 || dt < best)) best = dt;
      }
      if (!rc)
        printf("  %s %s host (%s): %-14s %8.2f GB/s\n", ctx->sub[d]->info.spec,
               dir ? "->" : "<-", pinned ? "page-locked" : "pageable",
               dir ? "device to host" : "host to device", (double)bytes / best * 1e-9);
    }
    if (pinned) b->host_release(dev, host);
    else free(host);
  }
  /* The bus of every device at once: host to device, device to host, and
   * both (each device up on one queue, down on another), page-locked where
   * the backend has it: the floor of a host transform spread over the
   * devices, where host memory or the host's links may be shared. */
  void *hostbuf[4] = {NULL, NULL, NULL, NULL}, *up[4] = {NULL, NULL, NULL, NULL};
  int pinned_all = b->host_alloc && b->queue_create;
  for (int d = 0; d < n && !rc && pinned_all; d++) {
    void *dev = ctx->sub[d]->device;
    if (b->host_alloc(dev, bytes, &hostbuf[d]) != HYFFT_SUCCESS ||
        b->queue_create(dev, &up[d]) != HYFFT_SUCCESS)
      pinned_all = 0;
  }
  for (int dir = 0; dir < 3 && !rc && pinned_all; dir++) {
    double best = 0;
    for (int r = 0; r <= reps && !rc; r++) {
      double t0 = hy_now();
      for (int d = 0; d < n && !rc; d++) {
        void *dev = ctx->sub[d]->device;
        /* Both ways: the first half of the buffer up, the second down. */
        size_t part = dir == 2 ? bytes / 2 : bytes;
        st = HYFFT_SUCCESS;
        if (dir != 1) st = b->write(dev, up[d], buf[d], 0, hostbuf[d], part, 0);
        if (st == HYFFT_SUCCESS && dir != 0)
          st = b->read(dev, NULL, buf[d], bytes - part, (char *)hostbuf[d] + (bytes - part), part, 0);
        if (st != HYFFT_SUCCESS) rc = failed("bus copy (all devices)", st);
      }
      for (int d = 0; d < n && !rc; d++) {
        st = b->synchronize(ctx->sub[d]->device, up[d]);
        if (st == HYFFT_SUCCESS) st = b->synchronize(ctx->sub[d]->device, NULL);
        if (st != HYFFT_SUCCESS) rc = failed("synchronize (bus, all devices)", st);
      }
      double dt = hy_now() - t0;
      if (r > 0 && (best == 0 || dt < best)) best = dt;
    }
    static const char *what[3] = {"host to device", "device to host", "both ways, half each"};
    if (!rc)
      printf("  all %d devices at once, page-locked, %-22s %8.2f GB/s in all\n", n, what[dir],
             (double)bytes * n / best * 1e-9);
  }
  for (int d = 0; d < n; d++) {
    if (up[d]) b->queue_release(ctx->sub[d]->device, up[d]);
    if (hostbuf[d]) b->host_release(ctx->sub[d]->device, hostbuf[d]);
  }
  for (int i = 0; i < n; i++)
    if (buf[i]) b->release(ctx->sub[i]->device, buf[i]);
  if (!rc) {
    int all = ctx->n_sub < HY_A2A_MAX ? ctx->n_sub : HY_A2A_MAX;
    rc = hy_all_to_all(ctx, all, bytes / (size_t)all, reps);
  }
  hyfft_context_destroy(ctx);
  return rc;
}
