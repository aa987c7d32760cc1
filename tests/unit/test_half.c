/* The half-precision conversions of util/half.h against a reference that
 * shares none of their bit tricks: values decoded with ldexpl, and
 * rounding done in long double (the value divided by its ulp, rounded by
 * nearbyintl in the default round-to-nearest-even mode, scaled back).
 *   - every one of the 65536 f16 patterns decodes to its value and
 *     f16 -> f32 -> f16 gives the pattern back (NaN patterns included);
 *   - f32 -> f16 at every f16 value, every tie between neighbours (and one
 *     f32 ulp either side), around overflow (65504 ... 65520 ... inf) and
 *     in the subnormals, and at a million random f32 patterns;
 *   - the same for bf16 (its subnormals are f32's; 2^128 - 2^119 is the
 *     first value that rounds to inf). */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "util/half.h"

typedef struct fmt {
  const char *name;
  int man_bits; /* stored fraction bits */
  int emin;     /* exponent of the smallest normal */
  long double max;
  float (*widen)(uint16_t);
  uint16_t (*narrow)(float);
} fmt;

static const fmt f16 = {"f16", 10, -14, 65504.0L, hy_f16_to_f32, hy_f32_to_f16};
static const fmt bf16 = {"bf16", 7, -126, 0x1.fep127L, hy_bf16_to_f32, hy_f32_to_bf16};

/* Value of a pattern from the format's definition. */
static long double decode(const fmt *f, uint16_t h, int *is_nan) {
  int ebits = 15 - f->man_bits, bias = (1 << (ebits - 1)) - 1;
  int sign = h >> 15, exp = (h >> f->man_bits) & ((1 << ebits) - 1);
  int man = h & ((1 << f->man_bits) - 1);
  long double v;
  *is_nan = 0;
  if (exp == (1 << ebits) - 1) {
    if (man) *is_nan = 1;
    v = INFINITY;
  } else if (exp == 0) {
    v = ldexpl((long double)man, 1 - bias - f->man_bits);
  } else {
    v = ldexpl((long double)(man + (1 << f->man_bits)), exp - bias - f->man_bits);
  }
  return sign ? -v : v;
}

/* Round x to the format, to nearest with ties to even, in long double. */
static long double round_ref(const fmt *f, long double x) {
  if (isnan(x) || isinf(x) || x == 0) return x;
  long double a = fabsl(x);
  int e;
  frexpl(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  e -= 1;        /* a in [2^e, 2^(e+1)) */
  if (e < f->emin) e = f->emin;
  long double ulp = ldexpl(1.0L, e - f->man_bits);
  long double r = nearbyintl(a / ulp) * ulp;
  if (r > f->max) r = INFINITY;
  return x < 0 ? -r : r;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t rng32(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}

/* f32 -> format of x against the reference: the result, widened, equals
 * the reference's value (zeros with x's sign; NaN stays NaN). Counts and
 * reports the first mismatch. */
static long bad_narrow;
static void check_narrow(const fmt *f, float x) {
  uint16_t h = f->narrow(x);
  float got = f->widen(h);
  int ok;
  if (isnan(x)) {
    ok = isnan(got);
  } else {
    long double want = round_ref(f, (long double)x);
    ok = (long double)got == want && !signbit(got) == !signbit(x);
    if (!ok && bad_narrow == 0)
      fprintf(stderr, "%s: narrow(%a) = 0x%04x (%a), reference %La\n", f->name, (double)x, h,
              (double)got, want);
  }
  if (!ok) bad_narrow++;
}

static void test_format(const fmt *f) {
  long bad_decode = 0, bad_trip = 0;
  bad_narrow = 0;
  /* Every pattern: decode, round trip, and the ties around it. */
  for (uint32_t u = 0; u < 65536; u++) {
    uint16_t h = (uint16_t)u;
    int is_nan;
    long double v = decode(f, h, &is_nan);
    float w = f->widen(h);
    int ok = is_nan ? isnan(w) : ((long double)w == v && !signbit(w) == !signbit(v));
    if (!ok && bad_decode++ == 0)
      fprintf(stderr, "%s: widen(0x%04x) = %a, expected %La\n", f->name, h, (double)w, v);
    uint16_t back = f->narrow(w);
    /* f16 keeps every pattern, NaN payloads included; bf16 may quieten a
     * signalling NaN, but NaN stays NaN. */
    int trip = back == h || (is_nan && f == &bf16 && isnan(f->widen(back)));
    if (!trip && bad_trip++ == 0)
      fprintf(stderr, "%s: 0x%04x -> %a -> 0x%04x\n", f->name, h, (double)w, back);
    if (is_nan || isinf(v)) continue;
    check_narrow(f, w);
    /* The tie between h and the next pattern up (same sign), and the f32
     * values either side of it. */
    if ((h & 0x7fffu) == 0x7fffu) continue;
    int nn;
    long double next = decode(f, (uint16_t)(h + 1), &nn);
    if (nn) continue;
    long double mid = (v + next) / 2;
    if (isinf(next)) mid = v + (v - decode(f, (uint16_t)(h - 1), &nn)) / 2;
    float m = (float)mid;
    if ((long double)m != mid) continue; /* not an f32 (not reached for these formats) */
    check_narrow(f, m);
    check_narrow(f, nextafterf(m, INFINITY));
    check_narrow(f, nextafterf(m, -INFINITY));
  }
  CHECK(bad_decode == 0, "%s: %ld patterns decode wrongly", f->name, bad_decode);
  CHECK(bad_trip == 0, "%s: %ld patterns do not round-trip", f->name, bad_trip);
  CHECK(bad_narrow == 0, "%s: %ld values and ties round wrongly", f->name, bad_narrow);

  /* Overflow, underflow and specials. */
  bad_narrow = 0;
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX,
                            FLT_MIN, 0x1p-149f, -0x1p-149f, 65504.0f, 65519.0f, 65519.996f,
                            65520.0f, -65520.0f, 65536.0f, 1e5f, 0x1p-24f, 0x1p-25f,
                            0x1.000002p-25f, -0x1p-25f, 0x1.8p-24f, 0x1.4p-23f, 0x1p-14f,
                            0x1.ffcp-15f, 0x1.ffep-15f, 0x1.fff8p-15f, 0x1.fep127f,
                            0x1.fefffep127f, 0x1.ff0000p127f, 3.0e38f, 1.0f, 1.0009766f,
                            2049.0f, 2051.0f, 4097.0f, 257.0f, 259.0f};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) check_narrow(f, specials[i]);
  CHECK(bad_narrow == 0, "%s: %ld special values round wrongly", f->name, bad_narrow);

  /* Random f32 patterns, every exponent alike. */
  bad_narrow = 0;
  for (int i = 0; i < 1000000; i++) check_narrow(f, hy_bits_to_f32(rng32() ^ (rng32() << 16)));
  CHECK(bad_narrow == 0, "%s: %ld of a million random f32 values round wrongly", f->name,
        bad_narrow);
}

/* The run converters agree with the scalar ones. */
static void test_runs(void) {
  uint16_t h[256], back[256];
  float w[256];
  for (int i = 0; i < 256; i++) h[i] = (uint16_t)(rng32() & 0x7bffu);
  for (int p = 0; p < 2; p++) {
    hyfft_precision s = p ? HYFFT_BF16 : HYFFT_F16;
    hy_half_widen(s, h, w, 256);
    hy_half_narrow(s, w, back, 256);
    int ok = 1;
    for (int i = 0; i < 256; i++) {
      float want = p ? hy_bf16_to_f32(h[i]) : hy_f16_to_f32(h[i]);
      if (hy_f32_to_bits(w[i]) != hy_f32_to_bits(want) || back[i] != h[i]) ok = 0;
    }
    CHECK(ok, "hy_half_widen/narrow (%s) differ from the scalar conversions", p ? "bf16" : "f16");
  }
}

int main(void) {
  fesetround(FE_TONEAREST);
  test_format(&f16);
  test_format(&bf16);
  test_runs();
  return hy_test_summary();
}
