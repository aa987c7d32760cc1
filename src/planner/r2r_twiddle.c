/* The twiddles of the pointwise r2r steps (r2r_twiddle.h). */
#include "planner/r2r_twiddle.h"

#include "tables/twiddle.h"

int hy_r2r_twiddle_of(const hy_pass *pass, hy_r2r_twiddle *tw) {
  const int64_t n = pass->axis.n;
  const hyfft_r2r_kind k = (hyfft_r2r_kind)pass->r2r_kind;
  *tw = (hy_r2r_twiddle){n, 1, 0, 4 * n, -1};
  if (pass->op == HY_PASS_R2R_PRE) {
    if (k == HYFFT_REDFT01 || k == HYFFT_RODFT01) {
      tw->sign = 1;
      return 1;
    }
    if (k != HYFFT_REDFT11 && k != HYFFT_RODFT11) return 0;
    if (n % 2 == 0) *tw = (hy_r2r_twiddle){n / 2, 4, 1, 8 * n, -1};
    return 1;
  }
  if (pass->op != HY_PASS_R2R_POST) return 0;
  if (k == HYFFT_REDFT10 || k == HYFFT_RODFT10) return 1;
  if (k == HYFFT_REDFT11 || k == HYFFT_RODFT11) {
    *tw = n % 2 == 0 ? (hy_r2r_twiddle){n / 2, 1, 0, 2 * n, -1}
                     : (hy_r2r_twiddle){n, 2, 1, 8 * n, -1};
    return 1;
  }
  return 0;
}

void hy_r2r_twiddle_ld(const hy_r2r_twiddle *tw, int64_t j, long double *re, long double *im) {
  hy_twiddle_ld(tw->a * j + tw->b, tw->m, tw->sign, re, im);
}
