/* hyfft_mpi_bench: hyfft_dist against FFTW-MPI on the same ranks, in the
 * same process and run. Run under mpirun (`hyfft bench --mpi` runs this
 * program; docs/cli.md):
 *
 *   mpirun -np 2 hyfft_mpi_bench [--runs R] [--estimate] [--measure] [--rows] TOKEN...
 *
 * TOKEN is a distributed token (docs/mpi.md), e.g.
 * c2c:f64:fwd:128x128x128:mpi:slab. FFTW-MPI gets the same problem with the
 * same layout (its default block rule, normal or ':tout' transposed
 * output), planned with FFTW_MEASURE (--estimate: FFTW_ESTIMATE); hyfft's
 * local plans with HYFFT_ESTIMATE (--measure: HYFFT_MEASURE). Both run
 * one thread per rank unless the environment says otherwise
 * (HYFFT_NUM_THREADS / OMP_NUM_THREADS; FFTW here is never threaded).
 * Runs alternate between the two libraries; each run's time is the slowest
 * rank's, and the median over the runs is reported. For hyfft it also
 * prints the per-phase times of the plan (hyfft_dist_plan_times: local
 * FFTs, pack, MPI_Alltoallv, unpack, status agreement) and the all-to-all
 * bandwidth achieved, next to MPI's own MPI_Alltoallv of the same counts
 * on the same communicators (hyfft_dist_plan_alltoall_reference), median of
 * R runs in the same process. The outputs of the two libraries are
 * compared (max difference relative to FFTW's max). Rank 0 prints one
 * table per token, or with --rows one markdown row per token.
 *
 *   mpirun -np 2 hyfft_mpi_bench --describe [--measure] TOKEN...
 *
 * (what `hyfft plan TOKEN` runs for a distributed token) plans each token
 * and prints every rank's description of its plan
 * (hyfft_dist_plan_describe), rank by rank, from rank 0; nothing is
 * timed and FFTW-MPI is not used. */
#include <complex.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyfft_mpi.h"

static int g_rank, g_size;

#define CHECK_HY(call)                                                                   \
  do {                                                                                   \
    hyfft_status s_ = (call);                                                            \
    if (s_ != HYFFT_SUCCESS) {                                                           \
      fprintf(stderr, "rank %d: %s: %s %s\n", g_rank, #call, hyfft_status_name(s_),     \
              hyfft_dist_last_error());                                                  \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    }                                                                                    \
  } while (0)

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double max_over_ranks(double v) {
  double r = v;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return r;
}

/* One FFTW-MPI plan of either precision. */
typedef struct fftw_side {
  int f32;
  void *plan;
  void *in, *out;
  size_t in_bytes, out_bytes;
} fftw_side;

static void fftw_side_make(fftw_side *f, const hyfft_dist_problem *p, unsigned flags) {
  ptrdiff_t n[3] = {p->n[0], p->n[1], p->n[2]}, nc[3] = {p->n[0], p->n[1], p->n[2]};
  int r = p->rank;
  if (p->kind != HYFFT_C2C) nc[r - 1] = n[r - 1] / 2 + 1;
  ptrdiff_t ln0, l0s, ln1, l1s;
  unsigned layout = (p->layout & HYFFT_DIST_TRANSPOSED_OUT) ? FFTW_MPI_TRANSPOSED_OUT : 0;
  ptrdiff_t h = p->howmany > 1 ? (ptrdiff_t)p->howmany : 1;
  ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(r, nc, h, FFTW_MPI_DEFAULT_BLOCK,
                                                        FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD,
                                                        &ln0, &l0s, &ln1, &l1s);
  f->f32 = p->precision == HYFFT_F32;
  size_t cs = f->f32 ? 8 : 16;
  f->in_bytes = f->out_bytes = (size_t)(alloc > 0 ? alloc : 1) * cs;
  f->in = fftw_malloc(f->in_bytes);
  f->out = fftw_malloc(f->out_bytes);
  flags |= layout;
  if (!f->f32) {
    if (p->kind == HYFFT_C2C)
      f->plan = fftw_mpi_plan_many_dft(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                       f->in, f->out, MPI_COMM_WORLD, p->sign, flags);
    else
      f->plan = fftw_mpi_plan_many_dft_r2c(r, n, h, FFTW_MPI_DEFAULT_BLOCK,
                                           FFTW_MPI_DEFAULT_BLOCK, f->in, f->out,
                                           MPI_COMM_WORLD, flags);
  } else {
    if (p->kind == HYFFT_C2C)
      f->plan = fftwf_mpi_plan_many_dft(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                        f->in, f->out, MPI_COMM_WORLD, p->sign, flags);
    else
      f->plan = fftwf_mpi_plan_many_dft_r2c(r, n, h, FFTW_MPI_DEFAULT_BLOCK,
                                            FFTW_MPI_DEFAULT_BLOCK, f->in, f->out,
                                            MPI_COMM_WORLD, flags);
  }
  if (!f->plan || !f->in || !f->out) {
    fprintf(stderr, "rank %d: FFTW-MPI could not plan this problem\n", g_rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static void fftw_side_run(fftw_side *f) {
  if (f->f32)
    fftwf_execute((fftwf_plan)f->plan);
  else
    fftw_execute((fftw_plan)f->plan);
}

static void fftw_side_free(fftw_side *f) {
  if (f->f32)
    fftwf_destroy_plan((fftwf_plan)f->plan);
  else
    fftw_destroy_plan((fftw_plan)f->plan);
  fftw_free(f->in);
  fftw_free(f->out);
}

static double mean_over_ranks(double v) {
  double r = v;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return r / g_size;
}

/* One phase's line of the per-problem table: mean and slowest rank. */
static void phase_row(const char *name, double mean_s, double max_s, double total_s) {
  printf("| %s | %.3f | %.3f | %.0f%% |\n", name, mean_s * 1e3, max_s * 1e3,
         total_s > 0 ? 100.0 * mean_s / total_s : 0.0);
}

static void bench(hyfft_context ctx, const char *token, int runs, unsigned fftw_flags,
                  unsigned hy_flags, int rows) {
  hyfft_dist_problem p;
  CHECK_HY(hyfft_dist_problem_parse(token, &p));
  if (p.kind == HYFFT_C2R || (p.layout & HYFFT_DIST_TRANSPOSED_IN)) {
    if (g_rank == 0) fprintf(stderr, "%s: the bench runs C2C and R2C with normal input\n", token);
    return;
  }
  if (p.rank == 2) p.n[2] = 1;
  hyfft_dist_plan plan;
  double t0 = MPI_Wtime();
  CHECK_HY(hyfft_dist_plan_create(ctx, MPI_COMM_WORLD, &p, hy_flags, &plan));
  double hy_plan_s = max_over_ranks(MPI_Wtime() - t0);
  hyfft_dist_layout L;
  CHECK_HY(hyfft_dist_plan_layout(plan, &L));
  fftw_side f;
  t0 = MPI_Wtime();
  fftw_side_make(&f, &p, fftw_flags);
  double fftw_plan_s = max_over_ranks(MPI_Wtime() - t0);

  /* The same input for both (the same layout: FFTW-MPI's block rule). */
  size_t cs = p.precision == HYFFT_F32 ? 8 : 16;
  int in_real = p.kind == HYFFT_R2C;
  size_t in_bytes = (size_t)L.in.elements * (in_real ? cs / 2 : cs);
  size_t out_bytes = (size_t)L.out.elements * cs;
  if (in_bytes > f.in_bytes || out_bytes > f.out_bytes) {
    fprintf(stderr, "rank %d: the layouts of hyfft and FFTW-MPI differ\n", g_rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* hyfft's buffers come from the same allocator as FFTW-MPI's (SIMD
   * aligned): with malloc's 16-byte alignment the 32-byte vector loads
   * and stores straddle cache lines, which cost 128^3 f64 6-9% on one rank
   * and would be counted against hyfft alone. */
  void *hin = fftw_malloc(in_bytes ? in_bytes : 1), *hout = fftw_malloc(out_bytes ? out_bytes : 1);
  void *saved = malloc(in_bytes ? in_bytes : 1);
  if (!hin || !hout || !saved) MPI_Abort(MPI_COMM_WORLD, 1);
  uint64_t st = 0x9e3779b97f4a7c15ULL * (uint64_t)(g_rank + 1);
  size_t nscalar = in_bytes / (cs / 2);
  for (size_t i = 0; i < nscalar; i++) {
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    double v = (double)(st >> 11) / 9007199254740992.0 - 0.5;
    if (cs == 8)
      ((float *)saved)[i] = (float)v;
    else
      ((double *)saved)[i] = v;
  }
  memcpy(hin, saved, in_bytes);
  /* ':dev' tokens: hyfft runs on device buffers of the context holding
   * the same input (the out-of-place plan leaves it unchanged); its
   * output is read back for the comparison. */
  int dev = p.memory == HYFFT_MEMORY_DEVICE;
  void *xin = hin, *xout = hout;
  if (dev) {
    CHECK_HY(hyfft_buffer_alloc(ctx, in_bytes ? in_bytes : 1, &xin));
    CHECK_HY(hyfft_buffer_alloc(ctx, out_bytes ? out_bytes : 1, &xout));
    if (in_bytes) CHECK_HY(hyfft_buffer_write(ctx, xin, 0, hin, in_bytes));
  }

  double *th = malloc(sizeof(double) * (size_t)runs), *tf = malloc(sizeof(double) * (size_t)runs);
  CHECK_HY(hyfft_dist_execute(plan, xin, xout)); /* warm-up */
  memcpy(f.in, saved, in_bytes);
  fftw_side_run(&f);
  /* Each run's phases on this rank (local FFTs, pack, all-to-all, unpack,
   * agreement, other, total, device staging): the plan's times of that
   * one execution. */
  double(*phr)[8] = malloc(sizeof *phr * (size_t)runs);
  if (!th || !tf || !phr) MPI_Abort(MPI_COMM_WORLD, 1);
  hyfft_dist_times times;
  memset(&times, 0, sizeof times);
  for (int i = 0; i < runs; i++) {
    CHECK_HY(hyfft_dist_plan_reset_times(plan));
    MPI_Barrier(MPI_COMM_WORLD);
    double a = MPI_Wtime();
    CHECK_HY(hyfft_dist_execute(plan, xin, xout));
    th[i] = max_over_ranks(MPI_Wtime() - a);
    CHECK_HY(hyfft_dist_plan_times(plan, &times));
    phr[i][0] = times.local_fft;
    phr[i][1] = times.pack;
    phr[i][2] = times.alltoall;
    phr[i][3] = times.unpack;
    phr[i][4] = times.agree;
    phr[i][6] = times.total;
    phr[i][7] = times.staging;
    phr[i][5] = times.total - (times.local_fft + times.pack + times.alltoall + times.unpack +
                               times.agree + times.staging);
    memcpy(f.in, saved, in_bytes); /* FFTW-MPI may destroy its input */
    MPI_Barrier(MPI_COMM_WORLD);
    a = MPI_Wtime();
    fftw_side_run(&f);
    tf[i] = max_over_ranks(MPI_Wtime() - a);
  }
  /* Each phase: the median over the runs on this rank, then the mean over
   * the ranks and the slowest rank's. `times` holds the last execution. */
  double ph[8], ph_mean[8], ph_max[8];
  double *col = malloc(sizeof *col * (size_t)runs);
  if (!col) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int k = 0; k < 8; k++) {
    for (int i = 0; i < runs; i++) col[i] = phr[i][k];
    ph[k] = median(col, runs);
    ph_mean[k] = mean_over_ranks(ph[k]);
    ph_max[k] = max_over_ranks(ph[k]);
  }
  free(col);
  free(phr);
  if (dev && out_bytes) CHECK_HY(hyfft_buffer_read(ctx, xout, 0, hout, out_bytes));
  int64_t per_exec = times.alltoall_bytes;
  double ref_s = 0;
  int64_t ref_bytes = 0;
  CHECK_HY(hyfft_dist_plan_alltoall_reference(plan, runs, &ref_s, &ref_bytes));
  /* Bandwidth per rank (bytes it sends over its time in MPI_Alltoallv),
   * averaged over the ranks, for hyfft's exchange and MPI's reference. */
  double bw_hy = mean_over_ranks(ph[2] > 0 ? (double)per_exec / ph[2] : 0);
  double bw_ref = mean_over_ranks(ref_s > 0 ? (double)ref_bytes / ref_s : 0);
  double ref_max = max_over_ranks(ref_s), ref_mean = mean_over_ranks(ref_s);

  /* The two outputs, element by element, where the layouts are the same:
   * the slab is FFTW-MPI's layout; a pencil's output is another (the diff
   * is then reported as -1). */
  double d = 0, m = 0;
  size_t nout = L.decomposition == HYFFT_DIST_SLAB ? out_bytes / (cs / 2) : 0;
  for (size_t i = 0; i < nout; i++) {
    double x = cs == 8 ? ((float *)hout)[i] : ((double *)hout)[i];
    double y = cs == 8 ? ((float *)f.out)[i] : ((double *)f.out)[i];
    if (fabs(x - y) > d || isnan(x)) d = isnan(x) ? INFINITY : fabs(x - y);
    if (fabs(y) > m) m = fabs(y);
  }
  double dm[2] = {d, m}, gdm[2];
  MPI_Allreduce(dm, gdm, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double hmed = median(th, runs), fmed = median(tf, runs);
  int64_t per_exec_max = 0;
  MPI_Allreduce(&per_exec, &per_exec_max, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  int64_t kept_max = 0;
  MPI_Allreduce(&times.kept_bytes, &kept_max, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  double maxdiff = gdm[1] > 0 ? gdm[0] / gdm[1] : -1.0;
  const char *dec = L.decomposition == HYFFT_DIST_SLAB ? "slab" : "pencil";
  if (g_rank == 0 && rows) {
    char a2a[64] = "-", ref[64] = "-", diff[64] = "- (another layout)";
    if (times.alltoalls && bw_hy > 0) snprintf(a2a, sizeof a2a, "%.2f", bw_hy / 1e9);
    if (bw_ref > 0) snprintf(ref, sizeof ref, "%.2f", bw_ref / 1e9);
    /* A pencil output is laid out unlike FFTW-MPI's slabs: not compared
     * here (the CI suite checks it against the single-process result). */
    if (maxdiff >= 0) snprintf(diff, sizeof diff, "%.1e", maxdiff);
    printf("| %s | %d | %s %dx%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %.2f / %.2f |\n",
           token, g_size, dec, L.grid[0], L.grid[1], hmed * 1e3, fmed * 1e3, fmed / hmed,
           ph_max[0] * 1e3, (ph_max[1] + ph_max[3]) * 1e3, ph_max[2] * 1e3, a2a, ref, diff,
           hy_plan_s, fftw_plan_s);
  } else if (g_rank == 0) {
    printf("\n### %s: %d ranks, %s %dx%d, median of %d runs\n\n", token, g_size, dec, L.grid[0],
           L.grid[1], runs);
    printf("| | ms (mean over ranks) | ms (slowest rank) | share |\n| --- | --- | --- | --- |\n");
    printf("| **hyfft** (slowest rank, median) | | %.3f | |\n", hmed * 1e3);
    printf("| **FFTW-MPI** (slowest rank, median) | | %.3f | FFTW/hyfft %.2f |\n", fmed * 1e3,
           fmed / hmed);
    static const char *const names[6] = {"hyfft local FFTs", "hyfft pack and kept block", "hyfft MPI_Alltoallv",
                                         "hyfft unpack", "hyfft status agreement", "hyfft other"};
    for (int k = 0; k < 6; k++) phase_row(names[k], ph_mean[k], ph_max[k], ph_mean[6]);
    if (dev) phase_row("hyfft device <-> host staging", ph_mean[7], ph_max[7], ph_mean[6]);
    phase_row("hyfft total (plan's own clock)", ph_mean[6], ph_max[6], ph_mean[6]);
    printf("| MPI_Alltoallv reference, same counts | %.3f | %.3f | |\n",
           ref_mean * 1e3, ref_max * 1e3);
    printf("\nall-to-all: %lld bytes sent per execution in %lld calls (largest rank), %lld kept "
           "on the rank; hyfft %.2f GB/s, MPI_Alltoallv %.2f GB/s per rank (%.0f%%)\n",
           (long long)per_exec_max, (long long)times.alltoalls, (long long)kept_max,
           bw_hy / 1e9, bw_ref / 1e9, bw_ref > 0 ? 100.0 * bw_hy / bw_ref : 0.0);
    printf("max diff vs FFTW-MPI %.1e (-1: pencil, another layout); plan s hyfft %.2f, FFTW %.2f\n",
           maxdiff, hy_plan_s, fftw_plan_s);
  }
  fflush(stdout);
  free(th);
  free(tf);
  if (dev) {
    hyfft_buffer_free(ctx, xin);
    hyfft_buffer_free(ctx, xout);
  }
  fftw_free(hin);
  fftw_free(hout);
  free(saved);
  fftw_side_free(&f);
  CHECK_HY(hyfft_dist_plan_destroy(plan));
}

/* Every rank's description of the plan of `token`, printed by rank 0 in
 * rank order. Returns 0 on success on every rank. */
static int describe(hyfft_context ctx, const char *token, unsigned hy_flags) {
  hyfft_dist_plan plan = NULL;
  hyfft_status s = hyfft_dist_plan_token(ctx, MPI_COMM_WORLD, token, hy_flags, &plan);
  if (s != HYFFT_SUCCESS) {
    if (g_rank == 0)
      fprintf(stderr, "hyfft plan: %s: %s: %s\n", token, hyfft_status_name(s), hyfft_dist_last_error());
    return 1;
  }
  size_t need = 0;
  s = hyfft_dist_plan_describe(plan, NULL, 0, &need);
  char *text = malloc(need + 1);
  if (!text || hyfft_dist_plan_describe(plan, text, need + 1, NULL) != HYFFT_SUCCESS) {
    fprintf(stderr, "rank %d: %s: describe: %s\n", g_rank, token, hyfft_dist_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int len = (int)need;
  int *lens = g_rank == 0 ? malloc(sizeof(int) * (size_t)g_size) : NULL;
  int *displs = g_rank == 0 ? malloc(sizeof(int) * (size_t)g_size) : NULL;
  if (g_rank == 0 && (!lens || !displs)) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char *all = NULL;
  if (g_rank == 0) {
    int total = 0;
    for (int r = 0; r < g_size; r++) {
      displs[r] = total;
      total += lens[r];
    }
    all = malloc((size_t)total + 1);
    if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Gatherv(text, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (g_rank == 0) {
    for (int r = 0; r < g_size; r++) printf("%.*s", lens[r], all + displs[r]);
    fflush(stdout);
  }
  free(all);
  free(lens);
  free(displs);
  free(text);
  hyfft_dist_plan_destroy(plan);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  fftw_mpi_init();
  fftwf_mpi_init();
  int runs = 5;
  unsigned fftw_flags = FFTW_MEASURE, hy_flags = HYFFT_ESTIMATE;
  /* --device SPEC: the context of every rank's local transforms (and of
   * the buffers of ':dev' tokens); the CPU by default. */
  const char *spec = "cpu";
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--device")) spec = argv[i + 1];
  hyfft_context ctx;
  hyfft_status s = hyfft_context_create(spec, &ctx);
  if (s != HYFFT_SUCCESS) {
    fprintf(stderr, "context: %s %s\n", hyfft_status_name(s), hyfft_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rows = 0, describing = 0;
  for (int i = 1; i < argc; i++) {
    rows |= !strcmp(argv[i], "--rows");
    describing |= !strcmp(argv[i], "--describe");
  }
  if (describing) {
    int failed = 0;
    for (int i = 1; i < argc; i++)
      if (!strcmp(argv[i], "--measure")) hy_flags = HYFFT_MEASURE;
    for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--device"))
        i++;
      else if (argv[i][0] != '-')
        failed |= describe(ctx, argv[i], hy_flags);
    }
    hyfft_context_destroy(ctx);
    fftw_mpi_cleanup();
    fftwf_mpi_cleanup();
    MPI_Finalize();
    return failed ? 1 : 0;
  }
  if (g_rank == 0 && rows) {
    printf("| problem | ranks | decomposition | hyfft ms | FFTW-MPI ms | FFTW/hyfft | hyfft local FFT ms | pack+unpack ms | "
           "MPI_Alltoallv ms | hyfft a2a GB/s | MPI_Alltoallv GB/s | max diff | plan s hyfft / FFTW |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  }
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--device") && i + 1 < argc)
      i++;
    else if (!strcmp(argv[i], "--estimate"))
      fftw_flags = FFTW_ESTIMATE;
    else if (!strcmp(argv[i], "--measure"))
      hy_flags = HYFFT_MEASURE;
    else if (!strcmp(argv[i], "--rows"))
      continue;
    else
      bench(ctx, argv[i], runs > 0 ? runs : 1, fftw_flags, hy_flags, rows);
  }
  hyfft_context_destroy(ctx);
  fftw_mpi_cleanup();
  fftwf_mpi_cleanup();
  MPI_Finalize();
  return 0;
}
