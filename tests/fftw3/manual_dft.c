/* The first example of FFTW's manual ("Complex One-Dimensional DFTs"),
 * written afresh: plan a 1D complex DFT (FFTW_MEASURE, which may overwrite
 * the arrays, so the input is filled after planning), execute it, then the
 * backward transform of the result. Prints every output value; run linked
 * against FFTW and against libhyfft_fftw3, the two outputs are compared. */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>

#define N 240

int main(void) {
  fftw_complex *in = fftw_malloc(sizeof(fftw_complex) * N);
  fftw_complex *out = fftw_malloc(sizeof(fftw_complex) * N);
  fftw_complex *back = fftw_malloc(sizeof(fftw_complex) * N);
  if (!in || !out || !back) return 1;
  fftw_plan forward = fftw_plan_dft_1d(N, in, out, FFTW_FORWARD, FFTW_MEASURE);
  fftw_plan backward = fftw_plan_dft_1d(N, out, back, FFTW_BACKWARD, FFTW_ESTIMATE);
  if (!forward || !backward) return 1;
  for (int i = 0; i < N; i++) {
    in[i][0] = cos(0.3 * i) + 0.25 * sin(1.7 * i * i);
    in[i][1] = 0.5 * sin(0.11 * i);
  }
  fftw_execute(forward);
  fftw_execute(backward);
  for (int i = 0; i < N; i++) printf("d.out %.17g %.17g\n", out[i][0], out[i][1]);
  for (int i = 0; i < N; i++) printf("d.back %.17g %.17g\n", back[i][0] / N, back[i][1] / N);
  fftw_destroy_plan(forward);
  fftw_destroy_plan(backward);
  fftw_free(in);
  fftw_free(out);
  fftw_free(back);
  fftw_cleanup();
  return 0;
}
