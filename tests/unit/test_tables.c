/* The Bluestein spectrum memo (src/codegen/cg_kernel.c): a spectrum served
 * from the memo equals the one computed afresh, for every key, also after
 * more keys than the memo holds have pushed the first ones out, and from
 * several threads at once. Each reference is computed before the key is
 * ever seen, with a key whose entries differ (another sign), so a memo
 * that mixed keys up would fail.
 * Then the disk cache of long tables: a program generated with an empty
 * cache, again from the cache, again with the cache off, and again after
 * the cached files were damaged, holds the same tables byte for byte.
 * Then the roots of unity all at once (hy_twiddle_roots_ld, which the
 * per-stage twiddle tables use) equal hy_twiddle_ld's one at a time, bit
 * for bit, for lengths with and without factors of 2, 4 and 8.
 * The long double FFT gives the same bits on one thread and on four.
 * Last, the four-step twiddles of short f32 plans come from two short
 * tables (W_N^j for j < s, then W_N^(s*i)), each entry hy_twiddle_ld
 * rounded once, and the kernel indexes them by mask and shift; longer and
 * f64 plans keep sincospi. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <unistd.h>

#include "util/settings.h"
#include "check.h"
#include "codegen/codegen.h"
#include "tables/spectra.h"
#include "planner/planner.h"
#include "../backend/cuda/h100_caps.h"
#include "tables/twiddle.h"

typedef struct key {
  int64_t n, m;
  int sign;
  hyfft_precision p;
} key;

static const key hy_keys[] = {
    {17, 32, -1, HYFFT_F32},   {17, 32, 1, HYFFT_F32},    {257, 512, -1, HYFFT_F64},
    {257, 512, 1, HYFFT_F64},  {101, 200, -1, HYFFT_F32}, {101, 216, -1, HYFFT_F32},
    {1009, 2048, -1, HYFFT_F64}, {1009, 2048, -1, HYFFT_F32}, {97, 192, 1, HYFFT_F64},
    {641, 1280, -1, HYFFT_F32}, {4099, 8192, 1, HYFFT_F32}, {13, 24, -1, HYFFT_F64}};
#define NKEYS (int)(sizeof hy_keys / sizeof hy_keys[0])

static size_t bytes_of(const key *k) { return (size_t)k->m * (k->p == HYFFT_F64 ? 16 : 8); }

static void *reference[NKEYS];

static int same(const key *k, const void *got) { return memcmp(got, reference[k - hy_keys], bytes_of(k)) == 0; }

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg, bad = 0;
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < NKEYS; i++) {
      const key *k = &hy_keys[(i * 5 + id + round) % NKEYS];
      void *got = malloc(bytes_of(k));
      if (!got || hy_tables_bluestein_spectrum(k->n, k->m, k->sign, k->p, got) != HYFFT_SUCCESS ||
          !same(k, got))
        bad++;
      free(got);
    }
  return (void *)(intptr_t)bad;
}

/* The tables of a generated program, or 0 when planning failed. */
static int generate(const char *token, hy_gpu_program *prog) {
  hy_device_caps caps = hy_h100_caps();
  hyfft_problem user;
  hy_problem prob;
  hy_plan_tree tree;
  memset(prog, 0, sizeof *prog);
  if (hy_token_parse(token, &user) != HYFFT_SUCCESS || hy_problem_make(&user, &prob) != HYFFT_SUCCESS ||
      hy_planner_plan(&prob, &caps, 0, &tree) != HYFFT_SUCCESS ||
      hy_codegen_plan(&prob, &tree, &caps, HY_DIALECT_CUDA, prog) != HYFFT_SUCCESS) {
    CHECK(0, "%s: not generated: %s", token, hyfft_last_error());
    return 0;
  }
  return 1;
}

static int same_tables(const hy_gpu_program *a, const hy_gpu_program *b) {
  if (a->ntables != b->ntables) return 0;
  for (int i = 0; i < a->ntables; i++) {
    size_t bytes = hy_table_bytes(&a->tables[i]);
    if (a->tables[i].count != b->tables[i].count || a->tables[i].type != b->tables[i].type ||
        memcmp(a->tables[i].data, b->tables[i].data, bytes) != 0)
      return 0;
  }
  return 1;
}

/* Files of the cache directory whose names start with prefix; with damage,
 * flips a byte near the end of each. */
static int table_files(const char *dir, int damage) {
  DIR *d = opendir(dir);
  int count = 0;
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strncmp(e->d_name, "table-", 6) != 0) continue;
    count++;
    if (!damage) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r+b");
    if (!f) continue;
    fseek(f, -5, SEEK_END);
    int c = fgetc(f);
    fseek(f, -5, SEEK_END);
    fputc(c ^ 0x5a, f);
    fclose(f);
  }
  closedir(d);
  return count;
}

static void test_disk_tables(void) {
  char dir[] = "/tmp/hyfft-tables-XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "temporary directory");
  setenv("HYFFT_CACHE_DIR", dir, 1);
  hy_settings_reload();
  /* 65537 both ways: a chirp of 65537 and a spectrum of 2^17 entries
   * (fused four-step passes), which differ between the signs only; f64
   * 4099: a one-pass Bluestein with 8192-entry tables. All are generated
   * with the cache first, so a key that mixed the signs up would hand the
   * inverse the forward's tables, which the cache-off run then exposes. */
  enum { NT = 3 };
  const char *tokens[NT] = {"c2c:f32:fwd:65537:b3", "c2c:f32:bwd:65537:b3", "c2c:f64:bwd:4099:b2"};
  hy_gpu_program first[NT];
  int ok[NT];
  for (int t = 0; t < NT; t++) ok[t] = generate(tokens[t], &first[t]);
  int files = table_files(dir, 0);
  CHECK(files >= 4, "%d table files in the cache", files);
  for (int t = 0; t < NT; t++) {
    if (!ok[t]) continue;
    hy_gpu_program again, off;
    if (generate(tokens[t], &again)) {
      CHECK(same_tables(&first[t], &again), "%s: tables from the disk cache differ", tokens[t]);
      hy_gpu_program_free(&again);
    }
    setenv("HYFFT_CACHE_DIR", "off", 1);
    hy_settings_reload();
    if (generate(tokens[t], &off)) {
      CHECK(same_tables(&first[t], &off), "%s: tables with and without the cache differ", tokens[t]);
      hy_gpu_program_free(&off);
    }
    setenv("HYFFT_CACHE_DIR", dir, 1);
    hy_settings_reload();
  }
  table_files(dir, 1);
  for (int t = 0; t < NT; t++) {
    if (!ok[t]) continue;
    hy_gpu_program repaired;
    if (generate(tokens[t], &repaired)) {
      CHECK(same_tables(&first[t], &repaired), "%s: tables after damaged cache files differ", tokens[t]);
      hy_gpu_program_free(&repaired);
    }
    hy_gpu_program_free(&first[t]);
  }
  /* Leave nothing behind. */
  DIR *d = opendir(dir);
  if (d) {
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
      if (e->d_name[0] == '.') continue;
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
}

static void test_roots(void) {
  static const int64_t lengths[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 40, 48, 97, 100, 1000, 2187, 4096, 10000, 16384, 65536};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    int64_t n = lengths[i];
    long double *re = malloc((size_t)n * 2 * sizeof *re);
    CHECK(re != NULL, "out of memory");
    if (!re) return;
    long double *im = re + n;
    for (int sign = -1; sign <= 1; sign += 2) {
      CHECK(hy_twiddle_roots_ld(n, sign, re, im) == 1, "n=%lld: no roots", (long long)n);
      int64_t bad = 0;
      for (int64_t k = 0; k < n; k++) {
        long double r1, i1;
        hy_twiddle_ld(k, n, sign, &r1, &i1);
        /* Compare the values, not the bytes: long double has padding. */
        if (r1 != re[k] || i1 != im[k]) bad++;
      }
      CHECK(bad == 0, "n=%lld sign %d: %lld roots differ from hy_twiddle_ld", (long long)n, sign,
            (long long)bad);
    }
    free(re);
  }
}

static void test_twiddle_pairs(void) {
  static const struct {
    const char *token;
    int64_t n;
    int sign, pairs;
  } cases[] = {{"c2c:f32:fwd:65536:b8", 65536, -1, 1},
               {"c2c:f32:bwd:262144:b2", 262144, 1, 1},
               {"c2c:f32:fwd:1048576", 1048576, -1, 0},
               {"c2c:f64:fwd:65536:b8", 65536, -1, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    hy_gpu_program prog;
    if (!generate(cases[c].token, &prog)) continue;
    int64_t n = cases[c].n, s = 1;
    while (s * s < n) s <<= 1;
    int64_t count = s + (n + s - 1) / s;
    float *want = malloc((size_t)count * 2 * sizeof *want);
    CHECK(want != NULL, "out of memory");
    int found = 0;
    for (int64_t j = 0; want && j < count; j++) {
      long double re, im;
      hy_twiddle_ld(j < s ? j : ((j - s) * s) % n, n, cases[c].sign, &re, &im);
      want[2 * j] = (float)re;
      want[2 * j + 1] = (float)im;
    }
    for (int t = 0; want && t < prog.ntables; t++)
      found |= prog.tables[t].type == HY_TABLE_COMPLEX_F32 && prog.tables[t].count == count &&
               memcmp(prog.tables[t].data, want, (size_t)count * 2 * sizeof *want) == 0;
    char use[64];
    snprintf(use, sizeof use, "ftw[a & %lld], ftw[%lld + (a >> ", (long long)(s - 1), (long long)s);
    int indexed = prog.source.data && strstr(prog.source.data, use) != NULL;
    int sincos = prog.source.data && strstr(prog.source.data, "HY_SINCOSPI(x, ws, wc)") != NULL;
    CHECK(found == cases[c].pairs && indexed == cases[c].pairs && sincos == !cases[c].pairs,
          "%s: pair table %s, indexed %s, sincospi %s; expected the %s", cases[c].token,
          found ? "found" : "missing", indexed ? "yes" : "no", sincos ? "yes" : "no",
          cases[c].pairs ? "pair table" : "sincospi");
    free(want);
    hy_gpu_program_free(&prog);
  }
}

/* n random complex values in [-1, 1), from `seed`. */
static void fill_random(long double *re, long double *im, int64_t n, uint64_t seed) {
  uint64_t x = seed ^ (uint64_t)n;
  for (int64_t j = 0; j < n; j++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    re[j] = (long double)(int64_t)(x >> 11) / 4503599627370496.0L;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    im[j] = (long double)(int64_t)(x >> 11) / 4503599627370496.0L;
  }
}

/* The long double FFT spreads its stages over the worker threads: with
 * four workers it gives the same bits as with one, for powers of two
 * (the parallel path) and other lengths, long enough for several
 * workers' pieces. */
static void test_fft_threads(void) {
  static const int64_t lengths[] = {1 << 16, 1 << 17, 3 * 5 * 7 * 64};
  for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; t++) {
    int64_t n = lengths[t];
    long double *a = malloc((size_t)n * 6 * sizeof(long double));
    CHECK(a != NULL, "out of memory");
    if (!a) return;
    long double *re1 = a, *im1 = a + n, *re4 = a + 2 * n, *im4 = a + 3 * n, *sre = a + 4 * n,
                *sim = a + 5 * n;
    fill_random(re1, im1, n, 0x9E3779B97F4A7C15ull);
    memcpy(re4, re1, (size_t)n * sizeof *re4);
    memcpy(im4, im1, (size_t)n * sizeof *im4);
    hy_set_num_threads(1);
    CHECK_OK(hy_tables_fft_ld(re1, im1, n, sre, sim));
    hy_set_num_threads(4);
    CHECK_OK(hy_tables_fft_ld(re4, im4, n, sre, sim));
    hy_set_num_threads(0);
    /* Values, not bytes: a long double's storage has padding. */
    int64_t differ = 0;
    for (int64_t j = 0; j < n; j++) differ += re1[j] != re4[j] || im1[j] != im4[j];
    CHECK(differ == 0, "n=%lld: the long double FFT differs in %lld entries between one and four threads",
          (long long)n, (long long)differ);
    free(a);
  }
}

#if defined(__SIZEOF_FLOAT128__) && defined(__x86_64__)
typedef __float128 hy_acc_t;
#else
typedef long double hy_acc_t;
#endif

/* The long double FFT against the DFT summed directly (each entry's
 * twiddle W_n^(jk mod n) from the same exact roots), on lengths of each
 * path: a power of two, n = 2^a * odd with 2^a >= 64 (the split path:
 * parallel power-of-two transforms, then odd columns), a small power of
 * two times odd primes and an odd length (the recursive path). */
static void test_fft_direct(void) {
  static const int64_t lengths[] = {256, 960, 384, 64 * 21, 420, 45, 2 * 101};
  for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; t++) {
    int64_t n = lengths[t];
    long double *a = malloc((size_t)n * 8 * sizeof(long double));
    CHECK(a != NULL, "out of memory");
    if (!a) return;
    long double *re = a, *im = a + n, *xr = a + 2 * n, *xi = a + 3 * n, *sre = a + 4 * n,
                *sim = a + 5 * n, *wr = a + 6 * n, *wi = a + 7 * n;
    fill_random(xr, xi, n, 0x5DEECE66Dull);
    memcpy(re, xr, (size_t)n * sizeof *re);
    memcpy(im, xi, (size_t)n * sizeof *im);
    for (int64_t j = 0; j < n; j++) hy_twiddle_ld(j, n, -1, &wr[j], &wi[j]);
    CHECK_OK(hy_tables_fft_ld(re, im, n, sre, sim));
    long double worst = 0, scale = 0;
    for (int64_t k = 0; k < n; k++) {
      hy_acc_t sr = 0, si = 0; /* wider than the FFT's long double where the compiler has it */
      for (int64_t j = 0; j < n; j++) {
        int64_t e = (int64_t)((__int128)j * k % n);
        sr += (hy_acc_t)xr[j] * wr[e] - (hy_acc_t)xi[j] * wi[e];
        si += (hy_acc_t)xr[j] * wi[e] + (hy_acc_t)xi[j] * wr[e];
      }
      long double d = fabsl((long double)(sr - re[k])) + fabsl((long double)(si - im[k]));
      if (d > worst) worst = d;
      scale += (long double)(sr * sr + si * si);
    }
    scale = sqrtl(scale / (long double)n);
    /* Long double's epsilon is 1.1e-19: a few of it times log n, far
     * below double's 2.2e-16, which the tables are rounded to. */
    CHECK(worst <= 2e-17L * scale, "n=%lld: the long double FFT is %Lg off the direct DFT (scale %Lg)",
          (long long)n, worst, scale);
    free(a);
  }
}

int main(void) {
  test_fft_direct();
  test_fft_threads();
  test_roots();
  test_twiddle_pairs();
  /* References in order: every one computed before its key is in the memo
   * (the keys are distinct), and the later ones push the first out. */
  for (int i = 0; i < NKEYS; i++) {
    reference[i] = malloc(bytes_of(&hy_keys[i]));
    CHECK(reference[i] != NULL, "out of memory");
    if (!reference[i]) return hy_test_summary();
    CHECK_OK(hy_tables_bluestein_spectrum(hy_keys[i].n, hy_keys[i].m, hy_keys[i].sign, hy_keys[i].p,
                                      reference[i]));
  }
  /* Keys that differ only in the sign must give different spectra, or the
   * comparison below could not see a memo that confused them. */
  CHECK(memcmp(reference[0], reference[1], bytes_of(&hy_keys[0])) != 0,
        "the spectra of n=17 for both signs are identical");
  /* Again, one at a time: recent keys from the memo, early ones afresh. */
  for (int i = NKEYS - 1; i >= 0; i--) {
    void *got = malloc(bytes_of(&hy_keys[i]));
    CHECK_OK(hy_tables_bluestein_spectrum(hy_keys[i].n, hy_keys[i].m, hy_keys[i].sign, hy_keys[i].p, got));
    CHECK(same(&hy_keys[i], got), "n=%lld m=%lld sign %d: the second spectrum differs",
          (long long)hy_keys[i].n, (long long)hy_keys[i].m, hy_keys[i].sign);
    free(got);
  }
  /* Four threads at once. */
  pthread_t th[4];
  for (int t = 0; t < 4; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "thread");
  for (int t = 0; t < 4; t++) {
    void *bad = NULL;
    pthread_join(th[t], &bad);
    CHECK((intptr_t)bad == 0, "thread %d: %d spectra differed", t, (int)(intptr_t)bad);
  }
  for (int i = 0; i < NKEYS; i++) free(reference[i]);
  test_disk_tables();
  return hy_test_summary();
}
