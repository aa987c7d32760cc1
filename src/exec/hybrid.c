/* Hybrid CPU + GPU execution of batched host data (exec/hybrid.h). The
 * outermost batch dim's entries [0, n_gpu) go to a host-data plan on the
 * plan's own GPU context (staged through the device by exec/staging.c or
 * out of core), entries [n_gpu, n) to a plan on a CPU context the hybrid
 * plan owns; one execution runs the CPU side on a thread of its own while
 * the calling thread drives the GPU side. Entries must not interleave
 * (each entry's elements lie before the next entry's start, on both
 * sides), so the two sides touch disjoint memory. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/choose.h"
#include "exec/exec.h"
#include "exec/hybrid.h"
#include "util/half.h"
#include "exec/out_of_core.h"
#include "planner/wisdom.h"
#include "util/settings.h"

/* Probe sizes of the calibration: bytes of one side's data (the larger of
 * input and output) its probe run moves at most. */
#define HY_HYBRID_PROBE_GPU ((size_t)256 << 20)
#define HY_HYBRID_PROBE_CPU ((size_t)64 << 20)

struct hy_hybrid {
  struct hyfft_plan_s *gpu, *cpu; /* NULL for a side with no entries */
  int64_t n, n_cpu;               /* entries of the outer batch dim, the CPU's */
  size_t in_off, out_off;         /* bytes to the CPU side's first entry */
  double share;                   /* n_cpu / n */
  const char *from;               /* what chose the share */
  /* The cores: while both sides run, the GPU side's host copies get
   * `copy_threads` of them and the CPU side the other `cpu_threads`. */
  int copy_threads, cpu_threads;
  /* Calibration (0 when the share was given): batch entries per second of
   * the GPU side with all cores for its copies, of the GPU side with
   * copy_threads, and of the CPU side with cpu_threads. */
  double r_gpu_alone, r_gpu, r_cpu;
  double r_cpu_alone; /* the CPU side with all cores */
  /* The search around the model (search_n 0: none): shares tried on a
   * probe of search_count entries and their seconds. */
  int search_n;
  int64_t search_count;
  double search_share[HY_HYBRID_SEARCH_MAX], search_seconds[HY_HYBRID_SEARCH_MAX];
};

/* Calibrations run so far in this process (tests: a share from wisdom
 * runs none). */
static atomic_long hy_hybrid_calibration_count;

long hy_hybrid_calibrations(void) { return atomic_load(&hy_hybrid_calibration_count); }

/* ---- sides ------------------------------------------------------------------ */

/* A context on the CPU backend, private to the hybrid plan (no handle): its
 * reference passes to the plan made on it. */
static hy_status hy_hybrid_cpu_context(struct hyfft_context_s **out) {
  const hy_backend *b = &hy_backend_cpu;
  struct hyfft_context_s *ctx = hy_calloc(1, sizeof *ctx);
  if (!ctx) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CPU side's context");
  ctx->backend = b;
  atomic_init(&ctx->refs, 1);
  hy_context_work_init(ctx);
  hy_status st = b->device_info(0, &ctx->info);
  if (st == HYFFT_SUCCESS) st = b->open(0, &ctx->device);
  if (st == HYFFT_SUCCESS) {
    st = b->caps(ctx->device, &ctx->caps);
    if (st != HYFFT_SUCCESS) b->close(ctx->device);
  }
  if (st != HYFFT_SUCCESS) {
    pthread_mutex_destroy(&ctx->work_lock);
    free(ctx);
    return st;
  }
  *out = ctx;
  return HYFFT_SUCCESS;
}

void hy_hybrid_side_problem(const hy_problem *p, int64_t count, hyfft_problem *u) {
  memset(u, 0, sizeof *u);
  u->kind = p->kind;
  u->precision = hy_problem_public_precision(p);
  u->sign = p->sign;
  u->rank = p->rank > 0 ? p->rank : 1;
  if (p->rank > 0) {
    memcpy(u->dims, p->dims, sizeof(hyfft_dim) * (size_t)p->rank);
  } else {
    u->dims[0].n = 1;
    u->dims[0].in_stride = 1;
    u->dims[0].out_stride = 1;
  }
  if (p->kind == HYFFT_R2R)
    memcpy(u->r2r_kind, p->r2r, sizeof(hyfft_r2r_kind) * (size_t)p->rank);
  u->batch_rank = p->batch_rank;
  memcpy(u->batch, p->batch, sizeof(hyfft_dim) * (size_t)p->batch_rank);
  u->batch[0].n = count;
  u->inplace = p->inplace;
  u->scale = p->scale;
  u->memory = HYFFT_MEMORY_HOST;
}

static hy_status hy_hybrid_side(struct hyfft_context_s *ctx, const hy_problem *p, int64_t count,
                                unsigned flags, struct hyfft_plan_s **side) {
  hyfft_problem u;
  hy_hybrid_side_problem(p, count, &u);
  return hy_exec_plan_create(ctx, &u, flags | HY_PLAN_SIDE, NULL, side);
}

int hy_hybrid_splittable(const hy_problem *p) {
  if (p->batch_rank < 1 || p->batch[0].n < 2) return 0;
  /* Half-precision storage runs on one device (its sides would need the
   * storage carried into their sub-plans, a later step). */
  if (hy_precision_is_half(p->storage)) return 0;
  if (p->batch[0].in_stride < 1 || p->batch[0].out_stride < 1) return 0;
  int64_t span_in = 1, span_out = 1;
  for (int i = 0; i < p->rank + p->batch_rank - 1; i++) {
    const hyfft_dim *d = i < p->rank ? &p->dims[i] : &p->batch[i - p->rank + 1];
    if (d->in_stride < 0 || d->out_stride < 0) return 0;
    /* The halved axis of a real transform has n/2+1 complex elements on
     * its complex side. */
    int64_t n_in = d->n, n_out = d->n;
    if (i == p->rank - 1 && p->kind == HYFFT_R2C) n_out = d->n / 2 + 1;
    if (i == p->rank - 1 && p->kind == HYFFT_C2R) n_in = d->n / 2 + 1;
    span_in += (n_in - 1) * d->in_stride;
    span_out += (n_out - 1) * d->out_stride;
  }
  return span_in <= p->batch[0].in_stride && span_out <= p->batch[0].out_stride;
}

/* ---- calibration ------------------------------------------------------------ */

/* Seconds of one run of `plan` on zeroed host buffers of its extents: one
 * untimed run, then the faster of two. */
static hy_status hy_hybrid_time(struct hyfft_plan_s *plan, double *seconds) {
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  void *in = hy_calloc(1, in_bytes), *out = p->inplace ? in : hy_calloc(1, out_bytes);
  if (!in || !out) {
    free(in);
    if (out != in) free(out);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate %zu bytes for the hybrid calibration",
                    in_bytes + (p->inplace ? 0 : out_bytes));
  }
  hy_status st = hy_exec_run(plan, in, out, NULL, NULL, 1);
  double best = 0;
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++) {
    double t0 = hy_now();
    st = hy_exec_run(plan, in, out, NULL, NULL, 1);
    double dt = hy_now() - t0;
    if (i == 0 || dt < best) best = dt;
  }
  free(in);
  if (out != in) free(out);
  *seconds = best > 1e-9 ? best : 1e-9;
  return st;
}

/* Batch entries per second of one side, from a probe of at most
 * `probe_bytes` of data. */
static hy_status hy_hybrid_rate(struct hyfft_context_s *ctx, const hy_problem *p,
                                size_t probe_bytes, unsigned flags, double *rate) {
  size_t entry_in = (size_t)p->batch[0].in_stride * hy_problem_in_elem_size(p);
  size_t entry_out = (size_t)p->batch[0].out_stride * hy_problem_out_elem_size(p);
  size_t entry = entry_in > entry_out ? entry_in : entry_out;
  int64_t count = (int64_t)(probe_bytes / (entry ? entry : 1));
  if (count < 1) count = 1;
  if (count > p->batch[0].n) count = p->batch[0].n;
  struct hyfft_plan_s *probe = NULL;
  HY_TRY(hy_hybrid_side(ctx, p, count, flags & ~(unsigned)HYFFT_MEASURE, &probe));
  /* Kernels still compiling in the background would slow the probe and
   * take cores from it. */
  double t = 0;
  hy_status st = hy_exec_plan_wait(probe);
  if (st == HYFFT_SUCCESS) st = hy_hybrid_time(probe, &t);
  hy_exec_plan_destroy(probe);
  *rate = st == HYFFT_SUCCESS ? (double)count / t : 0;
  return st;
}

/* The same with the calling thread's cores capped at `threads`. */
static hy_status hy_hybrid_rate_with(int threads, struct hyfft_context_s *ctx,
                                     const hy_problem *p, size_t probe_bytes, unsigned flags,
                                     double *rate) {
  int old = hy_set_thread_limit(threads);
  hy_status st = hy_hybrid_rate(ctx, p, probe_bytes, flags, rate);
  hy_set_thread_limit(old);
  return st;
}

/* ---- search ------------------------------------------------------------------ */

/* Seconds of a split run of `count` entries, `n_cpu` of them on the CPU:
 * both sides built at that size and run at once as hy_hybrid_run runs
 * them, on zeroed host buffers; one untimed run, then the faster of two. */
static hy_status hy_hybrid_time_split(struct hyfft_context_s *gctx, struct hyfft_context_s *cctx,
                                      const hy_problem *p, const struct hy_hybrid *h,
                                      int64_t count, int64_t n_cpu, unsigned flags,
                                      double *seconds) {
  struct hy_hybrid t;
  memset(&t, 0, sizeof t);
  t.n = count;
  t.n_cpu = n_cpu;
  t.copy_threads = h->copy_threads;
  t.cpu_threads = h->cpu_threads;
  int64_t n_gpu = count - n_cpu;
  t.in_off = (size_t)(n_gpu * p->batch[0].in_stride) * hy_problem_in_elem_size(p);
  t.out_off = (size_t)(n_gpu * p->batch[0].out_stride) * hy_problem_out_elem_size(p);
  /* Entries do not interleave (hy_hybrid_splittable): `count` strides
   * hold them. */
  size_t in_bytes = (size_t)(count * p->batch[0].in_stride) * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)(count * p->batch[0].out_stride) * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  flags &= ~(unsigned)HYFFT_MEASURE;
  hy_status st = HYFFT_SUCCESS;
  if (n_gpu > 0) st = hy_hybrid_side(gctx, p, n_gpu, flags, &t.gpu);
  if (st == HYFFT_SUCCESS && n_cpu > 0) st = hy_hybrid_side(cctx, p, n_cpu, flags, &t.cpu);
  if (st == HYFFT_SUCCESS && t.gpu) st = hy_exec_plan_wait(t.gpu);
  void *in = NULL, *out = NULL;
  if (st == HYFFT_SUCCESS) {
    in = hy_calloc(1, in_bytes);
    out = p->inplace ? in : hy_calloc(1, out_bytes);
    if (!in || !out)
      st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate %zu bytes for the hybrid share search",
                    in_bytes + (p->inplace ? 0 : out_bytes));
  }
  struct hyfft_plan_s run;
  memset(&run, 0, sizeof run);
  run.hybrid = &t;
  double best = 0;
  if (st == HYFFT_SUCCESS) st = hy_hybrid_run(&run, in, out, NULL);
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++) {
    double t0 = hy_now();
    st = hy_hybrid_run(&run, in, out, NULL);
    double dt = hy_now() - t0;
    if (i == 0 || dt < best) best = dt;
  }
  free(in);
  if (out != in) free(out);
  if (t.gpu) hy_exec_plan_destroy(t.gpu);
  if (t.cpu) hy_exec_plan_destroy(t.cpu);
  *seconds = best > 1e-9 ? best : 1e-9;
  return st;
}

/* Refine the model's share h->share by timing up to HY_HYBRID_SEARCH_MAX
 * shares around it (the model's pick, and the balanced share times 0.75, 1
 * and 1.25) on a probe of at most HY_HYBRID_PROBE_GPU bytes of entries;
 * another share replaces the model's only when it is HY_HYBRID_SEARCH_GAIN
 * faster, so that timing noise keeps the model's answer. */
static hy_status hy_hybrid_search(struct hy_hybrid *h, struct hyfft_context_s *gctx,
                                  struct hyfft_context_s *cctx, const hy_problem *p,
                                  unsigned flags) {
  size_t entry_in = (size_t)p->batch[0].in_stride * hy_problem_in_elem_size(p);
  size_t entry_out = (size_t)p->batch[0].out_stride * hy_problem_out_elem_size(p);
  size_t entry = entry_in > entry_out ? entry_in : entry_out;
  int64_t count = (int64_t)(HY_HYBRID_PROBE_GPU / (entry ? entry : 1));
  if (count > h->n) count = h->n;
  /* Too few entries to tell shares apart. */
  if (count < 4) return HYFFT_SUCCESS;
  double balanced = h->r_cpu / (h->r_cpu + h->r_gpu);
  double want[HY_HYBRID_SEARCH_MAX] = {h->share, 0.75 * balanced, balanced, 1.25 * balanced};
  int64_t tried[HY_HYBRID_SEARCH_MAX] = {0};
  int best = -1;
  h->search_count = count;
  for (int i = 0; i < HY_HYBRID_SEARCH_MAX; i++) {
    double s = want[i] < 0 ? 0 : want[i] > 1 ? 1 : want[i];
    int64_t n_cpu = (int64_t)(s * (double)count + 0.5);
    int seen = 0;
    for (int j = 0; j < h->search_n; j++) seen |= tried[j] == n_cpu;
    if (seen) continue;
    double sec = 0;
    HY_TRY(hy_hybrid_time_split(gctx, cctx, p, h, count, n_cpu, flags, &sec));
    tried[h->search_n] = n_cpu;
    h->search_share[h->search_n] = (double)n_cpu / (double)count;
    h->search_seconds[h->search_n] = sec;
    /* The first candidate is the model's pick. */
    if (best < 0 || sec < h->search_seconds[best] * (1.0 - HY_HYBRID_SEARCH_GAIN)) best = h->search_n;
    h->search_n++;
  }
  if (best > 0) {
    h->share = h->search_share[best];
    h->from = "the search around the calibrated model";
  } else {
    h->from = "the calibrated model, confirmed by the search";
  }
  return HYFFT_SUCCESS;
}

/* ---- creation ---------------------------------------------------------------- */

void hy_hybrid_destroy(struct hyfft_plan_s *plan) {
  struct hy_hybrid *h = plan->hybrid;
  if (!h) return;
  if (h->gpu) hy_exec_plan_destroy(h->gpu);
  if (h->cpu) hy_exec_plan_destroy(h->cpu);
  free(h);
  plan->hybrid = NULL;
}

hy_status hy_hybrid_create(struct hyfft_plan_s *plan, unsigned flags) {
  const hy_problem *p = &plan->problem;
  struct hyfft_context_s *gctx = plan->context;
  plan->hybrid = NULL;
  double given = hy_settings_get()->cpu_share; /* -1 off, -2 auto, else the share */
  int calibrate = (flags & HYFFT_HYBRID) || given == -2;
  if ((flags & HY_PLAN_SIDE) || (!calibrate && given < 0)) return HYFFT_SUCCESS;
  if (p->memory != HYFFT_MEMORY_HOST || gctx->backend->id == HYFFT_BACKEND_CPU ||
      !hy_hybrid_splittable(p))
    return HYFFT_SUCCESS;

  struct hy_hybrid *h = hy_calloc(1, sizeof *h);
  if (!h) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a hybrid plan");
  h->n = p->batch[0].n;
  /* A quarter of the cores (at least one, at most all but one) copy
   * between the user's memory and the GPU side's page-locked buffers. */
  int cores = hy_num_threads();
  h->copy_threads = cores / 4 > 1 ? cores / 4 : 1;
  h->cpu_threads = cores - h->copy_threads > 1 ? cores - h->copy_threads : 1;
  struct hyfft_context_s *cctx = NULL;
  hy_status st = hy_hybrid_cpu_context(&cctx);
  /* A share that an earlier plan of this problem on this device found is
   * used without calibrating again. */
  hy_strbuf key;
  hy_strbuf_init(&key);
  hy_exec_tune_key(p, &key);
  double wise_share = 0;
  int wise = given < 0 && st == HYFFT_SUCCESS && hy_strbuf_status(&key) == HYFFT_SUCCESS &&
             hy_wisdom_lookup_share(key.data, gctx->info.name, &wise_share);
  if (wise) calibrate = 0;
  int searched = 0;
  if (st == HYFFT_SUCCESS && calibrate) {
    atomic_fetch_add(&hy_hybrid_calibration_count, 1);
    st = hy_hybrid_rate(gctx, p, HY_HYBRID_PROBE_GPU, flags, &h->r_gpu_alone);
    if (st == HYFFT_SUCCESS)
      st = hy_hybrid_rate_with(h->copy_threads, gctx, p, HY_HYBRID_PROBE_GPU, flags, &h->r_gpu);
    if (st == HYFFT_SUCCESS)
      st = hy_hybrid_rate_with(h->cpu_threads, cctx, p, HY_HYBRID_PROBE_CPU, flags, &h->r_cpu);
    if (st == HYFFT_SUCCESS) st = hy_hybrid_rate(cctx, p, HY_HYBRID_PROBE_CPU, flags, &h->r_cpu_alone);
  }
  if (st == HYFFT_SUCCESS) {
    if (given >= 0) {
      h->share = given;
      h->from = "HYFFT_CPU_SHARE";
    } else if (wise) {
      h->share = wise_share;
      h->from = "wisdom";
    } else {
      /* Three candidates: both sides finishing together, the GPU alone
       * and the CPU alone, each with all the cores it would have. A split
       * must beat the better single side by the minimum gain. */
      h->from = "the calibrated model";
      double share = h->r_cpu / (h->r_cpu + h->r_gpu);
      int64_t n_cpu = (int64_t)(share * (double)h->n + 0.5);
      double t_gpu = (double)h->n / h->r_gpu_alone, t_cpu = (double)h->n / h->r_cpu_alone;
      double t_cpu_side = (double)n_cpu / h->r_cpu, t_gpu_side = (double)(h->n - n_cpu) / h->r_gpu;
      double t_split = t_cpu_side > t_gpu_side ? t_cpu_side : t_gpu_side;
      double t_single = t_gpu <= t_cpu ? t_gpu : t_cpu;
      if (n_cpu >= 1 && n_cpu < h->n && t_split < t_single * (1.0 - HY_HYBRID_MIN_GAIN))
        h->share = share;
      else
        h->share = t_gpu <= t_cpu ? 0 : 1;
      st = hy_hybrid_search(h, gctx, cctx, p, flags);
      searched = 1;
    }
    h->n_cpu = (int64_t)(h->share * (double)h->n + 0.5);
    if (h->n_cpu > h->n) h->n_cpu = h->n;
    h->share = (double)h->n_cpu / (double)h->n;
    /* Wisdom keeps the share as used, whole entries of this batch. */
    if (st == HYFFT_SUCCESS && searched && hy_strbuf_status(&key) == HYFFT_SUCCESS)
      st = hy_wisdom_store_share(key.data, gctx->info.name, h->share);
    int64_t n_gpu = h->n - h->n_cpu;
    h->in_off = (size_t)(n_gpu * p->batch[0].in_stride) * hy_problem_in_elem_size(p);
    h->out_off = (size_t)(n_gpu * p->batch[0].out_stride) * hy_problem_out_elem_size(p);
    if (st == HYFFT_SUCCESS && n_gpu > 0) st = hy_hybrid_side(gctx, p, n_gpu, flags, &h->gpu);
    if (st == HYFFT_SUCCESS && h->n_cpu > 0) st = hy_hybrid_side(cctx, p, h->n_cpu, flags, &h->cpu);
  }
  hy_strbuf_free(&key);
  /* The CPU plan holds its own reference to the private context. */
  if (cctx) hy_context_release(cctx);
  plan->hybrid = h;
  if (st != HYFFT_SUCCESS) hy_hybrid_destroy(plan);
  return st;
}

/* ---- execution ----------------------------------------------------------------- */

typedef struct hy_hybrid_job {
  struct hyfft_plan_s *plan;
  int threads;
  const void *in;
  void *out;
  hy_status status;
  char error[256]; /* the CPU thread's hyfft_last_error, handed back */
} hy_hybrid_job;

static void *hy_hybrid_cpu_thread(void *arg) {
  hy_hybrid_job *job = arg;
  hy_set_thread_limit(job->threads);
  job->status = hy_exec_run(job->plan, job->in, job->out, NULL, NULL, 1);
  if (job->status != HYFFT_SUCCESS) {
    const char *msg = hyfft_last_error();
    strncpy(job->error, msg ? msg : "", sizeof job->error - 1);
  }
  return NULL;
}

hy_status hy_hybrid_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue) {
  struct hy_hybrid *h = plan->hybrid;
  const char *cin = (const char *)in + h->in_off;
  char *cout = (char *)out + h->out_off;
  if (!h->cpu) return hy_exec_run(h->gpu, in, out, NULL, queue, 1);
  if (!h->gpu) return hy_exec_run(h->cpu, cin, cout, NULL, NULL, 1);
  hy_hybrid_job job = {h->cpu, h->cpu_threads, cin, cout, HYFFT_SUCCESS, ""};
  pthread_t thread;
  if (pthread_create(&thread, NULL, hy_hybrid_cpu_thread, &job) != 0)
    return hy_error(HYFFT_INTERNAL, "cannot start the CPU side's thread");
  int old = hy_set_thread_limit(h->copy_threads);
  hy_status st = hy_exec_run(h->gpu, in, out, NULL, queue, 1);
  hy_set_thread_limit(old);
  char gpu_error[256] = "";
  if (st != HYFFT_SUCCESS) strncpy(gpu_error, hyfft_last_error(), sizeof gpu_error - 1);
  pthread_join(thread, NULL);
  /* The sides run at once: one may have written its part of the output
   * when the other fails, so the message names the side that failed. */
  if (st != HYFFT_SUCCESS) return hy_error(st, "GPU side of a hybrid plan: %s", gpu_error);
  if (job.status != HYFFT_SUCCESS)
    return hy_error(job.status, "CPU side of a hybrid plan: %s", job.error);
  return st;
}

hy_status hy_hybrid_wait(struct hyfft_plan_s *plan) {
  struct hy_hybrid *h = plan->hybrid;
  if (h->gpu) HY_TRY(hy_exec_plan_wait(h->gpu));
  if (h->cpu) HY_TRY(hy_exec_plan_wait(h->cpu));
  return HYFFT_SUCCESS;
}

/* ---- description ---------------------------------------------------------------- */

/* The model's seconds at CPU share `share` (calibrated plans only): a side
 * alone has all the cores, two sides split them. */
static double hy_hybrid_model(const struct hy_hybrid *h, double share) {
  int64_t n_cpu = (int64_t)(share * (double)h->n + 0.5);
  if (n_cpu <= 0) return (double)h->n / h->r_gpu_alone;
  if (n_cpu >= h->n) return (double)h->n / h->r_cpu_alone;
  double c = (double)n_cpu / h->r_cpu, g = (double)(h->n - n_cpu) / h->r_gpu;
  return c > g ? c : g;
}

static void hy_hybrid_describe_side(const struct hyfft_plan_s *side, hy_strbuf *sb) {
  if (side->ooc) hy_ooc_describe(side, sb);
  else hy_plan_tree_describe(&side->tree, sb);
}

void hy_hybrid_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_hybrid *h = plan->hybrid;
  hy_strbuf_appendf(sb, "  hybrid: outer batch dim of %lld entries: GPU %lld, CPU %lld "
                    "(CPU share %.4f, from %s)\n", (long long)h->n, (long long)(h->n - h->n_cpu),
                    (long long)h->n_cpu, h->share, h->from);
  hy_strbuf_appendf(sb, "  cores: %d for the GPU side's host copies and %d for the CPU side "
                    "while both run\n", h->copy_threads, h->cpu_threads);
  if (h->r_gpu > 0 && h->r_cpu > 0) {
    hy_strbuf_appendf(sb, "  calibration (batch entries/s): GPU side %.6g (host data, bus "
                      "included; %.6g with all cores), CPU side %.6g (%.6g with all cores)\n",
                      h->r_gpu, h->r_gpu_alone, h->r_cpu, h->r_cpu_alone);
    hy_strbuf_appendf(sb, "  model: %.4g ms at this share, %.4g ms GPU alone, %.4g ms CPU alone, "
                      "balanced share %.4f\n", 1e3 * hy_hybrid_model(h, h->share),
                      1e3 * (double)h->n / h->r_gpu_alone, 1e3 * (double)h->n / h->r_cpu_alone,
                      h->r_cpu / (h->r_cpu + h->r_gpu));
  }
  if (h->search_n > 0) {
    hy_strbuf_appendf(sb, "  search on %lld entries:", (long long)h->search_count);
    for (int i = 0; i < h->search_n; i++)
      hy_strbuf_appendf(sb, "%s share %.4f: %.4g ms", i ? "," : "", h->search_share[i],
                        1e3 * h->search_seconds[i]);
    hy_strbuf_append(sb, "\n");
  }
  if (h->gpu) {
    hy_strbuf_appendf(sb, "  GPU side (%s):\n", plan->context->info.spec);
    hy_hybrid_describe_side(h->gpu, sb);
  }
  if (h->cpu) {
    hy_strbuf_append(sb, "  CPU side (cpu):\n");
    hy_hybrid_describe_side(h->cpu, sb);
  }
}

hy_status hy_hybrid_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_hybrid *h = plan->hybrid;
  const struct hyfft_plan_s *side = h->gpu ? h->gpu : h->cpu;
  if (side->ooc) return hy_ooc_source(side, sb);
  return side->context->backend->plan_source(side->context->device, side->backend_state, sb);
}

double hy_hybrid_share(const struct hyfft_plan_s *plan) {
  return plan->hybrid ? plan->hybrid->share : 0;
}
