/* Direct tests of the native CPU engine through the public API on device
 * "cpu" (and through the backend table for pass features the planner does
 * not produce yet: four-step twiddles, copies, odd loop layouts).
 * References: a long double direct DFT for N <= 2048, FFTW's fftwl beyond.
 * Gates (DESIGN section 7): relative RMS <= 5*u*sqrt(log2 N), max-norm
 * <= 10x that. Fresh random inputs each run; the seed is printed and can be
 * given back with HYFFT_TEST_SEED. */
#define _POSIX_C_SOURCE 200809L
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/cpu/cpu_node.h"
#include "planner/planner.h"
#include "util/settings.h"
#include "check.h"

static uint64_t rng_state;
static double rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static const long double PI_L = 3.141592653589793238462643383279502884L;

/* Worst error seen per category, in units of u*sqrt(log2 N). */
static double worst_smooth[2], worst_other[2];
static int verbose; /* HYFFT_TEST_VERBOSE=1: a line per case */

static int is_smooth(int64_t n) {
  for (int p = 2; p <= 13; p++)
    while (n % p == 0) n /= p;
  return n == 1;
}

/* Naive DFT of length n of x (stride 1) in long double, sign, times scale. */
static void naive_dft(const long double *x, long double *y, int64_t n, int sign) {
  long double *w = malloc(sizeof(long double) * 2 * (size_t)n);
  for (int64_t k = 0; k < n; k++) {
    w[2 * k] = cosl(2 * PI_L * (long double)k / (long double)n);
    w[2 * k + 1] = sign * sinl(2 * PI_L * (long double)k / (long double)n);
  }
  for (int64_t k = 0; k < n; k++) {
    long double sr = 0, si = 0;
    int64_t p = 0;
    for (int64_t j = 0; j < n; j++) {
      sr += x[2 * j] * w[2 * p] - x[2 * j + 1] * w[2 * p + 1];
      si += x[2 * j] * w[2 * p + 1] + x[2 * j + 1] * w[2 * p];
      p += k;
      if (p >= n) p -= n;
    }
    y[2 * k] = sr;
    y[2 * k + 1] = si;
  }
  free(w);
}

/* Reference of a rank-r contiguous transform (dims row major), fftwl. */
static void ref_dft(const long double *x, long double *y, int rank, const int *dims, int sign) {
  int64_t total = 1;
  for (int d = 0; d < rank; d++) total *= dims[d];
  if (rank == 1 && total <= 2048) {
    naive_dft(x, y, total, sign);
    return;
  }
  long double *in = fftwl_malloc(sizeof(long double) * 2 * (size_t)total);
  long double *out = fftwl_malloc(sizeof(long double) * 2 * (size_t)total);
  fftwl_plan p = fftwl_plan_dft(rank, dims, (fftwl_complex *)in, (fftwl_complex *)out, sign,
                                FFTW_ESTIMATE);
  memcpy(in, x, sizeof(long double) * 2 * (size_t)total);
  fftwl_execute(p);
  memcpy(y, out, sizeof(long double) * 2 * (size_t)total);
  fftwl_destroy_plan(p);
  fftwl_free(in);
  fftwl_free(out);
}

typedef struct errs {
  double rms, max;
} errs;

static errs compare(const long double *got, const long double *ref, int64_t count) {
  long double num = 0, den = 0, mx = 0, mref = 0;
  for (int64_t i = 0; i < 2 * count; i++) {
    long double d = got[i] - ref[i];
    if (isnan((double)got[i])) d = INFINITY;
    num += d * d;
    den += ref[i] * ref[i];
    if (fabsl(d) > mx) mx = fabsl(d);
    if (fabsl(ref[i]) > mref) mref = fabsl(ref[i]);
  }
  errs e;
  e.rms = den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
  e.max = mref > 0 ? (double)(mx / mref) : (double)mx;
  return e;
}

static double err_unit(hyfft_precision prec, int64_t n) {
  double u = prec == HYFFT_F64 ? 0x1p-53 : 0x1p-24;
  double l = n > 2 ? log2((double)n) : 1.0;
  return u * sqrt(l);
}

static void check_errors(const char *what, hyfft_precision prec, int64_t n_total, int64_t n_1d,
                         errs e) {
  double unit = err_unit(prec, n_total);
  double ratio = e.rms / unit;
  double *worst = is_smooth(n_1d) ? worst_smooth : worst_other;
  if (ratio > worst[prec]) worst[prec] = ratio;
  if (verbose) printf("%-40s rms %.3g (%.2f u sqrt(log2 N)) max %.3g\n", what, e.rms, ratio, e.max);
  CHECK(e.rms <= 5 * unit && e.max <= 50 * unit, "%s: rms %.3g (%.2f u sqrt(log2 N)), max %.3g",
        what, e.rms, ratio, e.max);
}

/* Host data conversions between long double logical values and the
 * library's interleaved buffers at given element offsets. */
static void store(void *buf, hyfft_precision prec, int64_t off, long double re, long double im) {
  if (prec == HYFFT_F64) {
    ((double *)buf)[2 * off] = (double)re;
    ((double *)buf)[2 * off + 1] = (double)im;
  } else {
    ((float *)buf)[2 * off] = (float)re;
    ((float *)buf)[2 * off + 1] = (float)im;
  }
}
static void load(const void *buf, hyfft_precision prec, int64_t off, long double *re,
                 long double *im) {
  if (prec == HYFFT_F64) {
    *re = ((const double *)buf)[2 * off];
    *im = ((const double *)buf)[2 * off + 1];
  } else {
    *re = ((const float *)buf)[2 * off];
    *im = ((const float *)buf)[2 * off + 1];
  }
}
static void poison(void *buf, size_t bytes) { memset(buf, 0xff, bytes); /* NaN */ }

/* Random input rounded to the precision, so the reference sees what the
 * library sees. */
static void random_input(long double *x, int64_t count, hyfft_precision prec) {
  for (int64_t i = 0; i < 2 * count; i++) {
    double v = rnd();
    x[i] = prec == HYFFT_F64 ? (long double)v : (long double)(float)v;
  }
}

/* 1D, `batch` contiguous transforms, out of place or in place, scale. */
static void test_1d(int64_t n, int64_t batch, hyfft_precision prec, int sign, int inplace,
                    double scale) {
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  hyfft_problem pr;
  CHECK_OK(hyfft_problem_init(&pr, HYFFT_C2C, prec, sign, 1, &n));
  pr.batch_rank = 1;
  pr.batch[0] = (hyfft_dim){batch, n, n};
  pr.inplace = inplace;
  pr.scale = scale;
  hyfft_plan plan;
  hyfft_status st = hyfft_plan_create(ctx, &pr, HYFFT_ESTIMATE, &plan);
  CHECK(st == HYFFT_SUCCESS, "plan n=%lld: %s", (long long)n, hyfft_last_error());
  if (st != HYFFT_SUCCESS) {
    hyfft_context_destroy(ctx);
    return;
  }
  size_t esz = prec == HYFFT_F64 ? 16 : 8;
  int64_t total = n * batch;
  void *in = malloc(esz * (size_t)total), *out = inplace ? in : malloc(esz * (size_t)total);
  long double *x = malloc(sizeof(long double) * 2 * (size_t)total);
  long double *y = malloc(sizeof(long double) * 2 * (size_t)total);
  long double *r = malloc(sizeof(long double) * 2 * (size_t)total);
  random_input(x, total, prec);
  if (!inplace) poison(out, esz * (size_t)total);
  for (int64_t i = 0; i < total; i++) store(in, prec, i, x[2 * i], x[2 * i + 1]);
  CHECK_OK(hyfft_execute(plan, in, out));
  for (int64_t i = 0; i < total; i++) load(out, prec, i, &y[2 * i], &y[2 * i + 1]);
  int dims[1] = {(int)n};
  for (int64_t b = 0; b < batch; b++) ref_dft(x + 2 * b * n, r + 2 * b * n, 1, dims, sign);
  long double sc = scale == 0 ? 1 : scale;
  for (int64_t i = 0; i < 2 * total; i++) r[i] *= sc;
  char what[160];
  snprintf(what, sizeof what, "c2c:%s:%s:%lld:b%lld%s", prec == HYFFT_F64 ? "f64" : "f32",
           sign < 0 ? "fwd" : "bwd", (long long)n, (long long)batch, inplace ? ":ip" : "");
  check_errors(what, prec, n, n, compare(y, r, total));
  free(x);
  free(y);
  free(r);
  if (out != in) free(out);
  free(in);
  CHECK_OK(hyfft_plan_destroy(plan));
  CHECK_OK(hyfft_context_destroy(ctx));
}

/* Multi-dimensional contiguous transforms (strided axes). */
static void test_nd(int rank, const int *dims, hyfft_precision prec, int sign, int inplace) {
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  int64_t n[3], total = 1;
  for (int d = 0; d < rank; d++) {
    n[d] = dims[d];
    total *= dims[d];
  }
  hyfft_problem pr;
  CHECK_OK(hyfft_problem_init(&pr, HYFFT_C2C, prec, sign, rank, n));
  pr.inplace = inplace;
  hyfft_plan plan;
  CHECK_OK(hyfft_plan_create(ctx, &pr, HYFFT_ESTIMATE, &plan));
  size_t esz = prec == HYFFT_F64 ? 16 : 8;
  void *in = malloc(esz * (size_t)total), *out = inplace ? in : malloc(esz * (size_t)total);
  long double *x = malloc(sizeof(long double) * 2 * (size_t)total);
  long double *y = malloc(sizeof(long double) * 2 * (size_t)total);
  long double *r = malloc(sizeof(long double) * 2 * (size_t)total);
  random_input(x, total, prec);
  if (!inplace) poison(out, esz * (size_t)total);
  for (int64_t i = 0; i < total; i++) store(in, prec, i, x[2 * i], x[2 * i + 1]);
  CHECK_OK(hyfft_execute(plan, in, out));
  for (int64_t i = 0; i < total; i++) load(out, prec, i, &y[2 * i], &y[2 * i + 1]);
  ref_dft(x, r, rank, dims, sign);
  char what[160];
  snprintf(what, sizeof what, "c2c:%s:%s:%dx%dx%d%s", prec == HYFFT_F64 ? "f64" : "f32",
           sign < 0 ? "fwd" : "bwd", dims[0], rank > 1 ? dims[1] : 1, rank > 2 ? dims[2] : 1,
           inplace ? ":ip" : "");
  int64_t worst_axis = dims[0];
  for (int d = 1; d < rank; d++)
    if (!is_smooth(dims[d])) worst_axis = dims[d];
  check_errors(what, prec, total, worst_axis, compare(y, r, total));
  free(x);
  free(y);
  free(r);
  if (out != in) free(out);
  free(in);
  CHECK_OK(hyfft_plan_destroy(plan));
  CHECK_OK(hyfft_context_destroy(ctx));
}

/* In place against out of place on the same layout: every output element
 * bit for bit equal, and the elements between a strided layout's elements
 * untouched in place. dims[] slowest first; the innermost axis has element
 * stride `es` (> 1: strided, with gaps), each outer axis packs the one
 * inside it, the batch comes outermost, `gap` elements apart beyond the
 * transforms' extent. Covers the engine's in-place paths: one gathered
 * transform (n <= 4096), four-step with n1 = n2 (columns, rows, square
 * transpose, all in place), four-step with n1 != n2 (through a scratch),
 * Rader and Bluestein, and multi-dimensional passes. */
static void test_inplace_equal(int rank, const int64_t *dims, int64_t batch, int64_t es, int64_t gap,
                               hyfft_precision prec, int sign) {
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  hyfft_problem pr;
  CHECK_OK(hyfft_problem_init(&pr, HYFFT_C2C, prec, sign, rank, dims));
  int64_t stride = es, count = 1;
  for (int d = rank - 1; d >= 0; d--) {
    pr.dims[d].in_stride = pr.dims[d].out_stride = stride;
    stride *= dims[d];
    count *= dims[d];
  }
  pr.batch_rank = 1;
  pr.batch[0] = (hyfft_dim){batch, stride + gap, stride + gap};
  pr.scale = sign > 0 ? 1.0 / (double)count : 0;
  const int64_t span = batch * (stride + gap), total = count * batch;
  size_t esz = prec == HYFFT_F64 ? 16 : 8, bytes = esz * (size_t)span;
  hyfft_plan oop, ip;
  CHECK_OK(hyfft_plan_create(ctx, &pr, HYFFT_ESTIMATE, &oop));
  pr.inplace = 1;
  CHECK_OK(hyfft_plan_create(ctx, &pr, HYFFT_ESTIMATE, &ip));
  char *in = malloc(bytes), *out = malloc(bytes), *buf = malloc(bytes), *orig = malloc(bytes);
  for (int64_t i = 0; i < span; i++) store(in, prec, i, rnd(), rnd());
  memcpy(buf, in, bytes);
  memcpy(orig, in, bytes);
  poison(out, bytes);
  CHECK_OK(hyfft_execute(oop, in, out));
  CHECK_OK(hyfft_execute(ip, buf, buf));
  /* Offsets of the layout's elements, in order. */
  int64_t *off = malloc(sizeof(int64_t) * (size_t)total), idx[HYFFT_MAX_RANK] = {0};
  char *mark = calloc((size_t)span, 1);
  for (int64_t b = 0, t = 0; b < batch; b++)
    for (int64_t e = 0; e < count; e++, t++) {
      int64_t o = b * (stride + gap), r = e;
      for (int d = rank - 1; d >= 0; d--) {
        idx[d] = r % dims[d];
        r /= dims[d];
        o += idx[d] * pr.dims[d].in_stride;
      }
      off[t] = o;
      mark[o] = 1;
    }
  int64_t diff = 0, first = -1, touched = 0;
  for (int64_t t = 0; t < total; t++)
    if (memcmp(out + esz * (size_t)off[t], buf + esz * (size_t)off[t], esz) != 0) {
      if (first < 0) first = t;
      diff++;
    }
  for (int64_t i = 0; i < span; i++)
    if (!mark[i] && memcmp(buf + esz * (size_t)i, orig + esz * (size_t)i, esz) != 0) touched++;
  char what[160];
  snprintf(what, sizeof what, "%s%s rank %d n0=%lld n1=%lld n2=%lld b%lld stride %lld gap %lld",
           prec == HYFFT_F64 ? "f64" : "f32", sign < 0 ? " fwd" : " bwd", rank, (long long)dims[0],
           rank > 1 ? (long long)dims[1] : 1LL, rank > 2 ? (long long)dims[2] : 1LL,
           (long long)batch, (long long)es, (long long)gap);
  if (verbose) printf("in place = out of place: %s: %lld of %lld differ\n", what, (long long)diff, (long long)total);
  CHECK(diff == 0, "in place %s: %lld of %lld outputs differ from out of place (first: element %lld)",
        what, (long long)diff, (long long)total, (long long)first);
  CHECK(touched == 0, "in place %s: %lld elements outside the layout changed", what, (long long)touched);
  free(off);
  free(mark);
  free(in);
  free(out);
  free(buf);
  free(orig);
  CHECK_OK(hyfft_plan_destroy(oop));
  CHECK_OK(hyfft_plan_destroy(ip));
  CHECK_OK(hyfft_context_destroy(ctx));
}

/* The backend table directly: one DFT pass with a four-step twiddle along
 * a loop, odd strides, scale; and a copy pass. */
static void test_pass_direct(int64_t n, hy_dft_algo algo, hyfft_precision prec, int sign) {
  const hy_backend *b = &hy_backend_cpu;
  void *dev;
  CHECK_OK(b->open(0, &dev));
  hy_plan_tree tree;
  memset(&tree, 0, sizeof tree);
  tree.solver = "test";
  tree.npasses = 1;
  hy_pass *p = &tree.passes[0];
  hy_pass_init(p, HY_PASS_DFT, prec, sign);
  const int64_t loops_a = 3, loops_b = 5, tw_n = 7 * n;
  /* element (a, b, j) of the input at a*(is_a) + b*2 + j*(10*...)... a
   * layout with transforms interleaved and a gap, different on output. */
  p->src = HY_BUF_IN;
  p->dst = HY_BUF_OUT;
  p->src_offset = 3;
  p->dst_offset = 1;
  p->axis = (hyfft_dim){n, 2 * loops_b + 1, 1};
  p->nloops = 2;
  p->loops[0] = (hyfft_dim){loops_a, (2 * loops_b + 1) * n, n * loops_b};
  p->loops[1] = (hyfft_dim){loops_b, 2, n};
  p->twiddle_loop = 1;
  p->twiddle_n = tw_n;
  p->scale = 0.5;
  if (algo == HY_ALGO_BLUESTEIN) {
    p->algo = HY_ALGO_BLUESTEIN;
    p->bluestein_m = 1;
    while (p->bluestein_m < 2 * n - 1) p->bluestein_m *= 2;
    int64_t m = p->bluestein_m;
    p->nfactors = 0;
    while (m > 1) {
      p->factors[p->nfactors++] = m % 16 == 0 ? 16 : 2;
      m /= m % 16 == 0 ? 16 : 2;
    }
  } else {
    int64_t m = n;
    p->nfactors = 0;
    for (int r = 2; r <= 31 && m > 1; r++)
      while (m % r == 0 && (r == 2 || r == 4 || r % 2 == 1)) {
        p->factors[p->nfactors++] = r;
        m /= r;
      }
    CHECK(m == 1, "n = %lld not smooth in the test", (long long)n);
  }
  void *state = NULL;
  CHECK_OK(b->plan_prepare(dev, NULL, &tree, NULL, &state));
  size_t esz = prec == HYFFT_F64 ? 16 : 8;
  int64_t in_elems = 3 + loops_a * (2 * loops_b + 1) * n + 8;
  int64_t out_elems = 1 + loops_a * loops_b * n + 8;
  void *in = malloc(esz * (size_t)in_elems), *out = malloc(esz * (size_t)out_elems);
  poison(out, esz * (size_t)out_elems);
  long double *x = malloc(sizeof(long double) * 2 * (size_t)n);
  long double *r = malloc(sizeof(long double) * 2 * (size_t)n);
  long double *y = malloc(sizeof(long double) * 2 * (size_t)n);
  long double *all_x = malloc(sizeof(long double) * 2 * (size_t)(loops_a * loops_b * n));
  random_input(all_x, loops_a * loops_b * n, prec);
  for (int64_t a = 0; a < loops_a; a++)
    for (int64_t c = 0; c < loops_b; c++)
      for (int64_t j = 0; j < n; j++) {
        const long double *v = all_x + 2 * ((a * loops_b + c) * n + j);
        store(in, prec, 3 + a * p->loops[0].in_stride + c * 2 + j * p->axis.in_stride, v[0], v[1]);
      }
  void *bufs[HY_BUF_COUNT] = {in, out, NULL, NULL};
  CHECK_OK(b->execute(dev, state, &tree, bufs, NULL));
  errs worst = {0, 0};
  for (int64_t a = 0; a < loops_a; a++)
    for (int64_t c = 0; c < loops_b; c++) {
      memcpy(x, all_x + 2 * ((a * loops_b + c) * n), sizeof(long double) * 2 * (size_t)n);
      int dims[1] = {(int)n};
      ref_dft(x, r, 1, dims, sign);
      for (int64_t k = 0; k < n; k++) {
        long double ang = 2 * PI_L * (long double)((c * k) % tw_n) / (long double)tw_n;
        long double wr = cosl(ang), wi = sign * sinl(ang);
        long double t = r[2 * k] * wr - r[2 * k + 1] * wi;
        r[2 * k + 1] = (r[2 * k] * wi + r[2 * k + 1] * wr) * 0.5L;
        r[2 * k] = t * 0.5L;
        load(out, prec, 1 + a * p->loops[0].out_stride + c * n + k, &y[2 * k], &y[2 * k + 1]);
      }
      errs e = compare(y, r, n);
      if (!(e.rms <= worst.rms)) worst.rms = e.rms;
      if (!(e.max <= worst.max)) worst.max = e.max;
    }
  char what[128];
  snprintf(what, sizeof what, "pass %s n=%lld twiddle %s %s",
           algo == HY_ALGO_BLUESTEIN ? "bluestein" : "mixed", (long long)n,
           prec == HYFFT_F64 ? "f64" : "f32", sign < 0 ? "fwd" : "bwd");
  check_errors(what, prec, n, algo == HY_ALGO_BLUESTEIN ? 17 : n, worst);
  /* Elements between the outputs stay untouched. */
  long double g0, g1;
  load(out, prec, 0, &g0, &g1);
  CHECK(isnan((double)g0), "pass wrote outside its output (element 0)");
  b->plan_release(dev, state);
  b->close(dev);
  free(x);
  free(r);
  free(y);
  free(all_x);
  free(in);
  free(out);
}

/* Several user threads executing one plan at once must each get the
 * single-threaded result exactly. */
typedef struct mt_arg {
  hyfft_plan plan;
  const void *in;
  void *out;
  int reps;
  hyfft_status st;
} mt_arg;

static void *mt_worker(void *p) {
  mt_arg *a = p;
  a->st = HYFFT_SUCCESS;
  for (int r = 0; r < a->reps && a->st == HYFFT_SUCCESS; r++) a->st = hyfft_execute(a->plan, a->in, a->out);
  return NULL;
}

static void test_threads(int64_t n, int64_t batch, hyfft_precision prec) {
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  hyfft_plan plan;
  CHECK_OK(hyfft_plan_1d(ctx, n, HYFFT_C2C, prec, HYFFT_FORWARD, batch, &plan));
  size_t bytes = (prec == HYFFT_F64 ? 16 : 8) * (size_t)(n * batch);
  void *in = malloc(bytes), *ref = malloc(bytes);
  for (size_t i = 0; i < bytes / 4; i++) ((float *)in)[i] = (float)rnd();
  if (prec == HYFFT_F64)
    for (size_t i = 0; i < bytes / 8; i++) ((double *)in)[i] = rnd();
  CHECK_OK(hyfft_execute(plan, in, ref));
  enum { T = 4 };
  pthread_t th[T];
  mt_arg args[T];
  for (int t = 0; t < T; t++) {
    args[t] = (mt_arg){plan, in, malloc(bytes), 3, HYFFT_SUCCESS};
    pthread_create(&th[t], NULL, mt_worker, &args[t]);
  }
  for (int t = 0; t < T; t++) {
    pthread_join(th[t], NULL);
    CHECK(args[t].st == HYFFT_SUCCESS, "thread %d: %s", t, hyfft_status_name(args[t].st));
    CHECK(memcmp(args[t].out, ref, bytes) == 0, "thread %d: n=%lld result differs from the single-threaded run", t, (long long)n);
    free(args[t].out);
  }
  free(in);
  free(ref);
  CHECK_OK(hyfft_plan_destroy(plan));
  CHECK_OK(hyfft_context_destroy(ctx));
}

/* Back-to-back runs of 2..16 and 64 points: the straight-line kernels
 * (hy_short_pick) and the lane arrays (HYFFT_CPU_SHORT=0) run the same
 * codelets in the same order, so they give the same bits; both
 * directions, scaled, in place and out of place, a partial last group.
 * HYFFT_CPU_ROWS=0 keeps full groups of 64 points off the row path,
 * which the node may otherwise time faster on this machine: its row
 * kernels contract their multiply-adds as their own code allows. */
static void test_short_same_bits(hyfft_precision prec) {
  const size_t esz = prec == HYFFT_F64 ? 16 : 8;
  static const int64_t lengths[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 64};
  for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
    for (int ip = 0; ip < 2; ip++) {
      const int64_t n = lengths[li];
      const int64_t batch = 8 * 12 + 5;
      const size_t bytes = esz * (size_t)(n * batch);
      char *in = malloc(bytes), *out[2] = {malloc(bytes), malloc(bytes)};
      for (int64_t i = 0; i < n * batch; i++) store(in, prec, i, rnd(), rnd());
      setenv("HYFFT_CPU_ROWS", "0", 1);
      for (int k = 0; k < 2; k++) {
        if (k) setenv("HYFFT_CPU_SHORT", "0", 1);
        hy_settings_reload();
        hyfft_context ctx;
        hyfft_plan plan;
        char tok[96];
        snprintf(tok, sizeof tok, "c2c:%s:%s:%lld:b%lld:scale=1/N%s",
                 prec == HYFFT_F64 ? "f64" : "f32", n % 2 ? "fwd" : "bwd", (long long)n,
                 (long long)batch, ip ? ":ip" : "");
        CHECK_OK(hyfft_context_create("cpu", &ctx));
        CHECK_OK(hyfft_plan_token(ctx, tok, HYFFT_ESTIMATE, &plan));
        if (ip) memcpy(out[k], in, bytes);
        else poison(out[k], bytes);
        CHECK_OK(hyfft_execute(plan, ip ? out[k] : in, out[k]));
        CHECK_OK(hyfft_plan_destroy(plan));
        CHECK_OK(hyfft_context_destroy(ctx));
      }
      unsetenv("HYFFT_CPU_SHORT");
      unsetenv("HYFFT_CPU_ROWS");
      hy_settings_reload();
      CHECK(memcmp(out[0], out[1], bytes) == 0,
            "n=%lld %s %s: straight-line kernels and lane arrays differ", (long long)n,
            prec == HYFFT_F64 ? "f64" : "f32", ip ? "in place" : "out of place");
      free(in);
      free(out[0]);
      free(out[1]);
    }
}

/* Non-temporal stores (HYFFT_CPU_STREAM=1) write the same bits as plain
 * ones (=0): the short straight-line kernels' groups, the block scatters
 * of back-to-back rows, a four-step transform on local copies and one
 * whose second half scatters along the long stride (local copies off),
 * columns 64 KiB apart through column blocks (the L2 taken as 64 KiB),
 * out of place, with the output at every offset of 8 bytes within a
 * cache line (the copies' plain ends and whole-line middles; the
 * scatter's unaligned lines), both precisions. Transforms past 4096
 * points split four-step whatever the L2. */
static void test_stream_same_bits(hyfft_precision prec) {
  const size_t esz = prec == HYFFT_F64 ? 16 : 8;
  static const struct { int64_t n, batch; const char *local; int columns; } cases[] = {
      {16, 301, "64M", 0}, {64, 97, "64M", 0},  {12, 200, "64M", 0}, {16384, 3, "64M", 0},
      {65536, 3, "0", 0},  {100, 67, "64M", 0}, {24, 90, "64M", 0},  {40, 51, "64M", 0},
      {200, 33, "64M", 0}, {20, 8192, "64K", 1}};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
    for (size_t shift = 0; shift < 64; shift += 8 * (esz / 8)) {
      const int64_t n = cases[ci].n, batch = cases[ci].batch;
      const size_t bytes = esz * (size_t)(n * batch);
      /* aligned_alloc takes a size that is a multiple of the alignment. */
      const size_t room = (bytes + 128 + 63) / 64 * 64;
      char *in = malloc(bytes), *raw[2] = {aligned_alloc(64, room), aligned_alloc(64, room)};
      for (int64_t i = 0; i < n * batch; i++) store(in, prec, i, rnd(), rnd());
      for (int k = 0; k < 2; k++) {
        setenv("HYFFT_CPU_STREAM", k ? "1" : "0", 1);
        setenv("HYFFT_CPU_LOCAL", cases[ci].local, 1);
        setenv("HYFFT_CPU_DIRECT_MAX", "4096", 1);
        hy_settings_reload();
        hyfft_context ctx;
        hyfft_plan plan;
        char tok[96];
        snprintf(tok, sizeof tok, "c2c:%s:fwd:%lld:b%lld", prec == HYFFT_F64 ? "f64" : "f32",
                 (long long)n, (long long)batch);
        if (cases[ci].columns) /* the columns of an n x batch array */
          snprintf(tok + strlen(tok), sizeof tok - strlen(tok), ":is=%lld:os=%lld:idist=1:odist=1",
                   (long long)batch, (long long)batch);
        CHECK_OK(hyfft_context_create("cpu", &ctx));
        CHECK_OK(hyfft_plan_token(ctx, tok, HYFFT_ESTIMATE, &plan));
        poison(raw[k], bytes + 128);
        CHECK_OK(hyfft_execute(plan, in, raw[k] + shift));
        CHECK_OK(hyfft_plan_destroy(plan));
        CHECK_OK(hyfft_context_destroy(ctx));
      }
      unsetenv("HYFFT_CPU_STREAM");
      unsetenv("HYFFT_CPU_LOCAL");
      unsetenv("HYFFT_CPU_DIRECT_MAX");
      hy_settings_reload();
      CHECK(memcmp(raw[0], raw[1], bytes + 128) == 0,
            "n=%lld b%lld %s, output at +%zu bytes: streamed and plain stores differ",
            (long long)n, (long long)batch, prec == HYFFT_F64 ? "f64" : "f32", shift);
      free(in);
      free(raw[0]);
      free(raw[1]);
    }
}

/* Every length whose path the machine's timing picks (hy_cpu_rows_pay)
 * keeps its answer for the process, however many lengths come before:
 * plans of 2 x 60 such lengths (rows with a partial last group of
 * outputs, n = LANES * m with LANES not dividing m), then each length
 * must be decided, and a second plan of the first length must give the
 * first plan's bits. A table that dropped lengths past its size re-timed
 * them at every plan, and two plans of one problem could round
 * differently. */
static void test_rows_remembered(void) {
  unsetenv("HYFFT_CPU_ROWS");
  hy_settings_reload();
  int planned = 0, decided = 0;
  for (int prec = 0; prec < 2; prec++) {
    const int L = prec == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
    int count = 0;
    for (int64_t m = 5; count < 60; m++) {
      if (m % L == 0) continue;
      int64_t r = m; /* smooth m, so that the row plan exists */
      for (int p = 2; p <= 7; p++)
        while (r % p == 0) r /= p;
      if (r != 1) continue;
      const int64_t n = L * m;
      char tok[64];
      snprintf(tok, sizeof tok, "c2c:%s:fwd:%lld:b%d", prec ? "f64" : "f32", (long long)n, 4 * L);
      hyfft_context ctx;
      hyfft_plan plan;
      CHECK_OK(hyfft_context_create("cpu", &ctx));
      CHECK_OK(hyfft_plan_token(ctx, tok, HYFFT_ESTIMATE, &plan));
      CHECK_OK(hyfft_plan_destroy(plan));
      CHECK_OK(hyfft_context_destroy(ctx));
      planned++;
      count++;
      decided += hy_cpu_rows_decided(prec ? HYFFT_F64 : HYFFT_F32, n) >= 0;
    }
  }
  int still = 0; /* the first lengths, asked again after all the others */
  for (int prec = 0; prec < 2; prec++) {
    const int L = prec == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
    still += hy_cpu_rows_decided(prec ? HYFFT_F64 : HYFFT_F32, L * 5) >= 0;
  }
  CHECK(decided == planned && still == 2,
        "timed row paths: %d of %d lengths decided, %d of the 2 first ones still known", decided,
        planned, still);
}

/* A run of one transform of a long length with no row plan (20250 =
 * 2 * 3^4 * 5^3, LANES divides it in neither precision: the convolution
 * of a Bluestein transform of 10007 points, one transform at a time)
 * splits four-step, past the L2 rule too: one gathered lane group would
 * compute LANES - 1 empty lanes (the node timed in full lane groups
 * said otherwise on some machines, and 10007 x 512 ran 6x slower). */
static void test_single_long_split(void) {
  static const int factors[] = {2, 3, 3, 3, 3, 5, 5, 5};
  for (int prec = 0; prec < 2; prec++) {
    hy_cpu_node *node = NULL;
    CHECK_OK(hy_cpu_node_build(prec ? HYFFT_F64 : HYFFT_F32, -1, 20250, HY_ALGO_MIXED_RADIX,
                               factors, 8, 0, 0, 1, &node));
    CHECK(node && node->kind == HY_CPU_LARGE,
          "%s 20250, runs of one transform: kind %d, not the four-step split",
          prec ? "f64" : "f32", node ? (int)node->kind : -1);
    hy_cpu_node_free(node);
  }
}

/* Batches of a long convolution whose length has no row path (Rader of
 * 20011: m = 20010 = 2 * 3 * 5 * 23 * 29) run in lane groups of m
 * (conv_wide 0): one at a time, each convolution transform would be the
 * four-step split of a single transform, 1.5-1.9x slower here. Where m
 * has a row path (Bluestein of 65537: m = 2^17) they run one at a time
 * (conv_wide 1). Then batches of 20011 points through the lane groups
 * against the reference, both precisions and directions. The CPU's
 * Bluestein lengths have a row path (hy_bluestein_cpu_length: 2^a 3^b
 * 5^c with a >= 3, at least 2n - 2; 10007 takes 20480, where the plain
 * choice is 20250). */
static void test_conv_lanes(void) {
  static const int f20010[] = {2, 3, 5, 23, 29}, f2_17[] = {16, 16, 16, 16, 2};
  for (int prec = 0; prec < 2; prec++) {
    const hyfft_precision p = prec ? HYFFT_F64 : HYFFT_F32;
    hy_cpu_node *a = NULL, *b = NULL;
    CHECK_OK(hy_cpu_node_build(p, -1, 20011, HY_ALGO_RADER, f20010, 5, 20010, 0, 0, &a));
    CHECK_OK(hy_cpu_node_build(p, -1, 65537, HY_ALGO_BLUESTEIN, f2_17, 5, 131072, 0, 0, &b));
    CHECK(a && b && a->conv_wide == 0 && b->conv_wide == 1,
          "%s: Rader 20011 (m 20010) conv_wide %d, want 0; Bluestein 65537 (m 2^17) %d, want 1",
          prec ? "f64" : "f32", a ? a->conv_wide : -1, b ? b->conv_wide : -1);
    hy_cpu_node_free(a);
    hy_cpu_node_free(b);
  }
  test_1d(20011, 17, HYFFT_F32, -1, 0, 0);
  test_1d(20011, 9, HYFFT_F64, 1, 1, 0.5);
  CHECK(hy_bluestein_cpu_length(10007) == 20480, "CPU Bluestein length of 10007: %lld, want 20480",
        (long long)hy_bluestein_cpu_length(10007));
  static const int64_t ns[] = {3, 5, 17, 257, 1031, 4099, 10007, 30011, 100003, 1000003};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    const int64_t m = hy_bluestein_cpu_length(ns[i]);
    int64_t r = m;
    for (int q = 2; q <= 5; q++)
      while (r % q == 0) r /= q;
    CHECK(m >= 2 * ns[i] - 2 && m % 8 == 0 && r == 1 &&
              m <= 2 * hy_bluestein_length(ns[i]),
          "CPU Bluestein length of %lld: %lld (not 5-smooth, not a multiple of 8, or out of range)",
          (long long)ns[i], (long long)m);
  }
}

/* One transform by itself at strides (input stride is, output stride os,
 * in place when both are the same buffer), scaled: the single-transform
 * kernels of the short lengths (hy_single_pick) against the long double
 * reference, every other output element left as it was. */
static void test_single(int64_t n, hyfft_precision prec, int sign, int64_t is, int64_t os,
                        int inplace) {
  const size_t esz = prec == HYFFT_F64 ? 16 : 8;
  char tok[128];
  snprintf(tok, sizeof tok, "c2c:%s:%s:%lld:is=%lld:os=%lld:scale=1/N%s",
           prec == HYFFT_F64 ? "f64" : "f32", sign < 0 ? "fwd" : "bwd", (long long)n,
           (long long)is, (long long)os, inplace ? ":ip" : "");
  hyfft_context ctx;
  hyfft_plan plan;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  CHECK_OK(hyfft_plan_token(ctx, tok, HYFFT_ESTIMATE, &plan));
  const int64_t span = n * (is > os ? is : os);
  char *in = malloc(esz * (size_t)span), *out = inplace ? in : malloc(esz * (size_t)span);
  long double x[2 * 64], y[2 * 64], r[2 * 64];
  random_input(x, n, prec);
  poison(in, esz * (size_t)span);
  if (!inplace) poison(out, esz * (size_t)span);
  for (int64_t i = 0; i < n; i++) store(in, prec, i * is, x[2 * i], x[2 * i + 1]);
  CHECK_OK(hyfft_execute(plan, in, out));
  for (int64_t i = 0; i < n; i++) load(out, prec, i * os, &y[2 * i], &y[2 * i + 1]);
  int dims[1] = {(int)n};
  ref_dft(x, r, 1, dims, sign);
  for (int64_t i = 0; i < 2 * n; i++) r[i] /= (long double)n;
  check_errors(tok, prec, n, n, compare(y, r, n));
  /* Out of place, the gaps between output elements stay poisoned. */
  int gaps_kept = 1;
  for (int64_t i = 0; i < span && !inplace; i++) {
    if (i % os == 0 && i / os < n) continue;
    long double re, im;
    load(out, prec, i, &re, &im);
    if (re == re || im == im) gaps_kept = 0;
  }
  CHECK(gaps_kept, "%s: an output gap was written", tok);
  if (out != in) free(out);
  free(in);
  CHECK_OK(hyfft_plan_destroy(plan));
  CHECK_OK(hyfft_context_destroy(ctx));
}

static void test_device(void) {
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  hyfft_device_info info;
  CHECK_OK(hyfft_context_device(ctx, &info));
  CHECK(info.backend == HYFFT_BACKEND_CPU, "backend %d", (int)info.backend);
  CHECK(strcmp(info.spec, "cpu") == 0, "spec '%s'", info.spec);
  CHECK(info.name[0] != '\0', "empty device name");
  CHECK(info.compute_units >= 1, "compute units %d", info.compute_units);
  CHECK(info.supports_f64 == 1 && info.is_gpu == 0, "f64 %d gpu %d", info.supports_f64, info.is_gpu);
  void *buf;
  CHECK_OK(hyfft_buffer_alloc(ctx, 64, &buf));
  char msg[16] = "hello cpu", back[16] = {0};
  CHECK_OK(hyfft_buffer_write(ctx, buf, 8, msg, sizeof msg));
  CHECK_OK(hyfft_buffer_read(ctx, buf, 8, back, sizeof back));
  CHECK(memcmp(msg, back, sizeof msg) == 0, "buffer round trip");
  CHECK_OK(hyfft_buffer_free(ctx, buf));
  CHECK_OK(hyfft_context_destroy(ctx));
}

int main(void) {
  const char *s = getenv("HYFFT_TEST_SEED");
  uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) * 2654435761u + 1;
  if (seed == 0) seed = 1;
  verbose = getenv("HYFFT_TEST_VERBOSE") != NULL;
  rng_state = seed;
  printf("seed %llu (HYFFT_TEST_SEED)\n", (unsigned long long)seed);
  test_device();
  for (int prec = 0; prec < 2; prec++)
    for (int sign = -1; sign <= 1; sign += 2)
      for (int64_t n = 1; n <= 300; n++) test_1d(n, n % 3 == 0 ? 3 : 1, (hyfft_precision)prec, sign, 0, 0);
  static const int64_t sizes[] = {512, 1000, 1024, 1009, 2048, 4096, 4099, 8192, 7429, 15015,
                                  65536, 65537, 1 << 20};
  for (int prec = 0; prec < 2; prec++)
    for (int sign = -1; sign <= 1; sign += 2)
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] > 100000 && (prec == 1 || sign > 0)) continue;
        test_1d(sizes[i], sizes[i] <= 1024 ? 5 : 1, (hyfft_precision)prec, sign, 0, 0);
      }
  /* Short transforms stored back to back, batches of full lane groups
   * and a partial last group (37 = 4*8 + 5 f32 lanes, 9*4 + 1 f64): the
   * block gather (one vector copy per group, then tiles) and the n < LANES
   * row tiles; in place and out of place, scaled. */
  static const int64_t shorts[] = {2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 32, 60, 64, 100, 128, 129};
  for (int prec = 0; prec < 2; prec++)
    for (int sign = -1; sign <= 1; sign += 2)
      for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++)
        for (int ip = 0; ip < 2; ip++)
          test_1d(shorts[i], 37, (hyfft_precision)prec, sign, ip, ip ? 0.5 : 0);
  /* Full lane groups of rows shorter than LANES^3, and of rows whose
   * last group of LANES outputs is partial (LANES does not divide
   * n / LANES: f32 120 ... 1000, f64 24 ... 1000), take the row path or
   * the lane groups as measured per machine (hy_cpu_rows_pay); both
   * forced in turn, batched with a partial last group, in place and out
   * of place, against the reference. */
  static const int64_t band[2][9] = {{64, 128, 192, 256, 448, 120, 200, 360, 1000},
                                     {16, 32, 48, 24, 40, 600, 1000, 0, 0}};
  for (int rows = 0; rows < 2; rows++) {
    setenv("HYFFT_CPU_ROWS", rows ? "1" : "0", 1);
    hy_settings_reload();
    for (int prec = 0; prec < 2; prec++)
      for (int i = 0; i < 9 && band[prec][i]; i++)
        for (int ip = 0; ip < 2; ip++)
          test_1d(band[prec][i], 37, (hyfft_precision)prec, ip ? 1 : -1, ip, ip ? 0.5 : 0);
  }
  unsetenv("HYFFT_CPU_ROWS");
  hy_settings_reload();
  /* Single transforms of the lengths with a single-transform kernel (and
   * 17, 64 around them), at strides, in place, scaled. */
  static const int64_t singles[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 32, 64};
  for (int prec = 0; prec < 2; prec++)
    for (int sign = -1; sign <= 1; sign += 2)
      for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++) {
        test_single(singles[i], (hyfft_precision)prec, sign, 3, 2, 0);
        test_single(singles[i], (hyfft_precision)prec, sign, 2, 2, 1);
      }
  /* in place, scaled, batched */
  test_1d(64, 37, HYFFT_F32, -1, 1, 1.0 / 64);
  test_1d(1000, 3, HYFFT_F64, 1, 1, 0.25);
  test_1d(16384, 2, HYFFT_F32, -1, 1, 0);
  /* Past any L2's gathered group: four-step with mixed radices. */
  test_1d(45045, 2, HYFFT_F32, 1, 0, 0);
  test_1d(45045, 1, HYFFT_F64, -1, 1, 0);
  test_1d(4099, 2, HYFFT_F64, -1, 1, 0);
  /* in place = out of place, bit for bit */
  for (int prec = 0; prec < 2; prec++)
    for (int sign = -1; sign <= 1; sign += 2) {
      const hyfft_precision pc = (hyfft_precision)prec;
      const int64_t n4096[1] = {4096}, n65536[1] = {65536}, n20[1] = {1 << 20};
      const int64_t n8192[1] = {8192}, n4099[1] = {4099}, n1000[1] = {1000}, n1009[1] = {1009};
      const int64_t d64x48[2] = {64, 48}, d256[2] = {256, 256}, d3[3] = {12, 10, 14},
                    d32[3] = {32, 32, 32};
      test_inplace_equal(1, n4096, 19, 1, 0, pc, sign);
      test_inplace_equal(1, n4096, 5, 3, 7, pc, sign);
      test_inplace_equal(1, n65536, 3, 1, 0, pc, sign);
      test_inplace_equal(1, n65536, 2, 2, 5, pc, sign);
      test_inplace_equal(1, n8192, 3, 1, 0, pc, sign);
      /* 8192 points split four-step (n1 != n2) and as one gathered
       * transform, whichever the machine's L2 picks (hy_cpu_direct_max):
       * both paths on every machine. */
      setenv("HYFFT_CPU_DIRECT_MAX", "4096", 1);
      hy_settings_reload();
      test_inplace_equal(1, n8192, 3, 1, 0, pc, sign);
      setenv("HYFFT_CPU_DIRECT_MAX", "16384", 1);
      hy_settings_reload();
      test_inplace_equal(1, n8192, 3, 1, 0, pc, sign);
      unsetenv("HYFFT_CPU_DIRECT_MAX");
      hy_settings_reload();
      test_inplace_equal(1, n1000, 9, 2, 3, pc, sign);
      test_inplace_equal(1, n4099, 3, 1, 0, pc, sign);
      test_inplace_equal(1, n1009, 10, 1, 0, pc, sign);
      test_inplace_equal(2, d64x48, 3, 1, 0, pc, sign);
      test_inplace_equal(2, d256, 2, 2, 1, pc, sign);
      test_inplace_equal(3, d3, 2, 1, 0, pc, sign);
      test_inplace_equal(3, d32, 2, 3, 0, pc, sign);
      if (sign < 0) test_inplace_equal(1, n20, 1, 1, 0, pc, sign);
    }
  static const int d2[][3] = {{64, 48, 0}, {17, 128, 0}, {256, 257, 0}, {12, 10, 14}, {37, 8, 33}};
  for (int prec = 0; prec < 2; prec++) {
    test_nd(2, d2[0], (hyfft_precision)prec, -1, 0);
    test_nd(2, d2[1], (hyfft_precision)prec, 1, 1);
    test_nd(2, d2[2], (hyfft_precision)prec, -1, 0);
    test_nd(3, d2[3], (hyfft_precision)prec, 1, 0);
    test_nd(3, d2[4], (hyfft_precision)prec, -1, 1);
  }
  /* The outer axis of 20 x 64 x 160 has a stride of 80 (f64: 160) KiB and
   * an innermost loop of 160 neighbouring transforms: with the L2 taken as
   * 64 KiB (its rows span 1.6-3.2 MiB, a block of 20 rows of 1 KiB fits
   * half of it) its pass goes through the column blocks (hy_col_blocks),
   * full ones and a shorter last one per row of the loop (128 + 32 f32
   * columns, 64 + 64 + 32 f64); in place and out of place, both
   * directions, also with non-temporal stores forced (the blocks' copy
   * out streams). With the machine's L2 (2 MiB here) f32 reads the
   * columns in place. The outer axes of 40 x 64 x 128 and 100 x 4 x 96
   * take narrower blocks with that L2 (rows of 512 and 256 bytes,
   * hy_col_row_bytes). */
  static const int dcol[3][3] = {{20, 64, 160}, {40, 64, 128}, {100, 4, 96}};
  for (int variant = 0; variant < 3; variant++) {
    if (variant > 0) setenv("HYFFT_CPU_LOCAL", "64K", 1);
    if (variant > 1) setenv("HYFFT_CPU_STREAM", "1", 1); /* blocks copied out by streaming */
    hy_settings_reload();
    for (int shape = 0; shape < 3; shape++)
      for (int prec = 0; prec < 2; prec++)
        for (int ip = 0; ip < 2; ip++)
          test_nd(3, dcol[shape], (hyfft_precision)prec, ip ? 1 : -1, ip);
    unsetenv("HYFFT_CPU_LOCAL");
    unsetenv("HYFFT_CPU_STREAM");
    hy_settings_reload();
  }
  for (int prec = 0; prec < 2; prec++)
    for (int sign = -1; sign <= 1; sign += 2) {
      test_pass_direct(60, HY_ALGO_MIXED_RADIX, (hyfft_precision)prec, sign);
      test_pass_direct(17 * 23, HY_ALGO_MIXED_RADIX, (hyfft_precision)prec, sign);
      test_pass_direct(8192, HY_ALGO_MIXED_RADIX, (hyfft_precision)prec, sign);
      test_pass_direct(37, HY_ALGO_BLUESTEIN, (hyfft_precision)prec, sign);
    }
  test_short_same_bits(HYFFT_F32);
  test_short_same_bits(HYFFT_F64);
  test_threads(1024, 64, HYFFT_F32);
  test_threads(65536, 1, HYFFT_F64);
  test_threads(4099, 5, HYFFT_F32);
  printf("worst rms / (u sqrt(log2 N)): f32 smooth %.2f other %.2f; f64 smooth %.2f other %.2f\n",
         worst_smooth[0], worst_other[0], worst_smooth[1], worst_other[1]);
  test_stream_same_bits(HYFFT_F32);
  test_stream_same_bits(HYFFT_F64);
  test_rows_remembered();
  test_single_long_split();
  test_conv_lanes();
  return hy_test_summary();
}
