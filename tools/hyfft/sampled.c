/* The sampled accuracy check: for 1D C2C and R2C transforms beyond the
 * long-double reference's limit, a handful of output bins of the first
 * transform computed directly from the input,
 *
 *   X_k = scale * sum_j x_j exp(sign 2 pi i j k / n),
 *
 * O(n) each in long double, and compared with the transform's output. The
 * error of a bin is |Y_k - X_k| over the RMS of the whole output,
 * sqrt(sum_j |x_j|^2) * |scale| (Parseval), so that a bin that happens to
 * be small does not inflate it; the result is the largest over the bins.
 * It reads the input and output buffers in place: no memory beyond two
 * twiddle tables of about sqrt(n) entries and the partial sums.
 *
 * The sum runs in chunks of at most 2^16 terms, each chunk's partial sums
 * added in order afterwards (the rounding then grows with the number of
 * chunks, not of terms), the chunks spread over threads. The twiddle of
 * j k mod n (exact in integers) is the product of two long double table
 * entries: W^(a mod m) and W^(m floor(a / m)), m a power of two at or above
 * sqrt(n). */
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLI_SAMPLED_CHUNK ((int64_t)1 << 16)
#define CLI_SAMPLED_MAX_BINS 64

typedef struct cli_sampled_job {
  const cli_layout *L;
  const void *in, *out;
  int64_t n, m, nchunks, chunk;
  int shift, nbins;
  int64_t bins[CLI_SAMPLED_MAX_BINS];
  const long double complex *lo, *hi;
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

/* x_j of the input, typed once per chunk: f32 and f64 read directly,
 * half precision through cli_sampled_get. */
#define CLI_SAMPLED_LOAD(T)                                                   \
  do {                                                                        \
    const T *v = (const T *)job->in;                                          \
    for (int64_t j = j0; j < j1; j++)                                         \
      x[j - j0] = cplx ? (long double)v[2 * j * stride] +                     \
                             I * (long double)v[2 * j * stride + 1]           \
                       : (long double)v[j * stride];                          \
  } while (0)

static void *cli_sampled_worker(void *arg) {
  cli_sampled_job *job = arg;
  const hyfft_problem *p = &job->L->p;
  int cplx = p->kind == HYFFT_C2C;
  int64_t stride = p->dims[0].in_stride, mask = job->m - 1;
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
    if (p->precision == HYFFT_F32)
      CLI_SAMPLED_LOAD(float);
    else if (p->precision == HYFFT_F64)
      CLI_SAMPLED_LOAD(double);
    else
      for (int64_t j = j0; j < j1; j++)
        x[j - j0] = cli_sampled_get(job->in, j * stride, cplx, p->precision);
    long double e = 0;
    for (int64_t j = 0; j < j1 - j0; j++) e += creall(x[j]) * creall(x[j]) + cimagl(x[j]) * cimagl(x[j]);
    job->energy[c] = e;
    for (int b = 0; b < job->nbins; b++) {
      uint64_t k = (uint64_t)job->bins[b], n = (uint64_t)job->n;
      uint64_t a = (uint64_t)(((unsigned __int128)j0 * k) % n);
      long double complex s = 0;
      for (int64_t j = 0; j < j1 - j0; j++) {
        s += x[j] * (job->lo[a & (uint64_t)mask] * job->hi[a >> job->shift]);
        a += k;
        if (a >= n) a -= n;
      }
      job->partial[c * job->nbins + b] = s;
    }
  }
  free(x);
  return NULL;
}

int cli_sampled_supported(const cli_layout *L) {
  const hyfft_problem *p = &L->p;
  return p->rank == 1 && (p->kind == HYFFT_C2C || p->kind == HYFFT_R2C) && L->n >= 2;
}

int cli_sampled_check(const cli_layout *L, const void *in, const void *out, int nbins,
                      uint64_t seed, cli_sampled_result *r, char *err, size_t errlen) {
  const hyfft_problem *p = &L->p;
  memset(r, 0, sizeof *r);
  if (!cli_sampled_supported(L)) {
    snprintf(err, errlen, "the sampled check takes 1D C2C and R2C transforms only");
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
  /* The output bins there are (R2C: the half spectrum), the first four
   * fixed (0, 1, the middle, the last), the rest from the seed. */
  int64_t kmax = p->kind == HYFFT_R2C ? job.n / 2 : job.n - 1;
  int64_t fixed[4] = {0, 1, kmax / 2 + 1, kmax};
  uint64_t x = seed ^ UINT64_C(0x5ca1ab1e);
  for (int b = 0; b < nbins; b++) {
    int64_t k;
    if (b < 4) {
      k = fixed[b] > kmax ? kmax : fixed[b];
    } else {
      x += UINT64_C(0x9e3779b97f4a7c15);
      uint64_t z = x;
      z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
      z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
      z ^= z >> 31;
      k = (int64_t)(z % (uint64_t)(kmax + 1));
    }
    job.bins[job.nbins++] = k;
  }
  job.m = 1;
  job.shift = 0;
  while (job.m * job.m < job.n) {
    job.m <<= 1;
    job.shift++;
  }
  int64_t nhi = (job.n + job.m - 1) / job.m;
  job.chunk = CLI_SAMPLED_CHUNK;
  job.nchunks = (job.n + job.chunk - 1) / job.chunk;
  long double complex *lo = malloc((size_t)job.m * sizeof *lo);
  long double complex *hi = malloc((size_t)nhi * sizeof *hi);
  job.partial = malloc((size_t)(job.nchunks * job.nbins) * sizeof *job.partial);
  job.energy = malloc((size_t)job.nchunks * sizeof *job.energy);
  if (!lo || !hi || !job.partial || !job.energy) {
    free(lo);
    free(hi);
    free(job.partial);
    free(job.energy);
    snprintf(err, errlen, "out of memory for the sampled check's tables");
    return -1;
  }
  /* exp(sign 2 pi i t / n) with t / n reduced to [0, 1/2] by symmetry
   * before the long double sine and cosine. */
  const long double two_pi = 6.283185307179586476925286766559005768L;
  for (int64_t t = 0; t < job.m + nhi; t++) {
    int64_t a = t < job.m ? t : (t - job.m) * job.m;
    a %= job.n;
    int neg = 2 * a > job.n;
    long double ang = two_pi * (long double)(neg ? job.n - a : a) / (long double)job.n;
    long double s = sinl(ang), co = cosl(ang);
    if (neg) s = -s;
    if (p->sign < 0) s = -s;
    long double complex w = co + I * s;
    if (t < job.m)
      lo[t] = w;
    else
      hi[t - job.m] = w;
  }
  job.lo = lo;
  job.hi = hi;
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
    free(lo);
    free(hi);
    free(job.partial);
    free(job.energy);
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
    long double complex y =
        cli_sampled_get(out, job.bins[b] * p->dims[0].out_stride, 1, p->precision);
    long double d = cabsl(y - s);
    if (d != d) nan = 1;
    double e = rms > 0 ? (double)(d / rms) : (d > 0 ? INFINITY : 0.0);
    if (e > worst) worst = e;
  }
  free(lo);
  free(hi);
  free(job.partial);
  free(job.energy);
  r->bins = job.nbins;
  r->max_err = nan ? NAN : worst;
  r->gate = 3.0 * cli_rms_gate(p->precision, L->n);
  r->pass = !nan && worst <= r->gate;
  return 0;
}
