/* Kernel level: one kernel per pass.
 *
 * A work-group handles M transforms with T threads each. Every stage of the
 * Stockham algorithm loads its points into registers (straight from global
 * memory in the first stage), twiddles them, runs a straight-line radix-R
 * butterfly and writes them back: to local memory for the next stage, or to
 * global memory (with the scale and the four-step twiddle) in the last.
 * Every length, stride and offset is a literal, so index arithmetic folds.
 *
 * Stage s of radix R over a length-NC sequence, with NS the product of the
 * earlier radices, computes butterfly j (0 <= j < NC/R):
 *   inputs  e = j + r*NC/R,  twiddle w^(r*k) with k = j % NS, w = W_(NS*R),
 *   outputs e = (j/NS)*NS*R + k + r*NS,
 * which leaves the result in natural order after the last stage.
 *
 * Bluestein passes run 2S stages in one kernel: the forward transform of the
 * chirped, zero-padded input (chirp multiply fused into the load), the
 * chirp-spectrum multiply fused into the last forward stage, the inverse
 * transform, and the output chirp fused into the store. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "util/disk_cache.h"
#include "util/twiddle.h"

#define HY_CG_MAX_STAGES (2 * HY_MAX_FACTORS)
#define HY_CG_MAX_REGS 512

typedef struct hy_cg_stage {
  int radix;
  int ns;     /* product of the earlier radices */
  int nb;     /* butterflies: NC / radix */
  int per;    /* butterflies per thread: ceil(nb / T) */
  int guard;  /* per * T > nb: some threads idle on the last butterfly */
  int sign;   /* of the butterfly */
  int conj;   /* use the conjugate of the (sign -1) table twiddle */
  int kdiv;   /* twiddle index k = (j % NS) / kdiv: B in the second axis of a plane pass
                 (its twiddles leave out the first axis's frequency), else 1 */
} hy_cg_stage;

typedef struct hy_cg_kernel {
  hy_strbuf *sb;
  hyfft_precision precision;
  const hy_pass *pass;
  const hy_kernel_spec *spec;
  int64_t n;  /* transform length */
  int nc;     /* computed length: n, or the Bluestein convolution length */
  int bluestein;
  int rader;  /* HY_ALGO_RADER: permuted load/store around a length n-1 convolution */
  int T, M, pad, pad_shift, row;
  int nstages;
  hy_cg_stage st[HY_CG_MAX_STAGES];
  int forward_end; /* Bluestein: index of the last forward stage */
  const char *idx; /* index type: "int" or "hy_i64" */
  int tw_off[HY_CG_MAX_STAGES]; /* stage_twiddles: where stage s's table starts */
  int64_t tw_count;             /* entries of the per-stage twiddle tables */
} hy_cg_kernel;

/* ---- tables ------------------------------------------------------------ */


/* The table type of complex entries in precision p. */
static hy_table_type hy_cg_complex(hyfft_precision p) {
  return p == HYFFT_F64 ? HY_TABLE_COMPLEX_F64 : HY_TABLE_COMPLEX_F32;
}

static size_t hy_cg_table_entry(hy_table_type type) {
  hy_table t = {.count = 1, .type = type};
  return hy_table_bytes(&t);
}

static void *hy_cg_table_alloc(int64_t count, hy_table_type type) {
  return hy_malloc((size_t)count * hy_cg_table_entry(type));
}

static void hy_cg_table_set(void *data, hyfft_precision p, int64_t i, long double re,
                            long double im) {
  if (p == HYFFT_F64) {
    ((double *)data)[2 * i] = (double)re;
    ((double *)data)[2 * i + 1] = (double)im;
  } else {
    ((float *)data)[2 * i] = (float)re;
    ((float *)data)[2 * i + 1] = (float)im;
  }
}

/* Add a table (taking ownership of data), reusing an identical one. */
static hy_status hy_cg_table_add_keyed(hy_gpu_program *prog, int64_t count, hy_table_type type,
                                       void *data, uint64_t key, int *index);
static hy_status hy_cg_table_add(hy_gpu_program *prog, int64_t count, hy_table_type type,
                                 void *data, int *index) {
  return hy_cg_table_add_keyed(prog, count, type, data, 0, index);
}

/* A table computed from `key` that the program has, or that the program it
 * reuses has (borrowed, not copied: codegen.c hands it over when the
 * borrowing program replaces the other): 1 and its index, or 0. */
static int hy_cg_table_find(hy_gpu_program *prog, uint64_t key, hy_table_type type, int *index) {
  for (int i = 0; i < prog->ntables; i++)
    if (prog->tables[i].key == key && prog->tables[i].type == type) {
      *index = i;
      return 1;
    }
  const hy_gpu_program *from = prog->reuse;
  for (int i = 0; from && i < from->ntables; i++) {
    const hy_table *t = &from->tables[i];
    if (t->key != key || t->type != type || !t->data) continue;
    if (prog->ntables >= HY_MAX_TABLES) return 0;
    hy_table *mine = &prog->tables[prog->ntables];
    *mine = *t;
    mine->borrowed = 1;
    *index = prog->ntables++;
    return 1;
  }
  return 0;
}

static hy_status hy_cg_table_add_keyed(hy_gpu_program *prog, int64_t count, hy_table_type type,
                                       void *data, uint64_t key, int *index) {
  size_t bytes = (size_t)count * hy_cg_table_entry(type);
  for (int i = 0; i < prog->ntables; i++) {
    hy_table *t = &prog->tables[i];
    if (t->count == count && t->type == type && memcmp(t->data, data, bytes) == 0) {
      hy_free(data);
      *index = i;
      return HYFFT_SUCCESS;
    }
  }
  if (prog->ntables >= HY_MAX_TABLES) {
    hy_free(data);
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: the plan needs more than %d tables",
                    HY_MAX_TABLES);
  }
  hy_table *t = &prog->tables[prog->ntables];
  t->count = count;
  t->type = type;
  t->data = data;
  t->key = key;
  t->borrowed = 0;
  *index = prog->ntables++;
  return HYFFT_SUCCESS;
}

/* `count` roots W_n^j (sign), the first `split` of them for j = 0, 1, ...
 * and the rest for j = split, 2*split, ... (the second table of
 * hy_cg_twiddle_pair_table), each computed in long double and rounded
 * once; `what` names the layout in the key. */
static hy_status hy_cg_roots_table(hy_gpu_program *prog, const char *what, int64_t n,
                                   int64_t split, int64_t count, int sign, hyfft_precision p,
                                   int *index) {
  uint64_t key = hy_hash_str(HY_HASH_INIT, what);
  key = hy_hash_u64(hy_hash_u64(hy_hash_u64(key, (uint64_t)n), (uint64_t)(sign + 2)), (uint64_t)p);
  if (hy_cg_table_find(prog, key, hy_cg_complex(p), index)) return HYFFT_SUCCESS;
  void *data = hy_cg_table_alloc(count, hy_cg_complex(p));
  if (!data) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: twiddle table of %lld", (long long)count);
  for (int64_t j = 0; j < count; j++) {
    long double re, im;
    hy_twiddle_ld(j < split ? j : ((j - split) * split) % n, n, sign, &re, &im);
    hy_cg_table_set(data, p, j, re, im);
  }
  return hy_cg_table_add_keyed(prog, count, hy_cg_complex(p), data, key, index);
}

hy_status hy_cg_twiddle_table(hy_gpu_program *prog, int64_t n, int sign,
                                     hyfft_precision p, int *index) {
  return hy_cg_roots_table(prog, "twiddles", n, n, n, sign, p, index);
}


static hy_status hy_cg_twiddle_pair_table(hy_gpu_program *prog, int64_t n, int sign,
                                          hyfft_precision p, int *index) {
  return hy_cg_roots_table(prog, "twiddle pairs", n, hy_twiddle_split(n),
                           hy_twiddle_pair_count(n), sign, p, index);
}

/* The tables of long transforms (chirps and Bluestein spectra of 4096
 * entries or more, a sincos or an FFT in long double per entry) are also
 * kept in the disk cache beside the compiled kernels (util/disk_cache.h),
 * keyed by what they are computed from and the generator version, so that
 * a new process plans 65537 without computing them again. */
typedef struct hy_cg_table_args {
  int64_t n, m;
  int sign;
  hyfft_precision p;
} hy_cg_table_args;

#define HY_CG_DISK_TABLE_MIN 4096
static const hy_disk_kind hy_cg_disk_tables = {"table", "HYFFTTB3"};

static hy_status hy_cg_table_cached(hy_gpu_program *prog, const char *what,
                                    const hy_cg_table_args *a, int64_t count,
                                    hy_status (*fill)(const hy_cg_table_args *a, void *data),
                                    int *index) {
  size_t bytes = (size_t)count * hy_complex_bytes(a->p);
  uint64_t key = hy_hash_str(HY_HASH_INIT, what);
  key = hy_hash_u64(key, (uint64_t)a->n);
  key = hy_hash_u64(key, (uint64_t)a->m);
  key = hy_hash_u64(key, (uint64_t)(a->sign + 2));
  key = hy_hash_u64(key, (uint64_t)a->p);
  key = hy_hash_u64(key, HY_CODEGEN_VERSION);
  if (hy_cg_table_find(prog, key, hy_cg_complex(a->p), index)) return HYFFT_SUCCESS;
  int on_disk = count >= HY_CG_DISK_TABLE_MIN;
  void *data = NULL;
  size_t size = 0;
  if (on_disk && hy_disk_cache_load(&hy_cg_disk_tables, key, &data, &size) == HYFFT_SUCCESS) {
    if (size == bytes)
      return hy_cg_table_add_keyed(prog, count, hy_cg_complex(a->p), data, key, index);
    hy_free(data);
  }
  data = hy_cg_table_alloc(count, hy_cg_complex(a->p));
  if (!data) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: %s of %lld", what, (long long)count);
  hy_status st = fill(a, data);
  if (st != HYFFT_SUCCESS) {
    hy_free(data);
    return st;
  }
  if (on_disk) hy_disk_cache_store(&hy_cg_disk_tables, key, data, bytes);
  return hy_cg_table_add_keyed(prog, count, hy_cg_complex(a->p), data, key, index);
}

static hy_status hy_cg_fill_chirp(const hy_cg_table_args *a, void *data) {
  for (int64_t j = 0; j < a->n; j++) {
    long double re, im;
    hy_chirp_ld(j, a->n, a->sign, &re, &im);
    hy_cg_table_set(data, a->p, j, re, im);
  }
  return HYFFT_SUCCESS;
}

hy_status hy_cg_chirp_table(hy_gpu_program *prog, int64_t n, int sign, hyfft_precision p,
                                   int *index) {
  hy_cg_table_args args = {n, 0, sign, p};
  return hy_cg_table_cached(prog, "chirp", &args, n, hy_cg_fill_chirp, index);
}

/* In-place long double DFT (sign -1) of x[0..n), by recursive decimation
 * in time over the smallest prime factor (any n; a large prime factor
 * costs O(n*p)). Twiddles come from wr/wi, the n0 roots W_n0^j of the
 * top-level length, with stride n0/n at length n: the same angles as
 * evaluating each twiddle, in long double, without a sincos per
 * butterfly (65537's Bluestein spectrum, m = 2^17, took a second). */
static void hy_cg_fft_ld_rec(long double *re, long double *im, int64_t n, long double *sre,
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
    hy_cg_fft_ld_rec(sre + r * q, sim + r * q, q, re, im, wr, wi, stride * p);
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

/* The same transform for a power of two, iteratively: bit-reversed
 * order, then radix-2 butterflies (65537's spectrum, 2^17 points: 86 ->
 * 10 ms). */
static void hy_cg_fft_ld_pow2(long double *re, long double *im, int64_t n, const long double *wr,
                              const long double *wi) {
  for (int64_t i = 1, j = 0; i < n; i++) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      long double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    int64_t half = len / 2, step = n / len;
    for (int64_t i = 0; i < n; i += len)
      for (int64_t j = 0; j < half; j++) {
        long double w_r = wr[j * step], w_i = wi[j * step];
        long double *ar = &re[i + j], *ai = &im[i + j], *br = &re[i + j + half], *bi = &im[i + j + half];
        long double tr = *br * w_r - *bi * w_i, ti = *br * w_i + *bi * w_r;
        *br = *ar - tr;
        *bi = *ai - ti;
        *ar += tr;
        *ai += ti;
      }
  }
}

static hy_status hy_cg_fft_ld(long double *re, long double *im, int64_t n, long double *sre,
                              long double *sim) {
  long double *w = hy_malloc((size_t)n * 2 * sizeof(long double));
  if (!w) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: roots of unity for length %lld", (long long)n);
  for (int64_t j = 0; j < n; j++) hy_twiddle_ld(j, n, -1, &w[j], &w[n + j]);
  if ((n & (n - 1)) == 0)
    hy_cg_fft_ld_pow2(re, im, n, w, w + n);
  else
    hy_cg_fft_ld_rec(re, im, n, sre, sim, w, w + n, 1);
  hy_free(w);
  return HYFFT_SUCCESS;
}

/* The spectra computed last in this process, so that plans of the same
 * length (a host plan's staged sub-plans, forward and inverse pairs made
 * again) share the long double FFT: up to HY_CG_MEMO entries, 64 MB in
 * all, the oldest replaced first. Entries are copies; callers own their
 * data. */
#define HY_CG_MEMO 8
#define HY_CG_MEMO_BYTES ((size_t)64 << 20)
typedef struct hy_cg_memo_entry {
  int64_t n, m;
  int sign;
  hyfft_precision p;
  size_t bytes;
  void *data;
  uint64_t used;
} hy_cg_memo_entry;
static hy_cg_memo_entry hy_cg_memo[HY_CG_MEMO];
static uint64_t hy_cg_memo_clock;
static pthread_mutex_t hy_cg_memo_lock = PTHREAD_MUTEX_INITIALIZER;

static int hy_cg_memo_get(int64_t n, int64_t m, int sign, hyfft_precision p, void *data,
                          size_t bytes) {
  int found = 0;
  pthread_mutex_lock(&hy_cg_memo_lock);
  for (int i = 0; i < HY_CG_MEMO && !found; i++) {
    hy_cg_memo_entry *e = &hy_cg_memo[i];
    if (e->data && e->n == n && e->m == m && e->sign == sign && e->p == p && e->bytes == bytes) {
      memcpy(data, e->data, bytes);
      e->used = ++hy_cg_memo_clock;
      found = 1;
    }
  }
  pthread_mutex_unlock(&hy_cg_memo_lock);
  return found;
}

static void hy_cg_memo_put(int64_t n, int64_t m, int sign, hyfft_precision p, const void *data,
                           size_t bytes) {
  if (bytes > HY_CG_MEMO_BYTES / HY_CG_MEMO) return;
  void *copy = hy_malloc(bytes);
  if (!copy) return; /* only a missed shortcut */
  memcpy(copy, data, bytes);
  pthread_mutex_lock(&hy_cg_memo_lock);
  /* An empty slot, else the one used longest ago. */
  int slot = 0;
  for (int i = 0; i < HY_CG_MEMO; i++) {
    if (!hy_cg_memo[i].data) {
      slot = i;
      break;
    }
    if (hy_cg_memo[i].used < hy_cg_memo[slot].used) slot = i;
  }
  hy_cg_memo_entry *e = &hy_cg_memo[slot];
  void *old = e->data;
  *e = (hy_cg_memo_entry){n, m, sign, p, bytes, copy, ++hy_cg_memo_clock};
  pthread_mutex_unlock(&hy_cg_memo_lock);
  hy_free(old);
}

/* Spectrum of the Bluestein kernel b_j = conj(chirp_j) (wrapped for
 * negative j), divided by m so the inverse transform needs no scaling,
 * rounded into data (m complex values of precision p). */
hy_status hy_cg_bluestein_spectrum(int64_t n, int64_t m, int sign, hyfft_precision p, void *data) {
  size_t bytes = (size_t)m * (p == HYFFT_F64 ? 16 : 8);
  if (hy_cg_memo_get(n, m, sign, p, data, bytes)) return HYFFT_SUCCESS;
  long double *buf = hy_malloc((size_t)m * 4 * sizeof(long double));
  if (!buf) return hy_error(HYFFT_OUT_OF_MEMORY, "Bluestein spectrum of length %lld", (long long)m);
  long double *re = buf, *im = buf + m, *sre = buf + 2 * m, *sim = buf + 3 * m;
  for (int64_t j = 0; j < m; j++) re[j] = im[j] = 0;
  for (int64_t j = 0; j < n; j++) {
    long double cr, ci;
    hy_chirp_ld(j, n, sign, &cr, &ci);
    re[j] = cr;
    im[j] = -ci;
    if (j > 0) {
      re[m - j] = cr;
      im[m - j] = -ci;
    }
  }
  hy_status st = hy_cg_fft_ld(re, im, m, sre, sim);
  if (st != HYFFT_SUCCESS) {
    hy_free(buf);
    return st;
  }
  for (int64_t k = 0; k < m; k++) hy_cg_table_set(data, p, k, re[k] / m, im[k] / m);
  hy_free(buf);
  hy_cg_memo_put(n, m, sign, p, data, bytes);
  return HYFFT_SUCCESS;
}

static hy_status hy_cg_fill_spectrum(const hy_cg_table_args *a, void *data) {
  return hy_cg_bluestein_spectrum(a->n, a->m, a->sign, a->p, data);
}

hy_status hy_cg_bluestein_table(hy_gpu_program *prog, int64_t n, int64_t m, int sign,
                                hyfft_precision p, int *index) {
  hy_cg_table_args args = {n, m, sign, p};
  return hy_cg_table_cached(prog, "bluestein spectrum", &args, m, hy_cg_fill_spectrum, index);
}

/* ---- Rader ---------------------------------------------------------------- */

static int64_t hy_cg_powmod(int64_t b, int64_t e, int64_t m) {
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
static int64_t hy_cg_primitive_root(int64_t p) {
  int64_t f[64], nf = 0, m = p - 1;
  for (int64_t d = 2; d * d <= m; d++)
    if (m % d == 0) {
      f[nf++] = d;
      while (m % d == 0) m /= d;
    }
  if (m > 1) f[nf++] = m;
  for (int64_t g = 2; g < p; g++) {
    int ok = 1;
    for (int i = 0; i < nf && ok; i++) ok = hy_cg_powmod(g, (p - 1) / f[i], p) != 1;
    if (ok) return g;
  }
  return 1;
}


/* Rader's tables for the prime p with smallest primitive root g: the
 * powers root^q mod p, q < p - 1, for root g (where the convolution reads
 * x) or g^-1 (where the one-pass kernel writes X), as 32-bit integers
 * (HY_TABLE_INDEX, 4 bytes an entry); and the spectrum of the convolution
 * kernel, DFT_{-1}(b)/(p-1) with b_q = exp(sign*2*pi*i*(g^-q mod p)/p),
 * computed in long double and rounded once (through the disk cache from
 * 4096 entries on). Fused Rader's last pass reads g^-k as g^(p-1-k), so
 * its first and last pass share one table of powers of g. */
static hy_status hy_cg_rader_perm_table(hy_gpu_program *prog, int64_t p, int64_t root,
                                        int *index) {
  int64_t m = p - 1, g = root;
  if (p > INT32_MAX)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: Rader for a prime of %lld (over 2^31)",
                    (long long)p);
  uint64_t key = hy_hash_str(HY_HASH_INIT, "rader indices");
  key = hy_hash_u64(hy_hash_u64(key, (uint64_t)p), (uint64_t)g);
  if (hy_cg_table_find(prog, key, HY_TABLE_INDEX, index)) return HYFFT_SUCCESS;
  int32_t *data = hy_cg_table_alloc(m, HY_TABLE_INDEX);
  if (!data) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: Rader table of %lld", (long long)p);
  /* g^q mod p in 8 interleaved chains (entry q + 8 is entry q times g^8),
   * so the multiplications do not wait on each other; each product is
   * reduced through a double quotient estimate (exact while p < 2^26, so
   * that products stay below 2^52) and one correction either way. One
   * chain with a division per entry took most of a warm plan's 1.3 ms at
   * p = 65537. */
  enum { CHAINS = 8 };
  if (p >= ((int64_t)1 << 26)) {
    int64_t a = 1;
    for (int64_t q = 0; q < m; q++) {
      data[q] = (int32_t)a;
      a = (int64_t)((__int128)a * g % p);
    }
    return hy_cg_table_add_keyed(prog, m, HY_TABLE_INDEX, data, key, index);
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
  return hy_cg_table_add_keyed(prog, m, HY_TABLE_INDEX, data, key, index);
}

static hy_status hy_cg_fill_rader_spectrum(const hy_cg_table_args *a, void *data) {
  int64_t p = a->n, m = a->m, ginv = hy_cg_powmod(hy_cg_primitive_root(p), p - 2, p);
  long double *buf = hy_malloc((size_t)m * 4 * sizeof(long double));
  if (!buf) return hy_error(HYFFT_OUT_OF_MEMORY, "Rader spectrum of %lld", (long long)p);
  long double *re = buf, *im = buf + m, *sre = buf + 2 * m, *sim = buf + 3 * m;
  int64_t b = 1;
  for (int64_t q = 0; q < m; q++) {
    hy_twiddle_ld(b, p, a->sign, &re[q], &im[q]); /* b_q = W^(sign * g^-q) */
    b = b * ginv % p;
  }
  hy_status st = hy_cg_fft_ld(re, im, m, sre, sim);
  if (st == HYFFT_SUCCESS)
    for (int64_t k = 0; k < m; k++) hy_cg_table_set(data, a->p, k, re[k] / m, im[k] / m);
  hy_free(buf);
  return st;
}

static hy_status hy_cg_rader_spectrum_table(hy_gpu_program *prog, int64_t p, int sign,
                                            hyfft_precision prec, int *index) {
  hy_cg_table_args args = {p, p - 1, sign, prec};
  return hy_cg_table_cached(prog, "rader spectrum", &args, p - 1, hy_cg_fill_rader_spectrum, index);
}

/* The one-pass Rader kernel's tables: where it reads, where it writes,
 * and the kernel's spectrum. */
static hy_status hy_cg_rader_tables(hy_gpu_program *prog, int64_t p, int sign,
                                    hyfft_precision prec, int *t_in, int *t_out, int *t_b) {
  int64_t g = hy_cg_primitive_root(p);
  HY_TRY(hy_cg_rader_perm_table(prog, p, g, t_in));
  HY_TRY(hy_cg_rader_perm_table(prog, p, hy_cg_powmod(g, p - 2, p), t_out));
  return hy_cg_rader_spectrum_table(prog, p, sign, prec, t_b);
}

/* Per-stage twiddle tables of a kernel: stage s (NS > 1, radix R) reads
 * entry tw_off[s] + (r-1)*NS + k = W_(NS*R)^(r*k), 1 <= r < R, k < NS,
 * so the threads of a warp (consecutive k) read consecutive entries.
 * Stages with the same (R, NS) (the two halves of Bluestein) share one
 * table. Values are computed in long double from the reduced angle and
 * rounded once, as in the single table. */
static hy_status hy_cg_stage_twiddle_table(hy_gpu_program *prog, hy_cg_kernel *k, int sign,
                                           int *index) {
  int64_t total = 0;
  for (int s = 0; s < k->nstages; s++) {
    const hy_cg_stage *st = &k->st[s];
    int tns = st->ns / st->kdiv;
    k->tw_off[s] = -1;
    if (tns <= 1) continue;
    for (int e = 0; e < s && k->tw_off[s] < 0; e++)
      if (k->tw_off[e] >= 0 && k->st[e].radix == st->radix && k->st[e].ns / k->st[e].kdiv == tns)
        k->tw_off[s] = k->tw_off[e];
    if (k->tw_off[s] >= 0) continue;
    k->tw_off[s] = (int)total;
    total += (int64_t)(st->radix - 1) * tns;
  }
  k->tw_count = total > 0 ? total : 1; /* kernels without twiddles still get an argument */
  void *data = hy_cg_table_alloc(k->tw_count, hy_cg_complex(k->precision));
  if (!data) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: twiddle tables of %lld", (long long)total);
  hy_cg_table_set(data, k->precision, 0, 1, 0);
  /* Every stage's length divides the kernel's length L (a plane pass's
   * stages divide one of its axes): W_len^a = W_L^(a*L/len), the same long
   * double value (hy_twiddle_ld divides the reduced integers, and scaling
   * both by L/len leaves the quotient exact), so one set of L roots
   * serves all stages (16384 points: 2049 sinl/cosl pairs instead of
   * 16352). */
  int64_t longest = k->nc;
  long double *roots = hy_malloc((size_t)longest * 2 * sizeof *roots);
  if (!roots || !hy_twiddle_roots_ld(longest, sign, roots, roots + longest)) {
    hy_free(roots);
    hy_free(data);
    return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: twiddles of %lld points", (long long)longest);
  }
  for (int s = 0; s < k->nstages; s++) {
    const hy_cg_stage *st = &k->st[s];
    int tns = st->ns / st->kdiv;
    if (tns <= 1) continue;
    int64_t len = (int64_t)tns * st->radix, scale = longest / len;
    for (int r = 1; r < st->radix; r++)
      for (int64_t q = 0; q < tns; q++) {
        int64_t at = (r * q % len) * scale;
        hy_cg_table_set(data, k->precision, k->tw_off[s] + (int64_t)(r - 1) * tns + q, roots[at],
                        roots[longest + at]);
      }
  }
  hy_free(roots);
  return hy_cg_table_add(prog, k->tw_count, hy_cg_complex(k->precision), data, index);
}


/* ---- emission helpers -------------------------------------------------- */

/* Local-memory index of element expression e within the thread's row. */
static void hy_cg_lx(hy_cg_kernel *k, const char *e) {
  if (k->pad)
    hy_strbuf_appendf(k->sb, "lds[mo + (%s) + ((%s) >> %d) * %d]", e, e, k->pad_shift, k->pad);
  else
    hy_strbuf_appendf(k->sb, "lds[mo + (%s)]", e);
}

static void hy_cg_decl_regs(hy_cg_kernel *k, char prefix, int s) {
  const hy_cg_stage *st = &k->st[s];
  int nregs = st->per * st->radix;
  hy_strbuf_append(k->sb, "  real2");
  for (int i = 0; i < nregs; i++)
    hy_strbuf_appendf(k->sb, "%s %c%d_%d = MK(0, 0)", i ? "," : "", prefix, s, i);
  hy_strbuf_append(k->sb, ";\n");
}

/* Open the block of butterfly b of stage s: defines j (and guards it). */
static void hy_cg_open_b(hy_cg_kernel *k, int s, int b) {
  const hy_cg_stage *st = &k->st[s];
  hy_strbuf_appendf(k->sb, "  {\n    const int j = t + %d;\n", b * k->T);
  if (st->guard && (b + 1) * k->T > st->nb) hy_strbuf_appendf(k->sb, "    if (j < %d) {\n", st->nb);
  else hy_strbuf_append(k->sb, "    {\n");
}

static void hy_cg_close_b(hy_cg_kernel *k) { hy_strbuf_append(k->sb, "    }\n  }\n"); }

/* Output position o of butterfly j in stage s (outputs are o + r*NS). */
static void hy_cg_out_pos(hy_cg_kernel *k, int s) {
  const hy_cg_stage *st = &k->st[s];
  if (st->ns == 1)
    hy_strbuf_appendf(k->sb, "    const int o = j * %d;\n", st->radix);
  else
    hy_strbuf_appendf(k->sb, "    const int o = (j / %d) * %d + j %% %d;\n", st->ns,
                      st->ns * st->radix, st->ns);
}

static void hy_cg_load_global(hy_cg_kernel *k) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[0];
  int64_t is = k->pass->axis.in_stride;
  hy_strbuf_append(sb, "  if (valid) {\n");
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, 0, b);
    for (int r = 0; r < st->radix; r++) {
      int i = b * st->radix + r;
      hy_strbuf_appendf(sb, "    { const int e = j + %d;\n", r * st->nb);
      char addr[128];
      if (is == 1)
        snprintf(addr, sizeof addr, "ib + (%s)e", k->idx);
      else
        snprintf(addr, sizeof addr, "ib + (%s)e * %lld", k->idx, (long long)is);
      if (k->bluestein) {
        /* Only the first n points are data; the rest is zero padding. */
        hy_strbuf_appendf(sb, "      if (e < %lld) ", (long long)k->n);
        hy_strbuf_appendf(sb, "x0_%d = cmul(src[%s], chirp[e]);\n", i, addr);
      } else if (k->rader) {
        /* Convolution input q is x at g^q mod p. */
        if (is == 1)
          hy_strbuf_appendf(sb, "      x0_%d = src[ib + (%s)rin[e]];\n", i, k->idx);
        else
          hy_strbuf_appendf(sb, "      x0_%d = src[ib + (%s)rin[e] * %lld];\n", i, k->idx,
                            (long long)is);
      } else if (k->pass->fuse == HY_FUSE_RADER_IN) {
        /* Rader's input i = fk + S*e is x at g^i mod N (fz[i]), from the
         * transform's start (ib less the fused loop's offset). */
        const hy_pass *ps = k->pass;
        int64_t lis = ps->loops[ps->fuse_loop].in_stride;
        hy_strbuf_appendf(sb, "      const %s fi = fk + (%s)e * %lld;\n", k->idx, k->idx,
                          (long long)ps->fuse_split);
        hy_strbuf_appendf(sb, "      x0_%d = src[ib - fk * %lld + (%s)fz[fi] * %lld];\n", i,
                          (long long)lis, k->idx, (long long)lis);
      } else if (k->pass->fuse == HY_FUSE_CHIRP_IN) {
        /* Element fk + S*e of the chirped, zero-padded Bluestein input. */
        hy_strbuf_appendf(sb, "      const %s fi = fk + (%s)e * %lld;\n", k->idx, k->idx,
                          (long long)k->pass->fuse_split);
        hy_strbuf_appendf(sb, "      if (fi < %lld) x0_%d = cmul(src[%s], fz[fi]);\n",
                          (long long)k->pass->chirp_n, i, addr);
      } else {
        hy_strbuf_appendf(sb, "      x0_%d = src[%s];\n", i, addr);
      }
      hy_strbuf_append(sb, "    }\n");
    }
    hy_cg_close_b(k);
  }
  hy_strbuf_append(sb, "  }\n");
}

/* part: 0 = complex, 1 = real parts, 2 = imaginary parts */
static void hy_cg_store_local(hy_cg_kernel *k, int s, int part) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  static const char *const sel[3] = {"", ".x", ".y"};
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    hy_cg_out_pos(k, s);
    for (int r = 0; r < st->radix; r++) {
      char e[48];
      snprintf(e, sizeof e, "o + %d", r * st->ns);
      hy_strbuf_append(sb, "    ");
      hy_cg_lx(k, e);
      hy_strbuf_appendf(sb, " = y%d_%d%s;\n", s, b * st->radix + r, sel[part]);
    }
    hy_cg_close_b(k);
  }
}

static void hy_cg_load_local(hy_cg_kernel *k, int s, int part) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  static const char *const sel[3] = {"", ".x", ".y"};
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    for (int r = 0; r < st->radix; r++) {
      char e[48];
      snprintf(e, sizeof e, "j + %d", r * st->nb);
      hy_strbuf_appendf(sb, "    x%d_%d%s = ", s, b * st->radix + r, sel[part]);
      hy_cg_lx(k, e);
      hy_strbuf_append(sb, ";\n");
    }
    hy_cg_close_b(k);
  }
}

/* Rader's first stage from a staged row: convolution input q = j + r*NB
 * is x at rin[q] (g^q mod p) of the row in local memory. */
static void hy_cg_load_rader_local(hy_cg_kernel *k) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[0];
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, 0, b);
    for (int r = 0; r < st->radix; r++) {
      hy_strbuf_appendf(sb, "    { const int e = rin[j + %d];\n      x0_%d = ", r * st->nb,
                        b * st->radix + r);
      hy_cg_lx(k, "e");
      hy_strbuf_append(sb, "; }\n");
    }
    hy_cg_close_b(k);
  }
}

/* Twiddle, butterfly and (Bluestein) the chirp-spectrum multiply. */
static void hy_cg_compute(hy_cg_kernel *k, int s) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  int R = st->radix;
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    int tns = st->ns / st->kdiv;
    if (tns == 1 && !(k->bluestein && s == k->forward_end)) hy_strbuf_append(sb, "    (void)j;\n");
    if (tns > 1) {
      int step = k->nc / (st->ns * R);
      if (st->kdiv > 1)
        hy_strbuf_appendf(sb, "    const int k = (j %% %d) / %d;\n", st->ns, st->kdiv);
      else
        hy_strbuf_appendf(sb, "    const int k = j %% %d;\n", st->ns);
      for (int r = 1; r < R; r++) {
        if (k->spec->stage_twiddles)
          hy_strbuf_appendf(sb, "    x%d_%d = %s(x%d_%d, tw[%d + k]);\n", s, b * R + r,
                            st->conj ? "cmulc" : "cmul", s, b * R + r,
                            k->tw_off[s] + (r - 1) * tns);
        else
          hy_strbuf_appendf(sb, "    x%d_%d = %s(x%d_%d, tw[k * %d]);\n", s, b * R + r,
                            st->conj ? "cmulc" : "cmul", s, b * R + r, r * step);
      }
    }
    char in_names[64][16], out_names[64][16];
    const char *in[64], *out[64];
    for (int r = 0; r < R; r++) {
      snprintf(in_names[r], sizeof in_names[r], "x%d_%d", s, b * R + r);
      snprintf(out_names[r], sizeof out_names[r], "y%d_%d", s, b * R + r);
      in[r] = in_names[r];
      out[r] = out_names[r];
    }
    hy_cg_emit_dft(sb, k->precision, R, st->sign, in, out);
    if ((k->bluestein || k->rader) && s == k->forward_end) {
      hy_cg_out_pos(k, s);
      for (int r = 0; r < R; r++) {
        if (k->rader && r == 0 && k->spec->stage_store) {
          /* Kept until the staged store (local memory is busy until then). */
          hy_strbuf_appendf(sb, "    if (o == 0) { hx0_out = 1; hX0 = MK(hx0.x + y%d_%d.x, hx0.y + y%d_%d.y); }\n",
                            s, b * R, s, b * R);
        } else if (k->rader && r == 0) {
          /* Rader's X_0 = x_0 + the sum of the other inputs, which is the
           * convolution input's DC term: stored by the thread that has it. */
          hy_strbuf_appendf(sb, "    if (valid && o == 0) dst[ob] = ");
          if (k->pass->scale != 1.0) {
            hy_strbuf_appendf(sb, "cscale(MK(hx0.x + y%d_%d.x, hx0.y + y%d_%d.y), ", s, b * R, s, b * R);
            hy_cg_literal(sb, k->precision, (long double)k->pass->scale);
            hy_strbuf_append(sb, ");\n");
          } else {
            hy_strbuf_appendf(sb, "MK(hx0.x + y%d_%d.x, hx0.y + y%d_%d.y);\n", s, b * R, s, b * R);
          }
        }
        hy_strbuf_appendf(sb, "    y%d_%d = cmul(y%d_%d, bh[o + %d]);\n", s, b * R + r, s,
                          b * R + r, r * st->ns);
      }
    }
    hy_cg_close_b(k);
  }
}

/* Fused Rader's last store (HY_FUSE_RADER_OUT): convolution output
 * fo = S*e + fk (fk: the value of the variable named `fk`) plus x_0 is X
 * at g^-fo = g^(L-fo) mod N (fz[L - fo], L = N - 1) from the transform's
 * start (`o`, the output offset, less the fused loop's part); the thread
 * of fo = 0 also writes
 * X_0 = x_0 plus the kept sum of the inputs. x_0 and the sum come from
 * the stash slot `st` and are scaled here; `v` is already scaled. */
static void hy_cg_emit_rader_store(hy_cg_kernel *k, const char *in, const char *fk, const char *o,
                                   const char *st, const char *v) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int64_t los = pass->loops[pass->fuse_loop].out_stride;
  hy_strbuf_appendf(sb, "%sconst %s fo = (%s)e * %lld + %s;\n", in, k->idx, k->idx,
                    (long long)pass->fuse_split, fk);
  hy_strbuf_appendf(sb, "%sconst %s obase = %s - %s * %lld;\n", in, k->idx, o, fk, (long long)los);
  hy_strbuf_appendf(sb, "%sconst real2 vr = %s;\n", in, v);
  for (int part = 0; part < 2; part++) {
    const char *name = part == 0 ? "x0" : "a0";
    hy_strbuf_appendf(sb, "%s%sreal2 %s = aux[%lld + 2 * %s%s];\n", in, part ? "  " : "", name,
                      (long long)pass->aux_offset, st, part ? " + 1" : "");
    if (pass->scale != 1.0) {
      hy_strbuf_appendf(sb, "%s%s%s = cscale(%s, ", in, part ? "  " : "", name, name);
      hy_cg_literal(sb, k->precision, (long double)pass->scale);
      hy_strbuf_append(sb, ");\n");
    }
    if (part == 0) {
      hy_strbuf_appendf(sb, "%sdst[obase + (%s)fz[fo == 0 ? 0 : %lld - fo] * %lld] = "
                            "MK(x0.x + vr.x, x0.y + vr.y);\n",
                        in, k->idx, (long long)pass->bluestein_m, (long long)los);
      hy_strbuf_appendf(sb, "%sif (fo == 0) {\n", in);
    }
  }
  hy_strbuf_appendf(sb, "%s  dst[obase] = MK(x0.x + a0.x, x0.y + a0.y);\n%s}\n", in, in);
}

static void hy_cg_store_global(hy_cg_kernel *k, int s) {
  hy_strbuf *sb = k->sb;
  const hy_cg_stage *st = &k->st[s];
  const hy_pass *pass = k->pass;
  int64_t os = pass->axis.out_stride;
  hy_strbuf_append(sb, "  if (valid) {\n");
  for (int b = 0; b < st->per; b++) {
    hy_cg_open_b(k, s, b);
    hy_cg_out_pos(k, s);
    for (int r = 0; r < st->radix; r++) {
      int i = b * st->radix + r;
      hy_strbuf_appendf(sb, "    { const int e = o + %d;\n", r * st->ns);
      if (k->bluestein) {
        if ((int64_t)k->nc > k->n) hy_strbuf_appendf(sb, "      if (e < %lld) {\n", (long long)k->n);
        else hy_strbuf_append(sb, "      {\n");
        hy_strbuf_appendf(sb, "      real2 v = cmul(y%d_%d, chirp[e]);\n", s, i);
      } else if (k->rader) {
        hy_strbuf_appendf(sb, "      {\n      real2 v = MK(y%d_%d.x + hx0.x, y%d_%d.y + hx0.y);\n", s, i,
                          s, i);
      } else {
        hy_strbuf_appendf(sb, "      {\n      real2 v = y%d_%d;\n", s, i);
      }
      if (pass->twiddle_loop >= 0 && k->spec->ftw_sincos == 1) {
        /* exp(sign*2*pi*i*a/N) with a reduced to (-N/2, N/2] in integers,
         * so x = 2a/N is in (-1, 1] and rounds once (exactly for N = 2^k). */
        int64_t mmax = pass->loops[pass->twiddle_loop].n - 1;
        int64_t nt = pass->twiddle_n;
        hy_strbuf_appendf(sb, "      { %s a = tm * (%s)e", k->idx, k->idx);
        if (mmax > 0 && mmax * (k->n - 1) >= nt) hy_strbuf_appendf(sb, " %% %lld", (long long)nt);
        hy_strbuf_appendf(sb, ";\n        if (a > %lld) a -= %lld;\n", (long long)(nt / 2), (long long)nt);
        hy_strbuf_appendf(sb, "        const real x = ((real)a * (real)2) / (real)%lld;\n", (long long)nt);
        hy_strbuf_append(sb, "        real ws, wc;\n        HY_SINCOSPI(x, ws, wc);\n");
        hy_strbuf_appendf(sb, "        v = cmul(v, MK(wc, %sws)); }\n", pass->sign < 0 ? "-" : "");
      } else if (pass->twiddle_loop >= 0 && k->spec->ftw_sincos == 2) {
        int64_t mmax = pass->loops[pass->twiddle_loop].n - 1;
        int64_t nt = pass->twiddle_n, sp = hy_twiddle_split(nt);
        int shift = 0;
        while (((int64_t)1 << shift) < sp) shift++;
        hy_strbuf_appendf(sb, "      { const %s a = tm * (%s)e", k->idx, k->idx);
        if (mmax > 0 && mmax * (k->n - 1) >= nt) hy_strbuf_appendf(sb, " %% %lld", (long long)nt);
        hy_strbuf_appendf(sb, ";\n        v = cmul(v, cmul(ftw[a & %lld], ftw[%lld + (a >> %d)])); }\n",
                          (long long)(sp - 1), (long long)sp, shift);
      } else if (pass->twiddle_loop >= 0) {
        int64_t mmax = pass->loops[pass->twiddle_loop].n - 1;
        if (mmax > 0 && mmax * (k->n - 1) >= pass->twiddle_n)
          hy_strbuf_appendf(sb, "      v = cmul(v, ftw[(tm * (%s)e) %% %lld]);\n", k->idx,
                            (long long)pass->twiddle_n);
        else
          hy_strbuf_appendf(sb, "      v = cmul(v, ftw[tm * (%s)e]);\n", k->idx);
      }
      int64_t fuse_n = pass->fuse == HY_FUSE_CHIRP_OUT ? pass->chirp_n : pass->bluestein_m;
      if (pass->fuse == HY_FUSE_RADER_SPECTRUM_OUT) {
        /* Output 0 of the forward transform is the sum of the inputs
         * x_n, n > 0: kept for X_0 before the spectrum multiply. */
        hy_strbuf_appendf(sb, "      const %s fo = (%s)e * %lld + fk;\n", k->idx, k->idx,
                          (long long)pass->fuse_split);
        hy_strbuf_appendf(sb, "      if (fo == 0) aux[%lld + 2 * st + 1] = v;\n",
                          (long long)pass->aux_offset);
        hy_strbuf_append(sb, "      v = cmul(v, fz[fo]);\n");
      }
      if (pass->fuse == HY_FUSE_SPECTRUM_OUT || pass->fuse == HY_FUSE_CHIRP_OUT) {
        /* Output k = S*e + fk of the Bluestein convolution. */
        hy_strbuf_appendf(sb, "      const %s fo = (%s)e * %lld + fk;\n", k->idx, k->idx,
                          (long long)pass->fuse_split);
        hy_strbuf_appendf(sb, "      if (fo < %lld) v = cmul(v, fz[fo]);\n", (long long)fuse_n);
      }
      if (pass->scale != 1.0) {
        hy_strbuf_append(sb, "      v = cscale(v, ");
        hy_cg_literal(sb, k->precision, (long double)pass->scale);
        hy_strbuf_append(sb, ");\n");
      }
      if (pass->fuse == HY_FUSE_RADER_OUT && !k->spec->store_transposed) {
        /* Straight from the registers (hy_cg_emit_rader_store). */
        hy_strbuf_append(sb, "      {\n");
        hy_cg_emit_rader_store(k, "        ", "fk", "ob", "st", "v");
        hy_strbuf_append(sb, "      }\n");
      } else if (k->rader && k->spec->stage_store) {
        /* Convolution output r is X at g^-r mod p, placed in the row. */
        hy_strbuf_append(sb, "      { const int x = rout[e]; ");
        hy_cg_lx(k, "x");
        hy_strbuf_append(sb, " = v; }\n");
      } else if (k->rader) {
        /* Convolution output r is X at g^-r mod p. */
        hy_strbuf_appendf(sb, "      dst[ob + (%s)rout[e] * %lld] = v;\n", k->idx, (long long)os);
      } else if (k->spec->store_transposed || k->spec->stage_store) {
        hy_strbuf_append(sb, "      ");
        hy_cg_lx(k, "e");
        hy_strbuf_append(sb, " = v;\n");
      } else if (os == 1) {
        if (pass->fuse == HY_FUSE_CHIRP_OUT) hy_strbuf_appendf(sb, "      if (fo < %lld)", (long long)fuse_n);
        hy_strbuf_appendf(sb, "      dst[ob + (%s)e] = v;\n", k->idx);
      } else {
        if (pass->fuse == HY_FUSE_CHIRP_OUT) hy_strbuf_appendf(sb, "      if (fo < %lld)", (long long)fuse_n);
        hy_strbuf_appendf(sb, "      dst[ob + (%s)e * %lld] = v;\n", k->idx, (long long)os);
      }
      hy_strbuf_append(sb, "      }\n    }\n");
    }
    hy_cg_close_b(k);
  }
  hy_strbuf_append(sb, "  }\n");
}

static void hy_cg_loop_order(const hy_pass *pass, int by_out, int *order);
static void hy_cg_emit_stash_index(hy_cg_kernel *k, const int *order, const char *indent,
                                   const char *from, const char *out);

/* Second half of the transposed store: the work-group's outputs are in
 * local memory; thread i stores element i / M of transform i % M, so
 * consecutive threads write neighbouring transforms (coalesced when their
 * loop stride is small). */
static void hy_cg_store_transposed(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int block = k->T * k->M;
  int iters = (int)((k->n * k->M + block - 1) / block);
  hy_strbuf_append(sb, "  HY_BARRIER();\n");
  hy_strbuf_appendf(sb, "  for (int it = 0; it < %d; it++) {\n", iters);
  hy_strbuf_appendf(sb, "    const int i = HY_LID + it * %d;\n", block);
  hy_strbuf_appendf(sb, "    const int mm = i %% %d, e = i / %d;\n", k->M, k->M);
  hy_strbuf_appendf(sb, "    const %s tj = (%s)(HY_GID * %d + mm);\n", k->idx, k->idx, k->M);
  hy_strbuf_appendf(sb, "    if (e < %lld && tj < %lld) {\n", (long long)k->n, (long long)count);
  hy_strbuf_appendf(sb, "      %s o2 = %lld;\n", k->idx, (long long)pass->dst_offset);
  int fk2 = pass->fuse == HY_FUSE_CHIRP_OUT || pass->fuse == HY_FUSE_RADER_OUT;
  if (fk2) hy_strbuf_appendf(sb, "      %s fk2 = 0;\n", k->idx);
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, k->spec->store_transposed, order);
  if (pass->nloops > 0) {
    hy_strbuf_appendf(sb, "      %s rem = tj, q;\n", k->idx);
    hy_cg_emit_loop_offsets(sb, pass, order, "      ", NULL, "o2", NULL, fk2 ? "fk2" : NULL);
  }
  char e[64];
  if (k->pad)
    snprintf(e, sizeof e, "lds[mm * %d + e + (e >> %d) * %d]", k->row, k->pad_shift, k->pad);
  else
    snprintf(e, sizeof e, "lds[mm * %d + e]", k->row);
  if (pass->fuse == HY_FUSE_RADER_OUT) {
    /* From local memory, as in hy_cg_emit_rader_store. */
    hy_cg_emit_stash_index(k, order, "      ", "tj", "st2");
    hy_cg_emit_rader_store(k, "      ", "fk2", "o2", "st2", e);
    hy_strbuf_append(sb, "    }\n  }\n");
    return;
  }
  /* The fused output chirp keeps only the first N outputs. */
  if (pass->fuse == HY_FUSE_CHIRP_OUT)
    hy_strbuf_appendf(sb, "      if ((%s)e * %lld + fk2 < %lld)", k->idx, (long long)pass->fuse_split,
                      (long long)pass->chirp_n);
  hy_strbuf_appendf(sb, "      dst[o2 + (%s)e * %lld] = %s;\n", k->idx,
                    (long long)pass->axis.out_stride, e);
  hy_strbuf_append(sb, "    }\n  }\n");
}

/* Staged load (out = 0) or store (out = 1) of a dense run: the work-group's
 * M*n elements move between global and local memory with consecutive
 * threads on consecutive elements, so every warp reads or writes whole
 * segments however short the transforms are. */
static void hy_cg_stage_copy(hy_cg_kernel *k, int64_t count, int out) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  int block = k->T * k->M;
  int64_t run = k->n * k->M;
  int iters = (int)((run + block - 1) / block);
  /* A plane pass whose planes are not one dense run has one per block,
   * at the ib the prologue computed. */
  int by_ib = !out && pass->plane_inner > 0 && !hy_pass_dense_input(pass);
  if (out) hy_strbuf_append(sb, "  HY_BARRIER();\n");
  if (by_ib)
    hy_strbuf_append(sb, "  {\n");
  else
    hy_strbuf_appendf(sb, "  {\n    const %s base = (%s)(HY_GID * %lld);\n", k->idx, k->idx,
                      (long long)run);
  hy_strbuf_appendf(sb, "#pragma unroll\n    for (int it = 0; it < %d; it++) {\n", iters);
  hy_strbuf_appendf(sb, "      const int i = HY_LID + it * %d;\n", block);
  /* The last work-group may hold fewer than M transforms. */
  hy_strbuf_append(sb, "      if (");
  if ((int64_t)iters * block > run) hy_strbuf_appendf(sb, "i < %lld && ", (long long)run);
  if (by_ib)
    hy_strbuf_append(sb, "valid) {\n");
  else
    hy_strbuf_appendf(sb, "base + i < %lld) {\n", (long long)(count * k->n));
  if (!out && pass->plane_inner > 0) {
    /* Plane element (a, b) at a*B + b goes to the Stockham position
     * b*A + a: the stages run B's radices over the plane's rows first,
     * and the output comes out in the plane's own order. */
    int64_t B = pass->plane_inner, A = k->n / B;
    hy_strbuf_appendf(sb, "        const int mm = i / %lld, p = i %% %lld;\n", (long long)k->n,
                      (long long)k->n);
    hy_strbuf_appendf(sb, "        const int e = (p %% %lld) * %lld + p / %lld;\n", (long long)B,
                      (long long)A, (long long)B);
  } else {
    hy_strbuf_appendf(sb, "        const int mm = i / %lld, e = i %% %lld;\n", (long long)k->n,
                      (long long)k->n);
  }
  char l[96];
  if (k->pad)
    snprintf(l, sizeof l, "lds[mm * %d + e + (e >> %d) * %d]", k->row, k->pad_shift, k->pad);
  else
    snprintf(l, sizeof l, "lds[mm * %d + e]", k->row);
  if (out)
    hy_strbuf_appendf(sb, "        dst[%lld + base + i] = %s;\n", (long long)pass->dst_offset, l);
  else if (by_ib)
    hy_strbuf_appendf(sb, "        %s = src[ib + i];\n", l);
  else
    hy_strbuf_appendf(sb, "        %s = src[%lld + base + i];\n", l, (long long)pass->src_offset);
  hy_strbuf_append(sb, "      }\n    }\n  }\n");
  if (!out) hy_strbuf_append(sb, "  HY_BARRIER();\n");
}

/* Move the outputs of stage s into the inputs of stage s+1 through local
 * memory. A barrier first when an earlier exchange (or the staged load) may
 * still be reading. */
static void hy_cg_exchange(hy_cg_kernel *k, int s) {
  hy_strbuf *sb = k->sb;
  if (s > 0 || k->spec->stage_load) hy_strbuf_append(sb, "  HY_BARRIER();\n");
  if (!k->spec->split_exchange) {
    hy_cg_store_local(k, s, 0);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_load_local(k, s + 1, 0);
  } else {
    hy_cg_store_local(k, s, 1);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_load_local(k, s + 1, 1);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_store_local(k, s, 2);
    hy_strbuf_append(sb, "  HY_BARRIER();\n");
    hy_cg_load_local(k, s + 1, 2);
  }
}

/* Largest element index a pass touches on one side, for the index type. */
static int64_t hy_cg_extent(const hy_pass *pass, int out) {
  int64_t e = out ? pass->dst_offset : pass->src_offset;
  int64_t s = out ? pass->axis.out_stride : pass->axis.in_stride;
  e += (pass->axis.n - 1) * llabs(s);
  for (int l = 0; l < pass->nloops; l++)
    e += (pass->loops[l].n - 1) * llabs(out ? pass->loops[l].out_stride : pass->loops[l].in_stride);
  return e;
}

/* Loop order for decomposing the transform index: smallest input stride
 * fastest, so the M transforms of a work-group are memory neighbours; or,
 * for a transposed store (by_out: each transform is read as one contiguous
 * row anyway), smallest output stride fastest, so that the store writes
 * neighbours (the last pass of a three-pass four-step, whose reading-order
 * neighbours lie far apart in the output). */
static void hy_cg_loop_order(const hy_pass *pass, int by_out, int *order) {
  for (int l = 0; l < pass->nloops; l++) order[l] = l;
  for (int a = 1; a < pass->nloops; a++)
    for (int b = a; b > 0; b--) {
      const hyfft_dim *la = &pass->loops[order[b]], *lb = &pass->loops[order[b - 1]];
      int64_t sa = llabs(by_out ? la->out_stride : la->in_stride);
      int64_t sb = llabs(by_out ? lb->out_stride : lb->in_stride);
      if (sa < sb) {
        int tmp = order[b];
        order[b] = order[b - 1];
        order[b - 1] = tmp;
      } else {
        break;
      }
    }
}

void hy_cg_emit_loop_offsets(hy_strbuf *sb, const hy_pass *pass, const int *order,
                             const char *indent, const char *in_var, const char *out_var,
                             const char *tm_var, const char *fk_var) {
  for (int a = 0; a < pass->nloops; a++) {
    const hyfft_dim *d = &pass->loops[order[a]];
    if (a == pass->nloops - 1)
      hy_strbuf_appendf(sb, "%sq = rem;\n", indent);
    else
      hy_strbuf_appendf(sb, "%sq = rem %% %lld; rem /= %lld;\n", indent, (long long)d->n,
                        (long long)d->n);
    if (in_var && out_var)
      hy_strbuf_appendf(sb, "%s%s += q * %lld; %s += q * %lld;\n", indent, in_var,
                        (long long)d->in_stride, out_var, (long long)d->out_stride);
    else if (out_var)
      hy_strbuf_appendf(sb, "%s%s += q * %lld;\n", indent, out_var, (long long)d->out_stride);
    if (tm_var && order[a] == pass->twiddle_loop)
      hy_strbuf_appendf(sb, "%s%s = q;\n", indent, tm_var);
    if (fk_var && order[a] == pass->fuse_loop)
      hy_strbuf_appendf(sb, "%s%s = q;\n", indent, fk_var);
  }
}

/* Fused Rader's stash slot: `out` = the transform index `from` (taken
 * apart in `order`, as for the offsets) over the loops other than the
 * fused step's, row-major in loop order, so every pass of the plan finds
 * the same slot for one transform. */
static void hy_cg_emit_stash_index(hy_cg_kernel *k, const int *order, const char *indent,
                                   const char *from, const char *out) {
  const hy_pass *pass = k->pass;
  int64_t stride[HY_MAX_LOOPS], prod = 1;
  for (int l = pass->nloops - 1; l >= 0; l--) {
    stride[l] = prod;
    if (l != pass->fuse_loop) prod *= pass->loops[l].n;
  }
  hy_strbuf_appendf(k->sb, "%s%s %s = 0;\n%s{\n%s  %s rs = %s, qs;\n", indent, k->idx, out, indent,
                    indent, k->idx, from);
  for (int a = 0; a < pass->nloops; a++) {
    const hyfft_dim *d = &pass->loops[order[a]];
    if (a == pass->nloops - 1)
      hy_strbuf_appendf(k->sb, "%s  qs = rs;\n", indent);
    else
      hy_strbuf_appendf(k->sb, "%s  qs = rs %% %lld; rs /= %lld;\n", indent, (long long)d->n,
                        (long long)d->n);
    if (order[a] != pass->fuse_loop)
      hy_strbuf_appendf(k->sb, "%s  %s += qs * %lld;\n", indent, out, (long long)stride[order[a]]);
  }
  hy_strbuf_appendf(k->sb, "%s  (void)qs;\n%s}\n", indent, indent);
}

/* Kernel prologue: thread ids, validity, base offsets, the four-step loop
 * index. */
static void hy_cg_prologue(hy_cg_kernel *k, int64_t count) {
  hy_strbuf *sb = k->sb;
  const hy_pass *pass = k->pass;
  if (k->spec->transform_fastest)
    hy_strbuf_appendf(sb, "  const int t = HY_LID %% %d, m = HY_LID / %d;\n", k->T, k->T);
  else
    hy_strbuf_appendf(sb, "  const int t = HY_LID / %d, m = HY_LID %% %d;\n", k->M, k->M);
  hy_strbuf_appendf(sb, "  const %s ti = (%s)(HY_GID * %d + m);\n", k->idx, k->idx, k->M);
  if (count % k->M == 0)
    hy_strbuf_append(sb, "  const int valid = 1;\n");
  else
    hy_strbuf_appendf(sb, "  const int valid = ti < %lld;\n", (long long)count);
  hy_strbuf_appendf(sb, "  %s ib = %lld, ob = %lld;\n", k->idx, (long long)pass->src_offset,
                    (long long)pass->dst_offset);
  if (pass->twiddle_loop >= 0) hy_strbuf_appendf(sb, "  %s tm = 0;\n", k->idx);
  if (pass->fuse != HY_FUSE_NONE) hy_strbuf_appendf(sb, "  %s fk = 0;\n", k->idx);
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, k->spec->store_transposed, order);
  if (pass->nloops > 0) {
    hy_strbuf_appendf(sb, "  {\n    %s rem = ti, q;\n", k->idx);
    hy_cg_emit_loop_offsets(sb, pass, order, "    ", "ib", "ob",
                            pass->twiddle_loop >= 0 ? "tm" : NULL,
                            pass->fuse != HY_FUSE_NONE ? "fk" : NULL);
    hy_strbuf_append(sb, "  }\n");
  }
  if (pass->fuse >= HY_FUSE_RADER_IN) hy_cg_emit_stash_index(k, order, "  ", "ti", "st");
}

static hy_status hy_cg_copy_kernel(const hy_pass *pass, int pass_index, hy_dialect dialect,
                                   const hy_device_caps *caps, hy_gpu_program *prog) {
  hy_strbuf *sb = &prog->source;
  int64_t count = hy_pass_count(pass);
  int block = caps->max_work_group >= 256 ? 256 : (caps->max_work_group > 0 ? caps->max_work_group : 64);
  int big = count > INT32_MAX || hy_cg_extent(pass, 0) > INT32_MAX || hy_cg_extent(pass, 1) > INT32_MAX;
  const char *idx = big ? "hy_i64" : "int";
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0], "hy_pass%d_copy", pass_index);
  hy_cg_kernel_open(sb, dialect, prog->names[prog->nkernels], block, 0);
  const char *g = hy_cg_global(dialect);
  hy_strbuf_appendf(sb, "%sconst real2 *src, %sreal2 *dst, const hy_i64 hy_block0) {\n", g, g);
  hy_cg_emit_block_index(sb, 0);
  hy_strbuf_appendf(sb, "  const %s ti = (%s)(HY_GID * %d + HY_LID);\n", idx, idx, block);
  hy_strbuf_appendf(sb, "  if (ti >= %lld) return;\n", (long long)count);
  hy_strbuf_appendf(sb, "  %s ib = %lld, ob = %lld;\n", idx, (long long)pass->src_offset,
                    (long long)pass->dst_offset);
  if (pass->nloops > 0) hy_strbuf_appendf(sb, "  %s rem = ti, q;\n", idx);
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, 0, order);
  hy_cg_emit_loop_offsets(sb, pass, order, "  ", "ib", "ob", NULL, NULL);
  hy_strbuf_append(sb, "  real2 v = src[ib];\n");
  if (pass->scale != 1.0) {
    hy_strbuf_append(sb, "  v = cscale(v, ");
    hy_cg_literal(sb, pass->precision, (long double)pass->scale);
    hy_strbuf_append(sb, ");\n");
  }
  hy_strbuf_append(sb, "  dst[ob] = v;\n}\n\n");
  hy_launch *L = &prog->launches[prog->nlaunches++];
  L->kernel = prog->nkernels++;
  L->grid = (count + block - 1) / block;
  L->block = block;
  L->shared_bytes = 0;
  L->nargs = 3;
  L->args[0] = (hy_kernel_arg){HY_ARG_BUFFER, pass->src};
  L->args[1] = (hy_kernel_arg){HY_ARG_BUFFER, pass->dst};
  L->args[2] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  L->block_offset = 0;
  L->batch_blocks = 0; /* rank-0 plans have one pass: nothing to interleave */
  return HYFFT_SUCCESS;
}

hy_status hy_cg_pass_kernel(const hy_problem *problem, const hy_pass *pass, int pass_index,
                            const hy_device_caps *caps, const hy_kernel_spec *spec,
                            hy_gpu_program *prog) {
  if (prog->nkernels >= HY_MAX_KERNELS || prog->nlaunches >= HY_MAX_LAUNCHES)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: more than %d kernels in one plan", HY_MAX_KERNELS);
  if (pass->op == HY_PASS_COPY) return hy_cg_copy_kernel(pass, pass_index, prog->dialect, caps, prog);
  if (pass->op == HY_PASS_CHIRP) return hy_cg_chirp_kernel(problem, pass, pass_index, caps, prog);
  if (pass->op != HY_PASS_DFT)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d has an op the GPU generator lacks", pass_index);

  hy_cg_kernel k;
  memset(&k, 0, sizeof k);
  k.sb = &prog->source;
  k.precision = pass->precision;
  k.pass = pass;
  k.spec = spec;
  k.n = pass->axis.n;
  k.bluestein = pass->algo == HY_ALGO_BLUESTEIN;
  k.rader = pass->algo == HY_ALGO_RADER;
  int64_t nc = k.bluestein || k.rader ? pass->bluestein_m : pass->axis.n;
  if (nc > 65536)
    return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d length %lld does not fit one kernel",
                    pass_index, (long long)nc);
  k.nc = (int)nc;
  k.T = spec->threads_per_transform;
  k.M = spec->transforms_per_block;
  k.pad = spec->lds_pad;
  k.pad_shift = spec->lds_pad_shift;
  k.row = hy_spec_row(k.nc, spec);
  if (k.T < 1 || k.M < 1 || (int64_t)k.T * k.M > (caps->max_work_group > 0 ? caps->max_work_group : 1024))
    return hy_error(HYFFT_INVALID_ARGUMENT, "codegen: pass %d: %d threads x %d transforms per block",
                    pass_index, k.T, k.M);
  int64_t lbytes = hy_spec_local_bytes(pass, spec, k.nc);

  /* Stages. */
  int64_t prod = 1;
  for (int f = 0; f < pass->nfactors; f++) prod *= pass->factors[f];
  if (prod != nc)
    return hy_error(HYFFT_INTERNAL, "codegen: pass %d factors multiply to %lld, not %lld",
                    pass_index, (long long)prod, (long long)nc);
  int radices[HY_MAX_FACTORS];
  int nradices = hy_spec_radices(pass, spec, radices);
  int reps = k.bluestein || k.rader ? 2 : 1;
  for (int rep = 0; rep < reps; rep++) {
    int ns = 1;
    for (int f = 0; f < nradices; f++) {
      hy_cg_stage *st = &k.st[k.nstages++];
      st->radix = radices[f];
      st->ns = ns;
      st->nb = k.nc / st->radix;
      st->per = (st->nb + k.T - 1) / k.T;
      st->guard = st->per * k.T > st->nb;
      st->kdiv = pass->plane_inner > 0 && ns >= pass->plane_inner ? (int)pass->plane_inner : 1;
      if (k.bluestein || k.rader) {
        st->sign = rep == 0 ? -1 : 1;
        st->conj = rep == 1;
      } else {
        st->sign = pass->sign;
      }
      if (st->per * st->radix > HY_CG_MAX_REGS)
        return hy_error(HYFFT_NOT_SUPPORTED, "codegen: pass %d needs %d registers per thread",
                        pass_index, st->per * st->radix);
      ns *= st->radix;
    }
    if (rep == 0) k.forward_end = k.nstages - 1;
  }
  if (k.nstages == 0) { /* length 1 never reaches a DFT pass, but keep it valid */
    hy_cg_stage *st = &k.st[k.nstages++];
    *st = (hy_cg_stage){1, 1, k.nc, (k.nc + k.T - 1) / k.T, 0, pass->sign, 0, 1};
    st->guard = st->per * k.T > st->nb;
  }

  int64_t count = hy_pass_count(pass);
  int64_t grid = (count + k.M - 1) / k.M;
  int big = hy_cg_extent(pass, 0) > INT32_MAX || hy_cg_extent(pass, 1) > INT32_MAX ||
            grid * k.M > INT32_MAX || (pass->twiddle_loop >= 0 && pass->twiddle_n > INT32_MAX);
  k.idx = big ? "hy_i64" : "int";

  /* Tables. */
  int t_tw = -1, t_chirp = -1, t_bh = -1, t_ftw = -1;
  if (spec->stage_twiddles)
    HY_TRY(hy_cg_stage_twiddle_table(prog, &k, k.bluestein || k.rader ? -1 : pass->sign, &t_tw));
  else
    HY_TRY(hy_cg_twiddle_table(prog, k.nc, k.bluestein || k.rader ? -1 : pass->sign,
                               pass->precision, &t_tw));
  if (k.bluestein) {
    HY_TRY(hy_cg_chirp_table(prog, k.n, pass->sign, pass->precision, &t_chirp));
    HY_TRY(hy_cg_bluestein_table(prog, k.n, k.nc, pass->sign, pass->precision, &t_bh));
  }
  int t_rin = -1, t_rout = -1;
  if (k.rader)
    HY_TRY(hy_cg_rader_tables(prog, k.n, pass->sign, pass->precision, &t_rin, &t_rout, &t_bh));
  int t_fz = -1;
  if (pass->fuse == HY_FUSE_CHIRP_IN || pass->fuse == HY_FUSE_CHIRP_OUT)
    HY_TRY(hy_cg_chirp_table(prog, pass->chirp_n, pass->fuse_sign, pass->precision, &t_fz));
  else if (pass->fuse == HY_FUSE_SPECTRUM_OUT)
    HY_TRY(hy_cg_bluestein_table(prog, pass->chirp_n, pass->bluestein_m, pass->fuse_sign,
                                 pass->precision, &t_fz));
  else if (pass->fuse == HY_FUSE_RADER_IN || pass->fuse == HY_FUSE_RADER_OUT)
    HY_TRY(hy_cg_rader_perm_table(prog, pass->chirp_n, hy_cg_primitive_root(pass->chirp_n),
                                  &t_fz));
  else if (pass->fuse == HY_FUSE_RADER_SPECTRUM_OUT)
    HY_TRY(hy_cg_rader_spectrum_table(prog, pass->chirp_n, pass->fuse_sign, pass->precision, &t_fz));
  /* On-the-fly twiddles keep the argument (one entry) so launches do not change. */
  if (pass->twiddle_loop >= 0 && spec->ftw_sincos == 2)
    HY_TRY(hy_cg_twiddle_pair_table(prog, pass->twiddle_n, pass->sign, pass->precision, &t_ftw));
  else if (pass->twiddle_loop >= 0)
    HY_TRY(hy_cg_twiddle_table(prog, spec->ftw_sincos ? 1 : pass->twiddle_n, pass->sign,
                               pass->precision, &t_ftw));

  /* Header and signature. */
  hy_strbuf *sb = k.sb;
  const char *g = hy_cg_global(prog->dialect);
  snprintf(prog->names[prog->nkernels], sizeof prog->names[0],
           spec->body ? "hy_pass%d_body%lld" : "hy_pass%d_dft%lld", pass_index, (long long)k.n);
  hy_strbuf_append(sb, "/* ");
  hy_plan_tree tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.solver = "-";
  tmp.npasses = 1;
  tmp.passes[0] = *pass;
  hy_strbuf line;
  hy_strbuf_init(&line);
  hy_plan_tree_describe(&tmp, &line);
  const char *nl = line.data ? strchr(line.data, '\n') : NULL;
  if (nl) {
    const char *p = strchr(nl + 1, ':'); /* past the "pass 0" of the one-pass tree */
    p = p ? p + 2 : nl + 1;
    hy_strbuf_appendf(sb, "pass %d: %.*s", pass_index, (int)(strcspn(p, "\n")), p);
  }
  hy_strbuf_free(&line);
  hy_strbuf_appendf(sb, "\n * %d threads x %d transforms per work-group, %lld bytes local, "
                        "pad %d, %s exchange, %s%s%s%s */\n",
                    k.T, k.M, (long long)lbytes, k.pad,
                    spec->split_exchange ? "split" : "complex",
                    spec->transform_fastest ? "threads along the transform"
                                            : "threads across transforms",
                    spec->store_transposed ? ", transposed store" : "",
                    spec->stage_load ? ", staged load" : "",
                    spec->stage_store ? ", staged store" : "");
  /* The layout choices that differ from the planner's factors and the
   * default padding, named so that a reader of the source sees them. */
  if (spec->pow2_radix > 0 || k.pad_shift != 5 || spec->lds_row_extra) {
    hy_strbuf_append(sb, "/* stages");
    for (int s = 0; s < k.nstages && s <= k.forward_end; s++)
      hy_strbuf_appendf(sb, "%s%d", s ? "x" : " ", k.st[s].radix);
    hy_strbuf_appendf(sb, ", local rows of %d elements padded by %d every %d */\n", k.row, k.pad,
                      1 << k.pad_shift);
  }
  int uses_lds = k.nstages > 1 || spec->store_transposed || spec->stage_load || spec->stage_store;
  const char *lds_type = spec->split_exchange ? "real" : "real2";
  if (spec->body) {
    /* A step of a persistent kernel (codegen.c): a function the kernel
     * calls with the block's index and its local memory. The first pass
     * streams its input past L2 (evict first); the second reads what the
     * first wrote in L2, past L1 (which other SMs' writes do not update),
     * and streams its output. OpenCL has no cache hints: a volatile read
     * keeps L1 out. A CUDA call, not inlined: inlined into the ticket loop
     * the two passes took 2x the registers of their own kernels or spilled
     * (ptxas, sm_90); as calls each keeps its kernel's count. */
    hy_strbuf_appendf(sb, "%s void %s(",
                      prog->dialect == HY_DIALECT_CUDA ? "__device__ __noinline__" : "HY_FN",
                      prog->names[prog->nkernels]);
    if (prog->dialect == HY_DIALECT_CUDA)
      hy_strbuf_append(sb, spec->body == 1   ? "hy_ld_stream src, real2 *dst"
                           : spec->body == 2 ? "hy_ld_l2 src, hy_st_stream dst"
                                             : "hy_ld_l2 src, real2 *dst");
    else
      hy_strbuf_appendf(sb, "%s__global const real2 *src, __global real2 *dst",
                        spec->body == 1 ? "" : "volatile ");
    hy_strbuf_appendf(sb, ", %sconst real2 *tw", g);
  } else {
    hy_cg_kernel_open(sb, prog->dialect, prog->names[prog->nkernels], k.T * k.M,
                      spec->min_blocks);
    hy_strbuf_appendf(sb, "%sconst real2 *src, %sreal2 *dst, %sconst real2 *tw", g, g, g);
  }
  if (k.bluestein) hy_strbuf_appendf(sb, ", %sconst real2 *chirp, %sconst real2 *bh", g, g);
  if (k.rader)
    hy_strbuf_appendf(sb, ", %sconst int *rin, %sconst int *rout, %sconst real2 *bh", g, g, g);
  if (pass->twiddle_loop >= 0) hy_strbuf_appendf(sb, ", %sconst real2 *ftw", g);
  if (t_fz >= 0)
    hy_strbuf_appendf(sb, ", %sconst %s *fz", g,
                      prog->tables[t_fz].type == HY_TABLE_INDEX ? "int" : "real2");
  int rader_fused = pass->fuse >= HY_FUSE_RADER_IN;
  if (rader_fused) hy_strbuf_appendf(sb, ", %sreal2 *aux", g);
  if (spec->body && prog->dialect == HY_DIALECT_CUDA) {
    /* CUDA: the function takes the kernel's shared memory itself (below)
     * and is told that every pointer it takes is global, so that each
     * access compiles to a shared or global instruction without relying
     * on NVVM following the call (it did not for the input's accessor,
     * which was read with generic loads). */
    hy_strbuf_append(sb, ", const hy_i64 hy_gid) {\n  __builtin_assume(__isGlobal(src.p));\n");
    hy_strbuf_appendf(sb, "  __builtin_assume(__isGlobal(dst%s));\n",
                      spec->body == 2 ? ".p" : "");
    hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(tw));\n");
    if (k.bluestein)
      hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(chirp));\n"
                           "  __builtin_assume(__isGlobal(bh));\n");
    if (k.rader)
      hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(rin));\n"
                           "  __builtin_assume(__isGlobal(rout));\n"
                           "  __builtin_assume(__isGlobal(bh));\n");
    if (pass->twiddle_loop >= 0) hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(ftw));\n");
    if (t_fz >= 0) hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(fz));\n");
    if (rader_fused) hy_strbuf_append(sb, "  __builtin_assume(__isGlobal(aux));\n");
  } else if (spec->body) {
    hy_strbuf_appendf(sb, ", const hy_i64 hy_gid, __local %s *lds) {\n", lds_type);
    if (!uses_lds) hy_strbuf_append(sb, "  (void)lds;\n");
  } else {
    hy_strbuf_append(sb, ", const hy_i64 hy_block0) {\n");
    hy_cg_emit_block_index(sb, spec->reverse_blocks);
  }
  /* CUDA caps static shared arrays at 48 KB; the exchange buffer is dynamic
   * shared memory there (launch shared_bytes, opted into by the backend),
   * one untyped array so that kernels of other element types can share
   * the translation unit. */
  if (spec->body && prog->dialect == HY_DIALECT_OPENCL)
    ;
  else if (uses_lds && prog->dialect == HY_DIALECT_CUDA)
    hy_strbuf_appendf(sb, "  extern __shared__ __align__(16) unsigned char hy_smem[];\n"
                          "  %s *lds = (%s *)hy_smem;\n",
                      lds_type, lds_type);
  else if (uses_lds)
    hy_strbuf_appendf(sb, "  %s%s lds[%d];\n", hy_cg_local(prog->dialect), lds_type,
                      k.M * k.row);
  hy_cg_prologue(&k, count);
  if (uses_lds) hy_strbuf_appendf(sb, "  const int mo = m * %d;\n", k.row);
  if (k.st[0].ns == 1 && k.nstages == 1) hy_strbuf_append(sb, "  (void)tw;\n");

  hy_cg_decl_regs(&k, 'x', 0);
  if (k.rader && spec->stage_store) hy_strbuf_append(sb, "  int hx0_out = 0;\n  real2 hX0 = MK(0, 0);\n");
  if (k.rader && spec->stage_load) {
    /* Rader from local memory: the rows arrive contiguously, then each
     * thread picks its convolution inputs x at g^q mod p. */
    hy_cg_stage_copy(&k, count, 0);
    hy_strbuf_append(sb, "  const real2 hx0 = lds[mo];\n");
    hy_cg_load_rader_local(&k);
  } else if (k.rader) {
    /* Rader: x_0, which every output adds (read before any store: in place). */
    hy_strbuf_append(sb, "  const real2 hx0 = valid ? src[ib] : MK(0, 0);\n");
    hy_cg_load_global(&k);
  } else if (spec->stage_load) {
    hy_cg_stage_copy(&k, count, 0);
    hy_cg_load_local(&k, 0, 0);
  } else {
    hy_cg_load_global(&k);
  }
  /* Fused Rader keeps x_0 for its last pass. */
  if (pass->fuse == HY_FUSE_RADER_IN)
    hy_strbuf_appendf(sb, "  if (valid && fk == 0 && t == 0) aux[%lld + 2 * st] = src[ib];\n",
                      (long long)pass->aux_offset);
  for (int s = 0; s < k.nstages; s++) {
    hy_cg_decl_regs(&k, 'y', s);
    hy_cg_compute(&k, s);
    if (s == k.nstages - 1) {
      /* One stage reads and writes global memory only: with in-place data
       * every thread must have read before any thread writes. */
      int via_lds = spec->store_transposed || spec->stage_store;
      if (k.nstages == 1 && !via_lds && !spec->stage_load) hy_strbuf_append(sb, "  HY_BARRIER();\n");
      /* Before overwriting local memory, every thread has done its loads. */
      if ((k.nstages > 1 || spec->stage_load) && via_lds) hy_strbuf_append(sb, "  HY_BARRIER();\n");
      hy_cg_store_global(&k, s);
      if (k.rader && spec->stage_store) {
        hy_strbuf_append(sb, "  if (hx0_out) lds[mo] = ");
        if (pass->scale != 1.0) {
          hy_strbuf_append(sb, "cscale(hX0, ");
          hy_cg_literal(sb, k.precision, (long double)pass->scale);
          hy_strbuf_append(sb, ");\n");
        } else {
          hy_strbuf_append(sb, "hX0;\n");
        }
      }
      if (spec->store_transposed) hy_cg_store_transposed(&k, count);
      if (spec->stage_store) hy_cg_stage_copy(&k, count, 1);
    } else {
      hy_cg_decl_regs(&k, 'x', s + 1);
      hy_cg_exchange(&k, s);
    }
  }
  hy_strbuf_append(sb, "}\n\n");

  hy_launch *L = &prog->launches[prog->nlaunches++];
  L->kernel = prog->nkernels++;
  L->grid = grid;
  L->block = k.T * k.M;
  L->shared_bytes = (size_t)(uses_lds ? lbytes : 0);
  L->nargs = 0;
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->src};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, pass->dst};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_tw};
  if (k.bluestein) {
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_chirp};
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_bh};
  }
  if (k.rader) {
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_rin};
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_rout};
    L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_bh};
  }
  if (pass->twiddle_loop >= 0) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_ftw};
  if (t_fz >= 0) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, t_fz};
  if (rader_fused) L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, HY_BUF_WORK0};
  L->args[L->nargs++] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  L->block_offset = 0;
  /* Block b holds transforms [b*M, b*M + M), and the transform index has
   * the outermost batch loop (loops[0]) as its slowest digit when that
   * loop has the largest input stride: then each element of that loop is
   * count/B transforms, whole blocks of them when M divides it. */
  L->batch_blocks = 0;
  int order[HY_MAX_LOOPS];
  hy_cg_loop_order(pass, spec->store_transposed, order);
  int64_t batch = problem->batch_rank > 0 ? problem->batch[0].n : 0;
  if (batch > 1 && pass->nloops > 0 && pass->loops[0].n == batch &&
      order[pass->nloops - 1] == 0 && count % batch == 0 && (count / batch) % k.M == 0)
    L->batch_blocks = count / batch / k.M;
  return HYFFT_SUCCESS;
}
