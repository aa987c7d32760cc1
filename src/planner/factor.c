/* Factorisation of transform lengths into codelet radices. */
#include <string.h>

#include "planner/kernel_model.h"
#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "util/hy_util.h"

int64_t hy_largest_prime_factor(int64_t n) {
  int64_t largest = 1;
  for (int64_t p = 2; p * p <= n; p += (p == 2 ? 1 : 2)) {
    while (n % p == 0) {
      largest = p;
      n /= p;
    }
  }
  if (n > 1) largest = n;
  return largest;
}

/* Radices with straight-line codelets, tried largest first for powers of
 * two (fewer passes over the data), then the odd primes. */
static const int hy_pow2_radices[] = {16, 8, 4, 2};
static const int hy_odd_radices[] = {3, 5, 7, 11, 13};

hy_status hy_factorize(int64_t n, int64_t max_prime, int *factors, int *nfactors) {
  int count = 0;
  int64_t m = n;
  int64_t twos = 1;
  while (m % 2 == 0) {
    m /= 2;
    twos *= 2;
  }
  /* Odd part: known odd radices, then generic odd primes. */
  int odd[HY_MAX_FACTORS];
  int nodd = 0;
  for (size_t i = 0; i < sizeof hy_odd_radices / sizeof hy_odd_radices[0]; i++) {
    while (m % hy_odd_radices[i] == 0) {
      if (nodd >= HY_MAX_FACTORS) return hy_error(HYFFT_INTERNAL, "too many factors");
      odd[nodd++] = hy_odd_radices[i];
      m /= hy_odd_radices[i];
    }
  }
  for (int64_t p = 17; m > 1 && p * p <= m; p += 2) {
    while (m % p == 0) {
      if (p > max_prime) return HYFFT_NO_SOLVER;
      if (nodd >= HY_MAX_FACTORS) return hy_error(HYFFT_INTERNAL, "too many factors");
      odd[nodd++] = (int)p;
      m /= p;
    }
  }
  if (m > 1) {
    if (m > max_prime) return HYFFT_NO_SOLVER;
    odd[nodd++] = (int)m;
  }
  /* Powers of two: as many 16s as possible, then one smaller radix. */
  while (twos > 1) {
    for (size_t i = 0; i < sizeof hy_pow2_radices / sizeof hy_pow2_radices[0]; i++) {
      if (twos % hy_pow2_radices[i] == 0) {
        if (count >= HY_MAX_FACTORS) return hy_error(HYFFT_INTERNAL, "too many factors");
        factors[count++] = hy_pow2_radices[i];
        twos /= hy_pow2_radices[i];
        break;
      }
    }
  }
  for (int i = 0; i < nodd; i++) {
    if (count >= HY_MAX_FACTORS) return hy_error(HYFFT_INTERNAL, "too many factors");
    factors[count++] = odd[i];
  }
  if (count == 0) factors[count++] = 1;
  *nfactors = count;
  return HYFFT_SUCCESS;
}

/* The smallest 2^a 3^b 5^c >= target with 2^a >= min_two (a power of
 * two), or the power of two >= target where it is at most 1.25x that:
 * a power of two runs in fewer, radix-16 stages than a 3- and 5-smooth
 * length (1009: 2048 = 16*16*8 against 2025 = 3^4 5^2), which is worth a
 * slightly longer convolution. */
static int64_t hy_convolution_length(int64_t target, int64_t min_two) {
  if (target < min_two) target = min_two;
  int64_t smooth = INT64_MAX, pow2 = min_two;
  for (int64_t a = min_two; a < INT64_MAX / 2; a *= 2) {
    for (int64_t b = a; b < INT64_MAX / 3; b *= 3) {
      for (int64_t c = b; c < INT64_MAX / 5; c *= 5) {
        if (c >= target) {
          if (c < smooth) smooth = c;
          break;
        }
      }
      if (b >= target) break;
    }
    if (a >= target) break;
  }
  while (pow2 < target) pow2 *= 2;
  return pow2 * 4 <= smooth * 5 ? pow2 : smooth;
}

int64_t hy_bluestein_length(int64_t n) {
  /* The cyclic convolution must hold the lags -(n-1)..(n-1); lags n-1
   * and -(n-1) may share a slot (m = 2n - 2), since the kernel b_l =
   * conj(chirp_l) is even in l and both put the same value there. That
   * makes a Fermat prime's length a power of two (65537: 2^17, not the
   * 3-smooth 131220). */
  return hy_convolution_length(2 * n - 2 > 1 ? 2 * n - 2 : 1, 1);
}

int64_t hy_bluestein_cpu_length(int64_t n) {
  return hy_convolution_length(2 * n - 2 > 1 ? 2 * n - 2 : 1, 8);
}

/* Stages of a GPU one-pass convolution of m points under the kernel
 * model's Bluestein radices (0 where m does not factor into codelets). */
static int hy_bluestein_gpu_stages(int64_t m) {
  hy_pass probe;
  hy_kernel_spec spec;
  memset(&probe, 0, sizeof probe);
  memset(&spec, 0, sizeof spec);
  probe.algo = HY_ALGO_BLUESTEIN;
  probe.bluestein_m = m;
  if (hy_factorize(m, HY_MAX_DIRECT_PRIME, probe.factors, &probe.nfactors) != HYFFT_SUCCESS) {
    hy_error_clear();
    return 0;
  }
  return hy_model_bluestein_radices(&probe, &spec);
}

int64_t hy_bluestein_gpu_length(int64_t n) {
  int64_t plain = hy_bluestein_length(n);
  int64_t target = 2 * n - 2 > 1 ? 2 * n - 2 : 1;
  if (plain > HY_BLUESTEIN_GPU_STAGED_MAX) return plain;
  /* A one-pass GPU Bluestein DFT is bound by its exchanges through local
   * memory, one per stage over all m points. Another length is taken
   * only where it saves a stage; of those, the one with the fewest points
   * times stages (2129: 4608 = 9 x 32 x 16, three stages, instead of
   * 4320 = 16 x 2 x 9 x 3 x 5, five). Ties go to the shorter length.
   * Lengths of as many stages as the plain choice keep it (1009 stays at
   * 2048 = 16 x 16 x 8 rather than 2025 = 9 x 9 x 25). */
  const int plain_stages = hy_bluestein_gpu_stages(plain);
  int64_t best = plain;
  double best_cost = (double)plain * plain_stages;
  for (int64_t a = 1; a <= 2 * target; a *= 2)
    for (int64_t b = a; b <= 2 * target; b *= 3)
      for (int64_t c = b; c <= 2 * target; c *= 5) {
        if (c < target || c > HY_BLUESTEIN_GPU_STAGED_MAX) continue;
        int stages = hy_bluestein_gpu_stages(c);
        double cost = (double)c * stages;
        if (stages == 0 || stages >= plain_stages) continue;
        if (cost < best_cost || (cost == best_cost && c < best)) {
          best = c;
          best_cost = cost;
        }
      }
  return best;
}

hy_status hy_choose_dft_algo(int64_t n, const hy_device_caps *caps, hy_pass *pass) {
  hy_status st = hy_factorize(n, HY_MAX_DIRECT_PRIME, pass->factors, &pass->nfactors);
  if (st == HYFFT_SUCCESS) {
    pass->algo = HY_ALGO_MIXED_RADIX;
    pass->bluestein_m = 0;
    return HYFFT_SUCCESS;
  }
  if (st != HYFFT_NO_SOLVER) return st;
  pass->algo = HY_ALGO_BLUESTEIN;
  pass->bluestein_m = !caps                               ? hy_bluestein_length(n)
                      : caps->backend == HYFFT_BACKEND_CPU ? hy_bluestein_cpu_length(n)
                                                           : hy_bluestein_gpu_length(n);
  return hy_factorize(pass->bluestein_m, HY_MAX_DIRECT_PRIME, pass->factors, &pass->nfactors);
}

int hy_rader_one_pass_pays(int64_t p) {
  if (p < 3) return 0;
  return hy_largest_prime_factor(p - 1) <= 5;
}

int hy_rader_length_pays(int64_t p) {
  int64_t odd = p - 1, twos = 0;
  if (p < 3) return 0;
  while (odd % 2 == 0) {
    odd /= 2;
    twos++;
  }
  return twos >= 4 && (odd == 1 || odd == 3 || odd == 5);
}
