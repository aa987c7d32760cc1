/* Real-to-real transforms through FFTW's interface, written afresh: every
 * DCT/DST kind and the DHT with fftw_plan_r2r_1d (double), a 2D plan of
 * two kinds (single), a batched strided fftw_plan_many_r2r, a guru64
 * plan in place, and fftw_execute_r2r on other arrays. Run once with
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
  fftw_free(x);
  fftw_free(y);
  return 0;
}
