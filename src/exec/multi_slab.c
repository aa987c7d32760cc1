/* One transform of host data split across the devices of a multi-device
 * context by slabs (exec/multi_slab.h). The phases are separated by
 * joining the devices' threads, each of which synchronized its device:
 * every slab transform is complete before any exchange reads it, and
 * every exchange into a device is complete before it is read back. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec/batch_chunks.h"
#include "exec/exec.h"
#include "exec/multi_device.h"
#include "exec/multi_slab.h"
#include "exec/out_of_core.h"
#include "util/half.h"
#include "util/settings.h"

typedef struct hy_slab_dev {
  int64_t a, cnt; /* rows [a, a + cnt) of axis 0 */
  int64_t c, w;   /* columns [c, c + w) of axis 1 (of the complex side) */
  /* The axes after 0 of cnt rows: C2C in place on slab; R2C from real
   * (or in place on slab), C2R from slab to real (or in place). NULL: cnt 0. */
  struct hyfft_plan_s *rows;
  struct hyfft_plan_s *cols; /* axis 0 of [n0][w][rest], in place on recv (NULL: w 0) */
  void *slab, *recv, *real;  /* device buffers (real: R2C/C2R out of place only) */
  size_t slab_bytes, recv_bytes, real_bytes, work_bytes;
} hy_slab_dev;

struct hy_slab {
  int devices;
  hyfft_kind kind;
  /* The complex side: n0 rows of n1 columns of `rest` elements (for a 2D
   * R2C/C2R n1 is the halved axis' n/2+1 and rest 1). */
  int64_t n0, n1, rest;
  size_t elem;
  /* Bytes of one row of axis 0 on the host's real side (R2C input, C2R
   * output; the padded layout in place; C2C: a complex row), and whether
   * the real data has a device buffer of its own (R2C/C2R out of place)
   * or shares the slab. */
  size_t real_row;
  int real_apart;
  int peer;               /* 1: copy_peer device to device; 0: through host memory */
  const char *bounce_why; /* why not device to device (peer 0) */
  int threads;            /* host cores per device while all run */
  pthread_mutex_t lock;   /* executions take turns on the buffers */
  hy_slab_dev dev[HY_MULTI_MAX_DEVICES];
};

/* The FFTW-MPI block rule: blocks of ceil(n / devices), the last short or
 * empty. */
static void hy_slab_block(int64_t n, int devices, int i, int64_t *first, int64_t *count) {
  int64_t block = (n + devices - 1) / devices;
  int64_t a = block * i < n ? block * i : n;
  int64_t c = n - a < block ? n - a : block;
  *first = a;
  *count = c;
}

/* ---- creation ------------------------------------------------------------------- */

static const char *hy_slab_unsuitable(const hy_problem *p) {
  if (p->rank < 2) return "one transform dim (a slab split needs 2 or more)";
  if (p->kind == HYFFT_R2R) return "R2R does not split in slabs yet (C2C, R2C and C2R do)";
  if (hy_precision_is_half(p->storage)) return "half-precision storage";
  if (p->batch_rank > 0) return "a batch that cannot be split (the slab split takes batch 1)";
  /* Contiguous row-major; a real side (R2C input, C2R output) unpadded out
   * of place, padded (lines of 2 (n/2+1) reals) in place. */
  int real = p->kind != HYFFT_C2C, last = p->rank - 1;
  int64_t cs = 1, rs = 1;
  for (int k = last; k >= 0; k--) {
    int64_t want_c = cs, want_r = !real ? cs : k == last ? 1 : p->inplace ? 2 * cs : rs;
    int64_t in = p->dims[k].in_stride, out = p->dims[k].out_stride;
    int64_t want_in = p->kind == HYFFT_R2C ? want_r : want_c;
    int64_t want_out = p->kind == HYFFT_C2R ? want_r : want_c;
    if (in != want_in || out != want_out)
      return "a layout other than contiguous row-major (the slab split takes that only)";
    cs *= real && k == last ? p->dims[k].n / 2 + 1 : p->dims[k].n;
    rs *= p->dims[k].n;
  }
  return NULL;
}

/* A device sub-plan of `u` (device memory, in place) on sub-context i; a
 * failure names the device. */
static hy_status hy_slab_sub_plan(struct hyfft_context_s *sub, hyfft_problem *u, unsigned flags,
                                  struct hyfft_plan_s **out) {
  u->memory = HYFFT_MEMORY_DEVICE;
  hy_status st = hy_exec_plan_create(sub, u, flags | HY_PLAN_SIDE, NULL, out);
  if (st == HYFFT_SUCCESS) return st;
  char why[256];
  strncpy(why, hyfft_last_error(), sizeof why - 1);
  why[sizeof why - 1] = '\0';
  return hy_error(st, "device %s of a multi-device plan (slab split): %s", sub->info.spec, why);
}

void hy_slab_destroy(struct hyfft_plan_s *plan, struct hy_slab *s) {
  if (!s) return;
  struct hyfft_context_s *ctx = plan->context;
  for (int i = 0; i < s->devices; i++) {
    hy_slab_dev *d = &s->dev[i];
    const hy_backend *b = ctx->sub[i]->backend;
    if (d->rows) hy_exec_plan_destroy(d->rows);
    if (d->cols) hy_exec_plan_destroy(d->cols);
    if (d->slab) b->release(ctx->sub[i]->device, d->slab);
    if (d->real) b->release(ctx->sub[i]->device, d->real);
    if (d->recv) b->release(ctx->sub[i]->device, d->recv);
  }
  pthread_mutex_destroy(&s->lock);
  free(s);
}

/* The sub-plans of device i and its buffers, within its budget. */
static hy_status hy_slab_device(struct hyfft_plan_s *plan, struct hy_slab *s, int i,
                                unsigned flags) {
  const hy_problem *p = &plan->problem;
  struct hyfft_context_s *sub = plan->context->sub[i];
  hy_slab_dev *d = &s->dev[i];
  hyfft_problem u;
  if (d->cnt > 0) {
    /* The axes after 0 of cnt rows, the host's layout of a row (complex
     * rows n1 * rest apart, real rows real_row bytes apart). */
    memset(&u, 0, sizeof u);
    u.kind = p->kind;
    u.precision = hy_problem_public_precision(p);
    u.sign = p->sign;
    u.rank = p->rank - 1;
    for (int k = 1; k < p->rank; k++) u.dims[k - 1] = p->dims[k];
    int64_t crow = s->n1 * s->rest, rrow = (int64_t)(s->real_row / (s->elem / 2));
    u.batch_rank = 1;
    u.batch[0] = (hyfft_dim){d->cnt, p->kind == HYFFT_R2C ? rrow : crow,
                             p->kind == HYFFT_C2R ? rrow : crow};
    u.inplace = !s->real_apart;
    u.scale = p->kind == HYFFT_C2R ? p->scale : 1.0;
    /* The slab is the plan's own: an out-of-place C2R may overwrite it. */
    unsigned rflags = flags | (p->kind == HYFFT_C2R ? (unsigned)HYFFT_DESTROY_INPUT : 0u);
    HY_TRY(hy_slab_sub_plan(sub, &u, rflags, &d->rows));
    d->slab_bytes = (size_t)(d->cnt * crow) * s->elem;
    if (s->real_apart) d->real_bytes = (size_t)d->cnt * s->real_row;
  }
  if (d->w > 0) {
    /* Axis 0 of the block [n0][w][rest]: w * rest transforms of stride
     * w * rest, one element apart. */
    memset(&u, 0, sizeof u);
    u.kind = HYFFT_C2C;
    u.precision = hy_problem_public_precision(p);
    u.sign = p->sign;
    u.rank = 1;
    u.dims[0] = (hyfft_dim){s->n0, d->w * s->rest, d->w * s->rest};
    u.batch_rank = 1;
    u.batch[0] = (hyfft_dim){d->w * s->rest, 1, 1};
    u.inplace = 1;
    u.scale = p->kind == HYFFT_C2R ? 1.0 : p->scale;
    HY_TRY(hy_slab_sub_plan(sub, &u, flags, &d->cols));
    d->recv_bytes = (size_t)(s->n0 * d->w * s->rest) * s->elem;
  }
  /* A GPU context's plans share one work area (the larger need counts);
   * others hold their own. */
  size_t wr = d->rows ? hy_exec_workspace_bytes(d->rows) : 0;
  size_t wc = d->cols ? hy_exec_workspace_bytes(d->cols) : 0;
  int shared = (d->rows && d->rows->work_shared) || (d->cols && d->cols->work_shared);
  d->work_bytes = shared ? (wr > wc ? wr : wc) : wr + wc;
  int64_t budget = 0;
  const char *from = "";
  HY_TRY(hy_ooc_budget(sub, &budget, &from));
  size_t need = d->slab_bytes + d->recv_bytes + d->real_bytes + d->work_bytes;
  if (budget > 0 && need > (size_t)budget)
    return hy_error(HYFFT_OUT_OF_MEMORY,
                    "multi-device slab plan: device %s needs %zu bytes (slab %zu, receive block "
                    "%zu, real rows %zu, workspace %zu), over its budget of %lld bytes (%s); use "
                    "more devices or a smaller problem",
                    sub->info.spec, need, d->slab_bytes, d->recv_bytes, d->real_bytes,
                    d->work_bytes, (long long)budget, from);
  const hy_backend *b = sub->backend;
  hy_status st = HYFFT_SUCCESS;
  if (d->slab_bytes) st = b->alloc(sub->device, d->slab_bytes, &d->slab);
  if (st == HYFFT_SUCCESS && d->recv_bytes) st = b->alloc(sub->device, d->recv_bytes, &d->recv);
  if (st == HYFFT_SUCCESS && d->real_bytes) st = b->alloc(sub->device, d->real_bytes, &d->real);
  if (st != HYFFT_SUCCESS) {
    char why[256];
    strncpy(why, hyfft_last_error(), sizeof why - 1);
    why[sizeof why - 1] = '\0';
    return hy_error(st, "multi-device slab plan: device %s cannot hold its slab and receive block "
                    "(%zu bytes): %s", sub->info.spec,
                    d->slab_bytes + d->recv_bytes + d->real_bytes, why);
  }
  return HYFFT_SUCCESS;
}

hy_status hy_slab_create(struct hyfft_plan_s *plan, unsigned flags, struct hy_slab **slab,
                         const char **why_not) {
  struct hyfft_context_s *ctx = plan->context;
  const hy_problem *p = &plan->problem;
  *slab = NULL;
  *why_not = hy_slab_unsuitable(p);
  if (*why_not) return HYFFT_SUCCESS;
  struct hy_slab *s = hy_calloc(1, sizeof *s);
  if (!s) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a multi-device slab plan");
  pthread_mutex_init(&s->lock, NULL);
  s->devices = ctx->n_sub;
  s->kind = p->kind;
  int last = p->rank - 1, real = p->kind != HYFFT_C2C;
  s->n0 = p->dims[0].n;
  s->n1 = real && last == 1 ? p->dims[1].n / 2 + 1 : p->dims[1].n;
  s->rest = 1;
  for (int k = 2; k < p->rank; k++)
    s->rest *= real && k == last ? p->dims[k].n / 2 + 1 : p->dims[k].n;
  s->elem = p->precision == HYFFT_F64 ? 16 : 8;
  /* The real side's row: padded in place (as long as a complex row). */
  int64_t reals = 1;
  for (int k = 1; k < p->rank; k++) reals *= p->dims[k].n;
  s->real_apart = real && !p->inplace;
  s->real_row = !real || p->inplace ? (size_t)(s->n1 * s->rest) * s->elem
                                     : (size_t)reals * (s->elem / 2);
  for (int i = 0; i < s->devices; i++) {
    hy_slab_block(s->n0, s->devices, i, &s->dev[i].a, &s->dev[i].cnt);
    hy_slab_block(s->n1, s->devices, i, &s->dev[i].c, &s->dev[i].w);
  }
  /* Device to device where the backend copies so between every pair that
   * exchanges anything, else through host memory. */
  const hy_backend *b = ctx->backend;
  int forced = hy_settings_get()->multi_exchange_host;
  s->peer = b->peer_access && b->copy_peer && !forced;
  s->bounce_why = s->peer  ? NULL
                  : forced ? "HYFFT_MULTI_EXCHANGE=host"
                           : "the backend has no device-to-device copy";
  /* Device e writes into device d (hy_slab_push) where d receives from e. */
  for (int d = 0; d < s->devices && s->peer; d++)
    for (int e = 0; e < s->devices && s->peer; e++)
      if ((s->kind == HYFFT_C2R ? s->dev[d].cnt > 0 && s->dev[e].w > 0
                                : s->dev[d].w > 0 && s->dev[e].cnt > 0) &&
          !b->peer_access(ctx->sub[e]->device, ctx->sub[d]->device)) {
        s->peer = 0;
        s->bounce_why = "two of the devices have no peer access";
      }
  int active = 0;
  for (int i = 0; i < s->devices; i++) active += s->dev[i].cnt > 0 || s->dev[i].w > 0;
  int cores = hy_num_threads();
  s->threads = cores / active > 1 ? cores / active : 1;
  flags &= ~(unsigned)HYFFT_DESTROY_INPUT;
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < s->devices && st == HYFFT_SUCCESS; i++)
    st = hy_slab_device(plan, s, i, flags);
  if (st != HYFFT_SUCCESS) {
    hy_slab_destroy(plan, s);
    return st;
  }
  *slab = s;
  return HYFFT_SUCCESS;
}

/* ---- execution ------------------------------------------------------------------ */

typedef struct hy_slab_job {
  struct hyfft_plan_s *plan;
  struct hy_slab *s;
  int i, phase;
  const char *in;
  char *out;
  char *bounce; /* host memory of the exchange through the host (n0 complex rows) */
  hy_status status;
  char error[256];
} hy_slab_job;

/* Rows of `width` bytes between a strided host layout and a packed one,
 * on the device's share of the cores. */
typedef struct hy_slab_pack {
  char *packed, *strided;
  size_t width, pitch;
  int to_packed;
} hy_slab_pack;

static void hy_slab_pack_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  const hy_slab_pack *k = arg;
  (void)thread_index;
  for (int64_t r = begin; r < end; r++) {
    char *packed = k->packed + (size_t)r * k->width, *strided = k->strided + (size_t)r * k->pitch;
    if (k->to_packed) memcpy(packed, strided, k->width);
    else memcpy(strided, packed, k->width);
  }
}

/* Host columns [c, c + w) of every row of `host` (rows n1 * rest elements)
 * to or from a [n0][w][rest] block on the device: copy_2d from page-locked
 * memory, else packed through a host buffer. */
static hy_status hy_slab_columns(struct hyfft_context_s *sub, const struct hy_slab *s,
                                 const hy_slab_dev *d, char *host, int to_device) {
  const hy_backend *b = sub->backend;
  size_t width = (size_t)(d->w * s->rest) * s->elem, pitch = (size_t)(s->n1 * s->rest) * s->elem;
  char *col = host + (size_t)(d->c * s->rest) * s->elem;
  if (b->copy_2d && b->host_pinned && b->host_pinned(sub->device, host, pitch * (size_t)s->n0)) {
    HY_TRY(b->copy_2d(sub->device, NULL, to_device, d->recv, 0, width, col, pitch, width,
                      (size_t)s->n0));
    return b->synchronize(sub->device, NULL);
  }
  char *pack = hy_malloc(d->recv_bytes);
  if (!pack)
    return hy_error(HYFFT_OUT_OF_MEMORY, "multi-device slab plan: no %zu bytes of host memory "
                    "for device %s's columns", d->recv_bytes, sub->info.spec);
  hy_status st = HYFFT_SUCCESS;
  hy_slab_pack k = {pack, col, width, pitch, to_device};
  int64_t grain = (int64_t)((1u << 18) / (width ? width : 1)) + 1; /* 256 KiB a thread at least */
  if (to_device) {
    hy_parallel_for(s->n0, grain, hy_slab_pack_range, &k);
    st = b->write(sub->device, NULL, d->recv, 0, pack, d->recv_bytes, 1);
  } else {
    st = b->read(sub->device, NULL, d->recv, 0, pack, d->recv_bytes, 1);
    if (st == HYFFT_SUCCESS) hy_parallel_for(s->n0, grain, hy_slab_pack_range, &k);
  }
  free(pack);
  return st;
}

/* The exchange device to device, at the end of the first phase: device i
 * writes (pushes) its part of every device's block into that device's
 * buffer, on its own queue, all devices at once; the join between the
 * phases is the barrier before anyone reads what it received. C2C and R2C:
 * its rows' column block c_e .. c_e + w_e of each device e into e's
 * receive block at row a_i. C2R: rows a_e .. a_e + cnt_e of its column
 * block into e's slab at column c_i. Each device takes the others in the
 * order i, i + 1, ... (mod devices), so that each step pairs every device
 * with a different one. Writes, not reads: the pattern hyfft_peer_bw
 * times beside NCCL (docs/performance.md, "One transform over four
 * GPUs", says what of it is measured). */
static hy_status hy_slab_push(hy_slab_job *job) {
  struct hyfft_context_s *ctx = job->plan->context, *sub = ctx->sub[job->i];
  const struct hy_slab *s = job->s;
  const hy_slab_dev *d = &s->dev[job->i];
  const hy_backend *b = sub->backend;
  size_t crow = (size_t)(s->n1 * s->rest) * s->elem;
  for (int k = 0; k < s->devices; k++) {
    int e = (job->i + k) % s->devices;
    const hy_slab_dev *to = &s->dev[e];
    if (s->kind != HYFFT_C2R) {
      size_t width = (size_t)(to->w * s->rest) * s->elem;
      if (to->w == 0 || d->cnt == 0) continue;
      HY_TRY(b->copy_peer(sub->device, NULL, to->recv, (size_t)d->a * width, width, sub->device,
                          d->slab, (size_t)(to->c * s->rest) * s->elem, crow, width,
                          (size_t)d->cnt));
    } else {
      size_t width = (size_t)(d->w * s->rest) * s->elem;
      if (to->cnt == 0 || d->w == 0) continue;
      HY_TRY(b->copy_peer(sub->device, NULL, to->slab, (size_t)(d->c * s->rest) * s->elem, crow,
                          sub->device, d->recv, (size_t)to->a * width, width, width,
                          (size_t)to->cnt));
    }
  }
  return b->synchronize(sub->device, NULL);
}

/* Rows: the host's rows [a, a + cnt) in, the axes after 0, and the slab
 * out to the others (device to device) or into the bounce buffer (C2C,
 * R2C: phase 0); or the slab as received (from the others or the bounce
 * buffer), the axes after 0, the rows out (C2R: phase 1). */
static hy_status hy_slab_rows(hy_slab_job *job) {
  struct hyfft_context_s *sub = job->plan->context->sub[job->i];
  const struct hy_slab *s = job->s;
  const hy_slab_dev *d = &s->dev[job->i];
  const hy_backend *b = sub->backend;
  if (d->cnt == 0) return HYFFT_SUCCESS;
  size_t crow = (size_t)(s->n1 * s->rest) * s->elem;
  void *real = s->real_apart ? d->real : d->slab;
  size_t real_bytes = (size_t)d->cnt * s->real_row;
  if (s->kind != HYFFT_C2R) {
    HY_TRY(b->write(sub->device, NULL, real, 0, job->in + (size_t)d->a * s->real_row, real_bytes,
                    1));
    HY_TRY(hy_exec_dispatch(d->rows, real, d->slab, NULL, NULL));
    HY_TRY(b->synchronize(sub->device, NULL));
    if (s->peer) return hy_slab_push(job);
    return b->read(sub->device, NULL, d->slab, 0, job->bounce + (size_t)d->a * crow,
                   d->slab_bytes, 1);
  }
  if (!s->peer)
    HY_TRY(b->write(sub->device, NULL, d->slab, 0, job->bounce + (size_t)d->a * crow,
                    d->slab_bytes, 1));
  HY_TRY(hy_exec_dispatch(d->rows, d->slab, real, NULL, NULL));
  HY_TRY(b->synchronize(sub->device, NULL));
  return b->read(sub->device, NULL, real, 0, job->out + (size_t)d->a * s->real_row, real_bytes, 1);
}

/* Columns: as received (from the others or the bounce buffer), axis 0,
 * out into the host output (C2C, R2C: phase 1); or in from the host
 * input, axis 0, and out to the others (device to device) or into the
 * bounce buffer (C2R: phase 0). */
static hy_status hy_slab_cols(hy_slab_job *job) {
  struct hyfft_context_s *sub = job->plan->context->sub[job->i];
  const struct hy_slab *s = job->s;
  const hy_slab_dev *d = &s->dev[job->i];
  const hy_backend *b = sub->backend;
  if (d->w == 0) return HYFFT_SUCCESS;
  if (s->kind == HYFFT_C2R) {
    HY_TRY(hy_slab_columns(sub, s, d, (char *)job->in, 1));
    HY_TRY(hy_exec_dispatch(d->cols, d->recv, d->recv, NULL, NULL));
    HY_TRY(b->synchronize(sub->device, NULL));
    return s->peer ? hy_slab_push(job) : hy_slab_columns(sub, s, d, job->bounce, 0);
  }
  if (!s->peer) HY_TRY(hy_slab_columns(sub, s, d, job->bounce, 1));
  HY_TRY(hy_exec_dispatch(d->cols, d->recv, d->recv, NULL, NULL));
  HY_TRY(b->synchronize(sub->device, NULL));
  return hy_slab_columns(sub, s, d, job->out, 0);
}

/* C2C and R2C: rows, then columns; C2R: columns, then rows. */
static hy_status hy_slab_phase(hy_slab_job *job) {
  int rows_first = job->s->kind != HYFFT_C2R;
  return (job->phase == 0) == rows_first ? hy_slab_rows(job) : hy_slab_cols(job);
}

static void hy_slab_job_run(hy_slab_job *job) {
  int old = hy_set_thread_limit(job->s->threads);
  job->status = hy_slab_phase(job);
  if (job->status != HYFFT_SUCCESS) {
    const char *msg = hyfft_last_error();
    strncpy(job->error, msg ? msg : "", sizeof job->error - 1);
  }
  hy_set_thread_limit(old);
}

static void *hy_slab_thread(void *arg) {
  hy_slab_job_run(arg);
  return NULL;
}

/* One phase on every device at once (the calling thread drives the
 * first); returns when all are done, the first failure named. */
static hy_status hy_slab_run_phase(struct hyfft_plan_s *plan, struct hy_slab *s, int phase,
                                   const void *in, void *out, void *bounce) {
  hy_slab_job job[HY_MULTI_MAX_DEVICES];
  pthread_t thread[HY_MULTI_MAX_DEVICES];
  int started[HY_MULTI_MAX_DEVICES] = {0};
  for (int i = 0; i < s->devices; i++)
    job[i] = (hy_slab_job){plan, s, i, phase, in, out, bounce, HYFFT_SUCCESS, ""};
  for (int i = 1; i < s->devices; i++)
    started[i] = pthread_create(&thread[i], NULL, hy_slab_thread, &job[i]) == 0;
  hy_slab_job_run(&job[0]);
  for (int i = 1; i < s->devices; i++) {
    if (started[i]) pthread_join(thread[i], NULL);
    else hy_slab_job_run(&job[i]);
  }
  for (int i = 0; i < s->devices; i++) {
    if (job[i].status == HYFFT_SUCCESS) continue;
    const hy_slab_dev *d = &s->dev[i];
    return hy_error(job[i].status,
                    "device %s of a multi-device plan (slab split, %s: rows [%lld, %lld), "
                    "columns [%lld, %lld)): %s",
                    plan->context->sub[i]->info.spec,
                    (phase == 0) == (s->kind != HYFFT_C2R) ? "the rows' axes"
                                                           : "the columns' axis 0",
                    (long long)d->a,
                    (long long)(d->a + d->cnt), (long long)d->c, (long long)(d->c + d->w),
                    job[i].error);
  }
  return HYFFT_SUCCESS;
}

hy_status hy_slab_run(struct hyfft_plan_s *plan, struct hy_slab *s, const void *in, void *out) {
  /* Through the host, the exchange's bounce buffer is the output (as
   * large as the complex side: C2C, R2C, and C2R in place); an
   * out-of-place C2R, whose input must stay as it was, takes one of its
   * own. */
  void *bounce = out, *own = NULL;
  if (!s->peer && s->kind == HYFFT_C2R && in != out) {
    size_t bytes = (size_t)(s->n0 * s->n1 * s->rest) * s->elem;
    own = bounce = hy_malloc(bytes);
    if (!own)
      return hy_error(HYFFT_OUT_OF_MEMORY, "multi-device slab plan: no %zu bytes of host memory "
                      "for the exchange through the host", bytes);
  }
  pthread_mutex_lock(&s->lock);
  hy_status st = hy_slab_run_phase(plan, s, 0, in, out, bounce);
  if (st == HYFFT_SUCCESS) hy_exec_progress(plan, 0.5);
  if (st == HYFFT_SUCCESS) st = hy_slab_run_phase(plan, s, 1, in, out, bounce);
  pthread_mutex_unlock(&s->lock);
  free(own);
  return st;
}

hy_status hy_slab_wait(struct hy_slab *s) {
  for (int i = 0; i < s->devices; i++) {
    if (s->dev[i].rows) HY_TRY(hy_exec_plan_wait(s->dev[i].rows));
    if (s->dev[i].cols) HY_TRY(hy_exec_plan_wait(s->dev[i].cols));
  }
  return HYFFT_SUCCESS;
}

/* ---- description ---------------------------------------------------------------- */

static void hy_slab_bytes(const struct hy_slab *s, int i, size_t *up, size_t *down, size_t *peer_in,
                          size_t *local) {
  const hy_slab_dev *d = &s->dev[i];
  size_t rows = (size_t)d->cnt * s->real_row, through = s->peer ? 0 : 1;
  int c2r = s->kind == HYFFT_C2R;
  /* The host's rows and columns once each way; through the host also the
   * slab out and the columns in (C2R: the columns out and the slab in). */
  *up = c2r ? d->recv_bytes + through * d->slab_bytes : rows + through * d->recv_bytes;
  *down = c2r ? rows + through * d->recv_bytes : d->recv_bytes + through * d->slab_bytes;
  *peer_in = *local = 0;
  if (!s->peer) return;
  for (int e = 0; e < s->devices; e++) {
    const hy_slab_dev *src = &s->dev[e];
    size_t bytes = c2r ? (size_t)(d->cnt * src->w * s->rest) * s->elem
                       : (size_t)(src->cnt * d->w * s->rest) * s->elem;
    if (e == i) *local += bytes;
    else *peer_in += bytes;
  }
}

void hy_slab_describe(const struct hyfft_plan_s *plan, const struct hy_slab *s, hy_strbuf *sb) {
  const struct hyfft_context_s *ctx = plan->context;
  hy_strbuf_appendf(sb, "  multi-device: one transform in slabs over %d devices (no batch to "
                    "split): axis 0 (%lld) by rows, then axis 1 (%lld) by columns, %lld elements "
                    "each; exchange %s%s%s\n",
                    s->devices, (long long)s->n0, (long long)s->n1, (long long)s->rest,
                    s->peer ? "device to device" : "through host memory (",
                    s->peer ? "" : s->bounce_why, s->peer ? "" : ")");
  if (!s->peer) hy_strbuf_appendf(sb, "  (the slabs go down into the output, the columns up)\n");
  size_t tu = 0, td = 0, tp = 0, tl = 0;
  for (int i = 0; i < s->devices; i++) {
    const hy_slab_dev *d = &s->dev[i];
    size_t up, down, pin, local;
    hy_slab_bytes(s, i, &up, &down, &pin, &local);
    tu += up, td += down, tp += pin, tl += local;
    hy_strbuf_appendf(sb, "    %s (%s): rows [%lld, %lld), columns [%lld, %lld); device memory "
                      "%zu (slab %zu, receive %zu, real rows %zu, workspace %zu)\n",
                      ctx->sub[i]->info.spec, ctx->sub[i]->info.name, (long long)d->a,
                      (long long)(d->a + d->cnt), (long long)d->c, (long long)(d->c + d->w),
                      d->slab_bytes + d->recv_bytes + d->real_bytes + d->work_bytes,
                      d->slab_bytes, d->recv_bytes, d->real_bytes, d->work_bytes);
    hy_strbuf_appendf(sb, "      bus: %zu bytes host to device, %zu device to host; device to "
                      "device: %zu bytes in from other devices, %zu within\n",
                      up, down, pin, local);
  }
  hy_strbuf_appendf(sb, "  total: %zu bytes host to device, %zu device to host, %zu device to "
                    "device (%zu within devices)\n", tu, td, tp, tl);
  hy_strbuf_appendf(sb, "  cores: %d per device for its host copies while all run\n", s->threads);
  for (int i = 0; i < s->devices; i++) {
    const hy_slab_dev *d = &s->dev[i];
    if (d->rows) {
      hy_strbuf_appendf(sb, "  device %s, rows [%lld, %lld), axes 1..:\n", ctx->sub[i]->info.spec,
                        (long long)d->a, (long long)(d->a + d->cnt));
      if (d->rows->chunks) hy_chunks_describe(d->rows, sb);
      else hy_plan_tree_describe(&d->rows->tree, sb);
    }
    if (d->cols) {
      hy_strbuf_appendf(sb, "  device %s, columns [%lld, %lld), axis 0:\n",
                        ctx->sub[i]->info.spec, (long long)d->c, (long long)(d->c + d->w));
      if (d->cols->chunks) hy_chunks_describe(d->cols, sb);
      else hy_plan_tree_describe(&d->cols->tree, sb);
    }
  }
}

hy_status hy_slab_source(const struct hy_slab *s, hy_strbuf *sb) {
  for (int i = 0; i < s->devices; i++) {
    const struct hyfft_plan_s *p = s->dev[i].rows ? s->dev[i].rows : s->dev[i].cols;
    if (!p) continue;
    if (p->chunks) return hy_chunks_source(p, sb);
    return p->context->backend->plan_source(p->context->device, p->backend_state, sb);
  }
  return HYFFT_SUCCESS;
}

int hy_slab_split(const struct hy_slab *s, int i, int64_t *a, int64_t *cnt, int64_t *c,
                  int64_t *w, int *peer) {
  if (!s || i < 0 || i >= s->devices) return 0;
  *a = s->dev[i].a;
  *cnt = s->dev[i].cnt;
  *c = s->dev[i].c;
  *w = s->dev[i].w;
  *peer = s->peer;
  return 1;
}
