/* The loops of the real-transform steps for one precision, included by
 * ops_real.c once per precision with HY_RT (the element type: float or
 * double), HY_RT_F64 (1 for double) and HY_RN(name) (name with the
 * precision's suffix) defined. Arithmetic is in double for both
 * precisions and each output is rounded once when it is stored, so the
 * vector and the scalar loops give the same bits.
 *
 * Every step has a scalar loop for any strides and a fast path for a
 * transform whose axis has unit stride at both ends and whose source and
 * destination do not partly overlap: plain loops over restrict pointers
 * that the compiler vectorises (WIDEN, NARROW, C2R_EXTEND), and for
 * R2C_POST / C2R_PRE blocks of four pairs (k..k+3 with m-k-3..m-k) in
 * vector registers, the upper block read and written in reverse. */

/* ---- scalar element access ------------------------------------------ */

HY_INLINE void HY_RN(ld_c)(const HY_RT *p, int64_t i, double *re, double *im) {
  *re = (double)p[2 * i];
  *im = (double)p[2 * i + 1];
}

HY_INLINE void HY_RN(st_c)(HY_RT *p, int64_t i, double re, double im) {
  p[2 * i] = (HY_RT)re;
  p[2 * i + 1] = (HY_RT)im;
}

/* ---- four complex elements as two double vectors (interleaved) ------- */

HY_INLINE void HY_RN(ld4)(const HY_RT *p, hy_d4 *lo, hy_d4 *hi) {
#if HY_RT_F64
  memcpy(lo, p, sizeof *lo);
  memcpy(hi, p + 4, sizeof *hi);
#else
  /* All eight floats converted at once: one load and two widenings. */
  hy_f8 a;
  memcpy(&a, p, sizeof a);
  hy_d8 w = __builtin_convertvector(a, hy_d8);
  memcpy(lo, &w, sizeof *lo);
  memcpy(hi, (const double *)&w + 4, sizeof *hi);
#endif
}

HY_INLINE void HY_RN(st4)(HY_RT *p, const hy_d4 *lo, const hy_d4 *hi) {
#if HY_RT_F64
  memcpy(p, lo, sizeof *lo);
  memcpy(p + 4, hi, sizeof *hi);
#else
  hy_f4 a = __builtin_convertvector(*lo, hy_f4), b = __builtin_convertvector(*hi, hy_f4);
  memcpy(p, &a, sizeof a);
  memcpy(p + 4, &b, sizeof b);
#endif
}

/* ---- unit-stride loops (restrict: the caller checked the overlap) ---- */

/* d[i] = scale * s[i], i < count (reals): WIDEN and NARROW with real_pairs. */
HY_INLINE void HY_RN(scale_copy)(HY_RT *restrict d, const HY_RT *restrict s, int64_t count,
                                 double scale) {
  for (int64_t i = 0; i < count; i++) d[i] = (HY_RT)(scale * (double)s[i]);
}

/* WIDEN without real_pairs: d_e = scale * (s_e + 0i). */
HY_INLINE void HY_RN(widen1)(HY_RT *restrict d, const HY_RT *restrict s, int64_t count,
                             double scale) {
  const HY_RT zero = (HY_RT)(scale * 0.0);
  for (int64_t e = 0; e < count; e++) {
    d[2 * e] = (HY_RT)(scale * (double)s[e]);
    d[2 * e + 1] = zero;
  }
}

/* NARROW without real_pairs: d_e = scale * Re(s_e). */
HY_INLINE void HY_RN(narrow1)(HY_RT *restrict d, const HY_RT *restrict s, int64_t count,
                              double scale) {
  for (int64_t e = 0; e < count; e++) d[e] = (HY_RT)(scale * (double)s[2 * e]);
}

/* C2R_EXTEND over [lo, hi) of a transform of length n: d_e = scale * s_e
 * for e <= n/2 (imaginary part 0 at e = 0 and e = n/2 for even n), scale
 * * conj(s_n-e) above. */
HY_INLINE void HY_RN(extend)(HY_RT *restrict d, const HY_RT *restrict s, int64_t lo, int64_t hi,
                             int64_t n, double scale) {
  const HY_RT zero = (HY_RT)(scale * 0.0);
  int64_t mid = n / 2 + 1 < hi ? n / 2 + 1 : hi;
  for (int64_t e = lo; e < mid; e++) {
    d[2 * e] = (HY_RT)(scale * (double)s[2 * e]);
    d[2 * e + 1] = (HY_RT)(scale * (double)s[2 * e + 1]);
  }
  if (lo == 0) d[1] = zero;
  if (n % 2 == 0 && lo <= n / 2 && n / 2 < hi) d[n + 1] = zero;
  for (int64_t e = mid > lo ? mid : lo; e < hi; e++) {
    d[2 * e] = (HY_RT)(scale * (double)s[2 * (n - e)]);
    d[2 * e + 1] = (HY_RT)(scale * -(double)s[2 * (n - e) + 1]);
  }
}

/* R2C_POST or C2R_PRE on the blocks k..k+3 and m-k-3..m-k of one
 * transform (s, d at its element 0), k >= 1 and the blocks disjoint; tre
 * and tim are the real and imaginary parts of the twiddles. Those of the
 * upper block are -conj of the lower's, which is how the table holds
 * them (hy_cpu_op_real_table), so they come from the lower block's: the
 * same values, bit for bit. */
HY_INLINE void HY_RN(pair4)(const HY_RT *s, HY_RT *d, const double *tre, const double *tim,
                            int64_t k, int64_t m, double scale, const int post,
                            const int scaled) {
  hy_d4 lo, hi, tr, ti;
  HY_RN(ld4)(s + 2 * k, &lo, &hi);
  hy_d4 ar = HY_SHUF(lo, hi, 0, 2, 4, 6), ai = HY_SHUF(lo, hi, 1, 3, 5, 7);
  HY_RN(ld4)(s + 2 * (m - k - 3), &lo, &hi);
  hy_d4 br = HY_SHUF(lo, hi, 6, 4, 2, 0), bi = HY_SHUF(lo, hi, 7, 5, 3, 1);
  memcpy(&tr, tre + k, sizeof tr);
  memcpy(&ti, tim + k, sizeof ti);
  hy_d4 nr = -tr;
  hy_d4 xr, xi, yr, yi;
  if (post) {
    hy_r2c_v(&tr, &ti, &ar, &ai, &br, &bi, &xr, &xi);
    hy_r2c_v(&nr, &ti, &br, &bi, &ar, &ai, &yr, &yi);
  } else {
    hy_c2r_v(&tr, &ti, &ar, &ai, &br, &bi, &xr, &xi);
    hy_c2r_v(&nr, &ti, &br, &bi, &ar, &ai, &yr, &yi);
  }
  /* scale 1 leaves every value as it is: no multiply then. */
  if (scaled) xr = scale * xr, xi = scale * xi, yr = scale * yr, yi = scale * yi;
  lo = HY_SHUF(xr, xi, 0, 4, 1, 5), hi = HY_SHUF(xr, xi, 2, 6, 3, 7);
  HY_RN(st4)(d + 2 * k, &lo, &hi);
  lo = HY_SHUF(yr, yi, 3, 7, 2, 6), hi = HY_SHUF(yr, yi, 1, 5, 0, 4);
  HY_RN(st4)(d + 2 * (m - k - 3), &lo, &hi);
}

/* ---- R2C_POST / C2R_PRE on pairs [lo, hi) of one transform ----------
 * n = m + 1 elements at s and d (strides is, os); pair k is (k, m - k),
 * pair 0 the elements 0 and m. */
HY_INLINE void HY_RN(pairs)(const double *table, int64_t n, const HY_RT *s, int64_t is, HY_RT *d,
                            int64_t os, int64_t lo, int64_t hi, double scale, const int post) {
  const int64_t m = n - 1;
  const int unit = is == 1 && os == 1;
  const double *tre = table, *tim = table + n; /* the table's halves */
  int64_t k = lo;
  if (k == 0) {
    double ar, ai, br, bi;
    HY_RN(ld_c)(s, 0, &ar, &ai);
    if (post) {
      HY_RN(st_c)(d, 0, scale * (ar + ai), 0.0);
      HY_RN(st_c)(d, m * os, scale * (ar - ai), 0.0);
    } else {
      HY_RN(ld_c)(s, m * is, &br, &bi);
      /* imaginary parts of X_0 and X_m taken as 0 */
      HY_RN(st_c)(d, 0, scale * (ar + br), scale * (ar - br));
    }
    k = 1;
  }
  /* Blocks where the transform is in place or apart from its source; one
   * loop per direction and per scale-or-not, so that neither is a branch
   * per block. */
  if (unit && (s == d || hy_real_apart(s, 2 * n, d, 2 * n, sizeof(HY_RT)))) {
    const int scaled = scale != 1.0;
    if (post && scaled)
      for (; k + 3 < hi && k + 3 < m - k - 3; k += 4) HY_RN(pair4)(s, d, tre, tim, k, m, scale, 1, 1);
    else if (post)
      for (; k + 3 < hi && k + 3 < m - k - 3; k += 4) HY_RN(pair4)(s, d, tre, tim, k, m, scale, 1, 0);
    else if (scaled)
      for (; k + 3 < hi && k + 3 < m - k - 3; k += 4) HY_RN(pair4)(s, d, tre, tim, k, m, scale, 0, 1);
    else
      for (; k + 3 < hi && k + 3 < m - k - 3; k += 4) HY_RN(pair4)(s, d, tre, tim, k, m, scale, 0, 0);
  }
  for (; k < hi; k++) {
    double ar, ai, br, bi, xr, xi, yr, yi;
    HY_RN(ld_c)(s, k * is, &ar, &ai);
    HY_RN(ld_c)(s, (m - k) * is, &br, &bi);
    if (post) {
      hy_r2c_one(tre[k], tim[k], ar, ai, br, bi, &xr, &xi);
      hy_r2c_one(tre[m - k], tim[m - k], br, bi, ar, ai, &yr, &yi);
    } else {
      hy_c2r_one(tre[k], tim[k], ar, ai, br, bi, &xr, &xi);
      hy_c2r_one(tre[m - k], tim[m - k], br, bi, ar, ai, &yr, &yi);
    }
    HY_RN(st_c)(d, k * os, scale * xr, scale * xi);
    if (2 * k != m) HY_RN(st_c)(d, (m - k) * os, scale * yr, scale * yi);
  }
}

/* The step of one whole transform (the engine's rows, hy_cpu_op_real_one):
 * every pair, no pass or thread pool. */
HY_REAL_CLONES static void HY_RN(one)(int post, const double *table, int64_t m, const void *src,
                                      int64_t is, void *dst, int64_t os, double scale) {
  HY_RN(pairs)(table, m + 1, (const HY_RT *)src, is, (HY_RT *)dst, os, 0, m / 2 + 1, scale, post);
}

/* ---- one work item: a chunk of one transform ------------------------- */

HY_REAL_CLONES static void HY_RN(range)(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_real_run *r = arg;
  const hy_pass *pass = r->pass;
  const double *table = r->table; /* held locally: stores may alias *r for all the compiler knows */
  const double scale = pass->scale;
  const int64_t is = pass->axis.in_stride, os = pass->axis.out_stride, n = pass->axis.n;
  const int pairs = pass->real_pairs;
  /* Reals per element at each end. */
  const int64_t sw = pass->op == HY_PASS_WIDEN ? 1 : 2, dw = pass->op == HY_PASS_NARROW ? 1 : 2;
  for (int64_t item = begin; item < end; item++) {
    int64_t t = item / r->chunks, c = item % r->chunks;
    int64_t lo = c * HY_REAL_CHUNK, hi = lo + HY_REAL_CHUNK;
    if (hi > r->items) hi = r->items;
    int64_t ib, ob;
    hy_pass_loop_offsets(pass, t, &ib, &ob);
    const HY_RT *s = (const HY_RT *)r->src + sw * ib;
    HY_RT *d = (HY_RT *)r->dst + dw * ob;
    const int unit = is == 1 && os == 1;
    switch (pass->op) {
      case HY_PASS_WIDEN:
        if (unit && hy_real_apart(s + (pairs + 1) * lo, (pairs + 1) * (hi - lo), d + 2 * lo,
                                  2 * (hi - lo), sizeof(HY_RT))) {
          if (pairs) HY_RN(scale_copy)(d + 2 * lo, s + 2 * lo, 2 * (hi - lo), scale);
          else HY_RN(widen1)(d + 2 * lo, s + lo, hi - lo, scale);
          break;
        }
        for (int64_t e = lo; e < hi; e++) {
          double re, im = 0;
          if (pairs) {
            re = (double)s[2 * e * is];
            im = (double)s[(2 * e + 1) * is];
          } else {
            re = (double)s[e * is];
          }
          HY_RN(st_c)(d, e * os, scale * re, scale * im);
        }
        break;
      case HY_PASS_NARROW:
        if (unit && hy_real_apart(s + 2 * lo, 2 * (hi - lo), d + (pairs + 1) * lo,
                                  (pairs + 1) * (hi - lo), sizeof(HY_RT))) {
          if (pairs) HY_RN(scale_copy)(d + 2 * lo, s + 2 * lo, 2 * (hi - lo), scale);
          else HY_RN(narrow1)(d + lo, s + 2 * lo, hi - lo, scale);
          break;
        }
        for (int64_t e = lo; e < hi; e++) {
          double re, im;
          HY_RN(ld_c)(s, e * is, &re, &im);
          if (pairs) {
            d[2 * e * os] = (HY_RT)(scale * re);
            d[(2 * e + 1) * os] = (HY_RT)(scale * im);
          } else {
            d[e * os] = (HY_RT)(scale * re);
          }
        }
        break;
      case HY_PASS_C2R_EXTEND:
        /* Reads s_0..s_n/2, writes d_lo..d_hi-1. */
        if (unit && hy_real_apart(s, 2 * (n / 2 + 1), d + 2 * lo, 2 * (hi - lo), sizeof(HY_RT))) {
          HY_RN(extend)(d, s, lo, hi, n, scale);
          break;
        }
        for (int64_t e = lo; e < hi; e++) {
          double re, im;
          if (e <= n / 2) {
            HY_RN(ld_c)(s, e * is, &re, &im);
            if (e == 0 || 2 * e == n) im = 0;
          } else {
            HY_RN(ld_c)(s, (n - e) * is, &re, &im);
            im = -im;
          }
          HY_RN(st_c)(d, e * os, scale * re, scale * im);
        }
        break;
      case HY_PASS_R2C_POST:
      case HY_PASS_C2R_PRE:
        HY_RN(pairs)(table, n, s, is, d, os, lo, hi, scale, pass->op == HY_PASS_R2C_POST);
        break;
      default:
        break;
    }
  }
}
