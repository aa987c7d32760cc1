/* Convolution tokens in the CLI's plan, verify and bench (conv.c). */
#ifndef HYFFT_CLI_CONV_H
#define HYFFT_CLI_CONV_H

#include <stdint.h>

#include "hyfft.h"

/* Whether a token names a convolution ("conv:..."). */
int cli_is_conv_token(const char *token);
/* hyfft plan: build the plan (random spectra) and print its description
 * (and source). Exit status. */
int cli_conv_plan(hyfft_context ctx, const char *token, unsigned flags, int source);
/* hyfft verify: one table line; 0 PASS, 1 FAIL or ERROR. */
int cli_conv_verify(hyfft_context ctx, const char *token, uint64_t seed, int builtin,
                    int64_t check_elems);
/* hyfft bench: one line (median time), and with vs_cufft / vs_vkfft on a
 * CUDA context one more for cuFFT's convolution (peer_cufft_conv.c) and
 * VkFFT's (peer_vkfft.c), each with its difference from hyfft's result,
 * and with vs_copy the copy floor (the output written from the input by
 * device copies) with hyfft's percentage of it; 0 ran, 1 failed. */
int cli_conv_bench(hyfft_context ctx, const hyfft_device_info *dev, const char *token,
                   uint64_t seed, int warmup, int runs, int host, int vs_cufft, int vs_vkfft,
                   int vs_copy);
/* cuFFT forward, a pointwise multiply kernel and cuFFT inverse on a
 * contiguous, unwindowed convolution (host input and spectra copied to
 * the device first): the median of `runs` event-timed executions; with
 * host_out, the B x K results afterwards. 0, or -1 with a reason in err. */
int cli_cufft_conv_time(const hyfft_problem *p, int64_t filters, const void *host_in,
                        size_t in_bytes, const void *spectra, size_t spectra_bytes, int warmup,
                        int runs, double *median, void *host_out, char *err, size_t errlen);
/* VkFFT's convolution (performConvolution, peer_vkfft.c and
 * vkfft/vkfft_shim.c) on the same contiguous, unwindowed problem: the K
 * spatial kernels transformed by VkFFT (not timed), then one append per
 * signal timed with CUDA events. With host_out, the B x K results in
 * hyfft's layout afterwards. 0, or -1 with a reason in err. */
int cli_vkfft_conv_time(const hyfft_problem *p, int64_t filters, const void *host_in,
                        size_t in_bytes, const void *host_kernels, int warmup, int runs,
                        double *median, void *host_out, char *err, size_t errlen);

#endif /* HYFFT_CLI_CONV_H */
