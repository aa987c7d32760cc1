/* The long-double reference of R2R problems: each axis in turn through the
 * complex reference (reference.c) of the textbook symmetric extension of
 * each row, which is FFTW's definition of the kind ("What FFTW Really
 * Computes"), independent of how the library computes it:
 *   DCT-I  N = 2(n-1), the even extension, Y_k = Re X_k
 *   DCT-II N = 4n, x_j at 2j+1 and N-2j-1, Y_k = Re X_k
 *   DCT-III N = 4n, x_j at j and N-j, Y_k = Re X_2k+1
 *   DCT-IV N = 8n, x_j at 2j+1 and N-2j-1, Y_k = Re X_2k+1
 *   DST-*  the same with the mirrored copy negated and Y = -Im X
 *          (DST-I: N = 2(n+1), x_j at j+1; DST-II at index k+1; DST-III
 *          x_j at j+1, x_n-1 halved at n and 3n, Y_k at 2k+1)
 *   DHT    N = n, Y_k = Re X_k - Im X_k. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int64_t cli_r2r_len(hyfft_r2r_kind k, int64_t n) {
  switch (k) {
    case HYFFT_REDFT00: return 2 * (n - 1);
    case HYFFT_RODFT00: return 2 * (n + 1);
    case HYFFT_REDFT10: case HYFFT_REDFT01: case HYFFT_RODFT10: case HYFFT_RODFT01: return 4 * n;
    case HYFFT_REDFT11: case HYFFT_RODFT11: return 8 * n;
    default: return n;
  }
}

/* One row x (n reals, stride 1) into y through the reference of length N. */
static void cli_r2r_row(hyfft_r2r_kind k, int64_t n, int64_t N, cli_ref *ref, cli_ldc *u,
                        const long double *x, long double *y) {
  memset(u, 0, (size_t)N * sizeof *u);
  long double sgn = k >= HYFFT_RODFT00 && k <= HYFFT_RODFT11 ? -1.0L : 1.0L;
  for (int64_t j = 0; j < n; j++) switch (k) {
      case HYFFT_REDFT00:
        u[j] = x[j];
        if (j > 0 && j < n - 1) u[N - j] = x[j];
        break;
      case HYFFT_REDFT01:
        u[j] = x[j];
        if (j > 0) u[N - j] = x[j];
        break;
      case HYFFT_RODFT00:
        u[j + 1] = x[j];
        u[N - j - 1] = -x[j];
        break;
      case HYFFT_RODFT01:
        u[j + 1] = j == n - 1 ? x[j] / 2 : x[j];
        u[N - j - 1] = j == n - 1 ? -x[j] / 2 : -x[j];
        break;
      case HYFFT_DHT:
        u[j] = x[j];
        break;
      default: /* REDFT10, REDFT11, RODFT10, RODFT11 */
        u[2 * j + 1] = x[j];
        u[N - 2 * j - 1] = sgn * x[j];
        break;
    }
  cli_ref_run(ref, u);
  for (int64_t o = 0; o < n; o++) switch (k) {
      case HYFFT_REDFT00: case HYFFT_REDFT10: y[o] = creall(u[o]); break;
      case HYFFT_REDFT01: case HYFFT_REDFT11: y[o] = creall(u[2 * o + 1]); break;
      case HYFFT_RODFT00: case HYFFT_RODFT10: y[o] = -cimagl(u[o + 1]); break;
      case HYFFT_RODFT01: case HYFFT_RODFT11: y[o] = -cimagl(u[2 * o + 1]); break;
      default: y[o] = creall(u[o]) - cimagl(u[o]); break;
    }
}

int cli_reference_r2r(const cli_layout *L, int builtin, const cli_ldc *in, int64_t count,
                      cli_ldc *out, const char **ref_name, char *err, size_t errlen) {
  const hyfft_problem *p = &L->p;
  int64_t total = L->n, maxn = 1, maxN = 1;
  for (int d = 0; d < p->rank; d++) {
    if (p->dims[d].n > maxn) maxn = p->dims[d].n;
    int64_t N = cli_r2r_len(p->r2r_kind[d], p->dims[d].n);
    if (N > maxN) maxN = N;
  }
  long double *a = malloc((size_t)total * sizeof *a), *row = malloc((size_t)(2 * maxn) * sizeof *row);
  cli_ldc *u = malloc((size_t)maxN * sizeof *u);
  int rc = 0;
  if (!a || !row || !u) {
    snprintf(err, errlen, "out of memory for the r2r reference");
    rc = -1;
  }
  cli_ref *refs[HYFFT_MAX_RANK] = {NULL};
  for (int d = 0; rc == 0 && d < p->rank; d++) {
    int64_t N = cli_r2r_len(p->r2r_kind[d], p->dims[d].n);
    if (cli_ref_create(1, &N, -1, builtin, &refs[d], err, errlen)) rc = -1;
    else if (ref_name) *ref_name = cli_ref_name(refs[d]);
  }
  for (int64_t t = 0; rc == 0 && t < count; t++) {
    for (int64_t j = 0; j < total; j++) a[j] = creall(in[t * L->in_count + j]);
    int64_t inner = 1;
    for (int d = p->rank - 1; d >= 0; d--) {
      int64_t n = p->dims[d].n, N = cli_r2r_len(p->r2r_kind[d], n);
      for (int64_t outer = 0; outer < total / (n * inner); outer++)
        for (int64_t i = 0; i < inner; i++) {
          long double *base = a + outer * n * inner + i;
          for (int64_t j = 0; j < n; j++) row[j] = base[j * inner];
          cli_r2r_row(p->r2r_kind[d], n, N, refs[d], u, row, row + n);
          for (int64_t j = 0; j < n; j++) base[j * inner] = row[n + j];
        }
      inner *= n;
    }
    for (int64_t j = 0; j < total; j++) out[t * L->out_count + j] = a[j] * (long double)p->scale;
  }
  for (int d = 0; d < p->rank; d++)
    if (refs[d]) cli_ref_destroy(refs[d]);
  free(a);
  free(row);
  free(u);
  return rc;
}
