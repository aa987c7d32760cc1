/* A reference-free check of a transform, in the style of FFTW's verifier
 * (after Ergün): properties every DFT has, tested on the library's own
 * outputs, so that problems too large for the long-double reference are
 * still checked. With random inputs x, y and coefficients a, b:
 *
 *   linearity:  T(a x + b y) = a T(x) + b T(y)   (real a, b for R2C/C2R);
 *   impulse:    T(delta) = scale everywhere      (delta at index 0 of
 *               every transform of the batch);
 *   time shift: (C2C) x shifted by one along the last axis gives T(x)
 *               times exp(sign 2 pi i k / n) at output index k.
 *
 * Errors are relative RMS over every output element (impulse: the largest
 * deviation over the scale), in double precision on the strided buffers,
 * so the check needs only copies of the physical buffers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Run the plan on `src` (physical input) into `dst` (physical output). */
static hyfft_status cli_st_run(cli_case *c, const void *src, void *dst) {
  memcpy(c->host_in, src, c->L.buf_in_bytes);
  hyfft_status st = cli_case_upload(c, 0, 1);
  if (st == HYFFT_SUCCESS) st = cli_case_execute(c);
  if (st == HYFFT_SUCCESS) st = cli_case_download(c);
  if (st == HYFFT_SUCCESS) memcpy(dst, c->host_out, c->L.buf_out_bytes);
  return st;
}

/* Element `off` of a physical buffer as (re, im). */
static void cli_st_get(const void *buf, int64_t off, int cplx, int prec, double *re, double *im) {
  if (cli_is_half((hyfft_precision)prec)) {
    *re = cli_half_get((hyfft_precision)prec, buf, cplx ? 2 * off : off);
    *im = cplx ? cli_half_get((hyfft_precision)prec, buf, 2 * off + 1) : 0.0;
  } else if (prec == HYFFT_F64) {
    const double *d = buf;
    *re = cplx ? d[2 * off] : d[off];
    *im = cplx ? d[2 * off + 1] : 0.0;
  } else {
    const float *f = buf;
    *re = cplx ? f[2 * off] : f[off];
    *im = cplx ? f[2 * off + 1] : 0.0;
  }
}

static void cli_st_set(void *buf, int64_t off, int cplx, int prec, double re, double im) {
  if (cli_is_half((hyfft_precision)prec)) {
    cli_half_put((hyfft_precision)prec, buf, cplx ? 2 * off : off, re);
    if (cplx) cli_half_put((hyfft_precision)prec, buf, 2 * off + 1, im);
  } else if (prec == HYFFT_F64) {
    double *d = buf;
    if (cplx) {
      d[2 * off] = re;
      d[2 * off + 1] = im;
    } else {
      d[off] = re;
    }
  } else {
    float *f = buf;
    if (cplx) {
      f[2 * off] = (float)re;
      f[2 * off + 1] = (float)im;
    } else {
      f[off] = (float)re;
    }
  }
}

/* Relative RMS over the output elements of got - (a * x + b * y), with
 * complex a = (ar, ai), b = (br, bi); y may be NULL (b = 0). With `shift`
 * (C2C), x is first multiplied by exp(sign 2 pi i k / n) at index k of the
 * last axis. */
static double cli_st_compare(const cli_layout *L, const void *got, const void *x, double ar,
                             double ai, const void *y, double br, double bi, int shift) {
  const hyfft_problem *p = &L->p;
  int cplx = p->kind != HYFFT_C2R, prec = (int)p->precision;
  double num = 0, den = 0;
  int last = p->rank - 1;
  double w = (p->sign < 0 ? -2.0 : 2.0) * M_PI / (double)p->dims[last].n;
  cli_walk bw, tw;
  cli_walk_batch(&bw, p, 1);
  for (int64_t t = 0; t < L->batch; t++, cli_walk_next(&bw)) {
    cli_walk_transform(&tw, p, 1);
    for (int64_t j = 0; j < L->out_count; j++, cli_walk_next(&tw)) {
      int64_t off = bw.off + tw.off;
      double gr, gi, xr, xi, yr = 0, yi = 0;
      cli_st_get(got, off, cplx, prec, &gr, &gi);
      cli_st_get(x, off, cplx, prec, &xr, &xi);
      if (shift) {
        double ang = w * (double)(tw.i[last] % p->dims[last].n);
        double c = cos(ang), s = sin(ang), r = xr * c - xi * s;
        xi = xr * s + xi * c;
        xr = r;
      }
      if (y) cli_st_get(y, off, cplx, prec, &yr, &yi);
      double er = ar * xr - ai * xi + br * yr - bi * yi;
      double ei = ar * xi + ai * xr + br * yi + bi * yr;
      num += (gr - er) * (gr - er) + (gi - ei) * (gi - ei);
      den += er * er + ei * ei;
    }
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

int cli_self_test(cli_case *c, uint64_t seed, cli_self_result *r, char *err, size_t errlen) {
  const cli_layout *L = &c->L;
  const hyfft_problem *p = &L->p;
  int cplx_in = p->kind != HYFFT_R2C, prec = (int)p->precision;
  size_t ib = L->buf_in_bytes, ob = L->buf_out_bytes;
  memset(r, 0, sizeof *r);
  r->shift = NAN;
  unsigned char *xin = malloc(ib), *yin = malloc(ib), *zin = malloc(ib);
  unsigned char *xo = malloc(ob), *yo = malloc(ob), *zo = malloc(ob);
  int rc = -1;
  hyfft_status st = HYFFT_SUCCESS;
  if (!xin || !yin || !zin || !xo || !yo || !zo) {
    snprintf(err, errlen, "out of memory for the self-test's copies");
    goto done;
  }
  /* x and y: two seeded random inputs (Hermitian for C2R). */
  if (cli_case_fill(c, seed, 0, NULL, 0)) goto oom;
  memcpy(xin, c->host_in, ib);
  if (cli_case_fill(c, seed ^ 0x9e3779b97f4a7c15ull, 0, NULL, 0)) goto oom;
  memcpy(yin, c->host_in, ib);

  /* Linearity. */
  int cplx_coef = p->kind == HYFFT_C2C;
  double ar = 0.6, ai = cplx_coef ? 0.3 : 0.0, br = -1.3, bi = cplx_coef ? 0.7 : 0.0;
  size_t count = ib / (prec == HYFFT_F64 ? 8 : cli_is_half((hyfft_precision)prec) ? 2 : 4) / (cplx_in ? 2 : 1);
  for (size_t k = 0; k < count; k++) {
    double xr, xi, yr, yi;
    cli_st_get(xin, (int64_t)k, cplx_in, prec, &xr, &xi);
    cli_st_get(yin, (int64_t)k, cplx_in, prec, &yr, &yi);
    cli_st_set(zin, (int64_t)k, cplx_in, prec, ar * xr - ai * xi + br * yr - bi * yi,
               ar * xi + ai * xr + br * yi + bi * yr);
  }
  if ((st = cli_st_run(c, xin, xo)) != HYFFT_SUCCESS || (st = cli_st_run(c, yin, yo)) ||
      (st = cli_st_run(c, zin, zo)))
    goto failed;
  r->linearity = cli_st_compare(L, zo, xo, ar, ai, yo, br, bi, 0);

  /* Impulse: one at index 0 of every transform, zero elsewhere. */
  memset(zin, 0, ib);
  cli_walk bw;
  cli_walk_batch(&bw, p, 0);
  for (int64_t t = 0; t < L->batch; t++, cli_walk_next(&bw))
    cli_st_set(zin, bw.off, cplx_in, prec, 1.0, 0.0);
  if ((st = cli_st_run(c, zin, zo)) != HYFFT_SUCCESS) goto failed;
  {
    int cplx_out = p->kind != HYFFT_C2R;
    double worst = 0;
    cli_walk tw;
    cli_walk_batch(&bw, p, 1);
    for (int64_t t = 0; t < L->batch; t++, cli_walk_next(&bw)) {
      cli_walk_transform(&tw, p, 1);
      for (int64_t j = 0; j < L->out_count; j++, cli_walk_next(&tw)) {
        double gr, gi;
        cli_st_get(zo, bw.off + tw.off, cplx_out, prec, &gr, &gi);
        double e = hypot(gr - p->scale, gi) / fabs(p->scale);
        if (!(e <= worst)) worst = e; /* NaN counts as worst */
      }
    }
    r->impulse = worst;
  }

  /* Time shift along the last axis (C2C): x'[j] = x[j - 1 mod n]. */
  if (p->kind == HYFFT_C2C) {
    int last = p->rank - 1;
    int64_t n = p->dims[last].n, s = p->dims[last].in_stride;
    cli_walk tw;
    memcpy(zin, xin, ib);
    cli_walk_batch(&bw, p, 0);
    for (int64_t t = 0; t < L->batch; t++, cli_walk_next(&bw)) {
      cli_walk_transform(&tw, p, 0);
      for (int64_t j = 0; j < L->in_count; j++, cli_walk_next(&tw)) {
        int64_t off = bw.off + tw.off;
        int64_t from = tw.i[last] > 0 ? off - s : off + (n - 1) * s;
        double re, im;
        cli_st_get(xin, from, 1, prec, &re, &im);
        cli_st_set(zin, off, 1, prec, re, im);
      }
    }
    if ((st = cli_st_run(c, zin, zo)) != HYFFT_SUCCESS) goto failed;
    r->shift = cli_st_compare(L, zo, xo, 1.0, 0.0, NULL, 0.0, 0.0, 1);
  }
  rc = 0;
  goto done;
oom:
  snprintf(err, errlen, "out of memory generating input");
  goto done;
failed:
  snprintf(err, errlen, "%s: %s", hyfft_status_name(st), hyfft_last_error());
done:
  free(xin);
  free(yin);
  free(zin);
  free(xo);
  free(yo);
  free(zo);
  return rc;
}
