/* Convolution plans (exec/conv.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/batch_chunks.h"
#include "exec/conv.h"
#include "exec/exec.h"
#include "problem/problem.h"
#include "util/settings.h"

/* The CPU load function's argument: the spectra (host memory) and the
 * shape of the inverse's input. */
typedef struct hy_conv_cpu {
  const void *spectra;
  int64_t s, k; /* spectrum elements, filters */
} hy_conv_cpu;

struct hy_conv {
  int64_t filters, batch, spectrum; /* K, B (all batch entries), S */
  int real;                         /* R2C/C2R sub-plans */
  int fused;                        /* 1: the inverse's load callback multiplies */
  char why[256];                    /* not fused: the reason */
  struct hyfft_plan_s *fwd, *mul, *inv;
  void *spectra; /* K x S complex, on the device */
  void *t;       /* B x S complex: the forward's output */
  void *u;       /* B x K x S complex: the pointwise pass's output (not fused) */
  size_t in_bytes, out_bytes; /* the caller's extents */
  pthread_mutex_t lock;       /* one execution at a time on t and u */
  hy_conv_cpu cpu;
};

/* ---- the multiply ----------------------------------------------------------- */

static void hy_conv_load_f32(void *value, const void *in, int64_t index, void *user) {
  const hy_conv_cpu *c = user;
  int64_t s = index % c->s, e = index / c->s;
  const float *x = (const float *)in + 2 * ((e / c->k) * c->s + s);
  const float *h = (const float *)c->spectra + 2 * ((e % c->k) * c->s + s);
  float *v = value;
  v[0] = x[0] * h[0] - x[1] * h[1];
  v[1] = x[0] * h[1] + x[1] * h[0];
}

static void hy_conv_load_f64(void *value, const void *in, int64_t index, void *user) {
  const hy_conv_cpu *c = user;
  int64_t s = index % c->s, e = index / c->s;
  const double *x = (const double *)in + 2 * ((e / c->k) * c->s + s);
  const double *h = (const double *)c->spectra + 2 * ((e % c->k) * c->s + s);
  double *v = value;
  v[0] = x[0] * h[0] - x[1] * h[1];
  v[1] = x[0] * h[1] + x[1] * h[0];
}

void hy_conv_snippet(int64_t spectrum_elems, int64_t filters, hy_strbuf *sb) {
  long long s = (long long)spectrum_elems, k = (long long)filters;
  hy_strbuf_append(sb, "const HY_GLOBAL real2 *h = (const HY_GLOBAL real2 *)user;\n");
  if (filters == 1) {
    hy_strbuf_appendf(sb, "return cmul(in[index], h[index %% (hy_i64)%lld]);\n", s);
    return;
  }
  hy_strbuf_appendf(sb,
                    "hy_i64 s = index %% (hy_i64)%lld, e = index / (hy_i64)%lld;\n"
                    "return cmul(in[(e / (hy_i64)%lld) * (hy_i64)%lld + s], "
                    "h[(e %% (hy_i64)%lld) * (hy_i64)%lld + s]);\n",
                    s, s, k, s, k, s);
}

/* ---- shapes ------------------------------------------------------------------ */

int64_t hy_conv_spectrum_elems(const hyfft_problem *p) {
  int64_t s = 1;
  for (int d = 0; d < p->rank; d++) {
    int64_t n = p->dims[d].n;
    if (d == p->rank - 1 && p->kind == HYFFT_R2C) n = n / 2 + 1;
    if (hy_mul_overflow_i64(s, n, &s)) return -1;
  }
  return s;
}

/* The checks of the signal problem that are the convolution's own (the
 * sub-problems' validation does the rest). */
static hy_status hy_conv_check(const struct hyfft_context_s *ctx, const hyfft_problem *u,
                               int64_t filters) {
  if (ctx->n_sub > 0)
    return hy_error(HYFFT_NOT_SUPPORTED, "convolution: a multi-device context does not run "
                    "convolution plans yet; use one device");
  if (u->kind != HYFFT_C2C && u->kind != HYFFT_R2C)
    return hy_error(HYFFT_INVALID_KIND, "convolution: kind %d; a convolution takes HYFFT_C2C "
                    "(complex signals) or HYFFT_R2C (real signals)", (int)u->kind);
  if (u->precision == HYFFT_F16 || u->precision == HYFFT_BF16)
    return hy_error(HYFFT_NOT_SUPPORTED, "convolution: %s storage is not supported (f32 and f64)",
                    u->precision == HYFFT_F16 ? "f16" : "bf16");
  if (u->precision != HYFFT_F32 && u->precision != HYFFT_F64)
    return hy_error(HYFFT_INVALID_PRECISION, "convolution: precision %d is not f32 or f64",
                    (int)u->precision);
  if (u->rank < 1 || u->rank > 3)
    return hy_error(HYFFT_INVALID_RANK, "convolution: rank %d is outside 1..3", u->rank);
  if (u->batch_rank < 0 || u->batch_rank > HYFFT_MAX_BATCH_RANK)
    return hy_error(HYFFT_INVALID_RANK, "convolution: batch_rank %d is outside 0..%d",
                    u->batch_rank, HYFFT_MAX_BATCH_RANK);
  for (int d = 0; d < u->rank + u->batch_rank; d++) {
    const hyfft_dim *dim = d < u->rank ? &u->dims[d] : &u->batch[d - u->rank];
    if (dim->n < 1)
      return hy_error(HYFFT_INVALID_SIZE, "convolution: %s[%d].n = %lld is not positive",
                      d < u->rank ? "dims" : "batch", d < u->rank ? d : d - u->rank,
                      (long long)dim->n);
  }
  if (filters < 1)
    return hy_error(HYFFT_INVALID_SIZE, "convolution: filters = %lld; at least one kernel is "
                    "needed", (long long)filters);
  if (u->memory != HYFFT_MEMORY_HOST && u->memory != HYFFT_MEMORY_DEVICE)
    return hy_error(HYFFT_INVALID_ARGUMENT, "convolution: memory %d is neither host nor device",
                    (int)u->memory);
  return HYFFT_SUCCESS;
}

/* Contiguous row-major strides over `len` (rank entries) into dims[].field
 * and the batch dims after them; *total receives one batch entry's count
 * times the batch. */
static hy_status hy_conv_contiguous(hyfft_problem *p, const int64_t *len, int out,
                                    int64_t *entry) {
  int64_t acc = 1;
  for (int d = p->rank - 1; d >= 0; d--) {
    if (out)
      p->dims[d].out_stride = acc;
    else
      p->dims[d].in_stride = acc;
    if (hy_mul_overflow_i64(acc, len[d], &acc))
      return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: the signal size overflows int64");
  }
  *entry = acc;
  for (int d = p->batch_rank - 1; d >= 0; d--) {
    if (out)
      p->batch[d].out_stride = acc;
    else
      p->batch[d].in_stride = acc;
    if (hy_mul_overflow_i64(acc, p->batch[d].n, &acc))
      return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: the batch size overflows int64");
  }
  return HYFFT_SUCCESS;
}

hy_status hy_conv_inverse_problem(const hyfft_problem *u, int64_t filters, hyfft_problem *v) {
  int64_t nlen[HYFFT_MAX_RANK], slen[HYFFT_MAX_RANK], batch = 1, bk, n_total = 1;
  for (int d = 0; d < u->rank; d++) {
    nlen[d] = slen[d] = u->dims[d].n;
    if (hy_mul_overflow_i64(n_total, nlen[d], &n_total))
      return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: the signal size overflows int64");
  }
  if (u->kind == HYFFT_R2C) slen[u->rank - 1] = nlen[u->rank - 1] / 2 + 1;
  for (int d = 0; d < u->batch_rank; d++)
    if (hy_mul_overflow_i64(batch, u->batch[d].n, &batch))
      return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: the batch size overflows int64");
  if (hy_mul_overflow_i64(batch, filters, &bk))
    return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: %lld signals x %lld filters overflow int64",
                    (long long)batch, (long long)filters);
  memset(v, 0, sizeof *v);
  v->kind = u->kind == HYFFT_R2C ? HYFFT_C2R : HYFFT_C2C;
  v->precision = u->precision;
  v->sign = HYFFT_BACKWARD;
  v->rank = u->rank;
  for (int d = 0; d < u->rank; d++) v->dims[d].n = nlen[d];
  v->batch_rank = 1;
  v->batch[0].n = bk;
  int64_t e;
  HY_TRY(hy_conv_contiguous(v, slen, 0, &e));
  HY_TRY(hy_conv_contiguous(v, nlen, 1, &e));
  v->scale = (u->scale != 0 ? u->scale : 1.0) / (double)n_total;
  v->memory = HYFFT_MEMORY_DEVICE;
  return HYFFT_SUCCESS;
}

/* ---- creation ---------------------------------------------------------------- */

static void hy_conv_free(struct hyfft_context_s *ctx, struct hy_conv *c) {
  if (!c) return;
  if (c->fwd) hy_exec_plan_destroy(c->fwd);
  if (c->mul) hy_exec_plan_destroy(c->mul);
  if (c->inv) hy_exec_plan_destroy(c->inv);
  void *bufs[3] = {c->spectra, c->t, c->u};
  for (int i = 0; i < 3; i++)
    if (bufs[i]) ctx->backend->release(ctx->device, bufs[i]);
  free(c);
}

/* The callbacks of the multiply: a generated snippet on a GPU, the C
 * function on the CPU. */
static void hy_conv_callbacks(struct hyfft_context_s *ctx, struct hy_conv *c,
                              hyfft_precision prec, const char *snippet, hyfft_callbacks *cb) {
  memset(cb, 0, sizeof *cb);
  if (ctx->backend->id == HYFFT_BACKEND_CPU) {
    cb->load_fn = prec == HYFFT_F64 ? hy_conv_load_f64 : hy_conv_load_f32;
    cb->load_user = &c->cpu;
  } else {
    cb->load_source = snippet;
    cb->load_user = c->spectra;
  }
}

hy_status hy_conv_create(struct hyfft_context_s *ctx, const hyfft_problem *user, int64_t filters,
                         const void *spectra, size_t spectra_bytes, unsigned flags,
                         struct hyfft_plan_s **out) {
  hyfft_problem u;
  memset(&u, 0, sizeof u);
  hy_problem_copy_public(&u, user);
  HY_TRY(hy_conv_check(ctx, &u, filters));
  int64_t s = hy_conv_spectrum_elems(&u);
  size_t es = u.precision == HYFFT_F64 ? 16 : 8;
  int64_t spec_total;
  if (s < 0 || hy_mul_overflow_i64(s, filters, &spec_total) ||
      (uint64_t)spec_total > SIZE_MAX / es)
    return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: %lld spectra overflow 64-bit sizes",
                    (long long)filters);
  if (spectra_bytes != (size_t)spec_total * es)
    return hy_error(HYFFT_INVALID_SIZE, "convolution: spectra_bytes = %zu, but %lld %s spectra of "
                    "%lld complex elements take %zu bytes", spectra_bytes, (long long)filters,
                    u.precision == HYFFT_F64 ? "f64" : "f32", (long long)s,
                    (size_t)spec_total * es);

  /* The forward sub-problem: the caller's input layout, out of place into
   * the contiguous B x S spectrum, device data. */
  int64_t nlen[HYFFT_MAX_RANK], slen[HYFFT_MAX_RANK];
  for (int d = 0; d < u.rank; d++) nlen[d] = slen[d] = u.dims[d].n;
  if (u.kind == HYFFT_R2C) slen[u.rank - 1] = nlen[u.rank - 1] / 2 + 1;
  hyfft_problem f = u;
  f.sign = HYFFT_FORWARD;
  f.inplace = 0;
  f.scale = 0;
  f.memory = HYFFT_MEMORY_DEVICE;
  int64_t entry = 0, sb_total = 0;
  HY_TRY(hy_conv_contiguous(&f, slen, 1, &entry));
  int64_t batch = 1;
  for (int d = 0; d < u.batch_rank; d++) batch *= u.batch[d].n; /* bounded by the line above */
  sb_total = batch * s;
  /* In place: the output (K = 1) lies where the input does, contiguous. */
  if (u.inplace) {
    if (filters != 1)
      return hy_error(HYFFT_INPLACE_LAYOUT, "convolution: in place needs filters == 1; %lld "
                      "filters write %lld outputs per input", (long long)filters,
                      (long long)filters);
    hyfft_problem dense = u;
    int64_t e2;
    HY_TRY(hy_conv_contiguous(&dense, nlen, 0, &e2));
    for (int d = 0; d < u.rank + u.batch_rank; d++) {
      const hyfft_dim *a = d < u.rank ? &u.dims[d] : &u.batch[d - u.rank];
      const hyfft_dim *b = d < u.rank ? &dense.dims[d] : &dense.batch[d - u.rank];
      if (a->in_stride != b->in_stride)
        return hy_error(HYFFT_INPLACE_LAYOUT, "convolution: in place needs a contiguous input "
                        "(the output's layout); %s[%d].in_stride = %lld, not %lld",
                        d < u.rank ? "dims" : "batch", d < u.rank ? d : d - u.rank,
                        (long long)a->in_stride, (long long)b->in_stride);
    }
  }
  hy_problem fcanon;
  HY_TRY(hy_problem_make(&f, &fcanon));

  /* The inverse: B x K signals, contiguous on both sides. */
  int64_t bk, n_total = 1;
  for (int d = 0; d < u.rank; d++) n_total *= nlen[d]; /* checked by hy_problem_make */
  if (hy_mul_overflow_i64(batch, filters, &bk) || hy_mul_overflow_i64(bk, n_total, &(int64_t){0}) ||
      hy_mul_overflow_i64(bk, s, &(int64_t){0}))
    return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: %lld signals x %lld filters overflow int64",
                    (long long)batch, (long long)filters);
  hyfft_problem v;
  HY_TRY(hy_conv_inverse_problem(&u, filters, &v));

  struct hy_conv *c = hy_calloc(1, sizeof *c);
  if (!c) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a convolution plan");
  c->filters = filters;
  c->batch = batch;
  c->spectrum = s;
  c->real = u.kind == HYFFT_R2C;
  unsigned sub_flags = flags & (HYFFT_MEASURE | HYFFT_OWN_WORKSPACE);
  const hy_backend *b = ctx->backend;
  hy_status st = hy_exec_plan_create(ctx, &f, sub_flags, NULL, &c->fwd);
  if (st == HYFFT_SUCCESS) st = b->alloc(ctx->device, (size_t)spec_total * es, &c->spectra);
  if (st == HYFFT_SUCCESS)
    st = b->write(ctx->device, NULL, c->spectra, 0, spectra, (size_t)spec_total * es, 1);
  if (st == HYFFT_SUCCESS) st = b->alloc(ctx->device, (size_t)sb_total * es, &c->t);
  c->cpu.spectra = c->spectra;
  c->cpu.s = s;
  c->cpu.k = filters;
  hy_strbuf snippet;
  hy_strbuf_init(&snippet);
  hy_conv_snippet(s, filters, &snippet);
  if (st == HYFFT_SUCCESS) st = hy_strbuf_status(&snippet);
  hyfft_callbacks cb;
  hy_conv_callbacks(ctx, c, u.precision, snippet.data, &cb);
  /* Fused: the inverse loads through the multiply. */
  if (st == HYFFT_SUCCESS && hy_settings_get()->conv_unfused) {
    snprintf(c->why, sizeof c->why, "HYFFT_CONV_UNFUSED is set");
  } else if (st == HYFFT_SUCCESS) {
    st = hy_exec_plan_create_cb(ctx, &v, sub_flags, &cb, &c->inv);
    if (st == HYFFT_SUCCESS) {
      c->fused = 1;
    } else if (st == HYFFT_NOT_SUPPORTED) {
      snprintf(c->why, sizeof c->why, "the inverse does not take the load callback: %s",
               hyfft_last_error());
      hy_error_clear();
      st = HYFFT_SUCCESS;
    }
  }
  /* Not fused: a rank-0 pass over the B x K x S spectra multiplies, and
   * the inverse reads its output (which it may overwrite). */
  if (st == HYFFT_SUCCESS && !c->fused) {
    hyfft_problem m;
    memset(&m, 0, sizeof m);
    m.kind = HYFFT_C2C;
    m.precision = u.precision;
    m.sign = HYFFT_FORWARD;
    m.rank = 1;
    m.dims[0] = (hyfft_dim){1, 1, 1};
    m.batch_rank = 1;
    m.batch[0] = (hyfft_dim){bk * s, 1, 1};
    m.memory = HYFFT_MEMORY_DEVICE;
    st = hy_exec_plan_create_cb(ctx, &m, 0, &cb, &c->mul);
    if (st == HYFFT_SUCCESS) st = b->alloc(ctx->device, (size_t)(bk * s) * es, &c->u);
    if (st == HYFFT_SUCCESS)
      st = hy_exec_plan_create(ctx, &v, sub_flags | HYFFT_DESTROY_INPUT, NULL, &c->inv);
  }
  hy_strbuf_free(&snippet);
  struct hyfft_plan_s *p = st == HYFFT_SUCCESS ? hy_calloc(1, sizeof *p) : NULL;
  if (st == HYFFT_SUCCESS && !p) st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a plan");
  if (st != HYFFT_SUCCESS) {
    hy_conv_free(ctx, c);
    return st;
  }
  /* The plan's problem: the forward's canonical one, with the caller's
   * description, in-place flag and memory. */
  p->problem = fcanon;
  hy_problem_copy_public(&p->problem.user, &u);
  p->problem.inplace = u.inplace;
  p->problem.memory = u.memory;
  p->problem.scale = u.scale != 0 ? u.scale : 1.0;
  p->context = ctx;
  c->in_bytes = (size_t)fcanon.in_extent * hy_problem_in_elem_size(&fcanon);
  c->out_bytes = (size_t)(bk * n_total) * (c->real ? es / 2 : es);
  pthread_mutex_init(&c->lock, NULL);
  pthread_mutex_init(&p->work_lock, NULL);
  p->conv = c;
  atomic_fetch_add(&ctx->refs, 1);
  *out = p;
  return HYFFT_SUCCESS;
}

void hy_conv_destroy(struct hyfft_plan_s *plan) {
  struct hy_conv *c = plan->conv;
  if (!c) return;
  pthread_mutex_destroy(&c->lock);
  hy_conv_free(plan->context, c);
  plan->conv = NULL;
}

int64_t hy_conv_filters(const struct hyfft_plan_s *plan) {
  return plan->conv ? plan->conv->filters : 0;
}

int hy_conv_fused(const struct hyfft_plan_s *plan) {
  return plan->conv && plan->conv->fused;
}

/* ---- execution --------------------------------------------------------------- */

/* The sub-plans over device buffers `in` and `out` (host memory on the
 * CPU backend, where they run through hy_exec_dispatch for its callbacks
 * and batch chunks). */
static hy_status hy_conv_device(struct hyfft_plan_s *plan, const void *in, void *out,
                                void *queue) {
  struct hy_conv *c = plan->conv;
  hyfft_context ctx = plan->context;
  int cpu = ctx->backend->id == HYFFT_BACKEND_CPU;
  struct hyfft_plan_s *step[3] = {c->fwd, c->fused ? c->inv : c->mul, c->fused ? NULL : c->inv};
  const void *src[3] = {in, c->t, c->u};
  void *dst[3] = {c->t, c->fused ? out : c->u, out};
  pthread_mutex_lock(&c->lock);
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < 3 && st == HYFFT_SUCCESS && step[i]; i++)
    st = cpu ? hy_exec_dispatch(step[i], src[i], dst[i], NULL, NULL)
             : hy_exec_direct(step[i], src[i], dst[i], NULL, queue);
  /* The next execution may reuse t and u once this one is done. */
  if (st == HYFFT_SUCCESS && !cpu) st = ctx->backend->synchronize(ctx->device, queue);
  pthread_mutex_unlock(&c->lock);
  return st;
}

hy_status hy_conv_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue) {
  struct hy_conv *c = plan->conv;
  hyfft_context ctx = plan->context;
  const hy_backend *b = ctx->backend;
  if (!in) return hy_error(HYFFT_NULL_POINTER, "input pointer is NULL");
  if (!out) return hy_error(HYFFT_NULL_POINTER, "output pointer is NULL");
  if (plan->problem.inplace && in != out)
    return hy_error(HYFFT_INVALID_ARGUMENT,
                    "the plan is in-place but input and output differ (%p, %p)", in, out);
  if (!plan->problem.inplace && in == out)
    return hy_error(HYFFT_ALIASING, "the convolution plan is out-of-place but input and output "
                    "are the same buffer");
  HY_TRY(hy_exec_check_memory(plan, in, "input", c->in_bytes));
  if (out != in) HY_TRY(hy_exec_check_memory(plan, out, "output", c->out_bytes));
  int addresses = plan->problem.memory == HYFFT_MEMORY_HOST || b->id != HYFFT_BACKEND_OPENCL;
  if (addresses && in != out) {
    uintptr_t x = (uintptr_t)in, y = (uintptr_t)out;
    if (x < y + c->out_bytes && y < x + c->in_bytes)
      return hy_error(HYFFT_ALIASING, "input [%p, +%zu bytes) and output [%p, +%zu bytes) "
                      "overlap", in, c->in_bytes, out, c->out_bytes);
  }
  if (plan->problem.memory == HYFFT_MEMORY_DEVICE || b->id == HYFFT_BACKEND_CPU)
    return hy_conv_device(plan, in, out, queue);
  /* Host data on a GPU: copied whole to the device and back on each call
   * (the output is contiguous: no gaps to keep). */
  void *din = NULL, *dout = NULL;
  hy_status st = b->alloc(ctx->device, c->in_bytes, &din);
  if (st == HYFFT_SUCCESS) st = b->write(ctx->device, queue, din, 0, in, c->in_bytes, 0);
  if (st == HYFFT_SUCCESS) st = b->alloc(ctx->device, c->out_bytes, &dout);
  if (st == HYFFT_SUCCESS) st = hy_conv_device(plan, din, dout, queue);
  if (st == HYFFT_SUCCESS) st = b->read(ctx->device, queue, dout, 0, out, c->out_bytes, 1);
  if (dout) b->release(ctx->device, dout);
  if (din) b->release(ctx->device, din);
  return st;
}

hy_status hy_conv_wait(struct hyfft_plan_s *plan) {
  struct hy_conv *c = plan->conv;
  HY_TRY(hy_exec_plan_wait(c->fwd));
  if (c->mul) HY_TRY(hy_exec_plan_wait(c->mul));
  return hy_exec_plan_wait(c->inv);
}

/* ---- description ------------------------------------------------------------- */

static void hy_conv_sub_describe(const char *what, const struct hyfft_plan_s *sub,
                                 hy_strbuf *sb) {
  hy_strbuf_appendf(sb, "  %s: ", what);
  hy_token_print(&sub->problem.user, sb);
  hy_strbuf_append(sb, "\n");
  if (sub->chunks)
    hy_chunks_describe(sub, sb);
  else
    hy_plan_tree_describe(&sub->tree, sb);
}

void hy_conv_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_conv *c = plan->conv;
  int cpu = plan->context->backend->id == HYFFT_BACKEND_CPU;
  hy_strbuf_appendf(sb, "  convolution: %lld filter%s x %lld signal%s (%s), %lld spectrum "
                    "elements each; output [batch][filter][signal], normalised\n",
                    (long long)c->filters, c->filters == 1 ? "" : "s", (long long)c->batch,
                    c->batch == 1 ? "" : "s", c->real ? "real" : "complex",
                    (long long)c->spectrum);
  if (c->fused)
    hy_strbuf_appendf(sb, "  pointwise: fused into the inverse's first pass (its load "
                      "callback%s)\n", cpu ? ", a C function over its input" : ", generated");
  else
    hy_strbuf_appendf(sb, "  pointwise: a separate pass (%s)\n", c->why);
  hy_conv_sub_describe("forward", c->fwd, sb);
  if (c->mul) hy_conv_sub_describe("pointwise pass", c->mul, sb);
  hy_conv_sub_describe("inverse", c->inv, sb);
}

static hy_status hy_conv_sub_source(const struct hyfft_plan_s *sub, hy_strbuf *sb) {
  if (sub->chunks) return hy_chunks_source(sub, sb);
  return sub->context->backend->plan_source(sub->context->device, sub->backend_state, sb);
}

hy_status hy_conv_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_conv *c = plan->conv;
  HY_TRY(hy_conv_sub_source(c->fwd, sb));
  if (c->mul) HY_TRY(hy_conv_sub_source(c->mul, sb));
  return hy_conv_sub_source(c->inv, sb);
}

/* ---- tokens ------------------------------------------------------------------- */

hy_status hy_conv_token_parse(const char *token, hyfft_problem *problem, int64_t *filters) {
  if (strncmp(token, "conv:", 5) != 0)
    return hy_error(HYFFT_INVALID_TOKEN, "convolution token '%s' does not start with 'conv:'",
                    token);
  const char *kind = token + 5;
  int real;
  if (strncmp(kind, "c2c:", 4) == 0)
    real = 0;
  else if (strncmp(kind, "r2c:", 4) == 0)
    real = 1;
  else
    return hy_error(HYFFT_INVALID_TOKEN, "convolution token '%s': at position 5, '%.8s' is not "
                    "'c2c' or 'r2c'", token, kind);
  const char *rest = kind + 4; /* PREC ':' SHAPE {':' FIELD} */
  hy_strbuf inner;
  hy_strbuf_init(&inner);
  hy_strbuf_append(&inner, real ? "r2c" : "c2c");
  int64_t k = 0;
  int inplace = 0, part = 0;
  hy_status st = HYFFT_SUCCESS;
  for (const char *a = rest; st == HYFFT_SUCCESS;) {
    const char *e = strchr(a, ':');
    size_t len = e ? (size_t)(e - a) : strlen(a);
    long pos = (long)(a - token);
    if (part >= 2 && len >= 2 && a[0] == 'k' && a[1] >= '0' && a[1] <= '9') {
      if (k)
        st = hy_error(HYFFT_INVALID_TOKEN, "convolution token '%s': at position %ld, a second "
                      "'k' field", token, pos);
      int64_t val = 0;
      for (size_t i = 1; i < len && st == HYFFT_SUCCESS; i++) {
        if (a[i] < '0' || a[i] > '9' || hy_mul_overflow_i64(val, 10, &val) ||
            hy_add_overflow_i64(val, a[i] - '0', &val))
          st = hy_error(HYFFT_INVALID_TOKEN, "convolution token '%s': at position %ld, '%.*s' "
                        "is not a filter count kN", token, pos, (int)len, a);
      }
      if (st == HYFFT_SUCCESS && val < 1)
        st = hy_error(HYFFT_INVALID_TOKEN, "convolution token '%s': at position %ld, the "
                      "filter count is 0", token, pos);
      k = val;
    } else if (part >= 2 && len == 2 && strncmp(a, "ip", 2) == 0) {
      if (inplace)
        st = hy_error(HYFFT_INVALID_TOKEN, "convolution token '%s': at position %ld, a second "
                      "'ip'", token, pos);
      inplace = 1;
    } else if (part >= 1 && ((len >= 3 && strncmp(a, "os=", 3) == 0) ||
                             (len >= 6 && strncmp(a, "odist=", 6) == 0) ||
                             (len == 3 && (strncmp(a, "fwd", 3) == 0 ||
                                           strncmp(a, "bwd", 3) == 0)))) {
      st = hy_error(HYFFT_INVALID_TOKEN, "convolution token '%s': at position %ld, '%.*s': a "
                    "convolution has no direction and a contiguous output", token, pos,
                    (int)len, a);
    } else {
      hy_strbuf_appendf(&inner, ":%.*s", (int)len, a);
      /* c2c tokens name a direction after the precision. */
      if (part == 0 && !real) hy_strbuf_append(&inner, ":fwd");
    }
    part++;
    if (!e) break;
    a = e + 1;
  }
  if (st == HYFFT_SUCCESS) st = hy_strbuf_status(&inner);
  hyfft_problem p;
  if (st == HYFFT_SUCCESS) {
    st = hy_token_parse(inner.data, &p);
    if (st != HYFFT_SUCCESS)
      st = hy_error(st, "convolution token '%s': %s", token, hyfft_last_error());
  }
  hy_strbuf_free(&inner);
  if (st != HYFFT_SUCCESS) return st;
  p.inplace = inplace;
  *problem = p;
  *filters = k ? k : 1;
  return HYFFT_SUCCESS;
}

void hy_conv_token_print(const hyfft_problem *problem, int64_t filters, hy_strbuf *sb) {
  /* The plain token of the signals, out of place with the default output
   * layout, then cut into parts: kind, precision, [direction], shape,
   * [batch], fields. */
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  hy_problem_copy_public(&p, problem);
  p.sign = HYFFT_FORWARD;
  p.inplace = 0;
  hyfft_problem q = p;
  int64_t len[HYFFT_MAX_RANK], entry;
  int ok = p.rank >= 1 && p.rank <= HYFFT_MAX_RANK && p.batch_rank >= 0 &&
           p.batch_rank <= HYFFT_MAX_BATCH_RANK;
  for (int d = 0; ok && d < p.rank; d++) {
    len[d] = p.dims[d].n;
    if (d == p.rank - 1 && p.kind == HYFFT_R2C) len[d] = len[d] / 2 + 1;
  }
  if (ok && hy_conv_contiguous(&q, len, 1, &entry) == HYFFT_SUCCESS) p = q;
  hy_error_clear();
  hy_strbuf plain;
  hy_strbuf_init(&plain);
  hy_token_print(&p, &plain);
  const char *t = plain.data ? plain.data : "";
  hy_strbuf_append(sb, "conv:");
  int part = 0, k_done = 0;
  int skip_dir = p.kind == HYFFT_C2C;
  for (const char *a = t;;) {
    const char *e = strchr(a, ':');
    size_t n = e ? (size_t)(e - a) : strlen(a);
    int is_batch = part >= 3 && n >= 2 && a[0] == 'b' && a[1] >= '0' && a[1] <= '9';
    int is_shape_or_before = part < 3 + skip_dir;
    if (!is_shape_or_before && !is_batch && !k_done) {
      hy_strbuf_appendf(sb, ":k%lld", (long long)filters);
      if (problem->inplace) hy_strbuf_append(sb, ":ip");
      k_done = 1;
    }
    if (!(skip_dir && part == 2)) hy_strbuf_appendf(sb, "%s%.*s", part ? ":" : "", (int)n, a);
    part++;
    if (!e) break;
    a = e + 1;
  }
  if (!k_done) {
    hy_strbuf_appendf(sb, ":k%lld", (long long)filters);
    if (problem->inplace) hy_strbuf_append(sb, ":ip");
  }
  hy_strbuf_free(&plain);
}
