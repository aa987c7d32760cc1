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
/* hyfft bench: one line (median time); 0 ran, 1 failed. */
int cli_conv_bench(hyfft_context ctx, const hyfft_device_info *dev, const char *token,
                   uint64_t seed, int warmup, int runs, int host);

#endif /* HYFFT_CLI_CONV_H */
