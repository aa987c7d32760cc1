/* Options, random data, layouts, poisoned buffers and plan execution for the
 * test suites. See harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/half.h"

/* ---- options ------------------------------------------------------------- */

static const char *hyt_level_name(hyt_level level) {
  return level == HYT_QUICK ? "quick" : level == HYT_FULL ? "full" : "standard";
}

static int hyt_parse_u64(const char *s, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || !end || end == s || *end) return 1;
  *out = (uint64_t)v;
  return 0;
}

static void hyt_usage(const char *prog, const char *extra) {
  fprintf(stderr,
          "usage: %s [--device SPEC] [--level quick|standard|full] [--seed S]\n"
          "          [--device-buffers] [--verbose] [--at-target] [TOKEN...]\n"
          "  --device SPEC     cpu, opencl[:P:D], cuda[:N], auto (default $HYFFT_TEST_DEVICE or cpu)\n"
          "  --level L         size of the test matrix (default standard)\n"
          "  --seed S          random seed (default $HYFFT_TEST_SEED or the clock)\n"
          "  --device-buffers  keep the data in device buffers (hyfft_buffer_alloc)\n"
          "  --verbose         one line per case with errors and FFTW-level targets\n"
          "  --at-target       fail a case above its FFTW-level target, not only its gate\n"
          "  --list            print the tokens of the matrix at this level and exit\n"
          "  TOKEN...          run these problems instead of the built-in matrix\n%s",
          prog, extra ? extra : "");
}

int hyt_parse_args(int argc, char **argv, const char *usage_extra, hyt_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->level = HYT_STANDARD;
  const char *env_dev = getenv("HYFFT_TEST_DEVICE");
  opt->device = env_dev && *env_dev ? env_dev : "cpu";
  int have_seed = 0;
  const char *env_seed = getenv("HYFFT_TEST_SEED");
  if (env_seed && *env_seed) {
    if (hyt_parse_u64(env_seed, &opt->seed)) {
      fprintf(stderr, "%s: HYFFT_TEST_SEED='%s' is not a number\n", argv[0], env_seed);
      return 1;
    }
    have_seed = 1;
  }
  opt->tokens = calloc((size_t)argc + 1, sizeof *opt->tokens);
  if (!opt->tokens) return 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    if (!strcmp(a, "--device") || !strcmp(a, "--level") || !strcmp(a, "--seed")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", argv[0], a);
        hyt_usage(argv[0], usage_extra);
        return 1;
      }
      val = argv[++i];
    }
    if (!strcmp(a, "--device")) {
      opt->device = val;
    } else if (!strcmp(a, "--level")) {
      if (!strcmp(val, "quick")) opt->level = HYT_QUICK;
      else if (!strcmp(val, "standard")) opt->level = HYT_STANDARD;
      else if (!strcmp(val, "full")) opt->level = HYT_FULL;
      else {
        fprintf(stderr, "%s: --level '%s': expected quick, standard or full\n", argv[0], val);
        return 1;
      }
    } else if (!strcmp(a, "--seed")) {
      if (hyt_parse_u64(val, &opt->seed)) {
        fprintf(stderr, "%s: --seed '%s' is not a number\n", argv[0], val);
        return 1;
      }
      have_seed = 1;
    } else if (!strcmp(a, "--device-buffers")) {
      opt->device_buffers = 1;
    } else if (!strcmp(a, "--list")) {
      opt->list = 1;
    } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
      opt->verbose = 1;
    } else if (!strcmp(a, "--at-target")) {
      opt->at_target = 1;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      hyt_usage(argv[0], usage_extra);
      return 1;
    } else if (a[0] == '-' && a[1] == '-') {
      fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a);
      hyt_usage(argv[0], usage_extra);
      return 1;
    } else {
      opt->tokens[opt->ntokens++] = argv[i];
    }
  }
  if (!have_seed) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Keep seeds short enough to type back in. */
    opt->seed = ((uint64_t)ts.tv_sec * 1000003u + (uint64_t)ts.tv_nsec) % 1000000000u;
  }
  if (opt->list) return 0;
  printf("%s: seed %llu (replay with --seed %llu), device %s, level %s%s\n", argv[0],
         (unsigned long long)opt->seed, (unsigned long long)opt->seed, opt->device,
         hyt_level_name(opt->level), opt->device_buffers ? ", device buffers" : "");
  fflush(stdout);
  return 0;
}

/* ---- random numbers ------------------------------------------------------ */

static uint64_t hyt_splitmix(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void hyt_rng_seed(hyt_rng *rng, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) rng->s[i] = hyt_splitmix(&x);
}

void hyt_rng_seed_token(hyt_rng *rng, uint64_t seed, const char *token) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const unsigned char *p = (const unsigned char *)token; *p; p++)
    h = (h ^ *p) * UINT64_C(0x100000001b3);
  hyt_rng_seed(rng, seed ^ h);
}

static inline uint64_t hyt_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t hyt_rng_next(hyt_rng *rng) {
  uint64_t *s = rng->s;
  uint64_t result = hyt_rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = hyt_rotl(s[3], 45);
  return result;
}

double hyt_rng_uniform(hyt_rng *rng) {
  return (double)(hyt_rng_next(rng) >> 11) * 0x1.0p-52 - 1.0;
}

/* ---- layouts -------------------------------------------------------------- */

/* Offsets of every logical element of one side: dims n[] (slowest first)
 * with strides st[], count elements, max offset + 1 into *extent. */
static int hyt_offsets(int nd, const int64_t *n, const int64_t *st, int64_t count, int64_t *off,
                       int64_t *extent) {
  int64_t idx[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK] = {0};
  int64_t cur = 0, maxo = 0;
  for (int64_t e = 0; e < count; e++) {
    off[e] = cur;
    if (cur > maxo) maxo = cur;
    for (int d = nd - 1; d >= 0; d--) {
      if (++idx[d] < n[d]) {
        cur += st[d];
        break;
      }
      cur -= (n[d] - 1) * st[d];
      idx[d] = 0;
    }
  }
  *extent = count ? maxo + 1 : 0;
  return 0;
}

int hyt_layout_make(const hyfft_problem *prob, hyt_layout *lay, char *why, size_t why_size) {
  memset(lay, 0, sizeof *lay);
  lay->prob = *prob;
  int nd = prob->batch_rank + prob->rank;
  if (prob->rank < 1 || prob->rank > HYFFT_MAX_RANK || prob->batch_rank < 0 ||
      prob->batch_rank > HYFFT_MAX_BATCH_RANK) {
    snprintf(why, why_size, "harness: rank %d / batch rank %d out of range", prob->rank,
             prob->batch_rank);
    return 1;
  }
  int64_t nin[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK], nout[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  int64_t sin[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK], sout[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  lay->n_total = 1;
  lay->batch_total = 1;
  lay->count_in = 1;
  lay->count_out = 1;
  for (int d = 0; d < nd; d++) {
    const hyfft_dim *dim = d < prob->batch_rank ? &prob->batch[d] : &prob->dims[d - prob->batch_rank];
    if (dim->n < 1 || dim->in_stride < 0 || dim->out_stride < 0) {
      snprintf(why, why_size,
               "harness: dim n=%lld is=%lld os=%lld (the harness needs n >= 1 and strides >= 0)",
               (long long)dim->n, (long long)dim->in_stride, (long long)dim->out_stride);
      return 1;
    }
    nin[d] = nout[d] = dim->n;
    sin[d] = dim->in_stride;
    sout[d] = dim->out_stride;
    if (d < prob->batch_rank) lay->batch_total *= dim->n;
    else lay->n_total *= dim->n;
  }
  if (prob->kind == HYFFT_R2C) nout[nd - 1] = nin[nd - 1] / 2 + 1;
  if (prob->kind == HYFFT_C2R) nin[nd - 1] = nout[nd - 1] / 2 + 1;
  for (int d = 0; d < nd; d++) {
    lay->count_in *= nin[d];
    lay->count_out *= nout[d];
  }
  if (lay->count_in > (INT64_C(1) << 31) || lay->count_out > (INT64_C(1) << 31)) {
    snprintf(why, why_size, "harness: %lld elements is more than the harness handles",
             (long long)lay->count_in);
    return 1;
  }
  size_t real = prob->precision == HYFFT_F64 ? 8 : hy_precision_is_half(prob->precision) ? 2 : 4;
  lay->in_complex = prob->kind != HYFFT_R2C;
  lay->out_complex = prob->kind != HYFFT_C2R;
  lay->in_esize = real * (lay->in_complex ? 2 : 1);
  lay->out_esize = real * (lay->out_complex ? 2 : 1);
  lay->in_off = malloc((size_t)lay->count_in * sizeof(int64_t));
  lay->out_off = malloc((size_t)lay->count_out * sizeof(int64_t));
  if (!lay->in_off || !lay->out_off) {
    snprintf(why, why_size, "harness: out of memory for the offset tables");
    hyt_layout_free(lay);
    return 1;
  }
  hyt_offsets(nd, nin, sin, lay->count_in, lay->in_off, &lay->in_extent);
  hyt_offsets(nd, nout, sout, lay->count_out, lay->out_off, &lay->out_extent);
  unsigned char *seen = calloc((size_t)lay->in_extent / 8 + 1, 1);
  if (!seen) {
    snprintf(why, why_size, "harness: out of memory for the alias check");
    hyt_layout_free(lay);
    return 1;
  }
  for (int64_t e = 0; e < lay->count_in && !lay->in_aliased; e++) {
    int64_t o = lay->in_off[e];
    if (seen[o >> 3] & (1u << (o & 7))) lay->in_aliased = 1;
    seen[o >> 3] |= (unsigned char)(1u << (o & 7));
  }
  free(seen);
  return 0;
}

void hyt_layout_free(hyt_layout *lay) {
  free(lay->in_off);
  free(lay->out_off);
  lay->in_off = lay->out_off = NULL;
}

/* ---- logical data ---------------------------------------------------------- */

int hyt_cvec_alloc(hyt_cvec *x, int64_t n) {
  x->n = n;
  x->v = calloc((size_t)(n > 0 ? n : 1) * 2, sizeof(long double));
  return x->v ? 0 : 1;
}

void hyt_cvec_free(hyt_cvec *x) {
  free(x->v);
  x->v = NULL;
  x->n = 0;
}

/* The value a buffer of precision p holds for v: for f16/bf16 the stored
 * half widened (the reference transforms exactly what hyfft reads). */
static long double hyt_round(hyfft_precision p, long double v) {
  if (p == HYFFT_F16) return hy_f16_to_f32(hy_f32_to_f16((float)v));
  if (p == HYFFT_BF16) return hy_bf16_to_f32(hy_f32_to_bf16((float)v));
  return p == HYFFT_F64 ? (long double)(double)v : (long double)(float)v;
}

/* Store / load one real of a half-precision buffer. */
static void hyt_half_put(hyfft_precision p, void *buf, int64_t i, long double v) {
  ((uint16_t *)buf)[i] = p == HYFFT_BF16 ? hy_f32_to_bf16((float)v) : hy_f32_to_f16((float)v);
}

static long double hyt_half_get(hyfft_precision p, const void *buf, int64_t i) {
  uint16_t h = ((const uint16_t *)buf)[i];
  return p == HYFFT_BF16 ? hy_bf16_to_f32(h) : hy_f16_to_f32(h);
}

void hyt_cvec_round(const hyt_layout *lay, hyt_cvec *x) {
  for (int64_t i = 0; i < 2 * x->n; i++) x->v[i] = hyt_round(lay->prob.precision, x->v[i]);
}

/* Make a C2R input spectrum exactly Hermitian: on the planes k = 0 and
 * k = n/2 (n even) of the halved axis, X[j] must equal conj(X[-j]) over the
 * other transform axes, or different C2R algorithms legitimately disagree. */
static void hyt_make_hermitian(const hyt_layout *lay, hyt_cvec *x) {
  const hyfft_problem *p = &lay->prob;
  int r = p->rank;
  int64_t nlast = p->dims[r - 1].n, half = nlast / 2 + 1;
  int64_t per = lay->count_in / lay->batch_total;
  for (int64_t b = 0; b < lay->batch_total; b++) {
    long double *t = x->v + 2 * b * per;
    for (int64_t e = 0; e < per; e++) {
      int64_t k = e % half;
      if (k != 0 && !(nlast % 2 == 0 && k == nlast / 2)) continue;
      /* Index of the mirror element -j over the outer transform axes. */
      int64_t rest = e / half, mirror = 0, mul = half;
      for (int d = r - 2; d >= 0; d--) {
        int64_t n = p->dims[d].n, j = rest % n;
        rest /= n;
        mirror += ((n - j) % n) * mul;
        mul *= n;
      }
      mirror += k;
      if (mirror < e) {
        t[2 * e] = t[2 * mirror];
        t[2 * e + 1] = -t[2 * mirror + 1];
      } else if (mirror == e) {
        t[2 * e + 1] = 0;
      }
    }
  }
}

int hyt_cvec_alias(const hyt_layout *lay, hyt_cvec *x) {
  if (!lay->in_aliased) return 0;
  int64_t *last = malloc((size_t)lay->in_extent * sizeof *last);
  if (!last) return 1;
  for (int64_t e = 0; e < lay->count_in; e++) last[lay->in_off[e]] = e;
  for (int64_t e = 0; e < lay->count_in; e++) {
    int64_t w = last[lay->in_off[e]];
    x->v[2 * e] = x->v[2 * w];
    x->v[2 * e + 1] = x->v[2 * w + 1];
  }
  free(last);
  return 0;
}

int hyt_random_input(const hyt_layout *lay, hyt_rng *rng, hyt_cvec *x) {
  if (hyt_cvec_alloc(x, lay->count_in)) return 1;
  for (int64_t i = 0; i < lay->count_in; i++) {
    x->v[2 * i] = hyt_rng_uniform(rng);
    x->v[2 * i + 1] = lay->in_complex ? hyt_rng_uniform(rng) : 0.0;
  }
  if (lay->prob.kind == HYFFT_C2R) hyt_make_hermitian(lay, x);
  hyt_cvec_round(lay, x);
  return hyt_cvec_alias(lay, x);
}

/* ---- error scale --------------------------------------------------------- */

/* Half-precision storage computes in f32: its FFTW-level target is f32's
 * (the gates of half precision are hyt_half_rms_gate's). */
double hyt_unit_roundoff(hyfft_precision p) {
  return p == HYFFT_F64 ? 0x1.0p-53 : 0x1.0p-24;
}

double hyt_half_rms_gate(hyfft_precision p) {
  /* The output is rounded to the format: relative RMS of about
   * 2^-11 / sqrt(3) = 2.8e-4 (f16) and 2^-8 / sqrt(3) = 2.3e-3 (bf16) for
   * one rounding, more where a GPU plan keeps an intermediate in the
   * caller's buffer (one rounding per pass). The gates allow several
   * roundings (about 7x one rounding) and are far below what a broken
   * conversion gives (swapped halves or parts, a wrong exponent bias:
   * errors of order 1). Rounding itself is checked exactly by
   * hyfft_half_exact and unit.half. */
  return p == HYFFT_BF16 ? 1.6e-2 : 2e-3;
}

double hyt_error_scale(hyfft_precision p, int64_t n_total) {
  double l = log2((double)n_total);
  if (l < 1) l = 1;
  return hyt_unit_roundoff(p) * sqrt(l);
}

int hyt_is_smooth(const hyfft_problem *prob) {
  for (int d = 0; d < prob->rank; d++) {
    int64_t n = prob->dims[d].n;
    static const int primes[] = {2, 3, 5, 7, 11, 13};
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
      while (n % primes[i] == 0) n /= primes[i];
    if (n != 1) return 0;
  }
  return 1;
}

/* ---- devices and buffers ---------------------------------------------------- */

int hyt_device_open(const hyt_options *opt, hyt_device *dev) {
  memset(dev, 0, sizeof *dev);
  dev->device_buffers = opt->device_buffers;
  hyfft_status st = hyfft_context_create(opt->device, &dev->ctx);
  if (st != HYFFT_SUCCESS) {
    fprintf(stderr, "cannot open device '%s': %s (%s)\n", opt->device, hyfft_status_name(st),
            hyfft_last_error());
    return 1;
  }
  st = hyfft_context_device(dev->ctx, &dev->info);
  if (st != HYFFT_SUCCESS) {
    fprintf(stderr, "hyfft_context_device: %s (%s)\n", hyfft_status_name(st), hyfft_last_error());
    hyfft_context_destroy(dev->ctx);
    dev->ctx = NULL;
    return 1;
  }
  printf("device: %s (%s)%s%s\n", dev->info.spec, dev->info.name,
         dev->info.platform[0] ? ", " : "", dev->info.platform);
  fflush(stdout);
  return 0;
}

void hyt_device_close(hyt_device *dev) {
  if (dev->ctx) hyfft_context_destroy(dev->ctx);
  dev->ctx = NULL;
}

static int hyt_uses_device_buffers(const hyt_device *dev, const hyfft_problem *prob) {
  return dev->device_buffers || prob->memory == HYFFT_MEMORY_DEVICE;
}

hyfft_status hyt_plan(hyt_device *dev, const hyfft_problem *prob, hyfft_plan *plan) {
  hyfft_problem p = *prob;
  if (hyt_uses_device_buffers(dev, prob)) p.memory = HYFFT_MEMORY_DEVICE;
  hyfft_status st = hyfft_plan_create(dev->ctx, &p, HYFFT_ESTIMATE, plan);
  /* The suites check the plan's final kernels: a CUDA plan still
   * compiling its persistent kernel in the background is waited for (its
   * plain kernels have their own test in tests/backend/cuda), and that
   * kernel failing to build fails the case. */
  if (st == HYFFT_SUCCESS && (st = hyfft_plan_wait(*plan)) != HYFFT_SUCCESS) {
    hyfft_plan_destroy(*plan);
    *plan = NULL;
  }
  return st;
}

int hyt_is_skip(const hyt_device *dev, const hyfft_problem *prob, hyfft_status st) {
  if (st != HYFFT_NOT_SUPPORTED && st != HYFFT_NO_SOLVER) return 0;
  if (prob->precision == HYFFT_F64 && !dev->info.supports_f64) return 1;
  /* A multi-device context (a device list: its spec holds a comma) refuses
   * device data, which belongs to one device (docs/api.md). */
  if (prob->memory == HYFFT_MEMORY_DEVICE && strchr(dev->info.spec, ',')) return 1;
  /* Every valid C2C, R2C and C2R problem plans on every backend
   * (unit.plan_sweep): any other refusal fails the test. */
  return 0;
}

void hyt_token(const hyfft_problem *prob, char *buf, size_t size) {
  hyfft_status st = hyfft_problem_print(prob, buf, size, NULL);
  if (st != HYFFT_SUCCESS) snprintf(buf, size, "<unprintable problem: %s>", hyfft_status_name(st));
}

double hyt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The gap sentinel: a byte pattern no transform writes by accident. */
#define HYT_SENTINEL 0xA5

/* Mask granularity: the smaller element size, so in-place R2C/C2R layouts
 * (real and complex views of one buffer) are both representable. */
static size_t hyt_unit(const hyt_layout *lay) {
  return lay->in_esize < lay->out_esize ? lay->in_esize : lay->out_esize;
}

static void hyt_mark(unsigned char *mask, const int64_t *off, int64_t count, size_t esize,
                     size_t unit) {
  size_t per = esize / unit;
  for (int64_t e = 0; e < count; e++) {
    size_t first = (size_t)off[e] * per;
    for (size_t k = 0; k < per; k++) mask[first + k] = 1;
  }
}

int hyt_buffers_alloc(const hyt_layout *lay, hyt_device *dev, hyt_buffers *b) {
  memset(b, 0, sizeof *b);
  b->lay = lay;
  b->dev = dev;
  b->in_bytes = (size_t)lay->in_extent * lay->in_esize;
  b->out_bytes = (size_t)lay->out_extent * lay->out_esize;
  int inplace = lay->prob.inplace;
  if (inplace) {
    size_t m = b->in_bytes > b->out_bytes ? b->in_bytes : b->out_bytes;
    b->in_bytes = b->out_bytes = m;
  }
  size_t unit = hyt_unit(lay);
  b->in = malloc(b->in_bytes);
  b->in_copy = malloc(b->in_bytes);
  b->out = inplace ? b->in : malloc(b->out_bytes);
  b->out_mask = calloc(b->out_bytes / unit + 1, 1);
  if (!b->in || !b->in_copy || !b->out || !b->out_mask) goto fail;
  hyt_mark(b->out_mask, lay->out_off, lay->count_out, lay->out_esize, unit);
  if (inplace) hyt_mark(b->out_mask, lay->in_off, lay->count_in, lay->in_esize, unit);
  if (hyt_uses_device_buffers(dev, &lay->prob)) {
    if (hyfft_buffer_alloc(dev->ctx, b->in_bytes, &b->din) != HYFFT_SUCCESS) goto fail;
    if (inplace) b->dout = b->din;
    else if (hyfft_buffer_alloc(dev->ctx, b->out_bytes, &b->dout) != HYFFT_SUCCESS) goto fail;
  }
  return 0;
fail:
  hyt_buffers_free(b);
  return 1;
}

void hyt_buffers_free(hyt_buffers *b) {
  if (b->dev && b->dev->ctx) {
    if (b->dout && b->dout != b->din) hyfft_buffer_free(b->dev->ctx, b->dout);
    if (b->din) hyfft_buffer_free(b->dev->ctx, b->din);
  }
  if (b->out != b->in) free(b->out);
  free(b->in);
  free(b->in_copy);
  free(b->out_mask);
  memset(b, 0, sizeof *b);
}

static void hyt_scatter(const hyt_layout *lay, const hyt_cvec *x, void *buf) {
  int cplx = lay->in_complex;
  hyfft_precision p = lay->prob.precision;
  if (hy_precision_is_half(p)) {
    for (int64_t e = 0; e < lay->count_in; e++) {
      if (cplx) {
        hyt_half_put(p, buf, 2 * lay->in_off[e], x->v[2 * e]);
        hyt_half_put(p, buf, 2 * lay->in_off[e] + 1, x->v[2 * e + 1]);
      } else {
        hyt_half_put(p, buf, lay->in_off[e], x->v[2 * e]);
      }
    }
  } else if (lay->prob.precision == HYFFT_F64) {
    double *d = buf;
    for (int64_t e = 0; e < lay->count_in; e++) {
      if (cplx) {
        d[2 * lay->in_off[e]] = (double)x->v[2 * e];
        d[2 * lay->in_off[e] + 1] = (double)x->v[2 * e + 1];
      } else {
        d[lay->in_off[e]] = (double)x->v[2 * e];
      }
    }
  } else {
    float *f = buf;
    for (int64_t e = 0; e < lay->count_in; e++) {
      if (cplx) {
        f[2 * lay->in_off[e]] = (float)x->v[2 * e];
        f[2 * lay->in_off[e] + 1] = (float)x->v[2 * e + 1];
      } else {
        f[lay->in_off[e]] = (float)x->v[2 * e];
      }
    }
  }
}

static void hyt_poison_out(const hyt_layout *lay, void *buf) {
  int cplx = lay->out_complex;
  for (int64_t e = 0; e < lay->count_out; e++) {
    int64_t o = lay->out_off[e];
    if (hy_precision_is_half(lay->prob.precision)) {
      hyt_half_put(lay->prob.precision, buf, cplx ? 2 * o : o, NAN);
      if (cplx) hyt_half_put(lay->prob.precision, buf, 2 * o + 1, NAN);
    } else if (lay->prob.precision == HYFFT_F64) {
      double *d = buf;
      if (cplx) d[2 * o] = d[2 * o + 1] = NAN;
      else d[o] = NAN;
    } else {
      float *f = buf;
      if (cplx) f[2 * o] = f[2 * o + 1] = NAN;
      else f[o] = NAN;
    }
  }
}

static void hyt_gather(const hyt_layout *lay, const void *buf, hyt_cvec *y) {
  int cplx = lay->out_complex;
  for (int64_t e = 0; e < lay->count_out; e++) {
    int64_t o = lay->out_off[e];
    if (hy_precision_is_half(lay->prob.precision)) {
      y->v[2 * e] = hyt_half_get(lay->prob.precision, buf, cplx ? 2 * o : o);
      y->v[2 * e + 1] = cplx ? hyt_half_get(lay->prob.precision, buf, 2 * o + 1) : 0.0L;
    } else if (lay->prob.precision == HYFFT_F64) {
      const double *d = buf;
      y->v[2 * e] = cplx ? d[2 * o] : d[o];
      y->v[2 * e + 1] = cplx ? d[2 * o + 1] : 0.0;
    } else {
      const float *f = buf;
      y->v[2 * e] = cplx ? f[2 * o] : f[o];
      y->v[2 * e + 1] = cplx ? f[2 * o + 1] : 0.0f;
    }
  }
}

static void hyt_fail_call(hyt_run_result *res, hyfft_status st, const char *what) {
  res->status = st;
  snprintf(res->message, sizeof res->message, "%s: %s (%s)", what, hyfft_status_name(st),
           hyfft_last_error());
}

static hyfft_status hyt_execute(hyfft_plan plan, const hyt_buffers *b, const void *in, void *out,
                                hyt_run_result *res) {
  hyfft_status st;
  if (!b->use_async) {
    st = hyfft_execute(plan, in, out);
    if (st != HYFFT_SUCCESS) hyt_fail_call(res, st, "hyfft_execute");
    return st;
  }
  st = hyfft_execute_async(plan, in, out, b->workspace, NULL);
  if (st != HYFFT_SUCCESS) {
    hyt_fail_call(res, st, "hyfft_execute_async");
    return st;
  }
  st = hyfft_context_synchronize(b->dev->ctx);
  if (st != HYFFT_SUCCESS) hyt_fail_call(res, st, "hyfft_context_synchronize");
  return st;
}

int hyt_run(hyfft_plan plan, hyt_buffers *b, const hyt_cvec *x, hyt_cvec *y,
            hyt_run_result *res) {
  const hyt_layout *lay = b->lay;
  memset(res, 0, sizeof *res);
  int inplace = lay->prob.inplace;
  memset(b->in, HYT_SENTINEL, b->in_bytes);
  if (!inplace) {
    memset(b->out, HYT_SENTINEL, b->out_bytes);
    hyt_poison_out(lay, b->out);
  }
  hyt_scatter(lay, x, b->in);
  memcpy(b->in_copy, b->in, b->in_bytes);

  hyfft_status st;
  hyfft_context ctx = b->dev->ctx;
  if (b->din) {
    st = hyfft_buffer_write(ctx, b->din, 0, b->in, b->in_bytes);
    if (st != HYFFT_SUCCESS) return hyt_fail_call(res, st, "hyfft_buffer_write(in)"), 1;
    if (!inplace) {
      st = hyfft_buffer_write(ctx, b->dout, 0, b->out, b->out_bytes);
      if (st != HYFFT_SUCCESS) return hyt_fail_call(res, st, "hyfft_buffer_write(out)"), 1;
    }
    st = hyt_execute(plan, b, b->din, b->dout, res);
    if (st != HYFFT_SUCCESS) return 1;
    st = hyfft_buffer_read(ctx, b->dout, 0, b->out, b->out_bytes);
    if (st != HYFFT_SUCCESS) return hyt_fail_call(res, st, "hyfft_buffer_read(out)"), 1;
    if (!inplace) {
      st = hyfft_buffer_read(ctx, b->din, 0, b->in, b->in_bytes);
      if (st != HYFFT_SUCCESS) return hyt_fail_call(res, st, "hyfft_buffer_read(in)"), 1;
    }
  } else {
    st = hyt_execute(plan, b, b->in, b->out, res);
    if (st != HYFFT_SUCCESS) return 1;
  }

  if (!inplace) {
    size_t es = lay->in_esize;
    const unsigned char *a = b->in, *c = b->in_copy;
    for (size_t i = 0; i < b->in_bytes; i += es)
      if (memcmp(a + i, c + i, es)) res->input_changed++;
  }
  size_t unit = hyt_unit(lay);
  unsigned char sentinel[16];
  memset(sentinel, HYT_SENTINEL, sizeof sentinel);
  const unsigned char *o = b->out;
  for (size_t u = 0; u < b->out_bytes / unit; u++)
    if (!b->out_mask[u] && memcmp(o + u * unit, sentinel, unit)) res->gaps_touched++;

  if (y->n != lay->count_out) {
    hyt_cvec_free(y);
    if (hyt_cvec_alloc(y, lay->count_out)) {
      res->status = HYFFT_OUT_OF_MEMORY;
      snprintf(res->message, sizeof res->message, "harness: out of memory for the output");
      return 1;
    }
  }
  hyt_gather(lay, b->out, y);
  return 0;
}
