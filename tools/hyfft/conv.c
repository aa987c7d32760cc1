/* Convolution tokens in hyfft plan, verify and bench (docs/cli.md,
 * "Convolutions"): conv:c2c:f32:256x256:b8:k3 and the like. verify checks
 * every output element of the first signals against the circular
 * convolution computed through the long-double reference DFT
 * (IDFT(DFT(x) . DFT(h)) / N, times the scale) on fresh seeded signals
 * and kernels; bench times hyfft_execute of the plan on device data (host
 * data on the CPU). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conv.h"
#include "peer.h"
#include "peer_cuda.h"

int cli_is_conv_token(const char *token) { return strncmp(token, "conv:", 5) == 0; }

/* One convolution: buffers, data, spectra, plan. */
typedef struct cli_conv {
  hyfft_problem p;
  hyfft_window w;    /* as parsed (zeros: none) */
  int64_t m[HYFFT_MAX_RANK];                       /* input points held per dim */
  int64_t ostart[HYFFT_MAX_RANK], olen[HYFFT_MAX_RANK]; /* output window per dim */
  int pad, crop;
  int64_t k, n, batch, spec, in_extent, out_count;
  int real;
  size_t rs, in_bytes, out_bytes, spec_bytes;
  void *hin, *hout, *hker, *spectra, *din, *dout;
  hyfft_plan plan;
  hyfft_context ctx;
} cli_conv;

static int64_t cli_conv_in_offset(const hyfft_problem *p, int64_t b, int64_t j) {
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

/* Whether point j (row major over n) of a signal is held in the input,
 * and its index row major over the held lengths (which the padded
 * layout's strides then place). */
static int cli_conv_held(const cli_conv *c, int64_t j) {
  for (int d = c->p.rank - 1; d >= 0; d--) {
    if (j % c->p.dims[d].n >= c->m[d]) return 0;
    j /= c->p.dims[d].n;
  }
  return 1;
}

static int64_t cli_conv_packed(const cli_conv *c, int64_t j) {
  int64_t r = 0, acc = 1;
  for (int d = c->p.rank - 1; d >= 0; d--) {
    r += (j % c->p.dims[d].n) * acc;
    acc *= c->pad ? c->m[d] : c->p.dims[d].n;
    j /= c->p.dims[d].n;
  }
  return r;
}

/* Offset of input point j of signal b: in the padded layout, or the
 * problem's. */
static int64_t cli_conv_in_pos(const cli_conv *c, int64_t b, int64_t j) {
  if (!c->pad) return cli_conv_in_offset(&c->p, b, j);
  int64_t mt = 1;
  for (int d = 0; d < c->p.rank; d++) mt *= c->m[d];
  return b * mt + cli_conv_packed(c, j);
}

/* Index within the output window of point j of a whole output signal,
 * or -1 outside it. */
static int64_t cli_conv_window_index(const cli_conv *c, int64_t j) {
  int64_t r = 0, acc = 1;
  for (int d = c->p.rank - 1; d >= 0; d--) {
    int64_t x = j % c->p.dims[d].n - c->ostart[d];
    if (x < 0 || x >= c->olen[d]) return -1;
    r += x * acc;
    acc *= c->olen[d];
    j /= c->p.dims[d].n;
  }
  return r;
}

static void cli_conv_put(const cli_conv *c, void *buf, int64_t i, double v) {
  if (c->p.precision == HYFFT_F64)
    ((double *)buf)[i] = v;
  else
    ((float *)buf)[i] = (float)v;
}

static long double cli_conv_get(const cli_conv *c, const void *buf, int64_t i) {
  return c->p.precision == HYFFT_F64 ? (long double)((const double *)buf)[i]
                                     : (long double)((const float *)buf)[i];
}

static void cli_conv_free(cli_conv *c) {
  if (c->plan) hyfft_plan_destroy(c->plan);
  if (c->din) hyfft_buffer_free(c->ctx, c->din);
  if (c->dout && c->dout != c->din) hyfft_buffer_free(c->ctx, c->dout);
  if (c->hout != c->hin) cli_free(c->hout);
  cli_free(c->hin);
  cli_free(c->hker);
  cli_free(c->spectra);
  memset(c, 0, sizeof *c);
}

/* Parse, fill, compute spectra, plan; with `device` the data go to device
 * buffers (memory DEVICE). Returns the failing status (message in err). */
static hyfft_status cli_conv_setup(cli_conv *c, hyfft_context ctx, const char *token,
                                   uint64_t seed, int device, unsigned flags, char *err,
                                   size_t errlen) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  hyfft_status st = hyfft_convolution_parse(token, &c->p, &c->k, &c->w);
  if (st != HYFFT_SUCCESS) {
    snprintf(err, errlen, "%s", hyfft_last_error());
    return st;
  }
  hyfft_problem *p = &c->p;
  c->real = p->kind == HYFFT_R2C;
  int cw = c->real ? 1 : 2;
  c->rs = p->precision == HYFFT_F64 ? 8 : 4;
  c->n = 1;
  c->batch = 1;
  c->spec = 1;
  for (int d = 0; d < p->rank; d++) {
    c->n *= p->dims[d].n;
    c->spec *= d == p->rank - 1 && c->real ? p->dims[d].n / 2 + 1 : p->dims[d].n;
  }
  for (int d = 0; d < p->batch_rank; d++) c->batch *= p->batch[d].n;
  int64_t mt = 1, ot = 1;
  for (int d = 0; d < p->rank; d++) {
    c->m[d] = c->w.in_len[d] ? c->w.in_len[d] : p->dims[d].n;
    c->ostart[d] = c->w.out_start[d];
    c->olen[d] = c->w.out_len[d] ? c->w.out_len[d] : p->dims[d].n - c->ostart[d];
    c->pad |= c->m[d] != p->dims[d].n;
    c->crop |= c->olen[d] != p->dims[d].n;
    mt *= c->m[d];
    ot *= c->olen[d];
  }
  /* A padded input is contiguous over the held points (the problem's
   * input strides are not read then). */
  c->in_extent = c->pad ? c->batch * mt : cli_conv_in_offset(p, c->batch - 1, c->n - 1) + 1;
  c->out_count = c->batch * c->k * ot;
  c->in_bytes = (size_t)(c->in_extent * cw) * c->rs;
  c->out_bytes = (size_t)(c->out_count * cw) * c->rs;
  if (p->inplace && c->in_bytes > c->out_bytes) c->out_bytes = c->in_bytes;
  c->spec_bytes = (size_t)(c->spec * c->k) * 2 * c->rs;
  c->hin = cli_alloc(p->inplace ? c->out_bytes : c->in_bytes);
  c->hout = p->inplace ? c->hin : cli_alloc(c->out_bytes);
  c->hker = cli_alloc((size_t)(c->n * c->k * cw) * c->rs);
  c->spectra = cli_alloc(c->spec_bytes);
  if (!c->hin || !c->hout || !c->hker || !c->spectra) {
    snprintf(err, errlen, "out of host memory");
    cli_conv_free(c);
    return HYFFT_OUT_OF_MEMORY;
  }
  cli_rng rng;
  cli_rng_seed(&rng, seed, token);
  for (int64_t b = 0; b < c->batch; b++)
    for (int64_t j = 0; j < c->n; j++)
      if (cli_conv_held(c, j))
        for (int q = 0; q < cw; q++)
          cli_conv_put(c, c->hin, cli_conv_in_pos(c, b, j) * cw + q,
                       cli_rng_uniform(&rng));
  for (int64_t i = 0; i < c->n * c->k * cw; i++) cli_conv_put(c, c->hker, i, cli_rng_uniform(&rng));
  st = hyfft_convolution_spectra(ctx, p, c->k, c->hker, c->spectra, c->spec_bytes);
  if (st == HYFFT_SUCCESS && device) {
    p->memory = HYFFT_MEMORY_DEVICE;
    st = hyfft_buffer_alloc(ctx, p->inplace ? c->out_bytes : c->in_bytes, &c->din);
    if (st == HYFFT_SUCCESS) st = hyfft_buffer_write(ctx, c->din, 0, c->hin, c->in_bytes);
    if (st == HYFFT_SUCCESS && !p->inplace) st = hyfft_buffer_alloc(ctx, c->out_bytes, &c->dout);
    if (st == HYFFT_SUCCESS && p->inplace) c->dout = c->din;
  }
  if (st == HYFFT_SUCCESS)
    st = hyfft_plan_convolution(ctx, p, c->k, c->spectra, c->spec_bytes, &c->w, flags, &c->plan);
  if (st != HYFFT_SUCCESS) {
    snprintf(err, errlen, "%s: %s", hyfft_status_name(st), hyfft_last_error());
    cli_conv_free(c);
    return st;
  }
  hyfft_plan_wait(c->plan);
  return HYFFT_SUCCESS;
}

static hyfft_status cli_conv_execute(cli_conv *c) {
  return c->din ? hyfft_execute(c->plan, c->din, c->dout) : hyfft_execute(c->plan, c->hin, c->hout);
}

int cli_conv_plan(hyfft_context ctx, const char *token, unsigned flags, int source) {
  cli_conv c;
  char err[1024] = "";
  hyfft_status st = cli_conv_setup(&c, ctx, token, 1, 0, flags, err, sizeof err);
  if (st != HYFFT_SUCCESS) {
    cli_msg("plan", "%s: %s", token, err);
    return CLI_EXIT_FAIL;
  }
  size_t need = 0;
  hyfft_plan_describe(c.plan, NULL, 0, &need);
  char *text = malloc(need + 1);
  if (text && hyfft_plan_describe(c.plan, text, need + 1, NULL) == HYFFT_SUCCESS) fputs(text, stdout);
  free(text);
  if (source) {
    hyfft_plan_source(c.plan, NULL, 0, &need);
    text = malloc(need + 1);
    if (text && hyfft_plan_source(c.plan, text, need + 1, NULL) == HYFFT_SUCCESS) fputs(text, stdout);
    free(text);
  }
  cli_conv_free(&c);
  return CLI_EXIT_OK;
}

int cli_conv_verify(hyfft_context ctx, const char *token, uint64_t seed, int builtin,
                    int64_t check_elems) {
  cli_conv c;
  char err[1024] = "";
  hyfft_status st = cli_conv_setup(&c, ctx, token, seed, 0, 0, err, sizeof err);
  /* The input as written (an in-place plan overwrites it). */
  void *xin = st == HYFFT_SUCCESS ? cli_alloc(c.in_bytes) : NULL;
  if (xin) memcpy(xin, c.hin, c.in_bytes);
  if (st == HYFFT_SUCCESS && !xin) {
    st = HYFFT_OUT_OF_MEMORY;
    snprintf(err, sizeof err, "out of host memory");
  }
  if (st == HYFFT_SUCCESS && (st = cli_conv_execute(&c)) != HYFFT_SUCCESS)
    snprintf(err, sizeof err, "execute: %s: %s", hyfft_status_name(st), hyfft_last_error());
  if (st != HYFFT_SUCCESS) {
    printf("%-40s ERROR %s\n", token, err);
    if (c.plan) cli_conv_free(&c);
    cli_free(xin);
    return 1;
  }
  /* The first signals whose K outputs fit check_elems (at least one). */
  int64_t keep = check_elems / (c.n * c.k);
  if (keep < 1) keep = 1;
  if (keep > c.batch) keep = c.batch;
  int cw = c.real ? 1 : 2;
  int64_t nd[HYFFT_MAX_RANK];
  for (int d = 0; d < c.p.rank; d++) nd[d] = c.p.dims[d].n;
  cli_ref *fwd = NULL, *inv = NULL;
  int rc = 1;
  cli_ldc *h = malloc((size_t)(c.k * c.n) * sizeof *h);
  cli_ldc *x = malloc((size_t)c.n * sizeof *x), *y = malloc((size_t)c.n * sizeof *y);
  if (!h || !x || !y || cli_ref_create(c.p.rank, nd, -1, builtin, &fwd, err, sizeof err) ||
      cli_ref_create(c.p.rank, nd, +1, builtin, &inv, err, sizeof err)) {
    printf("%-40s ERROR reference: %s\n", token, err[0] ? err : "out of memory");
    goto done;
  }
  for (int64_t kk = 0; kk < c.k; kk++) {
    for (int64_t j = 0; j < c.n; j++)
      h[kk * c.n + j] = cli_conv_get(&c, c.hker, (kk * c.n + j) * cw) +
                        (c.real ? 0 : cli_conv_get(&c, c.hker, (kk * c.n + j) * cw + 1)) * I;
    cli_ref_run(fwd, h + kk * c.n);
  }
  long double scale = (c.p.scale != 0 ? c.p.scale : 1.0L) / (long double)c.n;
  long double num = 0, den = 0, emax = 0, rmax = 0;
  for (int64_t b = 0; b < keep; b++) {
    for (int64_t j = 0; j < c.n; j++) {
      int64_t o = cli_conv_in_pos(&c, b, j) * cw;
      x[j] = cli_conv_held(&c, j)
                 ? cli_conv_get(&c, xin, o) + (c.real ? 0 : cli_conv_get(&c, xin, o + 1)) * I
                 : 0;
    }
    cli_ref_run(fwd, x);
    for (int64_t kk = 0; kk < c.k; kk++) {
      for (int64_t j = 0; j < c.n; j++) y[j] = x[j] * h[kk * c.n + j];
      cli_ref_run(inv, y);
      int64_t per = c.out_count / (c.batch * c.k);
      for (int64_t j = 0; j < c.n; j++) {
        int64_t wj = cli_conv_window_index(&c, j);
        if (wj < 0) continue;
        int64_t o = ((b * c.k + kk) * per + wj) * cw;
        long double re = creall(y[j]) * scale, im = cimagl(y[j]) * scale;
        long double e2 = 0, r2 = re * re;
        long double dr = cli_conv_get(&c, c.hout, o) - re;
        e2 = dr * dr;
        if (!c.real) {
          long double di = cli_conv_get(&c, c.hout, o + 1) - im;
          e2 += di * di;
          r2 += im * im;
        }
        num += e2;
        den += r2;
        if (sqrtl(e2) > emax || e2 != e2) emax = sqrtl(e2);
        if (sqrtl(r2) > rmax) rmax = sqrtl(r2);
      }
    }
  }
  {
    double rms = (double)sqrtl(num / (den > 0 ? den : 1)), mx = (double)(emax / (rmax > 0 ? rmax : 1));
    /* Two transforms and a multiply: twice the transform's gate. */
    double gate = 2 * cli_rms_gate(c.p.precision, c.n);
    int pass = rms <= gate && mx <= 10 * gate;
    char checked[32];
    snprintf(checked, sizeof checked, "%lldx%lld", (long long)keep, (long long)c.k);
    printf("%-40s %10lld %11s %10.3e %10.3e %10.3e  %-7s %s\n", token, (long long)c.n, checked,
           rms, mx, gate, cli_ref_name(fwd), pass ? "PASS" : "FAIL");
    rc = pass ? 0 : 1;
  }
done:
  if (fwd) cli_ref_destroy(fwd);
  if (inv) cli_ref_destroy(inv);
  free(h);
  free(x);
  free(y);
  cli_free(xin);
  cli_conv_free(&c);
  return rc;
}

/* Relative RMS and max differences of a peer's B x K results from
 * hyfft's (both in hyfft's output layout), over the output's RMS and
 * largest magnitude. */
static void cli_conv_compare(const cli_conv *c, const void *peer, double *rms, double *mx) {
  int64_t count = c->out_count * (c->real ? 1 : 2);
  long double num = 0, den = 0, emax = 0, rmax = 0;
  for (int64_t i = 0; i < count; i++) {
    long double a = cli_conv_get(c, c->hout, i), d = cli_conv_get(c, peer, i) - a;
    num += d * d;
    den += a * a;
    if (fabsl(d) > emax || d != d) emax = fabsl(d);
    if (fabsl(a) > rmax) rmax = fabsl(a);
  }
  *rms = (double)sqrtl(num / (den > 0 ? den : 1));
  *mx = (double)(emax / (rmax > 0 ? rmax : 1));
}

/* A peer's line: its median, the ratio to hyfft and how far its result is
 * from hyfft's (a wrong mapping shows there). */
static void cli_conv_peer_line(const cli_conv *c, const char *token, const char *name,
                               const char *what, int ok, double pmed, double med, int runs,
                               const void *pout, int have_ref, const char *err) {
  if (!ok) {
    printf("%-40s %s ERROR %s\n", token, name, err);
    return;
  }
  char diff[160] = "";
  if (have_ref && pout) {
    double rms, mx;
    cli_conv_compare(c, pout, &rms, &mx);
    snprintf(diff, sizeof diff, ", vs hyfft's result: rel RMS %.2e, max %.2e", rms, mx);
  }
  printf("%-40s %s median %.4f ms over %d runs (CUDA events: %s), %s/hyfft %.2f%s\n", token,
         name, pmed * 1e3, runs, what, name, pmed / med, diff);
}

int cli_conv_bench(hyfft_context ctx, const hyfft_device_info *dev, const char *token,
                   uint64_t seed, int warmup, int runs, int host, int vs_cufft, int vs_vkfft,
                   int vs_copy) {
  cli_conv c;
  char err[1024] = "";
  int device = dev->backend != HYFFT_BACKEND_CPU && !host;
  hyfft_status st = cli_conv_setup(&c, ctx, token, seed, device, 0, err, sizeof err);
  if (st != HYFFT_SUCCESS) {
    printf("%-40s ERROR %s\n", token, err);
    return 1;
  }
  /* Device data on CUDA: timed with CUDA events on a stream, as the
   * cuFFT peer is. */
  if (device && dev->backend == HYFFT_BACKEND_CUDA) {
    double med = 0, cmed = 0;
    int rc = cli_cuda_time_plan(c.plan, c.din, c.dout, warmup, runs, &med) != 0;
    if (rc)
      printf("%-40s ERROR timing on a CUDA stream: %s\n", token, hyfft_last_error());
    else
      printf("%-40s %s median %.4f ms over %d runs (CUDA events), %.1f GB/s of input + output, "
             "device data\n", token, "hyfft", med * 1e3, runs,
             ((double)c.in_bytes + (double)c.out_bytes) / med * 1e-9);
    int plain = !c.pad && !c.crop &&
                c.in_bytes == (size_t)(c.batch * c.n) * (c.real ? c.rs : 2 * c.rs);
    /* hyfft's result on the pristine input, for the peers' difference (not
     * in place: the host input and output are one buffer there). */
    int have_ref = 0;
    void *pout = NULL;
    if (!rc && plain && !c.p.inplace && (vs_cufft || vs_vkfft)) {
      pout = cli_alloc(c.out_bytes);
      have_ref = pout && hyfft_buffer_write(ctx, c.din, 0, c.hin, c.in_bytes) == HYFFT_SUCCESS &&
                 cli_conv_execute(&c) == HYFFT_SUCCESS &&
                 hyfft_buffer_read(ctx, c.dout, 0, c.hout, c.out_bytes) == HYFFT_SUCCESS;
    }
    /* The copy floor: the output written once from the input (K copies
     * of each signal's batch), what any convolution must at least move
     * beyond reading its input once. */
    if (!rc && vs_copy) {
      double fmed = 0;
      err[0] = '\0';
      if (!plain || c.p.inplace || c.out_bytes != c.in_bytes * (size_t)c.k)
        printf("%-40s copy not run: the floor is for contiguous, unwindowed, out-of-place "
               "convolutions\n", token);
      else if (cli_cuda_copy_fan_time(c.din, c.dout, c.in_bytes, (int)c.k, warmup, runs, &fmed,
                                      err, sizeof err) != 0)
        printf("%-40s copy ERROR %s\n", token, err);
      else
        printf("%-40s copy median %.4f ms over %d runs (CUDA events: %lld device cop%s of the "
               "input filling the output), %.1f GB/s moved; hyfft at %.1f%% of this floor\n",
               token, fmed * 1e3, runs, (long long)c.k, c.k == 1 ? "y" : "ies",
               ((double)c.in_bytes * (double)c.k + (double)c.out_bytes) / fmed * 1e-9,
               fmed / med * 100.0);
    }
    static const char *const names[2] = {"cufft", "vkfft"};
    int want[2] = {vs_cufft, vs_vkfft};
    for (int k = 0; k < 2 && !rc; k++) {
      if (!want[k]) continue;
      if (!plain) {
        printf("%-40s %s not run: peer does not support windowed (pad/crop) or strided "
               "convolutions\n", token, names[k]);
        continue;
      }
      err[0] = '\0';
      int ok = k == 0 ? cli_cufft_conv_time(&c.p, c.k, c.hin, c.in_bytes, c.spectra, c.spec_bytes,
                                            warmup, runs, &cmed, have_ref ? pout : NULL, err,
                                            sizeof err) == 0
                      : cli_vkfft_conv_time(&c.p, c.k, c.hin, c.in_bytes, c.hker, warmup, runs,
                                            &cmed, have_ref ? pout : NULL, err, sizeof err) == 0;
      cli_conv_peer_line(&c, token, names[k],
                         k == 0 ? "forward, multiply kernel, inverse"
                                : "performConvolution, one append per signal",
                         ok, cmed, med, runs, pout, have_ref, err);
    }
    cli_free(pout);
    cli_conv_free(&c);
    return rc;
  }
  double *t = calloc((size_t)runs, sizeof *t);
  for (int i = 0; i < warmup && st == HYFFT_SUCCESS; i++) st = cli_conv_execute(&c);
  for (int i = 0; i < runs && st == HYFFT_SUCCESS; i++) {
    double t0 = cli_now();
    st = cli_conv_execute(&c);
    t[i] = cli_now() - t0;
  }
  int rc = 0;
  if (st != HYFFT_SUCCESS || !t) {
    printf("%-40s ERROR execute: %s: %s\n", token, hyfft_status_name(st), hyfft_last_error());
    rc = 1;
  } else {
    for (int i = 1; i < runs; i++)
      for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
        double s = t[j];
        t[j] = t[j - 1];
        t[j - 1] = s;
      }
    double med = t[runs / 2];
    /* The floor's traffic: the input read once, the output written once. */
    double bytes = (double)c.in_bytes + (double)c.out_bytes;
    printf("%-40s %s median %.4f ms (min %.4f) over %d runs, %.1f GB/s of input + output, "
           "%s data\n", token, "hyfft", med * 1e3, t[0] * 1e3, runs, bytes / med * 1e-9,
           device ? "device" : "host");
  }
  if (vs_cufft || vs_vkfft || vs_copy)
    printf("%-40s peers not run: the cufft, vkfft and copy lines of a convolution need device "
           "data on a CUDA context\n", token);
  free(t);
  cli_conv_free(&c);
  return rc;
}
