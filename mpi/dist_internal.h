/* Internal declarations of libhyfft_mpi (mpi/). The library sits above
 * hyfft's public API: local transforms are ordinary hyfft plans, the global
 * transposes MPI_Alltoallv on packed buffers. */
#ifndef HY_DIST_INTERNAL_H
#define HY_DIST_INTERNAL_H

#include <stdint.h>

#include "hyfft_mpi.h"

/* ---- errors (dist_error.c) ------------------------------------------------ */

/* Record the thread's detail message and return status. */
hyfft_status hy_dist_error(hyfft_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A failed MPI call: its error string, as HYFFT_BACKEND_ERROR. */
hyfft_status hy_dist_mpi_error(int mpi_code, const char *what);
/* A failed local hyfft call: its status, with hyfft_last_error() repeated. */
hyfft_status hy_dist_hyfft_error(hyfft_status status, const char *what);

/* Seconds on a monotonic clock (CLOCK_MONOTONIC; dist_error.c), for the
 * phase times of hyfft_dist_times. */
double hy_dist_now(void);

/* ---- decomposition (dist_layout.c) ---------------------------------------- */

/* How one axis of a distributed array is held. */
enum { HY_DIST_FULL = 0, HY_DIST_BY_P = 1, HY_DIST_BY_Q = 2 };

/* One distribution of the global (complex-side) array: per axis, whether it
 * is split over the grid's first dim (P), its second (Q) or held whole, and
 * the memory order of the axes (slowest first). */
typedef struct hy_dist_state {
  int split[3];
  int order[3];
} hy_dist_state;

#define HY_DIST_MAX_STATES 3

/* Everything the layout of one problem on one rank depends on. */
typedef struct hy_dist_geometry {
  int rank;        /* 2 or 3; a 2D problem carries a third axis of length 1 */
  int real_axis;   /* rank - 1 for R2C/C2R, -1 for C2C */
  int64_t n[3];    /* logical lengths (real length on the real axis) */
  int64_t nc[3];   /* complex-side lengths (n/2+1 on the real axis) */
  int grid[2];     /* P, Q */
  int coords[2];   /* this rank's (p, q) */
  /* Interleaved transforms (hyfft_dist_problem.howmany, at least 1). The
   * geometry's boxes count elements of howmany values each; the public
   * layout counts values (hy_dist_layout_public). */
  int64_t howmany;
  hyfft_dist_decomposition decomposition;
  int nstates;
  hy_dist_state states[HY_DIST_MAX_STATES]; /* states[0] normal, last transposed */
} hy_dist_geometry;

/* FFTW-MPI's block rule: rank r of s gets rows [*start, *start + *count)
 * of n, in blocks of ceil(n / s) (trailing ranks may get none). */
void hy_dist_block(int64_t n, int s, int r, int64_t *start, int64_t *count);

/* Validate the problem against a communicator of `size` ranks and fill the
 * geometry of rank `me` (not collective). */
hyfft_status hy_dist_geometry_init(const hyfft_dist_problem *problem, int size, int me,
                                   hy_dist_geometry *geom);

/* The box of rank (p, q) in state `st`; real != 0 describes the real side
 * (logical count n on the real axis, rows padded to 2*nc). */
void hy_dist_box_of(const hy_dist_geometry *geom, const hy_dist_state *st, int p, int q,
                    int real, hyfft_dist_box *box);

/* This rank's layout in elements of howmany values (the plan's own
 * record), and the public form of it: strides, element counts and
 * alloc_local in values. */
void hy_dist_layout_fill(const hy_dist_geometry *geom, const hyfft_dist_problem *problem,
                         hyfft_dist_layout *layout);
void hy_dist_layout_public(const hy_dist_geometry *geom, hyfft_dist_layout *layout);

/* ---- redistribution (dist_redistribute.c) --------------------------------- */

/* Copy a box of counts[3] elements of `esize` bytes between two strided
 * arrays, looping over the axes in `order` (slowest first). */
void hy_dist_copy_box(char *dst, const int64_t *dst_stride, const char *src,
                      const int64_t *src_stride, const int64_t *counts, const int *order,
                      size_t esize);

/* The messages of one peer's block in a direct transpose: runs of `run`
 * elements contiguous in both the sender's source and the receiver's
 * destination, one message each, over up to three outer loops (the
 * remaining axes in the destination's order, slowest first; length 1
 * where unused) with their strides in the source and the destination, from
 * the block's first element at src_off / dst_off (elements). */
typedef struct hy_dist_runs {
  int64_t run;
  int64_t n[3];
  int64_t src_stride[3], dst_stride[3];
  int64_t src_off, dst_off;
  int64_t messages; /* n[0] n[1] n[2]; 0 for an empty block */
} hy_dist_runs;

/* The default of HYFFT_DIST_DIRECT_MIN: a transpose goes direct where every
 * run is at least this many bytes (docs/mpi.md, "Direct transposes"). */
#define HY_DIST_DIRECT_MIN_DEFAULT 131072
/* At most this many messages a rank posts in one direct transpose, and
 * how many of them go per peer and direction in one wave. */
#define HY_DIST_DIRECT_MAX_MESSAGES 65536
#define HY_DIST_DIRECT_WAVE 16

/* One global transpose: the axis that `from` splits over grid dim `g`
 * becomes whole and the axis that `to` splits over g becomes split. */
typedef struct hy_dist_redist {
  int g;          /* 0: over P (column communicator), 1: over Q (row communicator) */
  MPI_Comm comm;  /* the sub-communicator of grid dim g (borrowed from the plan) */
  int peers;      /* its size */
  hyfft_dist_box from, to; /* this rank's boxes before and after */
  int *send_counts, *send_displs, *recv_counts, *recv_displs; /* elements, per peer */
  hyfft_dist_box *send_boxes, *recv_boxes; /* the sub-box exchanged with each peer */
  int64_t send_total, recv_total;
  /* This rank's index among the peers, and the elements of the box it
   * keeps: that box is copied from the source straight into the
   * destination (one copy in place of a pack, MPI's own copy and an
   * unpack), so its counts in the all-to-all are zero. */
  int self;
  int64_t self_total;
  /* pack: the blocks for the peers are gathered into a pack buffer (else
   * they are contiguous in the source: the split axis is its slowest);
   * unpack: what arrives is scattered into the destination (else it lands
   * there directly: the gathered axis is the slowest of both orders, which
   * are equal). Displacements are into the source / destination when not
   * packing / unpacking. */
  int pack, unpack;
  /* A chunk of a transpose (hy_dist_redist_init_chunk): where its packed
   * stream starts in the pack buffer (elements); 0 for a whole transpose. */
  int64_t send_base;
  /* direct: a transpose that would pack or unpack sends each peer's block
   * instead as point-to-point messages of its runs (hy_dist_runs), straight
   * from the source into place, where every run between every pair of the
   * sub-communicator is at least the plan's minimum (the same decision on
   * every rank, from the global geometry). send_runs / recv_runs: the
   * messages to and from each peer; requests: room for all of them. */
  int direct;
  hy_dist_runs *send_runs, *recv_runs;
  int nrequests;
  MPI_Request *requests;
} hy_dist_redist;

/* A whole transpose; direct_min: the least run in bytes for a direct
 * transpose, 0 for none (HYFFT_DIST_DIRECT_MIN). */
hyfft_status hy_dist_redist_init(hy_dist_redist *r, const hy_dist_geometry *geom,
                                 const hy_dist_state *from, const hy_dist_state *to, int g,
                                 MPI_Comm comm, int64_t direct_min, size_t esize);
void hy_dist_redist_free(hy_dist_redist *r);

/* Chunk c of k of `count` rows: [*lo, *lo + *n), balanced. */
void hy_dist_chunk(int64_t count, int k, int c, int64_t *lo, int64_t *n);

/* Chunk c of k of a transpose: every rank's source box is cut to chunk c
 * of its rows along `axis` (the axis the transpose gathers, so that chunk c
 * of every rank is what its local plan has finished after c + 1 chunks);
 * the sends and receives are those of the cut boxes. Displacements stay
 * relative to the whole boxes (sends without packing, receives), or to the
 * pack buffer from send_base (elements). axis < 0: the whole transpose. */
hyfft_status hy_dist_redist_init_chunk(hy_dist_redist *r, const hy_dist_geometry *geom,
                                       const hy_dist_state *from, const hy_dist_state *to, int g,
                                       MPI_Comm comm, int axis, int k, int c, int64_t send_base);
/* Pack a transpose that does not unpack (r->unpack == 0) and post its
 * MPI_Ialltoallv into dst; the caller completes *request. Times the
 * packing and the posting. */
hyfft_status hy_dist_redist_start(const hy_dist_redist *r, MPI_Datatype elem, size_t esize,
                                  const void *src, void *pack, void *dst, MPI_Request *request,
                                  hyfft_dist_times *times);
/* Exchange src into dst: packing into `pack` first and receiving into
 * `unpack` where the transpose needs to (see pack / unpack above). The
 * buffers used must be distinct, except that `unpack` may be src when
 * packing (src is finished with once packed). */
hyfft_status hy_dist_redist_run(const hy_dist_redist *r, MPI_Datatype elem, size_t esize,
                                const void *src, void *pack, void *unpack, void *dst,
                                hyfft_dist_times *times);

/* MPI's own MPI_Alltoallv with the counts of r, from `send` into `recv`
 * (contiguous, send_total and recv_total elements); `displs` holds
 * 2 * peers ints (allocated by the caller before the collective calls, so
 * that nothing can fail between them); *seconds its time. */
hyfft_status hy_dist_redist_replay(const hy_dist_redist *r, MPI_Datatype elem, void *send,
                                   void *recv, int *displs, double *seconds);

/* ---- token (dist_token.c) -------------------------------------------------- */
/* hyfft_dist_problem_parse is the public entry. */

#endif /* HY_DIST_INTERNAL_H */
