/* CPU engine impl, part 2 of 6: Stockham stages and kernel plans. Each
 * radix gets one stage function per direction (built from HY_STAGE around
 * a butterfly of part 1) so the radix and sign are constants inside the
 * loops; hy_kp_exec runs a kernel plan's stages ping-ponging between two
 * buffers, and hy_cpu_kp_init builds the plan's twiddle and odd-radix
 * constant tables from long double. Included only by cpu_engine_impl.h,
 * once per precision. */

/* ---- Stockham stages ---------------------------------------------------
 * Stage with radix R after sub-transforms of length ns: element j = b*ns+k
 * reads x[j + r*n/R], twiddles by exp(s*2*pi*i*r*k/(ns*R)), and writes
 * y[b*ns*R + k + r*ns]: the output is in natural order after the last
 * stage (autosort), every access is a whole vector. */
#define HY_STAGE_A(NAME, RDECL, RA, BFLY, ATTR)                                                     \
  HY_INLINE void NAME##_impl(const hy_cpu_stage *st, int64_t n, const hy_v *restrict ir,    \
                             const hy_v *restrict ii, hy_v *restrict or_,                   \
                             hy_v *restrict oi, const int s) {                              \
    RDECL;                                                                                  \
    const int64_t ns = st->ns, m = n / R, nb = m / ns;                                      \
    const hy_r *twr = st->tw, *twi = twr + (R - 1) * ns;                                    \
    const hy_r *cs = st->consts;                                                            \
    (void)cs;                                                                               \
    for (int64_t b = 0; b < nb; b++) {                                                      \
      for (int64_t k = 0; k < ns; k++) {                                                    \
        const int64_t j = b * ns + k, o = b * ns * R + k;                                   \
        hy_v xr[RA], xi[RA];                                                                \
        for (int r = 0; r < R; r++) {                                                       \
          xr[r] = ir[j + r * m];                                                            \
          xi[r] = ii[j + r * m];                                                            \
        }                                                                                   \
        if (ns > 1)                                                                         \
          for (int r = 1; r < R; r++)                                                       \
            hy_cmul(&xr[r], &xi[r], twr[(r - 1) * ns + k], twi[(r - 1) * ns + k]);           \
        BFLY;                                                                               \
        for (int r = 0; r < R; r++) {                                                       \
          or_[o + r * ns] = xr[r];                                                          \
          oi[o + r * ns] = xi[r];                                                           \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }                                                                                         \
  HY_CLONES ATTR static void NAME##_fwd(const hy_cpu_stage *st, int64_t n, const hy_v *ir,       \
                                   const hy_v *ii, hy_v *or_, hy_v *oi) {                   \
    NAME##_impl(st, n, ir, ii, or_, oi, -1);                                                \
  }                                                                                         \
  HY_CLONES ATTR static void NAME##_bwd(const hy_cpu_stage *st, int64_t n, const hy_v *ir,       \
                                   const hy_v *ii, hy_v *or_, hy_v *oi) {                   \
    NAME##_impl(st, n, ir, ii, or_, oi, +1);                                                \
  }

#define HY_STAGE(NAME, RDECL, RA, BFLY) HY_STAGE_A(NAME, RDECL, RA, BFLY, )
/* Radix 16 without GCC's induction-variable rewrite: it turns the 64
 * strided streams into 64 base pointers, which live on the stack and are
 * reloaded before nearly every vector access (44% of the stage's samples
 * at n = 4096); without it the addresses are computed from a few
 * registers. */
#if defined(__GNUC__) && !defined(__clang__)
#define HY_NO_IVOPTS __attribute__((optimize("no-ivopts")))
#else
#define HY_NO_IVOPTS
#endif

HY_STAGE(hy_stage2, const int R = 2, 2, HY_GEN_DFT(2, xr, xi, s))
HY_STAGE(hy_stage3, const int R = 3, 3, HY_GEN_DFT(3, xr, xi, s))
HY_STAGE(hy_stage4, const int R = 4, 4, HY_GEN_DFT(4, xr, xi, s))
HY_STAGE(hy_stage5, const int R = 5, 5, HY_GEN_DFT(5, xr, xi, s))
HY_STAGE(hy_stage6, const int R = 6, 6, HY_GEN_DFT(6, xr, xi, s))
HY_STAGE(hy_stage7, const int R = 7, 7, HY_GEN_DFT(7, xr, xi, s))
HY_STAGE(hy_stage8, const int R = 8, 8, HY_GEN_DFT(8, xr, xi, s))
HY_STAGE(hy_stage11, const int R = 11, 11, HY_GEN_DFT(11, xr, xi, s))
HY_STAGE(hy_stage13, const int R = 13, 13, HY_GEN_DFT(13, xr, xi, s))
HY_STAGE_A(hy_stage16, const int R = 16, 16, HY_GEN_DFT(16, xr, xi, s), HY_NO_IVOPTS)
HY_STAGE(hy_stage17, const int R = 17, 17, hy_bfly_odd(xr, xi, 17, cs, s))
HY_STAGE(hy_stage19, const int R = 19, 19, hy_bfly_odd(xr, xi, 19, cs, s))
HY_STAGE(hy_stage23, const int R = 23, 23, hy_bfly_odd(xr, xi, 23, cs, s))
HY_STAGE(hy_stage29, const int R = 29, 29, hy_bfly_odd(xr, xi, 29, cs, s))
HY_STAGE(hy_stage31, const int R = 31, 31, hy_bfly_odd(xr, xi, 31, cs, s))
/* Any other odd radix the planner may pick (HY_MAX_DIRECT_PRIME raised). */
HY_STAGE(hy_stage_odd, const int R = st->radix, 32, hy_bfly_odd(xr, xi, R, cs, s))

typedef void (*hy_stage_fn)(const hy_cpu_stage *, int64_t, const hy_v *, const hy_v *, hy_v *,
                            hy_v *);

static hy_stage_fn HY_SFX(hy_stage_pick)(int radix, int sign) {
  int f = sign < 0;
  switch (radix) {
    case 2: return f ? hy_stage2_fwd : hy_stage2_bwd;
    case 3: return f ? hy_stage3_fwd : hy_stage3_bwd;
    case 4: return f ? hy_stage4_fwd : hy_stage4_bwd;
    case 5: return f ? hy_stage5_fwd : hy_stage5_bwd;
    case 6: return f ? hy_stage6_fwd : hy_stage6_bwd;
    case 7: return f ? hy_stage7_fwd : hy_stage7_bwd;
    case 8: return f ? hy_stage8_fwd : hy_stage8_bwd;
    case 11: return f ? hy_stage11_fwd : hy_stage11_bwd;
    case 13: return f ? hy_stage13_fwd : hy_stage13_bwd;
    case 16: return f ? hy_stage16_fwd : hy_stage16_bwd;
    case 17: return f ? hy_stage17_fwd : hy_stage17_bwd;
    case 19: return f ? hy_stage19_fwd : hy_stage19_bwd;
    case 23: return f ? hy_stage23_fwd : hy_stage23_bwd;
    case 29: return f ? hy_stage29_fwd : hy_stage29_bwd;
    case 31: return f ? hy_stage31_fwd : hy_stage31_bwd;
    default: return f ? hy_stage_odd_fwd : hy_stage_odd_bwd;
  }
}

static int hy_kp_exec(const hy_cpu_kp *kp, hy_v *re, hy_v *im, hy_v *tr, hy_v *ti) {
  hy_v *ar = re, *ai = im, *br = tr, *bi = ti;
  int where = 0;
  for (int s = 0; s < kp->nstages; s++) {
    const hy_cpu_stage *st = &kp->stages[s];
    HY_SFX(hy_stage_pick)(st->radix, kp->sign)(st, kp->n, ar, ai, br, bi);
    hy_v *t = ar;
    ar = br;
    br = t;
    t = ai;
    ai = bi;
    bi = t;
    where ^= 1;
  }
  return where;
}

hy_status HY_SFX(hy_cpu_kp_init)(hy_cpu_kp *kp, int64_t n, const int *factors, int nfactors,
                                 int sign) {
  memset(kp, 0, sizeof *kp);
  kp->n = n;
  kp->sign = sign;
  int64_t ns = 1;
  for (int f = 0; f < nfactors; f++) {
    int R = factors[f];
    if (R == 1) continue;
    if (R < 2 || R > 32 || (R > 16 && R % 2 == 0) || R == 9 || R == 10 || R == 12 || R == 14 ||
        R == 15)
      return hy_error(HYFFT_NOT_SUPPORTED, "cpu engine: radix %d has no codelet", R);
    hy_cpu_stage *st = &kp->stages[kp->nstages++];
    st->radix = R;
    st->ns = ns;
    hy_r *tw = hy_malloc(sizeof(hy_r) * 2 * (size_t)(R - 1) * (size_t)ns);
    st->tw = tw;
    if (!tw) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: twiddles for n = %lld", (long long)n);
    for (int r = 1; r < R; r++)
      for (int64_t k = 0; k < ns; k++) {
        long double wr, wi;
        hy_twiddle_ld(r * k, ns * R, sign, &wr, &wi);
        tw[(r - 1) * ns + k] = (hy_r)wr;
        tw[(R - 1) * ns + (r - 1) * ns + k] = (hy_r)wi;
      }
    /* hy_bfly_odd's radices (above the generated 16) take a cos/sin
     * table; the generated codelets carry their constants. */
    if (R % 2 == 1 && R > 16) {
      int h = (R - 1) / 2;
      hy_r *cs = hy_malloc(sizeof(hy_r) * 2 * (size_t)(h * h));
      st->consts = cs;
      if (!cs) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: radix-%d constants", R);
      for (int p = 1; p <= h; p++)
        for (int k = 1; k <= h; k++) {
          long double c, sn;
          hy_twiddle_ld((int64_t)p * k, R, +1, &c, &sn);
          cs[(p - 1) * h + (k - 1)] = (hy_r)c;
          cs[h * h + (p - 1) * h + (k - 1)] = (hy_r)sn;
        }
    }
    ns *= R;
  }
  if (ns != n) return hy_error(HYFFT_INTERNAL, "cpu engine: radices multiply to %lld, not n = %lld", (long long)ns, (long long)n);
  return HYFFT_SUCCESS;
}
