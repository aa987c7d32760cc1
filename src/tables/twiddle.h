/* Twiddle factors and Bluestein chirps in higher precision. Every table in
 * hyfft (CPU engine, GPU constant tables) is filled from these: the angle is
 * reduced exactly in integer arithmetic and evaluated in long double, then
 * rounded once to the table's precision (f32 tables from the long double
 * value, never through double).
 *
 * How the reduction works (why the results are as good as the long double
 * sinl/cosl on a small argument): k is reduced mod n exactly, the quadrant
 * and octant are found with integer comparisons, and sinl/cosl only ever see
 * an angle in [0, pi/4]; the other octants follow from exact symmetries
 * (swap and sign changes), so e.g. k/n = 1/4 gives exactly (0, +-1) and
 * k/n = 1/8 gives cos == sin. */
#ifndef HY_TWIDDLE_H
#define HY_TWIDDLE_H

#include <stdint.h>

/* exp(sign * 2*pi*i * k / n) for any integer k (negative too; reduced mod
 * n), n >= 1, sign -1 or +1. Exact for the angles that are multiples of
 * pi/4. No overflow for any n < 2^62. */
void hy_twiddle_ld(int64_t k, int64_t n, int sign, long double *re, long double *im);

/* All n roots at once: re[k], im[k] = hy_twiddle_ld(k, n, sign) bit for
 * bit, k = 0..n-1, with sinl/cosl evaluated once per distinct reduced
 * angle (n/8 + 1 of them when 8 divides n, instead of n). Returns 0 when
 * its scratch memory cannot be had (then nothing is written), 1 otherwise. */
int hy_twiddle_roots_ld(int64_t n, int sign, long double *re, long double *im);

/* The Bluestein chirp exp(sign * pi*i * k^2 / n), k^2 reduced mod 2n
 * exactly in 128-bit integer arithmetic (no overflow for any n < 2^62). */
void hy_chirp_ld(int64_t k, int64_t n, int sign, long double *re, long double *im);

/* Convenience fills, each entry rounded once from the long double value:
 * out[2*j], out[2*j+1] = re, im of exp(sign*2*pi*i * (j*step) / n) for
 * j = 0..count-1 (interleaved complex). */
void hy_twiddle_table_f64(double *out, int64_t count, int64_t step, int64_t n, int sign);
void hy_twiddle_table_f32(float *out, int64_t count, int64_t step, int64_t n, int sign);

#endif /* HY_TWIDDLE_H */
