/* The host steps that turn a 1D real transform of even length n = 2m into
 * a complex one of length m (and one of odd length into a complex one of
 * length n, through a host buffer), for out-of-core plans
 * (exec/out_of_core.c):
 * the R2C step after the m-point DFT of the reals viewed as complex (in
 * place on the output's m + 1 bins), and the C2R step before the
 * m-point inverse DFT (from the m + 1 input bins to m complex values,
 * in place or into another buffer). One pass over the data on the host,
 * threads over the pairs of bins (k, m - k) or, for odd n, the elements. */
#ifndef HY_EXEC_OOC_REAL_H
#define HY_EXEC_OOC_REAL_H

#include <pthread.h>
#include <stdint.h>

#include "util/hy_util.h"

/* exp(sign 2 pi i k / n) for k = 0..n/4 as the product of two tables. */
typedef struct hy_ooc_real_tables {
  double *lo, *hi; /* interleaved complex: lo[k % split], hi[k / split] */
  int64_t split, n;
} hy_ooc_real_tables;

hy_status hy_ooc_real_tables_make(hy_ooc_real_tables *t, int64_t n, int sign);
void hy_ooc_real_tables_free(hy_ooc_real_tables *t);

/* One step over `batch` transforms: complex elements (f32 or f64 pairs)
 * at src + b * src_batch + k * src_stride, likewise dst. R2C: src holds
 * Z_0..Z_m-1 and may be dst, which gets X_0..X_m. C2R: src holds
 * X_0..X_m, dst gets Z_0..Z_m-1 (dst == src allowed). */
typedef struct hy_ooc_real_step {
  const hy_ooc_real_tables *tables;
  int r2c, f64;
  const char *src;
  int64_t src_stride, src_batch;
  char *dst;
  int64_t dst_stride, dst_batch;
} hy_ooc_real_step;

void hy_ooc_real_run(const hy_ooc_real_step *step, int64_t batch);

/* The step of one transform (batch 1) by columns of its bins seen as rows
 * of ncols (k = c + ncols * r; ncols divides m): every pair that has a
 * bin in a column c or ncols - c for c in [c0, c1), c0 <= c1 <= ncols/2 + 1
 * (lower columns: c <= ncols/2). Together the lower columns make up the
 * whole step, with the same bits as hy_ooc_real_run, so that it can run
 * piece by piece beside the sweeps, whose blocks are columns of that
 * view: after the R2C sweep 2 lands each block (ncols = n1), before the
 * C2R sweep 1 reads each (ncols = n2). */
void hy_ooc_real_columns(const hy_ooc_real_step *step, int64_t ncols, int64_t c0, int64_t c1);

/* The block that piece k of a sweep of `count` takes: k itself, or, in
 * mirrored order, 0, count - 1, 1, count - 2, ... (blocks b and
 * count - 1 - b hold partner columns of the real step). */
static inline int64_t hy_ooc_piece_block(int64_t k, int64_t count, int mirrored) {
  if (!mirrored) return k;
  return (k & 1) ? count - 1 - k / 2 : k / 2;
}

/* Which lower columns are done, and (after) which columns have landed.
 * Synchronous, the due pairs run inside hy_ooc_real_track_piece; with a
 * helper thread (hy_ooc_real_track_start), they run there while the
 * caller moves on: before, the helper works through the pieces in order
 * and the caller waits only for the piece it is about to read; after,
 * landings are handed over and the helper does the pairs they make due. */
typedef struct hy_ooc_real_track {
  hy_ooc_real_step step;
  int64_t ncols;
  int before; /* 1: C2R, pairs done before their columns are read */
  unsigned char *done, *landed;
  int64_t *runs; /* scratch: runs of due columns, [begin, end) pairs */
  /* The helper thread: pieces of `per` columns, `count` of them. */
  int async;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int64_t per, count;
  int mirrored;
  int64_t pieces_done; /* before: pieces (in reading order) whose pairs are done */
  int64_t landings;    /* after: calls of hy_ooc_real_track_piece */
  int quit, helper_done;
} hy_ooc_real_track;

hy_status hy_ooc_real_track_init(hy_ooc_real_track *t, const hy_ooc_real_step *step,
                                 int64_t ncols, int before);
/* Starts the helper thread for blocks [b per, (b + 1) per) of the columns,
 * b < count, read (before) in the order 0, 1, 2, ... or, mirrored,
 * 0, count - 1, 1, count - 2, ... */
hy_status hy_ooc_real_track_start(hy_ooc_real_track *t, int64_t per, int64_t count,
                                  int mirrored);
/* Columns [u0, u1), piece k of the reading order, are about to be read
 * (before; returns once their pairs are done) or have landed (after). */
void hy_ooc_real_track_piece(hy_ooc_real_track *t, int64_t k, int64_t u0, int64_t u1);
/* Waits for the helper thread to finish (after: every pair done) or, with
 * stop, tells it to stop first (after an error); no-op when synchronous. */
void hy_ooc_real_track_finish(hy_ooc_real_track *t, int stop);
void hy_ooc_real_track_free(hy_ooc_real_track *t);
/* Whether every pair is done (after hy_ooc_real_track_finish). */
int hy_ooc_real_track_complete(const hy_ooc_real_track *t);

/* Odd n, and even n whose reals are strided along the axis or an odd
 * batch distance apart: the sweeps take the whole n-point complex DFT in
 * a host buffer `work` of n complex values per transform (packed, batch
 * distance n).
 * Before them, R2C widens the reals into it (imaginary parts 0) and C2R
 * rebuilds the Hermitian spectrum from the h = n/2 + 1 bins (X_0's
 * imaginary part as 0); after them, R2C keeps the first h bins and C2R
 * the real parts. real_side is the user's real data (strides in reals),
 * cplx_side the user's bins (strides in complex elements). */
typedef struct hy_ooc_real_odd {
  int64_t n, batch;
  int r2c, f64;
  char *real_side;
  int64_t real_stride, real_batch;
  char *cplx_side;
  int64_t cplx_stride, cplx_batch;
  char *work;
} hy_ooc_real_odd;

void hy_ooc_real_odd_before(const hy_ooc_real_odd *a);
void hy_ooc_real_odd_after(const hy_ooc_real_odd *a);

#endif /* HY_EXEC_OOC_REAL_H */
