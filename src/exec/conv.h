/* Convolution plans (hyfft_plan_convolution; docs/api.md, "Convolution";
 * docs/design.md section 11): a forward transform of the signals into a
 * spectrum buffer, a pointwise multiply by each filter's spectrum, and an
 * inverse transform into the output, as three sub-plans of device data
 * on the plan's context. The multiply is a load callback of the inverse
 * plan (generated source fused into its first pass on a GPU, a C function
 * on the CPU) where the generator takes it; otherwise, or with
 * $HYFFT_CONV_UNFUSED, a separate pointwise pass (a rank-0 copy plan with
 * the same load callback) writes the B x K spectra the inverse then reads.
 * The plan has no tree of its own: plan->conv holds the sub-plans. */
#ifndef HY_EXEC_CONV_H
#define HY_EXEC_CONV_H

#include "util/hy_util.h"

struct hyfft_plan_s;
struct hyfft_context_s;

/* Build a convolution plan (arguments as hyfft_plan_convolution; pointers
 * checked by the caller), or with filters 0 a windowed transform
 * (hyfft_plan_create_window: the forward step alone, the problem's kind,
 * sign and scale, and the crop). On failure nothing is left allocated. */
hy_status hy_conv_create(struct hyfft_context_s *context, const hyfft_problem *problem,
                         int64_t filters, const void *spectra, size_t spectra_bytes,
                         const hyfft_window *window, unsigned flags, struct hyfft_plan_s **plan);
void hy_conv_destroy(struct hyfft_plan_s *plan);
/* Execute: checks the pointers, stages host data on a GPU, runs the
 * sub-plans in order (one execution at a time: the spectrum buffers are
 * the plan's). */
hy_status hy_conv_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue);
hy_status hy_conv_wait(struct hyfft_plan_s *plan);
/* The convolution node and its sub-plans' trees, for hyfft_plan_describe. */
void hy_conv_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb);
/* The sub-plans' generated sources, for hyfft_plan_source. */
hy_status hy_conv_source(const struct hyfft_plan_s *plan, hy_strbuf *sb);
/* The plan's filter count. */
int64_t hy_conv_filters(const struct hyfft_plan_s *plan);
/* Whether the multiply is fused into the inverse's first pass (tests). */
int hy_conv_fused(const struct hyfft_plan_s *plan);

/* Complex elements of one spectrum of a convolution problem: the
 * transform lengths' product, n/2+1 on the last dim for R2C. */
int64_t hy_conv_spectrum_elems(const hyfft_problem *problem);
/* The load callback's source text for the GPU generator: the value of
 * inverse input element `index` (filter k of signal b, spectrum element
 * s, index = (b K + k) S + s) is in[b S + s] times the spectra's
 * element k S + s (`user`). */
void hy_conv_snippet(int64_t spectrum_elems, int64_t filters, hy_strbuf *sb);

/* The inverse sub-problem of a convolution of `signals` with `filters`
 * kernels: C2C backward (C2R for real signals), B x K contiguous
 * transforms, scale 1/N (times the signals' scale), device data. */
hy_status hy_conv_inverse_problem(const hyfft_problem *signals, int64_t filters,
                                  hyfft_problem *inverse);

/* What a window adds, for the NVRTC compile test: the padding's load
 * snippet (appended to `pad`, nothing without padding) for the first
 * transform, whose input is then n contiguous points, and the crop
 * pass's snippet and problem (nothing without a crop). filters 0: a
 * plain windowed transform. */
hy_status hy_conv_window_programs(const hyfft_problem *signals, int64_t filters,
                                  const hyfft_window *window, hy_strbuf *pad, hy_strbuf *crop,
                                  hyfft_problem *crop_problem);

/* Convolution tokens: "conv:" ("c2c" | "r2c") ":" PREC ":" SHAPE, then
 * the fields of a plain token less os= and odist=, plus "k" LEN
 * (filters, default 1) and the window fields (window NULL: refused). */
hy_status hy_conv_token_parse(const char *token, hyfft_problem *problem, int64_t *filters,
                              hyfft_window *window);
/* filters 0: a plain token with the window's fields. */
void hy_conv_token_print(const hyfft_problem *problem, int64_t filters, const hyfft_window *window,
                         hy_strbuf *sb);
/* A plain token with the window fields pad=LEN{xLEN} and
 * crop=LEN{xLEN}[@START{xSTART}]. */
hy_status hy_window_token_parse(const char *token, hyfft_problem *problem, hyfft_window *window);
/* The plan's window (zeros where none). */
void hy_conv_window_get(const struct hyfft_plan_s *plan, hyfft_window *window);

#endif /* HY_EXEC_CONV_H */
