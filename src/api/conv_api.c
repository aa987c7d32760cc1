/* The public convolution calls (include/hyfft.h, docs/api.md,
 * "Convolution"): argument checks, then exec/conv.c. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "exec/conv.h"

static hy_status hy_conv_check_context(hyfft_context context) {
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  if (!hy_handle_is_live(context, HY_HANDLE_CONTEXT))
    return hy_error(HYFFT_INVALID_HANDLE, "context %p is not live", (void *)context);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_plan_convolution(hyfft_context context, const hyfft_problem *problem,
                                    int64_t filters, const void *spectra, size_t spectra_bytes,
                                    const hyfft_window *window, unsigned flags,
                                    hyfft_plan *plan) {
  hy_error_clear();
  if (!plan) return hy_error(HYFFT_NULL_POINTER, "plan is NULL");
  HY_TRY(hy_conv_check_context(context));
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!spectra) return hy_error(HYFFT_NULL_POINTER, "spectra is NULL");
  if (filters < 1)
    return hy_error(HYFFT_INVALID_SIZE, "convolution: filters = %lld; at least one kernel is "
                    "needed", (long long)filters);
  if (flags & ~(unsigned)(HYFFT_MEASURE | HYFFT_OWN_WORKSPACE))
    return hy_error(HYFFT_INVALID_ARGUMENT, "convolution: planner flags 0x%x; a convolution "
                    "takes HYFFT_MEASURE and HYFFT_OWN_WORKSPACE", flags);
  struct hyfft_plan_s *p = NULL;
  HY_TRY(hy_conv_create(context, problem, filters, spectra, spectra_bytes, window, flags, &p));
  hy_status st = hy_handle_register(p, HY_HANDLE_PLAN);
  if (st != HYFFT_SUCCESS) {
    hy_exec_plan_destroy(p);
    return st;
  }
  *plan = p;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_convolution_spectra(hyfft_context context, const hyfft_problem *problem,
                                       int64_t filters, const void *kernels, void *spectra,
                                       size_t spectra_bytes) {
  hy_error_clear();
  HY_TRY(hy_conv_check_context(context));
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!kernels) return hy_error(HYFFT_NULL_POINTER, "kernels is NULL");
  if (!spectra) return hy_error(HYFFT_NULL_POINTER, "spectra is NULL");
  hyfft_problem u;
  memset(&u, 0, sizeof u);
  hy_problem_copy_public(&u, problem);
  if (u.kind != HYFFT_C2C && u.kind != HYFFT_R2C)
    return hy_error(HYFFT_INVALID_KIND, "convolution spectra: kind %d; HYFFT_C2C or HYFFT_R2C",
                    (int)u.kind);
  if (u.precision != HYFFT_F32 && u.precision != HYFFT_F64)
    return hy_error(HYFFT_INVALID_PRECISION, "convolution spectra: precision %d is not f32 or "
                    "f64", (int)u.precision);
  if (u.rank < 1 || u.rank > 3)
    return hy_error(HYFFT_INVALID_RANK, "convolution spectra: rank %d is outside 1..3", u.rank);
  if (filters < 1)
    return hy_error(HYFFT_INVALID_SIZE, "convolution spectra: filters = %lld; at least one "
                    "kernel is needed", (long long)filters);
  /* The kernels: a forward plan of `filters` contiguous signals, host data. */
  int64_t n[3];
  for (int d = 0; d < u.rank; d++) n[d] = u.dims[d].n;
  hyfft_problem f;
  HY_TRY(hyfft_problem_init(&f, u.kind, u.precision, HYFFT_FORWARD, u.rank, n));
  int64_t s = hy_conv_spectrum_elems(&f), in_total = 1, total;
  for (int d = 0; d < u.rank; d++) in_total *= n[d]; /* checked by hyfft_problem_init */
  size_t es = u.precision == HYFFT_F64 ? 16 : 8;
  if (hy_mul_overflow_i64(s, filters, &total) || (uint64_t)total > SIZE_MAX / es)
    return hy_error(HYFFT_SIZE_OVERFLOW, "convolution spectra: %lld spectra overflow 64-bit sizes",
                    (long long)filters);
  if (spectra_bytes != (size_t)total * es)
    return hy_error(HYFFT_INVALID_SIZE, "convolution spectra: spectra_bytes = %zu, but %lld "
                    "spectra of %lld complex elements take %zu bytes", spectra_bytes,
                    (long long)filters, (long long)s, (size_t)total * es);
  f.batch_rank = 1;
  f.batch[0] = (hyfft_dim){filters, in_total, s};
  struct hyfft_plan_s *p = NULL;
  HY_TRY(hy_exec_plan_create(context, &f, HYFFT_ESTIMATE, NULL, &p));
  hy_status st = hy_exec_run(p, kernels, spectra, NULL, NULL, 1);
  hy_exec_plan_destroy(p);
  return st;
}

hyfft_status hyfft_convolution_parse(const char *token, hyfft_problem *problem,
                                     int64_t *filters, hyfft_window *window) {
  hy_error_clear();
  if (!token) return hy_error(HYFFT_NULL_POINTER, "token is NULL");
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!filters) return hy_error(HYFFT_NULL_POINTER, "filters is NULL");
  hyfft_problem p;
  int64_t k;
  hyfft_window w;
  HY_TRY(hy_conv_token_parse(token, &p, &k, window ? &w : NULL));
  hy_problem_copy_public(problem, &p);
  *filters = k;
  if (window) *window = w;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_convolution_print(const hyfft_problem *problem, int64_t filters,
                                     const hyfft_window *window, char *buf, size_t buf_size,
                                     size_t *needed) {
  hy_error_clear();
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  if (filters < 0)
    return hy_error(HYFFT_INVALID_SIZE, "filters = %lld is negative", (long long)filters);
  hy_conv_token_print(problem, filters, window, &sb);
  hy_status st = hy_strbuf_export(&sb, buf, buf_size, needed);
  hy_strbuf_free(&sb);
  return st;
}

/* Whether a window pads or crops at all (all zeros: it does not). */
static int hy_window_any(const hyfft_window *w, int rank) {
  if (!w) return 0;
  for (int d = 0; d < rank && d < HYFFT_MAX_RANK; d++)
    if (w->in_len[d] || w->out_start[d] || w->out_len[d]) return 1;
  return 0;
}

hyfft_status hyfft_plan_create_window(hyfft_context context, const hyfft_problem *problem,
                                      const hyfft_window *window, unsigned flags,
                                      hyfft_plan *plan) {
  hy_error_clear();
  if (!plan) return hy_error(HYFFT_NULL_POINTER, "plan is NULL");
  HY_TRY(hy_conv_check_context(context));
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!hy_window_any(window, problem->rank))
    return hyfft_plan_create(context, problem, flags, plan);
  if (flags & ~(unsigned)(HYFFT_MEASURE | HYFFT_OWN_WORKSPACE))
    return hy_error(HYFFT_INVALID_ARGUMENT, "window: planner flags 0x%x; a windowed transform "
                    "takes HYFFT_MEASURE and HYFFT_OWN_WORKSPACE", flags);
  struct hyfft_plan_s *p = NULL;
  HY_TRY(hy_conv_create(context, problem, 0, NULL, 0, window, flags, &p));
  hy_status st = hy_handle_register(p, HY_HANDLE_PLAN);
  if (st != HYFFT_SUCCESS) {
    hy_exec_plan_destroy(p);
    return st;
  }
  *plan = p;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_problem_parse_window(const char *token, hyfft_problem *problem,
                                        hyfft_window *window) {
  hy_error_clear();
  if (!token) return hy_error(HYFFT_NULL_POINTER, "token is NULL");
  if (!problem) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!window) return hy_error(HYFFT_NULL_POINTER, "window is NULL");
  hyfft_problem p;
  hyfft_window w;
  HY_TRY(hy_window_token_parse(token, &p, &w));
  hy_problem_copy_public(problem, &p);
  *window = w;
  return HYFFT_SUCCESS;
}
