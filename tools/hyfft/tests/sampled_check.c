/* The sampled accuracy check (sampled.c) against a direct DFT in long
 * double, for C2C and R2C of rank 1 to 3 with strided layouts: the exact
 * output must pass with an error at long double's level, and outputs that
 * are wrong must fail it: the opposite sign's transform, the output of a
 * transform whose axes are exchanged, and one with every output off by
 * 1e-4 of its RMS. Prints one line per case and "all passed" last. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The output of the transform of `in` (logical dims, row-major, last
 * fastest) written at the problem's output strides into `out` (complex,
 * out_count elements at least); flip_sign and swap (the first two dims
 * read transposed) make it wrong on purpose. */
static void direct(const hyfft_problem *p, const double *in, double *out, int flip_sign,
                   int swap) {
  int r = p->rank;
  int64_t n[HYFFT_MAX_RANK], total = 1, kcount = 1, kn[HYFFT_MAX_RANK];
  for (int d = 0; d < r; d++) {
    n[d] = p->dims[d].n;
    kn[d] = p->kind == HYFFT_R2C && d == r - 1 ? n[d] / 2 + 1 : n[d];
    total *= n[d];
    kcount *= kn[d];
  }
  const long double two_pi = 6.283185307179586476925286766559005768L;
  int sign = flip_sign ? -p->sign : p->sign;
  for (int64_t kk = 0; kk < kcount; kk++) {
    int64_t k[HYFFT_MAX_RANK], rem = kk, o = 0;
    for (int d = r - 1; d >= 0; d--) {
      k[d] = rem % kn[d];
      rem /= kn[d];
      o += k[d] * p->dims[d].out_stride;
    }
    long double complex s = 0;
    for (int64_t jj = 0; jj < total; jj++) {
      int64_t j[HYFFT_MAX_RANK], rj = jj, off = 0;
      long double ph = 0;
      for (int d = r - 1; d >= 0; d--) {
        j[d] = rj % n[d];
        rj /= n[d];
      }
      for (int d = 0; d < r; d++) {
        int dd = swap && r >= 2 && d < 2 ? 1 - d : d;
        off += j[d] * p->dims[d].in_stride;
        ph += (long double)((j[d] * k[dd]) % n[d]) / (long double)n[d];
      }
      long double complex x = p->kind == HYFFT_C2C ? in[2 * off] + I * in[2 * off + 1] : in[off];
      s += x * cexpl(I * (long double)sign * two_pi * ph);
    }
    s *= (long double)p->scale;
    out[2 * o] = (double)creall(s);
    out[2 * o + 1] = (double)cimagl(s);
  }
}

static int run(const char *token, int *failures) {
  hyfft_context ctx;
  hyfft_plan plan;
  hyfft_problem v;
  char err[256];
  if (hyfft_context_create("cpu", &ctx) != HYFFT_SUCCESS) return -1;
  if (hyfft_plan_token(ctx, token, 0, &plan) != HYFFT_SUCCESS ||
      hyfft_plan_problem(plan, &v) != HYFFT_SUCCESS) {
    printf("%s: cannot plan: %s\n", token, hyfft_last_error());
    hyfft_context_destroy(ctx);
    return -1;
  }
  hyfft_plan_destroy(plan);
  hyfft_context_destroy(ctx);
  cli_layout L;
  if (cli_layout_init(&L, &v, err, sizeof err)) {
    printf("%s: %s\n", token, err);
    return -1;
  }
  double *in = calloc(L.buf_in_bytes / sizeof(double) + 2, sizeof(double));
  double *out = calloc(L.buf_out_bytes / sizeof(double) + 2, sizeof(double));
  if (!in || !out) return -1;
  srand(7);
  for (size_t i = 0; i < L.buf_in_bytes / sizeof(double); i++) in[i] = rand() / (double)RAND_MAX - 0.5;
  /* f64 buffers only: the check reads them at the problem's precision. */
  static const char *const what[4] = {"exact", "opposite sign", "axes exchanged", "off by 1e-4"};
  for (int c = 0; c < 4; c++) {
    if (c == 2 && v.rank < 2) continue;
    memset(out, 0, L.buf_out_bytes);
    direct(&L.p, in, out, c == 1, c == 2);
    if (c == 3)
      for (size_t i = 0; i < L.buf_out_bytes / sizeof(double); i++) out[i] *= 1.0 + 1e-4;
    cli_sampled_result res;
    if (cli_sampled_check(&L, in, out, 8, 11, &res, err, sizeof err)) {
      printf("%s %s: %s\n", token, what[c], err);
      ++*failures;
      continue;
    }
    int want = c == 0;
    int ok = want ? res.pass && res.max_err < 1e-14 : !res.pass;
    printf("%-40s %-15s max error %.2e gate %.2e %s %s\n", token, what[c], res.max_err, res.gate,
           res.pass ? "pass" : "fail", ok ? "as expected" : "WRONG");
    if (!ok) ++*failures;
  }
  free(in);
  free(out);
  return 0;
}

int main(void) {
  static const char *const tokens[] = {
      "c2c:f64:fwd:60",        "c2c:f64:bwd:6x10x4",    "r2c:f64:12x9",
      "r2c:f64:5x6x8",         "c2c:f64:fwd:7x12:is=1,7:os=1,7",
      "c2c:f64:fwd:9x8:scale=1/N", "r2c:f64:10x6x4:is=24,4,1:os=28,4,1"};
  int failures = 0;
  for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++)
    if (run(tokens[i], &failures)) failures++;
  printf(failures ? "%d failed\n" : "all passed\n", failures);
  return failures ? 1 : 0;
}
