/* Half-precision storage formats (HYFFT_F16, HYFFT_BF16): conversions
 * between their 16-bit patterns and f32 by integer bit manipulation, so
 * they give the same results on every machine and need no F16C or
 * compiler support. The generator emits the same algorithms for GPU
 * kernels (codegen/cg_storage.c); tests/unit/test_half.c checks these
 * against an independent reference.
 *
 *   f16 -> f32   exact: subnormals normalised, inf kept, NaN kept with its
 *                payload (the 10 fraction bits become the top of f32's 23).
 *   f32 -> f16   round to nearest, ties to even; magnitudes of 65520 and
 *                above become inf, below 2^-24 they round into the
 *                subnormals or to zero; NaN stays NaN (the top 10 payload
 *                bits, the quiet bit set where those are all zero), so an
 *                f16 -> f32 -> f16 round trip returns every pattern.
 *   bf16 -> f32  the pattern shifted into the upper 16 bits (exact).
 *   f32 -> bf16  round to nearest, ties to even (finite values that round
 *                past the largest bf16 become inf); NaN stays NaN (quiet
 *                bit set). */
#ifndef HY_HALF_H
#define HY_HALF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hyfft.h"

static inline float hy_bits_to_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline uint32_t hy_f32_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float hy_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return hy_bits_to_f32(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return hy_bits_to_f32(sign | ((exp + 112u) << 23) | (man << 13));
  /* Zero or subnormal: man * 2^-24, exact in f32 (a normal number there). */
  float v = (float)man * 0x1p-24f;
  return sign ? -v : v;
}

static inline uint16_t hy_f32_to_f16(float f) {
  uint32_t u = hy_f32_to_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) {
    uint32_t m = (a >> 13) & 0x3ffu;
    return (uint16_t)(sign | 0x7c00u | (m ? m : 0x200u));
  }
  /* 65520 = 65504 + half an ulp: the tie goes to the even neighbour, inf. */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (a >= 0x38800000u) {
    /* Normal f16: rebias the exponent (127 - 15 = 112), round the 13
     * dropped bits to even; a carry moves into the exponent correctly. */
    uint32_t r = a - 0x38000000u;
    r += 0xfffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
  }
  /* 2^-25 and below round to zero (2^-25 itself is a tie with even 0). */
  if (a <= 0x33000000u) return (uint16_t)sign;
  /* Subnormal f16: q = round(value * 2^24) from the 24-bit significand. */
  uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - e; /* 14..24 */
  uint32_t q = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) q++;
  return (uint16_t)(sign | q);
}

static inline float hy_bf16_to_f32(uint16_t h) { return hy_bits_to_f32((uint32_t)h << 16); }

static inline uint16_t hy_f32_to_bf16(float f) {
  uint32_t u = hy_f32_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

/* Whether a precision is a half-precision storage format. */
static inline int hy_precision_is_half(hyfft_precision p) {
  return p == HYFFT_F16 || p == HYFFT_BF16;
}

/* Convert `count` consecutive reals between a storage format and f32. */
void hy_half_widen(hyfft_precision storage, const uint16_t *in, float *out, int64_t count);
void hy_half_narrow(hyfft_precision storage, const float *in, uint16_t *out, int64_t count);

#endif /* HY_HALF_H */
