/* The shared harness of the accuracy and property suites (and of any other
 * test that wants it): command-line options, seeded random data, problem
 * layouts, poisoned buffers, running a plan on host or device buffers, the
 * FFTW long-double reference and the error norms of DESIGN section 7.
 *
 * Every case is named by its problem token, and its random data depend only
 * on the run's seed and that token, so `PROG --seed S TOKEN` replays one
 * failing case exactly. */
#ifndef HY_TEST_HARNESS_H
#define HY_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "hyfft.h"

/* ---- options ------------------------------------------------------------- */

typedef enum hyt_level { HYT_QUICK = 0, HYT_STANDARD = 1, HYT_FULL = 2 } hyt_level;

typedef struct hyt_options {
  const char *device;  /* --device, $HYFFT_TEST_DEVICE, default "cpu" */
  hyt_level level;     /* --level */
  uint64_t seed;       /* --seed, $HYFFT_TEST_SEED, else from the clock */
  int device_buffers;  /* --device-buffers: data in hyfft_buffer_alloc memory */
  int verbose;         /* --verbose / -v: a line per case, FFTW-level targets */
  int at_target;       /* --at-target: a case above its FFTW-level target fails */
  int list;            /* --list: print the matrix's tokens and exit */
  int ntokens;         /* tokens given on the command line replace the matrix */
  char **tokens;
} hyt_options;

/* Parse the common options; prints usage and returns nonzero on a bad
 * option (the caller exits with 2). Prints the seed line. */
int hyt_parse_args(int argc, char **argv, const char *usage_extra, hyt_options *opt);

/* ---- random numbers (xoshiro256**) ---------------------------------------- */

typedef struct hyt_rng {
  uint64_t s[4];
} hyt_rng;

void hyt_rng_seed(hyt_rng *rng, uint64_t seed);
/* Seed from the run's seed and a token, so each case's data are replayable on
 * their own. */
void hyt_rng_seed_token(hyt_rng *rng, uint64_t seed, const char *token);
uint64_t hyt_rng_next(hyt_rng *rng);
/* Uniform in [-1, 1). */
double hyt_rng_uniform(hyt_rng *rng);

/* ---- a problem's layout --------------------------------------------------- */

/* Logical order: batch dims (as listed), then transform dims row major. The
 * complex side of R2C/C2R has n/2+1 elements along the last transform dim. */
typedef struct hyt_layout {
  hyfft_problem prob;
  int64_t n_total;       /* product of the transform lengths (N of the gates) */
  int64_t batch_total;
  int64_t count_in;      /* logical elements per side */
  int64_t count_out;
  int64_t *in_off;       /* element offsets of each logical element */
  int64_t *out_off;
  int64_t in_extent;     /* elements each buffer must hold */
  int64_t out_extent;
  size_t in_esize;       /* bytes per element: 8/16 complex, 4/8 real */
  size_t out_esize;
  int in_complex, out_complex;
  int in_aliased; /* some logical input elements share one memory location */
} hyt_layout;

/* Build the offset tables (returns nonzero with a message in `why` if the
 * problem cannot be laid out, e.g. a negative stride). */
int hyt_layout_make(const hyfft_problem *prob, hyt_layout *lay, char *why, size_t why_size);
void hyt_layout_free(hyt_layout *lay);

/* ---- logical data --------------------------------------------------------- */

/* Complex values in long double, one per logical element (imag 0 for real). */
typedef struct hyt_cvec {
  int64_t n;
  long double *v; /* 2n values: re, im */
} hyt_cvec;

int hyt_cvec_alloc(hyt_cvec *x, int64_t n);
void hyt_cvec_free(hyt_cvec *x);

/* Random input for the problem's input side, already rounded to the
 * problem's precision (so the reference sees exactly what hyfft sees). For
 * C2R the input is an exactly Hermitian spectrum. */
int hyt_random_input(const hyt_layout *lay, hyt_rng *rng, hyt_cvec *x);
/* Round every value to the problem's precision (for inputs built by hand). */
void hyt_cvec_round(const hyt_layout *lay, hyt_cvec *x);
/* When input elements alias (a layout FFTW allows, e.g. idist smaller than
 * the transform), make x what the buffer will hold after the scatter: the
 * last logical element written to a location wins. No-op otherwise. */
int hyt_cvec_alias(const hyt_layout *lay, hyt_cvec *x);

/* ---- reference ------------------------------------------------------------ */

/* out = the transform of `in` in long double through FFTW (fftwl guru64 on
 * the logical layout), times the problem's scale. */
int hyt_reference(const hyt_layout *lay, const hyt_cvec *in, hyt_cvec *out);

/* ---- error norms (DESIGN section 7) ---------------------------------------- */

typedef struct hyt_errors {
  double rms;     /* ||out - ref||2 / ||ref||2 */
  double max;     /* max|out - ref| / max|ref| */
  double rms_gate;
  double max_gate;
  int pass;       /* both below their gates (NaN fails) */
} hyt_errors;

double hyt_unit_roundoff(hyfft_precision p);
/* The relative RMS gate of half-precision storage (F16/BF16), set by the
 * format's rounding, not by N (the max-norm gate is 5x it). */
double hyt_half_rms_gate(hyfft_precision p);
/* u * sqrt(log2 N), with log2 N at least 1. */
double hyt_error_scale(hyfft_precision p, int64_t n_total);
/* Compare; an all-zero reference compares absolute errors. */
hyt_errors hyt_compare(const hyt_layout *lay, const hyt_cvec *out, const hyt_cvec *ref);
/* 1 if every transform length has prime factors <= 13 only (the FFTW-level
 * target is then 1.5 u sqrt(log2 N), else 3 u sqrt(log2 N)). */
int hyt_is_smooth(const hyfft_problem *prob);

/* ---- running a plan --------------------------------------------------------- */

typedef struct hyt_device {
  hyfft_context ctx;
  hyfft_device_info info;
  int device_buffers;
} hyt_device;

int hyt_device_open(const hyt_options *opt, hyt_device *dev);
void hyt_device_close(hyt_device *dev);

/* One set of buffers for one layout: host buffers (and device buffers in
 * device-buffer mode), poisoned before each run and checked after. */
typedef struct hyt_buffers {
  const hyt_layout *lay;
  hyt_device *dev;
  void *in, *out;          /* host buffers (out == in when in-place) */
  void *in_copy;           /* the input bytes as written, to check them after */
  void *din, *dout;        /* device buffers in device-buffer mode */
  unsigned char *out_mask; /* 1 where an output (or in-place input) element lives */
  size_t in_bytes, out_bytes;
  /* Set by the caller: run through hyfft_execute_async on the context's
   * queue (then hyfft_context_synchronize), with this caller workspace
   * (NULL: the plan's own). */
  int use_async;
  void *workspace;
} hyt_buffers;

int hyt_buffers_alloc(const hyt_layout *lay, hyt_device *dev, hyt_buffers *b);
void hyt_buffers_free(hyt_buffers *b);

/* What a run found besides the numbers. */
typedef struct hyt_run_result {
  hyfft_status status;    /* of hyfft_execute (or a buffer call) */
  char message[512];      /* hyfft_last_error() of a failing call */
  int64_t gaps_touched;   /* output gap elements not equal to the sentinel */
  int64_t input_changed;  /* out-of-place input elements that changed */
} hyt_run_result;

/* Scatter x into poisoned buffers, execute, gather the output into y and
 * check the gaps and (out-of-place) the input. Returns 0 when everything
 * ran (check res for gap/input findings), nonzero when a call failed. */
int hyt_run(hyfft_plan plan, hyt_buffers *b, const hyt_cvec *x, hyt_cvec *y,
            hyt_run_result *res);

/* Plan the problem (memory set for device-buffer mode). Returns the status;
 * the message is in hyfft_last_error(). */
hyfft_status hyt_plan(hyt_device *dev, const hyfft_problem *prob, hyfft_plan *plan);

/* A status that means "this backend does not do that yet" rather than a bug:
 * only accepted for R2C/C2R off the CPU backend (C2C must always plan, and
 * the CPU plans real transforms too) and for f64 on devices without double
 * precision. */
int hyt_is_skip(const hyt_device *dev, const hyfft_problem *prob, hyfft_status st);

/* The token of a problem (parsed tokens print back as given). */
void hyt_token(const hyfft_problem *prob, char *buf, size_t size);

/* Wall-clock seconds since an arbitrary origin. */
double hyt_now(void);

#endif /* HY_TEST_HARNESS_H */
