/* The twiddles of the pointwise r2r steps (HY_PASS_R2R_PRE / _POST,
 * solvers/r2r.c), one description for the CPU ops and the GPU generator:
 * entry j (0 <= j < count) is exp(sign * 2*pi*i * (a*j + b) / m),
 * evaluated in long double (tables/twiddle.h) and rounded once. */
#ifndef HY_R2R_TWIDDLE_H
#define HY_R2R_TWIDDLE_H

#include "planner/plan.h"

typedef struct hy_r2r_twiddle {
  int64_t count, a, b, m;
  int sign;
} hy_r2r_twiddle;

/* 1 and *tw filled when the pass needs a table, else 0:
 *   PRE of DCT-III/DST-III:   exp(+i pi j/(2n))      (a 1, b 0, m 4n, +1)
 *   PRE of DCT-IV/DST-IV:     odd n:  exp(-i pi j/(2n))       (a 1, b 0, m 4n, -1)
 *                             even n: exp(-i pi (4j+1)/(4n))  (a 4, b 1, m 8n, -1), n/2 of them
 *   POST of DCT-II/DST-II:    exp(-i pi j/(2n))      (a 1, b 0, m 4n, -1)
 *   POST of DCT-IV/DST-IV:    odd n:  exp(-i pi (2j+1)/(4n))  (a 2, b 1, m 8n, -1)
 *                             even n: exp(-i pi j/n)          (a 1, b 0, m 2n, -1), n/2 of them
 * with n = axis.n (the solver keeps 8n within int64). */
int hy_r2r_twiddle_of(const hy_pass *pass, hy_r2r_twiddle *tw);

/* Entry j in long double. */
void hy_r2r_twiddle_ld(const hy_r2r_twiddle *tw, int64_t j, long double *re, long double *im);

#endif /* HY_R2R_TWIDDLE_H */
