/* Hybrid CPU + GPU execution of batched host data (exec/hybrid.h). The
 * outermost batch dim's entries [0, n_gpu) go to a host-data plan on the
 * plan's own GPU context (staged through the device by exec/staging.c or
 * out of core), entries [n_gpu, n) to a plan on a CPU context the hybrid
 * plan owns; one execution runs the CPU side on a thread of its own while
 * the calling thread drives the GPU side. Entries must not interleave
 * (each entry's elements lie before the next entry's start, on both
 * sides), so the two sides touch disjoint memory.
 *
 * A plan holds two splits, one per kind of host memory (exec/hybrid.h):
 * pageable data goes to the GPU through the CPU's copies into page-locked
 * buffers, page-locked data over the bus directly; each execution asks the
 * backend which kind the caller passed and runs that split. */
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

/* One split: the sides, the share and what chose it, the cores, and the
 * calibration and search behind it. */
typedef struct hy_hybrid_split {
  struct hyfft_plan_s *gpu, *cpu; /* NULL for a side with no entries */
  int shared;                     /* 1: the sides are the pageable split's (same n_cpu) */
  /* 1 when the sides are the pageable split's because the device had no
   * memory for a second GPU side's staging buffers; `share` is then the
   * share found, n_cpu the pageable split's. */
  int fallback;
  int64_t n_cpu;                  /* entries of the CPU side */
  size_t in_off, out_off;         /* bytes to the CPU side's first entry */
  double share;                   /* n_cpu / n */
  const char *from;               /* what chose the share */
  /* The cores: while both sides run, the GPU side's thread and host
   * copies get `copy_threads` of them and the CPU side the other
   * `cpu_threads`. */
  int copy_threads, cpu_threads;
  /* Calibration (0 when the share was not calibrated): batch entries per
   * second of the GPU side on host memory of this kind with all cores, of
   * the GPU side with copy_threads, and of the CPU side with cpu_threads. */
  double r_gpu_alone, r_gpu, r_cpu;
  /* The search around the model (search_n 0: none): shares tried on a
   * probe of search_count entries and their seconds. */
  int search_n;
  int64_t search_count;
  double search_share[HY_HYBRID_SEARCH_MAX], search_seconds[HY_HYBRID_SEARCH_MAX];
} hy_hybrid_split;

struct hy_hybrid {
  int64_t n;   /* entries of the outer batch dim */
  /* 1 when the backend page-locks host memory and reports it
   * (host_alloc, host_pinned): split[HY_HYBRID_PINNED] then has a
   * calibration of its own; else it is the pageable split. */
  int pinnable;
  double r_cpu_alone; /* the CPU side with all cores (0: not calibrated) */
  hy_hybrid_split split[HY_HYBRID_KINDS];
  atomic_int last; /* the kind the latest execution ran, -1 before any (tests) */
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

/* ---- host memory of either kind ---------------------------------------------- */

/* Zeroed host memory for probes: pageable from the C library, or
 * page-locked from the GPU backend `gctx` (kind HY_HYBRID_PINNED). */
static void *hy_hybrid_host_alloc(struct hyfft_context_s *gctx, int kind, size_t bytes) {
  void *host = NULL;
  if (kind == HY_HYBRID_PAGEABLE) return hy_calloc(1, bytes ? bytes : 1);
  if (gctx->backend->host_alloc(gctx->device, bytes ? bytes : 1, &host) != HYFFT_SUCCESS) return NULL;
  memset(host, 0, bytes);
  return host;
}

static void hy_hybrid_host_free(struct hyfft_context_s *gctx, int kind, void *host) {
  if (!host) return;
  if (kind == HY_HYBRID_PAGEABLE) free(host);
  else gctx->backend->host_release(gctx->device, host);
}

/* Whether the backend page-locks host memory and reports its own
 * allocation so, as the staged and out-of-core paths ask of user data. */
static int hy_hybrid_can_pin(struct hyfft_context_s *gctx) {
  const hy_backend *b = gctx->backend;
  if (!b->host_alloc || !b->host_release || !b->host_pinned) return 0;
  void *probe = hy_hybrid_host_alloc(gctx, HY_HYBRID_PINNED, 4096);
  int pinned = probe && b->host_pinned(gctx->device, probe, 4096);
  hy_hybrid_host_free(gctx, HY_HYBRID_PINNED, probe);
  return pinned;
}

/* ---- calibration ------------------------------------------------------------ */

/* Seconds of one run of `plan` on zeroed host buffers of kind `kind` and
 * of its extents (page-locked ones from the GPU context `gctx`): one
 * untimed run, then the faster of two. */
static hy_status hy_hybrid_time(struct hyfft_plan_s *plan, struct hyfft_context_s *gctx, int kind,
                                double *seconds) {
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  void *in = hy_hybrid_host_alloc(gctx, kind, in_bytes);
  void *out = p->inplace ? in : hy_hybrid_host_alloc(gctx, kind, out_bytes);
  if (!in || !out) {
    hy_hybrid_host_free(gctx, kind, in);
    if (out != in) hy_hybrid_host_free(gctx, kind, out);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate %zu bytes of %s host memory for the "
                    "hybrid calibration", in_bytes + (p->inplace ? 0 : out_bytes),
                    kind == HY_HYBRID_PINNED ? "page-locked" : "pageable");
  }
  hy_status st = hy_exec_run(plan, in, out, NULL, NULL, 1);
  double best = 0;
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++) {
    double t0 = hy_now();
    st = hy_exec_run(plan, in, out, NULL, NULL, 1);
    double dt = hy_now() - t0;
    if (i == 0 || dt < best) best = dt;
  }
  hy_hybrid_host_free(gctx, kind, in);
  if (out != in) hy_hybrid_host_free(gctx, kind, out);
  *seconds = best > 1e-9 ? best : 1e-9;
  return st;
}

/* Batch entries per second of one side on context `ctx`, from a probe of
 * at most `probe_bytes` of data on host memory of kind `kind`, with the
 * calling thread's cores capped at `threads` (0: no cap). */
static hy_status hy_hybrid_rate(struct hyfft_context_s *ctx, struct hyfft_context_s *gctx,
                                int kind, int threads, const hy_problem *p, size_t probe_bytes,
                                unsigned flags, double *rate) {
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
  int old = threads > 0 ? hy_set_thread_limit(threads) : 0;
  if (st == HYFFT_SUCCESS) st = hy_hybrid_time(probe, gctx, kind, &t);
  if (threads > 0) hy_set_thread_limit(old);
  hy_exec_plan_destroy(probe);
  *rate = st == HYFFT_SUCCESS ? (double)count / t : 0;
  return st;
}

/* ---- execution of one split --------------------------------------------------- */

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

/* Both sides of split `s` at once on host data. */
static hy_status hy_hybrid_run_split(const hy_hybrid_split *s, const void *in, void *out,
                                     void *queue) {
  const char *cin = (const char *)in + s->in_off;
  char *cout = (char *)out + s->out_off;
  if (!s->cpu) return hy_exec_run(s->gpu, in, out, NULL, queue, 1);
  if (!s->gpu) return hy_exec_run(s->cpu, cin, cout, NULL, NULL, 1);
  hy_hybrid_job job = {s->cpu, s->cpu_threads, cin, cout, HYFFT_SUCCESS, ""};
  pthread_t thread;
  if (pthread_create(&thread, NULL, hy_hybrid_cpu_thread, &job) != 0)
    return hy_error(HYFFT_INTERNAL, "cannot start the CPU side's thread");
  int old = hy_set_thread_limit(s->copy_threads);
  hy_status st = hy_exec_run(s->gpu, in, out, NULL, queue, 1);
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

/* ---- search ------------------------------------------------------------------ */

/* Seconds of a split run of `count` entries, `n_cpu` of them on the CPU,
 * on zeroed host buffers of kind `kind`: both sides built at that size and
 * run at once as an execution runs them, with split `h`'s cores; one
 * untimed run, then the faster of two. */
static hy_status hy_hybrid_time_split(struct hyfft_context_s *gctx, struct hyfft_context_s *cctx,
                                      const hy_problem *p, const hy_hybrid_split *h, int kind,
                                      int64_t count, int64_t n_cpu, unsigned flags,
                                      double *seconds) {
  hy_hybrid_split t;
  memset(&t, 0, sizeof t);
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
    in = hy_hybrid_host_alloc(gctx, kind, in_bytes);
    out = p->inplace ? in : hy_hybrid_host_alloc(gctx, kind, out_bytes);
    if (!in || !out)
      st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate %zu bytes for the hybrid share search",
                    in_bytes + (p->inplace ? 0 : out_bytes));
  }
  double best = 0;
  if (st == HYFFT_SUCCESS) st = hy_hybrid_run_split(&t, in, out, NULL);
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++) {
    double t0 = hy_now();
    st = hy_hybrid_run_split(&t, in, out, NULL);
    double dt = hy_now() - t0;
    if (i == 0 || dt < best) best = dt;
  }
  hy_hybrid_host_free(gctx, kind, in);
  if (out != in) hy_hybrid_host_free(gctx, kind, out);
  if (t.gpu) hy_exec_plan_destroy(t.gpu);
  if (t.cpu) hy_exec_plan_destroy(t.cpu);
  *seconds = best > 1e-9 ? best : 1e-9;
  return st;
}

/* Refine the model's share s->share by timing up to HY_HYBRID_SEARCH_MAX
 * shares around it (the model's pick, and the balanced share times 0.75, 1
 * and 1.25) on a probe of at most HY_HYBRID_PROBE_GPU bytes of entries on
 * host memory of kind `kind`; another share replaces the model's only
 * when it is HY_HYBRID_SEARCH_GAIN faster, so that timing noise keeps the
 * model's answer. */
static hy_status hy_hybrid_search(hy_hybrid_split *s, int64_t n, struct hyfft_context_s *gctx,
                                  struct hyfft_context_s *cctx, const hy_problem *p, int kind,
                                  unsigned flags) {
  size_t entry_in = (size_t)p->batch[0].in_stride * hy_problem_in_elem_size(p);
  size_t entry_out = (size_t)p->batch[0].out_stride * hy_problem_out_elem_size(p);
  size_t entry = entry_in > entry_out ? entry_in : entry_out;
  int64_t count = (int64_t)(HY_HYBRID_PROBE_GPU / (entry ? entry : 1));
  if (count > n) count = n;
  /* Too few entries to tell shares apart. */
  if (count < 4) return HYFFT_SUCCESS;
  double balanced = s->r_cpu / (s->r_cpu + s->r_gpu);
  double want[HY_HYBRID_SEARCH_MAX] = {s->share, 0.75 * balanced, balanced, 1.25 * balanced};
  int64_t tried[HY_HYBRID_SEARCH_MAX] = {0};
  int best = -1;
  s->search_count = count;
  for (int i = 0; i < HY_HYBRID_SEARCH_MAX; i++) {
    double x = want[i] < 0 ? 0 : want[i] > 1 ? 1 : want[i];
    int64_t n_cpu = (int64_t)(x * (double)count + 0.5);
    int seen = 0;
    for (int j = 0; j < s->search_n; j++) seen |= tried[j] == n_cpu;
    if (seen) continue;
    double sec = 0;
    HY_TRY(hy_hybrid_time_split(gctx, cctx, p, s, kind, count, n_cpu, flags, &sec));
    tried[s->search_n] = n_cpu;
    s->search_share[s->search_n] = (double)n_cpu / (double)count;
    s->search_seconds[s->search_n] = sec;
    /* The first candidate is the model's pick. */
    if (best < 0 || sec < s->search_seconds[best] * (1.0 - HY_HYBRID_SEARCH_GAIN)) best = s->search_n;
    s->search_n++;
  }
  if (best > 0) {
    s->share = s->search_share[best];
    s->from = "the search around the calibrated model";
  } else {
    s->from = "the calibrated model, confirmed by the search";
  }
  return HYFFT_SUCCESS;
}

/* Calibrate split `kind`: the GPU side's rates on host memory of that
 * kind (all cores, and s->copy_threads), the CPU side's with
 * s->cpu_threads (and h->r_cpu_alone with all cores, once), the model's
 * share, then the search around it. */
static hy_status hy_hybrid_calibrate(struct hy_hybrid *h, int kind, struct hyfft_context_s *gctx,
                                     struct hyfft_context_s *cctx, const hy_problem *p,
                                     unsigned flags) {
  hy_hybrid_split *s = &h->split[kind];
  atomic_fetch_add(&hy_hybrid_calibration_count, 1);
  HY_TRY(hy_hybrid_rate(gctx, gctx, kind, 0, p, HY_HYBRID_PROBE_GPU, flags, &s->r_gpu_alone));
  HY_TRY(hy_hybrid_rate(gctx, gctx, kind, s->copy_threads, p, HY_HYBRID_PROBE_GPU, flags,
                        &s->r_gpu));
  HY_TRY(hy_hybrid_rate(cctx, gctx, HY_HYBRID_PAGEABLE, s->cpu_threads, p, HY_HYBRID_PROBE_CPU,
                        flags, &s->r_cpu));
  if (h->r_cpu_alone <= 0)
    HY_TRY(hy_hybrid_rate(cctx, gctx, HY_HYBRID_PAGEABLE, 0, p, HY_HYBRID_PROBE_CPU, flags,
                          &h->r_cpu_alone));
  /* Three candidates: both sides finishing together, the GPU alone and
   * the CPU alone, each with all the cores it would have. A split must
   * beat the better single side by the minimum gain. */
  s->from = "the calibrated model";
  double share = s->r_cpu / (s->r_cpu + s->r_gpu);
  int64_t n_cpu = (int64_t)(share * (double)h->n + 0.5);
  double t_gpu = (double)h->n / s->r_gpu_alone, t_cpu = (double)h->n / h->r_cpu_alone;
  double t_cpu_side = (double)n_cpu / s->r_cpu, t_gpu_side = (double)(h->n - n_cpu) / s->r_gpu;
  double t_split = t_cpu_side > t_gpu_side ? t_cpu_side : t_gpu_side;
  double t_single = t_gpu <= t_cpu ? t_gpu : t_cpu;
  if (n_cpu >= 1 && n_cpu < h->n && t_split < t_single * (1.0 - HY_HYBRID_MIN_GAIN))
    s->share = share;
  else
    s->share = t_gpu <= t_cpu ? 0 : 1;
  return hy_hybrid_search(s, h->n, gctx, cctx, p, kind, flags);
}

/* ---- creation ---------------------------------------------------------------- */

void hy_hybrid_destroy(struct hyfft_plan_s *plan) {
  struct hy_hybrid *h = plan->hybrid;
  if (!h) return;
  for (int k = 0; k < HY_HYBRID_KINDS; k++) {
    if (h->split[k].shared) continue;
    if (h->split[k].gpu) hy_exec_plan_destroy(h->split[k].gpu);
    if (h->split[k].cpu) hy_exec_plan_destroy(h->split[k].cpu);
  }
  free(h);
  plan->hybrid = NULL;
}

/* Whole entries of split `s`, its offsets, and its sides (those of the
 * pageable split `base` when the entries are the same). */
static hy_status hy_hybrid_build(struct hy_hybrid *h, hy_hybrid_split *s,
                                 const hy_hybrid_split *base, struct hyfft_context_s *gctx,
                                 struct hyfft_context_s *cctx, const hy_problem *p,
                                 unsigned flags) {
  s->n_cpu = (int64_t)(s->share * (double)h->n + 0.5);
  if (s->n_cpu > h->n) s->n_cpu = h->n;
  s->share = (double)s->n_cpu / (double)h->n;
  int64_t n_gpu = h->n - s->n_cpu;
  s->in_off = (size_t)(n_gpu * p->batch[0].in_stride) * hy_problem_in_elem_size(p);
  s->out_off = (size_t)(n_gpu * p->batch[0].out_stride) * hy_problem_out_elem_size(p);
  if (base && base->n_cpu == s->n_cpu) {
    s->gpu = base->gpu;
    s->cpu = base->cpu;
    s->shared = 1;
    return HYFFT_SUCCESS;
  }
  if (n_gpu > 0) HY_TRY(hy_hybrid_side(gctx, p, n_gpu, flags, &s->gpu));
  if (s->n_cpu > 0) HY_TRY(hy_hybrid_side(cctx, p, s->n_cpu, flags, &s->cpu));
  return HYFFT_SUCCESS;
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
  atomic_init(&h->last, -1);
  h->pinnable = hy_hybrid_can_pin(gctx);
  /* The cores while both sides run. Pageable data: a quarter of them (at
   * least one, at most all but one) copy between the user's memory and
   * the GPU side's page-locked buffers, the rest compute the CPU side.
   * Page-locked data crosses the bus without CPU copies: one core drives
   * the GPU side, the others compute the CPU side. */
  int cores = hy_num_threads();
  hy_hybrid_split *pg = &h->split[HY_HYBRID_PAGEABLE], *pl = &h->split[HY_HYBRID_PINNED];
  pg->copy_threads = cores / 4 > 1 ? cores / 4 : 1;
  pg->cpu_threads = cores - pg->copy_threads > 1 ? cores - pg->copy_threads : 1;
  pl->copy_threads = 1;
  pl->cpu_threads = cores > 2 ? cores - 1 : 1;
  struct hyfft_context_s *cctx = NULL;
  hy_status st = hy_hybrid_cpu_context(&cctx);
  /* Shares that an earlier plan of this problem on this device found are
   * used without calibrating again; a wisdom entry from before the
   * page-locked calibration holds the pageable share alone, and only the
   * page-locked split is calibrated then. */
  hy_strbuf key;
  hy_strbuf_init(&key);
  hy_exec_tune_key(p, &key);
  double wise_share = 0, wise_pinned = -1;
  int wise = given < 0 && st == HYFFT_SUCCESS && hy_strbuf_status(&key) == HYFFT_SUCCESS &&
             hy_wisdom_lookup_share(key.data, gctx->info.name, &wise_share, &wise_pinned);
  int cal_pageable = calibrate && given < 0 && !wise;
  int cal_pinned = calibrate && given < 0 && h->pinnable && (!wise || wise_pinned < 0);
  if (st == HYFFT_SUCCESS) {
    if (given >= 0) {
      pg->share = given;
      pg->from = "HYFFT_CPU_SHARE";
    } else if (wise) {
      pg->share = wise_share;
      pg->from = "wisdom";
    } else {
      st = hy_hybrid_calibrate(h, HY_HYBRID_PAGEABLE, gctx, cctx, p, flags);
    }
  }
  if (st == HYFFT_SUCCESS) {
    if (cal_pinned) {
      st = hy_hybrid_calibrate(h, HY_HYBRID_PINNED, gctx, cctx, p, flags);
    } else if (h->pinnable && wise && given < 0) {
      pl->share = wise_pinned;
      pl->from = "wisdom";
    } else {
      /* The same split either way: a fixed share, or a backend that does
       * not page-lock host memory (all of it is staged alike). */
      pl->share = pg->share;
      pl->from = pg->from;
    }
  }
  if (st == HYFFT_SUCCESS) st = hy_hybrid_build(h, pg, NULL, gctx, cctx, p, flags);
  if (st == HYFFT_SUCCESS) st = hy_hybrid_build(h, pl, pg, gctx, cctx, p, flags);
  if (st == HYFFT_SUCCESS && !pl->shared && pl->gpu && pg->gpu && pg->gpu->stage &&
      !pl->gpu->stage) {
    /* The device held the pageable GPU side's staging buffers but not a
     * second set (staging.c then stages per call, which would need that
     * memory free at each execution): the page-locked split runs the
     * pageable one's sides. Wisdom still keeps the share found. */
    double found = pl->share;
    hy_exec_plan_destroy(pl->gpu);
    if (pl->cpu) hy_exec_plan_destroy(pl->cpu);
    pl->gpu = pl->cpu = NULL;
    pl->share = pg->share;
    st = hy_hybrid_build(h, pl, pg, gctx, cctx, p, flags);
    pl->share = found;
    pl->fallback = 1;
  }
  /* Wisdom keeps the shares as used, whole entries of this batch; -1 for
   * the page-locked share on a backend without page-locked memory. */
  if (st == HYFFT_SUCCESS && (cal_pageable || cal_pinned) &&
      hy_strbuf_status(&key) == HYFFT_SUCCESS)
    st = hy_wisdom_store_share(key.data, gctx->info.name, pg->share,
                               h->pinnable ? pl->share : -1);
  hy_strbuf_free(&key);
  /* The CPU plans hold their own references to the private context. */
  if (cctx) hy_context_release(cctx);
  plan->hybrid = h;
  if (st != HYFFT_SUCCESS) hy_hybrid_destroy(plan);
  return st;
}

/* ---- execution ----------------------------------------------------------------- */

/* The kind of host memory the caller passed: page-locked when the backend
 * reports both the input's and the output's extents page-locked (the test
 * the staged and out-of-core paths make before copying directly), else
 * pageable (one pageable side still takes the CPU's copies). */
static int hy_hybrid_kind(const struct hyfft_plan_s *plan, const void *in, const void *out) {
  const struct hy_hybrid *h = plan->hybrid;
  const hy_backend *b = plan->context->backend;
  if (!h->pinnable) return HY_HYBRID_PAGEABLE;
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  void *dev = plan->context->device;
  int pinned = b->host_pinned(dev, in, in_bytes) &&
               ((const void *)out == in || b->host_pinned(dev, out, out_bytes));
  return pinned ? HY_HYBRID_PINNED : HY_HYBRID_PAGEABLE;
}

hy_status hy_hybrid_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue) {
  struct hy_hybrid *h = plan->hybrid;
  int kind = hy_hybrid_kind(plan, in, out);
  atomic_store(&h->last, kind);
  return hy_hybrid_run_split(&h->split[kind], in, out, queue);
}

hy_status hy_hybrid_wait(struct hyfft_plan_s *plan) {
  struct hy_hybrid *h = plan->hybrid;
  for (int k = 0; k < HY_HYBRID_KINDS; k++) {
    if (h->split[k].gpu) HY_TRY(hy_exec_plan_wait(h->split[k].gpu));
    if (h->split[k].cpu) HY_TRY(hy_exec_plan_wait(h->split[k].cpu));
  }
  return HYFFT_SUCCESS;
}

/* ---- description ---------------------------------------------------------------- */

/* The model's seconds for split `s` at CPU share `share` (calibrated
 * splits only): a side alone has all the cores, two sides split them. */
static double hy_hybrid_model(const struct hy_hybrid *h, const hy_hybrid_split *s, double share) {
  int64_t n_cpu = (int64_t)(share * (double)h->n + 0.5);
  if (n_cpu <= 0) return (double)h->n / s->r_gpu_alone;
  if (n_cpu >= h->n) return (double)h->n / h->r_cpu_alone;
  double c = (double)n_cpu / s->r_cpu, g = (double)(h->n - n_cpu) / s->r_gpu;
  return c > g ? c : g;
}

static void hy_hybrid_describe_side(const struct hyfft_plan_s *side, hy_strbuf *sb) {
  if (side->ooc) hy_ooc_describe(side, sb);
  else hy_plan_tree_describe(&side->tree, sb);
}

static void hy_hybrid_describe_split(const struct hyfft_plan_s *plan, int kind, hy_strbuf *sb) {
  const struct hy_hybrid *h = plan->hybrid;
  const hy_hybrid_split *s = &h->split[kind];
  /* Lines name the kind of memory where the plan has two splits. */
  const char *what = !h->pinnable ? "" : kind == HY_HYBRID_PINNED ? "page-locked " : "pageable ";
  const char *data = !h->pinnable ? "" : kind == HY_HYBRID_PINNED ? " (page-locked data)"
                                                                  : " (pageable data)";
  hy_strbuf_appendf(sb, "  cores%s: %d for the GPU side's thread and host copies and %d for "
                    "the CPU side while both run\n", data, s->copy_threads, s->cpu_threads);
  if (s->r_gpu > 0 && s->r_cpu > 0) {
    hy_strbuf_appendf(sb, "  %scalibration (batch entries/s): GPU side %.6g (host data, bus "
                      "included; %.6g with all cores), CPU side %.6g (%.6g with all cores)\n",
                      what, s->r_gpu, s->r_gpu_alone, s->r_cpu, h->r_cpu_alone);
    hy_strbuf_appendf(sb, "  %smodel: %.4g ms at this share, %.4g ms GPU alone, %.4g ms CPU "
                      "alone, balanced share %.4f\n", what, 1e3 * hy_hybrid_model(h, s, s->share),
                      1e3 * (double)h->n / s->r_gpu_alone, 1e3 * (double)h->n / h->r_cpu_alone,
                      s->r_cpu / (s->r_cpu + s->r_gpu));
  }
  if (s->search_n > 0) {
    hy_strbuf_appendf(sb, "  %ssearch on %lld entries:", what, (long long)s->search_count);
    for (int i = 0; i < s->search_n; i++)
      hy_strbuf_appendf(sb, "%s share %.4f: %.4g ms", i ? "," : "", s->search_share[i],
                        1e3 * s->search_seconds[i]);
    hy_strbuf_append(sb, "\n");
  }
  if (s->shared) {
    hy_strbuf_appendf(sb, "  %ssides: the pageable split's\n", what);
    return;
  }
  if (s->gpu) {
    hy_strbuf_appendf(sb, "  %sGPU side (%s):\n", what, plan->context->info.spec);
    hy_hybrid_describe_side(s->gpu, sb);
  }
  if (s->cpu) {
    hy_strbuf_appendf(sb, "  %sCPU side (cpu):\n", what);
    hy_hybrid_describe_side(s->cpu, sb);
  }
}

void hy_hybrid_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_hybrid *h = plan->hybrid;
  const hy_hybrid_split *pg = &h->split[HY_HYBRID_PAGEABLE], *pl = &h->split[HY_HYBRID_PINNED];
  hy_strbuf_appendf(sb, "  hybrid: outer batch dim of %lld entries: GPU %lld, CPU %lld "
                    "(CPU share %.4f, from %s)%s\n", (long long)h->n,
                    (long long)(h->n - pg->n_cpu), (long long)pg->n_cpu, pg->share, pg->from,
                    h->pinnable ? " for pageable host data" : "");
  if (h->pinnable && pl->fallback)
    hy_strbuf_appendf(sb, "  hybrid: outer batch dim of %lld entries: GPU %lld, CPU %lld "
                      "(CPU share %.4f, the pageable split's: no device memory for a second GPU "
                      "side's buffers; %s found %.4f) for page-locked input and output\n",
                      (long long)h->n, (long long)(h->n - pl->n_cpu), (long long)pl->n_cpu,
                      (double)pl->n_cpu / (double)h->n, pl->from, pl->share);
  else if (h->pinnable)
    hy_strbuf_appendf(sb, "  hybrid: outer batch dim of %lld entries: GPU %lld, CPU %lld "
                      "(CPU share %.4f, from %s) for page-locked input and output\n",
                      (long long)h->n, (long long)(h->n - pl->n_cpu), (long long)pl->n_cpu,
                      pl->share, pl->from);
  else
    hy_strbuf_append(sb, "  hybrid: the same split for page-locked host data (this backend "
                     "does not page-lock host memory)\n");
  hy_hybrid_describe_split(plan, HY_HYBRID_PAGEABLE, sb);
  if (h->pinnable) hy_hybrid_describe_split(plan, HY_HYBRID_PINNED, sb);
}

hy_status hy_hybrid_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const hy_hybrid_split *s = &plan->hybrid->split[HY_HYBRID_PAGEABLE];
  const struct hyfft_plan_s *side = s->gpu ? s->gpu : s->cpu;
  if (side->ooc) return hy_ooc_source(side, sb);
  return side->context->backend->plan_source(side->context->device, side->backend_state, sb);
}

double hy_hybrid_share_for(const struct hyfft_plan_s *plan, int kind) {
  const struct hy_hybrid *h = plan->hybrid;
  return h ? (double)h->split[kind].n_cpu / (double)h->n : 0;
}

double hy_hybrid_share(const struct hyfft_plan_s *plan) {
  return hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE);
}

int hy_hybrid_pinnable(const struct hyfft_plan_s *plan) {
  return plan->hybrid ? plan->hybrid->pinnable : 0;
}

int hy_hybrid_last_kind(const struct hyfft_plan_s *plan) {
  return plan->hybrid ? atomic_load(&plan->hybrid->last) : -1;
}
