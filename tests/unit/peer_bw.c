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
 * Prints one line per copy: GB/s (1e9 bytes per second, the bytes copied
 * once, not read plus written). Exit 0, 1 on a failure, 77 when the list
 * does not open or the backend has no device-to-device copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

static int failed(const char *what, hyfft_status st) {
  fprintf(stderr, "hyfft_peer_bw: %s: %s: %s\n", what, hyfft_status_name(st), hyfft_last_error());
  return 1;
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
  for (int i = 0; i < n; i++)
    if (buf[i]) b->release(ctx->sub[i]->device, buf[i]);
  hyfft_context_destroy(ctx);
  return rc;
}
