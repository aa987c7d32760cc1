/* Real-to-real transforms through FFTW's interface, written afresh: every
 * DCT/DST kind and the DHT with fftw_plan_r2r_1d (double), a 2D plan of
 * two kinds (single), a batched strided fftw_plan_many_r2r, a guru64
 * plan in place, fftw_execute_r2r on other arrays, and the halfcomplex
 * FFTW_R2HC / FFTW_HC2R (odd and even lengths, in place, batched and
 * strided in single precision). Run once with
 * FFTW and once with libhyfft_fftw3; compare_outputs checks that both
 * print the same numbers to rounding. */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>

static const fftw_r2r_kind kinds[9] = {FFTW_REDFT00, FFTW_REDFT10, FFTW_REDFT01,
                                       FFTW_REDFT11, FFTW_RODFT00, FFTW_RODFT10,
                                       FFTW_RODFT01, FFTW_RODFT11, FFTW_DHT};

int main(void) {
  enum { N = 24 };
  double *x = fftw_alloc_real(4 * 64), *y = fftw_alloc_real(4 * 64);
  if (!x || !y) return 1;
  for (int k = 0; k < 9; k++) {
    fftw_plan p = fftw_plan_r2r_1d(N, x, y, kinds[k], FFTW_ESTIMATE);
    if (!p) return 1;
    for (int i = 0; i < N; i++) x[i] = sin(0.3 * i + k) + 0.01 * i * i;
    fftw_execute(p);
    for (int i = 0; i < N; i++) printf("d.k%d %.17g\n", k, y[i]);
    fftw_destroy_plan(p);
  }

  float *a = fftwf_alloc_real(10 * 13), *b = fftwf_alloc_real(10 * 13);
  if (!a || !b) return 1;
  fftwf_plan p2 = fftwf_plan_r2r_2d(10, 13, a, b, FFTW_REDFT10, FFTW_RODFT11, FFTW_ESTIMATE);
  if (!p2) return 1;
  for (int i = 0; i < 130; i++) a[i] = (float)cos(0.11 * i * i);
  fftwf_execute(p2);
  for (int i = 0; i < 130; i++) printf("f.2d %.9g\n", b[i]);
  fftwf_destroy_plan(p2);
  fftwf_free(a);
  fftwf_free(b);

  /* 3 transforms of 17, every other element, 40 apart in, 20 out. */
  int n17 = 17;
  fftw_r2r_kind k17 = FFTW_REDFT01;
  fftw_plan pm = fftw_plan_many_r2r(1, &n17, 3, x, NULL, 2, 40, y, NULL, 1, 20, &k17, FFTW_MEASURE);
  if (!pm) return 1;
  for (int i = 0; i < 4 * 64; i++) x[i] = 0.5 - 0.001 * i * (i % 5);
  fftw_execute(pm);
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < 17; i++) printf("d.many %.17g\n", y[20 * t + i]);
  /* The same plan on other arrays. */
  for (int i = 0; i < 4 * 64; i++) y[i] = cos(0.05 * i);
  fftw_execute_r2r(pm, y, x);
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < 17; i++) printf("d.newarray %.17g\n", x[20 * t + i]);
  fftw_destroy_plan(pm);

  /* In place, guru64: 6 x 5 of DST-I x DHT. */
  fftw_iodim64 dims[2] = {{6, 5, 5}, {5, 1, 1}};
  fftw_r2r_kind kk[2] = {FFTW_RODFT00, FFTW_DHT};
  fftw_plan pg = fftw_plan_guru64_r2r(2, dims, 0, NULL, x, x, kk, FFTW_ESTIMATE);
  if (!pg) return 1;
  for (int i = 0; i < 30; i++) x[i] = 1.0 / (1 + i);
  fftw_execute(pg);
  for (int i = 0; i < 30; i++) printf("d.guru %.17g\n", x[i]);
  fftw_destroy_plan(pg);

  /* Halfcomplex: FFTW_R2HC and FFTW_HC2R of an odd and an even length,
   * in place, and a batched strided fftwf_plan_many_r2r of each. */
  for (int n = 15; n <= 16; n++) {
    fftw_plan ph = fftw_plan_r2r_1d(n, x, y, FFTW_R2HC, FFTW_ESTIMATE);
    fftw_plan pb = fftw_plan_r2r_1d(n, y, x, FFTW_HC2R, FFTW_ESTIMATE);
    fftw_plan pi = fftw_plan_r2r_1d(n, x, x, FFTW_R2HC, FFTW_ESTIMATE);
    if (!ph || !pb || !pi) return 1;
    for (int i = 0; i < n; i++) x[i] = sin(0.7 * i) + 0.1 * i;
    fftw_execute(ph);
    for (int i = 0; i < n; i++) printf("d.r2hc%d %.17g\n", n, y[i]);
    fftw_execute(pb);
    for (int i = 0; i < n; i++) printf("d.hc2r%d %.17g\n", n, x[i]);
    fftw_execute(pi);
    for (int i = 0; i < n; i++) printf("d.r2hc_ip%d %.17g\n", n, x[i]);
    fftw_destroy_plan(ph);
    fftw_destroy_plan(pb);
    fftw_destroy_plan(pi);
  }
  float *fa = fftwf_alloc_real(4 * 64), *fb = fftwf_alloc_real(4 * 64);
  if (!fa || !fb) return 1;
  int n12 = 12;
  fftwf_r2r_kind r2hc = FFTW_R2HC, hc2r = FFTW_HC2R;
  fftwf_plan fm = fftwf_plan_many_r2r(1, &n12, 3, fa, NULL, 2, 40, fb, NULL, 1, 20, &r2hc,
                                      FFTW_ESTIMATE);
  fftwf_plan fi = fftwf_plan_many_r2r(1, &n12, 3, fb, NULL, 1, 20, fa, NULL, 3, 50, &hc2r,
                                      FFTW_ESTIMATE);
  if (!fm || !fi) return 1;
  for (int i = 0; i < 4 * 64; i++) fa[i] = (float)(0.25 - 0.002 * i * (i % 7));
  fftwf_execute(fm);
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < 12; i++) printf("f.many_r2hc %.9g\n", fb[20 * t + i]);
  fftwf_execute(fi);
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < 12; i++) printf("f.many_hc2r %.9g\n", fa[50 * t + 3 * i]);
  fftwf_destroy_plan(fm);
  fftwf_destroy_plan(fi);
  /* Two dims: R2HC x REDFT10 out of place, then HC2R x HC2R in place. */
  fftw_r2r_kind mixed[2] = {FFTW_R2HC, FFTW_REDFT10}, back2[2] = {FFTW_HC2R, FFTW_HC2R};
  fftw_plan p2a = fftw_plan_r2r_2d(6, 9, x, y, mixed[0], mixed[1], FFTW_ESTIMATE);
  fftw_plan p2b = fftw_plan_r2r_2d(6, 9, y, y, back2[0], back2[1], FFTW_ESTIMATE);
  if (!p2a || !p2b) return 1;
  for (int i = 0; i < 54; i++) x[i] = cos(0.21 * i) - 0.01 * i;
  fftw_execute(p2a);
  for (int i = 0; i < 54; i++) printf("d.r2hc2d %.17g\n", y[i]);
  fftw_execute(p2b);
  for (int i = 0; i < 54; i++) printf("d.hc2r2d %.17g\n", y[i]);
  fftw_destroy_plan(p2a);
  fftw_destroy_plan(p2b);
  fftwf_free(fa);
  fftwf_free(fb);
  fftw_free(x);
  fftw_free(y);
  return 0;
}
