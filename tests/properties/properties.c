/* hyfft_properties: checks that need no reference transform (FFTW's own
 * method): linearity, impulse responses, the time-shift theorem, the
 * forward+backward round trip, an unchanged out-of-place input, untouched
 * gaps between strided outputs, hyfft_execute_async with a caller workspace
 * matching hyfft_execute bit for bit, and one plan executed from 4 threads
 * at once giving bit-identical results to serial runs.
 *
 * R2C and C2R problems get the checks that hold for real data: the round
 * trip C2R(R2C(x)) = N x (through the problem and its partner of the other
 * kind with the layouts swapped), C2R of a spectrum that is not Hermitian
 * (rank 1: the result must be FFTW's, as if the self-conjugate bins had no
 * imaginary part), the unchanged out-of-place input, untouched gaps, the
 * caller workspace and the threads.
 *
 *   hyfft_properties [--device SPEC] [--level quick|standard|full] [--seed S]
 *                    [--device-buffers] [--verbose] [TOKEN...]
 * Tokens are C2C, R2C or C2R problems. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"

#define NTHREADS 4
#define THREAD_REPEATS 3
static const long double two_pi = 6.283185307179586476925286766559005768L;

static const char *const matrix_quick[] = {
    "c2c:f32:fwd:1024",       "c2c:f64:bwd:1024",       "c2c:f32:bwd:1000",
    "c2c:f64:fwd:243",        "c2c:f32:fwd:1009",       "c2c:f64:bwd:4099",
    "c2c:f32:fwd:13",         "c2c:f64:bwd:2",          "c2c:f32:fwd:1",
    "c2c:f64:fwd:32x32",      "c2c:f32:bwd:17x31",      "c2c:f64:fwd:7x9x11",
    "c2c:f32:fwd:5x1x3",      "c2c:f64:fwd:64:b8",      "c2c:f32:bwd:17:b3x5",
    "c2c:f64:fwd:100:b3:is=2:os=3:idist=211:odist=307",
    "c2c:f32:bwd:64:b8:is=8:os=8:idist=1:odist=1",
    "c2c:f64:bwd:17x31:is=40,1:os=1,17",
    "c2c:f32:fwd:1024:ip",    "c2c:f64:bwd:17x31:ip",   "c2c:f32:fwd:128:b4:ip:is=2:os=2:idist=300:odist=300",
    "c2c:f64:fwd:1024:scale=1/N", "c2c:f32:bwd:1009:scale=0.5",
    "c2c:f64:fwd:256:b2:dev",
    "r2c:f32:1024",           "c2r:f64:1024",           "r2c:f64:1000:b3",
    "c2r:f32:1001:b3",        "r2c:f32:127",            "c2r:f64:13",
    "r2c:f64:2",              "c2r:f32:1",              "r2c:f32:17x31",
    "c2r:f64:16x18",          "r2c:f64:6x7x9:b2",       "c2r:f32:5x4x8",
    "r2c:f32:64:b4:ip",       "c2r:f64:17x31:ip",       "c2r:f32:33:b3:ip",
    "r2c:f64:10:b3:is=3:os=2:idist=40:odist=17",
    "c2r:f32:10:b3:is=2:os=3:idist=17:odist=40",
    "c2r:f64:9:b2:os=2:odist=19", "r2c:f32:8x6:is=13,2:os=5,1",
    "c2r:f64:1000:scale=1/N", "r2c:f32:97:b2:scale=0.5",
};

static const char *const matrix_standard[] = {
    "c2c:f32:fwd:65536",      "c2c:f64:bwd:1048576",    "c2c:f64:fwd:65537",
    "c2c:f32:bwd:15015",      "c2c:f64:fwd:2187",       "c2c:f32:fwd:64x64x64",
    "c2c:f64:bwd:256x1009",   "c2c:f32:fwd:16:b65537",  "c2c:f64:bwd:4099:b3",
    "c2c:f32:fwd:65536:ip",
    "r2c:f64:65537",          "c2r:f32:65536:b2",       "r2c:f32:64x64x64",
    "c2r:f64:100x1009",
};

static const char *const matrix_full[] = {
    "c2c:f32:fwd:4194304", "c2c:f64:bwd:1048573", "c2c:f64:fwd:1024x1024", "c2c:f32:bwd:100x100x100",
};

typedef struct case_ctx {
  const char *token;
  const hyt_options *opt;
  hyt_device *dev;
  hyt_layout lay;
  hyfft_plan plan;
  hyt_buffers bufs;
  int64_t gaps, input_changed; /* summed over every run of the case */
  int failed_call;
} case_ctx;

static unsigned long long seed_of(const case_ctx *c) { return (unsigned long long)c->opt->seed; }

/* One transform of logical x into logical y through the case's plan. */
static int fft(case_ctx *c, hyfft_plan plan, hyt_buffers *b, const hyt_cvec *x, hyt_cvec *y) {
  hyt_run_result res;
  if (hyt_run(plan, b, x, y, &res)) {
    hy_test_fail("%s seed=%llu: %s", c->token, seed_of(c), res.message);
    c->failed_call = 1;
    return 1;
  }
  c->gaps += res.gaps_touched;
  c->input_changed += res.input_changed;
  return 0;
}

static void judge(case_ctx *c, const char *what, const hyt_cvec *got, const hyt_cvec *want) {
  hyt_errors e = hyt_compare(&c->lay, got, want);
  if (e.pass) hy_test_pass();
  else
    hy_test_fail("%s seed=%llu: %s: rms %.3g (gate %.3g) max %.3g (gate %.3g)", c->token,
                 seed_of(c), what, e.rms, e.rms_gate, e.max, e.max_gate);
  if (c->opt->verbose)
    printf("  %-4s %-12s rms %.3e max %.3e (gates %.3e, %.3e)\n", e.pass ? "ok" : "FAIL", what,
           e.rms, e.max, e.rms_gate, e.max_gate);
}

static long double scale_of(const hyfft_problem *p) {
  return p->scale == 0 ? 1.0L : (long double)p->scale;
}

/* Multi-index of element r within one transform (row major). */
static void unravel(const hyfft_problem *p, int64_t r, int64_t *idx) {
  for (int d = p->rank - 1; d >= 0; d--) {
    idx[d] = r % p->dims[d].n;
    r /= p->dims[d].n;
  }
}

/* exp(sign * 2 pi i * frac) with frac reduced exactly from integers. */
static void phase(int sign, long double frac, long double *re, long double *im) {
  frac -= floorl(frac);
  *re = cosl(two_pi * frac);
  *im = (long double)sign * sinl(two_pi * frac);
}

static void random_vec(const hyt_layout *lay, hyt_rng *rng, hyt_cvec *x) {
  for (int64_t i = 0; i < 2 * x->n; i++) x->v[i] = hyt_rng_uniform(rng);
  hyt_cvec_round(lay, x);
}

/* ---- the properties ---------------------------------------------------- */

static void check_linearity(case_ctx *c, hyt_rng *rng) {
  const hyt_layout *lay = &c->lay;
  hyt_cvec x, y, z, fx = {0, NULL}, fy = {0, NULL}, fz = {0, NULL}, want;
  if (hyt_cvec_alloc(&x, lay->count_in) || hyt_cvec_alloc(&y, lay->count_in) ||
      hyt_cvec_alloc(&z, lay->count_in) || hyt_cvec_alloc(&want, lay->count_out))
    exit(2);
  random_vec(lay, rng, &x);
  random_vec(lay, rng, &y);
  long double ar, ai, br, bi;
  do {
    ar = hyt_rng_uniform(rng), ai = hyt_rng_uniform(rng);
  } while (ar * ar + ai * ai < 0.0625L);
  do {
    br = hyt_rng_uniform(rng), bi = hyt_rng_uniform(rng);
  } while (br * br + bi * bi < 0.0625L);
  for (int64_t i = 0; i < x.n; i++) {
    long double xr = x.v[2 * i], xi = x.v[2 * i + 1], yr = y.v[2 * i], yi = y.v[2 * i + 1];
    z.v[2 * i] = ar * xr - ai * xi + br * yr - bi * yi;
    z.v[2 * i + 1] = ar * xi + ai * xr + br * yi + bi * yr;
  }
  hyt_cvec_round(lay, &z);
  if (!fft(c, c->plan, &c->bufs, &x, &fx) && !fft(c, c->plan, &c->bufs, &y, &fy) &&
      !fft(c, c->plan, &c->bufs, &z, &fz)) {
    for (int64_t i = 0; i < want.n; i++) {
      long double xr = fx.v[2 * i], xi = fx.v[2 * i + 1], yr = fy.v[2 * i], yi = fy.v[2 * i + 1];
      want.v[2 * i] = ar * xr - ai * xi + br * yr - bi * yi;
      want.v[2 * i + 1] = ar * xi + ai * xr + br * yi + bi * yr;
    }
    judge(c, "linearity", &fz, &want);
  }
  hyt_cvec_free(&x), hyt_cvec_free(&y), hyt_cvec_free(&z);
  hyt_cvec_free(&fx), hyt_cvec_free(&fy), hyt_cvec_free(&fz), hyt_cvec_free(&want);
}

/* A delta at multi-index j in every transform of the batch gives the row
 * exp(sign 2 pi i sum_d j_d k_d / n_d) (all ones for j = 0), times scale. */
static void check_impulse(case_ctx *c, const int64_t *j, const char *what) {
  const hyt_layout *lay = &c->lay;
  const hyfft_problem *p = &lay->prob;
  hyt_cvec x, fx = {0, NULL}, want;
  if (hyt_cvec_alloc(&x, lay->count_in) || hyt_cvec_alloc(&want, lay->count_out)) exit(2);
  int64_t per = lay->n_total, jr = 0;
  for (int d = 0; d < p->rank; d++) jr = jr * p->dims[d].n + j[d];
  for (int64_t b = 0; b < lay->batch_total; b++) x.v[2 * (b * per + jr)] = 1;
  long double s = scale_of(p);
  int64_t k[HYFFT_MAX_RANK];
  for (int64_t e = 0; e < lay->count_out; e++) {
    unravel(p, e % per, k);
    long double frac = 0, re, im;
    for (int d = 0; d < p->rank; d++)
      frac += (long double)((j[d] * k[d]) % p->dims[d].n) / (long double)p->dims[d].n;
    phase(p->sign, frac, &re, &im);
    want.v[2 * e] = s * re;
    want.v[2 * e + 1] = s * im;
  }
  if (!fft(c, c->plan, &c->bufs, &x, &fx)) judge(c, what, &fx, &want);
  hyt_cvec_free(&x), hyt_cvec_free(&fx), hyt_cvec_free(&want);
}

/* Cyclic shift by `shift` along transform axis `axis`: the output is
 * multiplied by exp(sign 2 pi i shift k_axis / n_axis). */
static void check_shift(case_ctx *c, hyt_rng *rng, int axis, int64_t shift, const char *what) {
  const hyt_layout *lay = &c->lay;
  const hyfft_problem *p = &lay->prob;
  hyt_cvec x, xs, fx = {0, NULL}, fs = {0, NULL}, want;
  if (hyt_cvec_alloc(&x, lay->count_in) || hyt_cvec_alloc(&xs, lay->count_in) ||
      hyt_cvec_alloc(&want, lay->count_out))
    exit(2);
  random_vec(lay, rng, &x);
  int64_t per = lay->n_total, n = p->dims[axis].n, inner = 1;
  for (int d = axis + 1; d < p->rank; d++) inner *= p->dims[d].n;
  int64_t idx[HYFFT_MAX_RANK];
  for (int64_t e = 0; e < lay->count_in; e++) {
    unravel(p, e % per, idx);
    /* xs[.., m, ..] = x[.., (m - shift) mod n, ..] */
    int64_t from_m = ((idx[axis] - shift) % n + n) % n;
    int64_t from = e + (from_m - idx[axis]) * inner;
    xs.v[2 * e] = x.v[2 * from];
    xs.v[2 * e + 1] = x.v[2 * from + 1];
  }
  if (!fft(c, c->plan, &c->bufs, &x, &fx) && !fft(c, c->plan, &c->bufs, &xs, &fs)) {
    for (int64_t e = 0; e < lay->count_out; e++) {
      unravel(p, e % per, idx);
      long double re, im;
      phase(p->sign, (long double)((shift * idx[axis]) % n) / (long double)n, &re, &im);
      long double a = fx.v[2 * e], b = fx.v[2 * e + 1];
      want.v[2 * e] = a * re - b * im;
      want.v[2 * e + 1] = a * im + b * re;
    }
    judge(c, what, &fs, &want);
  }
  hyt_cvec_free(&x), hyt_cvec_free(&xs), hyt_cvec_free(&fx), hyt_cvec_free(&fs);
  hyt_cvec_free(&want);
}

/* Forward then the opposite sign with input and output layouts swapped:
 * N * scale^2 * x. */
static void check_round_trip(case_ctx *c, hyt_rng *rng) {
  const hyt_layout *lay = &c->lay;
  hyfft_problem back = lay->prob;
  back.sign = -back.sign;
  for (int d = 0; d < back.rank; d++) {
    int64_t t = back.dims[d].in_stride;
    back.dims[d].in_stride = back.dims[d].out_stride;
    back.dims[d].out_stride = t;
  }
  for (int d = 0; d < back.batch_rank; d++) {
    int64_t t = back.batch[d].in_stride;
    back.batch[d].in_stride = back.batch[d].out_stride;
    back.batch[d].out_stride = t;
  }
  char why[256];
  hyt_layout blay;
  if (hyt_layout_make(&back, &blay, why, sizeof why)) {
    hy_test_fail("%s seed=%llu: round trip: %s", c->token, seed_of(c), why);
    return;
  }
  hyfft_plan bplan = NULL;
  hyt_buffers bb;
  memset(&bb, 0, sizeof bb);
  hyt_cvec x, fx = {0, NULL}, bx = {0, NULL}, want;
  if (hyt_cvec_alloc(&x, lay->count_in) || hyt_cvec_alloc(&want, lay->count_in)) exit(2);
  hyfft_status st = hyt_plan(c->dev, &back, &bplan);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("%s seed=%llu: round trip: planning the backward problem: %s (%s)", c->token,
                 seed_of(c), hyfft_status_name(st), hyfft_last_error());
    goto done;
  }
  if (hyt_buffers_alloc(&blay, c->dev, &bb)) {
    hy_test_fail("%s seed=%llu: round trip: cannot allocate buffers", c->token, seed_of(c));
    goto done;
  }
  random_vec(lay, rng, &x);
  if (!fft(c, c->plan, &c->bufs, &x, &fx) && !fft(c, bplan, &bb, &fx, &bx)) {
    long double s = scale_of(&lay->prob), f = (long double)lay->n_total * s * s;
    for (int64_t i = 0; i < 2 * x.n; i++) want.v[i] = f * x.v[i];
    judge(c, "round trip", &bx, &want);
  }
done:
  if (bplan) hyfft_plan_destroy(bplan);
  hyt_buffers_free(&bb);
  hyt_layout_free(&blay);
  hyt_cvec_free(&x), hyt_cvec_free(&fx), hyt_cvec_free(&bx), hyt_cvec_free(&want);
}

/* The partner of a real problem: the other kind, the other sign, the
 * layouts swapped. */
static hyfft_problem real_partner(const hyfft_problem *p) {
  hyfft_problem q = *p;
  q.kind = p->kind == HYFFT_R2C ? HYFFT_C2R : HYFFT_R2C;
  q.sign = -p->sign;
  for (int d = 0; d < q.rank; d++) {
    q.dims[d].in_stride = p->dims[d].out_stride;
    q.dims[d].out_stride = p->dims[d].in_stride;
  }
  for (int d = 0; d < q.batch_rank; d++) {
    q.batch[d].in_stride = p->batch[d].out_stride;
    q.batch[d].out_stride = p->batch[d].in_stride;
  }
  return q;
}

/* C2R(R2C(x)) = N * scale^2 * x for real x, the case's plan on one side and
 * its partner's on the other. */
static void check_real_round_trip(case_ctx *c, hyt_rng *rng) {
  const hyfft_problem *p = &c->lay.prob;
  hyfft_problem q = real_partner(p);
  char why[256];
  hyt_layout qlay;
  if (hyt_layout_make(&q, &qlay, why, sizeof why)) {
    hy_test_fail("%s seed=%llu: real round trip: %s", c->token, seed_of(c), why);
    return;
  }
  int r2c_case = p->kind == HYFFT_R2C;
  const hyt_layout *flay = r2c_case ? &c->lay : &qlay, *blay = r2c_case ? &qlay : &c->lay;
  hyfft_plan qplan = NULL;
  hyt_buffers qb;
  memset(&qb, 0, sizeof qb);
  hyt_cvec x, fx = {0, NULL}, bx = {0, NULL}, want;
  if (hyt_cvec_alloc(&x, flay->count_in) || hyt_cvec_alloc(&want, flay->count_in)) exit(2);
  hyfft_status st = hyt_plan(c->dev, &q, &qplan);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("%s seed=%llu: real round trip: planning the partner: %s (%s)", c->token,
                 seed_of(c), hyfft_status_name(st), hyfft_last_error());
    goto done;
  }
  if (hyt_buffers_alloc(&qlay, c->dev, &qb)) {
    hy_test_fail("%s seed=%llu: real round trip: cannot allocate buffers", c->token, seed_of(c));
    goto done;
  }
  random_vec(flay, rng, &x);
  for (int64_t i = 0; i < x.n; i++) x.v[2 * i + 1] = 0;
  hyfft_plan fplan = r2c_case ? c->plan : qplan, bplan = r2c_case ? qplan : c->plan;
  hyt_buffers *fb = r2c_case ? &c->bufs : &qb, *bb = r2c_case ? &qb : &c->bufs;
  if (!fft(c, fplan, fb, &x, &fx) && !fft(c, bplan, bb, &fx, &bx)) {
    long double s = scale_of(p), f = (long double)flay->n_total * s * s;
    for (int64_t i = 0; i < 2 * x.n; i++) want.v[i] = f * x.v[i];
    hyt_errors e = hyt_compare(blay, &bx, &want);
    if (e.pass) hy_test_pass();
    else
      hy_test_fail("%s seed=%llu: real round trip: rms %.3g (gate %.3g) max %.3g (gate %.3g)",
                   c->token, seed_of(c), e.rms, e.rms_gate, e.max, e.max_gate);
    if (c->opt->verbose)
      printf("  %-4s %-12s rms %.3e max %.3e (gates %.3e, %.3e)\n", e.pass ? "ok" : "FAIL",
             "round trip", e.rms, e.max, e.rms_gate, e.max_gate);
  }
done:
  if (qplan) hyfft_plan_destroy(qplan);
  hyt_buffers_free(&qb);
  hyt_layout_free(&qlay);
  hyt_cvec_free(&x), hyt_cvec_free(&fx), hyt_cvec_free(&bx), hyt_cvec_free(&want);
}

/* C2R of a half spectrum that is not Hermitian (rank 1): FFTW's result,
 * as if the imaginary parts of X_0 and X_n/2 (n even) were 0:
 * x_j = Re X_0 + (-1)^j Re X_n/2 + 2 sum_{0<k<n/2} Re(X_k exp(2 pi i jk/n)),
 * times scale, summed directly in long double. */
static void check_c2r_not_hermitian(case_ctx *c, hyt_rng *rng) {
  const hyt_layout *lay = &c->lay;
  const hyfft_problem *p = &lay->prob;
  int64_t n = p->dims[0].n, h = n / 2 + 1;
  hyt_cvec x, y = {0, NULL}, want;
  if (hyt_cvec_alloc(&x, lay->count_in) || hyt_cvec_alloc(&want, lay->count_out)) exit(2);
  random_vec(lay, rng, &x); /* every imaginary part random, X_0's too */
  long double s = scale_of(p);
  for (int64_t b = 0; b < lay->batch_total; b++) {
    const long double *X = x.v + 2 * b * h;
    for (int64_t j = 0; j < n; j++) {
      long double sum = X[0];
      if (n % 2 == 0) sum += (j % 2 ? -1 : 1) * X[2 * (n / 2)];
      for (int64_t k = 1; 2 * k < n; k++) {
        long double re, im;
        phase(1, (long double)((j * k) % n) / (long double)n, &re, &im);
        sum += 2 * (X[2 * k] * re - X[2 * k + 1] * im);
      }
      want.v[2 * (b * n + j)] = s * sum;
    }
  }
  if (!fft(c, c->plan, &c->bufs, &x, &y)) judge(c, "not hermitian", &y, &want);
  hyt_cvec_free(&x), hyt_cvec_free(&y), hyt_cvec_free(&want);
}

/* ---- concurrent execution ------------------------------------------------ */

typedef struct thread_job {
  hyfft_plan plan;
  hyt_buffers *bufs;
  const hyt_cvec *x, *want;
  int64_t mismatches;
  int64_t gaps, input_changed;
  int failed;
  char message[512];
} thread_job;

static void *thread_main(void *arg) {
  thread_job *job = arg;
  hyt_cvec y = {0, NULL};
  for (int r = 0; r < THREAD_REPEATS && !job->failed; r++) {
    hyt_run_result res;
    if (hyt_run(job->plan, job->bufs, job->x, &y, &res)) {
      job->failed = 1;
      snprintf(job->message, sizeof job->message, "%s", res.message);
      break;
    }
    job->gaps += res.gaps_touched;
    job->input_changed += res.input_changed;
    for (int64_t i = 0; i < 2 * y.n; i++)
      if (y.v[i] != job->want->v[i]) job->mismatches++;
  }
  hyt_cvec_free(&y);
  return NULL;
}

static void check_threads(case_ctx *c, hyt_rng *rng) {
  const hyt_layout *lay = &c->lay;
  hyt_cvec x[NTHREADS], want[NTHREADS];
  hyt_buffers bufs[NTHREADS];
  thread_job jobs[NTHREADS];
  pthread_t th[NTHREADS];
  int started[NTHREADS] = {0};
  memset(bufs, 0, sizeof bufs);
  memset(jobs, 0, sizeof jobs);
  int ok = 1;
  for (int t = 0; t < NTHREADS; t++) {
    want[t].n = 0, want[t].v = NULL;
    if (hyt_cvec_alloc(&x[t], lay->count_in)) exit(2);
    random_vec(lay, rng, &x[t]);
  }
  /* Serial results first, through the case's buffers. */
  for (int t = 0; t < NTHREADS && ok; t++)
    if (fft(c, c->plan, &c->bufs, &x[t], &want[t])) ok = 0;
  for (int t = 0; t < NTHREADS && ok; t++) {
    if (hyt_buffers_alloc(lay, c->dev, &bufs[t])) {
      hy_test_fail("%s seed=%llu: threads: cannot allocate buffers", c->token, seed_of(c));
      ok = 0;
    }
    jobs[t].plan = c->plan;
    jobs[t].bufs = &bufs[t];
    jobs[t].x = &x[t];
    jobs[t].want = &want[t];
  }
  for (int t = 0; t < NTHREADS && ok; t++) {
    if (pthread_create(&th[t], NULL, thread_main, &jobs[t])) {
      hy_test_fail("%s: threads: pthread_create failed", c->token);
      ok = 0;
    } else {
      started[t] = 1;
    }
  }
  for (int t = 0; t < NTHREADS; t++)
    if (started[t]) pthread_join(th[t], NULL);
  if (ok) {
    int64_t mism = 0;
    for (int t = 0; t < NTHREADS; t++) {
      if (jobs[t].failed) {
        hy_test_fail("%s seed=%llu: threads: thread %d: %s", c->token, seed_of(c), t,
                     jobs[t].message);
        ok = 0;
      }
      mism += jobs[t].mismatches;
      c->gaps += jobs[t].gaps;
      c->input_changed += jobs[t].input_changed;
    }
    if (ok) {
      if (mism == 0) hy_test_pass();
      else
        hy_test_fail("%s seed=%llu: threads: %lld output values of %d concurrent runs differ "
                     "from the serial run of the same data",
                     c->token, seed_of(c), (long long)mism, NTHREADS * THREAD_REPEATS);
      if (c->opt->verbose) printf("  %-4s threads       %lld mismatches\n", mism ? "FAIL" : "ok", (long long)mism);
    }
  }
  for (int t = 0; t < NTHREADS; t++) {
    hyt_buffers_free(&bufs[t]);
    hyt_cvec_free(&x[t]);
    hyt_cvec_free(&want[t]);
  }
}

/* hyfft_execute_async on the context's queue, with a caller workspace of
 * hyfft_plan_workspace_size bytes when the plan needs one, must give the
 * same bits as hyfft_execute with the plan's own workspace. */
static void check_async_workspace(case_ctx *c, hyt_rng *rng) {
  const hyt_layout *lay = &c->lay;
  hyt_cvec x, want = {0, NULL}, got = {0, NULL};
  if (hyt_cvec_alloc(&x, lay->count_in)) exit(2);
  random_vec(lay, rng, &x);
  size_t ws = 0;
  void *work = NULL;
  hyfft_status st = hyfft_plan_workspace_size(c->plan, &ws);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("%s seed=%llu: hyfft_plan_workspace_size: %s (%s)", c->token, seed_of(c),
                 hyfft_status_name(st), hyfft_last_error());
    goto done;
  }
  if (ws > 0 && (st = hyfft_buffer_alloc(c->dev->ctx, ws, &work)) != HYFFT_SUCCESS) {
    hy_test_fail("%s seed=%llu: hyfft_buffer_alloc(workspace of %zu bytes): %s (%s)", c->token,
                 seed_of(c), ws, hyfft_status_name(st), hyfft_last_error());
    goto done;
  }
  if (fft(c, c->plan, &c->bufs, &x, &want)) goto done;
  c->bufs.use_async = 1;
  c->bufs.workspace = work;
  int failed = fft(c, c->plan, &c->bufs, &x, &got);
  c->bufs.use_async = 0;
  c->bufs.workspace = NULL;
  if (!failed) {
    int64_t mism = 0;
    for (int64_t i = 0; i < 2 * got.n; i++)
      if (got.v[i] != want.v[i]) mism++;
    if (mism == 0) hy_test_pass();
    else
      hy_test_fail("%s seed=%llu: async with a caller workspace of %zu bytes: %lld output values "
                   "differ from hyfft_execute",
                   c->token, seed_of(c), ws, (long long)mism);
    if (c->opt->verbose)
      printf("  %-4s async        workspace %zu bytes, %lld mismatches\n", mism ? "FAIL" : "ok",
             ws, (long long)mism);
  }
done:
  if (work) hyfft_buffer_free(c->dev->ctx, work);
  hyt_cvec_free(&x), hyt_cvec_free(&want), hyt_cvec_free(&got);
}

/* ---- one case ----------------------------------------------------------- */

static void run_case(hyt_device *dev, const hyt_options *opt, const char *token, long *skipped) {
  case_ctx c;
  memset(&c, 0, sizeof c);
  c.token = token;
  c.opt = opt;
  c.dev = dev;
  hyfft_problem prob;
  hyfft_status s = hyfft_problem_parse(token, &prob);
  if (s != HYFFT_SUCCESS) {
    hy_test_fail("%s seed=%llu: hyfft_problem_parse: %s (%s)", token, seed_of(&c),
                 hyfft_status_name(s), hyfft_last_error());
    return;
  }
  char why[256];
  if (hyt_layout_make(&prob, &c.lay, why, sizeof why)) {
    hy_test_fail("%s seed=%llu: %s", token, seed_of(&c), why);
    return;
  }
  if (c.lay.in_aliased) {
    /* Deltas, shifts and round trips assume distinct input elements. */
    printf("SKIP %s: input elements alias; the property checks need distinct ones\n", token);
    (*skipped)++;
    hyt_layout_free(&c.lay);
    return;
  }
  double t0 = hyt_now();
  if (opt->verbose) printf("%s\n", token);
  s = hyt_plan(dev, &prob, &c.plan);
  if (s != HYFFT_SUCCESS) {
    if (hyt_is_skip(dev, &prob, s)) {
      printf("SKIP %s: %s (%s)\n", token, hyfft_status_name(s), hyfft_last_error());
      (*skipped)++;
    } else {
      hy_test_fail("%s seed=%llu: hyfft_plan_create: %s (%s)", token, seed_of(&c),
                   hyfft_status_name(s), hyfft_last_error());
    }
    goto done;
  }
  if (hyt_buffers_alloc(&c.lay, dev, &c.bufs)) {
    hy_test_fail("%s seed=%llu: cannot allocate buffers", token, seed_of(&c));
    goto done;
  }
  hyt_rng rng;
  hyt_rng_seed_token(&rng, opt->seed, token);
  int64_t zero[HYFFT_MAX_RANK] = {0}, j[HYFFT_MAX_RANK];
  for (int d = 0; d < prob.rank; d++)
    j[d] = (int64_t)(hyt_rng_next(&rng) % (uint64_t)prob.dims[d].n);

  int real = prob.kind != HYFFT_C2C;
  if (real) {
    check_real_round_trip(&c, &rng);
    if (!c.failed_call && prob.kind == HYFFT_C2R && prob.rank == 1 &&
        prob.dims[0].n <= 4096 && c.lay.count_out <= 65536)
      check_c2r_not_hermitian(&c, &rng);
  } else {
    check_linearity(&c, &rng);
  }
  if (!c.failed_call && !real) check_impulse(&c, zero, "impulse 0");
  if (!c.failed_call && !real) check_impulse(&c, j, "impulse j");
  if (!c.failed_call && !real) {
    int last = prob.rank - 1;
    int64_t s1 = 1 + (int64_t)(hyt_rng_next(&rng) % (uint64_t)prob.dims[last].n);
    check_shift(&c, &rng, last, s1, "shift last");
    if (prob.rank > 1 && !c.failed_call) {
      int64_t s0 = 1 + (int64_t)(hyt_rng_next(&rng) % (uint64_t)prob.dims[0].n);
      check_shift(&c, &rng, 0, s0, "shift first");
    }
  }
  if (!c.failed_call && !real) check_round_trip(&c, &rng);
  if (!c.failed_call) check_async_workspace(&c, &rng);
  /* Four threads with their own buffers; bounded so a run stays short. */
  if (!c.failed_call && c.lay.count_in <= (INT64_C(1) << 20)) check_threads(&c, &rng);
  if (!c.failed_call) {
    if (c.gaps == 0) hy_test_pass();
    else
      hy_test_fail("%s seed=%llu: %lld gap elements between strided outputs were written",
                   token, seed_of(&c), (long long)c.gaps);
    if (!prob.inplace) {
      if (c.input_changed == 0) hy_test_pass();
      else
        hy_test_fail("%s seed=%llu: out-of-place input changed (%lld elements)", token,
                     seed_of(&c), (long long)c.input_changed);
    }
  }
  if (opt->verbose) printf("  %.3f s\n", hyt_now() - t0);
done:
  if (c.plan) hyfft_plan_destroy(c.plan);
  hyt_buffers_free(&c.bufs);
  hyt_layout_free(&c.lay);
}

int main(int argc, char **argv) {
  hyt_options opt;
  if (hyt_parse_args(argc, argv, NULL, &opt)) return 2;
  if (opt.list) {
    for (size_t i = 0; i < sizeof matrix_quick / sizeof *matrix_quick; i++) puts(matrix_quick[i]);
    if (opt.level >= HYT_STANDARD)
      for (size_t i = 0; i < sizeof matrix_standard / sizeof *matrix_standard; i++)
        puts(matrix_standard[i]);
    if (opt.level >= HYT_FULL)
      for (size_t i = 0; i < sizeof matrix_full / sizeof *matrix_full; i++) puts(matrix_full[i]);
    return 0;
  }
  hyt_device dev;
  if (hyt_device_open(&opt, &dev)) {
    hy_test_fail("device '%s' could not be opened", opt.device);
    return hy_test_summary();
  }
  long skipped = 0;
  double t0 = hyt_now();
  int ncases = 0;
  if (opt.ntokens) {
    for (int i = 0; i < opt.ntokens; i++, ncases++) run_case(&dev, &opt, opt.tokens[i], &skipped);
  } else {
    for (size_t i = 0; i < sizeof matrix_quick / sizeof *matrix_quick; i++, ncases++)
      run_case(&dev, &opt, matrix_quick[i], &skipped);
    if (opt.level >= HYT_STANDARD)
      for (size_t i = 0; i < sizeof matrix_standard / sizeof *matrix_standard; i++, ncases++)
        run_case(&dev, &opt, matrix_standard[i], &skipped);
    if (opt.level >= HYT_FULL)
      for (size_t i = 0; i < sizeof matrix_full / sizeof *matrix_full; i++, ncases++)
        run_case(&dev, &opt, matrix_full[i], &skipped);
  }
  printf("%d cases in %.1f s; %ld skipped\n", ncases, hyt_now() - t0, skipped);
  free(opt.tokens);
  hyt_device_close(&dev);
  return hy_test_summary();
}
