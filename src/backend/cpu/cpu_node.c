/* Building the CPU engine's execution nodes from a pass: the choice
 * between one gathered transform and a four-step split, or the pass's
 * Bluestein or Rader, and the tables each needs (all from long double,
 * see tables/twiddle.h and tables/spectra.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_node.h"
#include "tables/spectra.h"
#include "tables/twiddle.h"
#include "util/settings.h"

void hy_cpu_kp_free(hy_cpu_kp *kp) {
  for (int s = 0; s < kp->nstages; s++) {
    hy_free(kp->stages[s].tw);
    hy_free(kp->stages[s].consts);
  }
  kp->nstages = 0;
}

void hy_cpu_node_free(hy_cpu_node *node) {
  if (!node) return;
  hy_cpu_kp_free(&node->kp);
  hy_cpu_kp_free(&node->rkp);
  hy_free(node->rtw);
  hy_cpu_node_free(node->a);
  hy_cpu_node_free(node->b);
  hy_cpu_node_free(node->fft);
  hy_free(node->chirp);
  hy_free(node->spec);
  hy_free(node->rd);
  hy_free(node->wr);
  hy_free(node->tw.lo);
  hy_free(node->tw.hi);
  hy_free(node->tw.lane);
  hy_free(node);
}

static hy_status hy_cpu_twiddle_build(hy_cpu_twiddle *tw, int64_t n, int sign) {
  if (n <= 0) return HYFFT_SUCCESS;
  int shift = 0;
  while (((int64_t)1 << (2 * shift)) < n) shift++;
  tw->n = n;
  tw->shift = shift;
  tw->mask = ((int64_t)1 << shift) - 1;
  int64_t nlo = tw->mask + 1, nhi = (n >> shift) + 1;
  tw->lo = hy_malloc(sizeof(double) * 2 * (size_t)nlo);
  tw->hi = hy_malloc(sizeof(double) * 2 * (size_t)nhi);
  if (!tw->lo || !tw->hi)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: twiddle table of period %lld", (long long)n);
  hy_twiddle_table_f64(tw->lo, nlo, 1, n, sign);
  hy_twiddle_table_f64(tw->hi, nhi, nlo, n, sign);
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_lane_twiddles(hy_cpu_node *node, int64_t T) {
  const int L = node->precision == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  const int64_t n = node->n;
  node->tw.lane = hy_malloc(sizeof(double) * 2 * (size_t)(n * L));
  if (!node->tw.lane)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: lane twiddles for n = %lld", (long long)n);
  for (int64_t k = 0; k < n; k++)
    for (int v = 0; v < L; v++) {
      long double re, im;
      hy_twiddle_ld((int64_t)(((__int128)v * k) % T), T, node->sign, &re, &im);
      node->tw.lane[k * L + v] = (double)re;
      node->tw.lane[n * L + k * L + v] = (double)im;
    }
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_kp_init(hy_cpu_kp *kp, hyfft_precision prec, int64_t n,
                                const int *factors, int nfactors, int sign) {
  return prec == HYFFT_F64 ? hy_cpu_kp_init_f64(kp, n, factors, nfactors, sign)
                           : hy_cpu_kp_init_f32(kp, n, factors, nfactors, sign);
}

/* The radices of the row path's kernel plan for length n (hy_cpu_node.rkp,
 * of n / LANES points: powers of two as radix 16, 8 and 4, no radix-2
 * stage unless n / LANES is 2 times a power of 16; the odd factors of
 * `factors`) into f[0..*nf_out). 0 where LANES does not divide n, n is
 * LANES itself, or n / LANES has factors the codelets lack: no row path. */
static int hy_cpu_row_factors(int L, int64_t n, const int *factors, int nfactors,
                              int f[HY_MAX_FACTORS], int *nf_out) {
  const int64_t m = n / L;
  if (n % L != 0 || m < 2) return 0;
  int nf = 0, k = 0;
  int64_t odd = m;
  while (odd % 2 == 0) {
    odd /= 2;
    k++;
  }
  while (k > 0 && nf < HY_MAX_FACTORS) {
    int r = (k >= 4 && k - 4 != 1) ? 4 : (k >= 3 && k - 3 != 1) ? 3 : k >= 2 ? 2 : 1;
    f[nf++] = 1 << r;
    k -= r;
  }
  int64_t rest = odd;
  for (int i = 0; i < nfactors && rest > 1; i++)
    if (factors[i] % 2 == 1 && factors[i] > 1 && rest % factors[i] == 0 && nf < HY_MAX_FACTORS) {
      f[nf++] = factors[i];
      rest /= factors[i];
    }
  *nf_out = nf;
  return rest == 1 && k == 0;
}

/* What this process's timings decided, per precision and length (the
 * row path's hy_cpu_rows_pay, the long rows' hy_cpu_direct_pays): a
 * length is timed once, and every later plan of the process takes the
 * same answer, so that two plans of one problem run the same path and
 * give the same bits. The table grows as lengths come. If it cannot grow
 * (no memory) it is frozen: lengths not in it take the caller's rule
 * without timing from then on, never a fresh timing that could answer
 * otherwise. */
typedef struct hy_cpu_memo_entry {
  hyfft_precision prec;
  int64_t n;
  int value;
  int timed;
} hy_cpu_memo_entry;

typedef struct hy_cpu_memo {
  pthread_mutex_t lock;
  hy_cpu_memo_entry *entries;
  int count, capacity, frozen;
} hy_cpu_memo;

/* The entry of (prec, n), NULL when the length is not decided yet.
 * Called with memo->lock held. */
static const hy_cpu_memo_entry *hy_cpu_memo_find(const hy_cpu_memo *memo, hyfft_precision prec,
                                                 int64_t n) {
  for (int i = 0; i < memo->count; i++)
    if (memo->entries[i].prec == prec && memo->entries[i].n == n) return &memo->entries[i];
  return NULL;
}

/* Records a decision; freezes the memo when there is no memory to grow
 * it. Called with memo->lock held. */
static void hy_cpu_memo_add(hy_cpu_memo *memo, hy_cpu_memo_entry entry) {
  if (memo->count == memo->capacity) {
    const int capacity = memo->capacity ? 2 * memo->capacity : 64;
    hy_cpu_memo_entry *grown = hy_realloc(memo->entries, (size_t)capacity * sizeof *grown);
    if (!grown) {
      memo->frozen = 1;
      return;
    }
    memo->entries = grown;
    memo->capacity = capacity;
  }
  memo->entries[memo->count++] = entry;
}

/* Whether full lane groups of a DIRECT node with row tables and
 * n < LANES^3, or with a partial last group of outputs, run faster on
 * the row path, as measured on this machine.
 * The two paths trade different work: a lane group transposes LANES
 * transforms into lanes and back (two LANES x LANES transposes per LANES
 * points each way), the row path one transpose per LANES outputs and the
 * radix-LANES step with its twiddles. Which costs less depends on the
 * core's shuffle throughput against its arithmetic: on some x86 cores
 * the row path is 20-30% faster for 128- and 256-point f32 rows, on
 * others 5-25% slower (docs/performance.md). So the node times both on
 * eight lane groups of its own length in cache, alternating, and takes the
 * row path only where its best time is under 0.9 of the lane groups';
 * the answer is kept per precision and length for the process, so that
 * every plan of one process runs the same path (and rounds the same).
 * HYFFT_CPU_ROWS=0 / 1 decides without measuring. */
static hy_cpu_memo hy_cpu_rows_memo = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

int hy_cpu_rows_decided(hyfft_precision prec, int64_t n) {
  pthread_mutex_lock(&hy_cpu_rows_memo.lock);
  const hy_cpu_memo_entry *e = hy_cpu_memo_find(&hy_cpu_rows_memo, prec, n);
  const int value = e ? e->value : -1;
  pthread_mutex_unlock(&hy_cpu_rows_memo.lock);
  return value;
}

/* A timing probe's run: `count` unit-stride transforms of n points out of
 * place, on a fresh buffer of both sides (returned; free with hy_free) of
 * finite values that stay finite through repeated transforms. NULL when
 * out of memory. */
static char *hy_cpu_probe_run(hyfft_precision prec, int64_t n, int64_t count, hy_cpu_run *run) {
  const size_t esz = prec == HYFFT_F64 ? sizeof(double) : sizeof(float);
  const size_t bytes = esz * 2 * (size_t)(n * count);
  char *buf = hy_malloc(2 * bytes);
  if (!buf) return NULL;
  for (size_t i = 0; i < 2 * bytes / esz; i++) {
    double x = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
    if (prec == HYFFT_F64)
      ((double *)buf)[i] = x;
    else
      ((float *)buf)[i] = (float)x;
  }
  memset(run, 0, sizeof *run);
  run->src = buf;
  run->dst = buf + bytes;
  run->axis = (hyfft_dim){n, 1, 1};
  run->nloops = 1;
  run->loops[0] = (hyfft_dim){count, n, n};
  run->twiddle_loop = -1;
  run->scale = 1.0;
  return buf;
}

static double hy_cpu_rows_time(hy_cpu_node *node, const hy_cpu_run *run) {
  double best = 1e30;
  for (int rep = 0; rep < 4; rep++) {
    double t0 = hy_now();
    hy_status st = node->precision == HYFFT_F64 ? hy_cpu_node_run_f64(node, run)
                                                : hy_cpu_node_run_f32(node, run);
    double t = hy_now() - t0;
    if (st != HYFFT_SUCCESS) return 1e30;
    if (t < best) best = t;
  }
  return best;
}

static int hy_cpu_rows_measure(hy_cpu_node *node) {
  const int L = node->precision == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  /* Eight lane groups, fewer for long rows: the probe's in and out stay
   * within about 1 MiB (in the L2 or close to it), and planning a long
   * row does not time megabytes. */
  const int64_t n = node->n;
  int64_t groups = ((int64_t)1 << 16) / (n * L);
  if (groups > 8) groups = 8;
  if (groups < 1) groups = 1;
  const int64_t count = groups * L;
  hy_cpu_run run;
  char *buf = hy_cpu_probe_run(node->precision, n, count, &run);
  if (!buf) return 0;
  double rows = 1e30, lanes = 1e30;
  for (int round = 0; round < 4; round++) {
    node->rows_batched = 0;
    double t = hy_cpu_rows_time(node, &run);
    if (t < lanes) lanes = t;
    node->rows_batched = 1;
    t = hy_cpu_rows_time(node, &run);
    if (t < rows) rows = t;
  }
  node->rows_batched = 0;
  hy_free(buf);
  return rows < 0.9 * lanes;
}

static int hy_cpu_rows_pay(hy_cpu_node *node) {
  int forced = hy_settings_get()->cpu_rows;
  if (forced >= 0) return forced;
  hy_cpu_memo *memo = &hy_cpu_rows_memo;
  pthread_mutex_lock(&memo->lock);
  const hy_cpu_memo_entry *e = hy_cpu_memo_find(memo, node->precision, node->n);
  int found = e ? e->value : 0;
  if (!e && !memo->frozen) {
    /* Under the lock, so that two threads planning the same length at
     * once do not time each other's runs. */
    found = hy_cpu_rows_measure(node);
    hy_cpu_memo_add(memo, (hy_cpu_memo_entry){node->precision, node->n, found, 1});
    if (memo->frozen) found = 0; /* not recorded: the rule's answer, as for every new length */
  }
  pthread_mutex_unlock(&memo->lock);
  return found;
}

/* The row tables of a DIRECT node (hy_cpu_node.rkp, rtw) where
 * hy_cpu_row_factors has a plan: the kernel plan of n / LANES and the
 * twiddles w_n^(v*k), zero for the k past n / LANES that the last group
 * of LANES outputs reads when LANES does not divide n / LANES
 * (hy_cpu_row_tw_rows). Rows shorter than LANES^3 keep the lane groups
 * for full groups (rows_batched = 0): with n / LANES < LANES^2 the
 * LANES x LANES transposes of the row path outweigh what it saves when
 * every lane holds a transform (such rows measured slower on it, longer
 * ones faster: docs/performance.md), unless timing on this machine finds
 * the row path faster (hy_cpu_rows_pay). Rows whose last group of outputs
 * is partial (LANES does not divide n / LANES) are timed at every
 * length: the partial group's extra work and the straight-line kernels'
 * savings vary with m. Rows that take neither run the row path only in runs of fewer
 * transforms than a lane group, where a group would leave lanes empty.
 * Skipped (no error) where there is no plan. */
static hy_status hy_cpu_row_tables(hy_cpu_node *node, const int *factors, int nfactors) {
  const int L = node->precision == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  const int64_t n = node->n, m = n / L, mp = hy_cpu_row_tw_rows(L, m), rows = mp * L;
  int f[HY_MAX_FACTORS], nf = 0;
  if (!hy_cpu_row_factors(L, n, factors, nfactors, f, &nf)) return HYFFT_SUCCESS;
  HY_TRY(hy_cpu_kp_init(&node->rkp, node->precision, m, f, nf, node->sign));
  const size_t esz = node->precision == HYFFT_F64 ? sizeof(double) : sizeof(float);
  char *tw = hy_calloc(2 * (size_t)rows, esz);
  if (!tw) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: row twiddles for n = %lld", (long long)n);
  for (int64_t j = 0; j < m; j++)
    for (int p = 0; p < L; p++) {
      long double re, im;
      hy_twiddle_ld(hy_cpu_row_lane(L, p) * j, n, node->sign, &re, &im);
      if (node->precision == HYFFT_F64) {
        ((double *)tw)[j * L + p] = (double)re;
        ((double *)tw)[rows + j * L + p] = (double)im;
      } else {
        ((float *)tw)[j * L + p] = (float)re;
        ((float *)tw)[rows + j * L + p] = (float)im;
      }
    }
  node->rtw = tw;
  if (m % L != 0) {
    node->rows_batched = hy_cpu_rows_pay(node);
    return HYFFT_SUCCESS;
  }
  node->rows_batched = n >= (int64_t)L * L * L || n > hy_cpu_direct_max(node->precision);
  if (!node->rows_batched) node->rows_batched = hy_cpu_rows_pay(node);
  return HYFFT_SUCCESS;
}

/* A complex table of m entries, interleaved in `prec`, rewritten in place
 * as split re then im (same bytes). */
static hy_status hy_cpu_split_table(void *data, hyfft_precision prec, int64_t m) {
  size_t esz = prec == HYFFT_F64 ? sizeof(double) : sizeof(float);
  char *tmp = hy_malloc(esz * 2 * (size_t)m);
  if (!tmp) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: table of %lld entries", (long long)m);
  const char *src = data;
  for (int64_t j = 0; j < m; j++) {
    memcpy(tmp + esz * (size_t)j, src + esz * (size_t)(2 * j), esz);
    memcpy(tmp + esz * (size_t)(m + j), src + esz * (size_t)(2 * j + 1), esz);
  }
  memcpy(data, tmp, esz * 2 * (size_t)m);
  hy_free(tmp);
  return HYFFT_SUCCESS;
}

/* Bluestein's chirp, from long double, and kernel spectrum, both rounded
 * once into the node's precision. f64 nodes take the spectrum in long
 * double (tables/spectra.c: rel RMS 3.5-4.7e-16 at 1019-131071, below
 * FFTW's 4.1-5.8e-16; an f64 spectrum gave 4.3-5.8e-16); f32 nodes take
 * it from an FFT in the f64 engine, whose error is far below f32's
 * rounding and which takes a fraction of the long double FFT's time
 * (131071: plan 111 -> 39 ms). */
static hy_status hy_cpu_bluestein_tables(hy_cpu_node *node, const int *factors, int nfactors) {
  const int64_t n = node->n, M = node->m;
  const hyfft_precision prec = node->precision;
  const size_t esz = prec == HYFFT_F64 ? sizeof(double) : sizeof(float);
  node->chirp = hy_malloc(esz * 2 * (size_t)n);
  node->spec = hy_malloc(esz * 2 * (size_t)M);
  if (prec == HYFFT_F64) {
    if (!node->chirp || !node->spec)
      return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: Bluestein tables for n = %lld", (long long)n);
    for (int64_t j = 0; j < n; j++) {
      long double cr, ci;
      hy_chirp_ld(j, n, node->sign, &cr, &ci);
      ((double *)node->chirp)[j] = (double)cr;
      ((double *)node->chirp)[n + j] = (double)ci;
    }
    HY_TRY(hy_tables_bluestein_spectrum(n, M, node->sign, prec, node->spec));
    return hy_cpu_split_table(node->spec, prec, M);
  }
  double *buf = hy_calloc(4 * (size_t)M, sizeof(double));
  hy_cpu_node *f64 = NULL;
  hy_status st = HYFFT_SUCCESS;
  if (!node->chirp || !node->spec || !buf)
    st = hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: Bluestein tables for n = %lld", (long long)n);
  if (st == HYFFT_SUCCESS)
    st = hy_cpu_node_build(HYFFT_F64, -1, M, HY_ALGO_MIXED_RADIX, factors, nfactors, 0, 0, 1,
                           &f64);
  if (st == HYFFT_SUCCESS) {
    double *in = buf, *out = buf + 2 * M;
    for (int64_t j = 0; j < n; j++) {
      long double cr, ci;
      hy_chirp_ld(j, n, node->sign, &cr, &ci);
      ((float *)node->chirp)[j] = (float)cr;
      ((float *)node->chirp)[n + j] = (float)ci;
      /* b[j] = b[M-j] = conj(c[j]) */
      in[2 * j] = (double)cr;
      in[2 * j + 1] = (double)-ci;
      if (j > 0) {
        in[2 * (M - j)] = (double)cr;
        in[2 * (M - j) + 1] = (double)-ci;
      }
    }
    hy_cpu_run r;
    memset(&r, 0, sizeof r);
    r.src = in;
    r.dst = out;
    r.axis = (hyfft_dim){M, 1, 1};
    r.twiddle_loop = -1;
    r.scale = 1.0;
    st = hy_cpu_node_run_f64(f64, &r);
    for (int64_t j = 0; st == HYFFT_SUCCESS && j < M; j++) {
      ((float *)node->spec)[j] = (float)(out[2 * j] / (double)M);
      ((float *)node->spec)[M + j] = (float)(out[2 * j + 1] / (double)M);
    }
  }
  hy_cpu_node_free(f64);
  hy_free(buf);
  return st;
}

/* Rader's index tables and kernel spectrum (tables/spectra.c, long
 * double rounded once into the node's precision). */
static hy_status hy_cpu_rader_tables(hy_cpu_node *node) {
  const int64_t p = node->n, M = node->m;
  const size_t esz = node->precision == HYFFT_F64 ? sizeof(double) : sizeof(float);
  node->rd = hy_malloc(sizeof(int32_t) * (size_t)M);
  node->wr = hy_malloc(sizeof(int32_t) * (size_t)M);
  node->spec = hy_malloc(esz * 2 * (size_t)M);
  if (!node->rd || !node->wr || !node->spec)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: Rader tables for n = %lld", (long long)p);
  int64_t g = hy_tables_primitive_root(p);
  hy_tables_rader_powers(p, g, node->rd);
  hy_tables_rader_powers(p, hy_tables_powmod(g, p - 2, p), node->wr);
  HY_TRY(hy_tables_rader_spectrum(p, node->sign, node->precision, node->spec));
  return hy_cpu_split_table(node->spec, node->precision, M);
}

/* The L2 cache of one core as the engine's rules take it: a byte count
 * given by HYFFT_CPU_LOCAL in place of the cache's size, an unknown size
 * as 512 KiB. */
static int64_t hy_cpu_rule_l2(void) {
  const hy_settings *env = hy_settings_get();
  int64_t l2 = env->cpu_local_bytes > 0 ? env->cpu_local_bytes : hy_cpu_l2_bytes();
  return l2 > 0 ? l2 : (int64_t)512 << 10;
}

/* Whether two copies of one length-n transform fit that L2
 * (HYFFT_CPU_LOCAL=0: never): the rule of the four-step node's local
 * copies and of the long rows. */
static int hy_cpu_two_copies_fit(hyfft_precision prec, int64_t n) {
  const hy_settings *env = hy_settings_get();
  const int64_t l2 = hy_cpu_rule_l2();
  const int64_t tbytes = n * 2 * (int64_t)(prec == HYFFT_F64 ? sizeof(double) : sizeof(float));
  return !env->cpu_local_off && 2 * tbytes <= l2;
}

/* The longest transform that runs as one gathered lane group: while the
 * group's two scratch arrays (LANES transforms of n complex values each,
 * the stages' ping-pong pair) fit the L2 cache of one core, and never
 * below HY_CPU_DIRECT_MAX; $HYFFT_CPU_DIRECT_MAX sets it. Longer ones
 * split four-step, whose two halves each gather and scatter the data once
 * more; as long as the group stays in L2 the one gathered transform is
 * faster (docs/performance.md, "CPU: one gathered transform while it fits
 * the L2"). */
int64_t hy_cpu_direct_max(hyfft_precision prec) {
  const hy_settings *env = hy_settings_get();
  if (env->cpu_direct_max > 0) return env->cpu_direct_max;
  int64_t l2 = hy_cpu_l2_bytes();
  if (l2 <= 0) l2 = (int64_t)512 << 10;
  const int64_t L = prec == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  const int64_t cbytes = 2 * (int64_t)(prec == HYFFT_F64 ? sizeof(double) : sizeof(float));
  const int64_t n = l2 / (2 * L * cbytes);
  return n > HY_CPU_DIRECT_MAX ? n : HY_CPU_DIRECT_MAX;
}

/* Whether a transform too long for one gathered lane group still runs as
 * one row (hy_cpu_row_tables) rather than four-step: runs of fewer than
 * LANES transforms of unit stride, without a twiddle, whose two copies
 * fit the L2 cache of one core (the rule of hy_cpu_node.local). The row's
 * stages then pass over a ping-pong pair of n elements in cache, where
 * the four-step split's two halves each gather and scatter through
 * lane groups; past the L2 the split's blocking wins (both measured,
 * docs/performance.md). */
static int hy_cpu_long_row(hyfft_precision prec, int64_t n, const int *factors, int nfactors,
                           int64_t unit_runs, int64_t twiddle_n) {
  const int L = prec == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  if (unit_runs <= 0 || unit_runs >= L || twiddle_n > 0) return 0;
  int f[HY_MAX_FACTORS], nf = 0;
  return hy_cpu_two_copies_fit(prec, n) && hy_cpu_row_factors(L, n, factors, nfactors, f, &nf);
}

/* How hy_cpu_node_build_as picks between one gathered transform and a
 * four-step split of a mixed-radix length. */
typedef enum hy_cpu_split { HY_SPLIT_DECIDE = 0, HY_SPLIT_DIRECT = 1, HY_SPLIT_LARGE = 2 } hy_cpu_split;

static hy_status hy_cpu_node_build_as(hyfft_precision prec, int sign, int64_t n, hy_dft_algo algo,
                                      const int *factors, int nfactors, int64_t bluestein_m,
                                      int64_t twiddle_n, int64_t unit_runs, hy_cpu_split split,
                                      hy_cpu_node **out);

/* Whether a length-n transform past the L2 rule (hy_cpu_direct_max)
 * still runs faster as one gathered transform (lane groups, or one row at
 * a time where the node has row tables) than split four-step, as
 * measured on this machine. The two trade different costs: the split
 * keeps each half in cache but gathers, twiddles and scatters the data
 * twice more; the one transform passes over a ping-pong pair that lives
 * in the L3 cache. Which wins depends on the core (its shuffle and
 * double-precision throughput, its L2 and L3): on some x86 machines the
 * gathered transform is 1.3-3x faster from 8K to 256K points, on others
 * the split was faster past the L2 (docs/performance.md). So the node
 * times both on one lane group of transforms (LANES of them, on one
 * thread: per-core throughput, as a batch runs), alternating, and keeps
 * the answer per precision and length for the process, like the row
 * path's (so every plan of one process rounds the same). Lengths whose
 * lane group with its copy passes 32 MiB, twiddled sub-nodes, and an
 * explicit HYFFT_CPU_DIRECT_MAX keep the rule without measuring. */
static hy_cpu_memo hy_cpu_direct_memo = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

#define HY_CPU_DIRECT_PROBE_BYTES ((int64_t)32 << 20)

/* 1: one gathered transform timed faster, 0: the split did; *timed 0
 * where the probe could not run (no memory: the rule's answer, the
 * split). */
static int hy_cpu_direct_measure(hyfft_precision prec, int64_t n, const int *factors,
                                 int nfactors, int *timed) {
  const int L = prec == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  hy_cpu_node *direct = NULL, *large = NULL;
  const int old_limit = hy_set_thread_limit(1);
  hy_status st = hy_cpu_node_build_as(prec, -1, n, HY_ALGO_MIXED_RADIX, factors, nfactors, 0, 0,
                                      0, HY_SPLIT_DIRECT, &direct);
  if (st == HYFFT_SUCCESS)
    st = hy_cpu_node_build_as(prec, -1, n, HY_ALGO_MIXED_RADIX, factors, nfactors, 0, 0, 0,
                              HY_SPLIT_LARGE, &large);
  hy_cpu_run run;
  char *buf = st == HYFFT_SUCCESS ? hy_cpu_probe_run(prec, n, L, &run) : NULL;
  int pick = 0;
  if (buf) {
    /* A warm-up run of each (tables and scratch into cache), then the
     * best of three alternating rounds. */
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 4 && st == HYFFT_SUCCESS; round++)
      for (int k = 0; k < 2 && st == HYFFT_SUCCESS; k++) {
        const hy_cpu_node *node = k ? large : direct;
        double t0 = hy_now();
        st = prec == HYFFT_F64 ? hy_cpu_node_run_f64(node, &run) : hy_cpu_node_run_f32(node, &run);
        double t = hy_now() - t0;
        if (round > 0 && t < best[k]) best[k] = t;
      }
    pick = st == HYFFT_SUCCESS && best[0] < best[1];
  }
  *timed = buf && st == HYFFT_SUCCESS;
  hy_free(buf);
  hy_cpu_node_free(direct);
  hy_cpu_node_free(large);
  hy_set_thread_limit(old_limit);
  /* A failed probe (no memory) leaves the rule's answer, the split, and
   * no error behind. */
  if (st != HYFFT_SUCCESS || !buf) hy_error_clear();
  return pick;
}

/* Whether one gathered transform runs a length past the L2 rule; *timed
 * 1 where this machine's timing decided, 0 where the rule (the split) did. */
static int hy_cpu_direct_pays(hyfft_precision prec, int64_t n, const int *factors, int nfactors,
                              int64_t twiddle_n, int *timed) {
  const int L = prec == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  const int64_t cbytes = prec == HYFFT_F64 ? 16 : 8;
  *timed = 0;
  if (hy_settings_get()->cpu_direct_max > 0 || twiddle_n > 0 ||
      2 * L * n * cbytes > HY_CPU_DIRECT_PROBE_BYTES)
    return 0;
  hy_cpu_memo *memo = &hy_cpu_direct_memo;
  pthread_mutex_lock(&memo->lock);
  const hy_cpu_memo_entry *e = hy_cpu_memo_find(memo, prec, n);
  int found = 0;
  if (e) {
    found = e->value;
    *timed = e->timed; /* 0: the probe failed (no memory) and the rule answered */
  } else if (!memo->frozen) {
    /* Under the lock, so that two threads planning at once do not time
     * each other's runs. */
    found = hy_cpu_direct_measure(prec, n, factors, nfactors, timed);
    hy_cpu_memo_add(memo, (hy_cpu_memo_entry){prec, n, found, *timed});
    if (memo->frozen) found = *timed = 0; /* not recorded: the rule's answer (the split) */
  }
  pthread_mutex_unlock(&memo->lock);
  return found;
}

/* Whether runs of fewer transforms than a lane group holds split a
 * length four-step, at any length: where the length has no row plan
 * (LANES does not divide it) and is past HY_CPU_FEW_SPLIT_MIN points. One
 * lane group of the whole length would compute LANES - count empty
 * lanes; the two halves' runs of n1 and n2 transforms fill them. Below
 * the floor the split's second pass costs more than the empty lanes
 * (timed: docs/performance.md, "CPU: single transforms and rows through
 * straight-line row kernels"). */
#define HY_CPU_FEW_SPLIT_MIN 128

static int hy_cpu_few_split(hyfft_precision prec, int64_t n, const int *factors, int nfactors,
                            int64_t unit_runs) {
  const int L = prec == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  int f[HY_MAX_FACTORS], nf = 0;
  return unit_runs > 0 && unit_runs < L && n > HY_CPU_FEW_SPLIT_MIN &&
         !hy_cpu_row_factors(L, n, factors, nfactors, f, &nf);
}

/* Whether a mixed-radix length splits four-step: runs of a few
 * transforms with no row plan (hy_cpu_few_split), at any length (one
 * gathered group of a single transform would leave LANES - 1 lanes
 * empty: the convolution of a long Bluestein transform, one at a time);
 * past the L2 rule, unless it runs as one long row or the timing says
 * one transform (*timed: whether the timing, not a rule, decided). */
static int hy_cpu_split_pays(hyfft_precision prec, int64_t n, const int *factors, int nfactors,
                             int64_t unit_runs, int64_t twiddle_n, int *timed) {
  *timed = 0;
  /* Past the L2 rule as well: the timing below compares full lane
   * groups, which runs of a few transforms never fill. */
  if (hy_cpu_few_split(prec, n, factors, nfactors, unit_runs)) return 1;
  if (n <= hy_cpu_direct_max(prec)) return 0;
  if (hy_cpu_long_row(prec, n, factors, nfactors, unit_runs, twiddle_n)) return 0;
  return !hy_cpu_direct_pays(prec, n, factors, nfactors, twiddle_n, timed);
}

/* Whether a convolution node's batches run one transform at a time
 * through its length-m node (hy_cpu_node.conv_wide). Up to 4 *
 * HY_CPU_DIRECT_MAX they run in lane groups of m. Past that a lane
 * group's four arrays leave the L2, yet where m has no row path the
 * length-m node runs a single transform as the four-step split, and
 * lane groups measured 1.5-1.9x faster while their arrays stay within
 * a few MiB (f32 10007 and 20011, f64 10007: 2.6 MiB), level at 7.8 and
 * 13 MiB and slower at 26 (docs/performance.md); past
 * HY_CPU_CONV_LANES_BYTES the batches run one at a time. Where m has a row path a single
 * transform keeps every lane busy, and one at a time measured 1.2x
 * faster (f32 65537, m = 2^17). */
#define HY_CPU_CONV_LANES_BYTES ((int64_t)4 << 20)

static int hy_cpu_conv_wide(const hy_cpu_node *node) {
  const int L = node->precision == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  const int64_t esz = node->precision == HYFFT_F64 ? 8 : 4;
  const int64_t S = node->n > node->m ? node->n : node->m;
  if (node->m <= 4 * HY_CPU_DIRECT_MAX) return 0;
  const int one_row = node->fft && node->fft->kind == HY_CPU_DIRECT && node->fft->rtw;
  return one_row || 4 * S * L * esz > HY_CPU_CONV_LANES_BYTES;
}

hy_status hy_cpu_node_build(hyfft_precision prec, int sign, int64_t n, hy_dft_algo algo,
                            const int *factors, int nfactors, int64_t bluestein_m,
                            int64_t twiddle_n, int64_t unit_runs, hy_cpu_node **out) {
  return hy_cpu_node_build_as(prec, sign, n, algo, factors, nfactors, bluestein_m, twiddle_n,
                              unit_runs, HY_SPLIT_DECIDE, out);
}

static hy_status hy_cpu_node_build_as(hyfft_precision prec, int sign, int64_t n, hy_dft_algo algo,
                                      const int *factors, int nfactors, int64_t bluestein_m,
                                      int64_t twiddle_n, int64_t unit_runs, hy_cpu_split split,
                                      hy_cpu_node **out) {
  hy_cpu_node *node = hy_calloc(1, sizeof *node);
  if (!node) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: node for n = %lld", (long long)n);
  node->precision = prec;
  node->sign = sign;
  node->n = n;
  node->l2_bytes = hy_cpu_rule_l2();
  hy_status st = hy_cpu_twiddle_build(&node->tw, twiddle_n, sign);
  if (st == HYFFT_SUCCESS && (algo == HY_ALGO_BLUESTEIN || algo == HY_ALGO_RADER)) {
    /* Both run a convolution of length m in the data's precision: side by
     * side in lanes on the kernel plan, or one transform at a time
     * through the length-m node `fft` (cpu_engine_bluestein.h). */
    const int rader = algo == HY_ALGO_RADER;
    node->kind = rader ? HY_CPU_RADER : HY_CPU_BLUESTEIN;
    node->m = bluestein_m;
    if (rader && (bluestein_m != n - 1 || n < 3 || n >= ((int64_t)1 << 31)))
      st = hy_error(HYFFT_INTERNAL, "cpu engine: Rader length %lld for n = %lld",
                    (long long)bluestein_m, (long long)n);
    else if (!rader && bluestein_m < 2 * n - 2)
      st = hy_error(HYFFT_INTERNAL, "cpu engine: Bluestein length %lld < 2n-2 for n = %lld",
                    (long long)bluestein_m, (long long)n);
    if (st == HYFFT_SUCCESS) st = hy_cpu_kp_init(&node->kp, prec, bluestein_m, factors, nfactors, -1);
    if (st == HYFFT_SUCCESS)
      st = hy_cpu_node_build(prec, -1, bluestein_m, HY_ALGO_MIXED_RADIX, factors, nfactors, 0, 0,
                             1, &node->fft);
    if (st == HYFFT_SUCCESS)
      st = rader ? hy_cpu_rader_tables(node) : hy_cpu_bluestein_tables(node, factors, nfactors);
    if (st == HYFFT_SUCCESS) node->conv_wide = hy_cpu_conv_wide(node);
  } else if (st == HYFFT_SUCCESS && nfactors >= 2 &&
             (split == HY_SPLIT_LARGE ||
              (split == HY_SPLIT_DECIDE && hy_cpu_split_pays(prec, n, factors, nfactors, unit_runs,
                                                              twiddle_n, &node->timed)))) {
    /* Split where the prefix product is closest to sqrt(n). */
    int best = 1;
    double best_d = 1e300;
    int64_t prod = 1;
    for (int i = 0; i < nfactors - 1; i++) {
      prod *= factors[i];
      double d = (double)prod * (double)prod / (double)n;
      if (d < 1) d = 1 / d;
      if (d < best_d) {
        best_d = d;
        best = i + 1;
      }
    }
    int64_t n1 = 1;
    for (int i = 0; i < best; i++) n1 *= factors[i];
    node->kind = HY_CPU_LARGE;
    node->n1 = n1;
    node->n2 = n / n1;
    st = hy_cpu_node_build(prec, sign, n1, HY_ALGO_MIXED_RADIX, factors, best, 0, n, 0,
                             &node->a);
    if (st == HYFFT_SUCCESS)
      st = hy_cpu_node_build(prec, sign, n / n1, HY_ALGO_MIXED_RADIX, factors + best,
                             nfactors - best, 0, 0, 0, &node->b);
    /* Local copies (hy_large_range) while the transform's two copies fit
     * the L2 cache. Beyond it the copies go to L3 and back: 1 MiB
     * transforms on a 1 MiB L2 gained nothing from them
     * (docs/performance.md). */
    if (st == HYFFT_SUCCESS) node->local = hy_cpu_two_copies_fit(prec, n);
    /* The second half runs on rows of unit stride in place (the square
     * split) but on strided output through the intermediate out of place:
     * without the row path both take the lane groups and round alike, so
     * that in place and out of place give the same bits. */
    if (st == HYFFT_SUCCESS) {
      hy_cpu_kp_free(&node->b->rkp);
      hy_free(node->b->rtw);
      node->b->rtw = NULL;
    }
  } else if (st == HYFFT_SUCCESS) {
    node->kind = HY_CPU_DIRECT;
    /* A short transform is one codelet (HY_CPU_ONE_CODELET_MAX; 6 points
     * by the generated radix-6 one): one stage, no twiddles and no pass
     * through the scratch between stages (6 = 2 x 3 would take two). */
    int whole = (int)n;
    if (n <= HY_CPU_ONE_CODELET_MAX && nfactors > 1) {
      factors = &whole;
      nfactors = 1;
    }
    st = hy_cpu_kp_init(&node->kp, prec, n, factors, nfactors, sign);
    /* Back-to-back runs as straight-line code where the engine has it
     * for the kernel plan (hy_short_pick decides; it alone knows which).
     * Set before the row tables, whose timing runs the node as it will
     * run. */
    node->fused = !hy_settings_get()->cpu_short_off;
    if (st == HYFFT_SUCCESS && twiddle_n > 0) st = hy_cpu_lane_twiddles(node, twiddle_n);
    if (st == HYFFT_SUCCESS && twiddle_n == 0) st = hy_cpu_row_tables(node, factors, nfactors);
  }
  if (st != HYFFT_SUCCESS) {
    hy_cpu_node_free(node);
    return st;
  }
  *out = node;
  return HYFFT_SUCCESS;
}

static void hy_cpu_describe_stages(const hy_cpu_kp *kp, hy_strbuf *sb) {
  for (int i = 0; i < kp->nstages; i++)
    hy_strbuf_appendf(sb, "%s%d", i ? "x" : "", kp->stages[i].radix);
}

void hy_cpu_node_describe(const hy_cpu_node *node, int indent, hy_strbuf *sb) {
  if (!node) return;
  const int L = node->precision == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  hy_strbuf_appendf(sb, "%*s", indent, "");
  switch (node->kind) {
    case HY_CPU_DIRECT:
      hy_strbuf_appendf(sb, "one gathered transform of %lld, stages ", (long long)node->n);
      hy_cpu_describe_stages(&node->kp, sb);
      if (node->rtw) {
        hy_strbuf_appendf(sb, "; unit-stride rows as %d interleaved sequences of %lld (stages ", L,
                          (long long)(node->n / L));
        hy_cpu_describe_stages(&node->rkp, sb);
        hy_strbuf_appendf(sb, ")%s", node->rows_batched ? ", full lane groups too" : "");
      }
      if (node->tw.n > 0) hy_strbuf_appendf(sb, "; twiddled (period %lld)", (long long)node->tw.n);
      if (node->timed) hy_strbuf_append(sb, "; timed faster than the four-step split here");
      hy_strbuf_append(sb, "\n");
      break;
    case HY_CPU_LARGE:
      hy_strbuf_appendf(sb, "four-step %lld = %lld x %lld%s%s\n", (long long)node->n,
                        (long long)node->n1, (long long)node->n2,
                        node->local ? ", each transform on local copies in the L2" : "",
                        node->timed ? "; timed faster than one gathered transform here" : "");
      hy_cpu_node_describe(node->a, indent + 2, sb);
      hy_cpu_node_describe(node->b, indent + 2, sb);
      break;
    case HY_CPU_BLUESTEIN:
    case HY_CPU_RADER:
      hy_strbuf_appendf(sb, "%s of %lld: a convolution of length %lld through\n",
                        node->kind == HY_CPU_RADER ? "Rader" : "Bluestein", (long long)node->n,
                        (long long)node->m);
      hy_cpu_node_describe(node->fft, indent + 2, sb);
      break;
  }
}
