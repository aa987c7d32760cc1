/* The tables of a generated program: twiddles, four-step twiddle pairs,
 * Bluestein chirps and spectra, Rader's index permutations and kernel
 * spectrum, per-stage twiddles. Values come from src/tables/ (long double,
 * rounded once); this file adds them to a program, shares identical ones
 * between its kernels, and keeps long ones in the disk cache. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "planner/kernel_spec.h"
#include "planner/r2r_twiddle.h"
#include "tables/spectra.h"
#include "tables/twiddle.h"
#include "util/disk_cache.h"

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
    hy_tables_store(data, p, j, re, im);
  }
  return hy_cg_table_add_keyed(prog, count, hy_cg_complex(p), data, key, index);
}

hy_status hy_cg_twiddle_table(hy_gpu_program *prog, int64_t n, int sign,
                                     hyfft_precision p, int *index) {
  return hy_cg_roots_table(prog, "twiddles", n, n, n, sign, p, index);
}

hy_status hy_cg_r2r_table(hy_gpu_program *prog, const hy_r2r_twiddle *tw, hyfft_precision p,
                          int *index) {
  uint64_t key = hy_hash_str(HY_HASH_INIT, "r2r twiddles");
  key = hy_hash_u64(hy_hash_u64(key, (uint64_t)tw->count), (uint64_t)tw->a);
  key = hy_hash_u64(hy_hash_u64(key, (uint64_t)tw->b), (uint64_t)tw->m);
  key = hy_hash_u64(hy_hash_u64(key, (uint64_t)(tw->sign + 2)), (uint64_t)p);
  if (hy_cg_table_find(prog, key, hy_cg_complex(p), index)) return HYFFT_SUCCESS;
  void *data = hy_cg_table_alloc(tw->count, hy_cg_complex(p));
  if (!data)
    return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: r2r table of %lld", (long long)tw->count);
  for (int64_t j = 0; j < tw->count; j++) {
    long double re, im;
    hy_r2r_twiddle_ld(tw, j, &re, &im);
    hy_tables_store(data, p, j, re, im);
  }
  return hy_cg_table_add_keyed(prog, tw->count, hy_cg_complex(p), data, key, index);
}

hy_status hy_cg_twiddle_pair_table(hy_gpu_program *prog, int64_t n, int sign,
                                          hyfft_precision p, int *index) {
  return hy_cg_roots_table(prog, "twiddle pairs", n, hy_twiddle_split(n),
                           hy_twiddle_pair_count(n), sign, p, index);
}

/* The tables of long transforms (chirps and Bluestein spectra of 4096
 * entries or more, a sincos or an FFT in long double per entry) are also
 * kept in the disk cache beside the compiled kernels (util/disk_cache.h),
 * keyed by what they are computed from and the generator version, so that
 * a new process plans 65537 without computing them again. The kind's
 * magic changes with the way the tables are computed (HYFFTTB4: spectra
 * of lengths 2^a * odd, 2^a >= 64, by the split long double FFT), so that
 * a cache never serves tables of another method. */
typedef struct hy_cg_table_args {
  int64_t n, m;
  int sign;
  hyfft_precision p;
} hy_cg_table_args;

#define HY_CG_DISK_TABLE_MIN 4096
static const hy_disk_kind hy_cg_disk_tables = {"table", "HYFFTTB4", NULL};

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

/* Chirp entries [begin, end) (threads: a long prime's chirp is tens of
 * millions of long double sines). */
typedef struct hy_cg_chirp_job {
  const hy_cg_table_args *a;
  void *data;
} hy_cg_chirp_job;

static void hy_cg_chirp_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_cg_chirp_job *job = arg;
  for (int64_t j = begin; j < end; j++) {
    long double re, im;
    hy_chirp_ld(j, job->a->n, job->a->sign, &re, &im);
    hy_tables_store(job->data, job->a->p, j, re, im);
  }
}

static hy_status hy_cg_fill_chirp(const hy_cg_table_args *a, void *data) {
  hy_cg_chirp_job job = {a, data};
  hy_parallel_for(a->n, 1 << 12, hy_cg_chirp_range, &job);
  return HYFFT_SUCCESS;
}

hy_status hy_cg_chirp_table(hy_gpu_program *prog, int64_t n, int sign, hyfft_precision p,
                                   int *index) {
  hy_cg_table_args args = {n, 0, sign, p};
  return hy_cg_table_cached(prog, "chirp", &args, n, hy_cg_fill_chirp, index);
}

static hy_status hy_cg_fill_spectrum(const hy_cg_table_args *a, void *data) {
  return hy_tables_bluestein_spectrum(a->n, a->m, a->sign, a->p, data);
}

hy_status hy_cg_bluestein_table(hy_gpu_program *prog, int64_t n, int64_t m, int sign,
                                hyfft_precision p, int *index) {
  hy_cg_table_args args = {n, m, sign, p};
  return hy_cg_table_cached(prog, "bluestein spectrum", &args, m, hy_cg_fill_spectrum, index);
}

/* Rader's tables for the prime p with smallest primitive root g: the
 * powers root^q mod p, q < p - 1, for root g (where the convolution reads
 * x) or g^-1 (where the one-pass kernel writes X), as 32-bit integers
 * (HY_TABLE_INDEX, 4 bytes an entry); and the spectrum of the convolution
 * kernel, DFT_{-1}(b)/(p-1) with b_q = exp(sign*2*pi*i*(g^-q mod p)/p),
 * computed in long double and rounded once (through the disk cache from
 * 4096 entries on). Fused Rader's last pass reads g^-k as g^(p-1-k), so
 * its first and last pass share one table of powers of g. */
hy_status hy_cg_rader_perm_table(hy_gpu_program *prog, int64_t p, int64_t root,
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
  hy_tables_rader_powers(p, g, data);
  return hy_cg_table_add_keyed(prog, m, HY_TABLE_INDEX, data, key, index);
}

static hy_status hy_cg_fill_rader_spectrum(const hy_cg_table_args *a, void *data) {
  return hy_tables_rader_spectrum(a->n, a->sign, a->p, data);
}

hy_status hy_cg_rader_spectrum_table(hy_gpu_program *prog, int64_t p, int sign,
                                            hyfft_precision prec, int *index) {
  hy_cg_table_args args = {p, p - 1, sign, prec};
  return hy_cg_table_cached(prog, "rader spectrum", &args, p - 1, hy_cg_fill_rader_spectrum, index);
}

/* The one-pass Rader kernel's tables: where it reads, where it writes,
 * and the kernel's spectrum. */
hy_status hy_cg_rader_tables(hy_gpu_program *prog, int64_t p, int sign,
                                    hyfft_precision prec, int *t_in, int *t_out, int *t_b) {
  int64_t g = hy_tables_primitive_root(p);
  HY_TRY(hy_cg_rader_perm_table(prog, p, g, t_in));
  HY_TRY(hy_cg_rader_perm_table(prog, p, hy_tables_powmod(g, p - 2, p), t_out));
  return hy_cg_rader_spectrum_table(prog, p, sign, prec, t_b);
}

/* Per-stage twiddle tables of a kernel: stage s (NS > 1, radix R) reads
 * entry tw_off[s] + (r-1)*NS + k = W_(NS*R)^(r*k), 1 <= r < R, k < NS,
 * so the threads of a warp (consecutive k) read consecutive entries.
 * Stages with the same (R, NS) (the two halves of Bluestein) share one
 * table. Values are computed in long double from the reduced angle and
 * rounded once, as in the single table. */
hy_status hy_cg_stage_twiddle_table(hy_gpu_program *prog, hy_cg_kernel *k, int sign,
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
  hy_tables_store(data, k->precision, 0, 1, 0);
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
        hy_tables_store(data, k->precision, k->tw_off[s] + (int64_t)(r - 1) * tns + q, roots[at],
                        roots[longest + at]);
      }
  }
  hy_free(roots);
  return hy_cg_table_add(prog, k->tw_count, hy_cg_complex(k->precision), data, index);
}
