/* Shared pieces of the hyfft command-line tool: problem layouts and data,
 * the long-double reference, error norms, timing and small helpers. The
 * tool uses only the public API (include/hyfft.h). */
#ifndef HYFFT_CLI_H
#define HYFFT_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hyfft.h"

typedef long double _Complex cli_ldc;

/* Exit codes: 0 success, 1 a check failed or a run errored, 2 bad usage. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };
/* Whether an output file named by `option` can be written, checked before
 * a long run (nothing is left behind): 0, or -1 with a message. */
int cli_check_output(const char *cmd, const char *option, const char *path);
/* The exit status for a context that could not be made: a bad device spec
 * is a usage error (2), anything else a failure (1). */
#define CLI_CONTEXT_EXIT(st) ((st) == HYFFT_INVALID_DEVICE ? CLI_EXIT_USAGE : CLI_EXIT_FAIL)

/* ---- messages -------------------------------------------------------------- */

/* "hyfft CMD: <message>" on stderr, one line. */
void cli_msg(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "hyfft CMD: WHAT: HYFFT_STATUS: last error" on stderr. */
void cli_status_msg(const char *cmd, const char *what, hyfft_status st);

/* ---- small helpers --------------------------------------------------------- */

double cli_now(void); /* monotonic seconds */
int cli_parse_i64(const char *s, int64_t *out); /* 0 ok, strict */
int cli_parse_u64(const char *s, uint64_t *out);
/* The thread count hyfft's CPU work uses: $HYFFT_NUM_THREADS, else cores. */
int cli_num_threads(void);
/* 64-byte aligned, zeroed on request; free with cli_free. */
void *cli_alloc(size_t bytes);
void cli_free(void *p);
/* dlopen the first name that loads (RTLD_NOW | RTLD_LOCAL); *which gets it. */
void *cli_dlopen_first(const char *const *names, const char **which);
/* dlsym into a function-pointer slot (no object/function pointer cast);
 * 1 when found. */
int cli_dlsym(void *handle, const char *name, void *slot);

/* xoshiro256** seeded from a seed and a token, so each case replays alone. */
typedef struct cli_rng {
  uint64_t s[4];
} cli_rng;
void cli_rng_seed(cli_rng *r, uint64_t seed, const char *token);
double cli_rng_uniform(cli_rng *r); /* [-1, 1) */

/* ---- problem layout and data ---------------------------------------------- */

/* Logical view of a validated problem: batch dims outermost, then transform
 * dims, row major; the last transform dim halved on the complex side of
 * R2C/C2R. Physical offsets follow the problem's strides. */
typedef struct cli_layout {
  hyfft_problem p;        /* validated (from hyfft_plan_problem), scale 0 -> 1 */
  int64_t n;              /* transform length: product of transform dims */
  int64_t batch;          /* product of batch dims */
  int64_t in_count;       /* logical elements per transform, input side */
  int64_t out_count;      /* same, output side */
  size_t in_elem;         /* bytes per element: 4/8 real, 8/16 complex */
  size_t out_elem;
  size_t in_bytes;        /* bytes spanned by the strided input */
  size_t out_bytes;
  size_t buf_in_bytes;    /* allocation sizes (in-place: both the max) */
  size_t buf_out_bytes;
} cli_layout;

/* An odometer over the transform dims or the batch dims of one side (0
 * input, 1 output) that tracks the strided element offset and each dim's
 * index, so huge problems need no offset tables: start with
 * cli_walk_transform / cli_walk_batch, step with cli_walk_next. */
#define CLI_MAX_DIMS (HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK)
typedef struct cli_walk {
  int nd;
  int64_t n[CLI_MAX_DIMS], s[CLI_MAX_DIMS], i[CLI_MAX_DIMS];
  int64_t off;
} cli_walk;
void cli_walk_transform(cli_walk *w, const hyfft_problem *p, int side);
void cli_walk_batch(cli_walk *w, const hyfft_problem *p, int side);
void cli_walk_next(cli_walk *w);

/* Fails (message in err) for layouts the tool cannot lay out (negative
 * strides). */
int cli_layout_init(cli_layout *L, const hyfft_problem *validated, char *err, size_t errlen);
/* 5 N log2 N per transform (2.5 for real), times the batch. */
double cli_layout_flops(const cli_layout *L);
/* One read of the input and one write of the output, logical elements. */
double cli_layout_bytes(const cli_layout *L);

/* Fill the physical input (host memory, buf_in_bytes) with seeded random
 * values in [-1,1) rounded to the precision; C2R input is made Hermitian so
 * that every library must give the same answer. The logical inputs of
 * the `keep` checked transforms (cli_check_slot) are stored in `logical`
 * (keep*in_count). */
/* The slot in the checked arrays of batch entry t when `keep` entries are
 * checked, or -1: the first half of them and the last half, so that a
 * large batch's highest offsets (past 2^31 elements) are compared too. */
int64_t cli_check_slot(const cli_layout *L, int64_t keep, int64_t t);
int cli_fill_input(const cli_layout *L, cli_rng *rng, void *phys_in, int64_t keep,
                   cli_ldc *logical);
/* Gather the outputs of the `count` checked transforms (cli_check_slot)
 * into logical order. */
void cli_gather_output(const cli_layout *L, const void *phys_out, int64_t count,
                       cli_ldc *logical);

/* ---- reference ------------------------------------------------------------- */

/* A long-double multi-dimensional complex DFT of a contiguous row-major
 * array: FFTW's fftwl through dlopen when present (unless builtin is set),
 * else the built-in mixed-radix + Bluestein code. */
typedef struct cli_ref cli_ref;
int cli_ref_create(int rank, const int64_t *n, int sign, int builtin, cli_ref **out, char *err,
                   size_t errlen);
void cli_ref_run(cli_ref *ref, cli_ldc *data);
const char *cli_ref_name(const cli_ref *ref);
void cli_ref_destroy(cli_ref *ref);

/* Reference outputs of the first `count` transforms of a layout from their
 * logical inputs (count*out_count elements). */
int cli_reference(const cli_layout *L, int builtin, const cli_ldc *in, int64_t count,
                  cli_ldc *out, const char **ref_name, char *err, size_t errlen);

/* The same for R2R layouts (reference_r2r.c): each axis through the
 * complex reference of FFTW's symmetric extension of its rows. */
int cli_reference_r2r(const cli_layout *L, int builtin, const cli_ldc *in, int64_t count,
                      cli_ldc *out, const char **ref_name, char *err, size_t errlen);

/* Relative RMS ||out-ref||2/||ref||2 and max-norm max|d|/max|ref|; NaN in
 * the output gives NaN (which never passes a gate). */
void cli_errors(const cli_ldc *out, const cli_ldc *ref, int64_t count, double *rel_rms,
                double *max_err);
/* DESIGN section 7: 5*u*sqrt(log2 N); max-norm gate is 10x. */
double cli_rms_gate(hyfft_precision prec, int64_t n);
/* f16/bf16 data (util/half.h's conversions): whether p is a half format,
 * v rounded to p's storage, and one real of a half buffer. */
int cli_is_half(hyfft_precision p);
double cli_round(hyfft_precision p, double v);
void cli_half_put(hyfft_precision p, void *buf, int64_t i, double v);
double cli_half_get(hyfft_precision p, const void *buf, int64_t i);

/* How many transforms the accuracy check covers: as many as fit in
 * `limit` elements, at least one, 0 if one transform exceeds `hard`. */
int64_t cli_check_count(const cli_layout *L, int64_t limit, int64_t hard);

/* ---- one problem run through hyfft ---------------------------------------------- */

/* A plan with its host buffers and, for device-memory problems, device
 * buffers holding the same data. */
typedef struct cli_case {
  const char *token;
  hyfft_context ctx;
  hyfft_plan plan;
  cli_layout L;
  double plan_seconds;
  double ready_seconds; /* until the final kernels run (hyfft_plan_wait) */
  int device;               /* data in hyfft_buffer_alloc buffers */
  void *host_in, *host_out; /* host_out == host_in for in-place */
  void *din, *dout;         /* the buffers hyfft_execute gets */
  void *pristine;           /* a copy of host_in for refills (may be NULL) */
  int cuda_timed;           /* bench: time with CUDA events (peer_cufft.c) */
  hyfft_status plan_status; /* why plan is NULL (keep_going) */
  char plan_error[512];
  double exec_start;  /* progress.c: when the current execution began */
  double progress_at; /* when it last reported */
  int progress_shown; /* a progress line of this execution is open */
} cli_case;

/* Plan `problem` (its memory field decides host or device data) and
 * allocate the buffers. On a hyfft error returns the status (message left
 * in hyfft_last_error()); on a tool error returns HYFFT_INTERNAL with `err`
 * filled. With `keep_going`, a failed plan is recorded in plan_status and
 * plan_error and the buffers are still set up from `problem` as given, so
 * that peers can run. */
hyfft_status cli_case_setup(cli_case *c, hyfft_context ctx, const char *token,
                            const hyfft_problem *problem, unsigned flags, int keep_going,
                            char *err, size_t errlen);
/* Progress lines on stderr (progress.c): forced by --progress, else shown
 * for executions over a second when stderr is a terminal. Init once per
 * command; cli_case_setup attaches the callback to each plan, and
 * cli_case_execute starts each execution's clock. */
void cli_progress_init(int forced);
void cli_progress_attach(cli_case *c);
void cli_progress_start(cli_case *c);
/* Off (1) and back on (0) around bench's loops of short executions, none
 * of which runs long enough to report on a terminal: their progress
 * callback and its clock read would be timed with the transform. */
void cli_progress_pause(cli_case *c, int paused);
/* Fill the input (seeded by seed and token), keep `keep` logical inputs,
 * save a pristine copy when `save` is set. */
int cli_case_fill(cli_case *c, uint64_t seed, int64_t keep, cli_ldc *logical, int save);
/* Copy host_in (or the pristine copy when `from_pristine`) to the buffers
 * hyfft reads; poison the output buffer. */
hyfft_status cli_case_upload(cli_case *c, int from_pristine, int poison);
hyfft_status cli_case_execute(cli_case *c);
/* Bring the output into host_out. */
hyfft_status cli_case_download(cli_case *c);
void cli_case_free(cli_case *c);

/* The reference-free self-test (selftest.c): relative errors of linearity,
 * impulse response and (C2C) time shift, each from runs of the case's
 * plan; shift is NaN where not tested. Returns 0, or -1 with a reason. */
typedef struct cli_self_result {
  double linearity, impulse, shift;
} cli_self_result;
int cli_self_test(cli_case *c, uint64_t seed, cli_self_result *r, char *err, size_t errlen);

/* ---- bench results ---------------------------------------------------------- */

/* One library on one problem. Unknown values are NaN. */
/* The sampled check (sampled.c), for 1D C2C and R2C transforms beyond the
 * reference's limit: `nbins` bins of the first transform's output computed
 * directly from the input (O(n) each, long double, on every thread), each
 * bin's error over the RMS of the output, the largest against a gate of 3x
 * the RMS gate. Reads the physical input and output as they are. */
#define CLI_SAMPLED_BINS 8
typedef struct cli_sampled_result {
  int bins;
  double max_err, gate;
  int pass;
} cli_sampled_result;
int cli_sampled_supported(const cli_layout *L);
int cli_sampled_check(const cli_layout *L, const void *in, const void *out, int nbins,
                      uint64_t seed, cli_sampled_result *r, char *err, size_t errlen);

typedef struct cli_row {
  char token[256];
  char lib[32];
  char device[64];
  char note[768];       /* why a value is missing, "" when all is well */
  int ok;               /* timed successfully */
  hyfft_precision precision;
  hyfft_kind kind;
  int64_t n, batch;
  int rank;             /* transform dims; 0 when unknown */
  int pow2;             /* every transform length is a power of two */
  double plan_ms, median_ms, min_ms, gflops, gbps, rel_rms, max_err;
  double ratio;         /* peer time / hyfft time (peers only) */
  int sampled;          /* max_err is the sampled check's (rel_rms not measured) */
  double pct_copy;      /* hyfft only, with --vs copy: percent of the copy bandwidth */
} cli_row;

void cli_report_header(FILE *f);
void cli_report_row(FILE *f, const cli_row *r);
int cli_report_json(const char *path, const char *device, const cli_row *rows, int nrows,
                    int warmup, int runs, uint64_t seed);
int cli_report_svg(const char *path, const char *device, const cli_row *rows, int nrows);

/* ---- suites ------------------------------------------------------------------ */

/* Expand arguments (tokens, suite paths, suite names) into a token list.
 * Returns 0 or prints a message naming the bad argument. */
int cli_expand_tokens(const char *cmd, int nargs, char **args, char ***tokens, int *ntokens);
void cli_free_tokens(char **tokens, int ntokens);

/* ---- commands ---------------------------------------------------------------- */

int cli_cmd_info(int argc, char **argv);
int cli_cmd_plan(int argc, char **argv);
int cli_cmd_verify(int argc, char **argv);
int cli_cmd_bench(int argc, char **argv);
/* bench --mpi: replaces the process with the MPI benchmark (bench_mpi.c);
 * returns only on a usage error or when the program is not found. */
int cli_cmd_bench_mpi(int argc, char **argv);
/* plan of a distributed token (":mpi"): replaces the process with the MPI
 * benchmark's --describe mode; returns only when the program is not found. */
int cli_cmd_plan_mpi(const char *token, int measure);
int cli_cmd_tune(int argc, char **argv);
int cli_cmd_cache(int argc, char **argv);

#endif /* HYFFT_CLI_H */
