/* Exactness of half-precision storage on a device: every f16 (bf16)
 * pattern goes through a rank-0 plan (c2c:f16:fwd:1:b32768:scale=S: load,
 * scale in f32, store; the generator's copy kernel on GPUs), and each
 * output pattern must equal what util/half.h (checked by unit.half
 * against a long-double reference) gives for the same steps: widen, one
 * f32 multiply, round to nearest even. The scales make ties (0.7109375 =
 * 91/128: every product is exact in f32, many land halfway between two
 * halves), subnormal results (2^-10, f16 only: bf16's subnormals are
 * f32's, which devices may flush) and overflow to inf (12). A NaN input
 * gives NaN. So a conversion that truncates, rounds ties away, flushes
 * subnormals, saturates instead of overflowing, or swaps the halves of an
 * element fails here, whatever the transforms' accuracy tests allow.
 * Usage: hyfft_half_exact [--device SPEC] (exit 77: no such device). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/half.h"

static void run(hyfft_context ctx, hyfft_precision p, double scale) {
  const char *name = p == HYFFT_F16 ? "f16" : "bf16";
  char token[96];
  snprintf(token, sizeof token, "c2c:%s:fwd:1:b32768:scale=%.17g", name, scale);
  hyfft_plan plan = NULL;
  hyfft_status st = hyfft_plan_token(ctx, token, HYFFT_ESTIMATE, &plan);
  CHECK(st == HYFFT_SUCCESS, "%s: plan: %s (%s)", token, hyfft_status_name(st), hyfft_last_error());
  if (st != HYFFT_SUCCESS) return;
  uint16_t *in = malloc(65536 * sizeof *in), *out = malloc(65536 * sizeof *out);
  if (!in || !out) {
    CHECK(0, "out of memory");
    free(in);
    free(out);
    hyfft_plan_destroy(plan);
    return;
  }
  /* Real parts take the patterns in order, imaginary parts reversed, so a
   * swap of the two halves shows. */
  for (int i = 0; i < 32768; i++) {
    in[2 * i] = (uint16_t)i;
    in[2 * i + 1] = (uint16_t)(65535 - i);
  }
  memset(out, 0x5a, 65536 * sizeof *out);
  st = hyfft_execute(plan, in, out);
  CHECK(st == HYFFT_SUCCESS, "%s: execute: %s (%s)", token, hyfft_status_name(st),
        hyfft_last_error());
  long bad = 0;
  float s = (float)scale;
  for (int i = 0; i < 65536 && st == HYFFT_SUCCESS; i++) {
    float x = p == HYFFT_F16 ? hy_f16_to_f32(in[i]) : hy_bf16_to_f32(in[i]);
    float y = scale == 1.0 ? x : x * s;
    uint16_t want = p == HYFFT_F16 ? hy_f32_to_f16(y) : hy_f32_to_bf16(y);
    float got = p == HYFFT_F16 ? hy_f16_to_f32(out[i]) : hy_bf16_to_f32(out[i]);
    int ok = isnan(y) ? isnan(got) : out[i] == want;
    if (!ok && bad++ < 5)
      fprintf(stderr, "%s: element %d (%s): input 0x%04x -> 0x%04x, expected 0x%04x\n", token,
              i / 2, i % 2 ? "imag" : "real", in[i], out[i], want);
  }
  CHECK(bad == 0, "%s: %ld of 65536 halves differ from the reference conversion", token, bad);
  free(in);
  free(out);
  hyfft_plan_destroy(plan);
}

int main(int argc, char **argv) {
  const char *device = "cpu";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--device SPEC]\n", argv[0]);
      return 2;
    }
  }
  hyfft_context ctx;
  hyfft_status st = hyfft_context_create(device, &ctx);
  if (st != HYFFT_SUCCESS) {
    printf("SKIP: device '%s': %s (%s)\n", device, hyfft_status_name(st), hyfft_last_error());
    return 77;
  }
  static const double f16_scales[] = {1.0, 0.7109375, 0x1p-10, 12.0};
  static const double bf16_scales[] = {1.0, 0.7109375, 12.0};
  for (size_t i = 0; i < sizeof f16_scales / sizeof f16_scales[0]; i++)
    run(ctx, HYFFT_F16, f16_scales[i]);
  for (size_t i = 0; i < sizeof bf16_scales / sizeof bf16_scales[0]; i++)
    run(ctx, HYFFT_BF16, bf16_scales[i]);
  hyfft_context_destroy(ctx);
  return hy_test_summary();
}
