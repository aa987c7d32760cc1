/* The CUDA source of the cuFFT peer's DCT-II/DCT-III route (Makhoul's
 * algorithm around one N-D cuFFT R2C or C2R): cufft_r2r_src.c. */
#ifndef HYFFT_CLI_CUFFT_R2R_SRC_H
#define HYFFT_CLI_CUFFT_R2R_SRC_H

/* The kernels in the program, in this order: DCT-II pre and post, DCT-III
 * pre and post. */
extern const char *const cli_r2r_kernel_names[4];

/* The whole program for NVRTC for f32 (0) or f64 (1), the padded lengths
 * n0 x n1 x n2 of which the last d are transformed, and 64-bit (idx64) or
 * 32-bit unsigned indices; malloc'd, NULL when out of memory. The kernels
 * take (const T *in, T *out, const T *tw, unsigned long long total). */
char *cli_r2r_route_source(int f64, long long n0, long long n1, long long n2, int d, int idx64);

/* The twiddle table the kernels read: for each axis in turn (n0, n1, n2
 * entries), cos and sin of pi k / (2 n), computed in long double. */
void cli_r2r_twiddles(long long n0, long long n1, long long n2, double *tw);

#endif /* HYFFT_CLI_CUFFT_R2R_SRC_H */
