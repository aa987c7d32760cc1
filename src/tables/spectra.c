/* Long tables computed in long double and rounded once: the spectrum of
 * Bluestein's chirp kernel, the spectrum of Rader's convolution kernel and
 * the number theory Rader needs (powers modulo a prime, primitive roots),
 * with a long double FFT of any length to compute spectra and a small
 * process-wide memo of recent spectra. The GPU generator and the CPU
 * backend both fill their tables from here. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tables/spectra.h"
#include "tables/twiddle.h"

void hy_tables_store(void *data, hyfft_precision p, int64_t i, long double re,
                            long double im) {
  if (p == HYFFT_F64) {
    ((double *)data)[2 * i] = (double)re;
    ((double *)data)[2 * i + 1] = (double)im;
  } else {
    ((float *)data)[2 * i] = (float)re;
    ((float *)data)[2 * i + 1] = (float)im;
  }
}

/* In-place long double DFT (sign -1) of x[0..n), by recursive decimation
 * in time over the smallest prime factor (any n; a large prime factor
 * costs O(n*p)). Twiddles come from wr/wi, the n0 roots W_n0^j of the
 * top-level length, with stride n0/n at length n: the same angles as
 * evaluating each twiddle, in long double, without a sincos per
 * butterfly (which dominates the time of long spectra). */
static void hy_tables_fft_ld_rec(long double *re, long double *im, int64_t n, long double *sre,
                             long double *sim, const long double *wr, const long double *wi,
                             int64_t stride) {
  if (n == 1) return;
  int64_t p = 2;
  while (n % p) p++;
  int64_t q = n / p;
  /* split into p decimated subsequences, transform each */
  for (int64_t r = 0; r < p; r++)
    for (int64_t i = 0; i < q; i++) {
      sre[r * q + i] = re[i * p + r];
      sim[r * q + i] = im[i * p + r];
    }
  for (int64_t r = 0; r < p; r++)
    hy_tables_fft_ld_rec(sre + r * q, sim + r * q, q, re, im, wr, wi, stride * p);
  for (int64_t k = 0; k < n; k++) {
    long double ar = 0, ai = 0;
    for (int64_t r = 0; r < p; r++) {
      int64_t j = (r * k) % n * stride;
      long double xr = sre[r * q + k % q], xi = sim[r * q + k % q];
      ar += xr * wr[j] - xi * wi[j];
      ai += xr * wi[j] + xi * wr[j];
    }
    re[k] = ar;
    im[k] = ai;
  }
}

/* The power-of-two transform's work, shared by the threads: the
 * bit-reversal swaps (each pair by its smaller index) and, per stage of
 * length `len`, the n/2 butterflies by their flat index. */
typedef struct hy_tables_pow2_job {
  long double *re, *im;
  const long double *wr, *wi; /* W_N^j, N = n * wstride */
  int64_t n, len, wstride;
  int bits;
} hy_tables_pow2_job;

static void hy_tables_pow2_swap(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_tables_pow2_job *a = arg;
  for (int64_t i = begin; i < end; i++) {
    int64_t j = 0;
    for (int b = 0; b < a->bits; b++) j |= ((i >> b) & 1) << (a->bits - 1 - b);
    if (i < j) {
      long double t = a->re[i];
      a->re[i] = a->re[j];
      a->re[j] = t;
      t = a->im[i];
      a->im[i] = a->im[j];
      a->im[j] = t;
    }
  }
}

static void hy_tables_pow2_stage(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_tables_pow2_job *a = arg;
  int64_t half = a->len / 2, step = a->n / a->len * a->wstride;
  for (int64_t b = begin; b < end; b++) {
    int64_t i = b / half * a->len, j = b % half;
    long double w_r = a->wr[j * step], w_i = a->wi[j * step];
    long double *ar = &a->re[i + j], *ai = &a->im[i + j], *br = &a->re[i + j + half],
                *bi = &a->im[i + j + half];
    long double tr = *br * w_r - *bi * w_i, ti = *br * w_i + *bi * w_r;
    *br = *ar - tr;
    *bi = *ai - ti;
    *ar += tr;
    *ai += ti;
  }
}

/* The same transform for a power of two, iteratively: bit-reversed
 * order, then radix-2 butterflies, much faster than the recursive
 * transform at the lengths of long Rader and Bluestein spectra, and
 * spread over the threads (hy_parallel_for): every butterfly computes
 * what it did in one thread, so the table is the same bit for bit. */
static void hy_tables_fft_ld_pow2(long double *re, long double *im, int64_t n, const long double *wr,
                              const long double *wi, int64_t wstride) {
  hy_tables_pow2_job a = {re, im, wr, wi, n, 0, wstride, 0};
  while (((int64_t)1 << a.bits) < n) a.bits++;
  hy_parallel_for(n, 1 << 14, hy_tables_pow2_swap, &a);
  for (a.len = 2; a.len <= n; a.len <<= 1) hy_parallel_for(n / 2, 1 << 14, hy_tables_pow2_stage, &a);
}

/* A length n = n1 * n2, n1 the power-of-two part, n2 odd, as two steps
 * (four-step): the n2 decimated sequences x[n2*j1 + j2] by the parallel
 * power-of-two transform into rows of the scratch, each entry k1 of row
 * j2 times W_n^(j2*k1), then for each k1 the n2-point transform of the
 * column across the rows (the recursive transform, threads over k1)
 * into X[k1 + n1*k2]. Every value is formed by one thread in a fixed
 * order, so the result does not depend on the thread count. */
typedef struct hy_tables_split_job {
  long double *re, *im, *sre, *sim;
  const long double *wr, *wi; /* W_n^j, j < n */
  int64_t n, n1, n2;
  atomic_int failed; /* a thread could not get its column scratch */
} hy_tables_split_job;

static void hy_tables_split_gather(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_tables_split_job *a = arg;
  for (int64_t i = begin; i < end; i++) {
    int64_t j2 = i / a->n1, j1 = i % a->n1;
    a->sre[i] = a->re[a->n2 * j1 + j2];
    a->sim[i] = a->im[a->n2 * j1 + j2];
  }
}

static void hy_tables_split_columns(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_tables_split_job *a = arg;
  const int64_t n1 = a->n1, n2 = a->n2;
  long double *col = hy_malloc((size_t)n2 * 4 * sizeof(long double));
  if (!col) {
    atomic_store_explicit(&a->failed, 1, memory_order_relaxed); /* the caller reports it */
    return;
  }
  long double *cre = col, *cim = col + n2, *tre = col + 2 * n2, *tim = col + 3 * n2;
  for (int64_t k1 = begin; k1 < end; k1++) {
    for (int64_t j2 = 0; j2 < n2; j2++) {
      /* j2 * k1 < n: the twiddle's index needs no reduction. */
      const long double xr = a->sre[j2 * n1 + k1], xi = a->sim[j2 * n1 + k1];
      const long double w_r = a->wr[j2 * k1], w_i = a->wi[j2 * k1];
      cre[j2] = xr * w_r - xi * w_i;
      cim[j2] = xr * w_i + xi * w_r;
    }
    hy_tables_fft_ld_rec(cre, cim, n2, tre, tim, a->wr, a->wi, n1);
    for (int64_t k2 = 0; k2 < n2; k2++) {
      a->re[k1 + n1 * k2] = cre[k2];
      a->im[k1 + n1 * k2] = cim[k2];
    }
  }
  hy_free(col);
}

static hy_status hy_tables_fft_ld_split(long double *re, long double *im, int64_t n, int64_t n1,
                                        long double *sre, long double *sim, const long double *wr,
                                        const long double *wi) {
  hy_tables_split_job a = {re, im, sre, sim, wr, wi, n, n1, n / n1, 0};
  hy_parallel_for(n, 1 << 14, hy_tables_split_gather, &a);
  for (int64_t j2 = 0; j2 < a.n2; j2++)
    hy_tables_fft_ld_pow2(sre + j2 * n1, sim + j2 * n1, n1, wr, wi, a.n2);
  hy_parallel_for(n1, 1 << 8, hy_tables_split_columns, &a);
  if (atomic_load(&a.failed))
    return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: scratch for a long double transform of %lld",
                    (long long)n);
  return HYFFT_SUCCESS;
}

hy_status hy_tables_fft_ld(long double *re, long double *im, int64_t n, long double *sre,
                              long double *sim) {
  long double *w = hy_malloc((size_t)n * 2 * sizeof(long double));
  if (!w || !hy_twiddle_roots_ld(n, -1, w, w + n)) {
    hy_free(w);
    return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: roots of unity for length %lld", (long long)n);
  }
  /* The power-of-two part of n: the iterative parallel transform, alone
   * or beside the recursive one for the odd rest, which alone spends
   * O(n * p) integer index work per level on one thread (a 94371840-point
   * spectrum took minutes that way). */
  const int64_t n1 = n & -n;
  hy_status st = HYFFT_SUCCESS;
  if (n1 == n)
    hy_tables_fft_ld_pow2(re, im, n, w, w + n, 1);
  else if (n1 >= 64)
    st = hy_tables_fft_ld_split(re, im, n, n1, sre, sim, w, w + n);
  else
    hy_tables_fft_ld_rec(re, im, n, sre, sim, w, w + n, 1);
  hy_free(w);
  return st;
}

/* The spectra computed last in this process, so that plans of the same
 * length (a host plan's staged sub-plans, forward and inverse pairs made
 * again) share the long double FFT: up to HY_TABLES_MEMO entries, 64 MB in
 * all, the oldest replaced first. Entries are copies; callers own their
 * data. */
#define HY_TABLES_MEMO 8
#define HY_TABLES_MEMO_BYTES ((size_t)64 << 20)
typedef struct hy_tables_memo_entry {
  int64_t n, m;
  int sign;
  hyfft_precision p;
  size_t bytes;
  void *data;
  uint64_t used;
} hy_tables_memo_entry;
static hy_tables_memo_entry hy_tables_memo[HY_TABLES_MEMO];
static uint64_t hy_tables_memo_clock;
static pthread_mutex_t hy_tables_memo_lock = PTHREAD_MUTEX_INITIALIZER;

static int hy_tables_memo_get(int64_t n, int64_t m, int sign, hyfft_precision p, void *data,
                          size_t bytes) {
  int found = 0;
  pthread_mutex_lock(&hy_tables_memo_lock);
  for (int i = 0; i < HY_TABLES_MEMO && !found; i++) {
    hy_tables_memo_entry *e = &hy_tables_memo[i];
    if (e->data && e->n == n && e->m == m && e->sign == sign && e->p == p && e->bytes == bytes) {
      memcpy(data, e->data, bytes);
      e->used = ++hy_tables_memo_clock;
      found = 1;
    }
  }
  pthread_mutex_unlock(&hy_tables_memo_lock);
  return found;
}

static void hy_tables_memo_put(int64_t n, int64_t m, int sign, hyfft_precision p, const void *data,
                           size_t bytes) {
  if (bytes > HY_TABLES_MEMO_BYTES / HY_TABLES_MEMO) return;
  void *copy = hy_malloc(bytes);
  if (!copy) return; /* only a missed shortcut */
  memcpy(copy, data, bytes);
  pthread_mutex_lock(&hy_tables_memo_lock);
  /* An empty slot, else the one used longest ago. */
  int slot = 0;
  for (int i = 0; i < HY_TABLES_MEMO; i++) {
    if (!hy_tables_memo[i].data) {
      slot = i;
      break;
    }
    if (hy_tables_memo[i].used < hy_tables_memo[slot].used) slot = i;
  }
  hy_tables_memo_entry *e = &hy_tables_memo[slot];
  void *old = e->data;
  *e = (hy_tables_memo_entry){n, m, sign, p, bytes, copy, ++hy_tables_memo_clock};
  pthread_mutex_unlock(&hy_tables_memo_lock);
  hy_free(old);
}

/* The Bluestein kernel b_j = conj(chirp_j), wrapped for negative j and
 * zero between, entries [begin, end) (threads); then the spectrum over m
 * rounded into data. */
typedef struct hy_tables_chirp_job {
  long double *re, *im;
  int64_t n, m;
  int sign;
  hyfft_precision p;
  void *data;
} hy_tables_chirp_job;

static void hy_tables_chirp_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_tables_chirp_job *a = arg;
  for (int64_t j = begin; j < end; j++) {
    int64_t at = j < a->n ? j : j > a->m - a->n ? a->m - j : -1;
    if (at < 0) {
      a->re[j] = a->im[j] = 0;
      continue;
    }
    long double cr, ci;
    hy_chirp_ld(at, a->n, a->sign, &cr, &ci);
    a->re[j] = cr;
    a->im[j] = -ci;
  }
}

static void hy_tables_store_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_tables_chirp_job *a = arg;
  for (int64_t k = begin; k < end; k++)
    hy_tables_store(a->data, a->p, k, a->re[k] / a->m, a->im[k] / a->m);
}

/* Spectrum of the Bluestein kernel b_j = conj(chirp_j) (wrapped for
 * negative j), divided by m so the inverse transform needs no scaling,
 * rounded into data (m complex values of precision p). */
hy_status hy_tables_bluestein_spectrum(int64_t n, int64_t m, int sign, hyfft_precision p, void *data) {
  size_t bytes = (size_t)m * (p == HYFFT_F64 ? 16 : 8);
  if (hy_tables_memo_get(n, m, sign, p, data, bytes)) return HYFFT_SUCCESS;
  long double *buf = hy_malloc((size_t)m * 4 * sizeof(long double));
  if (!buf) return hy_error(HYFFT_OUT_OF_MEMORY, "Bluestein spectrum of length %lld", (long long)m);
  long double *re = buf, *im = buf + m, *sre = buf + 2 * m, *sim = buf + 3 * m;
  hy_tables_chirp_job job = {re, im, n, m, sign, p, data};
  hy_parallel_for(m, 1 << 12, hy_tables_chirp_range, &job);
  hy_status st = hy_tables_fft_ld(re, im, m, sre, sim);
  if (st != HYFFT_SUCCESS) {
    hy_free(buf);
    return st;
  }
  hy_parallel_for(m, 1 << 14, hy_tables_store_range, &job);
  hy_free(buf);
  hy_tables_memo_put(n, m, sign, p, data, bytes);
  return HYFFT_SUCCESS;
}

int64_t hy_tables_powmod(int64_t b, int64_t e, int64_t m) {
  int64_t r = 1;
  b %= m;
  while (e > 0) {
    if (e & 1) r = (int64_t)((__int128)r * b % m);
    b = (int64_t)((__int128)b * b % m);
    e >>= 1;
  }
  return r;
}

/* The smallest primitive root of the prime p. */
int64_t hy_tables_primitive_root(int64_t p) {
  int64_t f[64], nf = 0, m = p - 1;
  for (int64_t d = 2; d * d <= m; d++)
    if (m % d == 0) {
      f[nf++] = d;
      while (m % d == 0) m /= d;
    }
  if (m > 1) f[nf++] = m;
  for (int64_t g = 2; g < p; g++) {
    int ok = 1;
    for (int i = 0; i < nf && ok; i++) ok = hy_tables_powmod(g, (p - 1) / f[i], p) != 1;
    if (ok) return g;
  }
  return 1;
}

/* Rader's permutation: g^q mod p for q < p - 1. */
void hy_tables_rader_powers(int64_t p, int64_t g, int32_t *data) {
  int64_t m = p - 1;
  /* g^q mod p in 8 interleaved chains (entry q + 8 is entry q times g^8),
   * so the multiplications do not wait on each other; each product is
   * reduced through a double quotient estimate (exact while p < 2^26, so
   * that products stay below 2^52) and one correction either way. One
   * chain with a division per entry takes most of a warm plan's time at
   * large p. */
  enum { CHAINS = 8 };
  if (p >= ((int64_t)1 << 26)) {
    int64_t a = 1;
    for (int64_t q = 0; q < m; q++) {
      data[q] = (int32_t)a;
      a = (int64_t)((__int128)a * g % p);
    }
    return;
  }
  const double inv_p = 1.0 / (double)p;
  int64_t chain[CHAINS], step = 1;
  for (int c = 0; c < CHAINS; c++) {
    chain[c] = step;
    step = step * g % p;
  }
  for (int64_t q0 = 0; q0 < m; q0 += CHAINS) {
    for (int c = 0; c < CHAINS; c++) {
      int64_t q = q0 + c;
      if (q >= m) break;
      data[q] = (int32_t)chain[c];
      int64_t t = chain[c] * step;
      t -= (int64_t)((double)t * inv_p) * p;
      t = t < 0 ? t + p : t;
      chain[c] = t >= p ? t - p : t;
    }
  }
}

hy_status hy_tables_rader_spectrum(int64_t p, int sign, hyfft_precision prec, void *data) {
  int64_t m = p - 1, ginv = hy_tables_powmod(hy_tables_primitive_root(p), p - 2, p);
  long double *buf = hy_malloc((size_t)m * 4 * sizeof(long double));
  if (!buf) return hy_error(HYFFT_OUT_OF_MEMORY, "Rader spectrum of %lld", (long long)p);
  long double *re = buf, *im = buf + m, *sre = buf + 2 * m, *sim = buf + 3 * m;
  int64_t b = 1;
  for (int64_t q = 0; q < m; q++) {
    hy_twiddle_ld(b, p, sign, &re[q], &im[q]); /* b_q = W^(sign * g^-q) */
    b = b * ginv % p;
  }
  hy_status st = hy_tables_fft_ld(re, im, m, sre, sim);
  if (st == HYFFT_SUCCESS)
    for (int64_t k = 0; k < m; k++) hy_tables_store(data, prec, k, re[k] / m, im[k] / m);
  hy_free(buf);
  return st;
}
