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

  /* Split arrays: a batched 2D split DFT (forward, and backward by the
   * swapped parts), its execute on other arrays, split R2C and C2R of an
   * odd last dim, all strided. */
  enum { SA = 6, SB = 5, SH = 3 };
  double *sr = fftw_alloc_real(4 * 512), *si = fftw_alloc_real(4 * 512);
  double *tr = fftw_alloc_real(4 * 512), *ti = fftw_alloc_real(4 * 512);
  if (!sr || !si || !tr || !ti) return 1;
  for (int i = 0; i < 4 * 512; i++) {
    sr[i] = sin(0.013 * i * (i % 11)) + 0.2;
    si[i] = cos(0.007 * i);
    tr[i] = ti[i] = 0;
  }
  fftw_iodim sd[2] = {{SA, 2 * SB, SB}, {SB, 2, 1}}, sh[1] = {{SH, 2 * SA * SB, SA * SB}};
  fftw_plan sp = fftw_plan_guru_split_dft(2, sd, 1, sh, sr, si, tr, ti, FFTW_ESTIMATE);
  if (!sp) return 1;
  fftw_execute(sp);
  for (int i = 0; i < SH * SA * SB; i++) printf("d.split %.17g %.17g\n", tr[i], ti[i]);
  fftw_execute_split_dft(sp, ti, tr, si, sr); /* backward: the parts swapped */
  for (int i = 0; i < SH * 2 * SA * SB; i += 2) printf("d.split_back %.17g %.17g\n", sr[i], si[i]);
  fftw_destroy_plan(sp);
  fftw_iodim rd[2] = {{4, 7, 4 * 3}, {7, 1, 3}};
  fftw_plan sr2c = fftw_plan_guru_split_dft_r2c(2, rd, 0, NULL, sr, tr, ti, FFTW_ESTIMATE);
  fftw_iodim cd[2] = {{4, 4 * 3, 7}, {7, 3, 1}};
  fftw_plan sc2r = fftw_plan_guru_split_dft_c2r(2, cd, 0, NULL, tr, ti, si, FFTW_ESTIMATE);
  if (!sr2c || !sc2r) return 1;
  for (int i = 0; i < 28; i++) sr[i] = 1.0 / (2 + i) - 0.1 * (i % 3);
  fftw_execute(sr2c);
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 4; j++) printf("d.split_r2c %.17g %.17g\n", tr[12 * k + 3 * j], ti[12 * k + 3 * j]);
  fftw_execute(sc2r);
  for (int i = 0; i < 28; i++) printf("d.split_c2r %.17g\n", si[i] / 28);
  fftw_destroy_plan(sr2c);
  fftw_destroy_plan(sc2r);
  fftw_free(sr);
  fftw_free(si);
  fftw_free(tr);
  fftw_free(ti);
  fftw_free(in);
  fftw_free(out);
  fftw_free(back);
  fftw_cleanup();
  return 0;
}
