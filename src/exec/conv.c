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

/* A gather of one element: the load callback of the zero padding (the
 * first transform's input: index over the n-point layout, read from the
 * compact in_len layout, zero outside) and of the crop pass (index over
 * the compact out_len layout, read from the full output at out_start +
 * the coordinates). `len` decomposes the index, `lim` bounds the held
 * coordinates (padding; else len), `start` shifts them, `stride` and
 * `entry` place them in the source. */
typedef struct hy_gather {
  int rank;
  int64_t len[HYFFT_MAX_RANK], lim[HYFFT_MAX_RANK], start[HYFFT_MAX_RANK];
  int64_t stride[HYFFT_MAX_RANK];
  int64_t entry_index, entry_src; /* elements of one batch entry: index space, source */
  size_t value_bytes, src_bytes;  /* src_bytes < value_bytes: a real into a complex value */
} hy_gather;

struct hy_conv {
  int64_t filters, batch, spectrum; /* K (0: a plain windowed transform), B, S */
  int real;                         /* real signals / R2C */
  int fused;                        /* 1: the inverse's load callback multiplies */
  char why[256];                    /* not fused: the reason */
  int pad, crop;                    /* a window on the input / output */
  hyfft_window window;              /* its lengths (zeros replaced) */
  hyfft_window user_window;         /* as given (zeros: none) */
  struct hyfft_plan_s *fwd, *mul, *inv, *cut;
  void *spectra; /* K x S complex, on the device */
  void *t;       /* B x S complex: the forward's output */
  void *u;       /* B x K x S complex: the pointwise pass's output (not fused) */
  void *full;    /* the whole output before the crop (crop only) */
  size_t in_bytes, out_bytes; /* the caller's extents */
  pthread_mutex_t lock;       /* one execution at a time on t, u and full */
  hy_conv_cpu cpu;
  hy_gather pad_g, crop_g; /* the CPU load functions' arguments */
};

static void hy_gather_load(void *value, const void *in, int64_t index, void *user) {
  const hy_gather *g = user;
  int64_t r = index % g->entry_index, b = index / g->entry_index, off = 0;
  memset(value, 0, g->value_bytes);
  for (int d = g->rank - 1; d >= 0; d--) {
    int64_t c = r % g->len[d];
    r /= g->len[d];
    if (c >= g->lim[d]) return;
    off += (c + g->start[d]) * g->stride[d];
  }
  memcpy(value, (const char *)in + (size_t)(b * g->entry_src + off) * g->src_bytes, g->src_bytes);
}

/* The same gather as generated source: the body of hy_load_cb. */
static void hy_gather_snippet(const hy_gather *g, int real_value, hy_strbuf *sb) {
  int widen = g->src_bytes < g->value_bytes && !real_value;
  const char *zero = real_value ? "(real)0" : "MK((real)0, (real)0)";
  if (widen) hy_strbuf_append(sb, "const HY_GLOBAL real *src = (const HY_GLOBAL real *)in;\n");
  hy_strbuf_appendf(sb, "hy_i64 r = index %% (hy_i64)%lld, o = 0, c;\n", (long long)g->entry_index);
  for (int d = g->rank - 1; d >= 0; d--) {
    hy_strbuf_appendf(sb, "c = r %% (hy_i64)%lld; r /= (hy_i64)%lld;", (long long)g->len[d],
                      (long long)g->len[d]);
    if (g->lim[d] < g->len[d])
      hy_strbuf_appendf(sb, " if (c >= (hy_i64)%lld) return %s;", (long long)g->lim[d], zero);
    hy_strbuf_appendf(sb, " o += (c + (hy_i64)%lld) * (hy_i64)%lld;\n", (long long)g->start[d],
                      (long long)g->stride[d]);
  }
  hy_strbuf_appendf(sb, "o += (index / (hy_i64)%lld) * (hy_i64)%lld;\n", (long long)g->entry_index,
                    (long long)g->entry_src);
  if (widen)
    hy_strbuf_append(sb, "return MK(src[o], (real)0);\n");
  else
    hy_strbuf_append(sb, "return in[o];\n");
}

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
                               int64_t filters, int conv) {
  const char *what = conv ? "convolution" : "window";
  if (ctx->n_sub > 0)
    return hy_error(HYFFT_NOT_SUPPORTED, "%s: a multi-device context does not run these plans "
                    "yet; use one device", what);
  if (u->kind != HYFFT_C2C && u->kind != HYFFT_R2C)
    return hy_error(HYFFT_INVALID_KIND, "%s: kind %d; HYFFT_C2C (complex data) or HYFFT_R2C "
                    "(real data) is taken", what, (int)u->kind);
  if (u->precision == HYFFT_F16 || u->precision == HYFFT_BF16)
    return hy_error(HYFFT_NOT_SUPPORTED, "%s: %s storage is not supported (f32 and f64)", what,
                    u->precision == HYFFT_F16 ? "f16" : "bf16");
  if (u->precision != HYFFT_F32 && u->precision != HYFFT_F64)
    return hy_error(HYFFT_INVALID_PRECISION, "%s: precision %d is not f32 or f64", what,
                    (int)u->precision);
  if (u->rank < 1 || u->rank > 3)
    return hy_error(HYFFT_INVALID_RANK, "%s: rank %d is outside 1..3", what, u->rank);
  if (u->batch_rank < 0 || u->batch_rank > HYFFT_MAX_BATCH_RANK)
    return hy_error(HYFFT_INVALID_RANK, "%s: batch_rank %d is outside 0..%d", what,
                    u->batch_rank, HYFFT_MAX_BATCH_RANK);
  for (int d = 0; d < u->rank + u->batch_rank; d++) {
    const hyfft_dim *dim = d < u->rank ? &u->dims[d] : &u->batch[d - u->rank];
    if (dim->n < 1)
      return hy_error(HYFFT_INVALID_SIZE, "%s: %s[%d].n = %lld is not positive", what,
                      d < u->rank ? "dims" : "batch", d < u->rank ? d : d - u->rank,
                      (long long)dim->n);
  }
  if (conv && filters < 1)
    return hy_error(HYFFT_INVALID_SIZE, "convolution: filters = %lld; at least one kernel is "
                    "needed", (long long)filters);
  if (u->memory != HYFFT_MEMORY_HOST && u->memory != HYFFT_MEMORY_DEVICE)
    return hy_error(HYFFT_INVALID_ARGUMENT, "%s: memory %d is neither host nor device", what,
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

/* The padding's gather: index over the n-point signals, read from the
 * in_len layout (`w` with its lengths filled). */
static void hy_conv_pad_gather(const hyfft_problem *u, const hyfft_window *w, hy_gather *g) {
  size_t es = u->precision == HYFFT_F64 ? 16 : 8;
  memset(g, 0, sizeof *g);
  g->rank = u->rank;
  int64_t acc = 1, n_total = 1;
  for (int d = u->rank - 1; d >= 0; d--) {
    g->len[d] = u->dims[d].n;
    g->lim[d] = w->in_len[d];
    g->stride[d] = acc;
    acc *= w->in_len[d];
    n_total *= u->dims[d].n;
  }
  g->entry_index = n_total;
  g->entry_src = acc;
  g->value_bytes = g->src_bytes = u->kind == HYFFT_R2C ? es / 2 : es;
}

/* The crop's gather: index over the out_len window, read from the whole
 * output (conv: n points of the input's element type; plain: the
 * transform's output, complex). */
static void hy_conv_crop_gather(const hyfft_problem *u, int conv, const hyfft_window *w,
                                hy_gather *g) {
  size_t es = u->precision == HYFFT_F64 ? 16 : 8;
  memset(g, 0, sizeof *g);
  g->rank = u->rank;
  int64_t acc = 1, o_total = 1;
  for (int d = u->rank - 1; d >= 0; d--) {
    int64_t olen = u->dims[d].n;
    if (!conv && u->kind == HYFFT_R2C && d == u->rank - 1) olen = olen / 2 + 1;
    g->len[d] = g->lim[d] = w->out_len[d];
    g->start[d] = w->out_start[d];
    g->stride[d] = acc;
    acc *= olen;
    o_total *= w->out_len[d];
  }
  g->entry_index = o_total;
  g->entry_src = acc;
  g->value_bytes = es;
  g->src_bytes = conv && u->kind == HYFFT_R2C ? es / 2 : es;
}

/* The crop pass's problem: `entries` x o_total elements, rank 0, device
 * data; C2C, or a length-1 C2R for a real output (its complex input the
 * gather fills with the real and a zero). */
static void hy_conv_crop_problem(const hyfft_problem *u, int conv, int64_t entries,
                                 int64_t o_total, hyfft_problem *m) {
  int real_out = conv && u->kind == HYFFT_R2C;
  memset(m, 0, sizeof *m);
  m->kind = real_out ? HYFFT_C2R : HYFFT_C2C;
  m->sign = real_out ? HYFFT_BACKWARD : HYFFT_FORWARD;
  m->precision = u->precision;
  m->rank = 1;
  m->dims[0] = (hyfft_dim){1, 1, 1};
  m->batch_rank = 1;
  m->batch[0] = (hyfft_dim){entries * o_total, 1, 1};
  m->memory = HYFFT_MEMORY_DEVICE;
}

/* ---- creation ---------------------------------------------------------------- */

static void hy_conv_free(struct hyfft_context_s *ctx, struct hy_conv *c) {
  if (!c) return;
  struct hyfft_plan_s *subs[4] = {c->fwd, c->mul, c->inv, c->cut};
  for (int i = 0; i < 4; i++)
    if (subs[i]) hy_exec_plan_destroy(subs[i]);
  void *bufs[4] = {c->spectra, c->t, c->u, c->full};
  for (int i = 0; i < 4; i++)
    if (bufs[i]) ctx->backend->release(ctx->device, bufs[i]);
  free(c);
}

/* The multiply as callbacks: a generated snippet on a GPU, the C function
 * on the CPU. */
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

/* A gather as callbacks: a generated snippet on a GPU, the C function on
 * the CPU. `text` keeps the snippet alive until the plan copies it. */
static hy_status hy_gather_callbacks(struct hyfft_context_s *ctx, hy_gather *g, int real_value,
                                     hy_strbuf *text, hyfft_callbacks *cb) {
  memset(cb, 0, sizeof *cb);
  if (ctx->backend->id == HYFFT_BACKEND_CPU) {
    cb->load_fn = hy_gather_load;
    cb->load_user = g;
    return HYFFT_SUCCESS;
  }
  hy_gather_snippet(g, real_value, text);
  cb->load_source = text->data;
  return hy_strbuf_status(text);
}

/* The window checked against the signal problem; c->pad, c->crop and the
 * lengths filled (zeros replaced). `out_len` are the lengths of the
 * output side the crop applies to. */
static hy_status hy_conv_window(const hyfft_problem *u, const hyfft_window *w,
                                const int64_t *out_full, struct hy_conv *c) {
  memset(&c->window, 0, sizeof c->window);
  memset(&c->user_window, 0, sizeof c->user_window);
  if (!w) return HYFFT_SUCCESS;
  for (int d = 0; d < u->rank; d++) {
    c->user_window.in_len[d] = w->in_len[d];
    c->user_window.out_start[d] = w->out_start[d];
    c->user_window.out_len[d] = w->out_len[d];
  }
  for (int d = 0; d < u->rank; d++) {
    int64_t m = w->in_len[d] ? w->in_len[d] : u->dims[d].n;
    if (m < 1 || m > u->dims[d].n)
      return hy_error(HYFFT_INVALID_SIZE, "window: in_len[%d] = %lld is outside 1..n = %lld",
                      d, (long long)w->in_len[d], (long long)u->dims[d].n);
    int64_t st = w->out_start[d], len = w->out_len[d] ? w->out_len[d] : out_full[d] - st;
    if (st < 0 || st >= out_full[d] || len < 1 || len > out_full[d] - st)
      return hy_error(HYFFT_INVALID_SIZE, "window: out_start[%d] = %lld and out_len[%d] = %lld "
                      "do not fit the %lld output elements of that dim", d, (long long)st, d,
                      (long long)w->out_len[d], (long long)out_full[d]);
    c->window.in_len[d] = m;
    c->window.out_start[d] = st;
    c->window.out_len[d] = len;
    c->pad |= m != u->dims[d].n;
    c->crop |= st != 0 || len != out_full[d];
  }
  return HYFFT_SUCCESS;
}

hy_status hy_conv_window_programs(const hyfft_problem *u, int64_t filters,
                                  const hyfft_window *window, hy_strbuf *pad, hy_strbuf *crop,
                                  hyfft_problem *crop_problem) {
  struct hy_conv c;
  memset(&c, 0, sizeof c);
  int conv = filters != 0;
  int64_t olen[HYFFT_MAX_RANK], o_total = 1, batch = 1;
  for (int d = 0; d < u->rank; d++)
    olen[d] = !conv && u->kind == HYFFT_R2C && d == u->rank - 1 ? u->dims[d].n / 2 + 1
                                                                : u->dims[d].n;
  HY_TRY(hy_conv_window(u, window, olen, &c));
  for (int d = 0; d < u->rank; d++) o_total *= c.window.out_len[d];
  for (int d = 0; d < u->batch_rank; d++) batch *= u->batch[d].n;
  hy_gather g;
  if (c.pad) {
    hy_conv_pad_gather(u, &c.window, &g);
    hy_gather_snippet(&g, u->kind == HYFFT_R2C, pad);
  }
  if (c.crop) {
    hy_conv_crop_gather(u, conv, &c.window, &g);
    hy_gather_snippet(&g, 0, crop);
    hy_conv_crop_problem(u, conv, batch * (conv ? filters : 1), o_total, crop_problem);
  }
  return HYFFT_SUCCESS;
}

hy_status hy_conv_create(struct hyfft_context_s *ctx, const hyfft_problem *user, int64_t filters,
                         const void *spectra, size_t spectra_bytes, const hyfft_window *window,
                         unsigned flags, struct hyfft_plan_s **out) {
  hyfft_problem u;
  memset(&u, 0, sizeof u);
  hy_problem_copy_public(&u, user);
  int conv = filters != 0;
  HY_TRY(hy_conv_check(ctx, &u, filters, conv));
  int64_t s = hy_conv_spectrum_elems(&u);
  size_t es = u.precision == HYFFT_F64 ? 16 : 8;
  int64_t spec_total = 0;
  if (conv) {
    if (s < 0 || hy_mul_overflow_i64(s, filters, &spec_total) ||
        (uint64_t)spec_total > SIZE_MAX / es)
      return hy_error(HYFFT_SIZE_OVERFLOW, "convolution: %lld spectra overflow 64-bit sizes",
                      (long long)filters);
    if (spectra_bytes != (size_t)spec_total * es)
      return hy_error(HYFFT_INVALID_SIZE, "convolution: spectra_bytes = %zu, but %lld %s spectra "
                      "of %lld complex elements take %zu bytes", spectra_bytes, (long long)filters,
                      u.precision == HYFFT_F64 ? "f64" : "f32", (long long)s,
                      (size_t)spec_total * es);
  }
  /* Lengths: n (the signals), slen (the spectrum, the output of a plain
   * R2C), and the output side's (conv: n; plain: slen). */
  int64_t nlen[HYFFT_MAX_RANK], slen[HYFFT_MAX_RANK], olen[HYFFT_MAX_RANK];
  for (int d = 0; d < u.rank; d++) nlen[d] = slen[d] = u.dims[d].n;
  if (u.kind == HYFFT_R2C) slen[u.rank - 1] = nlen[u.rank - 1] / 2 + 1;
  for (int d = 0; d < u.rank; d++) olen[d] = conv ? nlen[d] : slen[d];
  struct hy_conv *c = hy_calloc(1, sizeof *c);
  if (!c) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a convolution plan");
  hy_status st = hy_conv_window(&u, window, olen, c);
  if (st == HYFFT_SUCCESS && u.inplace && (c->pad || c->crop))
    st = hy_error(HYFFT_INPLACE_LAYOUT, "window: a padded input or cropped output is a buffer "
                  "of its own size; plan out of place");
  if (st != HYFFT_SUCCESS) {
    free(c);
    return st;
  }
  c->filters = filters;
  c->spectrum = s;
  c->real = u.kind == HYFFT_R2C;
  int64_t batch = 1, n_total = 1, m_total = 1, o_total = 1, full_total = 1;
  for (int d = 0; d < u.batch_rank; d++) batch *= u.batch[d].n; /* bounded below */
  for (int d = 0; d < u.rank; d++) {
    n_total *= nlen[d];
    m_total *= c->pad ? c->window.in_len[d] : nlen[d];
    o_total *= c->crop ? c->window.out_len[d] : olen[d];
    full_total *= olen[d];
  }
  c->batch = batch;

  /* The first transform: the caller's input layout (a padded one is read
   * by the gather, the plan seeing n contiguous points), into the B x S
   * spectrum (conv), the full output (crop) or the caller's output. */
  hyfft_problem f = u;
  if (conv) {
    f.sign = HYFFT_FORWARD;
    f.scale = 0;
  }
  f.inplace = conv || c->pad || c->crop ? 0 : u.inplace;
  f.memory = HYFFT_MEMORY_DEVICE;
  int64_t entry = 0;
  if (c->pad) st = hy_conv_contiguous(&f, nlen, 0, &entry);
  if (st == HYFFT_SUCCESS && (conv || c->crop)) st = hy_conv_contiguous(&f, slen, 1, &entry);
  /* In place: the output (K = 1) lies where the input does, contiguous. */
  if (st == HYFFT_SUCCESS && conv && u.inplace) {
    if (filters != 1)
      st = hy_error(HYFFT_INPLACE_LAYOUT, "convolution: in place needs filters == 1; %lld "
                    "filters write %lld outputs per input", (long long)filters,
                    (long long)filters);
    hyfft_problem dense = u;
    int64_t e2;
    if (st == HYFFT_SUCCESS) st = hy_conv_contiguous(&dense, nlen, 0, &e2);
    for (int d = 0; d < u.rank + u.batch_rank && st == HYFFT_SUCCESS; d++) {
      const hyfft_dim *a = d < u.rank ? &u.dims[d] : &u.batch[d - u.rank];
      const hyfft_dim *b = d < u.rank ? &dense.dims[d] : &dense.batch[d - u.rank];
      if (a->in_stride != b->in_stride)
        st = hy_error(HYFFT_INPLACE_LAYOUT, "convolution: in place needs a contiguous input "
                      "(the output's layout); %s[%d].in_stride = %lld, not %lld",
                      d < u.rank ? "dims" : "batch", d < u.rank ? d : d - u.rank,
                      (long long)a->in_stride, (long long)b->in_stride);
    }
  }
  hy_problem fcanon;
  if (st == HYFFT_SUCCESS) st = hy_problem_make(&f, &fcanon);
  int64_t bk = batch * (conv ? filters : 1);
  if (st == HYFFT_SUCCESS &&
      (hy_mul_overflow_i64(batch, conv ? filters : 1, &bk) ||
       hy_mul_overflow_i64(bk, n_total > s ? n_total : s, &(int64_t){0})))
    st = hy_error(HYFFT_SIZE_OVERFLOW, "convolution: %lld signals x %lld filters overflow int64",
                  (long long)batch, (long long)filters);
  hyfft_problem v;
  if (st == HYFFT_SUCCESS && conv) st = hy_conv_inverse_problem(&u, filters, &v);
  if (st != HYFFT_SUCCESS) {
    free(c);
    return st;
  }

  unsigned sub_flags = flags & (HYFFT_MEASURE | HYFFT_OWN_WORKSPACE);
  const hy_backend *b = ctx->backend;
  hy_strbuf text[3];
  for (int i = 0; i < 3; i++) hy_strbuf_init(&text[i]);
  hyfft_callbacks cb;
  /* The first transform, with the zero padding as its load callback. */
  if (c->pad) {
    hy_gather *g = &c->pad_g;
    hy_conv_pad_gather(&u, &c->window, g);
    st = hy_gather_callbacks(ctx, g, c->real, &text[0], &cb);
    if (st == HYFFT_SUCCESS) st = hy_exec_plan_create_cb(ctx, &f, sub_flags, &cb, &c->fwd);
  } else {
    st = hy_exec_plan_create(ctx, &f, sub_flags, NULL, &c->fwd);
  }
  if (st == HYFFT_SUCCESS && conv) {
    st = b->alloc(ctx->device, (size_t)spec_total * es, &c->spectra);
    if (st == HYFFT_SUCCESS)
      st = b->write(ctx->device, NULL, c->spectra, 0, spectra, (size_t)spec_total * es, 1);
    if (st == HYFFT_SUCCESS) st = b->alloc(ctx->device, (size_t)(batch * s) * es, &c->t);
    c->cpu.spectra = c->spectra;
    c->cpu.s = s;
    c->cpu.k = filters;
    hy_conv_snippet(s, filters, &text[1]);
    if (st == HYFFT_SUCCESS) st = hy_strbuf_status(&text[1]);
    hy_conv_callbacks(ctx, c, u.precision, text[1].data, &cb);
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
  }
  /* The crop: a rank-0 pass gathering the window from the full output
   * (complex elements; a real output goes through a length-1 C2R, whose
   * complex input the gather fills with the real and a zero). */
  int real_out = conv && c->real;
  size_t out_es = real_out ? es / 2 : es;
  if (st == HYFFT_SUCCESS && c->crop) {
    st = b->alloc(ctx->device, (size_t)(bk * full_total) * out_es, &c->full);
    hy_gather *g = &c->crop_g;
    hy_conv_crop_gather(&u, conv, &c->window, g);
    hyfft_problem m;
    hy_conv_crop_problem(&u, conv, bk, o_total, &m);
    if (st == HYFFT_SUCCESS) st = hy_gather_callbacks(ctx, g, 0, &text[2], &cb);
    if (st == HYFFT_SUCCESS) st = hy_exec_plan_create_cb(ctx, &m, 0, &cb, &c->cut);
  }
  for (int i = 0; i < 3; i++) hy_strbuf_free(&text[i]);
  struct hyfft_plan_s *p = st == HYFFT_SUCCESS ? hy_calloc(1, sizeof *p) : NULL;
  if (st == HYFFT_SUCCESS && !p) st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a plan");
  if (st != HYFFT_SUCCESS) {
    hy_conv_free(ctx, c);
    return st;
  }
  /* The plan's problem: the first transform's canonical one, with the
   * caller's description, in-place flag and memory. */
  p->problem = fcanon;
  hy_problem_copy_public(&p->problem.user, &u);
  p->problem.inplace = u.inplace;
  p->problem.memory = u.memory;
  p->problem.scale = u.scale != 0 ? u.scale : 1.0;
  p->context = ctx;
  size_t in_es = c->real ? es / 2 : es;
  c->in_bytes = c->pad ? (size_t)(batch * m_total) * in_es
                       : (size_t)fcanon.in_extent * hy_problem_in_elem_size(&fcanon);
  c->out_bytes = c->crop ? (size_t)(bk * o_total) * out_es
                 : conv  ? (size_t)(bk * n_total) * out_es
                         : (size_t)fcanon.out_extent * hy_problem_out_elem_size(&fcanon);
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

void hy_conv_window_get(const struct hyfft_plan_s *plan, hyfft_window *window) {
  if (plan->conv)
    *window = plan->conv->user_window;
  else
    memset(window, 0, sizeof *window);
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
  /* The chain: forward [, multiply], inverse (convolutions) [, crop],
   * each step reading what the one before wrote. */
  struct hyfft_plan_s *step[5];
  const void *src[5];
  void *dst[5];
  int n = 0;
  void *last = c->crop ? c->full : out;
  step[n] = c->fwd;
  src[n] = in;
  dst[n++] = c->filters ? c->t : last;
  if (c->mul) {
    step[n] = c->mul;
    src[n] = c->t;
    dst[n++] = c->u;
  }
  if (c->inv) {
    step[n] = c->inv;
    src[n] = c->mul ? c->u : c->t;
    dst[n++] = last;
  }
  if (c->cut) {
    step[n] = c->cut;
    src[n] = c->full;
    dst[n++] = out;
  }
  pthread_mutex_lock(&c->lock);
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < n && st == HYFFT_SUCCESS; i++)
    st = cpu ? hy_exec_dispatch(step[i], src[i], dst[i], NULL, NULL)
             : hy_exec_direct(step[i], src[i], dst[i], NULL, queue);
  /* The next execution may reuse t, u and full once this one is done. */
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
  struct hyfft_plan_s *subs[4] = {c->fwd, c->mul, c->inv, c->cut};
  for (int i = 0; i < 4; i++)
    if (subs[i]) HY_TRY(hy_exec_plan_wait(subs[i]));
  return HYFFT_SUCCESS;
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

static void hy_conv_lens(hy_strbuf *sb, const char *label, const int64_t *v, int rank) {
  hy_strbuf_appendf(sb, "%s", label);
  for (int d = 0; d < rank; d++) hy_strbuf_appendf(sb, "%s%lld", d ? "x" : "", (long long)v[d]);
}

void hy_conv_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_conv *c = plan->conv;
  int cpu = plan->context->backend->id == HYFFT_BACKEND_CPU;
  int rank = plan->problem.user.rank;
  if (c->filters) {
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
  }
  if (c->pad) {
    hy_conv_lens(sb, "  zero padding: input ", c->window.in_len, rank);
    hy_strbuf_appendf(sb, " read by the first transform's first pass (its load callback%s); "
                      "the rest is zero\n", cpu ? ", a C function" : ", generated");
  }
  if (c->crop) {
    hy_conv_lens(sb, "  crop: output ", c->window.out_len, rank);
    hy_conv_lens(sb, " from ", c->window.out_start, rank);
    hy_strbuf_append(sb, ", a separate pass after the transform\n");
  }
  hy_conv_sub_describe(c->filters ? "forward" : "transform", c->fwd, sb);
  if (c->mul) hy_conv_sub_describe("pointwise pass", c->mul, sb);
  if (c->inv) hy_conv_sub_describe("inverse", c->inv, sb);
  if (c->cut) hy_conv_sub_describe("crop pass", c->cut, sb);
}

static hy_status hy_conv_sub_source(const struct hyfft_plan_s *sub, hy_strbuf *sb) {
  if (sub->chunks) return hy_chunks_source(sub, sb);
  return sub->context->backend->plan_source(sub->context->device, sub->backend_state, sb);
}

hy_status hy_conv_source(const struct hyfft_plan_s *plan, hy_strbuf *sb) {
  const struct hy_conv *c = plan->conv;
  struct hyfft_plan_s *subs[4] = {c->fwd, c->mul, c->inv, c->cut};
  for (int i = 0; i < 4; i++)
    if (subs[i]) HY_TRY(hy_conv_sub_source(subs[i], sb));
  return HYFFT_SUCCESS;
}

/* ---- tokens ------------------------------------------------------------------- */

/* A window field's list "AxBxC" into v (at most HYFFT_MAX_RANK entries);
 * the count, or -1 when the text is not such a list (zero allowed only
 * where `zero_ok`). */
static int hy_window_list(const char *a, size_t len, int zero_ok, int64_t *v) {
  int count = 0;
  size_t i = 0;
  while (i < len) {
    if (count == HYFFT_MAX_RANK || a[i] < '0' || a[i] > '9') return -1;
    int64_t x = 0;
    for (; i < len && a[i] >= '0' && a[i] <= '9'; i++)
      if (hy_mul_overflow_i64(x, 10, &x) || hy_add_overflow_i64(x, a[i] - '0', &x)) return -1;
    if (x == 0 && !zero_ok) return -1;
    v[count++] = x;
    if (i < len) {
      if (a[i] != 'x' || i + 1 == len) return -1;
      i++;
    }
  }
  return count;
}

typedef struct hy_window_fields {
  int pad_n, crop_n, start_n; /* list lengths; 0: the field is absent */
  hyfft_window w;
} hy_window_fields;

/* Whether the part is a window field: 1 taken (or *st an error), 0 not
 * one. */
static int hy_window_part(const char *token, const char *a, size_t len, long pos,
                          hy_window_fields *f, hy_status *st) {
  if (len >= 4 && strncmp(a, "pad=", 4) == 0) {
    if (f->pad_n)
      *st = hy_error(HYFFT_INVALID_TOKEN, "token '%s': at position %ld, a second 'pad='", token,
                     pos);
    else if ((f->pad_n = hy_window_list(a + 4, len - 4, 0, f->w.in_len)) <= 0)
      *st = hy_error(HYFFT_INVALID_TOKEN, "token '%s': at position %ld, '%.*s' is not "
                     "pad=LEN{xLEN}", token, pos, (int)len, a);
    return 1;
  }
  if (len >= 5 && strncmp(a, "crop=", 5) == 0) {
    const char *at = memchr(a, '@', len);
    size_t l1 = at ? (size_t)(at - a) - 5 : len - 5;
    if (f->crop_n)
      *st = hy_error(HYFFT_INVALID_TOKEN, "token '%s': at position %ld, a second 'crop='", token,
                     pos);
    else if ((f->crop_n = hy_window_list(a + 5, l1, 0, f->w.out_len)) <= 0 ||
             (at && (f->start_n = hy_window_list(at + 1, len - 6 - l1, 1, f->w.out_start)) !=
                        f->crop_n))
      *st = hy_error(HYFFT_INVALID_TOKEN, "token '%s': at position %ld, '%.*s' is not "
                     "crop=LEN{xLEN}[@START{xSTART}]", token, pos, (int)len, a);
    return 1;
  }
  return 0;
}

/* The window fields' lists against the parsed rank. */
static hy_status hy_window_finish(const char *token, const hy_window_fields *f, int rank,
                                  hyfft_window *window) {
  if ((f->pad_n && f->pad_n != rank) || (f->crop_n && f->crop_n != rank))
    return hy_error(HYFFT_INVALID_TOKEN, "token '%s': pad= and crop= list one length per "
                    "transform dim (%d)", token, rank);
  if ((f->pad_n || f->crop_n) && !window)
    return hy_error(HYFFT_INVALID_TOKEN, "token '%s': pad= and crop= need a caller that takes "
                    "a window (hyfft_problem_parse_window)", token);
  if (window) *window = f->w;
  return HYFFT_SUCCESS;
}

hy_status hy_window_token_parse(const char *token, hyfft_problem *problem, hyfft_window *window) {
  hy_strbuf inner;
  hy_strbuf_init(&inner);
  hy_window_fields f;
  memset(&f, 0, sizeof f);
  hy_status st = HYFFT_SUCCESS;
  int part = 0;
  for (const char *a = token; st == HYFFT_SUCCESS; part++) {
    const char *e = strchr(a, ':');
    size_t len = e ? (size_t)(e - a) : strlen(a);
    if (!(part >= 2 && hy_window_part(token, a, len, (long)(a - token), &f, &st)))
      hy_strbuf_appendf(&inner, "%s%.*s", part ? ":" : "", (int)len, a);
    if (!e) break;
    a = e + 1;
  }
  if (st == HYFFT_SUCCESS) st = hy_strbuf_status(&inner);
  hyfft_problem p;
  if (st == HYFFT_SUCCESS) st = hy_token_parse(inner.data, &p);
  hy_strbuf_free(&inner);
  if (st == HYFFT_SUCCESS) st = hy_window_finish(token, &f, p.rank, window);
  if (st != HYFFT_SUCCESS) return st;
  *problem = p;
  return HYFFT_SUCCESS;
}

hy_status hy_conv_token_parse(const char *token, hyfft_problem *problem, int64_t *filters,
                              hyfft_window *window) {
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
  hy_window_fields wf;
  memset(&wf, 0, sizeof wf);
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
    } else if (part >= 2 && hy_window_part(token, a, len, pos, &wf, &st)) {
      /* taken */
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
  if (st == HYFFT_SUCCESS) st = hy_window_finish(token, &wf, p.rank, window);
  if (st != HYFFT_SUCCESS) return st;
  p.inplace = inplace;
  *problem = p;
  *filters = k ? k : 1;
  return HYFFT_SUCCESS;
}

/* The window's fields, where it pads or crops at all. */
static void hy_window_print(const hyfft_problem *p, const hyfft_window *w, hy_strbuf *sb) {
  if (!w || p->rank < 1 || p->rank > HYFFT_MAX_RANK) return;
  int pad = 0, crop = 0, start = 0;
  for (int d = 0; d < p->rank; d++) {
    pad |= w->in_len[d] != 0;
    crop |= w->out_len[d] != 0;
    start |= w->out_start[d] != 0;
  }
  if (pad) hy_conv_lens(sb, ":pad=", w->in_len, p->rank);
  if (crop || start) {
    hy_conv_lens(sb, ":crop=", w->out_len, p->rank);
    if (start) hy_conv_lens(sb, "@", w->out_start, p->rank);
  }
}

void hy_conv_token_print(const hyfft_problem *problem, int64_t filters, const hyfft_window *window,
                         hy_strbuf *sb) {
  if (filters == 0) {
    hy_token_print(problem, sb);
    hy_window_print(problem, window, sb);
    return;
  }
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
  hy_window_print(problem, window, sb);
  hy_strbuf_free(&plain);
}
