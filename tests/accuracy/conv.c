/* hyfft_conv: convolution plans (hyfft_plan_convolution) against the
 * circular convolution computed directly in long double, on fresh random
 * signals and kernels (the kernels' spectra from
 * hyfft_convolution_spectra). Each case is a convolution token; the
 * output y[b][k] = x[b] (*) h[k] is checked on every element with the
 * relative RMS and max-norm gates of the accuracy suite (two transforms
 * and a multiply: 10 u sqrt(log2 N)). Then the token round trip, the
 * plan's description (fused or, with $HYFFT_CONV_UNFUSED, a separate
 * pass) and the named refusals, which leave the plan argument unwritten.
 *
 *   hyfft_conv [--device SPEC] [--device-buffers] [--seed S] [TOKEN...] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"

static const char *const default_tokens[] = {
    "conv:c2c:f32:64:k1",         "conv:c2c:f64:60:b3:k3",      "conv:c2c:f32:17:b2:k3",
    "conv:c2c:f32:16x12:b2:k3",   "conv:c2c:f64:16x12:k1",      "conv:c2c:f32:8x6x10:k3",
    "conv:c2c:f64:8x6x5:b2:k1",   "conv:c2c:f32:1000:k3",       "conv:c2c:f64:64:b2:k1:ip",
    "conv:c2c:f32:12x10:b2:k1:ip", "conv:r2c:f32:64:k1",        "conv:r2c:f64:60:b3:k3",
    "conv:r2c:f32:17:k3",         "conv:r2c:f32:16x12:b2:k3",   "conv:r2c:f64:16x12:k1",
    "conv:r2c:f32:8x6x10:b2:k3",  "conv:r2c:f64:8x6x5:k3",      "conv:r2c:f32:1000:b2:k1",
    "conv:r2c:f64:32:b2:k1:ip",   "conv:r2c:f32:12x10:k1:ip",
    "conv:c2c:f32:20:b3:k3:is=2:idist=50", "conv:r2c:f64:12x10:b2:k3:is=11,1:idist=140",
    "conv:c2c:f32:16x12:b2x3:k3:scale=0.5",
    /* linear convolution by padding, cropped outputs */
    "conv:c2c:f32:64:b2:k3:pad=40", "conv:r2c:f64:16x12:k3:pad=10x7:crop=8x6@2x3",
    "conv:c2c:f32:8x6x10:b2:k3:pad=5x4x6:crop=7x5x8@1x1x2", "conv:r2c:f32:30:b3:k1:pad=20:crop=25",
    "conv:c2c:f64:16x12:k1:crop=8x6@2x3",
    /* windowed transforms (hyfft_plan_create_window) */
    "c2c:f32:fwd:64:b3:pad=40:crop=20@5", "c2c:f64:bwd:16x12:pad=10x7:crop=8x6@2x3",
    "c2c:f32:fwd:8x6x10:b2:pad=5x4x6:crop=8x6x10", "r2c:f32:30:b2:pad=17:crop=10@3",
    "r2c:f64:16x12:pad=9x12:crop=16x7", "c2c:f32:fwd:100:scale=0.5:crop=50@25",
};

/* Offset of logical input element (b, j) (b over all batch entries, j row
 * major over the transform dims) in elements of the input. */
static int64_t in_offset(const hyfft_problem *p, int64_t b, int64_t j) {
  int64_t off = 0;
  for (int d = p->rank - 1; d >= 0; d--) {
    off += (j % p->dims[d].n) * p->dims[d].in_stride;
    j /= p->dims[d].n;
  }
  for (int d = p->batch_rank - 1; d >= 0; d--) {
    off += (b % p->batch[d].n) * p->batch[d].in_stride;
    b /= p->batch[d].n;
  }
  return off;
}

/* A window as lengths: held input points m, output window (start, len),
 * and ot, the points of one output window. */
typedef struct win_t {
  int pad, crop;
  int64_t m[8], start[8], len[8], ot;
} win_t;

/* Fill *win from the window (output lengths over n, or `olen` when
 * given) and, for a padded input, make the problem's input strides the
 * compact layout; returns the input extent in elements. */
static int64_t window_setup_len(hyfft_problem *p, const hyfft_window *w, const int64_t *olen,
                                int64_t n, int64_t b_total, win_t *win) {
  memset(win, 0, sizeof *win);
  win->ot = 1;
  int64_t mt = 1;
  for (int d = 0; d < p->rank; d++) {
    win->m[d] = w->in_len[d] ? w->in_len[d] : p->dims[d].n;
    win->start[d] = w->out_start[d];
    win->len[d] = w->out_len[d] ? w->out_len[d] : olen[d] - win->start[d];
    win->pad |= win->m[d] != p->dims[d].n;
    win->crop |= win->len[d] != olen[d];
    win->ot *= win->len[d];
    mt *= win->m[d];
  }
  if (win->pad) {
    int64_t acc = 1;
    for (int d = p->rank - 1; d >= 0; d--) {
      p->dims[d].in_stride = acc;
      acc *= win->m[d];
    }
    for (int d = p->batch_rank - 1; d >= 0; d--) {
      p->batch[d].in_stride = acc;
      acc *= p->batch[d].n;
    }
    return b_total * mt;
  }
  int64_t e = 1;
  for (int64_t bb = 0; bb < b_total; bb++)
    for (int64_t j = 0; j < n; j++) {
      int64_t o = in_offset(p, bb, j) + 1;
      if (o > e) e = o;
    }
  return e;
}

static int64_t window_setup(hyfft_problem *p, const hyfft_window *w, int64_t n, int64_t b_total,
                            win_t *win) {
  int64_t olen[8];
  for (int d = 0; d < p->rank; d++) olen[d] = p->dims[d].n;
  return window_setup_len(p, w, olen, n, b_total, win);
}

/* Point j (row major over n) of a signal: held in the input? */
static int held(const hyfft_problem *p, const win_t *win, int64_t j) {
  for (int d = p->rank - 1; d >= 0; d--) {
    if (j % p->dims[d].n >= win->m[d]) return 0;
    j /= p->dims[d].n;
  }
  return 1;
}

/* Its index row major over the held lengths (the padded layout's). */
static int64_t packed(const hyfft_problem *p, const win_t *win, int64_t j) {
  int64_t r = 0, acc = 1;
  for (int d = p->rank - 1; d >= 0; d--) {
    r += (j % p->dims[d].n) * acc;
    acc *= win->pad ? win->m[d] : p->dims[d].n;
    j /= p->dims[d].n;
  }
  return r;
}

/* Offset of input point j of signal bb: in the padded layout, or the
 * problem's. */
static int64_t in_pos(const hyfft_problem *p, const win_t *win, int64_t bb, int64_t j) {
  if (!win->pad) return in_offset(p, bb, j);
  int64_t mt = 1;
  for (int d = 0; d < p->rank; d++) mt *= win->m[d];
  return bb * mt + packed(p, win, j);
}

/* Index in the output window of point j (row major over lengths olen),
 * or -1 outside. */
static int64_t window_index_len(const hyfft_problem *p, const win_t *win, const int64_t *olen,
                                int64_t j) {
  int64_t r = 0, acc = 1;
  for (int d = p->rank - 1; d >= 0; d--) {
    int64_t x = j % olen[d] - win->start[d];
    if (x < 0 || x >= win->len[d]) return -1;
    r += x * acc;
    acc *= win->len[d];
    j /= olen[d];
  }
  return r;
}

static int64_t window_index(const hyfft_problem *p, const win_t *win, int64_t j) {
  int64_t olen[8];
  for (int d = 0; d < p->rank; d++) olen[d] = p->dims[d].n;
  return window_index_len(p, win, olen, j);
}

/* Round to the problem's precision. */
static long double rnd(const hyfft_problem *p, double v) {
  return p->precision == HYFFT_F32 ? (long double)(float)v : (long double)v;
}

static void put(void *buf, const hyfft_problem *p, int64_t i, long double v) {
  if (p->precision == HYFFT_F32)
    ((float *)buf)[i] = (float)v;
  else
    ((double *)buf)[i] = (double)v;
}

static long double get(const void *buf, const hyfft_problem *p, int64_t i) {
  return p->precision == HYFFT_F32 ? (long double)((const float *)buf)[i]
                                   : (long double)((const double *)buf)[i];
}

static int64_t g_failures;

static void run_case(hyfft_context ctx, const hyt_options *opt, const char *token) {
  hyfft_problem p;
  hyfft_window w;
  int64_t k;
  hyfft_status st = hyfft_convolution_parse(token, &p, &k, &w);
  CHECK(st == HYFFT_SUCCESS, "%s: parse: %s", token, hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  /* The canonical print gives the token back. */
  char printed[256];
  st = hyfft_convolution_print(&p, k, &w, printed, sizeof printed, NULL);
  CHECK(st == HYFFT_SUCCESS && strcmp(printed, token) == 0, "%s: prints as %s", token, printed);
  int real = p.kind == HYFFT_R2C;
  int cw = real ? 1 : 2; /* reals per element */
  int64_t n = 1, b_total = 1;
  for (int d = 0; d < p.rank; d++) n *= p.dims[d].n;
  for (int d = 0; d < p.batch_rank; d++) b_total *= p.batch[d].n;
  win_t win;
  int64_t in_extent = window_setup(&p, &w, n, b_total, &win);
  size_t rs = p.precision == HYFFT_F64 ? 8 : 4;
  int64_t out_count = b_total * k * win.ot;
  hyt_rng rng;
  hyt_rng_seed_token(&rng, opt->seed, token);
  /* Signals and kernels, rounded to the precision. */
  long double *x = calloc((size_t)(b_total * n * 2), sizeof *x);
  long double *h = calloc((size_t)(k * n * 2), sizeof *h);
  long double *ref = calloc((size_t)(out_count * 2), sizeof *ref);
  for (int64_t i = 0; i < b_total * n; i++)
    for (int c = 0; c < cw; c++)
      x[2 * i + c] = held(&p, &win, i % n) ? rnd(&p, hyt_rng_uniform(&rng)) : 0;
  for (int64_t i = 0; i < k * n; i++)
    for (int c = 0; c < cw; c++) h[2 * i + c] = rnd(&p, hyt_rng_uniform(&rng));
  /* The direct circular convolution, times the scale. */
  long double scale = p.scale != 0 ? p.scale : 1.0L;
  for (int64_t bb = 0; bb < b_total; bb++)
    for (int64_t kk = 0; kk < k; kk++)
      for (int64_t j = 0; j < n; j++) {
        long double re = 0, im = 0;
        for (int64_t m = 0; m < n; m++) {
          /* (j - m) mod n per axis */
          int64_t jj = j, mm = m, idx = 0, stride = 1;
          for (int d = p.rank - 1; d >= 0; d--) {
            int64_t nd = p.dims[d].n;
            int64_t a = ((jj % nd) - (mm % nd) + nd) % nd;
            idx += a * stride;
            stride *= nd;
            jj /= nd;
            mm /= nd;
          }
          const long double *xv = &x[2 * (bb * n + m)], *hv = &h[2 * (kk * n + idx)];
          re += xv[0] * hv[0] - xv[1] * hv[1];
          im += xv[0] * hv[1] + xv[1] * hv[0];
        }
        int64_t wj = window_index(&p, &win, j);
        if (wj < 0) continue;
        long double *r = &ref[2 * ((bb * k + kk) * win.ot + wj)];
        r[0] = re * scale;
        r[1] = im * scale;
      }
  /* Host buffers. */
  int64_t out_elems = p.inplace ? (in_extent > out_count ? in_extent : out_count) : out_count;
  void *hin = calloc((size_t)(in_extent * cw), rs);
  void *hout = p.inplace ? hin : calloc((size_t)(out_elems * cw), rs);
  void *hker = calloc((size_t)(k * n * cw), rs);
  for (int64_t bb = 0; bb < b_total; bb++)
    for (int64_t j = 0; j < n; j++)
      if (held(&p, &win, j))
        for (int c = 0; c < cw; c++)
          put(hin, &p, in_pos(&p, &win, bb, j) * cw + c, x[2 * (bb * n + j) + c]);
  for (int64_t i = 0; i < k * n; i++)
    for (int c = 0; c < cw; c++) put(hker, &p, i * cw + c, h[2 * i + c]);
  size_t spec_bytes = 0;
  {
    int64_t s = 1;
    for (int d = 0; d < p.rank; d++)
      s *= d == p.rank - 1 && real ? p.dims[d].n / 2 + 1 : p.dims[d].n;
    spec_bytes = (size_t)(s * k) * 2 * rs;
  }
  void *spec = malloc(spec_bytes);
  hyfft_plan plan = NULL;
  st = hyfft_convolution_spectra(ctx, &p, k, hker, spec, spec_bytes);
  CHECK(st == HYFFT_SUCCESS, "%s: spectra: %s %s", token, hyfft_status_name(st),
        hyfft_last_error());
  void *din = NULL, *dout = NULL;
  size_t in_bytes = (size_t)(in_extent * cw) * rs, out_bytes = (size_t)(out_elems * cw) * rs;
  if (st == HYFFT_SUCCESS) {
    if (opt->device_buffers) p.memory = HYFFT_MEMORY_DEVICE;
    st = hyfft_plan_convolution(ctx, &p, k, spec, spec_bytes, &w, 0, &plan);
    CHECK(st == HYFFT_SUCCESS, "%s: plan: %s %s", token, hyfft_status_name(st),
          hyfft_last_error());
  }
  if (st == HYFFT_SUCCESS) {
    char desc[8192];
    hyfft_plan_describe(plan, desc, sizeof desc, NULL);
    const char *unfused = getenv("HYFFT_CONV_UNFUSED");
    int want_fused = !(unfused && *unfused);
    CHECK(strstr(desc, want_fused ? "pointwise: fused into the inverse's first pass"
                                  : "pointwise: a separate pass") != NULL,
          "%s: the description does not say %s:\n%s", token, want_fused ? "fused" : "separate",
          desc);
    if (opt->verbose) printf("%s", desc);
    if (opt->device_buffers) {
      st = hyfft_buffer_alloc(ctx, in_bytes, &din);
      if (st == HYFFT_SUCCESS) st = hyfft_buffer_write(ctx, din, 0, hin, in_bytes);
      if (st == HYFFT_SUCCESS && !p.inplace) st = hyfft_buffer_alloc(ctx, out_bytes, &dout);
      if (st == HYFFT_SUCCESS) st = hyfft_execute(plan, din, p.inplace ? din : dout);
      if (st == HYFFT_SUCCESS)
        st = hyfft_buffer_read(ctx, p.inplace ? din : dout, 0, hout, out_bytes);
    } else {
      st = hyfft_execute(plan, hin, hout);
    }
    CHECK(st == HYFFT_SUCCESS, "%s: execute: %s %s", token, hyfft_status_name(st),
          hyfft_last_error());
  }
  if (st == HYFFT_SUCCESS) {
    long double num = 0, den = 0, emax = 0, rmax = 0;
    for (int64_t i = 0; i < out_count; i++)
      for (int c = 0; c < cw; c++) {
        long double v = get(hout, &p, i * cw + c), r = ref[2 * i + c];
        long double e = fabsl(v - r);
        num += e * e;
        den += r * r;
        if (e > emax || e != e) emax = e;
        if (fabsl(r) > rmax) rmax = fabsl(r);
      }
    double rms = (double)sqrtl(num / (den > 0 ? den : 1));
    double mx = (double)(emax / (rmax > 0 ? rmax : 1));
    double gate = 10.0 * hyt_error_scale(p.precision, n);
    int ok = rms <= gate && mx <= 10 * gate && rms == rms;
    CHECK(ok, "%s: rms %.3g (gate %.3g) max %.3g (gate %.3g)", token, rms, gate, mx, 10 * gate);
    if (!ok) g_failures++;
    printf("  %s %-44s rms %.2e max %.2e (gate %.2e)\n", ok ? "ok  " : "FAIL", token, rms, mx,
           gate);
  }
  if (plan) hyfft_plan_destroy(plan);
  if (din) hyfft_buffer_free(ctx, din);
  if (dout) hyfft_buffer_free(ctx, dout);
  free(spec);
  free(hker);
  if (hout != hin) free(hout);
  free(hin);
  free(ref);
  free(h);
  free(x);
}

/* A windowed transform (hyfft_plan_create_window): C2C or R2C, against
 * the direct DFT in long double of the zero-padded signals, compared on
 * the output window. */
static void run_window_case(hyfft_context ctx, const hyt_options *opt, const char *token) {
  hyfft_problem p;
  hyfft_window w;
  hyfft_status st = hyfft_problem_parse_window(token, &p, &w);
  CHECK(st == HYFFT_SUCCESS, "%s: parse: %s", token, hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  char printed[256];
  st = hyfft_convolution_print(&p, 0, &w, printed, sizeof printed, NULL);
  CHECK(st == HYFFT_SUCCESS && strcmp(printed, token) == 0, "%s: prints as %s", token, printed);
  int real = p.kind == HYFFT_R2C, cw = real ? 1 : 2;
  int64_t n = 1, b_total = 1, olen[8], on = 1;
  for (int d = 0; d < p.rank; d++) {
    n *= p.dims[d].n;
    olen[d] = d == p.rank - 1 && real ? p.dims[d].n / 2 + 1 : p.dims[d].n;
    on *= olen[d];
  }
  for (int d = 0; d < p.batch_rank; d++) b_total *= p.batch[d].n;
  win_t win;
  int64_t in_extent = window_setup_len(&p, &w, olen, n, b_total, &win);
  /* An output that is not cropped keeps the problem's layout: these
   * tokens give it the default (contiguous) one, the window's layout. */
  size_t rs = p.precision == HYFFT_F64 ? 8 : 4;
  int64_t out_count = b_total * win.ot;
  hyt_rng rng;
  hyt_rng_seed_token(&rng, opt->seed, token);
  long double *x = calloc((size_t)(b_total * n * 2), sizeof *x);
  long double *ref = calloc((size_t)(out_count * 2), sizeof *ref);
  void *hin = calloc((size_t)(in_extent * cw), rs);
  void *hout = calloc((size_t)(out_count * 2), rs);
  for (int64_t bb = 0; bb < b_total; bb++)
    for (int64_t j = 0; j < n; j++)
      if (held(&p, &win, j))
        for (int c = 0; c < cw; c++) {
          x[2 * (bb * n + j) + c] = rnd(&p, hyt_rng_uniform(&rng));
          put(hin, &p, in_pos(&p, &win, bb, j) * cw + c, x[2 * (bb * n + j) + c]);
        }
  long double scale = p.scale != 0 ? p.scale : 1.0L;
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int64_t bb = 0; bb < b_total; bb++)
    for (int64_t kx = 0; kx < on; kx++) {
      int64_t wj = window_index_len(&p, &win, olen, kx);
      if (wj < 0) continue;
      int64_t kc[8], t = kx;
      for (int d = p.rank - 1; d >= 0; d--) {
        kc[d] = t % olen[d];
        t /= olen[d];
      }
      long double re = 0, im = 0;
      for (int64_t j = 0; j < n; j++) {
        const long double *xv = &x[2 * (bb * n + j)];
        if (xv[0] == 0 && xv[1] == 0) continue;
        long double ph = 0;
        int64_t jj = j;
        for (int d = p.rank - 1; d >= 0; d--) {
          ph += (long double)((jj % p.dims[d].n) * kc[d] % p.dims[d].n) / p.dims[d].n;
          jj /= p.dims[d].n;
        }
        long double a = 2 * pi * ph * (p.kind == HYFFT_C2C ? p.sign : -1);
        re += xv[0] * cosl(a) - xv[1] * sinl(a);
        im += xv[0] * sinl(a) + xv[1] * cosl(a);
      }
      ref[2 * (bb * win.ot + wj)] = re * scale;
      ref[2 * (bb * win.ot + wj) + 1] = im * scale;
    }
  hyfft_plan plan = NULL;
  void *din = NULL, *dout = NULL;
  size_t in_bytes = (size_t)(in_extent * cw) * rs, out_bytes = (size_t)(out_count * 2) * rs;
  if (opt->device_buffers) p.memory = HYFFT_MEMORY_DEVICE;
  st = hyfft_plan_create_window(ctx, &p, &w, 0, &plan);
  CHECK(st == HYFFT_SUCCESS, "%s: plan: %s %s", token, hyfft_status_name(st), hyfft_last_error());
  if (st == HYFFT_SUCCESS) {
    char desc[8192];
    hyfft_plan_describe(plan, desc, sizeof desc, NULL);
    CHECK(!win.pad || strstr(desc, "zero padding: input") != NULL, "%s: no padding line:\n%s",
          token, desc);
    CHECK(!win.crop || strstr(desc, "crop: output") != NULL, "%s: no crop line:\n%s", token,
          desc);
    if (opt->verbose) printf("%s", desc);
    if (opt->device_buffers) {
      st = hyfft_buffer_alloc(ctx, in_bytes, &din);
      if (st == HYFFT_SUCCESS) st = hyfft_buffer_write(ctx, din, 0, hin, in_bytes);
      if (st == HYFFT_SUCCESS) st = hyfft_buffer_alloc(ctx, out_bytes, &dout);
      if (st == HYFFT_SUCCESS) st = hyfft_execute(plan, din, dout);
      if (st == HYFFT_SUCCESS) st = hyfft_buffer_read(ctx, dout, 0, hout, out_bytes);
    } else {
      st = hyfft_execute(plan, hin, hout);
    }
    CHECK(st == HYFFT_SUCCESS, "%s: execute: %s %s", token, hyfft_status_name(st),
          hyfft_last_error());
  }
  if (st == HYFFT_SUCCESS) {
    long double num = 0, den = 0, emax = 0, rmax = 0;
    for (int64_t i = 0; i < 2 * out_count; i++) {
      long double e = fabsl(get(hout, &p, i) - ref[i]), r = fabsl(ref[i]);
      num += e * e;
      den += r * r;
      if (e > emax || e != e) emax = e;
      if (r > rmax) rmax = r;
    }
    double rms = (double)sqrtl(num / (den > 0 ? den : 1));
    double mx = (double)(emax / (rmax > 0 ? rmax : 1));
    double gate = 5.0 * hyt_error_scale(p.precision, n);
    int ok = rms <= gate && mx <= 10 * gate && rms == rms;
    CHECK(ok, "%s: rms %.3g (gate %.3g) max %.3g", token, rms, gate, mx);
    printf("  %s %-44s rms %.2e max %.2e (gate %.2e)\n", ok ? "ok  " : "FAIL", token, rms, mx,
           gate);
  }
  if (plan) hyfft_plan_destroy(plan);
  if (din) hyfft_buffer_free(ctx, din);
  if (dout) hyfft_buffer_free(ctx, dout);
  free(hout);
  free(hin);
  free(ref);
  free(x);
}

/* Bad arguments: a named status, a message, and the plan left as it was. */
static void refusals(hyfft_context ctx) {
  hyfft_problem p;
  int64_t n2[2] = {16, 12};
  hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, HYFFT_FORWARD, 2, n2);
  size_t one = 16 * 12 * 8;
  float *spec = calloc(16 * 12 * 2 * 4, sizeof *spec);
  hyfft_plan sentinel = (hyfft_plan)(uintptr_t)0x5a5a, plan = sentinel;
  struct {
    const char *what;
    hyfft_status want;
    hyfft_status got;
  } cases[32];
  int nc = 0;
#define REFUSE(what_, want_, call_)                                                            \
  do {                                                                                         \
    plan = sentinel;                                                                           \
    cases[nc].what = what_;                                                                    \
    cases[nc].want = want_;                                                                    \
    cases[nc].got = call_;                                                                     \
    CHECK(cases[nc].got == want_, "%s: %s, expected %s (%s)", what_,                           \
          hyfft_status_name(cases[nc].got), hyfft_status_name(want_), hyfft_last_error());     \
    CHECK(plan == sentinel, "%s: the plan argument was written", what_);                       \
    CHECK(hyfft_last_error()[0] != 0, "%s: no message", what_);                                \
    nc++;                                                                                      \
  } while (0)
  REFUSE("K = 0", HYFFT_INVALID_SIZE, hyfft_plan_convolution(ctx, &p, 0, spec, 0, NULL, 0, &plan));
  REFUSE("K = -2", HYFFT_INVALID_SIZE,
         hyfft_plan_convolution(ctx, &p, -2, spec, one, NULL, 0, &plan));
  REFUSE("NULL spectra", HYFFT_NULL_POINTER,
         hyfft_plan_convolution(ctx, &p, 1, NULL, one, NULL, 0, &plan));
  REFUSE("spectra_bytes of K = 1 given K = 3", HYFFT_INVALID_SIZE,
         hyfft_plan_convolution(ctx, &p, 3, spec, one, NULL, 0, &plan));
  REFUSE("spectra_bytes of f64", HYFFT_INVALID_SIZE,
         hyfft_plan_convolution(ctx, &p, 1, spec, 2 * one, NULL, 0, &plan));
  REFUSE("NULL problem", HYFFT_NULL_POINTER,
         hyfft_plan_convolution(ctx, NULL, 1, spec, one, NULL, 0, &plan));
  hyfft_problem q = p;
  q.kind = HYFFT_C2R;
  REFUSE("kind C2R", HYFFT_INVALID_KIND, hyfft_plan_convolution(ctx, &q, 1, spec, one, NULL, 0, &plan));
  q = p;
  q.rank = 4;
  q.dims[2] = q.dims[3] = (hyfft_dim){2, 1, 1};
  REFUSE("rank 4", HYFFT_INVALID_RANK, hyfft_plan_convolution(ctx, &q, 1, spec, one, NULL, 0, &plan));
  q = p;
  q.inplace = 1;
  REFUSE("in place with K = 3", HYFFT_INPLACE_LAYOUT,
         hyfft_plan_convolution(ctx, &q, 3, spec, 3 * one, NULL, 0, &plan));
  q = p;
  q.precision = HYFFT_F16;
  REFUSE("f16", HYFFT_NOT_SUPPORTED, hyfft_plan_convolution(ctx, &q, 1, spec, one, NULL, 0, &plan));
  q = p;
  q.dims[0].n = 0;
  REFUSE("a zero length", HYFFT_INVALID_SIZE,
         hyfft_plan_convolution(ctx, &q, 1, spec, one, NULL, 0, &plan));
  REFUSE("bad flags", HYFFT_INVALID_ARGUMENT,
         hyfft_plan_convolution(ctx, &p, 1, spec, one, NULL, HYFFT_HYBRID, &plan));
  /* Windows: lengths outside the dims, a kind without windows, in place. */
  hyfft_window w;
  memset(&w, 0, sizeof w);
  w.in_len[0] = 17;
  REFUSE("in_len past n", HYFFT_INVALID_SIZE, hyfft_plan_create_window(ctx, &p, &w, 0, &plan));
  REFUSE("conv in_len past n", HYFFT_INVALID_SIZE,
         hyfft_plan_convolution(ctx, &p, 1, spec, one, &w, 0, &plan));
  memset(&w, 0, sizeof w);
  w.out_start[1] = 8;
  w.out_len[1] = 5;
  REFUSE("crop past the dim", HYFFT_INVALID_SIZE,
         hyfft_plan_create_window(ctx, &p, &w, 0, &plan));
  memset(&w, 0, sizeof w);
  w.in_len[0] = 8;
  q = p;
  q.kind = HYFFT_C2R;
  REFUSE("window on C2R", HYFFT_INVALID_KIND, hyfft_plan_create_window(ctx, &q, &w, 0, &plan));
  q = p;
  q.inplace = 1;
  REFUSE("padded in place", HYFFT_INPLACE_LAYOUT,
         hyfft_plan_create_window(ctx, &q, &w, 0, &plan));
  REFUSE("window NULL plan", HYFFT_NULL_POINTER, hyfft_plan_create_window(ctx, &p, &w, 0, NULL));
  /* Spectra from kernels: the same checks, and nothing written. */
  float *out = calloc(16 * 12 * 2, sizeof *out);
  hyfft_status st = hyfft_convolution_spectra(ctx, &p, 0, spec, out, one);
  CHECK(st == HYFFT_INVALID_SIZE, "spectra K = 0: %s", hyfft_status_name(st));
  st = hyfft_convolution_spectra(ctx, &p, 1, NULL, out, one);
  CHECK(st == HYFFT_NULL_POINTER, "spectra NULL kernels: %s", hyfft_status_name(st));
  st = hyfft_convolution_spectra(ctx, &p, 1, spec, out, one - 8);
  CHECK(st == HYFFT_INVALID_SIZE, "spectra short buffer: %s", hyfft_status_name(st));
  for (int i = 0; i < 16 * 12 * 2; i++) CHECK(out[i] == 0, "spectra written on error");
  /* Tokens. */
  hyfft_problem tp;
  int64_t tk = 7;
  const char *bad[] = {"conv:c2r:f32:64", "conv:c2c:f32:fwd:64", "conv:c2c:f32:64:k0",
                       "conv:c2c:f32:64:k3:k3", "conv:c2c:f32:64:os=2", "conv:f32:64",
                       "c2c:f32:fwd:64", "conv:r2c:f32:64:kx", "conv:c2c:f32:64x64:pad=40",
                       "conv:c2c:f32:64:crop=10@", "conv:c2c:f32:64:pad=0",
                       "conv:c2c:f32:64:pad=10:pad=10"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    st = hyfft_convolution_parse(bad[i], &tp, &tk, NULL);
    CHECK(st == HYFFT_INVALID_TOKEN, "token %s: %s", bad[i], hyfft_status_name(st));
    CHECK(tk == 7, "token %s: filters written", bad[i]);
  }
  /* Window fields: hyfft_problem_parse does not take them; a window-less
   * caller of the convolution parser neither. */
  st = hyfft_problem_parse("c2c:f32:fwd:64:pad=40", &tp);
  CHECK(st == HYFFT_INVALID_TOKEN, "pad= through hyfft_problem_parse: %s", hyfft_status_name(st));
  st = hyfft_convolution_parse("conv:c2c:f32:64:pad=40", &tp, &tk, NULL);
  CHECK(st == HYFFT_INVALID_TOKEN, "pad= without a window: %s", hyfft_status_name(st));
  hyfft_window tw;
  st = hyfft_problem_parse_window("c2c:f32:fwd:64x48:pad=40", &tp, &tw);
  CHECK(st == HYFFT_INVALID_TOKEN, "pad= of one length on 2 dims: %s", hyfft_status_name(st));
  /* Execution: the usual pointer checks. */
  st = hyfft_plan_convolution(ctx, &p, 1, spec, one, NULL, 0, &plan);
  CHECK(st == HYFFT_SUCCESS, "plan: %s", hyfft_last_error());
  if (st == HYFFT_SUCCESS) {
    st = hyfft_execute(plan, spec, spec);
    CHECK(st == HYFFT_ALIASING, "in == out out of place: %s", hyfft_status_name(st));
    st = hyfft_execute(plan, NULL, out);
    CHECK(st == HYFFT_NULL_POINTER, "NULL input: %s", hyfft_status_name(st));
    hyfft_plan_destroy(plan);
  }
  printf("  refusals: %d cases named\n", nc);
  free(out);
  free(spec);
}

int main(int argc, char **argv) {
  hyt_options opt;
  if (hyt_parse_args(argc, argv, "", &opt)) return 2;
  hyt_device dev;
  if (hyt_device_open(&opt, &dev)) return 1;
  if (opt.ntokens > 0) {
    for (int i = 0; i < opt.ntokens; i++)
      (strncmp(opt.tokens[i], "conv:", 5) == 0 ? run_case : run_window_case)(dev.ctx, &opt,
                                                                           opt.tokens[i]);
  } else {
    for (size_t i = 0; i < sizeof default_tokens / sizeof default_tokens[0]; i++)
      (strncmp(default_tokens[i], "conv:", 5) == 0 ? run_case : run_window_case)(
          dev.ctx, &opt, default_tokens[i]);
    refusals(dev.ctx);
  }
  hyt_device_close(&dev);
  free(opt.tokens);
  return hy_test_summary();
}
