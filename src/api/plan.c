/* Public entry points for problems, plans and execution. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "exec/conv.h"
#include "exec/hybrid.h"
#include "exec/batch_chunks.h"
#include "exec/multi_device.h"
#include "exec/out_of_core.h"
#include "planner/planner.h"

static hy_status hy_check_plan(hyfft_plan plan) {
  if (!plan) return hy_error(HYFFT_NULL_POINTER, "plan is NULL");
  if (!hy_handle_is_live(plan, HY_HANDLE_PLAN))
    return hy_error(HYFFT_INVALID_HANDLE, "plan %p is not live (destroyed twice?)", (void *)plan);
  return HYFFT_SUCCESS;
}

/* The enums the convenience calls read before building a problem (the
 * full problem is validated again by hy_problem_make). */
static hy_status hy_check_kind_precision_sign(hyfft_kind kind, hyfft_precision precision,
                                              int sign) {
  if (kind != HYFFT_C2C && kind != HYFFT_R2C && kind != HYFFT_C2R)
    return hy_error(HYFFT_INVALID_KIND, "kind = %d is not C2C (0), R2C (1) or C2R (2)", (int)kind);
  if (precision != HYFFT_F32 && precision != HYFFT_F64 && precision != HYFFT_F16 &&
      precision != HYFFT_BF16)
    return hy_error(HYFFT_INVALID_PRECISION,
                    "precision = %d is not F32 (0), F64 (1), F16 (2) or BF16 (3)", (int)precision);
  if (sign != HYFFT_FORWARD && sign != HYFFT_BACKWARD)
    return hy_error(HYFFT_INVALID_SIGN, "sign = %d is neither -1 (forward) nor +1 (backward)",
                    sign);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_problem_init(hyfft_problem *problem, hyfft_kind kind,
                                hyfft_precision precision, int sign, int rank,
                                const int64_t *n) {
  hy_error_clear();
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!n) return hy_error(HYFFT_NULL_POINTER, "n is NULL");
  if (rank < 1 || rank > HYFFT_MAX_RANK)
    return hy_error(HYFFT_INVALID_RANK, "rank %d is outside 1..%d", rank, HYFFT_MAX_RANK);
  HY_TRY(hy_check_kind_precision_sign(kind, precision, sign));
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  p.kind = kind;
  p.precision = precision;
  p.sign = sign;
  p.rank = rank;
  /* Contiguous row-major strides; R2C/C2R halve the last dim on the
   * complex side (FFTW's layout; real side unpadded). */
  int64_t is = 1, os = 1;
  for (int d = rank - 1; d >= 0; d--) {
    if (n[d] <= 0) return hy_error(HYFFT_INVALID_SIZE, "n[%d] = %lld is not positive", d, (long long)n[d]);
    p.dims[d].n = n[d];
    p.dims[d].in_stride = is;
    p.dims[d].out_stride = os;
    int64_t in_len = n[d], out_len = n[d];
    if (d == rank - 1 && kind == HYFFT_R2C) out_len = n[d] / 2 + 1;
    if (d == rank - 1 && kind == HYFFT_C2R) in_len = n[d] / 2 + 1;
    if (hy_mul_overflow_i64(is, in_len, &is) || hy_mul_overflow_i64(os, out_len, &os))
      return hy_error(HYFFT_SIZE_OVERFLOW, "the product of the lengths overflows int64");
  }
  p.memory = HYFFT_MEMORY_HOST;
  hy_problem_copy_public(problem, &p);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_problem_init_r2r(hyfft_problem *problem, hyfft_precision precision, int rank,
                                    const int64_t *n, const hyfft_r2r_kind *kinds) {
  hy_error_clear();
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!n) return hy_error(HYFFT_NULL_POINTER, "n is NULL");
  if (!kinds) return hy_error(HYFFT_NULL_POINTER, "kinds is NULL");
  if (rank < 1 || rank > HYFFT_MAX_RANK)
    return hy_error(HYFFT_INVALID_RANK, "rank %d: R2R problems have ranks 1..%d", rank,
                    HYFFT_MAX_RANK);
  if (precision == HYFFT_F16 || precision == HYFFT_BF16)
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "precision %s: half-precision storage serves C2C transforms only, not R2R",
                    precision == HYFFT_F16 ? "f16" : "bf16");
  if (precision != HYFFT_F32 && precision != HYFFT_F64)
    return hy_error(HYFFT_INVALID_PRECISION, "precision = %d is not F32 (0) or F64 (1)",
                    (int)precision);
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  p.kind = HYFFT_R2R;
  p.precision = precision;
  p.sign = HYFFT_FORWARD;
  p.rank = rank;
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    if (n[d] <= 0) return hy_error(HYFFT_INVALID_SIZE, "n[%d] = %lld is not positive", d, (long long)n[d]);
    if (kinds[d] < HYFFT_REDFT00 || kinds[d] > HYFFT_DHT)
      return hy_error(HYFFT_INVALID_KIND, "kinds[%d] = %d is not an r2r kind (1..9)", d,
                      (int)kinds[d]);
    p.dims[d] = (hyfft_dim){n[d], s, s};
    p.r2r_kind[d] = kinds[d];
    if (hy_mul_overflow_i64(s, n[d], &s))
      return hy_error(HYFFT_SIZE_OVERFLOW, "the product of the lengths overflows int64");
  }
  p.memory = HYFFT_MEMORY_HOST;
  hy_problem_copy_public(problem, &p);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_problem_parse(const char *token, hyfft_problem *problem) {
  hy_error_clear();
  if (!token) return hy_error(HYFFT_NULL_POINTER, "token is NULL");
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  hyfft_problem p;
  HY_TRY(hy_token_parse(token, &p));
  hy_problem_copy_public(problem, &p);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_problem_print(const hyfft_problem *problem, char *buf, size_t buf_size,
                                 size_t *needed) {
  hy_error_clear();
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_token_print(problem, &sb);
  hy_status st = hy_strbuf_export(&sb, buf, buf_size, needed);
  hy_strbuf_free(&sb);
  return st;
}

hyfft_status hyfft_plan_create(hyfft_context context, const hyfft_problem *problem,
                               unsigned flags, hyfft_plan *plan) {
  /* No callbacks: the same plan as with a NULL callbacks struct. */
  return hyfft_plan_create_with_callbacks(context, problem, flags, NULL, plan);
}

hyfft_status hyfft_plan_create_with_callbacks(hyfft_context context, const hyfft_problem *problem,
                                              unsigned flags, const hyfft_callbacks *callbacks,
                                              hyfft_plan *plan) {
  hy_error_clear();
  if (!plan) return hy_error(HYFFT_NULL_POINTER, "plan is NULL");
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  if (!hy_handle_is_live(context, HY_HANDLE_CONTEXT))
    return hy_error(HYFFT_INVALID_HANDLE, "context %p is not live", (void *)context);
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (flags & ~(unsigned)(HYFFT_MEASURE | HYFFT_DESTROY_INPUT | HYFFT_HYBRID | HYFFT_OWN_WORKSPACE))
    return hy_error(HYFFT_INVALID_ARGUMENT, "unknown planner flags 0x%x", flags);
  struct hyfft_plan_s *p = NULL;
  HY_TRY(hy_exec_plan_create_cb(context, problem, flags, callbacks, &p));
  hy_status st = hy_handle_register(p, HY_HANDLE_PLAN);
  if (st != HYFFT_SUCCESS) {
    hy_exec_plan_destroy(p);
    return st;
  }
  *plan = p;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_plan_token(hyfft_context context, const char *token, unsigned flags,
                              hyfft_plan *plan) {
  hy_error_clear();
  if (!plan) return hy_error(HYFFT_NULL_POINTER, "plan is NULL");
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  if (!hy_handle_is_live(context, HY_HANDLE_CONTEXT))
    return hy_error(HYFFT_INVALID_HANDLE, "context %p is not live", (void *)context);
  if (!token) return hy_error(HYFFT_NULL_POINTER, "token is NULL");
  hyfft_problem problem;
  HY_TRY(hy_token_parse(token, &problem));
  return hyfft_plan_create(context, &problem, flags, plan);
}

hyfft_status hyfft_plan_many(hyfft_context context, int rank, const int64_t *n, int64_t batch,
                             const int64_t *inembed, int64_t istride, int64_t idist,
                             const int64_t *onembed, int64_t ostride, int64_t odist,
                             hyfft_kind kind, hyfft_precision precision, int sign,
                             hyfft_plan *plan) {
  hy_error_clear();
  if (!plan) return hy_error(HYFFT_NULL_POINTER, "plan is NULL");
  if (!n) return hy_error(HYFFT_NULL_POINTER, "n is NULL");
  if (rank < 1 || rank > HYFFT_MAX_RANK)
    return hy_error(HYFFT_INVALID_RANK, "rank %d is outside 1..%d", rank, HYFFT_MAX_RANK);
  HY_TRY(hy_check_kind_precision_sign(kind, precision, sign));
  /* Like FFTW: the embeddings' first entry only bounds the array, the
   * others set the strides, so each must hold its dimension. */
  for (int d = 0; d < rank; d++) {
    if (n[d] < 1)
      return hy_error(HYFFT_INVALID_SIZE, "n[%d] = %lld is not positive", d, (long long)n[d]);
    int64_t in_len = n[d], out_len = n[d];
    if (d == rank - 1 && kind == HYFFT_R2C) out_len = n[d] / 2 + 1;
    if (d == rank - 1 && kind == HYFFT_C2R) in_len = n[d] / 2 + 1;
    if (inembed && d > 0 && inembed[d] < in_len)
      return hy_error(HYFFT_INVALID_STRIDE, "inembed[%d] = %lld is smaller than the %lld elements "
                      "of that dimension", d, (long long)inembed[d], (long long)in_len);
    if (onembed && d > 0 && onembed[d] < out_len)
      return hy_error(HYFFT_INVALID_STRIDE, "onembed[%d] = %lld is smaller than the %lld elements "
                      "of that dimension", d, (long long)onembed[d], (long long)out_len);
  }
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  p.kind = kind;
  p.precision = precision;
  p.sign = sign;
  p.rank = rank;
  int64_t is = istride, os = ostride;
  for (int d = rank - 1; d >= 0; d--) {
    p.dims[d].n = n[d];
    p.dims[d].in_stride = is;
    p.dims[d].out_stride = os;
    int64_t ie = inembed ? inembed[d] : n[d];
    int64_t oe = onembed ? onembed[d] : n[d];
    if (!inembed && d == rank - 1 && kind == HYFFT_C2R) ie = n[d] / 2 + 1;
    if (!onembed && d == rank - 1 && kind == HYFFT_R2C) oe = n[d] / 2 + 1;
    if (hy_mul_overflow_i64(is, ie, &is) || hy_mul_overflow_i64(os, oe, &os))
      return hy_error(HYFFT_SIZE_OVERFLOW, "embedding times stride overflows int64");
  }
  p.batch_rank = 1;
  p.batch[0].n = batch;
  p.batch[0].in_stride = idist;
  p.batch[0].out_stride = odist;
  p.memory = HYFFT_MEMORY_HOST;
  return hyfft_plan_create(context, &p, HYFFT_ESTIMATE, plan);
}

static hyfft_status hy_plan_shape(hyfft_context context, int rank, const int64_t *n,
                                  int64_t batch, hyfft_kind kind, hyfft_precision precision,
                                  int sign, hyfft_plan *plan) {
  hyfft_problem p;
  HY_TRY(hyfft_problem_init(&p, kind, precision, sign, rank, n));
  if (batch != 1) {
    int64_t in_total = 1, out_total = 1;
    for (int d = 0; d < rank; d++) {
      int64_t ie = n[d], oe = n[d];
      if (d == rank - 1 && kind == HYFFT_R2C) oe = n[d] / 2 + 1;
      if (d == rank - 1 && kind == HYFFT_C2R) ie = n[d] / 2 + 1;
      in_total *= ie; /* cannot overflow: checked by hyfft_problem_init */
      out_total *= oe;
    }
    p.batch_rank = 1;
    p.batch[0].n = batch;
    p.batch[0].in_stride = in_total;
    p.batch[0].out_stride = out_total;
  }
  return hyfft_plan_create(context, &p, HYFFT_ESTIMATE, plan);
}

hyfft_status hyfft_plan_1d(hyfft_context context, int64_t n, hyfft_kind kind,
                           hyfft_precision precision, int sign, int64_t batch, hyfft_plan *plan) {
  hy_error_clear();
  int64_t dims[1] = {n};
  return hy_plan_shape(context, 1, dims, batch, kind, precision, sign, plan);
}

hyfft_status hyfft_plan_2d(hyfft_context context, int64_t n0, int64_t n1, hyfft_kind kind,
                           hyfft_precision precision, int sign, hyfft_plan *plan) {
  hy_error_clear();
  int64_t dims[2] = {n0, n1};
  return hy_plan_shape(context, 2, dims, 1, kind, precision, sign, plan);
}

hyfft_status hyfft_plan_3d(hyfft_context context, int64_t n0, int64_t n1, int64_t n2,
                           hyfft_kind kind, hyfft_precision precision, int sign,
                           hyfft_plan *plan) {
  hy_error_clear();
  int64_t dims[3] = {n0, n1, n2};
  return hy_plan_shape(context, 3, dims, 1, kind, precision, sign, plan);
}

hyfft_status hyfft_plan_destroy(hyfft_plan plan) {
  hy_error_clear();
  if (!plan) return hy_error(HYFFT_NULL_POINTER, "plan is NULL");
  if (!hy_handle_unregister(plan, HY_HANDLE_PLAN))
    return hy_error(HYFFT_INVALID_HANDLE, "plan %p is not live (destroyed twice?)", (void *)plan);
  hy_exec_plan_destroy(plan);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_plan_problem(hyfft_plan plan, hyfft_problem *problem) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  hy_problem_copy_public(problem, &plan->problem.user);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_plan_describe(hyfft_plan plan, char *buf, size_t buf_size, size_t *needed) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  if (plan->conv) {
    hyfft_window w;
    hy_conv_window_get(plan, &w);
    hy_conv_token_print(&plan->problem.user, hy_conv_filters(plan), &w, &sb);
  }
  else
    hy_token_print(&plan->problem.user, &sb);
  hy_strbuf_appendf(&sb, " on %s (%s)\n", plan->context->info.spec, plan->context->info.name);
  if (plan->conv)
    hy_conv_describe(plan, &sb);
  else if (plan->multi)
    hy_multi_describe(plan, &sb);
  else if (plan->hybrid)
    hy_hybrid_describe(plan, &sb);
  else if (plan->ooc)
    hy_ooc_describe(plan, &sb);
  else if (plan->chunks)
    hy_chunks_describe(plan, &sb);
  else
    hy_plan_tree_describe(&plan->tree, &sb);
  if (plan->has_quick) {
    hy_strbuf_append(&sb, "  first tier while the plane kernel compiles:\n");
    hy_plan_tree_describe(&plan->quick, &sb);
  }
  /* Callbacks: where they apply, and what they turn off. */
  int gpu_cb = plan->cb_source[0] || plan->cb_source[1];
  if (gpu_cb || plan->load_fn || plan->store_fn)
    hy_strbuf_appendf(&sb, "  callbacks:%s%s, %s\n",
                      plan->cb_source[0] || plan->load_fn ? " load" : "",
                      plan->cb_source[1] || plan->store_fn ? " store" : "",
                      gpu_cb ? "compiled into the first pass's loads and the last pass's stores "
                               "(no persistent kernel; host data copied whole, not in chunks, "
                               "with no CPU share)"
                             : "C functions run over the input before and the output after "
                               "the transform");
  hy_status st = hy_strbuf_export(&sb, buf, buf_size, needed);
  hy_strbuf_free(&sb);
  return st;
}

hyfft_status hyfft_plan_source(hyfft_plan plan, char *buf, size_t buf_size, size_t *needed) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_status st = plan->conv     ? hy_conv_source(plan, &sb)
                 : plan->multi  ? hy_multi_source(plan, &sb)
                 : plan->hybrid ? hy_hybrid_source(plan, &sb)
                 : plan->ooc  ? hy_ooc_source(plan, &sb)
                 : plan->chunks ? hy_chunks_source(plan, &sb)
                           : plan->context->backend->plan_source(plan->context->device,
                                                                 plan->backend_state, &sb);
  if (st == HYFFT_SUCCESS) st = hy_strbuf_export(&sb, buf, buf_size, needed);
  hy_strbuf_free(&sb);
  return st;
}

hyfft_status hyfft_plan_wait(hyfft_plan plan) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  return hy_exec_plan_wait(plan);
}

hyfft_status hyfft_plan_workspace_size(hyfft_plan plan, size_t *bytes) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  if (!bytes) return hy_error(HYFFT_NULL_POINTER, "bytes is NULL");
  *bytes = hy_exec_workspace_bytes(plan);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_plan_set_workspace(hyfft_plan plan, void *workspace, size_t bytes) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  return hy_exec_set_workspace(plan, workspace, bytes);
}

hyfft_status hyfft_plan_set_progress(hyfft_plan plan, hyfft_progress_fn fn, void *user) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  plan->progress = fn;
  plan->progress_user = fn ? user : NULL;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_execute(hyfft_plan plan, const void *in, void *out) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  return hy_exec_run(plan, in, out, NULL, NULL, 1);
}

hyfft_status hyfft_execute_async(hyfft_plan plan, const void *in, void *out, void *workspace,
                                 void *queue) {
  hy_error_clear();
  HY_TRY(hy_check_plan(plan));
  return hy_exec_run(plan, in, out, workspace, queue, 0);
}
