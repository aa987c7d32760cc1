/* The sampled accuracy check: for C2C and R2C transforms of any rank
 * beyond the long-double reference's limit, a handful of output bins of
 * the first transform computed directly from the input,
 *
 *   X_k = scale * sum_j x_j exp(sign 2 pi i sum_d j_d k_d / n_d),
 *
 * O(n) each in long double, and compared with the transform's output. The
 * error of a bin is |Y_k - X_k| over the RMS of the whole output,
 * sqrt(sum_j |x_j|^2) * |scale| (Parseval), so that a bin that happens to
 * be small does not inflate it; the result is the largest over the bins.
 * It reads the input and output buffers in place: no memory beyond two
 * twiddle tables of about sqrt(n) entries and the partial sums.
 *
 * The sum runs in chunks of at most 2^16 terms (in the row-major order of
 * the transform's dims), each chunk's partial sums added in order
 * afterwards (the rounding then grows with the number of chunks, not of
 * terms), the chunks spread over threads. Along each dim d the twiddle of
 * j_d k_d mod n_d (exact in integers) is the product of two long double
 * table entries: W^(a mod m) and W^(m floor(a / m)), m a power of two at
 * or above sqrt(n_d). Along a row of the last dim the sum runs as in 1D;
 * each row's sum is then multiplied by the product of the other dims'
 * twiddles, once per row. */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLI_SAMPLED_CHUNK ((int64_t)1 << 16)
#define CLI_SAMPLED_MAX_BINS 64

/* One dim's twiddle tables: W_n^a = lo[a & (m - 1)] * hi[a >> shift]. */
typedef struct cli_sampled_dim {
  int64_t n, m;
  int shift;
  long double complex *lo, *hi;
} cli_sampled_dim;

typedef struct cli_sampled_job {
  const cli_layout *L;
  const void *in, *out;
  int64_t n, nchunks, chunk;
  int rank, nbins;
  int64_t bins[CLI_SAMPLED_MAX_BINS][HYFFT_MAX_RANK];
  cli_sampled_dim dim[HYFFT_MAX_RANK];
  long double complex *partial; /* [chunk][bin] */
  long double *energy;          /* [chunk] */
  int64_t next;                 /* the next chunk to take */
  int failed;                   /* a worker had no memory for its chunk */
  pthread_mutex_t lock;
} cli_sampled_job;

/* Element `off` of a physical buffer as a complex value. */
static long double complex cli_sampled_get(const void *buf, int64_t off, int cplx,
                                           hyfft_precision prec) {
  double re, im = 0.0;
  if (cli_is_half(prec)) {
    re = cli_half_get(prec, buf, cplx ? 2 * off : off);
    if (cplx) im = cli_half_get(prec, buf, 2 * off + 1);
  } else if (prec == HYFFT_F64) {
    const double *d = buf;
    re = cplx ? d[2 * off] : d[off];
    if (cplx) im = d[2 * off + 1];
  } else {
    const float *f = buf;
    re = cplx ? f[2 * off] : f[off];
    if (cplx) im = f[2 * off + 1];
  }
  return (long double)re + I * (long double)im;
}

static long double complex cli_sampled_tw(const cli_sampled_dim *D, uint64_t a) {
  return D->lo[a & (uint64_t)(D->m - 1)] * D->hi[a >> D->shift];
}

/* idx: the multi-index of linear element j (row-major, last dim fastest);
 * returns its offset on the input side. */
static int64_t cli_sampled_unravel(const cli_sampled_job *job, int64_t j, int64_t *idx) {
  const hyfft_problem *p = &job->L->p;
  int64_t off = 0;
  for (int d = job->rank - 1; d >= 0; d--) {
    idx[d] = j % job->dim[d].n;
    j /= job->dim[d].n;
    off += idx[d] * p->dims[d].in_stride;
  }
  return off;
}

/* The product of the twiddles of every dim but the last, for bin k at
 * the multi-index idx. */
static long double complex cli_sampled_row_tw(const cli_sampled_job *job, const int64_t *idx,
                                              const int64_t *k) {
  long double complex w = 1;
  for (int d = 0; d + 1 < job->rank; d++) {
    uint64_t n = (uint64_t)job->dim[d].n;
    w *= cli_sampled_tw(&job->dim[d], (uint64_t)(((unsigned __int128)idx[d] * (uint64_t)k[d]) % n));
  }
  return w;
}

/* The next multi-index after a row of the last dim ends (idx[last] is
 * already back at 0). */
static void cli_sampled_carry(const cli_sampled_job *job, int64_t *idx) {
  for (int d = job->rank - 2; d >= 0; d--) {
    if (++idx[d] < job->dim[d].n) return;
    idx[d] = 0;
  }
}

static void *cli_sampled_worker(void *arg) {
  cli_sampled_job *job = arg;
  const hyfft_problem *p = &job->L->p;
  const int cplx = p->kind == HYFFT_C2C, last = job->rank - 1;
  const cli_sampled_dim *DL = &job->dim[last];
  long double complex *x = malloc((size_t)job->chunk * sizeof *x);
  if (!x) {
    pthread_mutex_lock(&job->lock);
    job->failed = 1;
    pthread_mutex_unlock(&job->lock);
    return NULL;
  }
  for (;;) {
    pthread_mutex_lock(&job->lock);
    int64_t c = job->next++;
    pthread_mutex_unlock(&job->lock);
    if (c >= job->nchunks) break;
    int64_t j0 = c * job->chunk, j1 = j0 + job->chunk < job->n ? j0 + job->chunk : job->n;
    /* x_j of the chunk, walking the input's strides. */
    int64_t idx[HYFFT_MAX_RANK];
    int64_t off = cli_sampled_unravel(job, j0, idx);
    for (int64_t j = j0; j < j1; j++) {
      if (p->precision == HYFFT_F32) {
        const float *v = job->in;
        x[j - j0] = cplx ? (long double)v[2 * off] + I * (long double)v[2 * off + 1]
                         : (long double)v[off];
      } else if (p->precision == HYFFT_F64) {
        const double *v = job->in;
        x[j - j0] = cplx ? (long double)v[2 * off] + I * (long double)v[2 * off + 1]
                         : (long double)v[off];
      } else {
        x[j - j0] = cli_sampled_get(job->in, off, cplx, p->precision);
      }
      off += p->dims[last].in_stride;
      if (++idx[last] == DL->n) {
        idx[last] = 0;
        off -= DL->n * p->dims[last].in_stride;
        for (int d = last - 1; d >= 0; d--) {
          off += p->dims[d].in_stride;
          if (++idx[d] < job->dim[d].n) break;
          off -= job->dim[d].n * p->dims[d].in_stride;
          idx[d] = 0;
        }
      }
    }
    long double e = 0;
    for (int64_t j = 0; j < j1 - j0; j++) e += creall(x[j]) * creall(x[j]) + cimagl(x[j]) * cimagl(x[j]);
    job->energy[c] = e;
    for (int b = 0; b < job->nbins; b++) {
      const int64_t *k = job->bins[b];
      uint64_t kl = (uint64_t)k[last], n = (uint64_t)DL->n;
      cli_sampled_unravel(job, j0, idx);
      uint64_t a = (uint64_t)(((unsigned __int128)idx[last] * kl) % n);
      long double complex rowtw = cli_sampled_row_tw(job, idx, k), s = 0, srow = 0;
      for (int64_t j = 0; j < j1 - j0; j++) {
        srow += x[j] * cli_sampled_tw(DL, a);
        a += kl;
        if (a >= n) a -= n;
        if (++idx[last] == DL->n && job->rank > 1) {
          s += rowtw * srow;
          srow = 0;
          idx[last] = 0;
          a = 0;
          cli_sampled_carry(job, idx);
          rowtw = cli_sampled_row_tw(job, idx, k);
        }
      }
      job->partial[c * job->nbins + b] = s + rowtw * srow;
    }
  }
  free(x);
  return NULL;
}

static void cli_sampled_free(cli_sampled_job *job) {
  for (int d = 0; d < HYFFT_MAX_RANK; d++) {
    free(job->dim[d].lo);
    free(job->dim[d].hi);
  }
  free(job->partial);
  free(job->energy);
}

int cli_sampled_supported(const cli_layout *L) {
  const hyfft_problem *p = &L->p;
  return p->rank >= 1 && (p->kind == HYFFT_C2C || p->kind == HYFFT_R2C) && L->n >= 2;
}

int cli_sampled_check(const cli_layout *L, const void *in, const void *out, int nbins,
                      uint64_t seed, cli_sampled_result *r, char *err, size_t errlen) {
  const hyfft_problem *p = &L->p;
  memset(r, 0, sizeof *r);
  if (!cli_sampled_supported(L)) {
    snprintf(err, errlen, "the sampled check takes C2C and R2C transforms only");
    return -1;
  }
  if (nbins < 1) nbins = 1;
  if (nbins > CLI_SAMPLED_MAX_BINS) nbins = CLI_SAMPLED_MAX_BINS;
  cli_sampled_job job;
  memset(&job, 0, sizeof job);
  job.L = L;
  job.in = in;
  job.out = out;
  job.n = L->n;
  job.rank = p->rank;
  /* The output bins there are (R2C: the last dim's half spectrum), the
   * first four fixed (0, 1 along the last dim, the middle and the last of
   * every dim), the rest from the seed. */
  uint64_t x = seed ^ UINT64_C(0x5ca1ab1e);
  for (int b = 0; b < nbins; b++) {
    for (int d = 0; d < p->rank; d++) {
      int64_t nd = p->dims[d].n;
      int64_t kmax = p->kind == HYFFT_R2C && d == p->rank - 1 ? nd / 2 : nd - 1;
      int64_t k;
      if (b == 0) {
        k = 0;
      } else if (b == 1) {
        k = d == p->rank - 1 ? 1 : 0;
      } else if (b == 2) {
        k = kmax / 2 + 1;
      } else if (b == 3) {
        k = kmax;
      } else {
        x += UINT64_C(0x9e3779b97f4a7c15);
        uint64_t z = x;
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        z ^= z >> 31;
        k = (int64_t)(z % (uint64_t)(kmax + 1));
      }
      job.bins[b][d] = k > kmax ? kmax : k;
    }
    job.nbins++;
  }
  job.chunk = CLI_SAMPLED_CHUNK;
  job.nchunks = (job.n + job.chunk - 1) / job.chunk;
  job.partial = malloc((size_t)(job.nchunks * job.nbins) * sizeof *job.partial);
  job.energy = malloc((size_t)job.nchunks * sizeof *job.energy);
  int ok = job.partial && job.energy;
  /* exp(sign 2 pi i t / n_d) with t / n_d reduced to [0, 1/2] by symmetry
   * before the long double sine and cosine. */
  const long double two_pi = 6.283185307179586476925286766559005768L;
  for (int d = 0; d < p->rank && ok; d++) {
    cli_sampled_dim *D = &job.dim[d];
    D->n = p->dims[d].n;
    D->m = 1;
    D->shift = 0;
    while (D->m * D->m < D->n) {
      D->m <<= 1;
      D->shift++;
    }
    int64_t nhi = (D->n + D->m - 1) / D->m;
    D->lo = malloc((size_t)D->m * sizeof *D->lo);
    D->hi = malloc((size_t)nhi * sizeof *D->hi);
    if (!D->lo || !D->hi) {
      ok = 0;
      break;
    }
    for (int64_t t = 0; t < D->m + nhi; t++) {
      int64_t a = t < D->m ? t : (t - D->m) * D->m;
      a %= D->n;
      int neg = 2 * a > D->n;
      long double ang = two_pi * (long double)(neg ? D->n - a : a) / (long double)D->n;
      long double sn = sinl(ang), co = cosl(ang);
      if (neg) sn = -sn;
      if (p->sign < 0) sn = -sn;
      long double complex w = co + I * sn;
      if (t < D->m)
        D->lo[t] = w;
      else
        D->hi[t - D->m] = w;
    }
  }
  if (!ok) {
    cli_sampled_free(&job);
    snprintf(err, errlen, "out of memory for the sampled check's tables");
    return -1;
  }
  pthread_mutex_init(&job.lock, NULL);
  int nthreads = cli_num_threads();
  if (nthreads < 1) nthreads = 1;
  if (nthreads > 256) nthreads = 256;
  if ((int64_t)nthreads > job.nchunks) nthreads = (int)job.nchunks;
  pthread_t th[256];
  int started = 0;
  for (int i = 1; i < nthreads; i++)
    if (pthread_create(&th[started], NULL, cli_sampled_worker, &job) == 0) started++;
  cli_sampled_worker(&job);
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  pthread_mutex_destroy(&job.lock);
  if (job.failed) {
    cli_sampled_free(&job);
    snprintf(err, errlen, "out of memory for the sampled check's chunks");
    return -1;
  }

  long double energy = 0;
  for (int64_t c = 0; c < job.nchunks; c++) energy += job.energy[c];
  long double scale = fabsl((long double)p->scale);
  long double rms = sqrtl(energy) * scale;
  int nan = 0;
  double worst = 0.0;
  for (int b = 0; b < job.nbins; b++) {
    long double complex s = 0;
    for (int64_t c = 0; c < job.nchunks; c++) s += job.partial[c * job.nbins + b];
    s *= (long double)p->scale;
    int64_t o = 0;
    for (int d = 0; d < p->rank; d++) o += job.bins[b][d] * p->dims[d].out_stride;
    long double complex y = cli_sampled_get(out, o, 1, p->precision);
    long double d = cabsl(y - s);
    if (d != d) nan = 1;
    double e = rms > 0 ? (double)(d / rms) : (d > 0 ? INFINITY : 0.0);
    if (e > worst) worst = e;
  }
  cli_sampled_free(&job);
  r->bins = job.nbins;
  r->max_err = nan ? NAN : worst;
  r->gate = 3.0 * cli_rms_gate(p->precision, L->n);
  r->pass = !nan && worst <= r->gate;
  return 0;
}
