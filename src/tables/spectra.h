/* Long tables in long double, rounded once (spectra.c). */
#ifndef HY_TABLES_SPECTRA_H
#define HY_TABLES_SPECTRA_H

#include "util/hy_util.h"

/* Store re + i*im as entry i of a complex table of precision p (f32 from
 * the long double value directly, never through double). */
void hy_tables_store(void *data, hyfft_precision p, int64_t i, long double re, long double im);
/* In-place long double DFT (sign -1) of re/im[0..n), any n; sre/sim are
 * n entries of scratch. */
hy_status hy_tables_fft_ld(long double *re, long double *im, int64_t n, long double *sre, long double *sim);
/* The chirp-spectrum table of Bluestein (HY_CHIRP_SPECTRUM in
 * planner/plan.h): m complex values of precision p, DFT_{-1}(b)/m with
 * b the conjugate chirp of length n wrapped around m, written to data. */
hy_status hy_tables_bluestein_spectrum(int64_t n, int64_t m, int sign, hyfft_precision p, void *data);
/* b^e mod m without overflow (m < 2^62). */
int64_t hy_tables_powmod(int64_t b, int64_t e, int64_t m);
/* The smallest primitive root of the prime p. */
int64_t hy_tables_primitive_root(int64_t p);
/* The powers g^q mod p, q < p - 1, of a root g of the prime p < 2^31, as
 * 32-bit integers: where Rader's convolution reads (g) or writes (g^-1). */
void hy_tables_rader_powers(int64_t p, int64_t g, int32_t *data);
/* The spectrum of Rader's convolution kernel for the prime p:
 * DFT_{-1}(b)/(p-1) with b_q = exp(sign*2*pi*i*(g^-q mod p)/p), g the
 * smallest primitive root; p - 1 complex values of precision prec. */
hy_status hy_tables_rader_spectrum(int64_t p, int sign, hyfft_precision prec, void *data);

#endif /* HY_TABLES_SPECTRA_H */
