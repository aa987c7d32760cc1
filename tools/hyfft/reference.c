/* The long-double reference DFT: FFTW's fftwl through dlopen when present,
 * otherwise a compact built-in one (recursive mixed radix; direct DFTs for
 * radices up to 32; Bluestein over a power-of-two length for larger prime
 * factors). Both are ~2^-64 accurate, far below the f64 gates. */
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLI_DIRECT_MAX 32
#define CLI_MAX_BLUE 16

/* ---- exp(2*pi*i*num/den) with the angle reduced exactly -------------------- */

static cli_ldc cli_expi(int64_t num, int64_t den, int sign) {
  int64_t r = num % den;
  if (r < 0) r += den;
  /* Quadrant by integer comparison, so sinl/cosl see only [0, pi/2). */
  __int128 four = (__int128)4 * r;
  int q = (int)(four / den);
  __int128 rem = four - (__int128)q * den;
  long double theta = 1.5707963267948966192313216916397514L * (long double)rem / (long double)den;
  long double c = cosl(theta), s = sinl(theta), re, im;
  switch (q) {
    case 0: re = c; im = s; break;
    case 1: re = -s; im = c; break;
    case 2: re = -c; im = -s; break;
    default: re = s; im = -c; break;
  }
  return re + I * (sign < 0 ? -im : im);
}

/* ---- built-in 1D plans -------------------------------------------------------- */

typedef struct cli_dft1 cli_dft1;

typedef struct cli_blue {
  int64_t p, m;
  cli_ldc *chirp; /* exp(sign*pi*i*j^2/p), j < p */
  cli_ldc *kern;  /* FFT_m of the conjugate chirp, wrapped */
  cli_ldc *a;     /* m work points */
  cli_dft1 *fft;  /* forward power-of-two transform of length m */
} cli_blue;

struct cli_dft1 {
  int64_t n;
  int sign;
  cli_ldc *tw;      /* w^j = exp(sign*2*pi*i*j/n), j < n */
  cli_ldc *tmp;     /* n points: the recursion works out of place */
  cli_ldc *scratch; /* 2*maxp points for one combine step */
  int64_t maxp;
  int nblue;
  cli_blue blue[CLI_MAX_BLUE];
};

static int64_t cli_radix(int64_t n) {
  if (n % 4 == 0) return 4;
  for (int64_t p = 2; p * p <= n; p++)
    if (n % p == 0) return p;
  return n;
}

static void cli_dft1_destroy(cli_dft1 *P);
static cli_dft1 *cli_dft1_create(int64_t n, int sign);
static void cli_dft1_run(cli_dft1 *P, cli_ldc *data);

static cli_blue *cli_blue_find(cli_dft1 *P, int64_t p) {
  for (int i = 0; i < P->nblue; i++)
    if (P->blue[i].p == p) return &P->blue[i];
  return NULL;
}

static int cli_blue_add(cli_dft1 *P, int64_t p) {
  if (cli_blue_find(P, p)) return 0;
  if (P->nblue == CLI_MAX_BLUE) return -1;
  cli_blue *b = &P->blue[P->nblue++];
  memset(b, 0, sizeof *b);
  b->p = p;
  b->m = 1;
  while (b->m < 2 * p - 1) b->m *= 2;
  b->chirp = malloc((size_t)p * sizeof *b->chirp);
  b->kern = calloc((size_t)b->m, sizeof *b->kern);
  b->a = malloc((size_t)b->m * sizeof *b->a);
  b->fft = cli_dft1_create(b->m, -1);
  if (!b->chirp || !b->kern || !b->a || !b->fft) return -1;
  for (int64_t j = 0; j < p; j++) {
    /* j^2 reduced mod 2p exactly: the chirp's angle is pi*j^2/p. */
    int64_t r = (int64_t)(((unsigned __int128)j * (unsigned __int128)j) % (unsigned __int128)(2 * p));
    b->chirp[j] = cli_expi(r, 2 * p, P->sign);
  }
  for (int64_t j = 0; j < p; j++) {
    b->kern[j] = conjl(b->chirp[j]);
    if (j) b->kern[b->m - j] = conjl(b->chirp[j]);
  }
  cli_dft1_run(b->fft, b->kern);
  return 0;
}

/* out[q*os] = sum_r in[r*is] * w_p^(r*q), w_p = exp(sign*2*pi*i/p), p | n. */
static void cli_small_dft(cli_dft1 *P, const cli_ldc *in, int64_t is, cli_ldc *out, int64_t os,
                          int64_t p) {
  if (p <= CLI_DIRECT_MAX) {
    int64_t step = P->n / p;
    for (int64_t q = 0; q < p; q++) {
      cli_ldc acc = 0;
      for (int64_t r = 0; r < p; r++) acc += in[r * is] * P->tw[((r * q) % p) * step];
      out[q * os] = acc;
    }
    return;
  }
  cli_blue *b = cli_blue_find(P, p);
  for (int64_t j = 0; j < p; j++) b->a[j] = in[j * is] * b->chirp[j];
  for (int64_t j = p; j < b->m; j++) b->a[j] = 0;
  cli_dft1_run(b->fft, b->a);
  /* Inverse transform through the forward one: ifft(x) = conj(fft(conj(x)))/m. */
  for (int64_t j = 0; j < b->m; j++) b->a[j] = conjl(b->a[j] * b->kern[j]);
  cli_dft1_run(b->fft, b->a);
  long double inv = 1.0L / (long double)b->m;
  for (int64_t k = 0; k < p; k++) out[k * os] = b->chirp[k] * conjl(b->a[k]) * inv;
}

/* Decimation in time: p sub-transforms of length n/p, then n/p DFTs of
 * length p across them with twiddles. */
static void cli_rec(cli_dft1 *P, const cli_ldc *in, int64_t is, cli_ldc *out, int64_t n) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  int64_t p = cli_radix(n);
  if (p == n) {
    cli_small_dft(P, in, is, out, 1, n);
    return;
  }
  int64_t m = n / p, step = P->n / n;
  for (int64_t r = 0; r < p; r++) cli_rec(P, in + r * is, is * p, out + r * m, m);
  cli_ldc *t = P->scratch, *u = P->scratch + P->maxp;
  for (int64_t k = 0; k < m; k++) {
    for (int64_t r = 0; r < p; r++) t[r] = out[r * m + k] * P->tw[r * k * step];
    cli_small_dft(P, t, 1, u, 1, p);
    for (int64_t q = 0; q < p; q++) out[q * m + k] = u[q];
  }
}

static void cli_dft1_run(cli_dft1 *P, cli_ldc *data) {
  cli_rec(P, data, 1, P->tmp, P->n);
  memcpy(data, P->tmp, (size_t)P->n * sizeof *data);
}

static cli_dft1 *cli_dft1_create(int64_t n, int sign) {
  cli_dft1 *P = calloc(1, sizeof *P);
  if (!P) return NULL;
  P->n = n;
  P->sign = sign;
  P->tw = malloc((size_t)n * sizeof *P->tw);
  P->tmp = malloc((size_t)n * sizeof *P->tmp);
  P->maxp = 4;
  int ok = P->tw && P->tmp;
  for (int64_t j = 0; ok && j < n; j++) P->tw[j] = cli_expi(j, n, sign);
  for (int64_t rest = n; ok && rest > 1;) {
    int64_t p = cli_radix(rest);
    if (p > P->maxp) P->maxp = p;
    if (p > CLI_DIRECT_MAX && cli_blue_add(P, p)) ok = 0;
    rest /= p;
  }
  if (ok) P->scratch = malloc((size_t)(2 * P->maxp) * sizeof *P->scratch);
  if (!ok || !P->scratch) {
    cli_dft1_destroy(P);
    return NULL;
  }
  return P;
}

static void cli_dft1_destroy(cli_dft1 *P) {
  if (!P) return;
  for (int i = 0; i < P->nblue; i++) {
    free(P->blue[i].chirp);
    free(P->blue[i].kern);
    free(P->blue[i].a);
    cli_dft1_destroy(P->blue[i].fft);
  }
  free(P->tw);
  free(P->tmp);
  free(P->scratch);
  free(P);
}

/* ---- fftwl through dlopen ------------------------------------------------------ */

typedef struct cli_iodim64 {
  ptrdiff_t n, is, os;
} cli_iodim64;

typedef void *(*cli_fftwl_plan_fn)(int, const cli_iodim64 *, int, const cli_iodim64 *, void *,
                                   void *, int, unsigned);
typedef void (*cli_fftwl_exec_fn)(void *, void *, void *);
typedef void (*cli_fftwl_destroy_fn)(void *);

static struct {
  int tried;
  void *lib;
  cli_fftwl_plan_fn plan;
  cli_fftwl_exec_fn exec;
  cli_fftwl_destroy_fn destroy;
} cli_fftwl;

static int cli_fftwl_load(void) {
  if (cli_fftwl.tried) return cli_fftwl.lib != NULL;
  cli_fftwl.tried = 1;
  static const char *const names[] = {"libfftw3l.so.3", "libfftw3l.so", NULL};
  void *h = cli_dlopen_first(names, NULL);
  if (!h) return 0;
  *(void **)&cli_fftwl.plan = dlsym(h, "fftwl_plan_guru64_dft");
  *(void **)&cli_fftwl.exec = dlsym(h, "fftwl_execute_dft");
  *(void **)&cli_fftwl.destroy = dlsym(h, "fftwl_destroy_plan");
  if (!cli_fftwl.plan || !cli_fftwl.exec || !cli_fftwl.destroy) {
    dlclose(h);
    return 0;
  }
  cli_fftwl.lib = h;
  return 1;
}

/* ---- the multi-dimensional reference ---------------------------------------------- */

struct cli_ref {
  int rank;
  int64_t n[HYFFT_MAX_RANK];
  int64_t total;
  void *fftwl_plan;
  cli_dft1 *dim[HYFFT_MAX_RANK]; /* shared between equal lengths */
  cli_ldc *line;
};

int cli_ref_create(int rank, const int64_t *n, int sign, int builtin, cli_ref **out, char *err,
                   size_t errlen) {
  cli_ref *R = calloc(1, sizeof *R);
  if (!R) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  R->rank = rank;
  R->total = 1;
  int64_t maxn = 1;
  for (int d = 0; d < rank; d++) {
    R->n[d] = n[d];
    R->total *= n[d];
    if (n[d] > maxn) maxn = n[d];
  }
  if (!builtin && rank > 0 && cli_fftwl_load()) {
    cli_iodim64 dims[HYFFT_MAX_RANK];
    ptrdiff_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
      dims[d].n = (ptrdiff_t)n[d];
      dims[d].is = dims[d].os = s;
      s *= (ptrdiff_t)n[d];
    }
    cli_ldc probe[2];
    /* FFTW_ESTIMATE | FFTW_UNALIGNED: nothing is written while planning and
     * any array may be used later. */
    R->fftwl_plan = cli_fftwl.plan(rank, dims, 0, NULL, probe, probe, sign, (1u << 6) | (1u << 1));
    if (R->fftwl_plan) {
      *out = R;
      return 0;
    }
  }
  R->line = malloc((size_t)maxn * sizeof *R->line);
  int ok = R->line != NULL;
  for (int d = 0; ok && d < rank; d++) {
    for (int e = 0; e < d && !R->dim[d]; e++)
      if (n[e] == n[d]) R->dim[d] = R->dim[e];
    if (!R->dim[d] && n[d] > 1 && !(R->dim[d] = cli_dft1_create(n[d], sign))) ok = 0;
  }
  if (!ok) {
    snprintf(err, errlen, "out of memory for the built-in reference");
    cli_ref_destroy(R);
    return -1;
  }
  *out = R;
  return 0;
}

void cli_ref_run(cli_ref *R, cli_ldc *data) {
  if (R->fftwl_plan) {
    cli_fftwl.exec(R->fftwl_plan, data, data);
    return;
  }
  /* Row-column: every line along every axis. */
  for (int d = 0; d < R->rank; d++) {
    if (!R->dim[d]) continue;
    int64_t n = R->n[d], inner = 1;
    for (int e = d + 1; e < R->rank; e++) inner *= R->n[e];
    int64_t outer = R->total / (n * inner);
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        cli_ldc *base = data + o * n * inner + i;
        for (int64_t j = 0; j < n; j++) R->line[j] = base[j * inner];
        cli_dft1_run(R->dim[d], R->line);
        for (int64_t j = 0; j < n; j++) base[j * inner] = R->line[j];
      }
  }
}

const char *cli_ref_name(const cli_ref *R) { return R->fftwl_plan ? "fftwl" : "builtin"; }

void cli_ref_destroy(cli_ref *R) {
  if (!R) return;
  if (R->fftwl_plan) cli_fftwl.destroy(R->fftwl_plan);
  for (int d = 0; d < R->rank; d++) {
    int shared = 0;
    for (int e = 0; e < d; e++)
      if (R->dim[e] == R->dim[d]) shared = 1;
    if (!shared) cli_dft1_destroy(R->dim[d]);
  }
  free(R->line);
  free(R);
}
