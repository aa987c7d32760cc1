/* The manual's multi-dimensional real-data example, written afresh: an
 * in-place 2D R2C on FFTW's padded layout (rows of 2 (n1/2 + 1) reals) in
 * single precision, then the C2R back, plus an out-of-place 3D R2C in
 * double precision through fftw_plan_dft_r2c with a rank and dims array. */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>

#define N0 24
#define N1 30

int main(void) {
  int pad = 2 * (N1 / 2 + 1);
  float *data = fftwf_alloc_real((size_t)N0 * pad);
  if (!data) return 1;
  fftwf_complex *spec = (fftwf_complex *)data;
  fftwf_plan fwd = fftwf_plan_dft_r2c_2d(N0, N1, data, spec, FFTW_ESTIMATE);
  fftwf_plan bwd = fftwf_plan_dft_c2r_2d(N0, N1, spec, data, FFTW_ESTIMATE);
  if (!fwd || !bwd) return 1;
  for (int i = 0; i < N0; i++)
    for (int j = 0; j < N1; j++) data[i * pad + j] = (float)(sin(0.2 * i + 0.05 * j * j) + 0.1 * i);
  fftwf_execute(fwd);
  for (int i = 0; i < N0 * (N1 / 2 + 1); i++) printf("f.spec %.9g %.9g\n", spec[i][0], spec[i][1]);
  fftwf_execute(bwd);
  for (int i = 0; i < N0; i++)
    for (int j = 0; j < N1; j++) printf("f.back %.9g\n", data[i * pad + j] / (N0 * N1));
  fftwf_destroy_plan(fwd);
  fftwf_destroy_plan(bwd);
  fftwf_free(data);

  int n[3] = {6, 10, 9};
  double *x = fftw_alloc_real(6 * 10 * 9);
  fftw_complex *y = fftw_alloc_complex(6 * 10 * 5);
  if (!x || !y) return 1;
  fftw_plan p3 = fftw_plan_dft_r2c(3, n, x, y, FFTW_MEASURE);
  if (!p3) return 1;
  for (int i = 0; i < 540; i++) x[i] = cos(0.37 * i) - 0.2 * (i % 7);
  fftw_execute(p3);
  for (int i = 0; i < 300; i++) printf("d.r2c3 %.17g %.17g\n", y[i][0], y[i][1]);
  fftw_destroy_plan(p3);
  fftw_free(x);
  fftw_free(y);
  return 0;
}
