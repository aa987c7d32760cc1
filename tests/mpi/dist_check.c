/* mpi.dist: hyfft_dist against single-process hyfft, under mpirun.
 *
 * Every rank builds the same random global input (seed chosen by rank 0 and
 * broadcast, printed for reproduction), computes the single-process result
 * with an ordinary hyfft plan, fills its own input box, poisons its output
 * with NaN, executes the distributed plan and compares its output box with
 * the reference (max error relative to the reference's max, reduced over
 * the ranks). NaN left in an unwritten element fails the comparison. The
 * input must come back unchanged. Then the bad-input cases: each must give
 * the named status on every rank (and return, not hang: CTest's timeout
 * catches a hang). */
#define _POSIX_C_SOURCE 200809L /* setenv (HYFFT_DIST_OVERLAP, _DIRECT_MIN) under -std=c11 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hyfft_mpi.h"

static int g_rank, g_size, g_failures;
/* g_ctx runs the distributed plans: the device $HYFFT_DEVICE names (the
 * CPU when unset), so that other backends' ranks are checked too; g_ref
 * is always the CPU, and computes the single-process reference. */
static hyfft_context g_ctx, g_ref;

#define FAIL(...)                                \
  do {                                           \
    fprintf(stderr, "rank %d: FAIL: ", g_rank);  \
    fprintf(stderr, __VA_ARGS__);                \
    fprintf(stderr, "\n");                       \
    g_failures++;                                \
  } while (0)

/* ---- data ------------------------------------------------------------------ */

static uint64_t g_state;
static double rnd(void) { /* xorshift64*, uniform in [-1, 1) */
  g_state ^= g_state >> 12;
  g_state ^= g_state << 25;
  g_state ^= g_state >> 27;
  return (double)((g_state * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

static double get(const void *buf, hyfft_precision prec, int64_t i) {
  return prec == HYFFT_F32 ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
}
static void set(void *buf, hyfft_precision prec, int64_t i, double v) {
  if (prec == HYFFT_F32)
    ((float *)buf)[i] = (float)v;
  else
    ((double *)buf)[i] = v;
}

static int64_t box_offset(const hyfft_dist_box *b, int64_t i0, int64_t i1, int64_t i2) {
  return (i0 - b->start[0]) * b->stride[0] + (i1 - b->start[1]) * b->stride[1] +
         (i2 - b->start[2]) * b->stride[2];
}

/* A single-process hyfft transform of a contiguous global array of h
 * interleaved transforms (each element holds h values side by side). */
static hyfft_status transform(hyfft_kind kind, hyfft_precision prec, int sign, int rank,
                              const int64_t *n, int64_t h, const void *in, void *out) {
  hyfft_problem pr;
  hyfft_plan plan;
  hyfft_status s = hyfft_problem_init(&pr, kind, prec, sign, rank, n);
  if (s == HYFFT_SUCCESS && h > 1) {
    for (int a = 0; a < pr.rank; a++) {
      pr.dims[a].in_stride *= h;
      pr.dims[a].out_stride *= h;
    }
    pr.batch_rank = 1;
    pr.batch[0].n = h;
    pr.batch[0].in_stride = pr.batch[0].out_stride = 1;
  }
  if (s == HYFFT_SUCCESS) s = hyfft_plan_create(g_ref, &pr, HYFFT_ESTIMATE, &plan);
  if (s != HYFFT_SUCCESS) return s;
  s = hyfft_execute(plan, in, out);
  hyfft_status d = hyfft_plan_destroy(plan);
  return s != HYFFT_SUCCESS ? s : d;
}

/* ---- one correctness case ------------------------------------------------- */

/* One case on `comm`; in place: in == out, a buffer of alloc_local
 * elements. */
static void check_case_on(MPI_Comm comm, const char *token, int inplace) {
  int comm_size = 1;
  MPI_Comm_size(comm, &comm_size);
  hyfft_dist_problem p;
  hyfft_status s = hyfft_dist_problem_parse(token, &p);
  if (s != HYFFT_SUCCESS) {
    FAIL("%s: parse: %s %s", token, hyfft_status_name(s), hyfft_dist_last_error());
    return;
  }
  hyfft_precision prec = p.precision;
  size_t scalar = prec == HYFFT_F32 ? sizeof(float) : sizeof(double);
  int64_t n[3] = {p.n[0], p.n[1], p.rank == 3 ? p.n[2] : 1};
  int last = p.rank - 1;
  int64_t nc_last = p.kind == HYFFT_C2C ? n[last] : n[last] / 2 + 1;
  int64_t nreal = n[0] * n[1] * n[2];
  int64_t ncomplex = nreal / n[last] * nc_last;
  /* Interleaved transforms: global element g holds h values, value b at g h + b. */
  const int64_t h = p.howmany > 1 ? p.howmany : 1;

  /* Global input and reference, in the problem's precision. */
  void *gin = malloc((size_t)(h * (2 * ncomplex + 2 * nreal)) * scalar);
  void *gref = malloc((size_t)(h * (2 * ncomplex + 2 * nreal)) * scalar);
  if (!gin || !gref) {
    FAIL("%s: out of memory", token);
    free(gin);
    free(gref);
    return;
  }
  if (p.kind == HYFFT_C2C) {
    for (int64_t i = 0; i < 2 * ncomplex * h; i++) set(gin, prec, i, rnd());
    s = transform(HYFFT_C2C, prec, p.sign, p.rank, n, h, gin, gref);
  } else if (p.kind == HYFFT_R2C) {
    for (int64_t i = 0; i < nreal * h; i++) set(gin, prec, i, rnd());
    s = transform(HYFFT_R2C, prec, HYFFT_FORWARD, p.rank, n, h, gin, gref);
  } else {
    /* A Hermitian half spectrum: the R2C of random reals. */
    for (int64_t i = 0; i < nreal * h; i++) set(gref, prec, i, rnd());
    s = transform(HYFFT_R2C, prec, HYFFT_FORWARD, p.rank, n, h, gref, gin);
    if (s == HYFFT_SUCCESS) s = transform(HYFFT_C2R, prec, HYFFT_BACKWARD, p.rank, n, h, gin, gref);
  }
  if (s != HYFFT_SUCCESS) {
    FAIL("%s: reference: %s %s", token, hyfft_status_name(s), hyfft_last_error());
    free(gin);
    free(gref);
    return;
  }

  hyfft_dist_plan plan = NULL;
  s = hyfft_dist_plan_token(g_ctx, comm, token, HYFFT_ESTIMATE, &plan);
  if (s != HYFFT_SUCCESS) {
    FAIL("%s: plan: %s %s", token, hyfft_status_name(s), hyfft_dist_last_error());
    free(gin);
    free(gref);
    return;
  }
  hyfft_dist_layout L, L2;
  s = hyfft_dist_plan_layout(plan, &L);
  if (s == HYFFT_SUCCESS) s = hyfft_dist_local_size(comm, &p, &L2);
  if (s != HYFFT_SUCCESS || memcmp(&L, &L2, sizeof L) != 0)
    FAIL("%s: plan layout and hyfft_dist_local_size differ (%s)", token, hyfft_status_name(s));

  int in_real = p.kind == HYFFT_R2C, out_real = p.kind == HYFFT_C2R;
  int in_w = in_real ? 1 : 2, out_w = out_real ? 1 : 2; /* scalars per element */
  size_t in_bytes = (size_t)(L.in.elements * in_w) * scalar;
  size_t out_bytes = (size_t)(L.out.elements * out_w) * scalar;
  size_t both = (size_t)(2 * L.alloc_local) * scalar;
  if (inplace && (both < in_bytes || both < out_bytes))
    FAIL("%s: alloc_local %lld holds neither side", token, (long long)L.alloc_local);
  void *in = NULL, *out = NULL, *copy = NULL;
  if (inplace) {
    if (both) in = out = malloc(both);
  } else {
    if (in_bytes) in = malloc(in_bytes);
    if (out_bytes) out = malloc(out_bytes);
  }
  if (in_bytes) copy = malloc(in_bytes);
  /* Poison the output (NaN), then write the input box (a real input's row
   * padding is zeroed: it is the caller's, as in FFTW-MPI). */
  if (in) memset(in, in_real ? 0 : 0xff, inplace ? both : in_bytes);
  if (out && !inplace) memset(out, 0xff, out_bytes);
  for (int64_t i0 = L.in.start[0]; i0 < L.in.start[0] + L.in.count[0]; i0++)
    for (int64_t i1 = L.in.start[1]; i1 < L.in.start[1] + L.in.count[1]; i1++) {
      for (int64_t i2 = L.in.start[2]; i2 < L.in.start[2] + L.in.count[2]; i2++) {
        int64_t o = box_offset(&L.in, i0, i1, i2);
        for (int64_t b = 0; b < h; b++) {
          if (in_real) {
            int64_t g = (p.rank == 3) ? (i0 * n[1] + i1) * n[2] + i2 : i0 * n[1] + i1;
            set(in, prec, o + b, get(gin, prec, g * h + b));
          } else {
            int64_t g = p.rank == 3 ? (i0 * n[1] + i1) * (p.kind == HYFFT_C2C ? n[2] : nc_last) + i2
                                    : i0 * (p.kind == HYFFT_C2C ? n[1] : nc_last) + i1;
            set(in, prec, 2 * (o + b), get(gin, prec, 2 * (g * h + b)));
            set(in, prec, 2 * (o + b) + 1, get(gin, prec, 2 * (g * h + b) + 1));
          }
        }
      }
    }
  if (copy) memcpy(copy, in, in_bytes);

  /* Device buffers (':dev'): the same contents written to buffers of
   * g_ctx, executed there, and read back into in and out. */
  void *din = in, *dout = out;
  int dev = p.memory == HYFFT_MEMORY_DEVICE;
  size_t in_all = inplace ? both : in_bytes, out_all = inplace ? both : out_bytes;
  if (dev) {
    din = dout = NULL;
    s = HYFFT_SUCCESS;
    if (in_all) s = hyfft_buffer_alloc(g_ctx, in_all, &din);
    if (s == HYFFT_SUCCESS && in_all) s = hyfft_buffer_write(g_ctx, din, 0, in, in_all);
    if (inplace) dout = din;
    else if (s == HYFFT_SUCCESS && out_all) s = hyfft_buffer_alloc(g_ctx, out_all, &dout);
    if (s == HYFFT_SUCCESS && !inplace && out_all) s = hyfft_buffer_write(g_ctx, dout, 0, out, out_all);
    if (s != HYFFT_SUCCESS)
      FAIL("%s: device buffers: %s %s", token, hyfft_status_name(s), hyfft_last_error());
  }
  s = hyfft_dist_execute(plan, din, dout);
  if (s != HYFFT_SUCCESS)
    FAIL("%s: execute: %s %s", token, hyfft_status_name(s), hyfft_dist_last_error());
  if (dev) {
    hyfft_status r = HYFFT_SUCCESS;
    if (out_all && dout) r = hyfft_buffer_read(g_ctx, dout, 0, out, out_all);
    if (r == HYFFT_SUCCESS && !inplace && in_all && din) r = hyfft_buffer_read(g_ctx, din, 0, in, in_all);
    if (r != HYFFT_SUCCESS)
      FAIL("%s: reading the device buffers: %s %s", token, hyfft_status_name(r), hyfft_last_error());
    if (din) hyfft_buffer_free(g_ctx, din);
    if (dout && !inplace) hyfft_buffer_free(g_ctx, dout);
  }
  /* One execution: all-to-alls on several ranks, none on one. */
  hyfft_dist_times times;
  s = hyfft_dist_plan_times(plan, &times);
  if (s != HYFFT_SUCCESS || times.executions != 1 || (comm_size == 1) != (times.alltoalls == 0) ||
      !(times.total >= times.local_fft))
    FAIL("%s: times: %s, %lld executions, %lld all-to-alls", token, hyfft_status_name(s),
         (long long)times.executions, (long long)times.alltoalls);

  /* Compare the output box. */
  double maxerr = 0.0, maxref = 0.0;
  int64_t checked = 0;
  for (int64_t i0 = L.out.start[0]; i0 < L.out.start[0] + L.out.count[0]; i0++)
    for (int64_t i1 = L.out.start[1]; i1 < L.out.start[1] + L.out.count[1]; i1++)
      for (int64_t i2 = L.out.start[2]; i2 < L.out.start[2] + L.out.count[2]; i2++) {
        int64_t o = box_offset(&L.out, i0, i1, i2);
        for (int64_t q = 0; q < h * out_w; q++) {
          int64_t b = q / out_w, c = q % out_w, g;
          if (out_real)
            g = (p.rank == 3 ? (i0 * n[1] + i1) * n[2] + i2 : i0 * n[1] + i1) * h + b;
          else
            g = 2 * ((p.rank == 3 ? (i0 * n[1] + i1) * (p.kind == HYFFT_C2C ? n[2] : nc_last) + i2
                                  : i0 * (p.kind == HYFFT_C2C ? n[1] : nc_last) + i1) * h + b) + c;
          double r = get(gref, prec, g), v = get(out, prec, out_w == 2 ? 2 * (o + b) + c : o + b);
          double e = fabs(v - r);
          if (!(e <= maxerr)) maxerr = isnan(e) ? INFINITY : e;
          if (fabs(r) > maxref) maxref = fabs(r);
          checked++;
        }
      }
  if (!inplace && copy && memcmp(copy, in, in_bytes) != 0)
    FAIL("%s: the input changed", token);

  double local[2] = {maxerr, maxref}, global[2];
  int64_t total = 0;
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&checked, &total, 1, MPI_INT64_T, MPI_SUM, comm);
  double u = prec == HYFFT_F32 ? 5.96e-8 : 1.11e-16;
  double tol = 20.0 * u * log2((double)(nreal > 2 ? nreal : 2));
  double rel = global[1] > 0 ? global[0] / global[1] : global[0];
  int64_t expect = h * (out_real ? nreal : 2 * ncomplex);
  if (!(rel <= tol)) FAIL("%s%s: max error %.3g relative to max |ref| (tolerance %.3g)", token,
                          inplace ? " (in place)" : "", rel, tol);
  if (total != expect)
    FAIL("%s: the output boxes hold %lld scalars, the array %lld", token, (long long)total,
         (long long)expect);
  if (g_rank == 0)
    printf("%-40s %-8s %d ranks %-6s grid %dx%d  max rel err %.2e (tol %.1e)\n", token,
           inplace ? "inplace" : "outplace", comm_size,
           L.decomposition == HYFFT_DIST_SLAB ? "slab" : "pencil", L.grid[0], L.grid[1], rel,
           tol);
  s = hyfft_dist_plan_destroy(plan);
  if (s != HYFFT_SUCCESS) FAIL("%s: destroy: %s", token, hyfft_status_name(s));
  free(in);
  if (!inplace) free(out);
  free(copy);
  free(gin);
  free(gref);
}

static void check_case(const char *token, int inplace) {
  check_case_on(MPI_COMM_WORLD, token, inplace);
}

/* ---- bad input ---------------------------------------------------------------- */

/* Every rank must report `want`; the detail message must not be empty. */
static void expect_all(const char *what, hyfft_status got, hyfft_status want) {
  int bad = got != want || hyfft_dist_last_error()[0] == '\0', any = 0;
  if (bad)
    FAIL("%s: got %s (%s), want %s", what, hyfft_status_name(got), hyfft_dist_last_error(),
         hyfft_status_name(want));
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) printf("bad input: %-48s %s on every rank%s\n", what, hyfft_status_name(want),
                          any ? ": NO" : "");
}

static void check_bad_input(void) {
  hyfft_dist_problem p;
  hyfft_dist_plan plan = NULL;
  int64_t n[3] = {9, 10, 7};
  int last = g_size - 1;
  hyfft_dist_problem_init(&p, HYFFT_C2C, HYFFT_F64, HYFFT_FORWARD, 3, n);

  if (g_size > 1) {
    hyfft_dist_problem q = p;
    if (g_rank == 0) q.n[1] = 11;
    expect_all("n[1] differs on rank 0", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_ARGUMENT);
    q = p;
    if (g_rank == last) q.memory = HYFFT_MEMORY_DEVICE;
    expect_all("device memory on the last rank only",
               hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan), HYFFT_INVALID_ARGUMENT);
    q = p;
    if (g_rank == last) q.precision = HYFFT_F32;
    expect_all("precision differs on the last rank",
               hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan), HYFFT_INVALID_ARGUMENT);
    q = p;
    if (g_rank == last) q.howmany = 2;
    expect_all("howmany differs on the last rank",
               hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan), HYFFT_INVALID_ARGUMENT);
    /* The direct rule must match on every rank (its messages pair up). */
    const char *was = getenv("HYFFT_DIST_DIRECT_MIN");
    char saved[64] = "";
    if (was) snprintf(saved, sizeof saved, "%s", was);
    setenv("HYFFT_DIST_DIRECT_MIN", g_rank == last ? "4096" : "0", 1);
    expect_all("HYFFT_DIST_DIRECT_MIN differs on the last rank",
               hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, 0, &plan), HYFFT_INVALID_ARGUMENT);
    setenv("HYFFT_DIST_DIRECT_MIN", g_rank == 0 ? "12k" : "0", 1);
    expect_all("HYFFT_DIST_DIRECT_MIN=12k on rank 0",
               hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, 0, &plan), HYFFT_INVALID_ARGUMENT);
    if (was) setenv("HYFFT_DIST_DIRECT_MIN", saved, 1);
    else unsetenv("HYFFT_DIST_DIRECT_MIN");
  }
  {
    hyfft_dist_problem q = p;
    q.howmany = -3;
    expect_all("howmany -3", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_SIZE);
  }
  {
    hyfft_dist_problem q = p;
    q.decomposition = HYFFT_DIST_PENCIL;
    q.grid[0] = g_size + 1;
    q.grid[1] = 2;
    expect_all("pencil grid (size+1)x2 for the communicator",
               hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan), HYFFT_INVALID_ARGUMENT);
  }
  expect_all("NULL plan pointer on the last rank",
             hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, 0, g_rank == last ? NULL : &plan),
             HYFFT_NULL_POINTER);
  expect_all("NULL context on rank 0",
             hyfft_dist_plan_create(g_rank == 0 ? NULL : g_ctx, MPI_COMM_WORLD, &p, 0, &plan),
             HYFFT_NULL_POINTER);
  {
    hyfft_dist_problem q = p;
    if (g_rank == 0) q.kind = (hyfft_kind)7;
    expect_all("kind 7 on rank 0", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_KIND);
    q = p;
    q.memory = (hyfft_memory)5;
    expect_all("memory 5", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_ARGUMENT);
    q = p;
    q.n[2] = 0;
    expect_all("n[2] = 0", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_SIZE);
    q = p;
    q.rank = 4;
    expect_all("rank 4", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_RANK);
    q = p;
    q.kind = HYFFT_R2C;
    q.layout = HYFFT_DIST_TRANSPOSED_IN;
    expect_all("R2C with TRANSPOSED_IN", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_ARGUMENT);
    q = p;
    q.rank = 2;
    q.decomposition = HYFFT_DIST_PENCIL;
    expect_all("2D pencil", hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &q, 0, &plan),
               HYFFT_INVALID_ARGUMENT);
  }
  expect_all("plan_create with MPI_COMM_NULL",
             hyfft_dist_plan_create(g_ctx, MPI_COMM_NULL, &p, 0, &plan), HYFFT_INVALID_ARGUMENT);
  expect_all("bad token on the last rank",
             hyfft_dist_plan_token(g_ctx, MPI_COMM_WORLD,
                                   g_rank == last ? "c2c:f64:fwd:9x10x7:mpi:pencil=0x1"
                                                  : "c2c:f64:fwd:9x10x7:mpi",
                                   0, &plan),
             HYFFT_INVALID_TOKEN);

  /* Execution: a NULL buffer on one rank. */
  hyfft_status s = hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, 0, &plan);
  if (s != HYFFT_SUCCESS) {
    FAIL("good plan: %s %s", hyfft_status_name(s), hyfft_dist_last_error());
    return;
  }
  hyfft_dist_layout L;
  hyfft_dist_plan_layout(plan, &L);
  size_t bytes = (size_t)(L.alloc_local > 0 ? L.alloc_local : 1) * 16;
  double *a = calloc(1, bytes), *b = calloc(1, bytes);
  /* Only a rank with an empty box may pass NULL; rank 0 always has rows
   * (on 4 ranks the last one has none of the 9: blocks of 3). */
  expect_all("execute with NULL out on rank 0",
             hyfft_dist_execute(plan, a, g_rank == 0 ? NULL : b), HYFFT_NULL_POINTER);
  s = hyfft_dist_execute(plan, a, b);
  if (s != HYFFT_SUCCESS) FAIL("execute after the error: %s", hyfft_status_name(s));
  hyfft_dist_plan_destroy(plan);
  free(a);
  free(b);
}

/* ---- tokens -------------------------------------------------------------------- */

static void check_tokens(void) {
  hyfft_dist_problem p;
  static const char *const good[] = {"c2c:f32:fwd:64x64x64:mpi", "r2c:f64:9x10:mpi:slab",
                                     "c2c:f64:bwd:8x8x8:mpi:pencil=2x2:tout",
                                     "c2r:f32:8x8x8:mpi:tin:pencil", "c2c:f32:fwd:8x8:dev:mpi",
                                     "r2c:f32:8x8x8:mpi:howmany=3:slab"};
  static const char *const bad[] = {"c2c:f32:fwd:64x64x64",         "c2c:f32:fwd:64:mpi",
                                    "c2c:f32:fwd:8x8:b2:mpi",       "c2c:f32:fwd:8x8:ip:mpi",
                                    "c2c:f32:fwd:8x8x8:mpi:pencil=2", "c2c:f32:fwd:8x8x8:mpi:slab:pencil",
                                    "c2c:f32:fwd:8x8x8:mpi:tout:tout", "c2c:f32:fwd:8x8x8:mpi::slab",
                                    "c2c:f32:fwd:8x8x8:mpi:cube",   "c2c:f32:fwd:8x8:mpi:howmany=0",
                                    "c2c:f32:fwd:8x8:mpi:howmany=", "c2c:f32:fwd:8x8:mpi:howmany=2x",
                                    "c2c:f32:fwd:8x8:mpi:howmany=2:howmany=2"};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    hyfft_status s = hyfft_dist_problem_parse(good[i], &p);
    if (s != HYFFT_SUCCESS) FAIL("token %s: %s %s", good[i], hyfft_status_name(s), hyfft_dist_last_error());
  }
  if (hyfft_dist_problem_parse(good[2], &p) == HYFFT_SUCCESS &&
      (p.decomposition != HYFFT_DIST_PENCIL || p.grid[0] != 2 || p.grid[1] != 2 ||
       p.layout != HYFFT_DIST_TRANSPOSED_OUT || p.sign != HYFFT_BACKWARD || p.n[2] != 8))
    FAIL("token %s parsed to the wrong problem", good[2]);
  if (hyfft_dist_problem_parse(good[4], &p) == HYFFT_SUCCESS && p.memory != HYFFT_MEMORY_DEVICE)
    FAIL("token %s parsed to host memory", good[4]);
  if (hyfft_dist_problem_parse(good[0], &p) == HYFFT_SUCCESS && (p.memory != HYFFT_MEMORY_HOST || p.howmany != 1))
    FAIL("token %s parsed to device memory or howmany %lld", good[0], (long long)p.howmany);
  if (hyfft_dist_problem_parse(good[5], &p) == HYFFT_SUCCESS &&
      (p.howmany != 3 || p.decomposition != HYFFT_DIST_SLAB))
    FAIL("token %s parsed to howmany %lld", good[5], (long long)p.howmany);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    hyfft_status s = hyfft_dist_problem_parse(bad[i], &p);
    if (s != HYFFT_INVALID_TOKEN) FAIL("token %s: %s, want HYFFT_INVALID_TOKEN", bad[i], hyfft_status_name(s));
  }
}

/* ---- phase times and bytes ------------------------------------------------ */

static int64_t box_product(const hyfft_dist_box *b) { return b->count[0] * b->count[1] * b->count[2]; }

/* Elements two boxes of the global array share. */
static int64_t box_shared(const hyfft_dist_box *a, const hyfft_dist_box *b) {
  int64_t n = 1;
  for (int d = 0; d < 3; d++) {
    int64_t lo = a->start[d] > b->start[d] ? a->start[d] : b->start[d];
    int64_t ea = a->start[d] + a->count[d], eb = b->start[d] + b->count[d];
    int64_t hi = ea < eb ? ea : eb;
    n *= hi > lo ? hi - lo : 0;
  }
  return n;
}

/* Three executions of a C2C plan, then the phase times: non-negative,
 * their sum within the total, the bytes sent those the layout implies,
 * the bytes received in all equal to those sent, and the all-to-all
 * reference over the same traffic. Slab: a rank sends its normal box, then
 * its transposed box (complex elements), each once per execution (the
 * second only without :tout), less the block it keeps (the two boxes'
 * common elements), which it copies outside MPI. Pencil: every transpose
 * over more than one rank moves each element of the array once, summed
 * over the ranks, sent or kept: four of them on a P x Q grid with P, Q >
 * 1, two where one of them is 1. */
static void check_times(const char *token) {
  hyfft_dist_problem p;
  hyfft_dist_layout L, Lt;
  hyfft_dist_plan plan;
  hyfft_status s = hyfft_dist_problem_parse(token, &p);
  if (s == HYFFT_SUCCESS) s = hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, HYFFT_ESTIMATE, &plan);
  if (s != HYFFT_SUCCESS) {
    FAIL("%s: times plan: %s %s", token, hyfft_status_name(s), hyfft_dist_last_error());
    return;
  }
  hyfft_dist_plan_layout(plan, &L);
  hyfft_dist_problem pt = p;
  pt.layout = HYFFT_DIST_TRANSPOSED_OUT;
  hyfft_dist_local_size(MPI_COMM_WORLD, &pt, &Lt);
  size_t esize = p.precision == HYFFT_F32 ? 8 : 16;
  void *in = calloc((size_t)L.alloc_local + 1, esize), *out = calloc((size_t)L.alloc_local + 1, esize);
  const int execs = 3;
  hyfft_dist_plan_reset_times(plan);
  for (int i = 0; i < execs; i++) {
    s = hyfft_dist_execute(plan, in, out);
    if (s != HYFFT_SUCCESS) FAIL("%s: times execute: %s", token, hyfft_status_name(s));
  }
  hyfft_dist_times t;
  hyfft_dist_plan_times(plan, &t);
  double sum = t.local_fft + t.pack + t.alltoall + t.unpack + t.agree;
  if (t.executions != execs || !(t.local_fft >= 0) || !(t.pack >= 0) || !(t.alltoall >= 0) ||
      !(t.unpack >= 0) || !(t.agree >= 0) || !(t.total > 0) || !(sum <= t.total * (1 + 1e-9)))
    FAIL("%s: times: %lld executions, local %g pack %g alltoall %g unpack %g agree %g, sum %g > total %g",
         token, (long long)t.executions, t.local_fft, t.pack, t.alltoall, t.unpack, t.agree, sum,
         t.total);
  int slab = L.decomposition == HYFFT_DIST_SLAB;
  int64_t per_exec = t.alltoall_bytes / execs, want = 0;
  if (slab && g_size > 1) {
    int64_t kept = box_shared(&L.in, &Lt.out);
    want = box_product(&L.in) - kept;
    if (!(p.layout & HYFFT_DIST_TRANSPOSED_OUT)) want += box_product(&Lt.out) - kept;
    want *= (int64_t)esize;
  }
  if (slab && per_exec * execs != t.alltoall_bytes) want = -1;
  if (slab && per_exec != want)
    FAIL("%s: rank sends %lld bytes per execution, the layout implies %lld", token,
         (long long)per_exec, (long long)want);
  int64_t mine[3] = {t.alltoall_bytes, t.alltoall_recv_bytes, t.kept_bytes}, all[3] = {0, 0, 0};
  MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  int ntr = 0;
  if (!slab) {
    ntr = (L.grid[0] > 1) + (L.grid[1] > 1);
    if (!(p.layout & HYFFT_DIST_TRANSPOSED_OUT)) ntr *= 2;
  } else {
    ntr = g_size > 1 ? ((p.layout & HYFFT_DIST_TRANSPOSED_OUT) ? 1 : 2) : 0;
  }
  int64_t total_n = p.n[0] * p.n[1] * (p.rank == 3 ? p.n[2] : 1);
  if (all[0] != all[1] || all[0] + all[2] != (int64_t)execs * ntr * total_n * (int64_t)esize ||
      (ntr > 0 && !(all[2] > 0)))
    FAIL("%s: all ranks send %lld, receive %lld and keep %lld bytes, the array implies %lld "
         "sent or kept", token, (long long)all[0], (long long)all[1], (long long)all[2],
         (long long)execs * ntr * total_n * (long long)esize);
  double ref_s = -1;
  int64_t ref_bytes = -1;
  s = hyfft_dist_plan_alltoall_reference(plan, 3, &ref_s, &ref_bytes);
  if (s != HYFFT_SUCCESS || !(ref_s >= 0) || ref_bytes != per_exec)
    FAIL("%s: all-to-all reference: %s, %g s, %lld bytes (execution: %lld)", token,
         hyfft_status_name(s), ref_s, (long long)ref_bytes, (long long)per_exec);
  expect_all("all-to-all reference with 0 runs",
             hyfft_dist_plan_alltoall_reference(plan, 0, &ref_s, &ref_bytes), HYFFT_INVALID_ARGUMENT);
  free(in);
  free(out);
  hyfft_dist_plan_destroy(plan);
}

/* ---- overlap against the plain path ------------------------------------- */

/* The same problem planned plain and with HYFFT_DIST_OVERLAP=chunks on the
 * same input: the outputs agree to rounding (the chunks' local plans may
 * differ from the whole stage's in batch count only), and on several ranks
 * the overlapped plan makes more all-to-all calls (the chunks) for the same
 * bytes: every token here has a first transpose over all the ranks. */
/* hyfft_dist_plan_describe: the buffer rules (size query with a NULL
 * buffer, one byte short refused and left untouched, the exact size
 * filled), and a text that names this rank and its first stage, and on
 * more than one rank (not overlapped) a slab's first transpose whose
 * sent and kept element counts add up to this rank's input box. */
static void check_describe(const char *token) {
  hyfft_dist_plan plan = NULL;
  hyfft_status s = hyfft_dist_plan_token(g_ctx, MPI_COMM_WORLD, token, HYFFT_ESTIMATE, &plan);
  if (s != HYFFT_SUCCESS) {
    FAIL("%s: describe plan: %s %s", token, hyfft_status_name(s), hyfft_dist_last_error());
    return;
  }
  size_t need = 0;
  s = hyfft_dist_plan_describe(plan, NULL, 0, &need);
  if (s != HYFFT_BUFFER_TOO_SMALL || need == 0) FAIL("%s: describe size query: %s, %zu", token, hyfft_status_name(s), need);
  char *text = malloc(need + 1);
  if (!text) {
    FAIL("%s: no memory for the description", token);
    hyfft_dist_plan_destroy(plan);
    return;
  }
  memset(text, '#', need + 1);
  size_t need2 = 0;
  s = hyfft_dist_plan_describe(plan, text, need, &need2);
  if (s != HYFFT_BUFFER_TOO_SMALL || need2 != need || text[0] != '#')
    FAIL("%s: describe into %zu bytes: %s (needed %zu), buffer %s", token, need,
         hyfft_status_name(s), need2, text[0] == '#' ? "untouched" : "written");
  s = hyfft_dist_plan_describe(plan, text, need + 1, NULL);
  char want[64];
  snprintf(want, sizeof want, "rank %d at grid", g_rank);
  if (s != HYFFT_SUCCESS || strlen(text) != need || !strstr(text, want) || !strstr(text, "stage 1: local transform"))
    FAIL("%s: description: %s\n%s", token, hyfft_status_name(s), s == HYFFT_SUCCESS ? text : "");
  hyfft_dist_layout L;
  hyfft_dist_plan_layout(plan, &L);
  /* Overlapped (HYFFT_DIST_OVERLAP, the dist_overlap tests): the counts
   * printed are one chunk's. */
  if (s == HYFFT_SUCCESS && g_size > 1 && L.decomposition == HYFFT_DIST_SLAB &&
      !strstr(text, "chunks")) {
    const char *tr = strstr(text, "stage 2: transpose over");
    long long sent = -1, kept = -1;
    const char *p = tr ? strstr(tr, "sends ") : NULL;
    const char *q = tr ? strstr(tr, "keeps ") : NULL;
    if (p) sent = atoll(p + 6);
    if (q) kept = atoll(q + 6);
    long long box = (long long)(L.in.count[0] * L.in.count[1] * L.in.count[2]);
    if (!tr || sent < 0 || kept < 0 || sent + kept != box)
      FAIL("%s: the first transpose sends %lld and keeps %lld elements, the input box holds %lld",
           token, sent, kept, box);
  }
  if (hyfft_dist_plan_describe(NULL, text, need + 1, NULL) != HYFFT_NULL_POINTER)
    FAIL("describe of a NULL plan is not HYFFT_NULL_POINTER");
  free(text);
  hyfft_dist_plan_destroy(plan);
}

static void check_overlap(const char *token, const char *chunks) {
  hyfft_dist_problem p;
  hyfft_dist_layout L;
  hyfft_dist_plan plain = NULL, over = NULL;
  hyfft_status s = hyfft_dist_problem_parse(token, &p);
  unsetenv("HYFFT_DIST_OVERLAP");
  if (s == HYFFT_SUCCESS) s = hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, HYFFT_ESTIMATE, &plain);
  setenv("HYFFT_DIST_OVERLAP", chunks, 1);
  if (s == HYFFT_SUCCESS) s = hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, HYFFT_ESTIMATE, &over);
  unsetenv("HYFFT_DIST_OVERLAP");
  if (s != HYFFT_SUCCESS) {
    FAIL("%s: overlap plans: %s %s", token, hyfft_status_name(s), hyfft_dist_last_error());
    if (plain) hyfft_dist_plan_destroy(plain);
    return;
  }
  hyfft_dist_plan_layout(plain, &L);
  size_t esize = p.precision == HYFFT_F32 ? 8 : 16;
  size_t n = (size_t)L.alloc_local + 1;
  void *in = calloc(n, esize), *o1 = calloc(n, esize), *o2 = calloc(n, esize);
  for (int64_t i = 0; i < L.in.elements * (p.kind == HYFFT_R2C ? 1 : 2); i++) set(in, p.precision, i, rnd());
  if (hyfft_dist_execute(plain, in, o1) != HYFFT_SUCCESS || hyfft_dist_execute(over, in, o2) != HYFFT_SUCCESS)
    FAIL("%s: overlap execute: %s", token, hyfft_dist_last_error());
  double d = 0, m = 0;
  for (int64_t i = 0; i < L.out.elements * 2; i++) {
    double a = get(o1, p.precision, i), b = get(o2, p.precision, i);
    if (!(fabs(a - b) <= d)) d = isnan(a - b) ? INFINITY : fabs(a - b);
    if (fabs(a) > m) m = fabs(a);
  }
  double dm[2] = {d, m}, g[2];
  MPI_Allreduce(dm, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double tol = (p.precision == HYFFT_F32 ? 1.2e-6 : 2.3e-15) * 20 * 16;
  hyfft_dist_times t1, t2;
  hyfft_dist_plan_times(plain, &t1);
  hyfft_dist_plan_times(over, &t2);
  if (!(g[0] <= tol * g[1]))
    FAIL("%s: overlapped output differs from the plain one by %g (max %g)", token, g[0], g[1]);
  if (t1.alltoall_bytes != t2.alltoall_bytes || (g_size > 1 && !(t2.alltoalls > t1.alltoalls)))
    FAIL("%s: overlap sent %lld bytes in %lld calls, plain %lld in %lld", token,
         (long long)t2.alltoall_bytes, (long long)t2.alltoalls, (long long)t1.alltoall_bytes,
         (long long)t1.alltoalls);
  if (g_rank == 0)
    printf("overlap %-36s %s chunks: max diff %.1e of %.1e, %lld calls (plain %lld)\n", token,
           chunks, g[0], g[1], (long long)t2.alltoalls, (long long)t1.alltoalls);
  free(in);
  free(o1);
  free(o2);
  hyfft_dist_plan_destroy(plain);
  hyfft_dist_plan_destroy(over);
}

/* A direct transpose (HYFFT_DIST_DIRECT_MIN, docs/mpi.md "Direct
 * transposes") against the packed one on the same input: the same output
 * bits (only the exchange differs), the same bytes sent, and the plan's
 * description naming the direct transposes on more than one rank. The
 * variable's value on entry is restored, so the whole program can also run
 * with it set. */
static void check_direct(const char *token) {
  const char *was = getenv("HYFFT_DIST_DIRECT_MIN");
  char saved[64] = "";
  if (was) snprintf(saved, sizeof saved, "%s", was);
  hyfft_dist_problem p;
  hyfft_dist_layout L;
  hyfft_dist_plan packed = NULL, direct = NULL;
  hyfft_status s = hyfft_dist_problem_parse(token, &p);
  setenv("HYFFT_DIST_DIRECT_MIN", "0", 1);
  if (s == HYFFT_SUCCESS) s = hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, HYFFT_ESTIMATE, &packed);
  setenv("HYFFT_DIST_DIRECT_MIN", "1", 1);
  if (s == HYFFT_SUCCESS) s = hyfft_dist_plan_create(g_ctx, MPI_COMM_WORLD, &p, HYFFT_ESTIMATE, &direct);
  if (was) setenv("HYFFT_DIST_DIRECT_MIN", saved, 1);
  else unsetenv("HYFFT_DIST_DIRECT_MIN");
  if (s != HYFFT_SUCCESS) {
    FAIL("%s: direct plans: %s %s", token, hyfft_status_name(s), hyfft_dist_last_error());
    if (packed) hyfft_dist_plan_destroy(packed);
    return;
  }
  char text[8192];
  size_t need = 0;
  int named[2] = {0, 0};
  if (hyfft_dist_plan_describe(packed, text, sizeof text, &need) == HYFFT_SUCCESS)
    named[0] = strstr(text, "direct") != NULL;
  if (hyfft_dist_plan_describe(direct, text, sizeof text, &need) == HYFFT_SUCCESS)
    named[1] = strstr(text, "direct") != NULL;
  if (named[0] || named[1] != (g_size > 1))
    FAIL("%s: 'direct' in the descriptions: packed %d, direct %d on %d ranks", token, named[0],
         named[1], g_size);
  hyfft_dist_plan_layout(packed, &L);
  size_t esize = p.precision == HYFFT_F32 ? 8 : 16;
  size_t n = (size_t)L.alloc_local + 1;
  void *in = calloc(n, esize), *o1 = calloc(n, esize), *o2 = calloc(n, esize);
  for (int64_t i = 0; i < L.in.elements * (p.kind == HYFFT_R2C ? 1 : 2); i++) set(in, p.precision, i, rnd());
  for (size_t i = 0; i < 2 * n; i++) {
    set(o1, p.precision, (int64_t)i, NAN);
    set(o2, p.precision, (int64_t)i, NAN);
  }
  if (hyfft_dist_execute(packed, in, o1) != HYFFT_SUCCESS || hyfft_dist_execute(direct, in, o2) != HYFFT_SUCCESS)
    FAIL("%s: direct execute: %s", token, hyfft_dist_last_error());
  /* Every element of the output box (the padding of real rows is not
   * output), both parts of a complex one. */
  const hyfft_dist_box *ob = &L.out;
  int parts = p.kind == HYFFT_C2R ? 1 : 2;
  int64_t differ = 0;
  for (int64_t i0 = 0; i0 < ob->count[0]; i0++)
    for (int64_t i1 = 0; i1 < ob->count[1]; i1++)
      for (int64_t i2 = 0; i2 < ob->count[2]; i2++) {
        int64_t at = box_offset(ob, ob->start[0] + i0, ob->start[1] + i1, ob->start[2] + i2);
        for (int c = 0; c < parts; c++) {
          double a = get(o1, p.precision, parts * at + c), b = get(o2, p.precision, parts * at + c);
          if (!(a == b)) differ++;
        }
      }
  int64_t all = 0;
  MPI_Allreduce(&differ, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  hyfft_dist_times t1, t2;
  hyfft_dist_plan_times(packed, &t1);
  hyfft_dist_plan_times(direct, &t2);
  if (all != 0) FAIL("%s: the direct output differs from the packed one in %lld values", token, (long long)all);
  if (t1.alltoall_bytes != t2.alltoall_bytes || t1.alltoall_recv_bytes != t2.alltoall_recv_bytes ||
      t1.kept_bytes != t2.kept_bytes)
    FAIL("%s: direct sent %lld / received %lld / kept %lld bytes, packed %lld / %lld / %lld", token,
         (long long)t2.alltoall_bytes, (long long)t2.alltoall_recv_bytes, (long long)t2.kept_bytes,
         (long long)t1.alltoall_bytes, (long long)t1.alltoall_recv_bytes, (long long)t1.kept_bytes);
  if (g_rank == 0)
    printf("direct  %-36s %lld values differ, %s\n", token, (long long)all,
           named[1] ? "described as direct" : "one rank: no transpose");
  free(in);
  free(o1);
  free(o2);
  hyfft_dist_plan_destroy(packed);
  hyfft_dist_plan_destroy(direct);
}

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 2;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const char *device = getenv("HYFFT_DEVICE");
  if (!device || !*device) device = "cpu";
  hyfft_status s = hyfft_context_create(device, &g_ctx);
  if (s == HYFFT_SUCCESS) s = hyfft_context_create("cpu", &g_ref);
  if (s != HYFFT_SUCCESS) {
    fprintf(stderr, "rank %d: context: %s %s\n", g_rank, hyfft_status_name(s), hyfft_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
  if (argc > 1) seed = strtoull(argv[1], NULL, 0);
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  g_state = seed | 1;
  if (g_rank == 0)
    printf("mpi.dist on %d ranks, device %s, seed %llu (pass it as argv[1] to repeat)\n", g_size,
           device, (unsigned long long)seed);

  static const char *const cases[] = {
      /* 2D slab, uneven splits on 2 and 4 ranks */
      "c2c:f64:fwd:9x10:mpi", "c2c:f32:bwd:10x9:mpi:tout", "c2c:f64:bwd:9x7:mpi:tin",
      "r2c:f64:9x10:mpi", "r2c:f32:10x9:mpi:tout", "c2r:f32:9x14:mpi", "c2r:f64:10x9:mpi:tin",
      /* 3D slab */
      "c2c:f32:fwd:9x10x7:mpi:slab", "c2c:f64:bwd:9x10x7:mpi:slab:tout",
      "c2c:f32:bwd:10x9x7:mpi:slab:tin", "r2c:f64:9x10x7:mpi:slab", "r2c:f32:8x6x10:mpi:slab:tout",
      "c2r:f32:9x10x8:mpi:slab", "c2r:f64:8x6x10:mpi:slab:tin",
      /* 3D slab with idle ranks on 4 (3 rows: blocks of 1) */
      "c2c:f64:fwd:3x5x4:mpi:slab",
      /* 3D pencil on the grid MPI_Dims_create picks */
      "c2c:f64:fwd:9x10x7:mpi:pencil", "c2c:f32:bwd:9x10x7:mpi:pencil:tout",
      "c2c:f64:fwd:5x6x7:mpi:pencil:tin", "r2c:f32:9x10x7:mpi:pencil",
      "r2c:f64:6x5x12:mpi:pencil:tout", "c2r:f64:9x10x8:mpi:pencil", "c2r:f32:7x6x9:mpi:pencil:tin",
      /* the planner's choice (pencil on 4 ranks: n0 = 3) */
      "c2c:f64:fwd:3x16x8:mpi", "r2c:f32:16x12x10:mpi"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_case(cases[i], 0);
  /* Interleaved transforms (howmany): slab and pencil, every kind, both
   * transposed layouts, uneven splits, idle ranks, in place, device
   * buffers. */
  static const char *const howmany_cases[] = {
      "c2c:f64:fwd:9x10x7:mpi:slab:howmany=3", "c2c:f32:bwd:10x9:mpi:tout:howmany=2",
      "r2c:f32:9x10x7:mpi:slab:howmany=4",     "c2r:f64:9x10x8:mpi:pencil:howmany=3",
      "c2c:f64:bwd:9x10x7:mpi:pencil:tin:howmany=2", "r2c:f64:6x5x12:mpi:pencil:tout:howmany=5",
      "c2r:f32:10x9:mpi:tin:howmany=3",        "c2c:f64:fwd:3x5x4:mpi:slab:howmany=2",
      "c2c:f32:fwd:9x10x7:dev:mpi:pencil:howmany=3"};
  for (size_t i = 0; i < sizeof howmany_cases / sizeof *howmany_cases; i++)
    check_case(howmany_cases[i], 0);
  check_case("r2c:f64:9x10x7:mpi:howmany=3", 1);
  check_case("c2c:f32:fwd:9x10x7:mpi:pencil:howmany=2", 1);
  check_case("c2c:f64:fwd:9x10x7:mpi:pencil", 1);
  check_case("r2c:f64:9x10:mpi", 1);
  check_case("c2r:f32:9x10x8:mpi:slab", 1);
  /* Device buffers: the local transforms on g_ctx's device buffers, the
   * transposes staged through the host; slab and pencil, each kind, both
   * transposed layouts, idle ranks, in place. */
  static const char *const dev_cases[] = {
      "c2c:f64:fwd:9x10:dev:mpi",          "r2c:f32:10x9:dev:mpi:tout",
      "c2r:f64:10x9:dev:mpi:tin",          "c2c:f32:bwd:9x10x7:dev:mpi:slab",
      "c2c:f64:fwd:3x5x4:dev:mpi:slab",    "c2c:f32:bwd:9x10x7:dev:mpi:pencil:tout",
      "r2c:f64:6x5x12:dev:mpi:pencil",     "c2r:f32:9x10x8:dev:mpi:pencil"};
  for (size_t i = 0; i < sizeof dev_cases / sizeof *dev_cases; i++) check_case(dev_cases[i], 0);
  check_case("c2c:f64:fwd:9x10x7:dev:mpi:pencil", 1);
  check_case("r2c:f32:9x10:dev:mpi", 1);
  /* Both degenerate pencil grids. */
  char tok[96];
  snprintf(tok, sizeof tok, "c2c:f32:fwd:9x10x7:mpi:pencil=1x%d", g_size);
  check_case(tok, 0);
  snprintf(tok, sizeof tok, "r2c:f64:9x10x7:mpi:pencil=%dx1:tout", g_size);
  check_case(tok, 0);
  /* On such grids the transposes over the dim of one rank are dropped and
   * the local steps around them merged (forward and reverse chains, the
   * real axis last in a merged R2C or C2R step). */
  static const char *const degenerate[] = {
      "r2c:f32:9x10x7:mpi:pencil=%dx1",     "c2r:f32:9x10x8:mpi:pencil=%dx1",
      "c2c:f64:bwd:9x10x7:mpi:pencil=%dx1:tin", "r2c:f32:9x10x7:mpi:pencil=1x%d",
      "c2r:f64:7x6x9:mpi:pencil=1x%d:tin",  "c2c:f32:fwd:5x6x7:mpi:pencil=1x%d:tout"};
  for (size_t i = 0; i < sizeof degenerate / sizeof *degenerate; i++) {
    snprintf(tok, sizeof tok, degenerate[i], g_size);
    check_case(tok, 0);
  }
  /* A communicator other than MPI_COMM_WORLD: two halves (odd and even
   * world ranks) each run the case on their own. */
  if (g_size > 1) {
    MPI_Comm half;
    if (MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half) != MPI_SUCCESS) {
      FAIL("MPI_Comm_split");
    } else {
      check_case_on(half, "c2c:f64:bwd:7x9x5:mpi:pencil", 0);
      check_case_on(half, "r2c:f32:9x6:mpi:tout", 0);
      MPI_Comm_free(&half);
    }
  }
  check_bad_input();
  check_tokens();
  check_times("c2c:f64:fwd:9x10x7:mpi:slab");
  check_times("c2c:f32:bwd:10x9:mpi:tout");
  check_times("c2c:f32:fwd:9x10x7:mpi:pencil");
  snprintf(tok, sizeof tok, "c2c:f64:fwd:6x5x7:mpi:pencil=1x%d", g_size);
  check_times(tok);
  check_describe("c2c:f64:fwd:9x10x7:mpi:slab");
  check_describe("r2c:f32:9x10x7:mpi:pencil");
  check_overlap("c2c:f64:fwd:9x10x7:mpi:slab", "3");
  check_overlap("r2c:f32:16x12x10:mpi:slab:tout", "4");
  check_overlap("c2c:f32:bwd:10x9:mpi", "2");
  /* A pencil overlaps its first transpose, over the grid's second dim. */
  snprintf(tok, sizeof tok, "c2c:f64:fwd:9x10x7:mpi:pencil=1x%d", g_size);
  check_overlap(tok, "16");
  /* Direct transposes: slab 3D (runs of whole planes' rows), R2C and C2R
   * with the padded real rows, transposed layouts, a pencil, 2D, uneven
   * splits and idle ranks. */
  check_direct("c2c:f64:fwd:9x10x7:mpi:slab");
  check_direct("c2c:f32:bwd:10x9x7:mpi:slab:tin");
  check_direct("r2c:f32:16x12x10:mpi:slab");
  check_direct("c2r:f64:9x10x8:mpi:slab:tin");
  check_direct("c2c:f64:bwd:9x10x7:mpi:pencil");
  check_direct("r2c:f64:6x5x12:mpi:pencil:tout");
  check_direct("c2c:f32:fwd:10x9:mpi");
  check_direct("c2c:f64:fwd:3x5x4:mpi:slab");
  check_direct("r2c:f64:9x10x7:mpi:slab:howmany=3");

  hyfft_context_destroy(g_ctx);
  hyfft_context_destroy(g_ref);
  int any = 0;
  MPI_Allreduce(&g_failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("mpi.dist on %d ranks: %s (%d failures)\n", g_size, any ? "FAILED" : "passed", any);
  MPI_Finalize();
  return any ? 1 : 0;
}
