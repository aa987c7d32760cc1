/* The pre- and post-kernels of the cuFFT peer's DCT-II / DCT-III route
 * (peer_cufft_r2r.c): Makhoul's algorithm over every axis at once, around
 * one N-D cuFFT R2C (DCT-II) or C2R (DCT-III). This file is plain C as
 * well as CUDA C++: NVRTC compiles it at run time (the build embeds it as
 * a string, after a prelude defining HY_DEV as __device__, HY_REAL as
 * float or double and HY_SINCOSPI as sincospif or sincospi), and the CPU
 * test tools/hyfft/tests/r2r_route.c includes it (HY_DEV static, HY_REAL
 * double) to check these very element functions against the direct
 * definitions. No preprocessor lines here beyond comments.
 *
 * Shapes are three dims n0 x n1 x n2 (slowest first) of which the last
 * `d` are transformed (the others are 1), batched contiguously. For one
 * axis of length n, Makhoul's reorder is v_m = x_{src(m)}:
 * src(m) = 2m for 2m < n, else 2(n-1-m)+1 (evens ascending, then odds
 * descending), and x_j sits at v_{pos(j)}; with w_k = exp(-i pi k/(2n)),
 * the DCT-II is Y_k = 2 Re(w_k V_k) with V = DFT(v). Over d axes the
 * product of cosines becomes 2^(1-d) times a sum over the signs of every
 * axis but the last:
 *   Y(k) = 2 sum_s Re( w(k_last) prod_a w(k_a)^{s_a} V(s_0 k_0, .., k_last) )
 * (w^- = conj w, -k = n-k mod n), V from the R2C's half spectrum by
 * Hermitian symmetry. The DCT-III (its inverse up to 2n per axis) builds
 *   U(k) = prod_a conj(w(k_a)) sum_R (-i)^|R| X(k reflected on the axes in R)
 * (k_a -> n_a - k_a, zero where k_a = 0) on the half spectrum, runs the
 * unnormalised C2R, and gathers y_j = u_{pos(j)} per axis. */

HY_DEV HY_IDX hy_mk_src(HY_IDX m, HY_IDX n) { return 2 * m < n ? 2 * m : 2 * (n - 1 - m) + 1; }

HY_DEV HY_IDX hy_mk_pos(HY_IDX j, HY_IDX n) { return j % 2 == 0 ? j / 2 : n - 1 - (j - 1) / 2; }

/* w_k = exp(-i pi k / (2n)) = c - i s, from the axis's table (c, s per k). */
HY_DEV void hy_mk_twiddle(const HY_REAL *tw, HY_IDX k, HY_REAL *c, HY_REAL *s) {
  *c = tw[2 * k];
  *s = tw[2 * k + 1];
}

/* DCT-II pre: element i of the batched n0 x n1 x n2 array v. */
HY_DEV void hy_dct2_pre(const HY_REAL *x, HY_REAL *v, HY_IDX i, HY_IDX n0, HY_IDX n1,
                        HY_IDX n2) {
  HY_IDX nn = n0 * n1 * n2, b = i / nn, r = i % nn;
  HY_IDX m2 = r % n2, m1 = (r / n2) % n1, m0 = r / (n1 * n2);
  v[i] = x[b * nn + (hy_mk_src(m0, n0) * n1 + hy_mk_src(m1, n1)) * n2 + hy_mk_src(m2, n2)];
}

/* DCT-II post: output element i from the R2C's half spectrum V
 * (interleaved re, im; last dim n2/2+1); d the transformed dims (1..3). */
HY_DEV void hy_dct2_post(const HY_REAL *V, HY_REAL *y, HY_IDX i, HY_IDX n0, HY_IDX n1,
                         HY_IDX n2, int d, const HY_REAL *tw0, const HY_REAL *tw1,
                         const HY_REAL *tw2) {
  HY_IDX nn = n0 * n1 * n2, h = n2 / 2 + 1, b = i / nn, r = i % nn;
  HY_IDX k2 = r % n2, k1 = (r / n2) % n1, k0 = r / (n1 * n2);
  HY_REAL c0, s0, c1, s1, c2, s2;
  hy_mk_twiddle(tw0, k0, &c0, &s0);
  hy_mk_twiddle(tw1, k1, &c1, &s1);
  hy_mk_twiddle(tw2, k2, &c2, &s2);
  HY_REAL acc = 0;
  int e0 = d >= 3 ? 2 : 1, e1 = d >= 2 ? 2 : 1;
  for (int g0 = 0; g0 < e0; g0++) {
    HY_IDX a0 = g0 ? (n0 - k0) % n0 : k0;
    /* w0 or conj(w0): c0 - i (+-s0). */
    HY_REAL t0s = g0 ? -s0 : s0;
    for (int g1 = 0; g1 < e1; g1++) {
      HY_IDX a1 = g1 ? (n1 - k1) % n1 : k1;
      HY_REAL t1s = g1 ? -s1 : s1;
      /* t = (c0 - i t0s)(c1 - i t1s)(c2 - i s2) */
      HY_REAL pr = c0 * c1 - t0s * t1s, pi = -(c0 * t1s + t0s * c1);
      HY_REAL tr = pr * c2 + pi * s2, ti = pi * c2 - pr * s2;
      HY_REAL vr, vi;
      if (k2 < h) {
        HY_IDX q = ((b * n0 + a0) * n1 + a1) * h + k2;
        vr = V[2 * q];
        vi = V[2 * q + 1];
      } else {
        HY_IDX q = ((b * n0 + (n0 - a0) % n0) * n1 + (n1 - a1) % n1) * h + (n2 - k2);
        vr = V[2 * q];
        vi = -V[2 * q + 1];
      }
      acc += tr * vr - ti * vi;
    }
  }
  y[i] = 2 * acc;
}

/* DCT-III pre: element i of the half spectrum U (n0 x n1 x (n2/2+1),
 * interleaved) from the real input X. */
HY_DEV void hy_dct3_pre(const HY_REAL *x, HY_REAL *U, HY_IDX i, HY_IDX n0, HY_IDX n1,
                        HY_IDX n2, int d, const HY_REAL *tw0, const HY_REAL *tw1,
                        const HY_REAL *tw2) {
  HY_IDX nn = n0 * n1 * n2, h = n2 / 2 + 1, hh = n0 * n1 * h, b = i / hh, r = i % hh;
  HY_IDX k2 = r % h, k1 = (r / h) % n1, k0 = r / (n1 * h);
  HY_REAL ar = 0, ai = 0;
  int e0 = d >= 3 ? 2 : 1, e1 = d >= 2 ? 2 : 1;
  for (int g0 = 0; g0 < e0; g0++) {
    if (g0 && k0 == 0) continue;
    for (int g1 = 0; g1 < e1; g1++) {
      if (g1 && k1 == 0) continue;
      for (int g2 = 0; g2 < 2; g2++) {
        if (g2 && k2 == 0) continue;
        HY_IDX a0 = g0 ? n0 - k0 : k0, a1 = g1 ? n1 - k1 : k1, a2 = g2 ? n2 - k2 : k2;
        HY_REAL val = x[b * nn + (a0 * n1 + a1) * n2 + a2];
        /* times (-i)^(g0+g1+g2) */
        int q = (g0 + g1 + g2) & 3;
        if (q == 0) ar += val;
        else if (q == 1) ai -= val;
        else if (q == 2) ar -= val;
        else ai += val;
      }
    }
  }
  HY_REAL c0, s0, c1, s1, c2, s2;
  hy_mk_twiddle(tw0, k0, &c0, &s0);
  hy_mk_twiddle(tw1, k1, &c1, &s1);
  hy_mk_twiddle(tw2, k2, &c2, &s2);
  /* t = conj(w0 w1 w2) = (c0 + i s0)(c1 + i s1)(c2 + i s2) */
  HY_REAL pr = c0 * c1 - s0 * s1, pi = c0 * s1 + s0 * c1;
  HY_REAL tr = pr * c2 - pi * s2, ti = pr * s2 + pi * c2;
  U[2 * i] = tr * ar - ti * ai;
  U[2 * i + 1] = tr * ai + ti * ar;
}

/* DCT-III post: output element i gathered from the C2R's real output u. */
HY_DEV void hy_dct3_post(const HY_REAL *u, HY_REAL *y, HY_IDX i, HY_IDX n0, HY_IDX n1,
                         HY_IDX n2) {
  HY_IDX nn = n0 * n1 * n2, b = i / nn, r = i % nn;
  HY_IDX j2 = r % n2, j1 = (r / n2) % n1, j0 = r / (n1 * n2);
  y[i] = u[b * nn + (hy_mk_pos(j0, n0) * n1 + hy_mk_pos(j1, n1)) * n2 + hy_mk_pos(j2, n2)];
}
