/* Twiddle factors and Bluestein chirps in higher precision. Every table in
 * hyfft (CPU engine, GPU constant tables) is filled from these: the angle is
 * reduced exactly in integer arithmetic and evaluated in long double, then
 * rounded once to the table's precision (f32 tables from the long double
 * value, never through double). */
#ifndef HY_TWIDDLE_H
#define HY_TWIDDLE_H

#include <stdint.h>

/* exp(sign * 2*pi*i * k / n) for any integer k (reduced mod n), n >= 1. */
void hy_twiddle_ld(int64_t k, int64_t n, int sign, long double *re, long double *im);

/* The Bluestein chirp exp(sign * pi*i * k^2 / n), k^2 reduced mod 2n
 * exactly (no overflow for any n < 2^62). */
void hy_chirp_ld(int64_t k, int64_t n, int sign, long double *re, long double *im);

#endif /* HY_TWIDDLE_H */
