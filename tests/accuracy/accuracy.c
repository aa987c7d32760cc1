/* hyfft_accuracy: every case of a matrix of problem tokens against FFTW in
 * long double, with poisoned outputs, untouched gaps and (out-of-place)
 * an unchanged input. One line per failure, the summary line last.
 *
 *   hyfft_accuracy [--device SPEC] [--level quick|standard|full] [--seed S]
 *                  [--device-buffers] [--verbose] [--at-target] [TOKEN...] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"

/* ---- the matrix ----------------------------------------------------------- */

typedef struct tokens {
  char **v;
  int n, cap;
} tokens;

static void add(tokens *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(tokens *t, const char *fmt, ...) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 256;
    char **v = realloc(t->v, (size_t)t->cap * sizeof *v);
    if (!v) {
      fprintf(stderr, "out of memory building the matrix\n");
      exit(2);
    }
    t->v = v;
  }
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  t->v[t->n] = strdup(buf);
  if (!t->v[t->n]) exit(2);
  t->n++;
}

static const char *const prec[2] = {"f32", "f64"};
static const char *const dir[2] = {"fwd", "bwd"};

/* Every length 1..nmax in both precisions and both signs. */
static void every_length(tokens *t, int nmax) {
  for (int n = 1; n <= nmax; n++)
    for (int p = 0; p < 2; p++)
      for (int s = 0; s < 2; s++) add(t, "c2c:%s:%s:%d", prec[p], dir[s], n);
}

/* At the quick level each shape runs once, the precision and sign cycling
 * through the matrix (so both precisions and both signs still meet every
 * code path): slow devices spend their time compiling kernels per plan. */
static int quick_mode, quick_counter;

/* Both precisions, the sign alternating with the index i (one of them at the
 * quick level). */
static void both_prec(tokens *t, int i, const char *shape_and_fields) {
  if (quick_mode) {
    int c = quick_counter++;
    add(t, "c2c:%s:%s:%s", prec[c & 1], dir[(c >> 1) & 1], shape_and_fields);
    return;
  }
  for (int p = 0; p < 2; p++) add(t, "c2c:%s:%s:%s", prec[p], dir[(i + p) & 1], shape_and_fields);
}

static void build_matrix(tokens *t, hyt_level level) {
  int quick = level == HYT_QUICK, full = level == HYT_FULL;
  char shape[128];
  quick_mode = quick;
  quick_counter = 0;

  /* 1. every small length: every radix, Rader/Bluestein primes, mixed sizes. */
  if (quick) {
    /* 1..64 has every radix and small prime; then a few mixed lengths. */
    static const int more[] = {67,  96,  100, 105, 121, 128, 143, 169, 210, 243, 256, 343,
                               360, 512, 625, 720, 1000, 1001, 1021, 1023, 1024};
    for (int n = 1; n <= 64; n++) {
      snprintf(shape, sizeof shape, "%d", n);
      both_prec(t, n, shape);
    }
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
      snprintf(shape, sizeof shape, "%d", more[i]);
      both_prec(t, (int)i, shape);
    }
  } else {
    every_length(t, full ? 4096 : 1024);
  }

  /* 2. powers of two; the largest once. */
  int pmax = quick ? 16 : full ? 24 : 22;
  for (int k = 11; k < pmax; k++) {
    snprintf(shape, sizeof shape, "%lld", 1LL << k);
    both_prec(t, k, shape);
  }
  add(t, "c2c:f64:fwd:%lld", 1LL << pmax);

  /* 3. products of the odd radices. */
  static const char *const prod_std[] = {
      "2187",  "3125",  "2401",  "1331",  "2197",   "15015",  "59049", "78125",
      "45045", "9261",  "19683", "15625", "16807",  "14641",  "28561", "30030",
      "1536",  "10000", "786432", "1000000", "362880", "4100"};
  static const char *const prod_quick[] = {"243", "625", "343", "121", "169", "15015", "1155"};
  static const char *const prod_full[] = {"177147", "390625", "117649", "161051", "371293"};
  if (quick) {
    for (size_t i = 0; i < sizeof prod_quick / sizeof *prod_quick; i++)
      both_prec(t, (int)i, prod_quick[i]);
  } else {
    for (size_t i = 0; i < sizeof prod_std / sizeof *prod_std; i++)
      both_prec(t, (int)i, prod_std[i]);
  }
  if (full)
    for (size_t i = 0; i < sizeof prod_full / sizeof *prod_full; i++)
      both_prec(t, (int)i, prod_full[i]);

  /* 4. primes (direct radix, Rader, Bluestein). */
  static const char *const primes_std[] = {"17",   "31",   "37",   "127",   "1009",
                                           "1021", "2039", "4099", "8191",  "65537",
                                           "131071"};
  static const char *const primes_quick[] = {"17", "31", "37", "127", "1009", "4099"};
  if (quick) {
    for (size_t i = 0; i < sizeof primes_quick / sizeof *primes_quick; i++)
      both_prec(t, (int)i, primes_quick[i]);
  } else {
    for (size_t i = 0; i < sizeof primes_std / sizeof *primes_std; i++)
      both_prec(t, (int)i, primes_std[i]);
  }
  if (full) {
    both_prec(t, 0, "1048573");
    both_prec(t, 1, "999983");
  }

  /* 5. 2D and 3D, incl. odd and size-1 dims and rank 4. */
  static const char *const md_std[] = {"1024x1024", "17x31",    "7x9x11", "64x64x64",
                                       "100x100x100", "33x65",  "1x64",   "128x1",
                                       "5x1x3",    "2x3x4x5",  "256x1009", "1009x3",
                                       "1000x1000", "3x5x7x11", "512x512x4", "31x37x41"};
  static const char *const md_quick[] = {"32x32", "17x31", "7x9x11", "16x16x16", "33x65",
                                         "1x64",  "128x1", "5x1x3",  "2x3x4x5",  "8x127"};
  static const char *const md_full[] = {"2048x2048", "128x128x128", "4099x5"};
  if (quick) {
    for (size_t i = 0; i < sizeof md_quick / sizeof *md_quick; i++) both_prec(t, (int)i, md_quick[i]);
  } else {
    for (size_t i = 0; i < sizeof md_std / sizeof *md_std; i++) both_prec(t, (int)i, md_std[i]);
  }
  if (full)
    for (size_t i = 0; i < sizeof md_full / sizeof *md_full; i++) both_prec(t, (int)i, md_full[i]);

  /* 6. batches, incl. many small transforms and several batch dims. */
  both_prec(t, 0, "64:b1");
  both_prec(t, 1, "64:b2");
  both_prec(t, 0, "100:b3");
  both_prec(t, 1, quick ? "4:b4099" : "4:b65537");
  both_prec(t, 0, quick ? "5:b1025" : "5:b65537");
  both_prec(t, 1, "17:b3x5");
  both_prec(t, 0, quick ? "1009:b3" : "4099:b3");
  both_prec(t, 1, "8x8:b7");

  /* 7. strides and padding: gaps between elements and between transforms,
   * interleaved batches (distance 1), transposed output. */
  both_prec(t, 0, "100:b3:is=2:os=3:idist=211:odist=307");
  both_prec(t, 1, "64:b8:is=8:os=8:idist=1:odist=1");
  both_prec(t, 0, "64:b8:is=1:os=8:idist=64:odist=1");
  both_prec(t, 1, "17x31:is=40,1:os=1,17");
  both_prec(t, 0, "16x12:b2:is=13,1:os=24,2:idist=300:odist=500");
  both_prec(t, 1, "127:b4:is=3:os=1:idist=400:odist=130");
  both_prec(t, 0, "7x9x11:is=110,11,1:os=1,7,63");
  both_prec(t, 1, quick ? "1024:is=2:os=3" : "65536:is=2:os=3");
  both_prec(t, 0, "1:b5:is=1:os=1:idist=3:odist=2");
  /* Overlapping input transforms (allowed out-of-place, as in FFTW). */
  both_prec(t, 1, "64:b3:idist=32");
  both_prec(t, 0, "8x8:b2:is=4,1:idist=1");

  /* 8. in-place, contiguous and strided. */
  static const char *const ip[] = {"1024:ip",  "1009:ip",     "64x64:ip",   "15015:ip",
                                   "64:b5:ip", "7x9x11:ip",   "1:b3:ip",
                                   "128:b4:ip:is=2:os=2:idist=300:odist=300",
                                   "17x31:ip:is=32,1:os=32,1"};
  for (size_t i = 0; i < sizeof ip / sizeof *ip; i++) both_prec(t, (int)i, ip[i]);
  if (!quick) both_prec(t, 1, "1048576:ip");

  /* 9. scale. */
  both_prec(t, 0, "1024:scale=1/N");
  both_prec(t, 1, "17x31:b2:scale=1/N");
  both_prec(t, 0, "1009:scale=0.5");
  both_prec(t, 1, "64:ip:scale=1/N");
  both_prec(t, 0, "1:scale=3");
  /* Scaled columns of neighbouring transforms (the column kernels of
   * short plans, cpu_engine_direct.h): a plane's columns, in place too,
   * and strided 1D columns. */
  both_prec(t, 1, "16x16:b8:scale=1/N");
  both_prec(t, 0, "64x64:ip:scale=0.5");
  both_prec(t, 1, "7:b3x64:is=64:os=64:idist=448,1:odist=448,1:scale=2");

  /* 9b. batched short transforms, whose two- and three-stage kernel
   * plans the CPU runs as straight-line kernels: rows back to back (two
   * full lane groups and a partial one) and the columns of a plane (a
   * full group of neighbouring columns and one left over), in and out of
   * place. */
  static const int two_stage[] = {9,  10, 12, 14, 15, 20, 24, 25, 27, 30, 32,
                                  36, 40, 48, 49, 50, 60, 64, 80, 96, 100, 128};
  for (size_t i = 0; i < sizeof two_stage / sizeof *two_stage; i++) {
    snprintf(shape, sizeof shape, "%d:b17%s", two_stage[i], i % 3 == 2 ? ":ip" : "");
    both_prec(t, (int)i, shape);
    snprintf(shape, sizeof shape, "%dx9:b2%s", two_stage[i], i % 2 ? ":ip" : "");
    both_prec(t, (int)i + 1, shape);
  }

  /* 10. device-resident data, whatever the run's mode. */
  both_prec(t, 1, "1024:b2:dev");
  both_prec(t, 0, "17x31:dev:ip");

  /* 11. real transforms (CPU; skipped on a backend that does not do them
   * yet): even, odd, prime and Bluestein lengths, 1-3 dims, batches,
   * strides that do and do not allow the complex view of the reals,
   * in place (FFTW's padded layout), scale. */
  static const char *const real[] = {"r2c:f32:1024",      "r2c:f64:17x31",   "r2c:f64:16x16x16:b2",
                                     "r2c:f32:1000:b3",   "c2r:f32:1024",    "c2r:f64:17x31",
                                     "c2r:f64:16x16x16:b2", "c2r:f32:1001:b3", "r2c:f32:127",
                                     "c2r:f64:1"};
  for (size_t i = 0; i < sizeof real / sizeof *real; i++) add(t, "%s", real[i]);
  static const char *const real_shapes[] = {
      "2",        "3",         "6",          "15",        "4099",       "8x10",
      "9x6",      "7x9x11",    "6x8x10",     "64:b5",     "1:b3",       "33:b3x2",
      "64:ip",    "63:b4:ip",  "17x32:ip",   "6x7x8:b2:ip",
      "100:b3:is=2:os=3:idist=211:odist=307", "12x10:is=23,2:os=11,1",
      "16:b3:idist=40:odist=9", "9:b2:is=3:idist=1000:odist=5",
      "20:scale=1/N",          "10x5:b2:scale=0.5"};
  static const char *const real_shapes_c2r[] = {
      "2",        "3",         "6",          "15",        "4099",       "8x10",
      "9x6",      "7x9x11",    "6x8x10",     "64:b5",     "1:b3",       "33:b3x2",
      "64:ip",    "63:b4:ip",  "17x32:ip",   "6x7x8:b2:ip",
      "100:b3:is=3:os=2:idist=307:odist=211", "12x10:is=11,1:os=23,2",
      "16:b3:idist=9:odist=40", "9:b2:os=3:idist=5:odist=1000",
      "20:scale=1/N",          "10x5:b2:scale=0.5"};
  for (size_t i = 0; i < sizeof real_shapes / sizeof *real_shapes; i++) {
    add(t, "r2c:%s:%s", i % 2 ? "f64" : "f32", real_shapes[i]);
    add(t, "c2r:%s:%s", i % 2 ? "f32" : "f64", real_shapes_c2r[i]);
  }
  /* The CPU's unit-stride vector paths of the real steps: R2C_POST and
   * C2R_PRE over several work chunks (more than 4096 pairs), in place and
   * scaled; the pair packing and unpacking at odd row distances; odd
   * lengths in place and scaled (WIDEN, C2R_EXTEND, NARROW); short even
   * lengths around the first block of four pairs (m = 7..15: none, one or
   * two blocks, and the scalar pairs left between them); large batches;
   * C2R of at most one vector's worth of bins (m <= LANES) in lane groups
   * with a partial last group, strided and in place. */
  static const char *const real_vec[] = {
      "c2r:f32:10:b37",         "c2r:f32:16:b19:idist=11:odist=17", "c2r:f64:8:b13",
      "c2r:f64:6:b9:is=2:idist=9", "c2r:f32:4:b21:ip:scale=1/N",
      "r2c:f32:20000",          "c2r:f64:20000:ip",       "r2c:f64:4096:b2:scale=1/N",
      "c2r:f32:4096:ip:scale=1/N", "r2c:f32:64:b3:idist=67:odist=40",
      "c2r:f64:64:b3:idist=40:odist=67", "r2c:f64:1001:b2:ip", "c2r:f32:1025:b3:scale=0.5",
      "r2c:f32:14:b2",          "c2r:f32:16:b2",          "r2c:f64:18:ip",
      "c2r:f64:22:ip",          "r2c:f32:26:scale=1/N",   "c2r:f32:30:b3",
      "r2c:f32:256:b600",       "c2r:f64:130:b1000:ip"};
  for (size_t i = 0; i < sizeof real_vec / sizeof *real_vec; i++) add(t, "%s", real_vec[i]);
  /* Short odd lengths in dense batches, whose real step the GPUs stage
   * through local memory both ways: batches of several work-groups with
   * a partial last one, in place (the staged load or store alone), scaled,
   * and the odd last axis of a 2D array. */
  static const char *const real_odd_rows[] = {
      "r2c:f32:13:b1000",  "c2r:f64:13:b1000",    "r2c:f64:27:b777",
      "c2r:f32:27:b777",   "c2r:f32:13:b300:ip",  "r2c:f64:15:b300:ip",
      "c2r:f32:9:b500:scale=1/N", "r2c:f32:3:b2049", "c2r:f32:300x25", "r2c:f64:300x25"};
  for (size_t i = 0; i < sizeof real_odd_rows / sizeof *real_odd_rows; i++)
    add(t, "%s", real_odd_rows[i]);
  /* The CPU's odd real steps in the gather and scatter of lane groups:
   * lanes of neighbouring reals (the real axis strided, the batch
   * innermost), tiles of separate transforms with a strided real axis,
   * lengths shorter than a vector, the longest that fuse (4095 f32 here
   * and on any L2) and the outer axes after a fused one. */
  static const char *const real_odd_lanes[] = {
      "r2c:f32:9:b16:is=16:idist=1", "c2r:f32:9:b16:os=16:odist=1", "r2c:f64:75:b9:is=2:idist=151",
      "c2r:f64:75:b9:os=2:odist=151", "r2c:f32:5:b11",            "c2r:f64:3:b7:scale=1/N",
      "c2r:f32:4095:b3",             "r2c:f64:30x27:b3",          "c2r:f32:10x15:b2:ip"};
  for (size_t i = 0; i < sizeof real_odd_lanes / sizeof *real_odd_lanes; i++)
    add(t, "%s", real_odd_lanes[i]);
  /* Even real axes whose reals are not complex pairs, which the CPU takes
   * through the same one pass up to lane_group_l1_max: a strided real axis
   * (columns), an odd row distance, interleaved transforms (2D), two and
   * four points, and one past the limit on any L1 of 16 KiB and up. */
  static const char *const real_even_one_pass[] = {
      "r2c:f32:256:b64:is=64:idist=1:os=64:odist=1", "c2r:f32:256:b64:is=64:idist=1:os=64:odist=1",
      "r2c:f64:64:b9:idist=65:odist=33",             "c2r:f64:64:b9:idist=33:odist=65",
      "r2c:f64:128x64:b3:is=192,3:os=99,3:idist=1:odist=1",
      "c2r:f64:128x64:b3:is=99,3:os=192,3:idist=1:odist=1",
      "r2c:f32:2:b77:idist=3",                       "c2r:f32:4:b5:os=5:odist=1:scale=1/N",
      "r2c:f64:4096:b3:is=3:idist=1:os=3:odist=1"};
  for (size_t i = 0; i < sizeof real_even_one_pass / sizeof *real_even_one_pass; i++)
    add(t, "%s", real_even_one_pass[i]);
  /* Interleaved transforms whose lane groups are two runs of LANES/2
   * neighbours (the CPU's split lanes): LANES/2 and its multiples side by
   * side, both sides or one, a partial last group, 2D, scaled. */
  static const char *const split_lanes[] = {
      "c2c:f32:fwd:64:b33x4:is=4:os=4:idist=256,1:odist=256,1",
      "c2c:f64:bwd:30:b7x6:is=6:os=6:idist=180,1:odist=180,1",
      "c2c:f64:fwd:64:b9x2:is=2:os=2:idist=128,1:odist=128,1",
      "c2c:f32:fwd:16:b5x4:is=4:os=1:idist=70,1:odist=64,16",
      "c2c:f64:bwd:16:b5x4:is=1:os=4:idist=64,16:odist=70,1",
      "c2c:f32:bwd:12x10:b3x4:is=40,4:os=40,4:idist=480,1:odist=480,1:scale=1/N"};
  for (size_t i = 0; i < sizeof split_lanes / sizeof *split_lanes; i++)
    add(t, "%s", split_lanes[i]);
  if (!quick) {
    add(t, "r2c:f64:65537");
    add(t, "c2r:f32:65536:b2");
    add(t, "r2c:f32:256x1009");
    add(t, "c2r:f64:64x64x64");
  }
}

/* ---- one case --------------------------------------------------------------- */

typedef struct stats {
  long skipped;
  long above_target;
  double worst_ratio; /* rms / FFTW-level target */
  char worst[256];
  double slowest;
  char slowest_token[256];
} stats;

static void run_case(hyt_device *dev, const hyt_options *opt, const char *token, stats *st) {
  hyfft_problem prob;
  hyfft_status s = hyfft_problem_parse(token, &prob);
  if (s != HYFFT_SUCCESS) {
    hy_test_fail("%s seed=%llu: hyfft_problem_parse: %s (%s)", token,
                 (unsigned long long)opt->seed, hyfft_status_name(s), hyfft_last_error());
    return;
  }
  /* This suite's references are complex DFTs; r2r kinds have their own
   * suite (tests/accuracy/r2r.c, hyfft_r2r_accuracy). */
  if (prob.kind == HYFFT_R2R) {
    hy_test_fail("%s: r2r problems are checked by hyfft_r2r_accuracy, not this suite", token);
    return;
  }
  double t0 = hyt_now();
  char why[256];
  hyt_layout lay;
  if (hyt_layout_make(&prob, &lay, why, sizeof why)) {
    hy_test_fail("%s seed=%llu: %s", token, (unsigned long long)opt->seed, why);
    return;
  }
  hyfft_plan plan = NULL;
  hyt_buffers bufs;
  memset(&bufs, 0, sizeof bufs);
  hyt_cvec x = {0, NULL}, y = {0, NULL}, ref = {0, NULL};
  s = hyt_plan(dev, &prob, &plan);
  if (s != HYFFT_SUCCESS) {
    if (hyt_is_skip(dev, &prob, s)) {
      st->skipped++;
      printf("SKIP %s: %s (%s)\n", token, hyfft_status_name(s), hyfft_last_error());
    } else {
      hy_test_fail("%s seed=%llu: hyfft_plan_create: %s (%s)", token,
                   (unsigned long long)opt->seed, hyfft_status_name(s), hyfft_last_error());
    }
    goto done;
  }
  hyt_rng rng;
  hyt_rng_seed_token(&rng, opt->seed, token);
  if (hyt_random_input(&lay, &rng, &x) || hyt_reference(&lay, &x, &ref)) {
    hy_test_fail("%s seed=%llu: harness: input or FFTW reference failed (out of memory?)", token,
                 (unsigned long long)opt->seed);
    goto done;
  }
  if (hyt_buffers_alloc(&lay, dev, &bufs)) {
    hy_test_fail("%s seed=%llu: harness: cannot allocate buffers (%s)", token,
                 (unsigned long long)opt->seed, hyfft_last_error());
    goto done;
  }
  hyt_run_result res;
  if (hyt_run(plan, &bufs, &x, &y, &res)) {
    hy_test_fail("%s seed=%llu: %s", token, (unsigned long long)opt->seed, res.message);
    goto done;
  }
  hyt_errors e = hyt_compare(&lay, &y, &ref);
  double target = (hyt_is_smooth(&prob) ? 1.5 : 3.0) * hyt_error_scale(prob.precision, lay.n_total);
  /* Half-precision storage: about one rounding of the output to the format. */
  if (prob.precision == HYFFT_F16 || prob.precision == HYFFT_BF16)
    target = hyt_half_rms_gate(prob.precision) / 5.0;
  int ok = e.pass && res.gaps_touched == 0 && res.input_changed == 0;
  /* --at-target: the FFTW-level target is the gate (NaN fails too). */
  const int over = opt->at_target && !(e.rms <= target);
  ok = ok && !over;
  if (ok) {
    hy_test_pass();
  } else {
    hy_test_fail("%s seed=%llu: rms %.3g (gate %.3g) max %.3g (gate %.3g)%s; gaps touched %lld; "
                 "input elements changed %lld",
                 token, (unsigned long long)opt->seed, e.rms, e.rms_gate, e.max, e.max_gate,
                 e.pass ? (over ? " ABOVE TARGET" : "") : " ACCURACY", (long long)res.gaps_touched,
                 (long long)res.input_changed);
  }
  if (e.rms > target) {
    st->above_target++;
    if (e.rms / target > st->worst_ratio || isnan(e.rms)) {
      st->worst_ratio = e.rms / target;
      snprintf(st->worst, sizeof st->worst, "%s", token);
    }
  }
  double dt = hyt_now() - t0;
  if (dt > st->slowest) {
    st->slowest = dt;
    snprintf(st->slowest_token, sizeof st->slowest_token, "%s", token);
  }
  if (opt->verbose)
    printf("%-4s %-44s rms %.3e (target %.3e%s, gate %.3e) max %.3e (gate %.3e) %.3fs\n",
           ok ? "ok" : "FAIL", token, e.rms, target, e.rms > target ? " ABOVE" : "", e.rms_gate,
           e.max, e.max_gate, dt);
done:
  if (plan) hyfft_plan_destroy(plan);
  hyt_buffers_free(&bufs);
  hyt_cvec_free(&x);
  hyt_cvec_free(&y);
  hyt_cvec_free(&ref);
  hyt_layout_free(&lay);
}

int main(int argc, char **argv) {
  hyt_options opt;
  if (hyt_parse_args(argc, argv, NULL, &opt)) return 2;
  tokens t = {NULL, 0, 0};
  if (opt.ntokens) {
    for (int i = 0; i < opt.ntokens; i++) add(&t, "%s", opt.tokens[i]);
  } else {
    build_matrix(&t, opt.level);
  }
  if (opt.list) {
    for (int i = 0; i < t.n; i++) printf("%s\n", t.v[i]);
    return 0;
  }
  hyt_device dev;
  if (hyt_device_open(&opt, &dev)) {
    hy_test_fail("device '%s' could not be opened", opt.device);
    return hy_test_summary();
  }
  stats st;
  memset(&st, 0, sizeof st);
  double t0 = hyt_now();
  double last_report = t0;
  for (int i = 0; i < t.n; i++) {
    run_case(&dev, &opt, t.v[i], &st);
    /* A line now and then, so a run cut short by a timeout shows how far
     * it got (kernel compilation makes the first run on a GPU slow). */
    double now = hyt_now();
    if (now - last_report > 30 && i + 1 < t.n) {
      printf("progress: %d of %d cases in %.0f s, %ld failed so far\n", i + 1, t.n, now - t0,
             hy_test_failed);
      last_report = now;
    }
    fflush(stdout);
  }
  double total = hyt_now() - t0;
  printf("%d cases in %.1f s (slowest %s, %.2f s); %ld skipped (not supported yet)\n", t.n, total,
         st.slowest_token, st.slowest, st.skipped);
  if (st.above_target)
    printf("%ld cases above the FFTW-level target (1.5 u sqrt(log2 N) smooth, 3 u sqrt(log2 N) "
           "otherwise); worst %s at %.2fx\n",
           st.above_target, st.worst, st.worst_ratio);
  for (int i = 0; i < t.n; i++) free(t.v[i]);
  free(t.v);
  free(opt.tokens);
  hyt_device_close(&dev);
  return hy_test_summary();
}
