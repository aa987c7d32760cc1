/* Building the CPU engine's execution nodes from a pass: the choice
 * between one gathered transform, a four-step split and Bluestein, and the
 * tables each needs (all from long double, see tables/twiddle.h). */
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_node.h"
#include "tables/twiddle.h"

void hy_cpu_kp_free(hy_cpu_kp *kp) {
  for (int s = 0; s < kp->nstages; s++) {
    hy_free(kp->stages[s].tw);
    hy_free(kp->stages[s].consts);
  }
  kp->nstages = 0;
}

void hy_cpu_node_free(hy_cpu_node *node) {
  if (!node) return;
  hy_cpu_kp_free(&node->kp);
  hy_cpu_node_free(node->a);
  hy_cpu_node_free(node->b);
  hy_cpu_node_free(node->fft);
  hy_free(node->chirp);
  hy_free(node->spec);
  hy_free(node->tw.lo);
  hy_free(node->tw.hi);
  hy_free(node->tw.lane);
  hy_free(node);
}

static hy_status hy_cpu_twiddle_build(hy_cpu_twiddle *tw, int64_t n, int sign) {
  if (n <= 0) return HYFFT_SUCCESS;
  int shift = 0;
  while (((int64_t)1 << (2 * shift)) < n) shift++;
  tw->n = n;
  tw->shift = shift;
  tw->mask = ((int64_t)1 << shift) - 1;
  int64_t nlo = tw->mask + 1, nhi = (n >> shift) + 1;
  tw->lo = hy_malloc(sizeof(double) * 2 * (size_t)nlo);
  tw->hi = hy_malloc(sizeof(double) * 2 * (size_t)nhi);
  if (!tw->lo || !tw->hi)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: twiddle table of period %lld", (long long)n);
  hy_twiddle_table_f64(tw->lo, nlo, 1, n, sign);
  hy_twiddle_table_f64(tw->hi, nhi, nlo, n, sign);
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_lane_twiddles(hy_cpu_node *node, int64_t T) {
  const int L = node->precision == HYFFT_F64 ? HY_CPU_LANES_F64 : HY_CPU_LANES_F32;
  const int64_t n = node->n;
  node->tw.lane = hy_malloc(sizeof(double) * 2 * (size_t)(n * L));
  if (!node->tw.lane)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: lane twiddles for n = %lld", (long long)n);
  for (int64_t k = 0; k < n; k++)
    for (int v = 0; v < L; v++) {
      long double re, im;
      hy_twiddle_ld((int64_t)(((__int128)v * k) % T), T, node->sign, &re, &im);
      node->tw.lane[k * L + v] = (double)re;
      node->tw.lane[n * L + k * L + v] = (double)im;
    }
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_kp_init(hy_cpu_kp *kp, hyfft_precision prec, int64_t n,
                                const int *factors, int nfactors, int sign) {
  return prec == HYFFT_F64 ? hy_cpu_kp_init_f64(kp, n, factors, nfactors, sign)
                           : hy_cpu_kp_init_f32(kp, n, factors, nfactors, sign);
}

static hy_status hy_cpu_bluestein_tables(hy_cpu_node *node) {
  const int64_t n = node->n, M = node->m;
  node->chirp = hy_malloc(sizeof(double) * 2 * (size_t)n);
  node->spec = hy_malloc(sizeof(double) * 2 * (size_t)M);
  /* The spectrum is computed with the same f64 engine, all lanes equal. */
  double *buf = hy_malloc(sizeof(double) * HY_CPU_LANES_F64 * 4 * (size_t)M);
  if (!node->chirp || !node->spec || !buf) {
    hy_free(buf);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: Bluestein tables for n = %lld", (long long)n);
  }
  const int L = HY_CPU_LANES_F64;
  double *ar = buf, *ai = buf + L * M, *br = buf + 2 * L * M, *bi = buf + 3 * L * M;
  memset(buf, 0, sizeof(double) * L * 2 * (size_t)M);
  for (int64_t j = 0; j < n; j++) {
    long double cr, ci;
    hy_chirp_ld(j, n, node->sign, &cr, &ci);
    node->chirp[j] = (double)cr;
    node->chirp[n + j] = (double)ci;
    /* b[j] = b[M-j] = conj(c[j]) */
    for (int v = 0; v < L; v++) {
      ar[j * L + v] = (double)cr;
      ai[j * L + v] = (double)-ci;
      if (j > 0) {
        ar[(M - j) * L + v] = (double)cr;
        ai[(M - j) * L + v] = (double)-ci;
      }
    }
  }
  int where = hy_cpu_kp_exec_f64(&node->kp, ar, ai, br, bi);
  const double *fr = where ? br : ar, *fi = where ? bi : ai;
  for (int64_t j = 0; j < M; j++) {
    node->spec[j] = fr[j * L] / (double)M;
    node->spec[M + j] = fi[j * L] / (double)M;
  }
  hy_free(buf);
  return HYFFT_SUCCESS;
}

hy_status hy_cpu_node_build(hyfft_precision prec, int sign, int64_t n, hy_dft_algo algo,
                            const int *factors, int nfactors, int64_t bluestein_m,
                            int64_t twiddle_n, hy_cpu_node **out) {
  hy_cpu_node *node = hy_calloc(1, sizeof *node);
  if (!node) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: node for n = %lld", (long long)n);
  node->precision = prec;
  node->sign = sign;
  node->n = n;
  hy_status st = hy_cpu_twiddle_build(&node->tw, twiddle_n, sign);
  if (st == HYFFT_SUCCESS && algo == HY_ALGO_BLUESTEIN) {
    node->kind = HY_CPU_BLUESTEIN;
    node->m = bluestein_m;
    if (bluestein_m < 2 * n - 2)
      st = hy_error(HYFFT_INTERNAL, "cpu engine: Bluestein length %lld < 2n-2 for n = %lld",
                    (long long)bluestein_m, (long long)n);
    if (st == HYFFT_SUCCESS) st = hy_cpu_kp_init_f64(&node->kp, bluestein_m, factors, nfactors, -1);
    if (st == HYFFT_SUCCESS) st = hy_cpu_bluestein_tables(node);
    if (st == HYFFT_SUCCESS)
      st = hy_cpu_node_build(HYFFT_F64, -1, bluestein_m, HY_ALGO_MIXED_RADIX, factors, nfactors,
                             0, 0, &node->fft);
  } else if (st == HYFFT_SUCCESS && n > HY_CPU_DIRECT_MAX && nfactors >= 2) {
    /* Split where the prefix product is closest to sqrt(n). */
    int best = 1;
    double best_d = 1e300;
    int64_t prod = 1;
    for (int i = 0; i < nfactors - 1; i++) {
      prod *= factors[i];
      double d = (double)prod * (double)prod / (double)n;
      if (d < 1) d = 1 / d;
      if (d < best_d) {
        best_d = d;
        best = i + 1;
      }
    }
    int64_t n1 = 1;
    for (int i = 0; i < best; i++) n1 *= factors[i];
    node->kind = HY_CPU_LARGE;
    node->n1 = n1;
    node->n2 = n / n1;
    st = hy_cpu_node_build(prec, sign, n1, HY_ALGO_MIXED_RADIX, factors, best, 0, n, &node->a);
    if (st == HYFFT_SUCCESS)
      st = hy_cpu_node_build(prec, sign, n / n1, HY_ALGO_MIXED_RADIX, factors + best,
                             nfactors - best, 0, 0, &node->b);
  } else if (st == HYFFT_SUCCESS) {
    node->kind = HY_CPU_DIRECT;
    st = hy_cpu_kp_init(&node->kp, prec, n, factors, nfactors, sign);
    if (st == HYFFT_SUCCESS && twiddle_n > 0) st = hy_cpu_lane_twiddles(node, twiddle_n);
  }
  if (st != HYFFT_SUCCESS) {
    hy_cpu_node_free(node);
    return st;
  }
  *out = node;
  return HYFFT_SUCCESS;
}
