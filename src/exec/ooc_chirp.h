/* Bluestein's algorithm out of core: a 1D complex DFT of length n that
 * the four-step sweeps cannot take (a prime n, or a split whose long side
 * does not fit the device budget), as a cyclic convolution of length
 * M >= 2n - 2 (hy_bluestein_length) computed with an M-point forward C2C
 * plan on host data, which is itself out of core where M points do not fit
 * (exec/out_of_core.c). With the chirp c_j = exp(sign pi i j^2 / n):
 *
 *   a_j = x_j c_j (j < n, 0 after),  B = DFT_M(b) / M with
 *   b_l = conj(c_|l|) for |l| < n (cyclic),
 *   u = DFT_M(conj(DFT_M(a) . B)),  X_k = scale c_k conj(u_k),
 *
 * since the inverse DFT of V is conj(DFT(conj V)) / M: one forward plan
 * serves both transforms. The host steps (chirp multiplies, the pointwise
 * product) run on the worker threads in double, the buffer and B in the
 * data's precision; B is computed once, at plan creation, by the same
 * plan. Chirps come from two tables of exp(sign 2 pi i t / 2n) rounded
 * from long double, with t = j^2 mod 2n kept exactly by increments. */
#ifndef HY_EXEC_OOC_CHIRP_H
#define HY_EXEC_OOC_CHIRP_H

#include <stdint.h>

#include "util/hy_util.h"

struct hyfft_context_s;
struct hyfft_plan_s;
typedef struct hy_ooc_chirp hy_ooc_chirp;

/* The convolution plan of an n-point DFT of `sign` in f32 (f64 = 0) or
 * f64 on host data of `context`; `flags` are the parent plan's. */
hy_status hy_ooc_chirp_create(struct hyfft_context_s *context, int64_t n, int sign, int f64,
                              unsigned flags, hy_ooc_chirp **out);
void hy_ooc_chirp_destroy(hy_ooc_chirp *c);

/* The n-point DFTs of `batch` transforms, element j of transform b at
 * complex element b * src_batch + j * src_stride of src (likewise dst;
 * dst may be src, element for element), times `scale`; progress reported
 * as `outer`'s (exec/out_of_core.h, hy_ooc_relay). One execution at a
 * time per plan (the caller holds its lock). */
hy_status hy_ooc_chirp_run(hy_ooc_chirp *c, struct hyfft_plan_s *outer, const char *src,
                           int64_t src_stride,
                           int64_t src_batch, char *dst, int64_t dst_stride, int64_t dst_batch,
                           int64_t batch, double scale);

/* M, and the convolution plan (its description, for hyfft_plan_describe). */
int64_t hy_ooc_chirp_length(const hy_ooc_chirp *c);
const struct hyfft_plan_s *hy_ooc_chirp_plan(const hy_ooc_chirp *c);

#endif /* HY_EXEC_OOC_CHIRP_H */
