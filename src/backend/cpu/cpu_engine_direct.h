/* CPU engine impl, part 4 of 6: the driver of DIRECT nodes. hy_direct_range
 * runs a range of lane groups on one thread: gather into per-thread
 * scratch, the Stockham kernel plan, scatter, with later groups' input
 * prefetched ahead. hy_job is the shared argument of this and the batched
 * Bluestein driver. Included only by cpu_engine_impl.h, once per
 * precision. */

/* Groups of back-to-back transforms up to this many bytes go through the
 * complex tiles straight from and to memory (hy_gather_crows): a group of
 * a few lines is read and written whole within a few tiles. Larger groups
 * go through a local copy made in memory order: tiles straight from
 * memory then touch LANES lines at a time in an order the hardware
 * prefetchers do not follow. With n a multiple of LANES every row of
 * hy_gather_block's copy starts on one of its vectors and each of its
 * tile loads is forwarded from one store, as in hy_gather_cblock, whose
 * complex shuffles cost more than its wider ones in f64 there; other n
 * take hy_gather_cblock, and n < HY_CT hy_gather_block. */
#ifndef HY_CROW_BYTES
#define HY_CROW_BYTES 640
#endif

typedef struct hy_job {
  const hy_cpu_node *node;
  const hy_cpu_run *run;
  int64_t count;
  int failed;
} hy_job;

/* Columns: a run whose lanes are neighbouring transforms (innermost loop
 * of unit distance on both sides, a multiple of LANES long) along an axis
 * of long stride goes through blocks of W neighbouring transforms: each
 * block is copied row by row (W elements, 256 to 1024 bytes of whole
 * lines) into a dense local copy, its groups are transformed there, and
 * it is copied back. Read straight
 * from memory, every group touches one line per row, n rows a large
 * stride apart: each row sits in a page of its own, so each page walk
 * serves one line, and the lines share a few cache sets (all of them for
 * a power-of-two stride), so those read by the gather are evicted before
 * the scatter writes them. The copy touches 16 lines of each row
 * together, and prefetches the next block's while it copies. Only where
 * it pays: rows at least HY_COL_FAR bytes apart, or at least 1/32 of the
 * L2 of one core apart when there are more of them than the 64 pages a
 * first-level data TLB maps (x86 cores from Zen 1 and Skylake on); rows
 * spanning more than that L2 (within it the lines are still there when
 * the scatter writes them); and a block of at most half that L2, its rows
 * as wide as that allows up to 1024 bytes. Measured (docs/performance.md):
 * with a 2 MiB L2 rows 8 KiB apart ran faster read in place and 64 KiB
 * apart through blocks; with a 512 KiB L2, 1024 rows 16 KiB apart ran
 * faster through blocks, 64 rows 16 KiB apart read in place, and 8 KiB
 * apart either way by the shape; wider rows beat 256 bytes where the
 * block still fits. Twiddled runs (the first half of a
 * four-step node) keep the direct path: they write into the node's
 * padded intermediate, whose rows do not share sets, and there the extra
 * copy measured slower (docs/performance.md). */
#define HY_COL_BYTES 1024
#define HY_COL_MIN_BYTES 256
#define HY_COL_FAR 65536
#define HY_COL_TLB_ROWS 64

/* Bytes of each row of a node's column block: the widest of HY_COL_BYTES,
 * half and a quarter of it whose n rows fill at most half the L2, else 0
 * (no blocks). */
static int64_t hy_col_row_bytes(const hy_cpu_node *node) {
  for (int64_t w = HY_COL_BYTES; w >= HY_COL_MIN_BYTES; w /= 2)
    if (2 * node->n * w <= node->l2_bytes) return w;
  return 0;
}

static int64_t hy_col_block_bytes(const hy_cpu_node *node) {
  return node->n * hy_col_row_bytes(node);
}

static int hy_col_block_fits(const hy_cpu_node *node, const hy_cpu_run *run) {
  const int64_t eb = 2 * (int64_t)sizeof(hy_r), n = node->n;
  if (run->real_step || run->nloops < 1 || run->twiddle_loop >= 0) return 0;
  const hyfft_dim *in = &run->loops[run->nloops - 1];
  const int64_t is = run->axis.in_stride, os = run->axis.out_stride;
  if (in->in_stride != 1 || in->out_stride != 1 || in->n % L_ != 0 || in->n < 2 * L_ || is <= 0 ||
      os <= 0)
    return 0;
  const int64_t st = (is < os ? is : os) * eb;
  const int far = st >= HY_COL_FAR || (st * 32 >= node->l2_bytes && n > HY_COL_TLB_ROWS);
  return far && hy_col_block_bytes(node) > 0 && n * (is > os ? is : os) * eb > node->l2_bytes;
}

/* Groups [begin, end) of a run that hy_col_block_fits, through blocks of
 * up to W transforms in `blk` (n rows of W elements, hy_col_row_bytes). */
static void hy_col_blocks(const hy_cpu_node *node, const hy_cpu_run *run, int64_t count,
                          int64_t begin, int64_t end, hy_r *blk, hy_v *ar, hy_v *ai, hy_v *br,
                          hy_v *bi) {
  const int64_t rb = hy_col_row_bytes(node), W = rb / (2 * (int64_t)sizeof(hy_r));
  const int64_t n = node->n, is = run->axis.in_stride, os = run->axis.out_stride;
  const hyfft_dim *inner = &run->loops[run->nloops - 1];
  /* The block as a run of its own (untwiddled): rows W elements apart,
   * lanes at their column. */
  hy_cpu_run lr = *run;
  lr.src = blk;
  lr.dst = blk;
  lr.axis = (hyfft_dim){n, W, W};
  lr.nloops = 1;
  lr.loops[0] = (hyfft_dim){W, 1, 1};
  lr.twiddle_loop = -1;
  /* The block stays in cache for the copy out: plain stores there; the
   * copy out streams where the run does. */
  lr.stream_out = 0;
  lr.stream_rows = 0;
  const hy_r *src = run->src;
  hy_r *dst = run->dst;
  hy_lanes cur, ln;
  for (int64_t g = begin; g < end;) {
    const int64_t t0 = g * L_, pos = t0 % inner->n;
    int64_t nb = (inner->n - pos) / L_;
    if (nb > W / L_) nb = W / L_;
    if (nb > end - g) nb = end - g;
    hy_lanes_make(run, t0, count, L_, &cur);
    const size_t wb = (size_t)nb * L_ * 2 * sizeof(hy_r);
    const hy_r *s0 = src + 2 * cur.so[0];
    /* The next block starts right after this one within the same rows
     * unless this one ends the innermost run. */
    const int pf = g + nb < end && pos + nb * L_ < inner->n;
    for (int64_t j = 0; j < n; j++) {
      const hy_r *p = s0 + 2 * j * is;
      if (pf)
        for (size_t b = 0; b < (size_t)rb; b += 64)
          __builtin_prefetch((const char *)(p + 2 * nb * L_) + b, 0, 3);
      memcpy(blk + 2 * j * W, p, wb);
    }
    for (int64_t b = 0; b < nb; b++) {
      ln.count = L_;
      ln.contig_in = ln.contig_out = 1;
      ln.split_in = ln.split_out = 0;
      for (int v = 0; v < L_; v++) {
        ln.so[v] = ln.dof[v] = b * L_ + v;
        ln.m[v] = 0;
      }
      hy_gather_halves(&lr, &ln, n, ar, ai);
      int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
      hy_scatter_halves(&lr, &ln, n, where ? br : ar, where ? bi : ai);
    }
    hy_r *d0 = dst + 2 * cur.dof[0];
    for (int64_t j = 0; j < n; j++) {
      if (run->stream_out) hy_cpu_stream_copy(d0 + 2 * j * os, blk + 2 * j * W, wb);
      else memcpy(d0 + 2 * j * os, blk + 2 * j * W, wb);
    }
    g += nb;
  }
}

/* Rows: one transform of unit stride at a time, n = LANES * m. Each
 * load of LANES neighbouring elements becomes one lane vector of re and
 * one of im by shuffles inside each 128-bit half, which leaves lane p
 * holding the decimated sequence x[LANES*j + v] for v = hy_cpu_row_lane
 * (LANES, p) (0 1 4 5 2 3 6 7 in f32, 0 2 1 3 in f64; no shuffle crosses
 * the halves, which costs several in-half ones on CPUs that run 256-bit
 * vectors as two 128-bit halves). The kernel plan transforms the LANES
 * sequences side by side, and X[k + m*q] = sum_v w_LANES^(v*q) w_n^(v*k)
 * Y_v[k] is done LANES values of k at a time: twiddle (the table follows
 * the lane order), an in-register transpose (lanes become LANES values of
 * k, taken in the same lane order), a radix-LANES butterfly across the
 * vectors in order of v, and each result vector, interleaved back within
 * its halves, is LANES neighbouring outputs. The lane-group path instead
 * transposes LANES rows into lanes on the way in and again on the way
 * out. The whole row is read before any of it is written: in place is
 * safe. */
HY_INLINE void hy_row_tile(hy_v *tr, hy_v *ti, const int s) {
#if HY_LANES == 8
  HY_GEN_DFT(8, tr, ti, s);
#else
  HY_GEN_DFT(4, tr, ti, s);
#endif
}

/* The row's m vectors of re and of im from its n = LANES * m points. */
HY_INLINE void hy_row_in(const hy_r *x, const int64_t m, hy_v *restrict ar, hy_v *restrict ai) {
  const hy_vi sre = HY_HALF_SRE, sim = HY_HALF_SIM;
  for (int64_t j = 0; j < m; j++) {
    hy_v lo, hi;
    memcpy(&lo, x + 2 * L_ * j, sizeof lo);
    memcpy(&hi, x + 2 * L_ * j + L_, sizeof hi);
    ar[j] = __builtin_shuffle(lo, hi, sre);
    ai[j] = __builtin_shuffle(lo, hi, sim);
  }
}

/* The inputs of the radix-LANES butterflies (hy_row_tile) of outputs
 * c .. c + LANES - 1 of every q of a row, from the transformed sequences
 * fr, fi: after the butterfly lane j of ur[q], ui[q] is output
 * c + j + m*q, before the scale. */
HY_INLINE void hy_row_group(const hy_v *fr, const hy_v *fi, const hy_r *twr, const hy_r *twi,
                            const int64_t c, hy_v *ur, hy_v *ui) {
  /* tr[p] is k = c + hy_cpu_row_lane(LANES, p), so that after the
   * transpose lane p of each vector is that k. */
  hy_v tr[L_], ti[L_];
  for (int p = 0; p < L_; p++) {
    const int64_t k = c + hy_cpu_row_lane(L_, p);
    hy_v wr, wi;
    memcpy(&wr, twr + k * L_, sizeof wr);
    memcpy(&wi, twi + k * L_, sizeof wi);
    const hy_v xr = fr[k], xi = fi[k];
    tr[p] = xr * wr - xi * wi;
    ti[p] = xr * wi + xi * wr;
  }
  hy_transpose(tr);
  hy_transpose(ti);
  /* Vector p now holds sequence hy_cpu_row_lane(LANES, p): the butterfly
   * takes them in order of the sequence (the order is its own inverse). */
  for (int v = 0; v < L_; v++) {
    ur[v] = tr[hy_cpu_row_lane(L_, v)];
    ui[v] = ti[hy_cpu_row_lane(L_, v)];
  }
}

/* Group c's outputs after the butterfly, scaled, stored as LANES lines
 * of LANES neighbouring outputs (line q at c + m*q): the column store of
 * LANES outputs at stride m. */
HY_INLINE void hy_row_store(hy_r *y, const int64_t m, const int64_t c, const hy_v *ur,
                            const hy_v *ui, hy_r sc, int scaled, int stream) {
  hy_halves_out(y + 2 * c, m, L_, ur, ui, sc, scaled, stream);
}

/* Where LANES does not divide m, the last group of a row: its lanes
 * past m are outputs of no one (their twiddles are zero), and only its
 * first m - full outputs of each q are stored. A function of its own,
 * out of the way of the loop over the full groups. */
__attribute__((noinline)) HY_NO_LIBCALLS HY_CLONES static void hy_row_last(
    const hy_cpu_node *node, const int64_t m, const hy_v *fr, const hy_v *fi, hy_r *y, hy_r sc,
    int scaled, const int s) {
  const hy_vi ilo = HY_HALF_ILO, ihi = HY_HALF_IHI;
  const hy_r *twr = node->rtw, *twi = twr + hy_cpu_row_tw_rows(L_, m) * L_;
  const int64_t full = m / L_ * L_;
  hy_v ur[L_], ui[L_];
  hy_row_group(fr, fi, twr, twi, full, ur, ui);
  hy_row_tile(ur, ui, s);
  for (int q = 0; q < L_; q++) {
    hy_v a = ur[q], b = ui[q];
    if (scaled) {
      a *= sc;
      b *= sc;
    }
    const hy_v lo = __builtin_shuffle(a, b, ilo), hi = __builtin_shuffle(a, b, ihi);
    hy_r part[2 * L_];
    memcpy(part, &lo, sizeof lo);
    memcpy(part + L_, &hi, sizeof hi);
    memcpy(y + 2 * (full + m * q), part, 2 * sizeof(hy_r) * (size_t)(m - full));
  }
}

/* The row's outputs from the transformed sequences fr, fi (m vectors
 * each, and finite values up to the next multiple of LANES, which a
 * partial last group reads with zero twiddles). s: the sign, a constant
 * in the straight-line kernels, the node's in hy_row_one. */
HY_INLINE void hy_row_out(const hy_cpu_node *node, const int64_t m, const hy_v *fr,
                          const hy_v *fi, hy_r *y, hy_r sc, int scaled, int stream, const int s) {
  const hy_r *twr = node->rtw, *twi = twr + hy_cpu_row_tw_rows(L_, m) * L_;
  const int64_t full = m / L_ * L_;
  for (int64_t c = 0; c < full; c += L_) {
    hy_v ur[L_], ui[L_];
    hy_row_group(fr, fi, twr, twi, c, ur, ui);
    hy_row_tile(ur, ui, s);
    hy_row_store(y, m, c, ur, ui, sc, scaled, stream);
  }
  if (full < m) hy_row_last(node, m, fr, fi, y, sc, scaled, s);
}

HY_NO_LIBCALLS HY_CLONES static void hy_row_one(const hy_cpu_node *node, const hy_r *x, hy_r *y,
                                                 hy_r sc, int scaled, int stream, hy_v *ar,
                                                 hy_v *ai, hy_v *br, hy_v *bi) {
  const int64_t m = node->n / L_, full = m / L_ * L_;
  hy_row_in(x, m, ar, ai);
  const int where = hy_kp_exec(&node->rkp, ar, ai, br, bi);
  const hy_v *fr = where ? br : ar, *fi = where ? bi : ai;
  const hy_r *twr = node->rtw, *twi = twr + hy_cpu_row_tw_rows(L_, m) * L_;
  for (int64_t c = 0; c < full; c += L_) {
    hy_v ur[L_], ui[L_];
    hy_row_group(fr, fi, twr, twi, c, ur, ui);
    if (node->sign < 0)
      hy_row_tile(ur, ui, -1);
    else
      hy_row_tile(ur, ui, 1);
    hy_row_store(y, m, c, ur, ui, sc, scaled, stream);
  }
  if (full < m) hy_row_last(node, m, fr, fi, y, sc, scaled, node->sign < 0 ? -1 : 1);
}

/* Whether a run of `count` transforms takes hy_row_one: the node has its
 * row tables, unit stride on both sides, no twiddle, and either rows
 * that pay in batches (hy_cpu_node.rows_batched) or too few transforms to
 * fill one lane group. A real step (R2C, C2R) then runs beside each row
 * while the row is in cache (hy_direct_range), which costs less than the
 * lane groups' step in their gather or scatter (docs/performance.md,
 * "CPU: real rows on the row path"). */
static int hy_row_fits(const hy_cpu_node *node, const hy_cpu_run *run, int64_t count) {
  return node->rtw && (count < L_ || node->rows_batched) &&
         !(run->twiddle_loop >= 0 && node->tw.n > 0) && run->axis.in_stride == 1 &&
         run->axis.out_stride == 1 && !hy_cpu_real_odd(run->real_step);
}

/* Short transforms in registers: a run of transforms stored back to back
 * whose kernel plan is one or two stages of the generated codelets that
 * hy_short_pick lists (2 to 16 points, and 64 out of place) runs each full lane group as one
 * straight-line piece of code: the group's complex tiles are loaded into
 * local lane vectors, the stages run on them with n a constant (the
 * arrays stay in registers, every loop unrolls), and the tiles are
 * stored back. The general driver instead passes the lane arrays through
 * memory between the gather, each stage (called through a table) and the
 * scatter, which costs more than the butterflies at these lengths. */
#if HY_LANES == 8
/* f32 groups of 2 and 3 points, shorter than a complex tile: the group's
 * 2n vectors (8n complex values back to back) are permuted into the lane
 * vectors directly, with complex values (64-bit units) moved first and
 * re/im split last; the stores are the same steps backwards. */
typedef int64_t hy_cu __attribute__((vector_size(32)));
/* The same 32 bytes seen as complex units or as lane values. */
#define HY_AS_CU(v) ({ hy_cu u_; hy_v v_ = (v); memcpy(&u_, &v_, sizeof u_); u_; })
#define HY_AS_V(u) ({ hy_v v_; hy_cu u_ = (u); memcpy(&v_, &u_, sizeof v_); v_; })

/* Complex value c of the group (transform c / n, point c % n) is slot
 * c % 4 of vector c / 4. n = 2: A_j = (c_j, c_2+j, c_4+j, c_6+j) for the
 * first four transforms, B_j the same for the last four; n = 3 likewise
 * with c_3t+j, each taken from three vectors. */
HY_INLINE void hy_short_in_tiny(const hy_r *b, const int n, hy_v *restrict xr,
                                hy_v *restrict xi) {
  const hy_vi even = HY_EVEN, odd = HY_ODD;
  hy_cu u[6];
  for (int k = 0; k < 2 * n; k++) {
    hy_v t;
    memcpy(&t, b + k * L_, sizeof t);
    u[k] = HY_AS_CU(t);
  }
  for (int h = 0; h < 2; h++) {
    const hy_cu *w = u + h * n;
    hy_cu a[3];
    if (n == 2) {
      a[0] = __builtin_shuffle(w[0], w[1], (hy_cu){0, 2, 4, 6});
      a[1] = __builtin_shuffle(w[0], w[1], (hy_cu){1, 3, 5, 7});
    } else {
      a[0] = __builtin_shuffle(__builtin_shuffle(w[0], w[1], (hy_cu){0, 3, 6, 0}), w[2],
                               (hy_cu){0, 1, 2, 5});
      a[1] = __builtin_shuffle(__builtin_shuffle(w[0], w[1], (hy_cu){1, 4, 7, 0}), w[2],
                               (hy_cu){0, 1, 2, 6});
      a[2] = __builtin_shuffle(__builtin_shuffle(w[0], w[1], (hy_cu){2, 5, 0, 0}), w[2],
                               (hy_cu){0, 1, 4, 7});
    }
    for (int j = 0; j < n; j++) {
      if (h == 0) {
        xr[j] = HY_AS_V(a[j]);
      } else {
        const hy_v lo = xr[j], hi = HY_AS_V(a[j]);
        xr[j] = __builtin_shuffle(lo, hi, even);
        xi[j] = __builtin_shuffle(lo, hi, odd);
      }
    }
  }
}

HY_INLINE void hy_short_out_tiny(hy_r *b, const int n, const hy_v *restrict xr,
                                 const hy_v *restrict xi, hy_r sc, int scaled) {
  const hy_vi ilo = HY_ILO, ihi = HY_IHI;
  hy_cu a[2][3];
  for (int j = 0; j < n; j++) {
    hy_v r = xr[j], i = xi[j];
    if (scaled) {
      r *= sc;
      i *= sc;
    }
    a[0][j] = HY_AS_CU(__builtin_shuffle(r, i, ilo));
    a[1][j] = HY_AS_CU(__builtin_shuffle(r, i, ihi));
  }
  for (int h = 0; h < 2; h++) {
    const hy_cu *A = a[h];
    hy_cu u[3];
    if (n == 2) {
      u[0] = __builtin_shuffle(A[0], A[1], (hy_cu){0, 4, 1, 5});
      u[1] = __builtin_shuffle(A[0], A[1], (hy_cu){2, 6, 3, 7});
    } else {
      u[0] = __builtin_shuffle(__builtin_shuffle(A[0], A[1], (hy_cu){0, 4, 1, 0}), A[2],
                               (hy_cu){0, 1, 4, 2});
      u[1] = __builtin_shuffle(__builtin_shuffle(A[1], A[2], (hy_cu){1, 5, 2, 0}), A[0],
                               (hy_cu){0, 1, 6, 2});
      u[2] = __builtin_shuffle(A[2], __builtin_shuffle(A[0], A[1], (hy_cu){3, 7, 0, 0}),
                               (hy_cu){2, 4, 5, 3});
    }
    for (int k = 0; k < n; k++) {
      const hy_v t = HY_AS_V(u[k]);
      memcpy(b + (h * n + k) * L_, &t, sizeof t);
    }
  }
}
#endif

HY_INLINE void hy_short_in(const hy_r *b, const int n, hy_v *restrict xr, hy_v *restrict xi,
                           hy_r *restrict seq) {
#if HY_LANES == 8
  if (n < HY_CT) {
    hy_short_in_tiny(b, n, xr, xi);
    return;
  }
#endif
  const hy_r *rows[L_];
  /* Groups past HY_CROW_BYTES go through a copy in memory order into
   * rows padded to whole tiles, as hy_gather_cblock does, and the stores
   * likewise (hy_short_out): tiles straight from and to memory touch
   * LANES lines at a time, and ran 11-16 point groups from memory up to
   * 1.6x slower (docs/performance.md). */
  if ((int)sizeof(hy_r) * 2 * L_ * n > HY_CROW_BYTES) {
    const int P = 2 * ((n + HY_CT - 1) / HY_CT * HY_CT);
    for (int v = 0; v < L_; v++) {
      hy_copy_ctiles(seq + v * P, b + 2 * v * n, n);
      rows[v] = seq + v * P;
    }
  } else {
    for (int v = 0; v < L_; v++) rows[v] = b + 2 * v * n;
  }
  int j0 = 0;
  for (; j0 + HY_CT <= n; j0 += HY_CT) hy_gather_ctile(rows, j0, xr, xi);
  if (j0 < n) hy_gather_ctile(rows, n - HY_CT, xr, xi);
}

HY_INLINE void hy_short_out(hy_r *b, const int n, const hy_v *restrict xr,
                            const hy_v *restrict xi, hy_r sc, int scaled, hy_r *restrict seq,
                            int stream) {
#if HY_LANES == 8
  if (n < HY_CT) {
    hy_short_out_tiny(b, n, xr, xi, sc, scaled);
    return;
  }
#endif
  hy_r *rows[L_];
  /* Past HY_CROW_BYTES: the tiles into a copy of the group (tiles stay
   * inside their row), then the group out in memory order. */
  const int cp = (int)sizeof(hy_r) * 2 * L_ * n > HY_CROW_BYTES;
  for (int v = 0; v < L_; v++) rows[v] = (cp ? seq : b) + 2 * v * n;
  /* The tile ending at n first: the whole tiles after it rewrite its
   * overlap with the same values. */
  if (n % HY_CT) hy_scatter_ctile(rows, L_, n - HY_CT, xr, xi, sc, scaled);
  for (int k0 = 0; k0 + HY_CT <= n; k0 += HY_CT) hy_scatter_ctile(rows, L_, k0, xr, xi, sc, scaled);
  if (cp && stream) hy_cpu_stream_copy(b, seq, sizeof(hy_r) * 2 * (size_t)(L_ * n));
  else if (cp) hy_copy_ctiles(b, seq, L_ * n);
}

/* The local copy of a group that goes through one (past HY_CROW_BYTES):
 * LANES rows padded to whole tiles; one element where none is needed. */
#define HY_SHORT_SEQ(N)                                                                     \
  ((int)sizeof(hy_r) * 2 * L_ * (N) > HY_CROW_BYTES ? L_ * 2 * (((N) + HY_CT - 1) / HY_CT * HY_CT) \
                                                     : 1)

/* One stage: the whole transform is one codelet of N points. */
#define HY_SHORT1(N)                                                                        \
  HY_INLINE void hy_short1_##N##_impl(const hy_r *src, hy_r *dst, int64_t g0, int64_t g1,   \
                                      hy_r sc, int scaled, int stream, const int s) {       \
    hy_r seq[HY_SHORT_SEQ(N)] __attribute__((aligned(64)));                                 \
    for (int64_t g = g0; g < g1; g++) {                                                     \
      const int64_t off = 2 * g * L_ * (N);                                                 \
      hy_v xr[N], xi[N];                                                                    \
      hy_short_in(src + off, N, xr, xi, seq);                                                    \
      HY_GEN_DFT(N, xr, xi, s);                                                             \
      hy_short_out(dst + off, N, xr, xi, sc, scaled, seq, stream);                               \
    }                                                                                       \
  }                                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_short1_##N(const hy_cpu_kp *kp, const hy_r *src,  \
                                                      hy_r *dst, int64_t g0, int64_t g1,    \
                                                      hy_r sc, int scaled, int stream) {    \
    if (kp->sign < 0) hy_short1_##N##_impl(src, dst, g0, g1, sc, scaled, stream, -1);      \
    else hy_short1_##N##_impl(src, dst, g0, g1, sc, scaled, stream, 1);                     \
  }

/* Two stages, N = R0 * R1, as hy_kp_exec runs them: radix R0 on
 * x[j + r*R1] (j < R1) into y[j*R0 + r], then radix R1 on y[k + r*R0]
 * (k < R0) twiddled by the second stage's table into z[k + r*R0], in
 * place on x. */
#define HY_TWO_STAGES(R0, R1)                                                               \
  HY_INLINE void hy_two_stages_##R0##_##R1(const hy_cpu_kp *kp, hy_v *restrict xr,          \
                                           hy_v *restrict xi, const int s) {                \
    enum { N = (R0) * (R1) };                                                               \
    const hy_r *twr = kp->stages[1].tw, *twi = twr + ((R1) - 1) * (R0);                     \
    hy_v yr[N], yi[N];                                                                      \
    for (int j = 0; j < (R1); j++) {                                                        \
      hy_v ar[R0], ai[R0];                                                                  \
      for (int r = 0; r < (R0); r++) {                                                      \
        ar[r] = xr[j + r * (R1)];                                                           \
        ai[r] = xi[j + r * (R1)];                                                           \
      }                                                                                     \
      HY_GEN_DFT(R0, ar, ai, s);                                                            \
      for (int r = 0; r < (R0); r++) {                                                      \
        yr[j * (R0) + r] = ar[r];                                                           \
        yi[j * (R0) + r] = ai[r];                                                           \
      }                                                                                     \
    }                                                                                       \
    for (int k = 0; k < (R0); k++) {                                                        \
      hy_v br[R1], bi[R1];                                                                  \
      for (int r = 0; r < (R1); r++) {                                                      \
        br[r] = yr[k + r * (R0)];                                                           \
        bi[r] = yi[k + r * (R0)];                                                           \
        if (r > 0) hy_cmul(&br[r], &bi[r], twr[(r - 1) * (R0) + k], twi[(r - 1) * (R0) + k]); \
      }                                                                                     \
      HY_GEN_DFT(R1, br, bi, s);                                                            \
      for (int r = 0; r < (R1); r++) {                                                      \
        xr[k + r * (R0)] = br[r];                                                           \
        xi[k + r * (R0)] = bi[r];                                                           \
      }                                                                                     \
    }                                                                                       \
  }

#define HY_SHORT2(R0, R1)                                                                   \
  HY_TWO_STAGES(R0, R1)                                                                     \
  HY_SHORT2_FN(R0, R1)
#define HY_SHORT2_FN(R0, R1)                                                                \
  HY_INLINE void hy_short2_##R0##_##R1##_impl(const hy_cpu_kp *kp, const hy_r *src,         \
                                              hy_r *dst, int64_t g0, int64_t g1, hy_r sc,   \
                                              int scaled, int stream, const int s) {        \
    enum { N = (R0) * (R1) };                                                               \
    hy_r seq[HY_SHORT_SEQ(N)] __attribute__((aligned(64)));                                 \
    for (int64_t g = g0; g < g1; g++) {                                                     \
      const int64_t off = 2 * g * L_ * N;                                                   \
      hy_v xr[N], xi[N];                                                                    \
      hy_short_in(src + off, N, xr, xi, seq);                                               \
      hy_two_stages_##R0##_##R1(kp, xr, xi, s);                                             \
      hy_short_out(dst + off, N, xr, xi, sc, scaled, seq, stream);                          \
    }                                                                                       \
  }                                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_short2_##R0##_##R1(                               \
      const hy_cpu_kp *kp, const hy_r *src, hy_r *dst, int64_t g0, int64_t g1, hy_r sc,     \
      int scaled, int stream) {                                                             \
    if (kp->sign < 0) hy_short2_##R0##_##R1##_impl(kp, src, dst, g0, g1, sc, scaled, stream, -1); \
    else hy_short2_##R0##_##R1##_impl(kp, src, dst, g0, g1, sc, scaled, stream, 1);         \
  }

/* One transform by itself (a run of one, any strides): its n points in
 * lane 0 of the lane vectors, the same straight-line stages as a group's,
 * no lane arrays, gathers or scatters. The other lanes compute zeros,
 * which costs nothing over computing one lane. */
HY_INLINE void hy_single_in(const hy_r *x, int64_t is, const int n, hy_v *restrict xr,
                            hy_v *restrict xi) {
  for (int k = 0; k < n; k++) {
    hy_v r = {0}, i = {0};
    r[0] = x[2 * k * is];
    i[0] = x[2 * k * is + 1];
    xr[k] = r;
    xi[k] = i;
  }
}

HY_INLINE void hy_single_out(hy_r *y, int64_t os, const int n, const hy_v *restrict xr,
                             const hy_v *restrict xi, hy_r sc, int scaled) {
  for (int k = 0; k < n; k++) {
    y[2 * k * os] = scaled ? xr[k][0] * sc : xr[k][0];
    y[2 * k * os + 1] = scaled ? xi[k][0] * sc : xi[k][0];
  }
}

typedef void (*hy_single_fn)(const hy_cpu_kp *, const hy_r *, int64_t, hy_r *, int64_t, hy_r,
                             int);

#define HY_SINGLE1(N)                                                                       \
  HY_NO_LIBCALLS HY_CLONES static void hy_single1_##N(const hy_cpu_kp *kp, const hy_r *x,   \
                                                       int64_t is, hy_r *y, int64_t os,     \
                                                       hy_r sc, int scaled) {               \
    hy_v xr[N], xi[N];                                                                      \
    hy_single_in(x, is, N, xr, xi);                                                         \
    if (kp->sign < 0) HY_GEN_DFT(N, xr, xi, -1);                                            \
    else HY_GEN_DFT(N, xr, xi, 1);                                                          \
    hy_single_out(y, os, N, xr, xi, sc, scaled);                                            \
  }

#define HY_SINGLE2(R0, R1)                                                                  \
  HY_NO_LIBCALLS HY_CLONES static void hy_single2_##R0##_##R1(                              \
      const hy_cpu_kp *kp, const hy_r *x, int64_t is, hy_r *y, int64_t os, hy_r sc,         \
      int scaled) {                                                                         \
    enum { N = (R0) * (R1) };                                                               \
    hy_v xr[N], xi[N];                                                                      \
    hy_single_in(x, is, N, xr, xi);                                                         \
    if (kp->sign < 0) hy_two_stages_##R0##_##R1(kp, xr, xi, -1);                           \
    else hy_two_stages_##R0##_##R1(kp, xr, xi, 1);                                         \
    hy_single_out(y, os, N, xr, xi, sc, scaled);                                            \
  }

HY_SHORT1(2)
HY_SHORT1(3)
HY_SHORT1(4)
HY_SHORT1(5)
HY_SHORT1(6)
HY_SHORT1(7)
HY_SHORT1(8)
HY_SHORT1(11)
HY_SHORT1(13)
HY_SHORT1(16)
HY_SHORT2(3, 3)
HY_SHORT2(2, 5)
HY_SHORT2(4, 3)
HY_SHORT2(2, 7)
HY_SHORT2(3, 5)
HY_SHORT2(16, 4)
HY_TWO_STAGES(16, 2)
HY_SINGLE1(2)
HY_SINGLE1(3)
HY_SINGLE1(4)
HY_SINGLE1(5)
HY_SINGLE1(6)
HY_SINGLE1(7)
HY_SINGLE1(8)
HY_SINGLE1(11)
HY_SINGLE1(13)
HY_SINGLE1(16)
HY_SINGLE2(3, 3)
HY_SINGLE2(2, 5)
HY_SINGLE2(4, 3)
HY_SINGLE2(2, 7)
HY_SINGLE2(3, 5)
HY_SINGLE2(16, 2)

/* Columns in registers: a lane group of neighbouring transforms (LANES
 * consecutive complex values at each point j, hy_lanes_halves_fit) whose
 * kernel plan hy_short_pick lists runs as one straight-line piece of
 * code: point j of the LANES transforms is read as two half-line loads
 * split into re and im inside each 128-bit half (hy_gather_halves' lane
 * order), the stages run on local vectors with n a constant, and each
 * output point is interleaved back and stored (hy_scatter_halves). The
 * whole group is read before any of it is written: in place is safe. The
 * general driver instead passes lane arrays through memory between the
 * gather, each stage (called through a table) and the scatter. */
typedef void (*hy_cols_fn)(const hy_cpu_kp *, const hy_r *, int64_t, hy_r *, int64_t, hy_r, int,
                           int);

#define HY_COLS1(N)                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_cols1_##N(const hy_cpu_kp *kp, const hy_r *x,     \
                                                     int64_t is, hy_r *y, int64_t os,       \
                                                     hy_r sc, int scaled, int stream) {     \
    hy_v xr[N], xi[N];                                                                      \
    hy_halves_in(x, is, N, xr, xi);                                                           \
    if (kp->sign < 0) HY_GEN_DFT(N, xr, xi, -1);                                            \
    else HY_GEN_DFT(N, xr, xi, 1);                                                          \
    hy_halves_out(y, os, N, xr, xi, sc, scaled, stream);                                      \
  }

#define HY_COLS2(R0, R1)                                                                    \
  HY_NO_LIBCALLS HY_CLONES static void hy_cols2_##R0##_##R1(                                \
      const hy_cpu_kp *kp, const hy_r *x, int64_t is, hy_r *y, int64_t os, hy_r sc,         \
      int scaled, int stream) {                                                             \
    enum { N = (R0) * (R1) };                                                               \
    hy_v xr[N], xi[N];                                                                      \
    hy_halves_in(x, is, N, xr, xi);                                                           \
    if (kp->sign < 0) hy_two_stages_##R0##_##R1(kp, xr, xi, -1);                           \
    else hy_two_stages_##R0##_##R1(kp, xr, xi, 1);                                         \
    hy_halves_out(y, os, N, xr, xi, sc, scaled, stream);                                      \
  }

HY_COLS1(2)
HY_COLS1(3)
HY_COLS1(4)
HY_COLS1(5)
HY_COLS1(6)
HY_COLS1(7)
HY_COLS1(8)
HY_COLS1(11)
HY_COLS1(13)
HY_COLS1(16)
HY_COLS2(3, 3)
HY_COLS2(2, 5)
HY_COLS2(4, 3)
HY_COLS2(2, 7)
HY_COLS2(3, 5)
HY_COLS2(16, 2)
HY_COLS2(16, 4)
HY_TWO_STAGES(4, 5)
HY_TWO_STAGES(8, 3)
HY_TWO_STAGES(5, 5)
HY_TWO_STAGES(8, 5)
HY_TWO_STAGES(16, 3)
HY_TWO_STAGES(7, 7)
HY_TWO_STAGES(16, 5)
HY_TWO_STAGES(16, 8)
HY_TWO_STAGES(16, 16)
HY_TWO_STAGES(8, 4)
HY_COLS2(4, 5)
HY_COLS2(8, 3)
HY_COLS2(5, 5)
HY_COLS2(8, 5)
HY_COLS2(16, 3)
HY_COLS2(7, 7)
HY_COLS2(16, 5)
HY_COLS2(16, 8)
/* A run of lane groups of transforms stored back to back (hy_short_pick). */
typedef void (*hy_short_fn)(const hy_cpu_kp *, const hy_r *, hy_r *, int64_t, int64_t, hy_r, int,
                            int);

/* Three stages, N = R0 * R1 * R2, as hy_kp_exec runs them (the Stockham
 * stage of HY_STAGE_A with n and the sub-transform length ns constants):
 * x -> y -> x -> y, the result in y. */
#define HY_LOCAL_STAGE(R, NS, N, ST, IR, II, OR, OI, S)                                     \
  do {                                                                                      \
    const hy_r *twr_ = (ST)->tw, *twi_ = twr_ + ((R) - 1) * (NS);                           \
    for (int j_ = 0; j_ < (N) / (R); j_++) {                                                \
      const int k_ = j_ % (NS), b_ = j_ / (NS);                                             \
      hy_v ar_[R], ai_[R];                                                                  \
      for (int r_ = 0; r_ < (R); r_++) {                                                    \
        ar_[r_] = (IR)[j_ + r_ * ((N) / (R))];                                              \
        ai_[r_] = (II)[j_ + r_ * ((N) / (R))];                                              \
        if ((NS) > 1 && r_ > 0)                                                             \
          hy_cmul(&ar_[r_], &ai_[r_], twr_[(r_ - 1) * (NS) + k_], twi_[(r_ - 1) * (NS) + k_]); \
      }                                                                                     \
      HY_GEN_DFT(R, ar_, ai_, S);                                                           \
      for (int r_ = 0; r_ < (R); r_++) {                                                    \
        (OR)[b_ * (NS) * (R) + k_ + r_ * (NS)] = ar_[r_];                                   \
        (OI)[b_ * (NS) * (R) + k_ + r_ * (NS)] = ai_[r_];                                   \
      }                                                                                     \
    }                                                                                       \
  } while (0)

#define HY_THREE_STAGES_CORE(R0, R1, R2)                                                    \
  HY_INLINE void hy_three_stages_##R0##_##R1##_##R2(const hy_cpu_kp *kp, hy_v *restrict xr, \
                                                    hy_v *restrict xi, hy_v *restrict yr,   \
                                                    hy_v *restrict yi, const int s) {       \
    enum { N = (R0) * (R1) * (R2) };                                                        \
    HY_LOCAL_STAGE(R0, 1, N, &kp->stages[0], xr, xi, yr, yi, s);                            \
    HY_LOCAL_STAGE(R1, R0, N, &kp->stages[1], yr, yi, xr, xi, s);                           \
    HY_LOCAL_STAGE(R2, (R0) * (R1), N, &kp->stages[2], xr, xi, yr, yi, s);                  \
  }

#define HY_THREE_STAGES(R0, R1, R2)                                                         \
  HY_THREE_STAGES_CORE(R0, R1, R2)                                                          \
  HY_INLINE void hy_short3_##R0##_##R1##_##R2##_impl(const hy_cpu_kp *kp, const hy_r *src,  \
                                                     hy_r *dst, int64_t g0, int64_t g1,     \
                                                     hy_r sc, int scaled, int stream,       \
                                                     const int s) {                         \
    enum { N = (R0) * (R1) * (R2) };                                                        \
    hy_r seq[HY_SHORT_SEQ(N)] __attribute__((aligned(64)));                                 \
    for (int64_t g = g0; g < g1; g++) {                                                     \
      const int64_t off = 2 * g * L_ * N;                                                   \
      hy_v xr[N], xi[N], yr[N], yi[N];                                                      \
      hy_short_in(src + off, N, xr, xi, seq);                                               \
      hy_three_stages_##R0##_##R1##_##R2(kp, xr, xi, yr, yi, s);                            \
      hy_short_out(dst + off, N, yr, yi, sc, scaled, seq, stream);                          \
    }                                                                                       \
  }                                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_short3_##R0##_##R1##_##R2(                        \
      const hy_cpu_kp *kp, const hy_r *src, hy_r *dst, int64_t g0, int64_t g1, hy_r sc,     \
      int scaled, int stream) {                                                             \
    if (kp->sign < 0)                                                                       \
      hy_short3_##R0##_##R1##_##R2##_impl(kp, src, dst, g0, g1, sc, scaled, stream, -1);    \
    else hy_short3_##R0##_##R1##_##R2##_impl(kp, src, dst, g0, g1, sc, scaled, stream, 1);  \
  }                                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_cols3_##R0##_##R1##_##R2(                         \
      const hy_cpu_kp *kp, const hy_r *x, int64_t is, hy_r *y, int64_t os, hy_r sc,         \
      int scaled, int stream) {                                                             \
    enum { N = (R0) * (R1) * (R2) };                                                        \
    hy_v xr[N], xi[N], yr[N], yi[N];                                                        \
    hy_halves_in(x, is, N, xr, xi);                                                           \
    if (kp->sign < 0) hy_three_stages_##R0##_##R1##_##R2(kp, xr, xi, yr, yi, -1);           \
    else hy_three_stages_##R0##_##R1##_##R2(kp, xr, xi, yr, yi, 1);                         \
    hy_halves_out(y, os, N, yr, yi, sc, scaled, stream);                                      \
  }

/* The three-stage plans that have straight-line kernels: X(ARG, R0, R1,
 * R2) for each, the one list the kernels and their picks expand. */
#define HY_THREE_PLANS(X, ARG)                                                              \
  X(ARG, 3, 3, 3) X(ARG, 2, 3, 5) X(ARG, 4, 3, 3) X(ARG, 2, 5, 5) X(ARG, 4, 3, 5)           \
  X(ARG, 4, 5, 5) X(ARG, 16, 2, 3)
#define HY_THREE_DEFINE(DEF, R0, R1, R2) DEF(R0, R1, R2)
#define HY_THREE_CASE(KIND, R0, R1, R2)                                                     \
  if (a == (R0) && b == (R1) && c == (R2)) return hy_##KIND##_##R0##_##R1##_##R2;
HY_THREE_PLANS(HY_THREE_DEFINE, HY_THREE_STAGES)

/* The three-stage kernels of a kernel plan, rows (KIND short3) or
 * columns (cols3), NULL where there is none. */
#define HY_THREE_PICK(KIND, TYPE)                                                           \
  static TYPE hy_##KIND##_pick3(const hy_cpu_kp *kp) {                                      \
    if (kp->nstages != 3) return NULL;                                                      \
    const int a = kp->stages[0].radix, b = kp->stages[1].radix, c = kp->stages[2].radix;    \
    HY_THREE_PLANS(HY_THREE_CASE, KIND)                                                     \
    return NULL;                                                                            \
  }
HY_THREE_PICK(short3, hy_short_fn)
HY_THREE_PICK(cols3, hy_cols_fn)

HY_SHORT2_FN(4, 5)
HY_SHORT2_FN(8, 3)
HY_SHORT2_FN(5, 5)
HY_SHORT2_FN(8, 5)
HY_SHORT2_FN(16, 3)
HY_SHORT2_FN(7, 7)
HY_SHORT2_FN(16, 5)

/* The column kernel of a kernel plan, NULL where there is none: the
 * plans hy_short_pick lists, in place as well. */
static hy_cols_fn hy_cols_pick(const hy_cpu_kp *kp) {
  if (kp->nstages == 3) return hy_cols3_pick3(kp);
  if (kp->nstages == 1) switch (kp->stages[0].radix) {
      case 2: return hy_cols1_2;
      case 3: return hy_cols1_3;
      case 4: return hy_cols1_4;
      case 5: return hy_cols1_5;
      case 6: return hy_cols1_6;
      case 7: return hy_cols1_7;
      case 8: return hy_cols1_8;
      case 11: return hy_cols1_11;
      case 13: return hy_cols1_13;
      case 16: return hy_cols1_16;
      default: return NULL;
    }
  if (kp->nstages == 2) {
    const int a = kp->stages[0].radix, b = kp->stages[1].radix;
    if (a == 3 && b == 3) return hy_cols2_3_3;
    if (a == 2 && b == 5) return hy_cols2_2_5;
    if (a == 4 && b == 3) return hy_cols2_4_3;
    if (a == 2 && b == 7) return hy_cols2_2_7;
    if (a == 3 && b == 5) return hy_cols2_3_5;
    if (a == 16 && b == 2) return hy_cols2_16_2;
    if (a == 16 && b == 4) return hy_cols2_16_4;
    if (a == 4 && b == 5) return hy_cols2_4_5;
    if (a == 8 && b == 3) return hy_cols2_8_3;
    if (a == 5 && b == 5) return hy_cols2_5_5;
    if (a == 8 && b == 5) return hy_cols2_8_5;
    if (a == 16 && b == 3) return hy_cols2_16_3;
    if (a == 7 && b == 7) return hy_cols2_7_7;
    if (a == 16 && b == 5) return hy_cols2_16_5;
    if (a == 16 && b == 8) return hy_cols2_16_8;
  }
  return NULL;
}

HY_SINGLE2(4, 5)
HY_SINGLE2(8, 3)
HY_SINGLE2(5, 5)
HY_SINGLE2(8, 5)
HY_SINGLE2(16, 3)
HY_SINGLE2(7, 7)
HY_SINGLE2(16, 5)

#define HY_SINGLE3(R0, R1, R2)                                                              \
  HY_NO_LIBCALLS HY_CLONES static void hy_single3_##R0##_##R1##_##R2(                       \
      const hy_cpu_kp *kp, const hy_r *x, int64_t is, hy_r *y, int64_t os, hy_r sc,         \
      int scaled) {                                                                         \
    enum { N = (R0) * (R1) * (R2) };                                                        \
    hy_v xr[N], xi[N], yr[N], yi[N];                                                        \
    hy_single_in(x, is, N, xr, xi);                                                         \
    if (kp->sign < 0) hy_three_stages_##R0##_##R1##_##R2(kp, xr, xi, yr, yi, -1);           \
    else hy_three_stages_##R0##_##R1##_##R2(kp, xr, xi, yr, yi, 1);                         \
    hy_single_out(y, os, N, yr, yi, sc, scaled);                                            \
  }
HY_THREE_PLANS(HY_THREE_DEFINE, HY_SINGLE3)
HY_THREE_PICK(single3, hy_single_fn)

/* The single-transform kernel of a kernel plan (hy_single1_*, _2_*,
 * _3_*), NULL where there is none: the plans hy_short_pick covers, up to
 * 100 points, but 64 = 16 x 4, which (LANES^2 in f32) runs faster as a
 * row with the lanes inside it (hy_row_one). The longer plans here
 * measured faster as single kernels than by the row path or one lane of
 * a group (docs/performance.md). */
static hy_single_fn hy_single_pick(const hy_cpu_kp *kp) {
  if (kp->nstages == 1) switch (kp->stages[0].radix) {
      case 2: return hy_single1_2;
      case 3: return hy_single1_3;
      case 4: return hy_single1_4;
      case 5: return hy_single1_5;
      case 6: return hy_single1_6;
      case 7: return hy_single1_7;
      case 8: return hy_single1_8;
      case 11: return hy_single1_11;
      case 13: return hy_single1_13;
      case 16: return hy_single1_16;
      default: return NULL;
    }
  if (kp->nstages == 2) {
    const int a = kp->stages[0].radix, b = kp->stages[1].radix;
    if (a == 3 && b == 3) return hy_single2_3_3;
    if (a == 2 && b == 5) return hy_single2_2_5;
    if (a == 4 && b == 3) return hy_single2_4_3;
    if (a == 2 && b == 7) return hy_single2_2_7;
    if (a == 3 && b == 5) return hy_single2_3_5;
    if (a == 16 && b == 2) return hy_single2_16_2;
    if (a == 4 && b == 5) return hy_single2_4_5;
    if (a == 8 && b == 3) return hy_single2_8_3;
    if (a == 5 && b == 5) return hy_single2_5_5;
    if (a == 8 && b == 5) return hy_single2_8_5;
    if (a == 16 && b == 3) return hy_single2_16_3;
    if (a == 7 && b == 7) return hy_single2_7_7;
    if (a == 16 && b == 5) return hy_single2_16_5;
  }
  if (kp->nstages == 3) return hy_single3_pick3(kp);
  return NULL;
}

/* One row by itself in straight-line code: the row path's steps
 * (hy_row_in, the kernel plan of m = n / LANES points, hy_row_out) with m
 * a constant, its sequences in local vectors rather than the lane arrays
 * of the thread's scratch, the plan's stages as generated codelets (one,
 * or two with HY_TWO_STAGES) instead of calls through the stage table.
 * Every lane holds part of the transform, where the single kernels above
 * compute in lane 0 only. The sequences are padded to a multiple of
 * LANES with zeros for the last group's reads. */
typedef void (*hy_rowk_fn)(const hy_cpu_node *, const hy_r *, hy_r *, hy_r, int, int);

#define HY_ROWK_PAD(M) (((M) + L_ - 1) / L_ * L_)

HY_INLINE void hy_rowk_zero(hy_v *xr, hy_v *xi, const int m) {
  for (int k = m; k < HY_ROWK_PAD(m); k++) {
    xr[k] = (hy_v){0};
    xi[k] = (hy_v){0};
  }
}

#define HY_ROWK1(R)                                                                         \
  HY_INLINE void hy_rowk1_##R##_impl(const hy_cpu_node *node, const hy_r *x, hy_r *y,       \
                                     hy_r sc, int scaled, int stream, const int s) {        \
    hy_v xr[HY_ROWK_PAD(R)], xi[HY_ROWK_PAD(R)];                                            \
    hy_row_in(x, R, xr, xi);                                                                \
    hy_rowk_zero(xr, xi, R);                                                                \
    HY_GEN_DFT(R, xr, xi, s);                                                               \
    hy_row_out(node, R, xr, xi, y, sc, scaled, stream, s);                                  \
  }                                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_rowk1_##R(                                        \
      const hy_cpu_node *node, const hy_r *x, hy_r *y, hy_r sc, int scaled, int stream) {   \
    if (node->sign < 0) hy_rowk1_##R##_impl(node, x, y, sc, scaled, stream, -1);            \
    else hy_rowk1_##R##_impl(node, x, y, sc, scaled, stream, 1);                            \
  }

#define HY_ROWK2(R0, R1)                                                                    \
  HY_INLINE void hy_rowk2_##R0##_##R1##_impl(const hy_cpu_node *node, const hy_r *x,        \
                                             hy_r *y, hy_r sc, int scaled, int stream,      \
                                             const int s) {                                 \
    enum { M = (R0) * (R1) };                                                               \
    hy_v xr[HY_ROWK_PAD(M)], xi[HY_ROWK_PAD(M)];                                            \
    hy_row_in(x, M, xr, xi);                                                                \
    hy_rowk_zero(xr, xi, M);                                                                \
    hy_two_stages_##R0##_##R1(&node->rkp, xr, xi, s);                                      \
    hy_row_out(node, M, xr, xi, y, sc, scaled, stream, s);                                  \
  }                                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_rowk2_##R0##_##R1(const hy_cpu_node *node,        \
                                                             const hy_r *x, hy_r *y,        \
                                                             hy_r sc, int scaled,           \
                                                             int stream) {                  \
    if (node->sign < 0) hy_rowk2_##R0##_##R1##_impl(node, x, y, sc, scaled, stream, -1);    \
    else hy_rowk2_##R0##_##R1##_impl(node, x, y, sc, scaled, stream, 1);                    \
  }

#define HY_ROWK3(R0, R1, R2)                                                                \
  HY_INLINE void hy_rowk3_##R0##_##R1##_##R2##_impl(const hy_cpu_node *node, const hy_r *x, \
                                                    hy_r *y, hy_r sc, int scaled,           \
                                                    int stream, const int s) {              \
    enum { M = (R0) * (R1) * (R2) };                                                        \
    hy_v xr[HY_ROWK_PAD(M)], xi[HY_ROWK_PAD(M)], yr[HY_ROWK_PAD(M)], yi[HY_ROWK_PAD(M)];    \
    hy_row_in(x, M, xr, xi);                                                                \
    hy_three_stages_##R0##_##R1##_##R2(&node->rkp, xr, xi, yr, yi, s);                     \
    hy_rowk_zero(yr, yi, M);                                                                \
    hy_row_out(node, M, yr, yi, y, sc, scaled, stream, s);                                  \
  }                                                                                         \
  HY_NO_LIBCALLS HY_CLONES static void hy_rowk3_##R0##_##R1##_##R2(                         \
      const hy_cpu_node *node, const hy_r *x, hy_r *y, hy_r sc, int scaled, int stream) {   \
    if (node->sign < 0) hy_rowk3_##R0##_##R1##_##R2##_impl(node, x, y, sc, scaled, stream, -1); \
    else hy_rowk3_##R0##_##R1##_##R2##_impl(node, x, y, sc, scaled, stream, 1);             \
  }

/* The row plans with straight-line kernels: X(ARG, R) for one stage
 * (not m = 2: a 16-point f32 row ran slower than the single kernel),
 * X2(ARG, R0, R1) for two (up to 16 x 16: the 256-point plan of f32
 * 2048 and f64 1024 rows), X3(ARG, R0, R1, R2) for the three-stage plans
 * of up to 125 points, the one list the kernels and their pick expand.
 * Past 256 points the stage table's calls are a small share of a row's
 * time, and the local arrays would not fit a small thread stack. */
#define HY_ROWK_PLANS(X, X2, X3, ARG)                                                       \
  X(ARG, 3) X(ARG, 4) X(ARG, 5) X(ARG, 6) X(ARG, 7) X(ARG, 8) X(ARG, 16)                    \
  X2(ARG, 3, 3) X2(ARG, 2, 5) X2(ARG, 4, 3) X2(ARG, 3, 5) X2(ARG, 4, 5)                     \
  X2(ARG, 8, 3) X2(ARG, 8, 5) X2(ARG, 5, 5) X2(ARG, 16, 3) X2(ARG, 16, 4) X2(ARG, 16, 5)   \
  X2(ARG, 8, 4) X2(ARG, 16, 8) X2(ARG, 16, 16)                                              \
  X3(ARG, 3, 3, 3) X3(ARG, 2, 3, 5) X3(ARG, 4, 3, 3) X3(ARG, 2, 5, 5) X3(ARG, 4, 3, 5)      \
  X3(ARG, 4, 5, 5) X3(ARG, 5, 5, 5)
#define HY_ROWK_DEFINE1(ARG, R) HY_ROWK1(R)
#define HY_ROWK_DEFINE2(ARG, R0, R1) HY_ROWK2(R0, R1)
#define HY_ROWK_DEFINE3(ARG, R0, R1, R2) HY_ROWK3(R0, R1, R2)
HY_THREE_STAGES_CORE(5, 5, 5)
HY_ROWK_PLANS(HY_ROWK_DEFINE1, HY_ROWK_DEFINE2, HY_ROWK_DEFINE3, 0)

#define HY_ROWK_CASE1(KP, R)                                                                \
  if ((KP)->nstages == 1 && (KP)->stages[0].radix == (R)) return hy_rowk1_##R;
#define HY_ROWK_CASE2(KP, R0, R1)                                                           \
  if ((KP)->nstages == 2 && (KP)->stages[0].radix == (R0) && (KP)->stages[1].radix == (R1)) \
    return hy_rowk2_##R0##_##R1;
#define HY_ROWK_CASE3(KP, R0, R1, R2)                                                       \
  if ((KP)->nstages == 3 && (KP)->stages[0].radix == (R0) &&                                \
      (KP)->stages[1].radix == (R1) && (KP)->stages[2].radix == (R2))                       \
    return hy_rowk3_##R0##_##R1##_##R2;

/* The straight-line row kernel of a node's row plan (hy_cpu_node.rkp),
 * NULL where there is none. */
static hy_rowk_fn hy_rowk_pick(const hy_cpu_kp *kp) {
  HY_ROWK_PLANS(HY_ROWK_CASE1, HY_ROWK_CASE2, HY_ROWK_CASE3, kp)
  return NULL;
}


/* The straight-line kernel of a kernel plan, NULL where there is none.
 * Two-stage plans from 20 points (4 x 5 ... 16 x 5 = 80) hold more points
 * per lane in local vectors than the registers, so the compiler keeps
 * them on the stack: that still saves the table calls and lane
 * bookkeeping where the run reads one array and writes another, while in
 * place the lane arrays stay the faster form (measured,
 * docs/performance.md), hence out of place only. 16 x 8 = 128 is left to
 * the lane arrays, whose block copies stream from memory better at that
 * size (measured there too). */
static hy_short_fn hy_short_pick(const hy_cpu_kp *kp, int in_place) {
  if (kp->nstages == 3) return in_place ? NULL : hy_short3_pick3(kp);
  if (kp->nstages == 1) switch (kp->stages[0].radix) {
      case 2: return hy_short1_2;
      case 3: return hy_short1_3;
      case 4: return hy_short1_4;
      case 5: return hy_short1_5;
      case 6: return hy_short1_6;
      case 7: return hy_short1_7;
      case 8: return hy_short1_8;
      case 11: return hy_short1_11;
      case 13: return hy_short1_13;
      case 16: return hy_short1_16;
      default: return NULL;
    }
  if (kp->nstages == 2) {
    const int a = kp->stages[0].radix, b = kp->stages[1].radix;
    if (a == 3 && b == 3) return hy_short2_3_3;
    if (a == 2 && b == 5) return hy_short2_2_5;
    if (a == 4 && b == 3) return hy_short2_4_3;
    if (a == 2 && b == 7) return hy_short2_2_7;
    if (a == 3 && b == 5) return hy_short2_3_5;
    if (a == 16 && b == 4 && !in_place) return hy_short2_16_4;
    if (!in_place) {
      if (a == 4 && b == 5) return hy_short2_4_5;
      if (a == 8 && b == 3) return hy_short2_8_3;
      if (a == 5 && b == 5) return hy_short2_5_5;
      if (a == 8 && b == 5) return hy_short2_8_5;
      if (a == 16 && b == 3) return hy_short2_16_3;
      if (a == 7 && b == 7) return hy_short2_7_7;
      if (a == 16 && b == 5) return hy_short2_16_5;
    }
  }
  return NULL;
}

size_t HY_SFX(hy_cpu_node_scratch)(const hy_cpu_node *node) {
  if (node->kind != HY_CPU_DIRECT) return 0;
  /* hy_direct_range's request at its largest: lane groups (nv = n) and a
   * column block where one can fit (hy_col_block_fits). */
  return sizeof(hy_v) * (4 * (size_t)hy_lane_stride(node->n) + L_) +
         (size_t)hy_col_block_bytes(node);
}

static void hy_direct_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_job *job = arg;
  const hy_cpu_node *node = job->node;
  const int64_t n = node->n;
  const int colblk = hy_col_block_fits(node, job->run);
  /* Rows transform n / LANES vectors per array; lane groups n. */
  const int rows = hy_row_fits(node, job->run, job->count);
  const int64_t nv = rows ? n / L_ : n;
  /* Four arrays P vectors apart (hy_lane_stride), and LANES vectors of
   * slack after the last: the scatter of n < LANES reads a whole tile
   * from any of them; then the column block, if any. */
  const int64_t P = hy_lane_stride(nv);
  const size_t lane_bytes = sizeof(hy_v) * (4 * (size_t)P + L_);
  const size_t lead = lane_bytes + (colblk ? (size_t)hy_col_block_bytes(node) : 0);
  /* A real step on rows whose run streams goes through one local row
   * (n + 1 complex values, whole cache lines): see the row loop below. */
  const hy_cpu_run *run0 = job->run;
  const int via_row = rows && run0->real_step != HY_CPU_REAL_NONE && run0->stream_rows;
  const size_t row_bytes = via_row ? ((sizeof(hy_r) * 2 * (size_t)(n + 1) + 63) & ~(size_t)63) : 0;
  const size_t bytes = lead + row_bytes;
  hy_v *buf = hy_cpu_scratch_get(HY_SCRATCH_LANES, bytes);
  if (!buf) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  hy_v *ar = buf, *ai = buf + P, *br = buf + 2 * P, *bi = buf + 3 * P;
  hy_lane_pads_clear(buf, P, nv);
  /* Prefetch about HY_PF_BYTES ahead: one group is too close to hide
   * DRAM latency when groups are small. */
  const int64_t gbytes = (int64_t)sizeof(hy_r) * 2 * L_ * n;
  int64_t ahead = HY_PF_BYTES / gbytes;
  if (ahead < 1) ahead = 1;
  const hy_cpu_run *run = job->run;
  /* A C2R step in the gather reads X_0..X_n of each transform. */
  const int pre = run->real_step == HY_CPU_REAL_PRE, post = run->real_step == HY_CPU_REAL_POST;
  const int odd_in = run->real_step == HY_CPU_REAL_ODD_IN;
  const int odd_out = run->real_step == HY_CPU_REAL_ODD_OUT;
  const int64_t pf_n = pre ? n + 1 : n;
  /* Rows read each transform in order as they go, which the hardware
   * prefetches; lane groups touch LANES rows at once (the prefetch counts
   * complex elements: not for the odd real steps, whose sides differ). */
  for (int64_t g = begin; !rows && !odd_in && !odd_out && g < begin + ahead && g < end; g++) {
    hy_lanes pl;
    hy_lanes_make(job->run, g * L_, job->count, L_, &pl);
    hy_prefetch_group(job->run, &pl, pf_n);
  }
  /* An R2C step in the scatter applies the scale itself: the scatter
   * proper stores X_0..X_n-1 as they are. */
  hy_cpu_run unscaled;
  if (post) {
    unscaled = *run;
    unscaled.scale = 1.0;
  }
  if (rows) {
    /* A real step runs per transform beside its row, in cache: C2R's from
     * the input into the transform's output, whose row is then
     * transformed in place; R2C's in place on the output, with the scale. */
    const hy_r sc = (hy_r)run->scale;
    const int scaled = run->scale != 1.0 && !post;
    const hyfft_precision prec = sizeof(hy_r) == sizeof(double) ? HYFFT_F64 : HYFFT_F32;
    /* Each row through its straight-line kernel where it has one. */
    const hy_rowk_fn rowk = node->fused ? hy_rowk_pick(&node->rkp) : NULL;
    const int stream = run->stream_rows && !post;
    hy_lanes ln;
    for (int64_t g = begin; g < end; g++) {
      hy_lanes_make(run, g * L_, job->count, L_, &ln);
      for (int v = 0; v < ln.count; v++) {
        const hy_r *x = (const hy_r *)run->src + 2 * ln.so[v];
        hy_r *y = (hy_r *)run->dst + 2 * ln.dof[v];
        hy_status st = HYFFT_SUCCESS;
        if (via_row) {
          /* Out of a run that streams, a real step's row never waits on
           * the destination's lines: C2R's step writes the local row and
           * the row's transform streams from it into the destination;
           * R2C's transform writes the local row, the step runs in place
           * there, and the row streams out. */
          hy_r *loc = (hy_r *)(void *)((char *)buf + lead);
          if (pre) {
            st = hy_cpu_op_real_one(0, prec, run->real_tw, n, x, run->axis.in_stride, loc, 1, 1.0);
            if (st == HYFFT_SUCCESS && rowk) rowk(node, loc, y, sc, scaled, 1);
            else if (st == HYFFT_SUCCESS) hy_row_one(node, loc, y, sc, scaled, 1, ar, ai, br, bi);
          } else {
            if (rowk) rowk(node, x, loc, sc, scaled, 0);
            else hy_row_one(node, x, loc, sc, scaled, 0, ar, ai, br, bi);
            st = hy_cpu_op_real_one(1, prec, run->real_tw, n, loc, 1, loc, 1, run->scale);
            if (st == HYFFT_SUCCESS) hy_cpu_stream_copy(y, loc, sizeof(hy_r) * 2 * (size_t)(n + 1));
          }
          if (st != HYFFT_SUCCESS) __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
          continue;
        }
        if (pre) {
          st = hy_cpu_op_real_one(0, prec, run->real_tw, n, x, run->axis.in_stride, y, 1, 1.0);
          x = y;
        }
        /* Non-temporal stores where the run streams, but not under a
         * real step that reads the row back. */
        if (st == HYFFT_SUCCESS && rowk)
          rowk(node, x, y, sc, scaled, stream);
        else if (st == HYFFT_SUCCESS)
          hy_row_one(node, x, y, sc, scaled, stream, ar, ai, br, bi);
        if (st == HYFFT_SUCCESS && post)
          st = hy_cpu_op_real_one(1, prec, run->real_tw, n, y, 1, y, 1, run->scale);
        if (st != HYFFT_SUCCESS) __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
      }
    }
    begin = end;
  }
  const hyfft_dim *inner = run->nloops > 0 ? &run->loops[run->nloops - 1] : NULL;
  /* A run of transforms stored back to back (one loop, distance n, unit
   * stride, no twiddle), short enough for the block copies: its full
   * groups go straight through the block gathers and scatters, without
   * the per-group lane bookkeeping and layout checks, by the group's size
   * and n (HY_CROW_BYTES); a partial last group takes the general loop
   * below. */
  if (!run->real_step && run->nloops == 1 && run->axis.in_stride == 1 && run->axis.out_stride == 1 &&
      run->loops[0].in_stride == n && run->loops[0].out_stride == n && n * L_ <= HY_BLOCK_MAX &&
      !(run->twiddle_loop >= 0 && node->tw.n > 0)) {
    const int64_t full = job->count / L_, stop = end < full ? end : full;
    const hy_r sc = (hy_r)run->scale;
    const int scaled = run->scale != 1.0;
    const int64_t gb = (int64_t)sizeof(hy_r) * 2 * L_ * n;
    const hy_short_fn fused = node->fused ? hy_short_pick(&node->kp, run->src == run->dst) : NULL;
    if (fused) {
      fused(&node->kp, run->src, run->dst, begin, stop, sc, scaled, run->stream_out);
      begin = stop < begin ? begin : stop;
    } else if (n >= HY_CT && gb <= HY_CROW_BYTES) {
      for (; begin < stop; begin++) {
        const int64_t off = 2 * begin * L_ * n;
        const hy_r *in[L_];
        hy_r *out[L_];
        for (int v = 0; v < L_; v++) {
          in[v] = (const hy_r *)run->src + off + 2 * v * n;
          out[v] = (hy_r *)run->dst + off + 2 * v * n;
        }
        hy_gather_crows(in, n, ar, ai);
        int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
        hy_scatter_crows(out, L_, n, where ? br : ar, where ? bi : ai, sc, scaled);
      }
    } else if (n >= HY_CT && n % L_ != 0) {
      for (; begin < stop; begin++) {
        const int64_t off = 2 * begin * L_ * n;
        hy_gather_cblock((const hy_r *)run->src + off, n, ar, ai);
        int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
        hy_scatter_cblock((hy_r *)run->dst + off, n, where ? br : ar, where ? bi : ai, sc, scaled,
                          run->stream_out);
      }
    }
    for (; begin < stop; begin++) {
      const int64_t off = 2 * begin * L_ * n;
      hy_gather_block((const hy_r *)run->src + off, n, ar, ai);
      int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
      hy_scatter_block((hy_r *)run->dst + off, n, where ? br : ar, where ? bi : ai, sc, scaled,
                       run->stream_out);
    }
  }
  if (colblk) {
    hy_col_blocks(node, run, job->count, begin, end, (hy_r *)((char *)buf + lane_bytes), ar, ai,
                  br, bi);
    begin = end;
  }
  hy_lanes cur[1], pl;
  int have = 0;
  const hy_cols_fn cols = node->fused ? hy_cols_pick(&node->kp) : NULL;
  const hy_r cols_sc = (hy_r)run->scale;
  const int cols_scaled = run->scale != 1.0;
  for (int64_t g = begin; g < end; g++) {
    /* Groups inside one run of the innermost loop are the previous group
     * moved by LANES steps: no index decomposition per group. */
    const int64_t pos = inner ? (g * L_) % inner->n : 0;
    if (have && inner && pos >= L_ && pos + L_ <= inner->n && g * L_ + L_ <= job->count) {
      for (int v = 0; v < L_; v++) {
        cur->so[v] += L_ * inner->in_stride;
        cur->dof[v] += L_ * inner->out_stride;
        if (run->twiddle_loop == run->nloops - 1) cur->m[v] += L_;
      }
    } else {
      hy_lanes_make(run, g * L_, job->count, L_, cur);
    }
    have = 1;
    /* Neighbouring lanes, or whole transforms back to back, make the
     * groups one sequential stream, which the hardware prefetches. */
    if (g + ahead < end && !odd_in && !odd_out && !cur->contig_in &&
        !hy_lanes_block(cur, run->axis.in_stride, n, 0)) {
      hy_lanes_make(run, (g + ahead) * L_, job->count, L_, &pl);
      hy_prefetch_group(run, &pl, pf_n);
    }
    if (hy_lanes_halves_fit(node, run, cur)) {
      if (cols) {
        cols(&node->kp, (const hy_r *)run->src + 2 * cur->so[0], run->axis.in_stride,
             (hy_r *)run->dst + 2 * cur->dof[0], run->axis.out_stride, cols_sc, cols_scaled,
             run->stream_out);
        continue;
      }
      hy_gather_halves(run, cur, n, ar, ai);
      const int w = hy_kp_exec(&node->kp, ar, ai, br, bi);
      hy_scatter_halves(run, cur, n, w ? br : ar, w ? bi : ai);
      continue;
    }
    if (pre) hy_gather_pre(run, cur, n, ar, ai);
    else if (odd_in) hy_gather_reals(run, cur, n, ar, ai);
    else if (odd_out) hy_gather_hermitian(run, cur, n, ar, ai);
    else if (hy_gather_rows_fits(run, cur, n)) hy_gather_rows(run->src, cur, n, ar, ai);
    else hy_gather(run, cur, n, ar, ai);
    int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
    if (odd_in) {
      hy_scatter(node, job->run, cur, n / 2 + 1, where ? br : ar, where ? bi : ai);
    } else if (odd_out) {
      hy_scatter_reals(run, cur, n, where ? br : ar);
    } else if (post) {
      hy_v last;
      hy_post_lanes(run, n, where ? br : ar, where ? bi : ai, &last);
      hy_scatter(node, &unscaled, cur, n, where ? br : ar, where ? bi : ai);
      hy_post_last(run, cur, n, &last);
    } else {
      hy_scatter(node, job->run, cur, n, where ? br : ar, where ? bi : ai);
    }
  }
  /* Non-temporal stores are weakly ordered: done before the loop joins. */
  if (run->stream_out) hy_cpu_stream_fence();
  hy_cpu_scratch_put(HY_SCRATCH_LANES, buf, bytes);
}
