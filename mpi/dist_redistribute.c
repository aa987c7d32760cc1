/* One global transpose of a distributed array: each rank packs the part of
 * its box that every other peer of a sub-communicator holds afterwards into
 * one contiguous buffer (peer by peer, in the source's memory order),
 * copies the part it keeps straight into its new box, exchanges with
 * MPI_Alltoallv, and unpacks what it received into its new box. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

/* The tag of a direct transpose's messages (its own communicator). */
#define HY_DIST_TAG 7

/* Inner loop over `n` elements: contiguous runs are one memcpy, strided
 * ones an element loop specialised for complex f32 (8 bytes) and f64 (16). */
static void hy_dist_copy_row(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n,
                             size_t esize) {
  if (ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)n * esize);
  } else if (esize == 8) {
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds * 8, src + i * ss * 8, 8);
  } else if (esize == 16) {
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds * 16, src + i * ss * 16, 16);
  } else {
    for (int64_t i = 0; i < n; i++)
      memcpy(dst + i * ds * (int64_t)esize, src + i * ss * (int64_t)esize, esize);
  }
}

void hy_dist_copy_box(char *dst, const int64_t *dst_stride, const char *src,
                      const int64_t *src_stride, const int64_t *counts, const int *order,
                      size_t esize) {
  /* Drop length-1 axes and merge an axis into the next outer one where
   * both arrays are contiguous across them, so that the inner loop is as
   * long as possible (a 2D problem's third axis has length 1). */
  int64_t n[3], ds[3], ss[3];
  int k = 0;
  for (int i = 0; i < 3; i++) {
    int a = order[i];
    if (counts[a] == 0) return;
    if (counts[a] == 1) continue;
    n[k] = counts[a];
    ds[k] = dst_stride[a];
    ss[k] = src_stride[a];
    k++;
  }
  for (int i = k - 1; i > 0; i--) {
    if (ds[i - 1] == n[i] * ds[i] && ss[i - 1] == n[i] * ss[i]) {
      n[i - 1] *= n[i];
      ds[i - 1] = ds[i];
      ss[i - 1] = ss[i];
      for (int j = i; j + 1 < k; j++) {
        n[j] = n[j + 1];
        ds[j] = ds[j + 1];
        ss[j] = ss[j + 1];
      }
      k--;
    }
  }
  /* Pad to three loops, the outer ones of length 1. */
  while (k < 3) {
    for (int j = k; j > 0; j--) {
      n[j] = n[j - 1];
      ds[j] = ds[j - 1];
      ss[j] = ss[j - 1];
    }
    n[0] = 1;
    ds[0] = ss[0] = 0;
    k++;
  }
  int64_t e = (int64_t)esize;
  for (int64_t i = 0; i < n[0]; i++)
    for (int64_t j = 0; j < n[1]; j++)
      hy_dist_copy_row(dst + (i * ds[0] + j * ds[1]) * e, ds[2],
                       src + (i * ss[0] + j * ss[1]) * e, ss[2], n[2], esize);
}

/* The intersection of two boxes (start and count only). */
static void hy_dist_intersect(const hyfft_dist_box *x, const hyfft_dist_box *y,
                              hyfft_dist_box *out) {
  memset(out, 0, sizeof *out);
  for (int a = 0; a < 3; a++) {
    int64_t lo = x->start[a] > y->start[a] ? x->start[a] : y->start[a];
    int64_t xe = x->start[a] + x->count[a], ye = y->start[a] + y->count[a];
    int64_t hi = xe < ye ? xe : ye;
    out->start[a] = lo;
    out->count[a] = hi > lo ? hi - lo : 0;
  }
}

static int64_t hy_dist_box_count(const hyfft_dist_box *b) {
  return b->count[0] * b->count[1] * b->count[2];
}

/* Strides of a box's elements packed contiguously in `order`. */
static void hy_dist_packed_strides(const hyfft_dist_box *sub, const int *order, int64_t *stride) {
  int64_t s = 1;
  for (int k = 2; k >= 0; k--) {
    stride[order[k]] = s;
    s *= sub->count[order[k]];
  }
}

/* Element offset of a sub-box's first element inside its array box. */
static int64_t hy_dist_offset(const hyfft_dist_box *array, const hyfft_dist_box *sub) {
  int64_t off = 0;
  for (int a = 0; a < 3; a++) off += (sub->start[a] - array->start[a]) * array->stride[a];
  return off;
}

/* The runs of a block of `count` elements between an array with strides
 * ss (the sender's source) and one with strides ds (the receiver's
 * destination): axes of length 1 dropped, the innermost in `order` (the
 * destination's) starting a run where both strides are 1, each next one
 * out joining it while both strides equal the run so far; the axes left
 * are the outer loops, in `order`. */
static void hy_dist_runs_of(const hyfft_dist_box *block, const hyfft_dist_box *src,
                            const hyfft_dist_box *dst, const int *order, hy_dist_runs *out) {
  memset(out, 0, sizeof *out);
  out->src_off = hy_dist_offset(src, block);
  out->dst_off = hy_dist_offset(dst, block);
  for (int i = 0; i < 3; i++) out->n[i] = 1;
  if (hy_dist_box_count(block) == 0) return;
  int axes[3], k = 0;
  for (int i = 0; i < 3; i++)
    if (block->count[order[i]] > 1) axes[k++] = order[i];
  out->run = 1;
  while (k > 0) {
    int a = axes[k - 1];
    if (src->stride[a] != out->run || dst->stride[a] != out->run) break;
    out->run *= block->count[a];
    k--;
  }
  /* The outer loops, right-aligned so that n[2] is the innermost. */
  for (int i = 0; i < k; i++) {
    int a = axes[i], slot = 3 - k + i;
    out->n[slot] = block->count[a];
    out->src_stride[slot] = src->stride[a];
    out->dst_stride[slot] = dst->stride[a];
  }
  out->messages = out->n[0] * out->n[1] * out->n[2];
}

/* Whether a transpose goes direct: every pair (a, b) of the
 * sub-communicator exchanges runs of at least direct_min bytes, and no
 * rank posts more than HY_DIST_DIRECT_MAX_MESSAGES messages. Every rank of
 * the sub-communicator computes the same pairs from the global geometry,
 * so all of them decide alike. */
static int hy_dist_direct_fits(const hy_dist_redist *r, const hy_dist_geometry *geom,
                               const hy_dist_state *from, const hy_dist_state *to,
                               int64_t direct_min, size_t esize) {
  int p = geom->coords[0], q = geom->coords[1], g = r->g;
  for (int a = 0; a < r->peers; a++) {
    int64_t messages = 0;
    hyfft_dist_box a_from, a_to;
    hy_dist_box_of(geom, from, g == 0 ? a : p, g == 0 ? q : a, 0, &a_from);
    hy_dist_box_of(geom, to, g == 0 ? a : p, g == 0 ? q : a, 0, &a_to);
    for (int b = 0; b < r->peers; b++) {
      if (b == a) continue;
      hyfft_dist_box b_from, b_to, block;
      hy_dist_box_of(geom, from, g == 0 ? b : p, g == 0 ? q : b, 0, &b_from);
      hy_dist_box_of(geom, to, g == 0 ? b : p, g == 0 ? q : b, 0, &b_to);
      hy_dist_runs runs;
      /* a to b, and b to a: the messages a posts. */
      hy_dist_intersect(&a_from, &b_to, &block);
      hy_dist_runs_of(&block, &a_from, &b_to, to->order, &runs);
      if (runs.messages > 0 && runs.run * (int64_t)esize < direct_min) return 0;
      messages += runs.messages;
      hy_dist_intersect(&b_from, &a_to, &block);
      hy_dist_runs_of(&block, &b_from, &a_to, to->order, &runs);
      if (runs.messages > 0 && runs.run * (int64_t)esize < direct_min) return 0;
      messages += runs.messages;
    }
    if (messages > HY_DIST_DIRECT_MAX_MESSAGES) return 0;
  }
  return 1;
}

void hy_dist_redist_free(hy_dist_redist *r) {
  free(r->send_runs);
  free(r->recv_runs);
  free(r->requests);
  free(r->send_counts);
  free(r->send_displs);
  free(r->recv_counts);
  free(r->recv_displs);
  free(r->send_boxes);
  free(r->recv_boxes);
  memset(r, 0, sizeof *r);
}

void hy_dist_chunk(int64_t count, int k, int c, int64_t *lo, int64_t *n) {
  *lo = count * c / k;
  *n = count * (c + 1) / k - *lo;
}

/* Restrict a source box to its chunk (see hy_dist_redist_init_chunk). */
static void hy_dist_restrict(hyfft_dist_box *b, int axis, int k, int c) {
  if (axis < 0) return;
  int64_t lo, n;
  hy_dist_chunk(b->count[axis], k, c, &lo, &n);
  b->start[axis] += lo;
  b->count[axis] = n;
}

hyfft_status hy_dist_redist_init(hy_dist_redist *r, const hy_dist_geometry *geom,
                                 const hy_dist_state *from, const hy_dist_state *to, int g,
                                 MPI_Comm comm, int64_t direct_min, size_t esize) {
  hyfft_status s = hy_dist_redist_init_chunk(r, geom, from, to, g, comm, -1, 1, 0, 0);
  if (s != HYFFT_SUCCESS || direct_min <= 0 || r->peers < 2 || !(r->pack || r->unpack) ||
      !hy_dist_direct_fits(r, geom, from, to, direct_min, esize))
    return s;
  size_t np = (size_t)(r->peers > 0 ? r->peers : 0);
  r->send_runs = calloc(np, sizeof *r->send_runs);
  r->recv_runs = calloc(np, sizeof *r->recv_runs);
  if (!r->send_runs || !r->recv_runs) {
    hy_dist_redist_free(r);
    return hy_dist_error(HYFFT_OUT_OF_MEMORY, "direct transpose tables for %d peers", (int)np);
  }
  int p = geom->coords[0], q = geom->coords[1];
  int64_t messages = 0;
  for (int j = 0; j < r->peers; j++) {
    if (j == r->self) continue;
    hyfft_dist_box peer_from, peer_to;
    hy_dist_box_of(geom, from, g == 0 ? j : p, g == 0 ? q : j, 0, &peer_from);
    hy_dist_box_of(geom, to, g == 0 ? j : p, g == 0 ? q : j, 0, &peer_to);
    hy_dist_runs_of(&r->send_boxes[j], &r->from, &peer_to, to->order, &r->send_runs[j]);
    hy_dist_runs_of(&r->recv_boxes[j], &peer_from, &r->to, to->order, &r->recv_runs[j]);
    messages += r->send_runs[j].messages + r->recv_runs[j].messages;
  }
  r->requests = messages > 0 ? malloc((size_t)messages * sizeof *r->requests) : NULL;
  if (messages > 0 && !r->requests) {
    hy_dist_redist_free(r);
    return hy_dist_error(HYFFT_OUT_OF_MEMORY, "%lld requests of a direct transpose",
                         (long long)messages);
  }
  r->nrequests = (int)messages;
  r->direct = 1;
  return HYFFT_SUCCESS;
}

hyfft_status hy_dist_redist_init_chunk(hy_dist_redist *r, const hy_dist_geometry *geom,
                                       const hy_dist_state *from, const hy_dist_state *to, int g,
                                       MPI_Comm comm, int axis, int k, int c, int64_t send_base) {
  memset(r, 0, sizeof *r);
  r->send_base = send_base;
  r->g = g;
  r->comm = comm;
  r->peers = geom->grid[g];
  int p = geom->coords[0], q = geom->coords[1];
  hy_dist_box_of(geom, from, p, q, 0, &r->from);
  hy_dist_box_of(geom, to, p, q, 0, &r->to);
  size_t np = (size_t)r->peers;
  r->send_counts = calloc(np, sizeof(int));
  r->send_displs = calloc(np, sizeof(int));
  r->recv_counts = calloc(np, sizeof(int));
  r->recv_displs = calloc(np, sizeof(int));
  r->send_boxes = calloc(np, sizeof(hyfft_dist_box));
  r->recv_boxes = calloc(np, sizeof(hyfft_dist_box));
  if (!r->send_counts || !r->send_displs || !r->recv_counts || !r->recv_displs ||
      !r->send_boxes || !r->recv_boxes) {
    hy_dist_redist_free(r);
    return hy_dist_error(HYFFT_OUT_OF_MEMORY, "redistribution tables for %d peers", (int)np);
  }
  int split = -1, gather = -1;
  for (int a = 0; a < 3; a++) {
    if (from->split[a] == HY_DIST_FULL && to->split[a] != HY_DIST_FULL) split = a;
    if (from->split[a] != HY_DIST_FULL && to->split[a] == HY_DIST_FULL) gather = a;
  }
  r->pack = from->order[0] != split;
  r->unpack = !(to->order[0] == gather && from->order[0] == to->order[0] &&
                from->order[1] == to->order[1]);
  if (r->from.elements > INT_MAX || r->to.elements > INT_MAX) {
    hy_dist_redist_free(r);
    return hy_dist_error(HYFFT_SIZE_OVERFLOW,
                         "a rank's box exceeds INT_MAX elements; use more ranks");
  }
  int64_t sdisp = 0, rdisp = 0;
  for (int j = 0; j < r->peers; j++) {
    int pp = g == 0 ? j : p, qq = g == 0 ? q : j;
    hyfft_dist_box peer_from, peer_to;
    hy_dist_box_of(geom, from, pp, qq, 0, &peer_from);
    hy_dist_box_of(geom, to, pp, qq, 0, &peer_to);
    hyfft_dist_box mine = r->from;
    hy_dist_restrict(&mine, axis, k, c);
    hy_dist_restrict(&peer_from, axis, k, c);
    hy_dist_intersect(&mine, &peer_to, &r->send_boxes[j]);
    hy_dist_intersect(&peer_from, &r->to, &r->recv_boxes[j]);
    int64_t sc = hy_dist_box_count(&r->send_boxes[j]);
    int64_t rc = hy_dist_box_count(&r->recv_boxes[j]);
    if (sdisp + sc > INT_MAX || rdisp + rc > INT_MAX) {
      hy_dist_redist_free(r);
      return hy_dist_error(HYFFT_SIZE_OVERFLOW,
                           "a rank's all-to-all exceeds INT_MAX elements; use more ranks");
    }
    r->send_counts[j] = (int)sc;
    r->send_displs[j] = (int)(r->pack || sc == 0 ? sdisp : hy_dist_offset(&r->from, &r->send_boxes[j]));
    r->recv_counts[j] = (int)rc;
    r->recv_displs[j] = (int)(r->unpack || rc == 0 ? rdisp : hy_dist_offset(&r->to, &r->recv_boxes[j]));
    sdisp += sc;
    rdisp += rc;
  }
  r->send_total = sdisp;
  r->recv_total = rdisp;
  /* The box this rank keeps leaves the all-to-all (hy_dist_redist_self). */
  r->self = g == 0 ? p : q;
  r->self_total = r->send_counts[r->self];
  r->send_counts[r->self] = 0;
  r->recv_counts[r->self] = 0;
  return HYFFT_SUCCESS;
}

/* The box this rank keeps, from its place in the source straight to its
 * place in the destination, written in the destination's order. */
static void hy_dist_redist_self(const hy_dist_redist *r, size_t esize, const void *src, void *dst) {
  const hyfft_dist_box *sub = &r->send_boxes[r->self];
  if (r->self_total == 0) return;
  hy_dist_copy_box((char *)dst + hy_dist_offset(&r->to, &r->recv_boxes[r->self]) * (int64_t)esize,
                   r->to.stride, (const char *)src + hy_dist_offset(&r->from, sub) * (int64_t)esize,
                   r->from.stride, sub->count, r->to.order, esize);
}

/* Post messages [first, first + count) of one peer's block, in the loops'
 * order (receives into base, or sends from it), one per run; a failed post
 * leaves MPI_REQUEST_NULL and sets *rc. The messages of one pair go in
 * that order under one tag, and MPI matches them in posting order
 * (non-overtaking). */
static void hy_dist_post_runs(const hy_dist_runs *m, int recv, char *base, size_t esize,
                              MPI_Datatype elem, int peer, MPI_Comm comm, int64_t first,
                              int64_t count, MPI_Request *req, int *nreq, int *rc) {
  const int64_t *stride = recv ? m->dst_stride : m->src_stride;
  int64_t off0 = recv ? m->dst_off : m->src_off;
  for (int64_t x = first; x < first + count && x < m->messages; x++) {
    int64_t k = x % m->n[2], j = x / m->n[2] % m->n[1], i = x / m->n[2] / m->n[1];
    char *at = base + (off0 + i * stride[0] + j * stride[1] + k * stride[2]) * (int64_t)esize;
    MPI_Request *q = &req[(*nreq)++];
    int e = recv ? MPI_Irecv(at, (int)m->run, elem, peer, HY_DIST_TAG, comm, q)
                 : MPI_Isend(at, (int)m->run, elem, peer, HY_DIST_TAG, comm, q);
    if (e != MPI_SUCCESS) {
      *q = MPI_REQUEST_NULL;
      if (*rc == MPI_SUCCESS) *rc = e;
    }
  }
}

/* A direct transpose, in waves of HY_DIST_DIRECT_WAVE messages per peer
 * and direction: each wave's receives posted, then its sends, then all of
 * them waited for; the block this rank keeps is copied while the first
 * wave is in flight. With every message of a large transpose in flight at
 * once, Open MPI's shared-memory transport now and then took twice as
 * long (docs/mpi.md, "Direct transposes"). */
static hyfft_status hy_dist_redist_direct(const hy_dist_redist *r, MPI_Datatype elem,
                                          size_t esize, const void *src, void *dst,
                                          hyfft_dist_times *times) {
  int64_t most = 0;
  for (int j = 0; j < r->peers; j++) {
    if (j == r->self) continue;
    if (r->send_runs[j].messages > most) most = r->send_runs[j].messages;
    if (r->recv_runs[j].messages > most) most = r->recv_runs[j].messages;
  }
  int rc = MPI_SUCCESS, wrc = MPI_SUCCESS;
  double in_mpi = 0, copy = 0;
  for (int64_t first = 0; first < most || first == 0; first += HY_DIST_DIRECT_WAVE) {
    double t0 = hy_dist_now();
    int nreq = 0;
    for (int j = 0; j < r->peers; j++)
      if (j != r->self)
        hy_dist_post_runs(&r->recv_runs[j], 1, dst, esize, elem, j, r->comm, first,
                          HY_DIST_DIRECT_WAVE, r->requests, &nreq, &rc);
    for (int j = 0; j < r->peers; j++)
      if (j != r->self)
        hy_dist_post_runs(&r->send_runs[j], 0, (char *)src, esize, elem, j, r->comm, first,
                          HY_DIST_DIRECT_WAVE, r->requests, &nreq, &rc);
    double t1 = hy_dist_now();
    if (first == 0) hy_dist_redist_self(r, esize, src, dst);
    double t2 = hy_dist_now();
    int e = MPI_Waitall(nreq, r->requests, MPI_STATUSES_IGNORE);
    if (e != MPI_SUCCESS && wrc == MPI_SUCCESS) wrc = e;
    in_mpi += (t1 - t0) + (hy_dist_now() - t2);
    copy += t2 - t1;
    if (most == 0) break;
  }
  times->pack += copy;
  times->alltoall += in_mpi;
  times->alltoall_bytes += (r->send_total - r->self_total) * (int64_t)esize;
  times->alltoall_recv_bytes += (r->recv_total - r->self_total) * (int64_t)esize;
  times->kept_bytes += r->self_total * (int64_t)esize;
  times->alltoalls++;
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "posting a direct transpose's messages");
  if (wrc != MPI_SUCCESS) return hy_dist_mpi_error(wrc, "MPI_Waitall (direct transpose)");
  return HYFFT_SUCCESS;
}

hyfft_status hy_dist_redist_run(const hy_dist_redist *r, MPI_Datatype elem, size_t esize,
                                const void *src, void *pack, void *unpack, void *dst,
                                hyfft_dist_times *times) {
  int64_t stream_stride[3];
  double t0 = hy_dist_now();
  if (r->peers == 1) {
    /* Nothing leaves the rank: one copy from the old layout to the new. */
    const hyfft_dist_box *sub = &r->recv_boxes[0];
    if (hy_dist_box_count(sub) > 0)
      hy_dist_copy_box((char *)dst + hy_dist_offset(&r->to, sub) * (int64_t)esize, r->to.stride,
                       (const char *)src + hy_dist_offset(&r->from, sub) * (int64_t)esize,
                       r->from.stride, sub->count, r->to.order, esize);
    times->pack += hy_dist_now() - t0;
    return HYFFT_SUCCESS;
  }
  if (r->direct) return hy_dist_redist_direct(r, elem, esize, src, dst, times);
  const void *send = src;
  if (r->pack) {
    send = pack;
    for (int j = 0; j < r->peers; j++) {
      const hyfft_dist_box *sub = &r->send_boxes[j];
      if (r->send_counts[j] == 0) continue;
      hy_dist_packed_strides(sub, r->from.order, stream_stride);
      hy_dist_copy_box((char *)pack + (int64_t)r->send_displs[j] * (int64_t)esize, stream_stride,
                       (const char *)src + hy_dist_offset(&r->from, sub) * (int64_t)esize,
                       r->from.stride, sub->count, r->from.order, esize);
    }
  }
  /* Before the exchange: an unpacking transpose may receive into the
   * source's buffer. */
  hy_dist_redist_self(r, esize, src, dst);
  void *recv = r->unpack ? unpack : dst;
  double t1 = hy_dist_now();
  int rc = MPI_Alltoallv(send, r->send_counts, r->send_displs, elem, recv, r->recv_counts,
                         r->recv_displs, elem, r->comm);
  double t2 = hy_dist_now();
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Alltoallv");
  if (r->unpack) {
    for (int j = 0; j < r->peers; j++) {
      const hyfft_dist_box *sub = &r->recv_boxes[j];
      if (r->recv_counts[j] == 0) continue;
      /* The sender packed in the source layout's order; write in the
       * destination's order so that the stores are sequential. */
      hy_dist_packed_strides(sub, r->from.order, stream_stride);
      hy_dist_copy_box((char *)dst + hy_dist_offset(&r->to, sub) * (int64_t)esize, r->to.stride,
                       (const char *)unpack + (int64_t)r->recv_displs[j] * (int64_t)esize,
                       stream_stride, sub->count, r->to.order, esize);
    }
  }
  double t3 = hy_dist_now();
  times->pack += t1 - t0;
  times->unpack += t3 - t2;
  times->alltoall += t2 - t1;
  times->alltoall_bytes += (r->send_total - r->self_total) * (int64_t)esize;
  times->alltoall_recv_bytes += (r->recv_total - r->self_total) * (int64_t)esize;
  times->kept_bytes += r->self_total * (int64_t)esize;
  times->alltoalls++;
  return HYFFT_SUCCESS;
}

hyfft_status hy_dist_redist_replay(const hy_dist_redist *r, MPI_Datatype elem, void *send,
                                   void *recv, int *displs, double *seconds) {
  *seconds = 0;
  if (r->peers == 1) return HYFFT_SUCCESS;
  int *sd = displs, *rd = displs + r->peers;
  sd[0] = rd[0] = 0;
  for (int j = 1; j < r->peers; j++) {
    sd[j] = sd[j - 1] + r->send_counts[j - 1];
    rd[j] = rd[j - 1] + r->recv_counts[j - 1];
  }
  double t0 = hy_dist_now();
  int rc = MPI_Alltoallv(send, r->send_counts, sd, elem, recv, r->recv_counts, rd, elem, r->comm);
  *seconds = hy_dist_now() - t0;
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Alltoallv");
  return HYFFT_SUCCESS;
}

hyfft_status hy_dist_redist_start(const hy_dist_redist *r, MPI_Datatype elem, size_t esize,
                                  const void *src, void *pack, void *dst, MPI_Request *request,
                                  hyfft_dist_times *times) {
  int64_t stream_stride[3];
  double t0 = hy_dist_now();
  const void *send = src;
  if (r->pack) {
    send = (char *)pack + r->send_base * (int64_t)esize;
    for (int j = 0; j < r->peers; j++) {
      const hyfft_dist_box *sub = &r->send_boxes[j];
      if (r->send_counts[j] == 0) continue;
      hy_dist_packed_strides(sub, r->from.order, stream_stride);
      hy_dist_copy_box((char *)send + (int64_t)r->send_displs[j] * (int64_t)esize, stream_stride,
                       (const char *)src + hy_dist_offset(&r->from, sub) * (int64_t)esize,
                       r->from.stride, sub->count, r->from.order, esize);
    }
  }
  hy_dist_redist_self(r, esize, src, dst);
  double t1 = hy_dist_now();
  int rc = MPI_Ialltoallv(send, r->send_counts, r->send_displs, elem, dst, r->recv_counts,
                          r->recv_displs, elem, r->comm, request);
  double t2 = hy_dist_now();
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Ialltoallv");
  times->pack += t1 - t0;
  times->alltoall += t2 - t1;
  times->alltoall_bytes += (r->send_total - r->self_total) * (int64_t)esize;
  times->alltoall_recv_bytes += (r->recv_total - r->self_total) * (int64_t)esize;
  times->kept_bytes += r->self_total * (int64_t)esize;
  times->alltoalls++;
  return HYFFT_SUCCESS;
}
