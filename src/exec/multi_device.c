/* Multi-device execution of batched host data (exec/multi_device.h). A
 * multi-device context holds one sub-context per listed device; a plan on
 * it gives each device a contiguous range [first, first + count) of the
 * outermost batch dim's entries as a host-data plan of its own on that
 * device's sub-context. One execution runs every range at once: the
 * calling thread drives the first device, one thread each the others.
 * Entries must not interleave (each entry's elements lie before the next
 * entry's start, on both sides), so the devices touch disjoint memory. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "exec/hybrid.h"
#include "exec/multi_device.h"
#include "exec/multi_slab.h"
#include "exec/out_of_core.h"

/* One device's range and its plan. */
typedef struct hy_multi_part {
  struct hyfft_plan_s *plan;
  int device;             /* index into the context's sub-contexts */
  int64_t first, count;   /* entries of the outer batch dim */
  size_t in_off, out_off; /* bytes to the range's first entry */
} hy_multi_part;

struct hy_multi {
  int n_parts; /* devices with entries, in the list's order */
  hy_multi_part part[HY_MULTI_MAX_DEVICES];
  int64_t entries[HY_MULTI_MAX_DEVICES]; /* per device of the context, 0 idle */
  int64_t n;                              /* entries of the outer batch dim */
  const char *whole;                      /* why nothing was split, or NULL */
  /* One transform split in slabs across the devices (exec/multi_slab.c)
   * when the batch does not split; n_parts is then 0. Otherwise NULL and
   * no_slab says why not (with `whole`). */
  struct hy_slab *slab;
  const char *no_slab;
  const char *model;                      /* what set the shares */
  int threads; /* host cores each device's execution gets while all run */
};

/* ---- the split ------------------------------------------------------------------ */

/* Whether two devices count as equally fast: the same name, compute units
 * and memory. */
static int hy_multi_same_device(const hyfft_device_info *a, const hyfft_device_info *b) {
  return strcmp(a->name, b->name) == 0 && a->compute_units == b->compute_units &&
         a->global_memory == b->global_memory;
}

/* Entries per device: proportional to weight[], the remainder to the
 * largest fractional parts (ties to the earlier device), so the counts add
 * up to n and fewer entries than devices go to the first devices. */
static void hy_multi_split(int64_t n, const double *weight, int devices, int64_t *count) {
  double total = 0, frac[HY_MULTI_MAX_DEVICES];
  for (int i = 0; i < devices; i++) total += weight[i];
  int64_t given = 0;
  for (int i = 0; i < devices; i++) {
    double exact = (double)n * weight[i] / total;
    count[i] = (int64_t)exact;
    if (count[i] > n - given) count[i] = n - given;
    frac[i] = exact - (double)count[i];
    given += count[i];
  }
  while (given < n) {
    int best = 0;
    for (int i = 1; i < devices; i++)
      if (frac[i] > frac[best]) best = i;
    count[best]++;
    frac[best] = -1;
    given++;
    /* Floating-point rounding may leave one entry more than there are
     * fractional parts to hand it to: then every device is eligible again. */
    int left = 0;
    for (int i = 0; i < devices; i++) left |= frac[i] >= 0;
    if (!left)
      for (int i = 0; i < devices; i++) frac[i] = 0;
  }
}

/* ---- creation ------------------------------------------------------------------- */

void hy_multi_destroy(struct hyfft_plan_s *plan) {
  struct hy_multi *m = plan->multi;
  if (!m) return;
  hy_slab_destroy(plan, m->slab);
  for (int k = 0; k < m->n_parts; k++)
    if (m->part[k].plan) hy_exec_plan_destroy(m->part[k].plan);
  free(m);
  plan->multi = NULL;
}

/* The plan of one device's part; a failure names the device. */
static hy_status hy_multi_part_plan(struct hyfft_context_s *sub, const hyfft_problem *u,
                                    unsigned flags, struct hyfft_plan_s **out) {
  hy_status st = hy_exec_plan_create(sub, u, flags | HY_PLAN_SIDE, NULL, out);
  if (st == HYFFT_SUCCESS) return st;
  char why[256];
  strncpy(why, hyfft_last_error(), sizeof why - 1);
  why[sizeof why - 1] = '\0';
  return hy_error(st, "device %s of a multi-device plan: %s", sub->info.spec, why);
}

hy_status hy_multi_create(struct hyfft_plan_s *plan, unsigned flags) {
  struct hyfft_context_s *ctx = plan->context;
  const hy_problem *p = &plan->problem;
  plan->multi = NULL;
  if (ctx->n_sub == 0) return HYFFT_SUCCESS;
  /* Each device has its own memory: a device pointer belongs to one. */
  if (p->memory != HYFFT_MEMORY_HOST)
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "device-resident data (memory DEVICE, token ':dev') on the multi-device "
                    "context '%s': each device has its own memory; plan it on a context of one "
                    "device (e.g. '%s') or use host data",
                    ctx->info.spec, ctx->sub[0]->info.spec);
  if (flags & HYFFT_HYBRID)
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "HYFFT_HYBRID on the multi-device context '%s': a CPU share beside several "
                    "devices is not supported; plan without the flag",
                    ctx->info.spec);

  struct hy_multi *m = hy_calloc(1, sizeof *m);
  if (!m) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a multi-device plan");
  plan->multi = m;
  int cores = hy_num_threads();
  hy_status st = HYFFT_SUCCESS;
  /* A batch that does not split: one transform of 2 or 3 dims splits in
   * slabs across the devices instead where it can. */
  if (!hy_hybrid_splittable(p)) {
    st = hy_slab_create(plan, flags, &m->slab, &m->no_slab);
    if (st != HYFFT_SUCCESS || m->slab) {
      if (st != HYFFT_SUCCESS) hy_multi_destroy(plan);
      return st;
    }
  }
  if (!hy_hybrid_splittable(p)) {
    /* Nothing to split: the whole problem on the first device. */
    m->whole = p->batch_rank < 1       ? "no batch dim to split"
               : p->batch[0].n < 2     ? "one batch entry"
                                       : "batch entries interleave";
    m->n = p->batch_rank < 1 ? 1 : p->batch[0].n;
    m->entries[0] = m->n;
    m->threads = cores;
    m->n_parts = 1;
    m->part[0] = (hy_multi_part){NULL, 0, 0, m->n, 0, 0};
    hyfft_problem u = p->user;
    u.memory = HYFFT_MEMORY_HOST;
    st = hy_multi_part_plan(ctx->sub[0], &u, flags, &m->part[0].plan);
  } else {
    m->n = p->batch[0].n;
    double weight[HY_MULTI_MAX_DEVICES];
    int same = 1;
    for (int i = 0; i < ctx->n_sub; i++) {
      same &= hy_multi_same_device(&ctx->sub[i]->info, &ctx->sub[0]->info);
      int cu = ctx->sub[i]->info.compute_units;
      weight[i] = cu > 0 ? (double)cu : 1.0;
    }
    if (same) {
      for (int i = 0; i < ctx->n_sub; i++) weight[i] = 1.0;
      m->model = "equal shares: identical devices";
    } else {
      m->model = "shares by compute units: devices differ";
    }
    hy_multi_split(m->n, weight, ctx->n_sub, m->entries);
    int64_t first = 0;
    for (int i = 0; i < ctx->n_sub; i++) {
      if (m->entries[i] == 0) continue;
      hy_multi_part *part = &m->part[m->n_parts++];
      part->device = i;
      part->first = first;
      part->count = m->entries[i];
      part->in_off = (size_t)(first * p->batch[0].in_stride) * hy_problem_in_elem_size(p);
      part->out_off = (size_t)(first * p->batch[0].out_stride) * hy_problem_out_elem_size(p);
      first += part->count;
    }
    /* The devices' host copies (or, on the CPU backend, their work) share
     * the cores while all run. */
    m->threads = cores / m->n_parts > 1 ? cores / m->n_parts : 1;
    for (int k = 0; k < m->n_parts && st == HYFFT_SUCCESS; k++) {
      hyfft_problem u;
      hy_hybrid_side_problem(p, m->part[k].count, &u);
      st = hy_multi_part_plan(ctx->sub[m->part[k].device], &u, flags, &m->part[k].plan);
    }
  }
  if (st != HYFFT_SUCCESS) hy_multi_destroy(plan);
  return st;
}

/* ---- execution ------------------------------------------------------------------ */

typedef struct hy_multi_job {
  struct hyfft_plan_s *plan;
  int threads;
  const void *in;
  void *out;
  hy_status status;
  char error[256]; /* the running thread's hyfft_last_error, handed back */
} hy_multi_job;

static void hy_multi_job_run(hy_multi_job *job) {
  int old = hy_set_thread_limit(job->threads);
  job->status = hy_exec_run(job->plan, job->in, job->out, NULL, NULL, 1);
  if (job->status != HYFFT_SUCCESS) {
    const char *msg = hyfft_last_error();
    strncpy(job->error, msg ? msg : "", sizeof job->error - 1);
  }
  hy_set_thread_limit(old);
}

static void *hy_multi_thread(void *arg) {
  hy_multi_job_run(arg);
  return NULL;
}

hy_status hy_multi_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue) {
  struct hy_multi *m = plan->multi;
  struct hyfft_context_s *ctx = plan->context;
  if (queue)
    return hy_error(HYFFT_NOT_SUPPORTED, "a user queue on a plan of the multi-device context "
                    "'%s': a queue belongs to one device; pass NULL", ctx->info.spec);
  if (m->slab) return hy_slab_run(plan, m->slab, in, out);
  if (m->n_parts == 1) return hy_exec_run(m->part[0].plan, in, out, NULL, NULL, 1);
  hy_multi_job job[HY_MULTI_MAX_DEVICES];
  pthread_t thread[HY_MULTI_MAX_DEVICES];
  int started[HY_MULTI_MAX_DEVICES] = {0};
  for (int k = 0; k < m->n_parts; k++) {
    const hy_multi_part *part = &m->part[k];
    job[k] = (hy_multi_job){part->plan, m->threads, (const char *)in + part->in_off,
                            (char *)out + part->out_off, HYFFT_SUCCESS, ""};
  }
  for (int k = 1; k < m->n_parts; k++)
    started[k] = pthread_create(&thread[k], NULL, hy_multi_thread, &job[k]) == 0;
  hy_multi_job_run(&job[0]);
  /* A device whose thread did not start runs here, after the first:
   * slower, still correct. */
  for (int k = 1; k < m->n_parts; k++) {
    if (started[k]) pthread_join(thread[k], NULL);
    else hy_multi_job_run(&job[k]);
  }
  /* The devices run at once: others may have written their ranges when
   * one fails, so the message names the device and its entries. */
  for (int k = 0; k < m->n_parts; k++) {
    if (job[k].status == HYFFT_SUCCESS) continue;
    const hy_multi_part *part = &m->part[k];
    return hy_error(job[k].status, "device %s (entries [%lld, %lld)) of a multi-device plan: %s",
                    ctx->sub[part->device]->info.spec, (long long)part->first,
                    (long long)(part->first + part->count), job[k].error);
  }
  return HYFFT_SUCCESS;
}

hy_status hy_multi_wait(struct hyfft_plan_s *plan) {
  struct hy_multi *m = plan->multi;
  if (m->slab) return hy_slab_wait(m->slab);
  for (int k = 0; k < m->n_parts; k++) HY_TRY(hy_exec_plan_wait(m->part[k].plan));
  return HYFFT_SUCCESS;
}

/* ---- description ---------------------------------------------------------------- */

void hy_multi_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_multi *m = plan->multi;
  const struct hyfft_context_s *ctx = plan->context;
  if (m->slab) {
    hy_slab_describe(plan, m->slab, sb);
    return;
  }
  if (m->whole) {
    hy_strbuf_appendf(sb, "  multi-device: %s: all %lld entr%s on %s, %d other device%s idle\n",
                      m->whole, (long long)m->n, m->n == 1 ? "y" : "ies",
                      ctx->sub[0]->info.spec, ctx->n_sub - 1, ctx->n_sub == 2 ? "" : "s");
    if (m->no_slab)
      hy_strbuf_appendf(sb, "  (no slab split of the transform across the devices: %s)\n",
                        m->no_slab);
  } else {
    hy_strbuf_appendf(sb, "  multi-device: outer batch dim of %lld entries over %d devices (%s)\n",
                      (long long)m->n, ctx->n_sub, m->model);
    for (int i = 0; i < ctx->n_sub; i++) {
      int64_t first = 0;
      for (int j = 0; j < i; j++) first += m->entries[j];
      if (m->entries[i] > 0)
        hy_strbuf_appendf(sb, "    %s (%s): %lld entries [%lld, %lld)\n", ctx->sub[i]->info.spec,
                          ctx->sub[i]->info.name, (long long)m->entries[i], (long long)first,
                          (long long)(first + m->entries[i]));
      else
        hy_strbuf_appendf(sb, "    %s (%s): 0 entries (idle)\n", ctx->sub[i]->info.spec,
                          ctx->sub[i]->info.name);
    }
    hy_strbuf_appendf(sb, "  cores: %d per device for its host copies while all run\n",
                      m->threads);
  }
  for (int k = 0; k < m->n_parts; k++) {
    const hy_multi_part *part = &m->part[k];
    hy_strbuf_appendf(sb, "  device %s, entries [%lld, %lld):\n", ctx->sub[part->device]->info.spec,
                      (long long)part->first, (long long)(part->first + part->count));
    if (part->plan->ooc) hy_ooc_describe(part->plan, sb);
    else hy_plan_tree_describe(&part->plan->tree, sb);
  }
}

hy_status hy_multi_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  if (plan->multi->slab) return hy_slab_source(plan->multi->slab, sb);
  const struct hyfft_plan_s *first = plan->multi->part[0].plan;
  if (first->ooc) return hy_ooc_source(first, sb);
  return first->context->backend->plan_source(first->context->device, first->backend_state, sb);
}

int64_t hy_multi_entries(const struct hyfft_plan_s *plan, int i) {
  if (!plan->multi || i < 0 || i >= plan->context->n_sub) return 0;
  return plan->multi->entries[i];
}

const struct hy_slab *hy_multi_slab(const struct hyfft_plan_s *plan) {
  return plan->multi ? plan->multi->slab : NULL;
}
