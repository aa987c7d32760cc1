/* 1D real-to-real transforms out of core: each of FFTW's r2r kinds as the
 * complex DFT of a symmetric extension of the input, through a C2C plan of
 * length L on host data (itself out of core where L points do not fit,
 * exec/out_of_core.c). With Z = DFT_L(z):
 *
 *   DCT-I    L = 2(n-1)  z_j = z_(L-j) = x_j               Y_k = Re Z_k
 *   DCT-II   L = 4n      z_(2j+1) = z_(L-2j-1) = x_j       Y_k = Re Z_k
 *   DCT-III  L = 4n      z_j = z_(L-j) = x_j (z_0 = x_0)   Y_k = Re Z_(2k+1)
 *   DCT-IV   L = 8n      z_(2j+1) = z_(L-2j-1) = x_j       Y_k = Re Z_(2k+1)
 *   DST-I    L = 2(n+1)  z_(j+1) = -z_(L-j-1) = x_j        Y_k = -Im Z_(k+1)
 *   DST-II   L = 4n      z_(2j+1) = -z_(L-2j-1) = x_j      Y_k = -Im Z_(k+1)
 *   DST-III  L = 4n      z_(j+1) = -z_(L-j-1) = x_j, j < n-1, and
 *                        z_n = -z_3n = x_(n-1) / 2         Y_k = -Im Z_(2k+1)
 *   DST-IV   L = 8n      z_(2j+1) = -z_(L-2j-1) = x_j      Y_k = -Im Z_(2k+1)
 *   DHT      L = n       z_j = x_j                         Y_k = Re Z_k - Im Z_k
 *
 * (zeros elsewhere), which are FFTW's definitions term by term. The
 * extensions are two to eight times the data: correct, not fast; the
 * transforms that fit the device never come here. Host steps on the worker
 * threads, the buffer in the data's precision. */
#ifndef HY_EXEC_OOC_R2R_H
#define HY_EXEC_OOC_R2R_H

#include <stdint.h>

#include "hyfft.h"
#include "util/hy_util.h"

struct hyfft_context_s;
struct hyfft_plan_s;
typedef struct hy_ooc_r2r hy_ooc_r2r;

hy_status hy_ooc_r2r_create(struct hyfft_context_s *context, hyfft_r2r_kind kind, int64_t n,
                            int f64, unsigned flags, hy_ooc_r2r **out);
void hy_ooc_r2r_destroy(hy_ooc_r2r *r);

/* `batch` transforms, real j of transform b at src + (b * src_batch +
 * j * src_stride) reals (likewise dst; dst may be src), times `scale`;
 * progress reported as `outer`'s (exec/out_of_core.h, hy_ooc_relay). One
 * execution at a time per plan (the caller holds its lock). */
hy_status hy_ooc_r2r_run(hy_ooc_r2r *r, struct hyfft_plan_s *outer, const char *src,
                         int64_t src_stride, int64_t src_batch,
                         char *dst, int64_t dst_stride, int64_t dst_batch, int64_t batch,
                         double scale);

/* L, and the C2C plan (for the description). */
int64_t hy_ooc_r2r_length(const hy_ooc_r2r *r);
const struct hyfft_plan_s *hy_ooc_r2r_plan(const hy_ooc_r2r *r);

#endif /* HY_EXEC_OOC_R2R_H */
