/* Every interface of FFTW 3.3 that hyfft's FFTW3 library provides, in both
 * precisions: the basic planners (1d/2d/3d and rank-N), the advanced ones
 * (plan_many with embeds, strides and distances), the guru ones (32- and
 * 64-bit dims, two howmany dims), the new-array execute functions, the
 * planner flags (MEASURE, ESTIMATE, PATIENT, PRESERVE_INPUT,
 * DESTROY_INPUT), the threads API (the caller's own parallel loop through
 * fftw_threads_set_callback included), fftw_alloc_*, and wisdom exported to a
 * string and read back. Prints every output value (and whether a
 * PRESERVE_INPUT input came back unchanged); linked against FFTW and
 * against libhyfft_fftw3, the outputs are compared. */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fill_d(fftw_complex *a, int n, double s) {
  for (int i = 0; i < n; i++) {
    a[i][0] = sin(s * i + 0.3) + 0.01 * (i % 13);
    a[i][1] = cos(0.7 * s * i) - 0.02 * (i % 5);
  }
}

static void fill_f(fftwf_complex *a, int n, float s) {
  for (int i = 0; i < n; i++) {
    a[i][0] = sinf(s * (float)i + 0.3f);
    a[i][1] = cosf(0.7f * s * (float)i);
  }
}

static void print_d(const char *tag, const fftw_complex *a, int n) {
  for (int i = 0; i < n; i++) printf("d.%s %.17g %.17g\n", tag, a[i][0], a[i][1]);
}

static void print_f(const char *tag, const fftwf_complex *a, int n) {
  for (int i = 0; i < n; i++) printf("f.%s %.9g %.9g\n", tag, a[i][0], a[i][1]);
}

/* The caller's parallel loop (fftw_threads_set_callback): runs the jobs
 * one after the other on this thread and counts its calls. */
static void serial_loop(void *(*work)(char *), char *jobdata, size_t elsize, int njobs,
                        void *data) {
  int *calls = data;
  (*calls)++;
  for (int i = 0; i < njobs; i++) work(jobdata + elsize * (size_t)i);
}

/* A 2-thread plan run through the caller's loop: its outputs (every 97th
 * element) and whether the loop was used. */
static int callback_check(void) {
  int calls = 0;
  fftw_threads_set_callback(serial_loop, &calls);
  fftw_plan_with_nthreads(2);
  const int n0 = 256, n1 = 512;
  fftw_complex *in = fftw_alloc_complex((size_t)n0 * n1), *out = fftw_alloc_complex((size_t)n0 * n1);
  if (!in || !out) return 1;
  fftw_plan p = fftw_plan_dft_2d(n0, n1, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  if (!p) return 1;
  fill_d(in, n0 * n1, 0.013);
  fftw_execute(p);
  for (int i = 0; i < n0 * n1; i += 97) printf("d.callback %.17g %.17g\n", out[i][0], out[i][1]);
  printf("i.callback_used %d\n", calls > 0);
  fftw_destroy_plan(p);
  /* NULL: back to the library's own threads; a plan still runs. */
  fftw_threads_set_callback(NULL, NULL);
  calls = 0;
  p = fftw_plan_dft_2d(n0, n1, in, out, FFTW_BACKWARD, FFTW_ESTIMATE);
  if (!p) return 1;
  fftw_execute(p);
  printf("d.callback_back %.17g %.17g\n", out[5][0], out[5][1]);
  printf("i.callback_after_reset %d\n", calls);
  fftw_destroy_plan(p);
  fftw_free(in);
  fftw_free(out);
  return 0;
}

int main(void) {
  if (!fftw_init_threads() || !fftwf_init_threads()) return 1;
  fftw_plan_with_nthreads(2);
  fftwf_plan_with_nthreads(2);
  printf("i.threads %d %d\n", fftw_planner_nthreads(), fftwf_planner_nthreads());

  /* Basic: 2D and 3D complex, in place, double. */
  fftw_complex *a = fftw_alloc_complex(12 * 10 * 6);
  if (!a) return 1;
  fftw_plan p2 = fftw_plan_dft_2d(12, 10, a, a, FFTW_FORWARD, FFTW_PATIENT);
  fftw_plan p3 = fftw_plan_dft_3d(12, 10, 6, a, a, FFTW_BACKWARD, FFTW_ESTIMATE);
  if (!p2 || !p3) return 1;
  fill_d(a, 120, 0.21);
  fftw_execute(p2);
  print_d("dft2", a, 120);
  fill_d(a, 720, 0.05);
  fftw_execute(p3);
  print_d("dft3", a, 720);
  fftw_destroy_plan(p2);
  fftw_destroy_plan(p3);

  /* Rank-N basic planner, single precision, out of place. */
  int nn[4] = {3, 4, 5, 2};
  fftwf_complex *fi = fftwf_alloc_complex(120), *fo = fftwf_alloc_complex(120);
  fftwf_plan pn = fftwf_plan_dft(4, nn, fi, fo, FFTW_FORWARD, FFTW_MEASURE);
  if (!fi || !fo || !pn) return 1;
  fill_f(fi, 120, 0.4f);
  fftwf_execute(pn);
  print_f("dftn", fo, 120);
  fftwf_destroy_plan(pn);

  /* Advanced: 7 transforms of 8 x 6 inside 10 x 9 embeds, input stride 2
   * (interleaved), output contiguous with distance 50. */
  int n2[2] = {8, 6}, inembed[2] = {10, 9}, onembed[2] = {8, 6};
  fftw_complex *mi = fftw_alloc_complex(2 * 90 * 7), *mo = fftw_alloc_complex(50 * 7);
  fftw_plan pm = fftw_plan_many_dft(2, n2, 7, mi, inembed, 2, 180, mo, onembed, 1, 50,
                                    FFTW_BACKWARD, FFTW_MEASURE);
  if (!mi || !mo || !pm) return 1;
  fill_d(mi, 2 * 90 * 7, 0.13);
  memset(mo, 0, sizeof(fftw_complex) * 50 * 7);
  fftw_execute(pm);
  print_d("many", mo, 50 * 7);
  /* New-array execute: the same plan on other arrays of the same layout. */
  fftw_complex *mi2 = fftw_alloc_complex(2 * 90 * 7), *mo2 = fftw_alloc_complex(50 * 7);
  if (!mi2 || !mo2) return 1;
  fill_d(mi2, 2 * 90 * 7, 0.029);
  memset(mo2, 0, sizeof(fftw_complex) * 50 * 7);
  fftw_execute_dft(pm, mi2, mo2);
  print_d("many_new", mo2, 50 * 7);
  fftw_destroy_plan(pm);

  /* Guru: a 16-point transform along a strided axis, two howmany dims. */
  fftw_iodim dims[1] = {{16, 15, 1}};
  fftw_iodim hm[2] = {{3, 1, 16}, {5, 3, 48}};
  fftw_complex *gi = fftw_alloc_complex(16 * 15), *go = fftw_alloc_complex(16 * 15);
  fftw_plan pg = fftw_plan_guru_dft(1, dims, 2, hm, gi, go, FFTW_FORWARD, FFTW_ESTIMATE);
  if (!gi || !go || !pg) return 1;
  fill_d(gi, 240, 0.31);
  fftw_execute(pg);
  print_d("guru", go, 240);
  fftw_destroy_plan(pg);

  /* guru64, single precision: 2D 9 x 14 with a batch of 3, in place. */
  fftwf_iodim64 d64[2] = {{9, 14, 14}, {14, 1, 1}};
  fftwf_iodim64 h64[1] = {{3, 126, 126}};
  fftwf_complex *g64 = fftwf_alloc_complex(378);
  fftwf_plan pg64 = fftwf_plan_guru64_dft(2, d64, 1, h64, g64, g64, FFTW_BACKWARD, FFTW_MEASURE);
  if (!g64 || !pg64) return 1;
  fill_f(g64, 378, 0.17f);
  fftwf_execute(pg64);
  print_f("guru64", g64, 378);
  fftwf_destroy_plan(pg64);

  /* Advanced R2C: 4 rows of 20 reals with distance 23, spectra of 11
   * with distance 12; then the new-array R2C execute. */
  int nr[1] = {20};
  double *ri = fftw_alloc_real(23 * 4);
  fftw_complex *ro = fftw_alloc_complex(12 * 4);
  fftw_plan pr = fftw_plan_many_dft_r2c(1, nr, 4, ri, NULL, 1, 23, ro, NULL, 1, 12, FFTW_MEASURE);
  if (!ri || !ro || !pr) return 1;
  for (int i = 0; i < 92; i++) ri[i] = cos(0.1 * i * i) + 0.5;
  memset(ro, 0, sizeof(fftw_complex) * 48);
  fftw_execute_dft_r2c(pr, ri, ro);
  for (int b = 0; b < 4; b++) print_d("many_r2c", ro + 12 * b, 11);
  fftw_destroy_plan(pr);

  /* Guru C2R, single precision, 2D 8 x 12 out of place (it may use its
   * input as scratch: FFTW has no multi-dimensional C2R that preserves it). */
  fftwf_iodim cd[2] = {{8, 7, 12}, {12, 1, 1}};
  fftwf_complex *ci = fftwf_alloc_complex(56), *ci_copy = fftwf_alloc_complex(56);
  float *co = fftwf_alloc_real(96);
  fftwf_plan pc = fftwf_plan_guru_dft_c2r(2, cd, 0, NULL, ci, co, FFTW_ESTIMATE);
  if (!ci || !ci_copy || !co || !pc) return 1;
  /* A half spectrum of real data (C2R of a non-Hermitian one depends on
   * the algorithm): the R2C of a real 8 x 12 field. */
  float *field = fftwf_alloc_real(96);
  fftwf_plan pf2 = fftwf_plan_dft_r2c_2d(8, 12, field, ci, FFTW_ESTIMATE);
  if (!field || !pf2) return 1;
  for (int i = 0; i < 96; i++) field[i] = sinf(0.23f * (float)(i * i % 17)) + 0.3f;
  fftwf_execute(pf2);
  fftwf_destroy_plan(pf2);
  fftwf_free(field);
  memcpy(ci_copy, ci, sizeof(fftwf_complex) * 56);
  fftwf_execute(pc);
  for (int i = 0; i < 96; i++) printf("f.c2r %.9g\n", co[i]);
  fftwf_destroy_plan(pc);

  /* Guru64 R2C and C2R in double, 1D 30 with FFTW_DESTROY_INPUT: the round
   * trip through the new-array functions. */
  fftw_iodim64 rd[1] = {{30, 1, 1}};
  double *x = fftw_alloc_real(30), *x2 = fftw_alloc_real(30);
  fftw_complex *X = fftw_alloc_complex(16);
  fftw_plan f64 = fftw_plan_guru64_dft_r2c(1, rd, 0, NULL, x, X, FFTW_ESTIMATE);
  fftw_plan b64 = fftw_plan_guru64_dft_c2r(1, rd, 0, NULL, X, x2, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  if (!x || !x2 || !X || !f64 || !b64) return 1;
  for (int i = 0; i < 30; i++) x[i] = 1.0 / (1 + i) - 0.1 * (i % 3);
  fftw_execute(f64);
  print_d("r2c64", X, 16);
  /* 1D C2R with FFTW_PRESERVE_INPUT first: X must come back unchanged. */
  fftw_complex X_copy[16];
  memcpy(X_copy, X, sizeof X_copy);
  fftw_plan keep = fftw_plan_dft_c2r_1d(30, X, x2, FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  if (!keep) return 1;
  fftw_execute(keep);
  printf("i.preserved %d\n", memcmp(X, X_copy, sizeof X_copy) == 0);
  for (int i = 0; i < 30; i++) printf("d.c2r_keep %.17g\n", x2[i] / 30);
  fftw_destroy_plan(keep);
  fftw_execute_dft_c2r(b64, X, x2);
  for (int i = 0; i < 30; i++) printf("d.c2r64 %.17g\n", x2[i] / 30);
  fftw_destroy_plan(f64);
  fftw_destroy_plan(b64);

  /* Wisdom: exported to a string, forgotten, imported back. */
  char *w = fftw_export_wisdom_to_string();
  int wisdom_ok = w != NULL;
  fftw_forget_wisdom();
  if (w) wisdom_ok = wisdom_ok && fftw_import_wisdom_from_string(w);
  free(w);
  printf("i.wisdom %d\n", wisdom_ok);
  double add = 0, mul = 0, fma = 0;
  fftw_plan pf = fftw_plan_dft_1d(64, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
  if (!pf) return 1;
  fftw_flops(pf, &add, &mul, &fma);
  printf("i.flops %d\n", add + mul + fma > 0);
  fftw_destroy_plan(pf);

  fftw_free(a);
  fftwf_free(fi);
  fftwf_free(fo);
  fftw_free(mi);
  fftw_free(mo);
  fftw_free(mi2);
  fftw_free(mo2);
  fftw_free(gi);
  fftw_free(go);
  fftwf_free(g64);
  fftw_free(ri);
  fftw_free(ro);
  fftwf_free(ci);
  fftwf_free(ci_copy);
  fftwf_free(co);
  fftw_free(x);
  fftw_free(x2);
  fftw_free(X);
  if (callback_check() != 0) return 1;
  fftw_cleanup_threads();
  fftwf_cleanup_threads();
  return 0;
}
