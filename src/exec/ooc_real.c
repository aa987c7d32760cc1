/* The host steps of a 1D real transform out of core (exec/ooc_real.h).
 *
 * With n = 2m and z_j = x_2j + i x_2j+1 (j < m), Z = DFT_m(z):
 *   R2C:  X_k = E_k + w^k O_k,  E_k = (Z_k + conj Z_m-k) / 2,
 *         O_k = -i (Z_k - conj Z_m-k) / 2,  w = exp(-2 pi i / n),
 *         X_0 = Re Z_0 + Im Z_0, X_m = Re Z_0 - Im Z_0 (both real);
 *   C2R:  Z_k = (X_k + conj X_m-k) + i v^k (X_k - conj X_m-k),
 *         v = exp(+2 pi i / n), with the imaginary parts of X_0 and X_m
 *         taken as 0 (FFTW's rule), and z = the unnormalised inverse
 *         DFT_m(Z), whose parts are the even and odd reals.
 * Bins k and m - k depend only on each other, so each pair is read and
 * written together and the steps work in place. Since w^(m-k) =
 * -conj(w^k), one twiddle serves a pair. Arithmetic in double for both
 * precisions (f32 results rounded once); twiddles w^k = T_hi[k / S] *
 * T_lo[k % S] from two short tables rounded from long double
 * (tables/twiddle.h). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/host_complex.h"
#include "exec/ooc_real.h"
#include "tables/twiddle.h"

hy_status hy_ooc_real_tables_make(hy_ooc_real_tables *t, int64_t n, int sign) {
  memset(t, 0, sizeof *t);
  int64_t pairs = n / 4 + 1; /* k = 0..m/2 */
  int64_t s = (int64_t)ceil(sqrt((double)pairs));
  if (s < 1) s = 1;
  int64_t hi = pairs / s + 1;
  t->lo = hy_malloc((size_t)(2 * s) * sizeof(double));
  t->hi = hy_malloc((size_t)(2 * hi) * sizeof(double));
  if (!t->lo || !t->hi) {
    hy_ooc_real_tables_free(t);
    return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no memory for the real step's twiddles");
  }
  hy_twiddle_table_f64(t->lo, s, 1, n, sign);
  hy_twiddle_table_f64(t->hi, hi, s, n, sign);
  t->split = s;
  t->n = n;
  return HYFFT_SUCCESS;
}

void hy_ooc_real_tables_free(hy_ooc_real_tables *t) {
  free(t->lo);
  free(t->hi);
  t->lo = t->hi = NULL;
}

typedef struct hy_ooc_real_job {
  const hy_ooc_real_step *step;
  int64_t pairs; /* per batch entry: k = 0..m/2 */
} hy_ooc_real_job;

/* The pairs (k, m - k) of one batch entry for k in [k0, k1), 0 < k0 and
 * k1 <= m/2 (so every k is below its partner and no two pairs share an
 * element), done HY_OOC_REAL_BLOCK at a time: the twiddles of the block
 * come from one hi entry times consecutive lo entries (no division per
 * pair), and the loops over the block's temporaries are plain
 * element-wise arithmetic that the compiler vectorizes. */
#define HY_OOC_REAL_BLOCK 256

#define HY_OOC_REAL_PAIRS(NAME, REAL, SS, DS)                                                    \
  static void NAME(const hy_ooc_real_step *s, const REAL *src, REAL *dst, int64_t k0,            \
                   int64_t k1) {                                                                 \
    const hy_ooc_real_tables *t = s->tables;                                                     \
    const int64_t m = t->n / 2, ss = (SS), ds = (DS);                                            \
    double are[HY_OOC_REAL_BLOCK], aim[HY_OOC_REAL_BLOCK], cre[HY_OOC_REAL_BLOCK],               \
        cim[HY_OOC_REAL_BLOCK], wre[HY_OOC_REAL_BLOCK], wim[HY_OOC_REAL_BLOCK];                  \
    double xre[HY_OOC_REAL_BLOCK], xim[HY_OOC_REAL_BLOCK], yre[HY_OOC_REAL_BLOCK],               \
        yim[HY_OOC_REAL_BLOCK];                                                                  \
    for (int64_t k = k0; k < k1;) {                                                              \
      /* The block stays inside one hi entry: w^k = hi[q] lo[k - q S]. */                        \
      const int64_t q = k / t->split, r0 = k - q * t->split;                                     \
      int64_t len = t->split - r0;                                                               \
      if (len > k1 - k) len = k1 - k;                                                            \
      if (len > HY_OOC_REAL_BLOCK) len = HY_OOC_REAL_BLOCK;                                      \
      const double hre = t->hi[2 * q], him = t->hi[2 * q + 1];                                   \
      const double *lo = t->lo + 2 * r0;                                                         \
      const REAL *a = src + k * ss, *c = src + (m - k) * ss;                                     \
      for (int64_t i = 0; i < len; i++) {                                                        \
        are[i] = a[i * ss];                                                                      \
        aim[i] = a[i * ss + 1];                                                                  \
      }                                                                                          \
      for (int64_t i = 0; i < len; i++) {                                                        \
        cre[i] = c[-i * ss];                                                                     \
        cim[i] = c[-i * ss + 1];                                                                 \
      }                                                                                          \
      for (int64_t i = 0; i < len; i++) {                                                        \
        wre[i] = hre * lo[2 * i] - him * lo[2 * i + 1];                                          \
        wim[i] = hre * lo[2 * i + 1] + him * lo[2 * i];                                          \
      }                                                                                          \
      if (s->r2c) {                                                                              \
        /* E = (Z_k + conj Z_j)/2, O = -i (Z_k - conj Z_j)/2, X_k = E + w^k O;                   \
         * E_j = conj E_k, O_j = conj O_k and w^j = -conj w^k, so                                \
         * X_j = conj(E_k - w^k O_k). */                                                         \
        for (int64_t i = 0; i < len; i++) {                                                      \
          double ere = 0.5 * (are[i] + cre[i]), eim = 0.5 * (aim[i] - cim[i]);                   \
          double ore = 0.5 * (aim[i] + cim[i]), oim = -0.5 * (are[i] - cre[i]);                  \
          double pre = wre[i] * ore - wim[i] * oim, pim = wre[i] * oim + wim[i] * ore;           \
          xre[i] = ere + pre;                                                                    \
          xim[i] = eim + pim;                                                                    \
          yre[i] = ere - pre;                                                                    \
          yim[i] = -(eim - pim);                                                                 \
        }                                                                                        \
      } else {                                                                                   \
        /* S = X_k + conj X_j, D = X_k - conj X_j: Z_k = S + i v^k D and                         \
         * Z_j = conj(S - i v^k D). */                                                           \
        for (int64_t i = 0; i < len; i++) {                                                      \
          double sre = are[i] + cre[i], sim = aim[i] - cim[i];                                   \
          double dre = are[i] - cre[i], dim = aim[i] + cim[i];                                   \
          double vre = wre[i] * dre - wim[i] * dim, vim = wre[i] * dim + wim[i] * dre;           \
          xre[i] = sre - vim;                                                                    \
          xim[i] = sim + vre;                                                                    \
          yre[i] = sre + vim;                                                                    \
          yim[i] = -(sim - vre);                                                                 \
        }                                                                                        \
      }                                                                                          \
      REAL *x = dst + k * ds, *y = dst + (m - k) * ds;                                           \
      for (int64_t i = 0; i < len; i++) {                                                        \
        x[i * ds] = (REAL)xre[i];                                                                \
        x[i * ds + 1] = (REAL)xim[i];                                                            \
      }                                                                                          \
      for (int64_t i = 0; i < len; i++) {                                                        \
        y[-i * ds] = (REAL)yre[i];                                                               \
        y[-i * ds + 1] = (REAL)yim[i];                                                           \
      }                                                                                          \
      k += len;                                                                                  \
    }                                                                                            \
  }

/* Unit strides (the common case) as constants, so that the loads and
 * stores are contiguous vectors; any strides otherwise. */
HY_OOC_REAL_PAIRS(hy_ooc_real_pairs_f32, float, 2 * s->src_stride, 2 * s->dst_stride)
HY_OOC_REAL_PAIRS(hy_ooc_real_pairs_f64, double, 2 * s->src_stride, 2 * s->dst_stride)
HY_OOC_REAL_PAIRS(hy_ooc_real_pairs_unit_f32, float, 2, 2)
HY_OOC_REAL_PAIRS(hy_ooc_real_pairs_unit_f64, double, 2, 2)

/* Pair k of one entry on its own: k = 0 (bins 0 and m, whose partners are
 * themselves) and, for even m, k = m/2 (its own partner). */
static void hy_ooc_real_single(const hy_ooc_real_step *s, const char *src, char *dst,
                               int64_t k) {
  const int f64 = s->f64;
  const int64_t m = s->tables->n / 2;
  if (k == 0) {
    if (s->r2c) {
      hy_cplx z = hy_cplx_get(src, 0, f64);
      hy_cplx_put(dst, 0, (hy_cplx){z.re + z.im, 0.0}, f64);
      hy_cplx_put(dst, m * s->dst_stride, (hy_cplx){z.re - z.im, 0.0}, f64);
    } else {
      double x0 = hy_cplx_get(src, 0, f64).re, xm = hy_cplx_get(src, m * s->src_stride, f64).re;
      hy_cplx_put(dst, 0, (hy_cplx){x0 + xm, x0 - xm}, f64);
    }
    return;
  }
  /* k = m - k: w^k = -i for R2C (v^k = +i for C2R), so X_k = conj Z_k
   * and Z_k = 2 conj X_k; computed as the general pair for one k. */
  hy_cplx a = hy_cplx_get(src, k * s->src_stride, f64);
  const double *hi = s->tables->hi + 2 * (k / s->tables->split);
  const double *lo = s->tables->lo + 2 * (k % s->tables->split);
  hy_cplx w = {hi[0] * lo[0] - hi[1] * lo[1], hi[0] * lo[1] + hi[1] * lo[0]};
  if (s->r2c) {
    hy_cplx e = {a.re, 0.0}, o = {a.im, 0.0};
    hy_cplx_put(dst, k * s->dst_stride,
                (hy_cplx){e.re + w.re * o.re - w.im * o.im, e.im + w.re * o.im + w.im * o.re}, f64);
  } else {
    hy_cplx sum = {2.0 * a.re, 0.0}, dif = {0.0, 2.0 * a.im};
    hy_cplx vd = {w.re * dif.re - w.im * dif.im, w.re * dif.im + w.im * dif.re};
    hy_cplx_put(dst, k * s->dst_stride, (hy_cplx){sum.re - vd.im, sum.im + vd.re}, f64);
  }
}

/* The pairs (k, m - k) of one entry for k in [k0, k1), 0 <= k0 < k1 <=
 * m/2 + 1: k = 0 and, for even m, k = m/2 on their own, the rest in
 * blocks. */
static void hy_ooc_real_pairs_run(const hy_ooc_real_step *s, const char *src, char *dst,
                                  int64_t k0, int64_t k1) {
  const int64_t m = s->tables->n / 2;
  if (k0 == 0 && k0 < k1) hy_ooc_real_single(s, src, dst, k0++);
  /* For even m, k = m/2 is the last pair and its own partner. */
  if (m % 2 == 0 && k1 == m / 2 + 1 && k0 < k1) hy_ooc_real_single(s, src, dst, --k1);
  if (k0 >= k1) return;
  int unit = s->src_stride == 1 && s->dst_stride == 1;
  if (s->f64 && unit)
    hy_ooc_real_pairs_unit_f64(s, (const double *)src, (double *)dst, k0, k1);
  else if (s->f64)
    hy_ooc_real_pairs_f64(s, (const double *)src, (double *)dst, k0, k1);
  else if (unit)
    hy_ooc_real_pairs_unit_f32(s, (const float *)src, (float *)dst, k0, k1);
  else
    hy_ooc_real_pairs_f32(s, (const float *)src, (float *)dst, k0, k1);
}

/* Pairs [begin, end) over the batch (index = b * pairs + k), entry by
 * entry. */
static void hy_ooc_real_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_real_job *job = arg;
  const hy_ooc_real_step *s = job->step;
  const size_t ce = s->f64 ? 16 : 8;
  while (begin < end) {
    int64_t b = begin / job->pairs, k0 = begin % job->pairs;
    int64_t k1 = job->pairs - k0 < end - begin ? job->pairs : k0 + (end - begin);
    const char *src = s->src + (size_t)(b * s->src_batch) * ce;
    char *dst = s->dst + (size_t)(b * s->dst_batch) * ce;
    hy_ooc_real_pairs_run(s, src, dst, k0, k1);
    begin += k1 - k0;
  }
}

void hy_ooc_real_run(const hy_ooc_real_step *step, int64_t batch) {
  hy_ooc_real_job job = {step, step->tables->n / 4 + 1};
  hy_parallel_for(batch * job.pairs, 4096, hy_ooc_real_range, &job);
}

/* Elements [begin, end) of an odd-length step, one direction, over the
 * flat index b * len + j (len = n, or h where only the half spectrum is
 * written). */
typedef struct hy_ooc_odd_job {
  const hy_ooc_real_odd *a;
  int after;
  int64_t len;
} hy_ooc_odd_job;

static void hy_ooc_odd_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_odd_job *job = arg;
  const hy_ooc_real_odd *a = job->a;
  const int f64 = a->f64;
  const size_t re = f64 ? 8 : 4;
  const int64_t n = a->n, h = n / 2 + 1;
  for (int64_t i = begin; i < end; i++) {
    int64_t b = i / job->len, j = i % job->len;
    char *w = a->work + (size_t)(b * n) * 2 * re;
    char *r = a->real_side + (size_t)(b * a->real_batch) * re;
    char *c = a->cplx_side + (size_t)(b * a->cplx_batch) * 2 * re;
    if (!job->after && a->r2c) {
      double x = f64 ? ((const double *)r)[j * a->real_stride]
                     : ((const float *)r)[j * a->real_stride];
      hy_cplx_put(w, j, (hy_cplx){x, 0.0}, f64);
    } else if (!job->after) {
      hy_cplx v = hy_cplx_get(c, (j < h ? j : n - j) * a->cplx_stride, f64);
      if (j == 0) v.im = 0.0;
      else if (j >= h) v.im = -v.im;
      hy_cplx_put(w, j, v, f64);
    } else if (a->r2c) {
      hy_cplx_put(c, j * a->cplx_stride, hy_cplx_get(w, j, f64), f64);
    } else {
      double x = hy_cplx_get(w, j, f64).re;
      if (f64)
        ((double *)r)[j * a->real_stride] = x;
      else
        ((float *)r)[j * a->real_stride] = (float)x;
    }
  }
}

void hy_ooc_real_odd_before(const hy_ooc_real_odd *a) {
  hy_ooc_odd_job job = {a, 0, a->n};
  hy_parallel_for(a->batch * a->n, 1 << 16, hy_ooc_odd_range, &job);
}

void hy_ooc_real_odd_after(const hy_ooc_real_odd *a) {
  hy_ooc_odd_job job = {a, 1, a->r2c ? a->n / 2 + 1 : a->n};
  hy_parallel_for(a->batch * job.len, 1 << 16, hy_ooc_odd_range, &job);
}

/* ---- the step by columns -------------------------------------------------- */

/* With k = c + ncols * r, bin k's partner m - k is (ncols - c, nrows - 1 - r)
 * for c > 0 and (0, nrows - r) for c = 0 (r = 0: bin m, which pairs with
 * bin 0). A pair is done once, from its representative k <= m/2: for a
 * lower column c (0 < 2c <= ncols), rows r < (nrows + 1)/2 of column c
 * and, unless c is its own partner column, rows r < nrows/2 of column
 * ncols - c; for column 0, rows 0..nrows/2. So the columns [c0, c1) take,
 * per row, one run of k in column order and one in reverse. */
typedef struct hy_ooc_cols_job {
  const hy_ooc_real_step *step;
  int64_t ncols, nrows, c0, c1;
} hy_ooc_cols_job;

static void hy_ooc_cols_rows(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_ooc_cols_job *j = arg;
  const hy_ooc_real_step *s = j->step;
  const int64_t ncols = j->ncols, nrows = j->nrows;
  int64_t lo = j->c0 > 0 ? j->c0 : 1, hi = j->c1;
  /* Columns c < ncols - c have a partner column; c = ncols/2 has none. */
  int64_t hi_pair = hi < (ncols + 1) / 2 ? hi : (ncols + 1) / 2;
  for (int64_t r = begin; r < end; r++) {
    if (j->c0 == 0 && r <= nrows / 2) hy_ooc_real_pairs_run(s, s->src, s->dst, ncols * r, ncols * r + 1);
    if (lo < hi && r < (nrows + 1) / 2)
      hy_ooc_real_pairs_run(s, s->src, s->dst, lo + ncols * r, hi + ncols * r);
    if (lo < hi_pair && r < nrows / 2)
      hy_ooc_real_pairs_run(s, s->src, s->dst, ncols - hi_pair + 1 + ncols * r,
                            ncols - lo + 1 + ncols * r);
  }
}

void hy_ooc_real_columns(const hy_ooc_real_step *step, int64_t ncols, int64_t c0, int64_t c1) {
  int64_t m = step->tables->n / 2, half = ncols / 2;
  if (c1 > half + 1) c1 = half + 1;
  if (c0 >= c1) return;
  hy_ooc_cols_job job = {step, ncols, m / ncols, c0, c1};
  int64_t rows = job.nrows / 2 + 1;
  int64_t grain = (1 << 16) / (c1 - c0) + 1;
  hy_parallel_for(rows, grain, hy_ooc_cols_rows, &job);
}

hy_status hy_ooc_real_track_init(hy_ooc_real_track *t, const hy_ooc_real_step *step,
                                 int64_t ncols, int before) {
  memset(t, 0, sizeof *t);
  t->step = *step;
  t->ncols = ncols;
  t->before = before;
  t->done = hy_calloc((size_t)(ncols / 2 + 1), 1);
  t->landed = before ? NULL : hy_calloc((size_t)ncols, 1);
  t->runs = hy_malloc((size_t)(ncols / 2 + 2) * 2 * sizeof *t->runs);
  if (!t->done || (!before && !t->landed) || !t->runs) {
    hy_ooc_real_track_free(t);
    return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no memory for the real step's columns");
  }
  return HYFFT_SUCCESS;
}

void hy_ooc_real_track_free(hy_ooc_real_track *t) {
  hy_free(t->done);
  hy_free(t->landed);
  hy_free(t->runs);
  t->done = t->landed = NULL;
  t->runs = NULL;
}

/* The runs of lower columns now due, into t->runs (pairs [begin, end)),
 * marked done: before, those with c or its partner column in [u0, u1);
 * after, those whose two columns have landed. Returns the run count. */
static int64_t hy_track_scan(hy_ooc_real_track *t, int64_t u0, int64_t u1) {
  const int64_t ncols = t->ncols, half = ncols / 2;
  int64_t run = -1, nruns = 0;
  for (int64_t c = 0; c <= half + 1; c++) {
    int due = 0;
    if (c <= half && !t->done[c]) {
      int64_t p = c == 0 ? 0 : ncols - c;
      due = t->before ? (c >= u0 && c < u1) || (p >= u0 && p < u1)
                      : t->landed[c] && t->landed[p];
    }
    if (due && run < 0) run = c;
    if (!due && run >= 0) {
      memset(t->done + run, 1, (size_t)(c - run));
      t->runs[2 * nruns] = run;
      t->runs[2 * nruns + 1] = c;
      nruns++;
      run = -1;
    }
  }
  return nruns;
}

static void hy_track_do(hy_ooc_real_track *t, int64_t nruns) {
  for (int64_t i = 0; i < nruns; i++)
    hy_ooc_real_columns(&t->step, t->ncols, t->runs[2 * i], t->runs[2 * i + 1]);
}

/* The helper thread of an asynchronous tracker. Before: the pieces' pairs
 * in piece order, as far ahead as it gets, each piece announced when done.
 * After: the pairs of landed columns as they become due, until every
 * pair is done or it is told to stop. */
static void *hy_track_helper(void *arg) {
  hy_ooc_real_track *t = arg;
  if (t->before) {
    for (int64_t j = 0; j < t->count; j++) {
      pthread_mutex_lock(&t->lock);
      int quit = t->quit;
      pthread_mutex_unlock(&t->lock);
      if (quit) break;
      int64_t u0 = hy_ooc_piece_block(j, t->count, t->mirrored) * t->per, u1 = u0 + t->per < t->ncols ? u0 + t->per : t->ncols;
      hy_track_do(t, hy_track_scan(t, u0, u1));
      pthread_mutex_lock(&t->lock);
      t->pieces_done = j + 1;
      pthread_cond_broadcast(&t->cond);
      pthread_mutex_unlock(&t->lock);
    }
  } else {
    int64_t seen = 0, pairs_left = t->ncols / 2 + 1;
    while (pairs_left > 0) {
      pthread_mutex_lock(&t->lock);
      while (!t->quit && t->landings == seen) pthread_cond_wait(&t->cond, &t->lock);
      if (t->quit) {
        pthread_mutex_unlock(&t->lock);
        break;
      }
      seen = t->landings;
      int64_t nruns = hy_track_scan(t, 0, 0);
      pthread_mutex_unlock(&t->lock);
      for (int64_t i = 0; i < nruns; i++) pairs_left -= t->runs[2 * i + 1] - t->runs[2 * i];
      hy_track_do(t, nruns);
    }
  }
  pthread_mutex_lock(&t->lock);
  t->helper_done = 1;
  pthread_cond_broadcast(&t->cond);
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

hy_status hy_ooc_real_track_start(hy_ooc_real_track *t, int64_t per, int64_t count,
                                  int mirrored) {
  t->per = per;
  t->count = count;
  t->mirrored = mirrored;
  if (pthread_mutex_init(&t->lock, NULL) != 0)
    return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no lock for the real step's thread");
  if (pthread_cond_init(&t->cond, NULL) != 0) {
    pthread_mutex_destroy(&t->lock);
    return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no condition for the real step's thread");
  }
  if (pthread_create(&t->thread, NULL, hy_track_helper, t) != 0) {
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->lock);
    return hy_error(HYFFT_OUT_OF_MEMORY, "out of core: no thread for the real step");
  }
  t->async = 1;
  return HYFFT_SUCCESS;
}

void hy_ooc_real_track_piece(hy_ooc_real_track *t, int64_t k, int64_t u0, int64_t u1) {
  if (!t->async) {
    if (!t->before)
      for (int64_t c = u0; c < u1; c++) t->landed[c] = 1;
    hy_track_do(t, hy_track_scan(t, u0, u1));
    return;
  }
  pthread_mutex_lock(&t->lock);
  if (t->before) {
    /* The helper takes the pieces in reading order: wait for this one. */
    while (t->pieces_done <= k && !t->helper_done) pthread_cond_wait(&t->cond, &t->lock);
  } else {
    for (int64_t c = u0; c < u1; c++) t->landed[c] = 1;
    t->landings++;
    pthread_cond_broadcast(&t->cond);
  }
  pthread_mutex_unlock(&t->lock);
}

void hy_ooc_real_track_finish(hy_ooc_real_track *t, int stop) {
  if (!t->async) return;
  pthread_mutex_lock(&t->lock);
  if (stop) {
    t->quit = 1;
    pthread_cond_broadcast(&t->cond);
  }
  while (!t->helper_done) pthread_cond_wait(&t->cond, &t->lock);
  pthread_mutex_unlock(&t->lock);
  pthread_join(t->thread, NULL);
  pthread_cond_destroy(&t->cond);
  pthread_mutex_destroy(&t->lock);
  t->async = 0;
}

int hy_ooc_real_track_complete(const hy_ooc_real_track *t) {
  for (int64_t c = 0; c <= t->ncols / 2; c++)
    if (!t->done[c]) return 0;
  return 1;
}
