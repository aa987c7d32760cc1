/* The long-double reference (FFTW's fftwl guru64 interface) and the error
 * norms of DESIGN section 7. The reference runs on the logical (contiguous)
 * layout: the values are exactly those hyfft reads from its strided buffers,
 * so the transform is the same, and padded layouts cost no reference memory. */
#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "harness.h"

/* Contiguous logical dims of one side: per-transform counts for the
 * transform dims, and the batch dims outside them. */
static void hyt_ref_dims(const hyt_layout *lay, fftwl_iodim64 *dims, fftwl_iodim64 *hdims) {
  const hyfft_problem *p = &lay->prob;
  int r = p->rank;
  int64_t is = 1, os = 1;
  for (int d = r - 1; d >= 0; d--) {
    int64_t n = p->dims[d].n, nin = n, nout = n;
    if (d == r - 1 && p->kind == HYFFT_R2C) nout = n / 2 + 1;
    if (d == r - 1 && p->kind == HYFFT_C2R) nin = n / 2 + 1;
    dims[d].n = n;
    dims[d].is = is;
    dims[d].os = os;
    is *= nin;
    os *= nout;
  }
  for (int b = p->batch_rank - 1; b >= 0; b--) {
    hdims[b].n = p->batch[b].n;
    hdims[b].is = is;
    hdims[b].os = os;
    is *= p->batch[b].n;
    os *= p->batch[b].n;
  }
}

int hyt_reference(const hyt_layout *lay, const hyt_cvec *in, hyt_cvec *out) {
  const hyfft_problem *p = &lay->prob;
  fftwl_iodim64 dims[HYFFT_MAX_RANK], hdims[HYFFT_MAX_BATCH_RANK];
  hyt_ref_dims(lay, dims, hdims);
  if (out->n != lay->count_out) {
    hyt_cvec_free(out);
    if (hyt_cvec_alloc(out, lay->count_out)) return 1;
  }
  size_t nin = (size_t)lay->count_in, nout = (size_t)lay->count_out;
  int rc = 1;
  fftwl_plan plan = NULL;
  void *bin = NULL, *bout = NULL;
  if (p->kind == HYFFT_C2C) {
    bin = fftwl_malloc(nin * sizeof(fftwl_complex));
    bout = fftwl_malloc(nout * sizeof(fftwl_complex));
    if (!bin || !bout) goto done;
    plan = fftwl_plan_guru64_dft(p->rank, dims, p->batch_rank, hdims, bin, bout, p->sign,
                                 FFTW_ESTIMATE);
    if (!plan) goto done;
    memcpy(bin, in->v, nin * sizeof(fftwl_complex));
    fftwl_execute(plan);
    memcpy(out->v, bout, nout * sizeof(fftwl_complex));
  } else if (p->kind == HYFFT_R2C) {
    bin = fftwl_malloc(nin * sizeof(long double));
    bout = fftwl_malloc(nout * sizeof(fftwl_complex));
    if (!bin || !bout) goto done;
    plan = fftwl_plan_guru64_dft_r2c(p->rank, dims, p->batch_rank, hdims, bin, bout,
                                     FFTW_ESTIMATE);
    if (!plan) goto done;
    long double *r = bin;
    for (size_t i = 0; i < nin; i++) r[i] = in->v[2 * i];
    fftwl_execute(plan);
    memcpy(out->v, bout, nout * sizeof(fftwl_complex));
  } else {
    bin = fftwl_malloc(nin * sizeof(fftwl_complex));
    bout = fftwl_malloc(nout * sizeof(long double));
    if (!bin || !bout) goto done;
    plan = fftwl_plan_guru64_dft_c2r(p->rank, dims, p->batch_rank, hdims, bin, bout,
                                     FFTW_ESTIMATE);
    if (!plan) goto done;
    memcpy(bin, in->v, nin * sizeof(fftwl_complex));
    fftwl_execute(plan);
    const long double *r = bout;
    for (size_t i = 0; i < nout; i++) {
      out->v[2 * i] = r[i];
      out->v[2 * i + 1] = 0;
    }
  }
  long double scale = p->scale == 0 ? 1.0L : (long double)p->scale;
  if (scale != 1.0L)
    for (size_t i = 0; i < 2 * nout; i++) out->v[i] *= scale;
  rc = 0;
done:
  if (plan) fftwl_destroy_plan(plan);
  fftwl_free(bin);
  fftwl_free(bout);
  return rc;
}

hyt_errors hyt_compare(const hyt_layout *lay, const hyt_cvec *out, const hyt_cvec *ref) {
  hyt_errors e;
  long double sd = 0, sr = 0, md = 0, mr = 0;
  int nan = 0;
  for (int64_t i = 0; i < ref->n; i++) {
    long double dr = out->v[2 * i] - ref->v[2 * i], di = out->v[2 * i + 1] - ref->v[2 * i + 1];
    long double d2 = dr * dr + di * di;
    long double r2 = ref->v[2 * i] * ref->v[2 * i] + ref->v[2 * i + 1] * ref->v[2 * i + 1];
    if (isnan(d2)) nan = 1;
    sd += d2;
    sr += r2;
    if (d2 > md) md = d2;
    if (r2 > mr) mr = r2;
  }
  if (sr == 0) sr = 1;
  if (mr == 0) mr = 1;
  e.rms = nan ? NAN : (double)sqrtl(sd / sr);
  e.max = nan ? NAN : (double)sqrtl(md / mr);
  double s = hyt_error_scale(lay->prob.precision, lay->n_total);
  e.rms_gate = 5.0 * s;
  e.max_gate = 10.0 * e.rms_gate;
  if (lay->prob.precision == HYFFT_F16 || lay->prob.precision == HYFFT_BF16) {
    e.rms_gate = hyt_half_rms_gate(lay->prob.precision);
    e.max_gate = 5.0 * e.rms_gate;
  }
  e.pass = e.rms <= e.rms_gate && e.max <= e.max_gate;
  return e;
}
