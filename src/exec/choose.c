/* Choosing a plan's tree (exec/choose.h), including the measuring planner
 * (DESIGN rule 9): the model's best few solver candidates, each with a
 * handful of generator variants (on the CPU: Rader or Bluestein), are
 * built on the device, checked against the model's plan on seeded random
 * data and timed; the fastest accurate one wins and is remembered as
 * wisdom.
 *
 * Candidates are built as ordinary (device-memory) plans through
 * hy_exec_plan_create with the tree fixed in advance and run through
 * hy_exec_run, so measuring runs exactly the code a user's plan runs, on
 * every GPU backend alike. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/codegen.h"
#include "exec/choose.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "planner/wisdom.h"
#include "util/settings.h"
#include "util/half.h"

static _Thread_local hyfft_tune_info hy_tune_last;

/* Solver candidates and variants per plan, timed runs per variant: a few
 * seconds of a GPU, and a small bounded cost on PoCL. */
#define HY_TUNE_CANDIDATES 2
#define HY_TUNE_MAX_VARIANTS 12
#define HY_TUNE_RUNS 5
#define HY_TUNE_MARGIN 0.97
#define HY_TUNE_MAX_REPS 100
/* Seconds a CPU plan's measuring may take by default: FFTW's MEASURE
 * can take a minute on long transforms, hyfft's stays near one second. */
#define HY_TUNE_CPU_BUDGET 1.0


void hy_exec_last_tune_info(hyfft_tune_info *info) { *info = hy_tune_last; }

void hy_exec_tune_key(const hy_problem *problem, hy_strbuf *sb) {
  hyfft_problem named = problem->user;
  named.memory = HYFFT_MEMORY_HOST;
  hy_token_print(&named, sb);
}

static int hy_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Scratch data of one measurement: device buffers and host copies. */
typedef struct hy_tune_data {
  struct hyfft_context_s *ctx;
  hyfft_problem devproblem;
  int inplace, f64;
  hyfft_precision storage; /* F16/BF16: the buffers hold halves */
  size_t in_bytes, out_bytes;
  void *din, *dout;           /* device buffers (dout == din in place) */
  void *hin, *hzero, *href, *hres;
} hy_tune_data;

static hy_status hy_tune_data_make(struct hyfft_context_s *ctx, const hy_problem *problem,
                                   hy_tune_data *d) {
  memset(d, 0, sizeof *d);
  d->ctx = ctx;
  d->devproblem = problem->user;
  d->devproblem.memory = HYFFT_MEMORY_DEVICE;
  d->inplace = problem->inplace;
  d->f64 = problem->precision == HYFFT_F64;
  d->storage = problem->storage;
  d->in_bytes = (size_t)problem->in_extent * hy_problem_in_elem_size(problem);
  d->out_bytes = (size_t)problem->out_extent * hy_problem_out_elem_size(problem);
  if (d->inplace && d->out_bytes > d->in_bytes) d->in_bytes = d->out_bytes;
  d->hin = hy_malloc(d->in_bytes);
  d->hzero = hy_calloc(1, d->out_bytes);
  d->href = hy_malloc(d->out_bytes);
  d->hres = hy_malloc(d->out_bytes);
  if (!d->hin || !d->hzero || !d->href || !d->hres)
    return hy_error(HYFFT_OUT_OF_MEMORY, "measure: cannot allocate %zu bytes of scratch", d->in_bytes);
  /* Seeded, so that a tuning run can be repeated exactly. */
  uint64_t x = 0x9e3779b97f4a7c15u;
  int half = hy_precision_is_half(d->storage);
  size_t scalars = d->in_bytes / (d->f64 ? 8 : half ? 2 : 4);
  for (size_t i = 0; i < scalars; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double v = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (d->f64) ((double *)d->hin)[i] = v;
    else if (half) hy_half_narrow(d->storage, &(float){(float)v}, (uint16_t *)d->hin + i, 1);
    else ((float *)d->hin)[i] = (float)v;
  }
  /* Registered as the context's buffers, like hyfft_buffer_alloc's, so
   * that hy_exec_run takes them for a device-memory plan. */
  HY_TRY(ctx->backend->alloc(ctx->device, d->in_bytes, &d->din));
  hy_status st = hy_handle_register_buffer(d->din, HY_HANDLE_BUFFER, ctx, d->in_bytes);
  if (st != HYFFT_SUCCESS) {
    ctx->backend->release(ctx->device, d->din);
    d->din = NULL;
    return st;
  }
  if (d->inplace) {
    d->dout = d->din;
    return HYFFT_SUCCESS;
  }
  HY_TRY(ctx->backend->alloc(ctx->device, d->out_bytes, &d->dout));
  st = hy_handle_register_buffer(d->dout, HY_HANDLE_BUFFER, ctx, d->out_bytes);
  if (st != HYFFT_SUCCESS) {
    ctx->backend->release(ctx->device, d->dout);
    d->dout = NULL;
  }
  return st;
}

static void hy_tune_data_free(hy_tune_data *d) {
  if (d->dout && d->dout != d->din) {
    hy_handle_unregister(d->dout, HY_HANDLE_BUFFER);
    d->ctx->backend->release(d->ctx->device, d->dout);
  }
  if (d->din) {
    hy_handle_unregister(d->din, HY_HANDLE_BUFFER);
    d->ctx->backend->release(d->ctx->device, d->din);
  }
  free(d->hin);
  free(d->hzero);
  free(d->href);
  free(d->hres);
}

/* Fresh input (and a zeroed output, so that gaps in a strided output read
 * the same in every run). */
static hy_status hy_tune_fill(hy_tune_data *d) {
  const hy_backend *b = d->ctx->backend;
  if (!d->inplace) HY_TRY(b->write(d->ctx->device, NULL, d->dout, 0, d->hzero, d->out_bytes, 1));
  return b->write(d->ctx->device, NULL, d->din, 0, d->hin, d->in_bytes, 1);
}

/* Wait for all work on the context's default queue. */
static hy_status hy_tune_sync(hy_tune_data *d) {
  return d->ctx->backend->synchronize(d->ctx->device, NULL);
}

/* Build the plan of `tree`, run it once for its result (into out_host),
 * then time HY_TUNE_RUNS samples: *seconds is their median per execution. */
static hy_status hy_tune_run(hy_tune_data *d, const hy_plan_tree *tree, void *out_host,
                             double *seconds) {
  struct hyfft_plan_s *plan = NULL;
  HY_TRY(hy_exec_plan_create(d->ctx, &d->devproblem, HYFFT_ESTIMATE | HY_PLAN_OWN_WORK, tree, &plan));
  /* Time the plan's final kernels, not the plain ones a CUDA plan runs
   * while its persistent kernel compiles in the background. */
  hy_status st = hy_exec_plan_wait(plan);
  if (st == HYFFT_SUCCESS) st = hy_tune_fill(d);
  if (st == HYFFT_SUCCESS) st = hy_exec_run(plan, d->din, d->dout, NULL, NULL, 1);
  if (st == HYFFT_SUCCESS)
    st = d->ctx->backend->read(d->ctx->device, NULL, d->dout, 0, out_host, d->out_bytes, 1);
  /* A sample is `reps` back-to-back executions on the context's queue and
   * one synchronisation, reps chosen so that a sample lasts about 1 ms:
   * one blocking call per sample would time the launch and wait overhead
   * (tens of microseconds) rather than the kernels. */
  int reps = 1;
  if (st == HYFFT_SUCCESS) {
    double t0 = hy_now();
    st = hy_exec_run(plan, d->din, d->dout, NULL, NULL, 1);
    double one = hy_now() - t0;
    reps = one > 0 && one < 1e-3 ? (int)(1e-3 / one) : 1;
    if (reps > HY_TUNE_MAX_REPS) reps = HY_TUNE_MAX_REPS;
    if (reps < 1) reps = 1;
  }
  double t[HY_TUNE_RUNS];
  for (int r = 0; r < HY_TUNE_RUNS && st == HYFFT_SUCCESS; r++) {
    /* In place, each run transforms the last one's output and the values
     * grow by N per run: start every sample from the input again. */
    if (d->inplace) st = hy_tune_fill(d);
    if (st == HYFFT_SUCCESS) st = hy_tune_sync(d);
    double t0 = hy_now();
    for (int k = 0; k < reps && st == HYFFT_SUCCESS; k++)
      st = hy_exec_run(plan, d->din, d->dout, NULL, NULL, 0);
    if (st == HYFFT_SUCCESS) st = hy_tune_sync(d);
    t[r] = (hy_now() - t0) / reps;
  }
  hy_exec_plan_destroy(plan);
  HY_TRY(st);
  qsort(t, HY_TUNE_RUNS, sizeof t[0], hy_cmp_double);
  *seconds = t[HY_TUNE_RUNS / 2];
  return HYFFT_SUCCESS;
}

/* Scalar i of a result buffer, in double. */
static double hy_tune_value(const hy_tune_data *d, const void *buf, size_t i) {
  if (d->f64) return ((const double *)buf)[i];
  if (hy_precision_is_half(d->storage)) {
    float f;
    hy_half_widen(d->storage, (const uint16_t *)buf + i, &f, 1);
    return f;
  }
  return ((const float *)buf)[i];
}

/* Relative RMS difference of res from ref (complex data as scalars). */
static double hy_tune_rel_rms(const hy_tune_data *d) {
  size_t n = d->out_bytes / (d->f64 ? 8 : hy_precision_is_half(d->storage) ? 2 : 4);
  double num = 0, den = 0;
  for (size_t i = 0; i < n; i++) {
    double a = hy_tune_value(d, d->hres, i);
    double b = hy_tune_value(d, d->href, i);
    num += (a - b) * (a - b);
    den += b * b;
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static uint64_t hy_tune_source_hash(const hy_problem *problem, const hy_plan_tree *tree,
                                    const hy_device_caps *caps, int *ok) {
  hy_gpu_program prog;
  hy_dialect dialect = caps->backend == HYFFT_BACKEND_CUDA ? HY_DIALECT_CUDA : HY_DIALECT_OPENCL;
  *ok = hy_codegen_plan(problem, tree, caps, dialect, &prog) == HYFFT_SUCCESS;
  uint64_t h = *ok ? prog.hash : 0;
  if (*ok) hy_gpu_program_free(&prog);
  return h;
}

/* The CPU backend's switches: its codelets have no generator variants,
 * but Rader or Bluestein for a prime is a real choice there (the model
 * picks Rader wherever p - 1 factors into the engine's radices). */
static const char *const hy_cpu_tune_variants[] = {"", "rader=1", "rader=0", NULL};

/* A CPU candidate has no program: it is told apart by its tree as
 * hyfft_plan_describe prints it. */
static uint64_t hy_tune_tree_hash(const hy_plan_tree *tree, int *ok) {
  /* The variant's name aside: "rader=1" on a length without a prime
   * factor is the same plan. */
  hy_plan_tree *bare = hy_malloc(sizeof *bare);
  if (!bare) {
    *ok = 0;
    return 0;
  }
  *bare = *tree;
  bare->kernel_spec[0] = '\0';
  for (int i = 0; i < bare->npasses; i++) bare->passes[i].kernel_spec[0] = '\0';
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_plan_tree_describe(bare, &sb);
  free(bare);
  *ok = hy_strbuf_status(&sb) == HYFFT_SUCCESS;
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; *ok && i < sb.len; i++) h = (h ^ (unsigned char)sb.data[i]) * 0x100000001b3u;
  hy_strbuf_free(&sb);
  return h;
}

/* Time the model's plan (cand[0]) and the candidates' variants while the
 * budget lasts; the fastest accurate one goes to *out. */
static hy_status hy_measure_timed(struct hyfft_context_s *ctx, const hy_problem *problem,
                                  const hy_plan_tree *cand, int ncand, hy_plan_tree *trial,
                                  const char *const *variants, int cpu, hy_tune_data *d,
                                  hyfft_tune_info *info, hy_plan_tree *out) {
  hy_status st = hy_tune_data_make(ctx, problem, d);
  /* On the CPU a measured plan stays under a second unless
   * $HYFFT_MEASURE_BUDGET says otherwise (the model's plan is always
   * timed, then candidates while time is left). */
  double start = hy_now(), budget = hy_settings_get()->measure_budget;
  if (cpu && !hy_settings_get()->measure_budget_raw) budget = HY_TUNE_CPU_BUDGET;
  /* The model's plan is the reference and the first contender. */
  if (st == HYFFT_SUCCESS) st = hy_tune_run(d, &cand[0], d->href, &info->default_seconds);
  if (st == HYFFT_SUCCESS) {
    *out = cand[0];
    info->best_seconds = info->default_seconds;
    info->variants_tried = 1;
    snprintf(info->solver, sizeof info->solver, "%s", cand[0].solver);
    double n = problem->total_transform > 2 ? (double)problem->total_transform : 2.0;
    double u = d->f64 ? ldexp(1.0, -53) : ldexp(1.0, -24);
    double tol = 5.0 * u * sqrt(log2(n));
    /* Half-precision storage: results are rounded to the format, where
     * variants may differ by one rounding (the gates of docs/api.md). */
    if (hy_precision_is_half(d->storage)) tol = d->storage == HYFFT_BF16 ? 1.6e-2 : 2e-3;
    uint64_t seen[HY_TUNE_CANDIDATES * 16];
    int nseen = 0, ok = 0;
    seen[nseen++] = cpu ? hy_tune_tree_hash(&cand[0], &ok)
                        : hy_tune_source_hash(problem, &cand[0], &ctx->caps, &ok);
    for (int c = 0; c < ncand; c++) {
      for (int v = 0; variants[v]; v++) {
        if (c == 0 && v == 0) continue;
        if (info->variants_tried >= HY_TUNE_MAX_VARIANTS || hy_now() - start > budget) break;
        *trial = cand[c];
        if (hy_planner_set_variant(problem, &ctx->caps, trial, variants[v]) != HYFFT_SUCCESS) continue;
        uint64_t h = cpu ? hy_tune_tree_hash(trial, &ok)
                         : hy_tune_source_hash(problem, trial, &ctx->caps, &ok);
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++) dup = ok && seen[i] == h;
        if (dup) continue;
        if (ok && nseen < (int)(sizeof seen / sizeof seen[0])) seen[nseen++] = h;
        info->variants_tried++;
        double t = 0;
        /* A variant that does not build (the switches exceed a device
         * limit) or is inaccurate is rejected, never fatal. */
        if (!ok || hy_tune_run(d, trial, d->hres, &t) != HYFFT_SUCCESS ||
            !(hy_tune_rel_rms(d) <= tol)) {
          info->variants_rejected++;
          continue;
        }
        /* Within timing noise the model's choice stays: a variant must be
         * clearly faster to be remembered. */
        if (t < HY_TUNE_MARGIN * info->best_seconds) {
          info->best_seconds = t;
          *out = *trial;
          snprintf(info->solver, sizeof info->solver, "%s", trial->solver);
          snprintf(info->variant, sizeof info->variant, "%s", trial->kernel_spec);
        }
      }
    }
    hy_error_clear();
    info->measured = 1;
  }
  return st;
}

static hy_status hy_measure(struct hyfft_context_s *ctx, const hy_problem *problem,
                            hy_plan_tree *out) {
  const int cpu = ctx->caps.backend == HYFFT_BACKEND_CPU;
  const char *const *variants = cpu ? hy_cpu_tune_variants : hy_spec_tune_variants;
  hy_plan_tree *cand = hy_malloc(HY_TUNE_CANDIDATES * sizeof *cand);
  hy_plan_tree *trial = hy_malloc(sizeof *trial);
  if (!cand || !trial) {
    free(cand);
    free(trial);
    return hy_error(HYFFT_OUT_OF_MEMORY, "measure: cannot allocate candidates");
  }
  int ncand = 0;
  hy_tune_data d;
  memset(&d, 0, sizeof d);
  hyfft_tune_info info;
  memset(&info, 0, sizeof info);
  hy_status st = hy_planner_candidates(problem, &ctx->caps, cand, HY_TUNE_CANDIDATES, &ncand);
  /* On the CPU, where a run of a long transform takes a good part of the
   * budget, nothing is timed when no candidate differs from the model's
   * plan. */
  int timed = 1;
  if (st == HYFFT_SUCCESS && cpu) {
    int ok = 0, differs = 0;
    uint64_t ref = hy_tune_tree_hash(&cand[0], &ok);
    for (int c = 0; c < ncand && !differs && ok; c++)
      for (int v = 0; variants[v] && !differs; v++) {
        *trial = cand[c];
        if (hy_planner_set_variant(problem, &ctx->caps, trial, variants[v]) != HYFFT_SUCCESS) continue;
        int tok = 0;
        uint64_t h = hy_tune_tree_hash(trial, &tok);
        differs = tok && h != ref;
      }
    hy_error_clear();
    timed = differs || !ok;
  }
  if (st == HYFFT_SUCCESS && !timed) {
    *out = cand[0];
    snprintf(info.solver, sizeof info.solver, "%s", cand[0].solver);
  } else {
    st = hy_measure_timed(ctx, problem, cand, ncand, trial, variants, cpu, &d, &info, out);
  }
  hy_tune_data_free(&d);
  free(cand);
  free(trial);
  if (st != HYFFT_SUCCESS) return st;
  hy_tune_last = info;
  hy_strbuf key;
  hy_strbuf_init(&key);
  hy_exec_tune_key(problem, &key);
  hy_wisdom_value w;
  memset(&w, 0, sizeof w);
  snprintf(w.solver, sizeof w.solver, "%s", out->solver);
  snprintf(w.spec, sizeof w.spec, "%s", out->kernel_spec);
  st = hy_strbuf_status(&key);
  if (st == HYFFT_SUCCESS) st = hy_wisdom_store(key.data, ctx->info.name, &w);
  hy_strbuf_free(&key);
  return st;
}

hy_status hy_exec_choose(struct hyfft_context_s *ctx, const hy_problem *problem, unsigned flags,
                         hy_plan_tree *out) {
  memset(&hy_tune_last, 0, sizeof hy_tune_last);
  hy_strbuf key;
  hy_strbuf_init(&key);
  hy_exec_tune_key(problem, &key);
  hy_wisdom_value w;
  int wise = hy_strbuf_status(&key) == HYFFT_SUCCESS && hy_wisdom_lookup(key.data, ctx->info.name, &w);
  hy_strbuf_free(&key);
  /* Wisdom whose solver no longer applies falls back to planning anew. */
  if (wise && hy_planner_plan_solver(problem, &ctx->caps, w.solver, out) == HYFFT_SUCCESS &&
      hy_planner_set_variant(problem, &ctx->caps, out, w.spec) == HYFFT_SUCCESS) {
    hy_tune_last.from_wisdom = 1;
    snprintf(hy_tune_last.solver, sizeof hy_tune_last.solver, "%s", out->solver);
    snprintf(hy_tune_last.variant, sizeof hy_tune_last.variant, "%s", out->kernel_spec);
    return HYFFT_SUCCESS;
  }
  hy_error_clear();
  if ((flags & HYFFT_MEASURE) || hy_settings_get()->measure) return hy_measure(ctx, problem, out);
  HY_TRY(hy_planner_plan(problem, &ctx->caps, flags, out));
  snprintf(hy_tune_last.solver, sizeof hy_tune_last.solver, "%s", out->solver);
  return HYFFT_SUCCESS;
}
