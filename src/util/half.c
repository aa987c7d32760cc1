/* Runs of half-precision values to and from f32 (util/half.h). */
#include "util/half.h"

void hy_half_widen(hyfft_precision storage, const uint16_t *in, float *out, int64_t count) {
  if (storage == HYFFT_BF16)
    for (int64_t i = 0; i < count; i++) out[i] = hy_bf16_to_f32(in[i]);
  else
    for (int64_t i = 0; i < count; i++) out[i] = hy_f16_to_f32(in[i]);
}

void hy_half_narrow(hyfft_precision storage, const float *in, uint16_t *out, int64_t count) {
  if (storage == HYFFT_BF16)
    for (int64_t i = 0; i < count; i++) out[i] = hy_f32_to_bf16(in[i]);
  else
    for (int64_t i = 0; i < count; i++) out[i] = hy_f32_to_f16(in[i]);
}
