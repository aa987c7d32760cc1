/* Problem layouts: logical element order versus strided physical buffers,
 * seeded inputs, gathering outputs, the reference outputs and the error
 * norms of DESIGN section 7. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/half.h"

void cli_walk_next(cli_walk *w) {
  for (int d = w->nd - 1; d >= 0; d--) {
    w->off += w->s[d];
    if (++w->i[d] < w->n[d]) return;
    w->off -= w->n[d] * w->s[d];
    w->i[d] = 0;
  }
}

/* Logical length of transform dim d on one side (0 input, 1 output). */
static int64_t cli_side_len(const hyfft_problem *p, int d, int side) {
  int64_t n = p->dims[d].n;
  if (d == p->rank - 1 && ((side == 0 && p->kind == HYFFT_C2R) || (side == 1 && p->kind == HYFFT_R2C)))
    return n / 2 + 1;
  return n;
}

void cli_walk_transform(cli_walk *w, const hyfft_problem *p, int side) {
  memset(w, 0, sizeof *w);
  w->nd = p->rank;
  for (int d = 0; d < p->rank; d++) {
    w->n[d] = cli_side_len(p, d, side);
    w->s[d] = side ? p->dims[d].out_stride : p->dims[d].in_stride;
  }
}

void cli_walk_batch(cli_walk *w, const hyfft_problem *p, int side) {
  memset(w, 0, sizeof *w);
  w->nd = p->batch_rank;
  for (int d = 0; d < p->batch_rank; d++) {
    w->n[d] = p->batch[d].n;
    w->s[d] = side ? p->batch[d].out_stride : p->batch[d].in_stride;
  }
}

int cli_is_half(hyfft_precision p) { return p == HYFFT_F16 || p == HYFFT_BF16; }

double cli_round(hyfft_precision p, double v) {
  if (p == HYFFT_F16) return hy_f16_to_f32(hy_f32_to_f16((float)v));
  if (p == HYFFT_BF16) return hy_bf16_to_f32(hy_f32_to_bf16((float)v));
  return p == HYFFT_F64 ? v : (double)(float)v;
}

void cli_half_put(hyfft_precision p, void *buf, int64_t i, double v) {
  ((uint16_t *)buf)[i] = p == HYFFT_BF16 ? hy_f32_to_bf16((float)v) : hy_f32_to_f16((float)v);
}

double cli_half_get(hyfft_precision p, const void *buf, int64_t i) {
  uint16_t h = ((const uint16_t *)buf)[i];
  return p == HYFFT_BF16 ? hy_bf16_to_f32(h) : hy_f16_to_f32(h);
}

int cli_layout_init(cli_layout *L, const hyfft_problem *v, char *err, size_t errlen) {
  memset(L, 0, sizeof *L);
  L->p = *v;
  if (L->p.scale == 0.0) L->p.scale = 1.0;
  size_t real = v->precision == HYFFT_F64 ? 8 : cli_is_half(v->precision) ? 2 : 4;
  L->in_elem = v->kind == HYFFT_R2C || v->kind == HYFFT_R2R ? real : 2 * real;
  L->out_elem = v->kind == HYFFT_C2R || v->kind == HYFFT_R2R ? real : 2 * real;
  L->n = L->batch = L->in_count = L->out_count = 1;
  int64_t in_max = 0, out_max = 0;
  for (int d = 0; d < v->rank; d++) {
    if (v->dims[d].in_stride < 0 || v->dims[d].out_stride < 0) {
      snprintf(err, errlen, "negative strides (dims[%d]) are not supported by the tool", d);
      return -1;
    }
    L->n *= v->dims[d].n;
    L->in_count *= cli_side_len(v, d, 0);
    L->out_count *= cli_side_len(v, d, 1);
    in_max += (cli_side_len(v, d, 0) - 1) * v->dims[d].in_stride;
    out_max += (cli_side_len(v, d, 1) - 1) * v->dims[d].out_stride;
  }
  for (int d = 0; d < v->batch_rank; d++) {
    if (v->batch[d].in_stride < 0 || v->batch[d].out_stride < 0) {
      snprintf(err, errlen, "negative strides (batch[%d]) are not supported by the tool", d);
      return -1;
    }
    L->batch *= v->batch[d].n;
    in_max += (v->batch[d].n - 1) * v->batch[d].in_stride;
    out_max += (v->batch[d].n - 1) * v->batch[d].out_stride;
  }
  L->in_bytes = (size_t)(in_max + 1) * L->in_elem;
  L->out_bytes = (size_t)(out_max + 1) * L->out_elem;
  L->buf_in_bytes = L->in_bytes;
  L->buf_out_bytes = L->out_bytes;
  if (v->inplace) {
    size_t m = L->in_bytes > L->out_bytes ? L->in_bytes : L->out_bytes;
    L->buf_in_bytes = L->buf_out_bytes = m;
  }
  return 0;
}

double cli_layout_flops(const cli_layout *L) {
  double n = (double)L->n;
  double per = n > 1 ? 5.0 * n * log2(n) : 0.0;
  if (L->p.kind != HYFFT_C2C) per *= 0.5;
  return per * (double)L->batch;
}

double cli_layout_bytes(const cli_layout *L) {
  return (double)L->batch *
         ((double)L->in_count * (double)L->in_elem + (double)L->out_count * (double)L->out_elem);
}

/* Coordinates of logical index idx in dims n[0..nd-1] (row major). */
static void cli_coords(int64_t idx, int nd, const int64_t *n, int64_t *k) {
  for (int d = nd - 1; d >= 0; d--) {
    k[d] = idx % n[d];
    idx /= n[d];
  }
}

/* A C2R input must be the half of a Hermitian spectrum, or libraries may
 * legitimately differ: the points on the k_last = 0 (and n/2) planes are
 * tied to their mirror images, self-mirrored points are real. */
static void cli_make_hermitian(const hyfft_problem *p, double *v /* re,im pairs */) {
  int r = p->rank;
  int64_t n[HYFFT_MAX_RANK] = {0}, half[HYFFT_MAX_RANK] = {0}, k[HYFFT_MAX_RANK] = {0};
  int64_t count = 1;
  if (r < 1) return;
  for (int d = 0; d < r; d++) {
    n[d] = p->dims[d].n;
    half[d] = cli_side_len(p, d, 0);
    count *= half[d];
  }
  int64_t nl = n[r - 1];
  for (int64_t idx = 0; idx < count; idx++) {
    int64_t kl = idx % half[r - 1];
    if (kl != 0 && !(nl % 2 == 0 && kl == nl / 2)) continue;
    cli_coords(idx, r, half, k);
    int64_t mirror = 0;
    for (int d = 0; d < r - 1; d++) mirror = mirror * half[d] + (n[d] - k[d]) % n[d];
    mirror = mirror * half[r - 1] + kl;
    if (mirror == idx) {
      v[2 * idx + 1] = 0.0;
    } else if (mirror < idx) {
      v[2 * idx] = v[2 * mirror];
      v[2 * idx + 1] = -v[2 * mirror + 1];
    }
  }
}

int64_t cli_check_slot(const cli_layout *L, int64_t keep, int64_t t) {
  int64_t head = (keep + 1) / 2, tail = keep - head;
  if (t < head) return t;
  if (t >= L->batch - tail) return head + (t - (L->batch - tail));
  return -1;
}

static void cli_gather_side(const cli_layout *L, int side, const void *phys, int64_t count,
                            cli_ldc *logical);

int cli_fill_input(const cli_layout *L, cli_rng *rng, void *phys_in, int64_t keep,
                   cli_ldc *logical) {
  const hyfft_problem *p = &L->p;
  int cplx = p->kind != HYFFT_R2C && p->kind != HYFFT_R2R;
  int f64 = p->precision == HYFFT_F64;
  hyfft_precision prec = p->precision;
  /* Only C2R needs a transform's values at once (made Hermitian before
   * they are stored); the others go straight to the buffer, so that a
   * transform of 2^32 points needs no 64 GiB of doubles beside it. */
  int whole = p->kind == HYFFT_C2R;
  double one[2];
  double *tmp = whole ? malloc((size_t)L->in_count * 2 * sizeof *tmp) : one;
  if (!tmp) return -1;
  cli_walk bw, tw;
  cli_walk_batch(&bw, p, 0);
  for (int64_t t = 0; t < L->batch; t++, cli_walk_next(&bw)) {
    for (int64_t j = 0; j < L->in_count && whole; j++) {
      double re = cli_rng_uniform(rng), im = cplx ? cli_rng_uniform(rng) : 0.0;
      /* Round now so that the reference sees exactly the library's input. */
      tmp[2 * j] = f64 ? re : cli_round(prec, re);
      tmp[2 * j + 1] = f64 ? im : cli_round(prec, im);
    }
    if (whole) cli_make_hermitian(p, tmp);
    cli_walk_transform(&tw, p, 0);
    for (int64_t jj = 0; jj < L->in_count; jj++, cli_walk_next(&tw)) {
      int64_t off = bw.off + tw.off, j = whole ? jj : 0;
      if (!whole) {
        double re = cli_rng_uniform(rng), im = cplx ? cli_rng_uniform(rng) : 0.0;
        tmp[0] = f64 ? re : cli_round(prec, re);
        tmp[1] = f64 ? im : cli_round(prec, im);
      }
      if (cli_is_half(prec)) {
        cli_half_put(prec, phys_in, cplx ? 2 * off : off, tmp[2 * j]);
        if (cplx) cli_half_put(prec, phys_in, 2 * off + 1, tmp[2 * j + 1]);
      } else if (f64) {
        double *d = (double *)phys_in;
        if (cplx) {
          d[2 * off] = tmp[2 * j];
          d[2 * off + 1] = tmp[2 * j + 1];
        } else {
          d[off] = tmp[2 * j];
        }
      } else {
        float *f = (float *)phys_in;
        if (cplx) {
          f[2 * off] = (float)tmp[2 * j];
          f[2 * off + 1] = (float)tmp[2 * j + 1];
        } else {
          f[off] = (float)tmp[2 * j];
        }
      }
      int64_t slot = cli_check_slot(L, keep, t);
      if (slot >= 0)
        logical[slot * L->in_count + jj] =
            (long double)tmp[2 * j] + I * (long double)tmp[2 * j + 1];
    }
  }
  if (whole) free(tmp);
  /* Where input elements alias (entries whose strides overlap, which is
   * legal for an input), a later store overwrote an earlier element: the
   * reference takes the checked transforms' values as the buffer holds
   * them, which is what the library reads. */
  cli_gather_side(L, 0, phys_in, keep, logical);
  return 0;
}

/* The logical elements of the checked transforms of one side (0 input,
 * 1 output) from its physical buffer. */
static void cli_gather_side(const cli_layout *L, int side, const void *phys, int64_t count,
                            cli_ldc *logical) {
  const hyfft_problem *p = &L->p;
  int cplx = side ? p->kind != HYFFT_C2R && p->kind != HYFFT_R2R
                  : p->kind != HYFFT_R2C && p->kind != HYFFT_R2R;
  int f64 = p->precision == HYFFT_F64;
  const int64_t len = side ? L->out_count : L->in_count;
  const void *phys_out = phys;
  cli_walk bw, tw;
  cli_walk_batch(&bw, p, side);
  for (int64_t t = 0; t < L->batch; t++, cli_walk_next(&bw)) {
    int64_t slot = cli_check_slot(L, count, t);
    if (slot < 0) continue;
    cli_walk_transform(&tw, p, side);
    for (int64_t j = 0; j < len; j++, cli_walk_next(&tw)) {
      int64_t off = bw.off + tw.off;
      long double re, im = 0.0L;
      if (cli_is_half(p->precision)) {
        re = cli_half_get(p->precision, phys_out, cplx ? 2 * off : off);
        if (cplx) im = cli_half_get(p->precision, phys_out, 2 * off + 1);
      } else if (f64) {
        const double *d = (const double *)phys_out;
        re = cplx ? d[2 * off] : d[off];
        if (cplx) im = d[2 * off + 1];
      } else {
        const float *f = (const float *)phys_out;
        re = cplx ? f[2 * off] : f[off];
        if (cplx) im = f[2 * off + 1];
      }
      logical[slot * len + j] = re + I * im;
    }
  }
}

void cli_gather_output(const cli_layout *L, const void *phys_out, int64_t count,
                       cli_ldc *logical) {
  cli_gather_side(L, 1, phys_out, count, logical);
}

int cli_reference(const cli_layout *L, int builtin, const cli_ldc *in, int64_t count,
                  cli_ldc *out, const char **ref_name, char *err, size_t errlen) {
  const hyfft_problem *p = &L->p;
  if (p->kind == HYFFT_R2R)
    return cli_reference_r2r(L, builtin, in, count, out, ref_name, err, errlen);
  int r = p->rank;
  int64_t n[HYFFT_MAX_RANK] = {0}, half[HYFFT_MAX_RANK] = {0}, k[HYFFT_MAX_RANK] = {0};
  for (int d = 0; d < r; d++) {
    n[d] = p->dims[d].n;
    half[d] = d == r - 1 && p->kind != HYFFT_C2C ? n[d] / 2 + 1 : n[d];
  }
  cli_ref *ref = NULL;
  if (cli_ref_create(r, n, p->sign, builtin, &ref, err, errlen)) return -1;
  if (ref_name) *ref_name = cli_ref_name(ref);
  cli_ldc *full = malloc((size_t)L->n * sizeof *full);
  if (!full) {
    cli_ref_destroy(ref);
    snprintf(err, errlen, "out of memory for a %lld-point reference", (long long)L->n);
    return -1;
  }
  long double scale = (long double)p->scale;
  int64_t nl = r ? n[r - 1] : 1, hl = r ? half[r - 1] : 1;
  for (int64_t t = 0; t < count; t++) {
    const cli_ldc *x = in + t * L->in_count;
    cli_ldc *y = out + t * L->out_count;
    if (p->kind == HYFFT_C2R) {
      /* Unfold the half spectrum with X[k] = conj(X[-k]). */
      for (int64_t idx = 0; idx < L->n; idx++) {
        cli_coords(idx, r, n, k);
        int64_t h = 0;
        if (k[r - 1] < hl) {
          for (int d = 0; d < r; d++) h = h * half[d] + k[d];
          full[idx] = x[h];
        } else {
          for (int d = 0; d < r; d++) h = h * half[d] + (n[d] - k[d]) % n[d];
          full[idx] = conjl(x[h]);
        }
      }
    } else {
      memcpy(full, x, (size_t)L->n * sizeof *full);
    }
    cli_ref_run(ref, full);
    if (p->kind == HYFFT_C2C) {
      for (int64_t j = 0; j < L->n; j++) y[j] = full[j] * scale;
    } else if (p->kind == HYFFT_C2R) {
      for (int64_t j = 0; j < L->n; j++) y[j] = creall(full[j]) * scale;
    } else {
      int64_t outer = L->n / nl;
      for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < hl; j++) y[o * hl + j] = full[o * nl + j] * scale;
    }
  }
  free(full);
  cli_ref_destroy(ref);
  return 0;
}

void cli_errors(const cli_ldc *out, const cli_ldc *ref, int64_t count, double *rel_rms,
                double *max_err) {
  long double num = 0, den = 0, dmax = 0, rmax = 0;
  int nan = 0;
  for (int64_t i = 0; i < count; i++) {
    long double d = cabsl(out[i] - ref[i]), a = cabsl(ref[i]);
    if (d != d) nan = 1;
    num += d * d;
    den += a * a;
    if (d > dmax) dmax = d;
    if (a > rmax) rmax = a;
  }
  if (nan) {
    *rel_rms = *max_err = NAN;
    return;
  }
  *rel_rms = den > 0 ? (double)sqrtl(num / den) : (num > 0 ? INFINITY : 0.0);
  *max_err = rmax > 0 ? (double)(dmax / rmax) : (dmax > 0 ? INFINITY : 0.0);
}

double cli_rms_gate(hyfft_precision prec, int64_t n) {
  /* f16/bf16: the output's rounding to the format sets the error (about
   * 2.8e-4 and 2.3e-3 relative RMS for one rounding), not N; the same
   * gates as the test suites (tests/common/harness.c). */
  if (cli_is_half(prec)) return prec == HYFFT_BF16 ? 1.6e-2 : 2e-3;
  double u = prec == HYFFT_F64 ? 0x1.0p-53 : 0x1.0p-24;
  double l = n > 2 ? log2((double)n) : 1.0;
  return 5.0 * u * sqrt(l);
}

int64_t cli_check_count(const cli_layout *L, int64_t limit, int64_t hard) {
  if (L->n > hard) return 0;
  int64_t k = limit / (L->n > 0 ? L->n : 1);
  if (k < 1) k = 1;
  if (k > L->batch) k = L->batch;
  return k;
}
