/* The CUDA source of the cuFFT peer's DCT-II/DCT-III route (Makhoul's
 * algorithm around one N-D cuFFT R2C or C2R): cufft_r2r_src.c. */
#ifndef HYFFT_CLI_CUFFT_R2R_SRC_H
#define HYFFT_CLI_CUFFT_R2R_SRC_H

/* The kernels in the program, in this order: DCT-II pre and post, DCT-III
 * pre and post. */
extern const char *const cli_r2r_kernel_names[4];

/* The whole program for NVRTC for f32 (0) or f64 (1); malloc'd, NULL when
 * out of memory. */
char *cli_r2r_route_source(int f64);

#endif /* HYFFT_CLI_CUFFT_R2R_SRC_H */
