/* CPU engine impl, part 3 of 6: lane groups and data movement of batched
 * runs. A run's loop nest is decomposed into groups of HY_LANES transforms
 * (hy_lanes: each lane's input/output offset and twiddle-loop index); the
 * gather turns a group's interleaved input into split lane vectors and the
 * scatter writes them back with the run's scale and four-step twiddle,
 * using the cheapest path the layout allows (contiguous lanes, register
 * transposes of LANES x LANES tiles, tiles of whole complex elements for
 * short rows, back-to-back short transforms, or element loops). Prefetching of strided groups lives here too. Included
 * only by cpu_engine_impl.h, once per precision. */

/* ---- batched runs --------------------------------------------------- */

/* Elements of the largest group of back-to-back transforms that goes
 * through the block copies (hy_gather_block): 8 KiB of data, so that the
 * two local copies and the four lane arrays stay in L1. */
#ifndef HY_BLOCK_MAX
#define HY_BLOCK_MAX (8192 / (2 * (int)sizeof(hy_r)))
#endif

/* Vectors from the start of one lane array of a group's scratch to the
 * next, for arrays of n vectors: at least n, rounded so that consecutive
 * arrays start a quarter of 4 KiB plus one cache line apart modulo 4 KiB.
 * Arrays of power-of-two size placed back to back start on the same L1
 * and L2 sets, and a Stockham stage reading element j of all four then
 * evicts its own lines (n = 2048..4096 ran at two thirds of the speed of
 * n = 1024). */
static int64_t hy_lane_stride(int64_t n) {
  const int64_t vb = (int64_t)sizeof(hy_v), want = 1024 + 64;
  if (n * vb < 4096) return n; /* each array within one pass over the sets */
  int64_t pad = ((want - (n * vb) % 4096) % 4096 + 4096) % 4096;
  return n + pad / vb;
}

/* Zero what a tile read may see past the end of each of the four lane
 * arrays of n vectors, P apart (hy_lane_stride), in `buf`: a scatter
 * whose n is not a multiple of LANES reads the whole last tile, up to
 * LANES - 1 vectors past its array, into the next array or the padding
 * between them, and LANES vectors past the last array. Only those
 * vectors are cleared, not the whole padding: on short transforms
 * clearing the padding on every call cost more than a stage. */
static void hy_lane_pads_clear(hy_v *buf, int64_t P, int64_t n) {
  const int64_t pad = P - n < L_ ? P - n : L_;
  for (int k = 0; k < 3; k++) memset(buf + k * P + n, 0, sizeof(hy_v) * (size_t)pad);
  memset(buf + 3 * P + n, 0, sizeof(hy_v) * L_);
}

static int64_t hy_run_count(const hy_cpu_run *run) {
  int64_t c = 1;
  for (int l = 0; l < run->nloops; l++) c *= run->loops[l].n;
  return c;
}

/* Element offsets of transform t of the loop nest, and its index along
 * the twiddle loop. */
static void hy_run_offsets(const hy_cpu_run *run, int64_t t, int64_t *so, int64_t *dof,
                           int64_t *m) {
  int64_t a = 0, b = 0, mm = 0;
  for (int l = run->nloops - 1; l >= 0; l--) {
    int64_t n = run->loops[l].n, idx = t % n;
    t /= n;
    a += idx * run->loops[l].in_stride;
    b += idx * run->loops[l].out_stride;
    if (l == run->twiddle_loop) mm = idx;
  }
  *so = a;
  *dof = b;
  *m = mm;
}

/* exp(sign*2*pi*i*p/T) for 0 <= p < T, in double */
HY_INLINE void hy_tw_eval(const hy_cpu_twiddle *tw, int64_t p, double *wr, double *wi) {
  const double *l = tw->lo + 2 * (p & tw->mask), *h = tw->hi + 2 * (p >> tw->shift);
  *wr = l[0] * h[0] - l[1] * h[1];
  *wi = l[0] * h[1] + l[1] * h[0];
}

typedef struct hy_lanes {
  int count;      /* valid lanes */
  int contig_in;  /* lane v at so[0] + v, all lanes valid */
  int contig_out;
  /* Not contiguous, but each half of the lanes is: lane v at so[0] + v
   * below LANES/2 and at so[LANES/2] + v - LANES/2 above, all lanes valid
   * (interleaved transforms in runs of LANES/2, or a multiple of it: the
   * complex gather and scatter then move each half as one half-line). */
  int split_in;
  int split_out;
  int64_t so[L_], dof[L_], m[L_];
} hy_lanes;

static void hy_lanes_make(const hy_cpu_run *run, int64_t t0, int64_t total, int width,
                          hy_lanes *ln) {
  ln->count = (int)(total - t0 < width ? total - t0 : width);
  const int last = run->nloops - 1;
  const hyfft_dim *in = last >= 0 ? &run->loops[last] : NULL;
  if (in && t0 % in->n + ln->count <= in->n) {
    /* All lanes along the innermost loop: one index decomposition instead
     * of one (with a division per loop) per lane. */
    hy_run_offsets(run, t0, &ln->so[0], &ln->dof[0], &ln->m[0]);
    for (int v = 1; v < ln->count; v++) {
      ln->so[v] = ln->so[0] + v * in->in_stride;
      ln->dof[v] = ln->dof[0] + v * in->out_stride;
      ln->m[v] = ln->m[0] + (run->twiddle_loop == last ? v : 0);
    }
  } else {
    for (int v = 0; v < ln->count; v++) hy_run_offsets(run, t0 + v, &ln->so[v], &ln->dof[v], &ln->m[v]);
  }
  ln->contig_in = ln->contig_out = ln->count == width;
  ln->split_in = ln->split_out = ln->count == width && width == L_;
  for (int v = 1; v < ln->count; v++) {
    if (ln->so[v] != ln->so[0] + v) ln->contig_in = 0;
    if (ln->dof[v] != ln->dof[0] + v) ln->contig_out = 0;
    const int h = v < L_ / 2 ? 0 : L_ / 2;
    if (ln->so[v] != ln->so[h] + v - h) ln->split_in = 0;
    if (ln->dof[v] != ln->dof[h] + v - h) ln->split_out = 0;
  }
  if (ln->contig_in) ln->split_in = 0;
  if (ln->contig_out) ln->split_out = 0;
}

/* All LANES lanes valid and their transforms stored back to back with
 * unit stride: the group is one contiguous block of LANES*n elements. */
static int hy_lanes_block(const hy_lanes *ln, int64_t stride, int64_t n, int out) {
  if (ln->count != L_ || stride != 1) return 0;
  const int64_t *o = out ? ln->dof : ln->so;
  for (int v = 1; v < L_; v++)
    if (o[v] != o[0] + v * n) return 0;
  return 1;
}

/* One LANES x LANES tile: elements j0..j0+LANES-1 of each row (NULL rows
 * read as zero), transposed into ar/ai[j0 + q] for q < nc. */
HY_INLINE void hy_gather_tile(const hy_r *const *rows, int64_t is, int64_t j0, int64_t nc,
                              hy_v *restrict ar, hy_v *restrict ai) {
  const hy_vi even = HY_EVEN, odd = HY_ODD;
  hy_v tr[L_], ti[L_];
  for (int v = 0; v < L_; v++) {
    if (!rows[v]) {
      tr[v] = ti[v] = (hy_v){0};
      continue;
    }
    const hy_r *p = rows[v] + 2 * j0 * is;
    hy_v lo, hi;
    if (is == 1) {
      memcpy(&lo, p, sizeof lo);
      memcpy(&hi, p + L_, sizeof hi);
    } else {
      hy_r t[2 * L_];
      for (int q = 0; q < L_; q++) {
        t[2 * q] = p[2 * q * is];
        t[2 * q + 1] = p[2 * q * is + 1];
      }
      memcpy(&lo, t, sizeof lo);
      memcpy(&hi, t + L_, sizeof hi);
    }
    tr[v] = __builtin_shuffle(lo, hi, even);
    ti[v] = __builtin_shuffle(lo, hi, odd);
  }
  hy_transpose(tr);
  hy_transpose(ti);
  for (int q = 0; q < nc; q++) {
    ar[j0 + q] = tr[q];
    ai[j0 + q] = ti[q];
  }
}

/* The inverse of hy_gather_tile for lanes v < count: columns j0..j0+nc-1
 * of (fr, fi), times sc, to rows[v] + j0*os. A row of a tile narrower than
 * LANES (nc < LANES) is written whole, LANES elements from row start, so
 * rows must then be padded scratch written in increasing order. */
HY_INLINE void hy_scatter_tile(hy_r *const *rows, int count, int64_t os, int64_t j0,
                               const hy_v *restrict fr, const hy_v *restrict fi, hy_r sc,
                               int scaled) {
  const hy_vi ilo = HY_ILO, ihi = HY_IHI;
  hy_v tr[L_], ti[L_];
  for (int q = 0; q < L_; q++) {
    tr[q] = fr[j0 + q];
    ti[q] = fi[j0 + q];
    if (scaled) {
      tr[q] *= sc;
      ti[q] *= sc;
    }
  }
  hy_transpose(tr);
  hy_transpose(ti);
  for (int v = 0; v < count; v++) {
    hy_r *q = rows[v] + 2 * j0 * os;
    hy_v lo = __builtin_shuffle(tr[v], ti[v], ilo), hi = __builtin_shuffle(tr[v], ti[v], ihi);
    if (os == 1) {
      memcpy(q, &lo, sizeof lo);
      memcpy(q + L_, &hi, sizeof hi);
    } else {
      hy_r t[2 * L_];
      memcpy(t, &lo, sizeof lo);
      memcpy(t + L_, &hi, sizeof hi);
      for (int e = 0; e < L_; e++) {
        q[2 * e * os] = t[2 * e];
        q[2 * e * os + 1] = t[2 * e + 1];
      }
    }
  }
}

/* Complex tiles: HY_CT whole complex elements of each of a group's LANES
 * rows of unit stride (one 32-byte vector per row), read straight from
 * memory and turned into lane vectors. Lane v of a vector sits in its low
 * 128-bit half for v < LANES/2 and in its high half otherwise, so each
 * vector is loaded as two 16-byte halves: row v's into the low half and
 * row v + LANES/2's into the high half. Every shuffle after that stays
 * inside a half (a 4 x 4 transpose of floats per half in f32, an
 * unpack of doubles in f64): no shuffle crosses the halves, which cost
 * several times an in-half shuffle on CPUs that execute 256-bit vectors
 * as two 128-bit halves. No row is read past its last element, so any
 * n >= HY_CT needs neither a padded copy of the group nor element loops.
 * The scatter is the same steps backwards, each half stored to its row. */
#if HY_LANES == 8
#define HY_CT 4
#else
#define HY_CT 2
#endif
enum { HY_HALF_ROWS = L_ / 2, HY_HALF_BYTES = sizeof(hy_v) / 2 };

/* The vector of rows v and v + LANES/2, HY_CT/2 complex elements from j
 * of each (a NULL row reads as zero). The halves are loaded as 16-byte
 * values and joined in registers: assembling them in a 32-byte object in
 * memory would make the next load wait on two narrower stores. */
HY_INLINE void hy_load_halves(hy_v *m, const hy_r *const *rows, int v, int64_t j) {
  hy_vhalf lo = {0}, hi = {0};
  if (rows[v]) memcpy(&lo, rows[v] + 2 * j, sizeof lo);
  if (rows[v + HY_HALF_ROWS]) memcpy(&hi, rows[v + HY_HALF_ROWS] + 2 * j, sizeof hi);
  *m = HY_HALVES(lo, hi);
}

/* Half h of x (the row v + h*LANES/2 of the vector of row v) to dst. */
HY_INLINE void hy_store_half(hy_r *dst, const hy_v *x, int h) {
  memcpy(dst, (const char *)x + h * HY_HALF_BYTES, HY_HALF_BYTES);
}

/* Elements j0..j0+HY_CT-1 of each row (NULL rows read as zero) into
 * ar/ai[j0..j0+HY_CT-1]. */
HY_INLINE void hy_gather_ctile(const hy_r *const *rows, int64_t j0, hy_v *restrict ar,
                               hy_v *restrict ai) {
#if HY_LANES == 8
  /* Per half, m[v] = (re j, im j, re j+1, im j+1) of row v (v < 4): the
   * 4 x 4 transpose gives re j, im j, re j+1, im j+1 across the rows. */
  const hy_vi ulo = {0, 8, 1, 9, 4, 12, 5, 13}, uhi = {2, 10, 3, 11, 6, 14, 7, 15};
  const hy_vi plo = {0, 1, 8, 9, 4, 5, 12, 13}, phi = {2, 3, 10, 11, 6, 7, 14, 15};
  for (int c = 0; c < 2; c++) {
    const int64_t j = j0 + 2 * c;
    hy_v m[4];
    for (int v = 0; v < 4; v++) hy_load_halves(&m[v], rows, v, j);
    const hy_v t0 = __builtin_shuffle(m[0], m[1], ulo), t1 = __builtin_shuffle(m[0], m[1], uhi);
    const hy_v t2 = __builtin_shuffle(m[2], m[3], ulo), t3 = __builtin_shuffle(m[2], m[3], uhi);
    ar[j] = __builtin_shuffle(t0, t2, plo);
    ai[j] = __builtin_shuffle(t0, t2, phi);
    ar[j + 1] = __builtin_shuffle(t1, t3, plo);
    ai[j + 1] = __builtin_shuffle(t1, t3, phi);
  }
#else
  /* Per half, m = (re j, im j) of row v: unpacking rows 0 and 1 gives
   * re j and im j across the rows. */
  const hy_vi ulo = {0, 4, 2, 6}, uhi = {1, 5, 3, 7};
  for (int q = 0; q < 2; q++) {
    const int64_t j = j0 + q;
    hy_v m0, m1;
    hy_load_halves(&m0, rows, 0, j);
    hy_load_halves(&m1, rows, 1, j);
    ar[j] = __builtin_shuffle(m0, m1, ulo);
    ai[j] = __builtin_shuffle(m0, m1, uhi);
  }
#endif
}

/* Columns k0..k0+HY_CT-1 of (fr, fi), times sc, to rows[v] + 2*k0 for
 * v < count. */
HY_INLINE void hy_scatter_ctile(hy_r *const *rows, int count, int64_t k0,
                                const hy_v *restrict fr, const hy_v *restrict fi, hy_r sc,
                                int scaled) {
  hy_v x[L_];
#if HY_LANES == 8
  const hy_vi plo = {0, 1, 8, 9, 4, 5, 12, 13}, phi = {2, 3, 10, 11, 6, 7, 14, 15};
  const hy_vi elo = {0, 2, 8, 10, 4, 6, 12, 14}, ohi = {1, 3, 9, 11, 5, 7, 13, 15};
  for (int c = 0; c < 2; c++) {
    const int64_t k = k0 + 2 * c;
    hy_v r0 = fr[k], i0 = fi[k], r1 = fr[k + 1], i1 = fi[k + 1];
    if (scaled) {
      r0 *= sc;
      i0 *= sc;
      r1 *= sc;
      i1 *= sc;
    }
    /* The gather's steps backwards: x[4c + v] holds, per half,
     * (re k, im k, re k+1, im k+1) of row v. */
    const hy_v t0 = __builtin_shuffle(r0, i0, plo), t2 = __builtin_shuffle(r0, i0, phi);
    const hy_v t1 = __builtin_shuffle(r1, i1, plo), t3 = __builtin_shuffle(r1, i1, phi);
    x[4 * c + 0] = __builtin_shuffle(t0, t1, elo);
    x[4 * c + 1] = __builtin_shuffle(t0, t1, ohi);
    x[4 * c + 2] = __builtin_shuffle(t2, t3, elo);
    x[4 * c + 3] = __builtin_shuffle(t2, t3, ohi);
  }
  for (int v = 0; v < count; v++) {
    const int h = v / HY_HALF_ROWS, w = v % HY_HALF_ROWS;
    for (int c = 0; c < 2; c++) hy_store_half(rows[v] + 2 * (k0 + 2 * c), &x[4 * c + w], h);
  }
#else
  const hy_vi ulo = {0, 4, 2, 6}, uhi = {1, 5, 3, 7};
  for (int q = 0; q < 2; q++) {
    hy_v r = fr[k0 + q], i = fi[k0 + q];
    if (scaled) {
      r *= sc;
      i *= sc;
    }
    /* x[2q + w] holds, per half, (re, im) of row w. */
    x[2 * q] = __builtin_shuffle(r, i, ulo);
    x[2 * q + 1] = __builtin_shuffle(r, i, uhi);
  }
  for (int v = 0; v < count; v++) {
    const int h = v / HY_HALF_ROWS, w = v % HY_HALF_ROWS;
    for (int q = 0; q < 2; q++) hy_store_half(rows[v] + 2 * (k0 + q), &x[2 * q + w], h);
  }
#endif
}

/* A group of rows of n >= HY_CT elements with unit stride, tile by tile
 * straight from and to the rows (no copy); the last tile ends at n and
 * rewrites a few elements with equal values. */
HY_NO_LIBCALLS HY_CLONES __attribute__((noinline)) static void hy_gather_crows(
    const hy_r *const *rows, int64_t n, hy_v *restrict ar, hy_v *restrict ai) {
  int64_t j0 = 0;
  for (; j0 + HY_CT <= n; j0 += HY_CT) hy_gather_ctile(rows, j0, ar, ai);
  if (j0 < n) hy_gather_ctile(rows, n - HY_CT, ar, ai);
}

HY_NO_LIBCALLS HY_CLONES __attribute__((noinline)) static void hy_scatter_crows(
    hy_r *const *rows, int count, int64_t n, const hy_v *restrict fr, const hy_v *restrict fi,
    hy_r sc, int scaled) {
  int64_t k0 = 0;
  for (; k0 + HY_CT <= n; k0 += HY_CT) hy_scatter_ctile(rows, count, k0, fr, fi, sc, scaled);
  if (k0 < n) hy_scatter_ctile(rows, count, n - HY_CT, fr, fi, sc, scaled);
}

/* One row of n >= HY_CT complex values copied in whole vectors, the last
 * one ending at n (it may overlap the one before). */
HY_INLINE void hy_copy_ctiles(hy_r *restrict dst, const hy_r *restrict src, int64_t n) {
  int64_t j0 = 0;
  for (; j0 + HY_CT <= n; j0 += HY_CT) {
    hy_v t;
    memcpy(&t, src + 2 * j0, sizeof t);
    memcpy(dst + 2 * j0, &t, sizeof t);
  }
  if (j0 < n) {
    hy_v t;
    memcpy(&t, src + 2 * (n - HY_CT), sizeof t);
    memcpy(dst + 2 * (n - HY_CT), &t, sizeof t);
  }
}

/* The complex tiles of a group of transforms stored back to back, through
 * a local copy: each row is copied in memory order (the stream the
 * hardware prefetches, as hy_gather_block's) in the vectors its tiles
 * are (the last one ending at n), to rows padded to whole tiles; each
 * tile load is then exactly one earlier store of the copy and is
 * forwarded from it, where hy_gather_block's row loads straddle two
 * stores for most n. */
HY_NO_LIBCALLS HY_CLONES __attribute__((noinline)) static void hy_gather_cblock(
    const hy_r *b0, int64_t n, hy_v *restrict ar, hy_v *restrict ai) {
  const int64_t P = 2 * ((n + HY_CT - 1) / HY_CT * HY_CT);
  hy_r seq[2 * HY_BLOCK_MAX + 2 * L_ * HY_CT] __attribute__((aligned(64)));
  const hy_r *rows[L_];
  for (int v = 0; v < L_; v++) {
    hy_copy_ctiles(seq + v * P, b0 + 2 * v * n, n);
    rows[v] = seq + v * P;
  }
  int64_t j0 = 0;
  for (; j0 + HY_CT <= n; j0 += HY_CT) hy_gather_ctile(rows, j0, ar, ai);
  if (j0 < n) hy_gather_ctile(rows, n - HY_CT, ar, ai);
}

/* The mirror of hy_gather_cblock: tiles into the padded rows of the local
 * copy, the one ending at n first so that the copy-out load of every
 * whole tile is forwarded from that tile's own store (only the one ending
 * at n overlaps a later store), then the rows out in memory order. */
HY_NO_LIBCALLS HY_CLONES __attribute__((noinline)) static void hy_scatter_cblock(
    hy_r *b0, int64_t n, const hy_v *restrict fr, const hy_v *restrict fi, hy_r sc, int scaled,
    int stream) {
  const int64_t P = 2 * ((n + HY_CT - 1) / HY_CT * HY_CT);
  hy_r seq[2 * HY_BLOCK_MAX + 2 * L_ * HY_CT] __attribute__((aligned(64)));
  hy_r *rows[L_];
  for (int v = 0; v < L_; v++) rows[v] = seq + v * P;
  if (n % HY_CT) hy_scatter_ctile(rows, L_, n - HY_CT, fr, fi, sc, scaled);
  for (int64_t k0 = 0; k0 + HY_CT <= n; k0 += HY_CT) hy_scatter_ctile(rows, L_, k0, fr, fi, sc, scaled);
  for (int v = 0; v < L_; v++) {
    if (stream) hy_cpu_stream_copy(b0 + 2 * v * n, seq + v * P, sizeof(hy_r) * 2 * (size_t)n);
    else hy_copy_ctiles(b0 + 2 * v * n, seq + v * P, n);
  }
}

/* hy_gather for a group of separate transforms read with unit stride
 * that hy_gather would take tile by tile from memory (n >= LANES, not
 * contiguous lanes, not a short back-to-back block: see
 * hy_gather_rows_fits): a line of each row at a time, so each row's line
 * HY_PF_ROW elements ahead is requested with the tile (the hardware does
 * not run far enough ahead on so many streams). Called by the DIRECT
 * driver instead of hy_gather: inside hy_gather the same loop changed the
 * code GCC made of its other paths (n = 6 ran 1.2-1.3x slower). */
#ifndef HY_PF_ROW
#define HY_PF_ROW 64
#endif
static int hy_gather_rows_fits(const hy_cpu_run *run, const hy_lanes *ln, int64_t n) {
  return !ln->contig_in && n >= L_ && run->axis.in_stride == 1 &&
         !(n * L_ <= HY_BLOCK_MAX && hy_lanes_block(ln, 1, n, 0));
}

HY_NO_LIBCALLS HY_CLONES static void hy_gather_rows(const hy_r *src, const hy_lanes *ln, int64_t n,
                                                    hy_v *restrict ar, hy_v *restrict ai) {
  const hy_r *rows[L_];
  const int count = ln->count;
  for (int v = 0; v < L_; v++) rows[v] = v < count ? src + 2 * ln->so[v] : NULL;
  int64_t j0 = 0;
  for (; j0 + L_ <= n; j0 += L_) {
    if (j0 + HY_PF_ROW < n)
      for (int v = 0; v < count; v++) __builtin_prefetch(rows[v] + 2 * (j0 + HY_PF_ROW), 0, 3);
    hy_gather_tile(rows, 1, j0, L_, ar, ai);
  }
  if (j0 < n) hy_gather_tile(rows, 1, n - L_, L_, ar, ai);
}

/* hy_gather for LANES short transforms stored back to back (the group up
 * to HY_BLOCK_MAX elements): one sequential copy of the group with full-width
 * vector loads and stores first (a stream the hardware prefetches; GCC's
 * memcpy here became `rep movsq`, which stalled on every group), then the
 * tiles from that copy. For n < LANES a row's tile runs into the next row
 * (dropped by the transpose) and the last one into zeroed slack. A
 * function of its own so that the code GCC makes of hy_gather's other
 * paths stays as it was. */
static int hy_gather_block_fits(const hy_lanes *ln, int64_t is, int64_t n) {
  return n * L_ <= HY_BLOCK_MAX && hy_lanes_block(ln, is, n, 0);
}

HY_NO_LIBCALLS HY_CLONES __attribute__((noinline)) static void hy_gather_block(
    const hy_r *b0, int64_t n, hy_v *restrict ar, hy_v *restrict ai) {
  hy_r seq[2 * HY_BLOCK_MAX + 2 * L_] __attribute__((aligned(64)));
  for (int64_t i = 0; i < 2 * n; i++) {
    hy_v t;
    memcpy(&t, b0 + i * L_, sizeof t);
    memcpy(seq + i * L_, &t, sizeof t);
  }
  const hy_r *rows[L_];
  for (int v = 0; v < L_; v++) rows[v] = seq + 2 * v * n;
  if (n < L_) {
    const hy_v z = {0};
    memcpy(seq + 2 * n * L_, &z, sizeof z);
    memcpy(seq + 2 * n * L_ + L_, &z, sizeof z);
    hy_gather_tile(rows, 1, 0, n, ar, ai);
    return;
  }
  int64_t j0 = 0;
  for (; j0 + L_ <= n; j0 += L_) hy_gather_tile(rows, 1, j0, L_, ar, ai);
  if (j0 < n) hy_gather_tile(rows, 1, n - L_, L_, ar, ai);
}

/* Interleaved source -> split lane vectors, LANES wide. */
HY_NO_LIBCALLS HY_CLONES static void hy_gather(const hy_cpu_run *run, const hy_lanes *ln, int64_t n,
                                hy_v *restrict ar, hy_v *restrict ai) {
  const hy_r *src = run->src;
  const int64_t is = run->axis.in_stride;
  if (ln->contig_in || ln->split_in) {
    /* Each half of the lanes from one half-line: the second follows the
     * first (contiguous lanes) or starts at its own lane's offset. */
    const hy_vi even = HY_EVEN, odd = HY_ODD;
    const int64_t second = ln->contig_in ? L_ / 2 : ln->so[L_ / 2] - ln->so[0];
    for (int64_t j = 0; j < n; j++) {
      const hy_r *p = src + 2 * (ln->so[0] + j * is);
      hy_v lo, hi;
      memcpy(&lo, p, sizeof lo);
      memcpy(&hi, p + 2 * second, sizeof hi);
      ar[j] = __builtin_shuffle(lo, hi, even);
      ai[j] = __builtin_shuffle(lo, hi, odd);
    }
    return;
  }
  /* Separate transforms: LANES x LANES tiles, each lane read along its
   * own transform, then transposed in registers. */
  const hy_r *rows[L_];
  for (int v = 0; v < L_; v++) rows[v] = v < ln->count ? src + 2 * ln->so[v] : NULL;
  if (hy_gather_block_fits(ln, is, n)) {
    hy_gather_block(src + 2 * ln->so[0], n, ar, ai);
    return;
  }
  if (n >= L_) {
    int64_t j0 = 0;
    for (; j0 + L_ <= n; j0 += L_) hy_gather_tile(rows, is, j0, L_, ar, ai);
    /* The rest as one tile ending at n: it overlaps the previous one and
     * rewrites the same values, which is far cheaper than element loops. */
    if (j0 < n) hy_gather_tile(rows, is, n - L_, L_, ar, ai);
    return;
  }
  if (is == 1 && n >= HY_CT) {
    hy_gather_crows(rows, n, ar, ai);
    return;
  }
  hy_r *rr = (hy_r *)ar, *ri = (hy_r *)ai;
  for (int v = 0; v < L_; v++) {
    const hy_r *p = src + 2 * ln->so[v < ln->count ? v : 0];
    for (int64_t j = 0; j < n; j++) {
      rr[j * L_ + v] = v < ln->count ? p[2 * j * is] : 0;
      ri[j * L_ + v] = v < ln->count ? p[2 * j * is + 1] : 0;
    }
  }
}

/* The mirror of hy_gather_block for the scatter: the tiles into a local
 * copy of the group, then one sequential vector copy out (tiles written
 * straight to the destination touch LANES lines at a time). */
HY_NO_LIBCALLS HY_CLONES __attribute__((noinline)) static void hy_scatter_block(
    hy_r *b0, int64_t n, const hy_v *restrict fr, const hy_v *restrict fi, hy_r sc, int scaled,
    int stream) {
  hy_r seq[2 * HY_BLOCK_MAX + 2 * L_] __attribute__((aligned(64)));
  hy_r *rows[L_];
  for (int v = 0; v < L_; v++) rows[v] = seq + 2 * v * n;
  if (n < L_) {
    /* Whole rows of LANES in increasing order: each row's overrun is
     * rewritten by the next, the last one's lands in the slack. */
    hy_scatter_tile(rows, L_, 1, 0, fr, fi, sc, scaled);
  } else {
    int64_t k0 = 0;
    for (; k0 + L_ <= n; k0 += L_) hy_scatter_tile(rows, L_, 1, k0, fr, fi, sc, scaled);
    if (k0 < n) hy_scatter_tile(rows, L_, 1, n - L_, fr, fi, sc, scaled);
  }
  if (stream) {
    hy_cpu_stream_copy(b0, seq, sizeof(hy_r) * 2 * (size_t)(n * L_));
    return;
  }
  for (int64_t i = 0; i < 2 * n; i++) {
    hy_v t;
    memcpy(&t, seq + i * L_, sizeof t);
    memcpy(b0 + i * L_, &t, sizeof t);
  }
}

/* One line of output: a lane group's element k, LANES complex values side
 * by side (64 bytes in both precisions). Where the run streams its output
 * and the line is whole (64-byte aligned), non-temporal stores write it
 * without reading it first: a scatter of neighbouring transforms along a
 * long stride (a four-step node's second half, a column pass out of
 * place) otherwise reads every line it writes from memory. Runs with a
 * real step keep plain stores (their step reads the pair back). The
 * caller fences (hy_cpu_stream_fence) before the loop joins. */
HY_INLINE void hy_store_line(hy_r *q, hy_v lo, hy_v hi, int stream) {
#if defined(__x86_64__) && defined(__SSE2__)
  if (stream && ((uintptr_t)q & 63) == 0) {
    __m128 part[4];
    memcpy(part, &lo, sizeof lo);
    memcpy(part + 2, &hi, sizeof hi);
    for (int i = 0; i < 4; i++) _mm_stream_ps((float *)(void *)q + 4 * i, part[i]);
    return;
  }
#else
  (void)stream;
#endif
  memcpy(q, &lo, sizeof lo);
  memcpy(q + L_, &hi, sizeof hi);
}

/* Shuffle masks that split interleaved complex values into re and im
 * (SRE, SIM) and interleave them back (ILO, IHI) without crossing the
 * 128-bit halves: lane p takes the value hy_cpu_row_lane(LANES, p) of the
 * LANES loaded. Used by the row path and by groups of neighbouring
 * transforms. */
#if HY_LANES == 8
#define HY_HALF_SRE {0, 2, 8, 10, 4, 6, 12, 14}
#define HY_HALF_SIM {1, 3, 9, 11, 5, 7, 13, 15}
#define HY_HALF_ILO {0, 8, 1, 9, 4, 12, 5, 13}
#define HY_HALF_IHI {2, 10, 3, 11, 6, 14, 7, 15}
#else
#define HY_HALF_SRE {0, 4, 2, 6}
#define HY_HALF_SIM {1, 5, 3, 7}
#define HY_HALF_ILO {0, 4, 2, 6}
#define HY_HALF_IHI {1, 5, 3, 7}
#endif

/* A group of LANES neighbouring transforms on both sides (contig_in and
 * contig_out), untwiddled and without a real step: each element's LANES
 * neighbouring complex values split into re and im by shuffles inside
 * each 128-bit half, which leaves lane p holding transform
 * hy_cpu_row_lane(LANES, p) of the group instead of p (0 1 4 5 2 3 6 7 in
 * f32, 0 2 1 3 in f64). The lanes are independent transforms with the
 * same kernel plan, so the order matters only to the scatter, which
 * interleaves inside the halves again and so restores it. The plain
 * gather and scatter split and interleave across the halves (see
 * hy_gather_ctile for the cost). */
static int hy_lanes_halves_fit(const hy_cpu_node *node, const hy_cpu_run *run,
                               const hy_lanes *ln) {
  return ln->contig_in && ln->contig_out && !run->real_step &&
         !(run->twiddle_loop >= 0 && node->tw.n > 0);
}

/* n points of LANES neighbouring complex values, point j at x + 2*j*is:
 * each point's two half-line loads split into re and im inside each
 * 128-bit half (lane p is transform hy_cpu_row_lane(LANES, p)); and back,
 * each output point scaled, interleaved inside the halves and stored as
 * one line (non-temporal with `stream`). Inlined with n a constant by the
 * column kernels (cpu_engine_direct.h). */
HY_INLINE void hy_halves_in(const hy_r *x, int64_t is, int64_t n, hy_v *restrict xr,
                            hy_v *restrict xi) {
  const hy_vi sre = HY_HALF_SRE, sim = HY_HALF_SIM;
  for (int64_t j = 0; j < n; j++) {
    hy_v lo, hi;
    memcpy(&lo, x + 2 * j * is, sizeof lo);
    memcpy(&hi, x + 2 * j * is + L_, sizeof hi);
    xr[j] = __builtin_shuffle(lo, hi, sre);
    xi[j] = __builtin_shuffle(lo, hi, sim);
  }
}

HY_INLINE void hy_halves_out(hy_r *y, int64_t os, int64_t n, const hy_v *restrict xr,
                             const hy_v *restrict xi, hy_r sc, int scaled, int stream) {
  const hy_vi ilo = HY_HALF_ILO, ihi = HY_HALF_IHI;
  for (int64_t k = 0; k < n; k++) {
    hy_v a = xr[k], b = xi[k];
    if (scaled) {
      a *= sc;
      b *= sc;
    }
    hy_store_line(y + 2 * k * os, __builtin_shuffle(a, b, ilo), __builtin_shuffle(a, b, ihi),
                  stream);
  }
}

HY_NO_LIBCALLS HY_CLONES static void hy_gather_halves(const hy_cpu_run *run, const hy_lanes *ln,
                                                      int64_t n, hy_v *restrict ar,
                                                      hy_v *restrict ai) {
  hy_halves_in((const hy_r *)run->src + 2 * ln->so[0], run->axis.in_stride, n, ar, ai);
}

HY_NO_LIBCALLS HY_CLONES static void hy_scatter_halves(const hy_cpu_run *run, const hy_lanes *ln,
                                                       int64_t n, const hy_v *restrict fr,
                                                       const hy_v *restrict fi) {
  hy_halves_out((hy_r *)run->dst + 2 * ln->dof[0], run->axis.out_stride, n, fr, fi,
                (hy_r)run->scale, run->scale != 1.0, run->stream_out);
}

/* Split lane vectors -> interleaved destination, with scale and the
 * run's twiddle (evaluated in double). */
HY_NO_LIBCALLS HY_CLONES static void hy_scatter(const hy_cpu_node *node, const hy_cpu_run *run,
                                 const hy_lanes *ln, int64_t n, hy_v *restrict fr,
                                 hy_v *restrict fi) {
  hy_r *dst = run->dst;
  const int64_t os = run->axis.out_stride;
  double scale = run->scale;
  if (run->twiddle_loop >= 0 && node->tw.n > 0) {
    const int64_t T = node->tw.n;
    int seq = node->tw.lane != NULL;
    for (int v = 1; v < ln->count; v++)
      if (ln->m[v] != ln->m[0] + v) seq = 0;
    if (seq) {
      /* Lanes are consecutive loop indices m0 + v: w^((m0+v)k) is a
       * per-k scalar w^(m0 k) times the table's w^(v k), all in double
       * (hy_vw, half by half). */
      const double *lr = node->tw.lane, *li = node->tw.lane + n * L_;
      int64_t p = 0, d = ln->m[0] % T;
      for (int64_t k = 0; k < n; k++) {
        double br, bi;
        hy_tw_eval(&node->tw, p, &br, &bi);
        br *= scale;
        bi *= scale;
        hy_vw x = hy_widen(fr[k]), y = hy_widen(fi[k]), zr, zi;
        for (int h = 0; h < HY_WH; h++) {
          hy_v4d vr, vi;
          memcpy(&vr, lr + k * L_ + 4 * h, sizeof vr);
          memcpy(&vi, li + k * L_ + 4 * h, sizeof vi);
          hy_v4d wr = br * vr - bi * vi, wi = br * vi + bi * vr;
          zr.h[h] = x.h[h] * wr - y.h[h] * wi;
          zi.h[h] = x.h[h] * wi + y.h[h] * wr;
        }
        hy_narrow(&fr[k], &zr);
        hy_narrow(&fi[k], &zi);
        p += d;
        if (p >= T) p -= T;
      }
      scale = 1.0;
    } else {
      int64_t p[L_], d[L_];
      for (int v = 0; v < ln->count; v++) {
        p[v] = 0;
        d[v] = ln->m[v] % T;
      }
      for (int64_t k = 0; k < n; k++) {
        hy_v xr = fr[k], xi = fi[k];
        for (int v = 0; v < ln->count; v++) {
          double wr, wi, x = (double)xr[v], y = (double)xi[v];
          hy_tw_eval(&node->tw, p[v], &wr, &wi);
          hy_r *q = dst + 2 * (ln->dof[v] + k * os);
          q[0] = (hy_r)((x * wr - y * wi) * scale);
          q[1] = (hy_r)((x * wi + y * wr) * scale);
          p[v] += d[v];
          if (p[v] >= T) p[v] -= T;
        }
      }
      return;
    }
  }
  const hy_r sc = (hy_r)scale;
  if (ln->contig_out) {
    const hy_vi ilo = HY_ILO, ihi = HY_IHI;
    for (int64_t k = 0; k < n; k++) {
      hy_r *q = dst + 2 * (ln->dof[0] + k * os);
      hy_v xr = fr[k], xi = fi[k];
      if (scale != 1.0) {
        xr *= sc;
        xi *= sc;
      }
      hy_v lo = __builtin_shuffle(xr, xi, ilo), hi = __builtin_shuffle(xr, xi, ihi);
      hy_store_line(q, lo, hi, run->stream_out && !run->real_step);
    }
    return;
  }
  if (ln->split_out) {
    /* Each half of the lanes as one half-line at its own offset. */
    const hy_vi ilo = HY_ILO, ihi = HY_IHI;
    const int64_t second = ln->dof[L_ / 2] - ln->dof[0];
    for (int64_t k = 0; k < n; k++) {
      hy_r *q = dst + 2 * (ln->dof[0] + k * os);
      hy_v xr = fr[k], xi = fi[k];
      if (scale != 1.0) {
        xr *= sc;
        xi *= sc;
      }
      hy_v lo = __builtin_shuffle(xr, xi, ilo), hi = __builtin_shuffle(xr, xi, ihi);
      memcpy(q, &lo, sizeof lo);
      memcpy(q + 2 * second, &hi, sizeof hi);
    }
    return;
  }
  hy_r *rows[L_];
  for (int v = 0; v < L_; v++) rows[v] = dst + 2 * ln->dof[v < ln->count ? v : 0];
  const int scaled = scale != 1.0;
  if (n * L_ <= HY_BLOCK_MAX && hy_lanes_block(ln, os, n, 1)) {
    hy_scatter_block(dst + 2 * ln->dof[0], n, fr, fi, sc, scaled, run->stream_out);
    return;
  }
  if (n >= L_) {
    int64_t k0 = 0;
    for (; k0 + L_ <= n; k0 += L_) hy_scatter_tile(rows, ln->count, os, k0, fr, fi, sc, scaled);
    /* Overlapping last tile: rewrites a few elements with equal values. */
    if (k0 < n) hy_scatter_tile(rows, ln->count, os, n - L_, fr, fi, sc, scaled);
    return;
  }
  if (os == 1 && n >= HY_CT) {
    hy_scatter_crows(rows, ln->count, n, fr, fi, sc, scaled);
    return;
  }
  const hy_r *rr = (const hy_r *)fr, *ri = (const hy_r *)fi;
  for (int v = 0; v < ln->count; v++) {
    hy_r *q = dst + 2 * ln->dof[v];
    for (int64_t k = 0; k < n; k++) {
      q[2 * k * os] = rr[k * L_ + v] * sc;
      q[2 * k * os + 1] = ri[k * L_ + v] * sc;
    }
  }
}

/* ---- the odd-length steps of a real transform (HY_CPU_REAL_ODD_*) -----
 * The real side's offsets and strides count reals. Lanes of neighbouring
 * reals are one vector per element; separate transforms go through
 * LANES x LANES tiles of reals (the last one moved back to end at n, as
 * in hy_gather), and lanes past the group's count read as 0 or are not
 * stored. */

/* R2C: n reals of each lane as the real parts of its DFT input. */
HY_NO_LIBCALLS HY_CLONES static void hy_gather_reals(const hy_cpu_run *run, const hy_lanes *ln,
                                                     int64_t n, hy_v *restrict ar,
                                                     hy_v *restrict ai) {
  const hy_r *src = run->src;
  const int64_t is = run->axis.in_stride;
  for (int64_t j = 0; j < n; j++) ai[j] = (hy_v){0};
  if (ln->contig_in) {
    for (int64_t j = 0; j < n; j++) memcpy(&ar[j], src + ln->so[0] + j * is, sizeof(hy_v));
    return;
  }
  if (n >= L_) {
    for (int64_t j0 = 0; j0 < n; j0 += L_) {
      const int64_t t0 = j0 + L_ <= n ? j0 : n - L_;
      hy_v t[L_];
      for (int v = 0; v < L_; v++) {
        if (v >= ln->count) {
          t[v] = (hy_v){0};
          continue;
        }
        const hy_r *p = src + ln->so[v] + t0 * is;
        if (is == 1) {
          memcpy(&t[v], p, sizeof t[v]);
        } else {
          hy_r e[L_];
          for (int q = 0; q < L_; q++) e[q] = p[q * is];
          memcpy(&t[v], e, sizeof e);
        }
      }
      hy_transpose(t);
      for (int q = 0; q < L_; q++) ar[t0 + q] = t[q];
    }
    return;
  }
  hy_r *rr = (hy_r *)ar;
  for (int v = 0; v < L_; v++) {
    const hy_r *p = src + ln->so[v < ln->count ? v : 0];
    const hy_r keep = v < ln->count ? 1 : 0;
    for (int64_t j = 0; j < n; j++) rr[j * L_ + v] = keep * p[j * is];
  }
}

/* C2R: X_0..X_h-1 of each lane (h = n/2 + 1) extended to the n inputs of
 * its DFT, X_n-e = conj(X_e). X_0's imaginary part stays: it adds only to
 * the imaginary parts of the outputs, which are not stored, so the reals
 * are those of FFTW's C2R of a spectrum that is not Hermitian (as if it
 * were 0). */
HY_NO_LIBCALLS HY_CLONES static void hy_gather_hermitian(const hy_cpu_run *run, const hy_lanes *ln, int64_t n,
                                hy_v *restrict ar, hy_v *restrict ai) {
  const int64_t h = n / 2 + 1;
  hy_gather(run, ln, h, ar, ai);
  for (int64_t e = h; e < n; e++) {
    ar[e] = ar[n - e];
    ai[e] = -ai[n - e];
  }
}

/* C2R: the real parts of each lane's n outputs, times the run's scale. */
HY_NO_LIBCALLS HY_CLONES static void hy_scatter_reals(const hy_cpu_run *run, const hy_lanes *ln,
                                                      int64_t n, const hy_v *restrict fr) {
  hy_r *dst = run->dst;
  const int64_t os = run->axis.out_stride;
  const hy_r sc = (hy_r)run->scale;
  if (ln->contig_out) {
    for (int64_t k = 0; k < n; k++) {
      const hy_v x = fr[k] * sc;
      memcpy(dst + ln->dof[0] + k * os, &x, sizeof x);
    }
    return;
  }
  if (n >= L_) {
    for (int64_t k0 = 0; k0 < n; k0 += L_) {
      const int64_t t0 = k0 + L_ <= n ? k0 : n - L_;
      hy_v t[L_];
      for (int q = 0; q < L_; q++) t[q] = fr[t0 + q] * sc;
      hy_transpose(t);
      for (int v = 0; v < ln->count; v++) {
        hy_r *p = dst + ln->dof[v] + t0 * os;
        if (os == 1) {
          memcpy(p, &t[v], sizeof t[v]);
        } else {
          hy_r e[L_];
          memcpy(e, &t[v], sizeof e);
          for (int q = 0; q < L_; q++) p[q * os] = e[q];
        }
      }
    }
    return;
  }
  const hy_r *rr = (const hy_r *)fr;
  for (int v = 0; v < ln->count; v++)
    for (int64_t k = 0; k < n; k++) dst[ln->dof[v] + k * os] = rr[k * L_ + v] * sc;
}

/* ---- the even-length step of a real transform (hy_cpu_run.real_step) --
 * The f64 engine computes in double with the double twiddles; the f32
 * engine in float with the table's float twiddles (after the doubles,
 * interleaved: hy_cpu_op_real_table), as the DFT beside it does, and
 * makes both outputs of a pair from one complex product: with P = a +
 * conj(b), Q = a - conj(b) and T_m-j = -conj(T_j), C2R's Z_j = P + i T Q
 * and Z_m-j = conj(P - i T Q), R2C's X_j = (P - i T Q) / 2 and X_m-j =
 * conj(P + i T Q) / 2. */
#if HY_LANES == 8
#define HY_REAL_F32 1
/* The float twiddle T_j of a real step's table: re at [2j], im at [2j+1]. */
#define HY_TW32(run, n) ((const float *)(const void *)((run)->real_tw + 2 * ((n) + 1)))
/* C2R: Z_j into (zr, zi) and Z_m-j into (yr, yi). */
HY_INLINE void hy_pre_pair_f(const hy_v *ar, const hy_v *ai, const hy_v *br, const hy_v *bi,
                             hy_r tr, hy_r ti, hy_v *zr, hy_v *zi, hy_v *yr, hy_v *yi) {
  const hy_v pr = *ar + *br, pi = *ai - *bi, qr = *ar - *br, qi = *ai + *bi;
  const hy_v tqr = tr * qr - ti * qi, tqi = tr * qi + ti * qr;
  *zr = pr - tqi;
  *zi = pi + tqr;
  *yr = pr + tqi;
  *yi = tqr - pi;
}
#else
#define HY_REAL_F32 0
#endif

/* Z = P + i T Q with P = a + conj(b), Q = a - conj(b), T = (tr, ti), for
 * the lanes' a = X_j and b = X_m-j. */
HY_INLINE void hy_pre_lanes(const hy_v *ar, const hy_v *ai, const hy_v *br, const hy_v *bi,
                            double tr, double ti, hy_v *zr, hy_v *zi) {
  hy_vw xr = hy_widen(*ar), xi = hy_widen(*ai), wr = hy_widen(*br), wi = hy_widen(*bi), or, oi;
  for (int h = 0; h < HY_WH; h++) {
    hy_v4d pr = xr.h[h] + wr.h[h], pi = xi.h[h] - wi.h[h];
    hy_v4d qr = xr.h[h] - wr.h[h], qi = xi.h[h] + wi.h[h];
    or.h[h] = pr - (tr * qi + ti * qr);
    oi.h[h] = pi + (tr * qr - ti * qi);
  }
  hy_narrow(zr, &or);
  hy_narrow(zi, &oi);
}

/* hy_gather for a run with HY_CPU_REAL_PRE: element j of each lane is Z_j,
 * made from X_j and X_m-j (m = n) of that lane's transform as they are
 * read. A tile of LANES elements t0..t0+LANES-1 goes with its mirror tile
 * (elements m-t0-LANES+1..m-t0 of the same transforms, in reverse order
 * after the transpose): the two hold both inputs of the pairs j, m-j, so
 * each pair of tiles gives Z at both, and every input is loaded once, from
 * lines the group reads anyway: the step costs no pass over memory of its
 * own. Z_0 (from X_0 and X_m) is made last. */
HY_NO_LIBCALLS HY_CLONES static void hy_gather_pre(const hy_cpu_run *run, const hy_lanes *ln,
                                                   int64_t n, hy_v *restrict ar,
                                                   hy_v *restrict ai) {
  const hy_r *src = run->src;
  const int64_t is = run->axis.in_stride;
  const double *tre = run->real_tw, *tim = run->real_tw + n + 1;
#if HY_REAL_F32
  (void)tre; /* the f32 engine's pairs take the float twiddles */
  (void)tim;
#endif
  if (ln->contig_in) {
    const hy_vi even = HY_EVEN, odd = HY_ODD;
    for (int64_t j = 1; 2 * j <= n; j++) {
      const hy_r *p = src + 2 * (ln->so[0] + j * is), *q = src + 2 * (ln->so[0] + (n - j) * is);
      hy_v lo, hi, xr, xi, yr, yi;
      memcpy(&lo, p, sizeof lo);
      memcpy(&hi, p + L_, sizeof hi);
      xr = __builtin_shuffle(lo, hi, even);
      xi = __builtin_shuffle(lo, hi, odd);
      memcpy(&lo, q, sizeof lo);
      memcpy(&hi, q + L_, sizeof hi);
      yr = __builtin_shuffle(lo, hi, even);
      yi = __builtin_shuffle(lo, hi, odd);
#if HY_REAL_F32
      /* Z_m-j first: at 2j = n the pair is itself and Z_j is kept. */
      hy_pre_pair_f(&xr, &xi, &yr, &yi, HY_TW32(run, n)[2 * j], HY_TW32(run, n)[2 * j + 1], &lo,
                    &hi, &ar[n - j], &ai[n - j]);
      ar[j] = lo;
      ai[j] = hi;
#else
      hy_pre_lanes(&xr, &xi, &yr, &yi, tre[j], tim[j], &ar[j], &ai[j]);
      hy_pre_lanes(&yr, &yi, &xr, &xi, tre[n - j], tim[n - j], &ar[n - j], &ai[n - j]);
#endif
    }
  } else if (n > L_) {
    const hy_r *rows[L_], *lower[L_], *mirror[L_];
    for (int v = 0; v < L_; v++) rows[v] = v < ln->count ? src + 2 * ln->so[v] : NULL;
    /* Tiles from element 1 up to the middle, the last one moved back to
     * end at n-1 where it would pass it; where a tile and its mirror
     * overlap, both give the same values for the same elements. */
    for (int64_t j0 = 1; 2 * j0 <= n; j0 += L_) {
      const int64_t t0 = j0 + L_ <= n ? j0 : n - L_, m0 = n - t0 - (L_ - 1);
      if (is == 1 && t0 + HY_PF_ROW < n)
        for (int v = 0; v < ln->count; v++) {
          __builtin_prefetch(rows[v] + 2 * (t0 + HY_PF_ROW), 0, 3);
          if (m0 >= HY_PF_ROW) __builtin_prefetch(rows[v] + 2 * (m0 - HY_PF_ROW), 0, 3);
        }
      for (int v = 0; v < L_; v++) {
        lower[v] = rows[v] ? rows[v] + 2 * t0 * is : NULL;
        mirror[v] = rows[v] ? rows[v] + 2 * m0 * is : NULL;
      }
      hy_v xr[L_], xi[L_], yr[L_], yi[L_];
      hy_gather_tile(lower, is, 0, L_, xr, xi);
      hy_gather_tile(mirror, is, 0, L_, yr, yi);
      for (int q = 0; q < L_; q++) {
#if HY_REAL_F32
        /* Pairs past the middle (t0 + q > m0 + L_ - 1 - q) are the
         * mirror's own pairs, made where the mirror is the lower tile. */
        if (2 * (t0 + q) > n) continue;
        hy_v zr, zi;
        hy_pre_pair_f(&xr[q], &xi[q], &yr[L_ - 1 - q], &yi[L_ - 1 - q],
                      HY_TW32(run, n)[2 * (t0 + q)], HY_TW32(run, n)[2 * (t0 + q) + 1], &zr, &zi,
                      &ar[m0 + L_ - 1 - q], &ai[m0 + L_ - 1 - q]);
        ar[t0 + q] = zr;
        ai[t0 + q] = zi;
#else
        hy_pre_lanes(&xr[q], &xi[q], &yr[L_ - 1 - q], &yi[L_ - 1 - q], tre[t0 + q], tim[t0 + q],
                     &ar[t0 + q], &ai[t0 + q]);
        hy_pre_lanes(&yr[L_ - 1 - q], &yi[L_ - 1 - q], &xr[q], &xi[q], tre[m0 + L_ - 1 - q],
                     tim[m0 + L_ - 1 - q], &ar[m0 + L_ - 1 - q], &ai[m0 + L_ - 1 - q]);
#endif
      }
    }
  } else {
    /* A short transform (n <= LANES): each lane's n + 1 inputs are
     * transposed into lane vectors x_0..x_n one value at a time (lanes
     * past the group's count 0), and the pairs made on the vectors. */
    hy_v xr[L_ + 1], xi[L_ + 1];
    hy_r *sr = (hy_r *)xr, *si = (hy_r *)xi;
    for (int v = 0; v < L_; v++) {
      const hy_r *p = src + 2 * ln->so[v < ln->count ? v : 0];
      const hy_r keep = v < ln->count ? 1 : 0;
      for (int64_t j = 0; j <= n; j++) {
        sr[j * L_ + v] = keep * p[2 * j * is];
        si[j * L_ + v] = keep * p[2 * j * is + 1];
      }
    }
    for (int64_t j = 1; 2 * j <= n; j++) {
#if HY_REAL_F32
      hy_v zr, zi;
      hy_pre_pair_f(&xr[j], &xi[j], &xr[n - j], &xi[n - j], HY_TW32(run, n)[2 * j],
                    HY_TW32(run, n)[2 * j + 1], &zr, &zi, &ar[n - j], &ai[n - j]);
      ar[j] = zr;
      ai[j] = zi;
#else
      hy_pre_lanes(&xr[j], &xi[j], &xr[n - j], &xi[n - j], tre[j], tim[j], &ar[j], &ai[j]);
      hy_pre_lanes(&xr[n - j], &xi[n - j], &xr[j], &xi[j], tre[n - j], tim[n - j], &ar[n - j],
                   &ai[n - j]);
#endif
    }
    /* Z_0 as below, on the vectors (the same correctly rounded sums). */
    ar[0] = xr[0] + xr[n];
    ai[0] = xr[0] - xr[n];
    return;
  }
  /* Z_0 with the imaginary parts of X_0 and X_m taken as 0 (FFTW's C2R of
   * a spectrum that is not Hermitian); lanes past the group's count 0. */
  hy_r *rr = (hy_r *)ar, *ri = (hy_r *)ai;
  for (int v = 0; v < L_; v++) {
    double x0 = 0, xm = 0;
    if (v < ln->count) x0 = src[2 * ln->so[v]], xm = src[2 * (ln->so[v] + n * is)];
    rr[v] = (hy_r)(x0 + xm);
    ri[v] = (hy_r)(x0 - xm);
  }
}

/* X = (P - i T Q) / 2 with P = a + conj(b), Q = a - conj(b), times sc. */
HY_INLINE void hy_post_pair(const hy_vw *a_r, const hy_vw *a_i, const hy_vw *b_r, const hy_vw *b_i,
                            double tr, double ti, double sc, hy_v *xr, hy_v *xi) {
  hy_vw or, oi;
  for (int h = 0; h < HY_WH; h++) {
    hy_v4d ar = a_r->h[h], ai = a_i->h[h], br = b_r->h[h], bi = b_i->h[h];
    hy_v4d pr = ar + br, pi = ai - bi, qr = ar - br, qi = ai + bi;
    hy_v4d ur = tr * qi + ti * qr, ui = -(tr * qr - ti * qi);
    or.h[h] = sc * (0.5 * (pr + ur));
    oi.h[h] = sc * (0.5 * (pi + ui));
  }
  hy_narrow(xr, &or);
  hy_narrow(xi, &oi);
}

/* HY_CPU_REAL_POST on a group's DFT Z (fr, fi, n = m elements), before
 * the scatter: X_0..X_m-1 in place of Z (X_k and X_m-k both come from Z_k
 * and Z_m-k, so each pair is read before it is written) and X_m's real
 * part in *last (its imaginary part is 0), all times the run's scale. */
HY_NO_LIBCALLS HY_CLONES static void hy_post_lanes(const hy_cpu_run *run, int64_t n,
                                                   hy_v *restrict fr, hy_v *restrict fi,
                                                   hy_v *last) {
  const double *tre = run->real_tw, *tim = run->real_tw + n + 1, sc = run->scale;
  hy_vw z0r = hy_widen(fr[0]), z0i = hy_widen(fi[0]), first, past;
  for (int h = 0; h < HY_WH; h++) {
    first.h[h] = sc * (z0r.h[h] + z0i.h[h]);
    past.h[h] = sc * (z0r.h[h] - z0i.h[h]);
  }
  hy_narrow(&fr[0], &first);
  fi[0] = (hy_v){0};
  hy_narrow(last, &past);
#if HY_REAL_F32
  const float *tw = HY_TW32(run, n);
  const hy_r f = (hy_r)(0.5 * sc);
  for (int64_t k = 1; 2 * k <= n; k++) {
    const hy_v ar = fr[k], ai = fi[k], br = fr[n - k], bi = fi[n - k];
    const hy_v pr = ar + br, pi = ai - bi, qr = ar - br, qi = ai + bi;
    const hy_r tr = tw[2 * k], ti = tw[2 * k + 1];
    const hy_v tqr = tr * qr - ti * qi, tqi = tr * qi + ti * qr;
    /* X_m-k first: at 2k = n the pair is itself and X_k is kept. */
    fr[n - k] = f * (pr - tqi);
    fi[n - k] = -(f * (pi + tqr));
    fr[k] = f * (pr + tqi);
    fi[k] = f * (pi - tqr);
  }
  return;
#endif
  for (int64_t k = 1; 2 * k <= n; k++) {
    hy_vw ar = hy_widen(fr[k]), ai = hy_widen(fi[k]);
    hy_vw br = hy_widen(fr[n - k]), bi = hy_widen(fi[n - k]);
    hy_post_pair(&ar, &ai, &br, &bi, tre[k], tim[k], sc, &fr[k], &fi[k]);
    if (2 * k != n) hy_post_pair(&br, &bi, &ar, &ai, tre[n - k], tim[n - k], sc, &fr[n - k], &fi[n - k]);
  }
}

/* X_m of each lane after the scatter of X_0..X_m-1 (hy_post_lanes). */
static void hy_post_last(const hy_cpu_run *run, const hy_lanes *ln, int64_t n, const hy_v *last) {
  hy_r *dst = run->dst;
  const hy_r *x = (const hy_r *)last;
  for (int v = 0; v < ln->count; v++) {
    hy_r *q = dst + 2 * (ln->dof[v] + n * run->axis.out_stride);
    q[0] = x[v];
    q[1] = 0;
  }
}

/* Start loading a later group's input while this group computes, for
 * groups whose lanes are separate strided transforms: their elements are
 * read in transposed order, which the hardware prefetchers do not follow.
 * (Stores need no prefetch: they do not stall the core.) */
#ifndef HY_PF_BYTES
#define HY_PF_BYTES 16384
#endif
static void hy_prefetch_group(const hy_cpu_run *run, const hy_lanes *ln, int64_t n) {
  /* Neighbouring lanes are read as whole lines in order, which the
   * hardware follows by itself. */
  if (ln->contig_in) return;
  const char *src = run->src;
  const int64_t e = 2 * (int64_t)sizeof(hy_r), is = run->axis.in_stride * e;
  for (int v = 0; v < ln->count; v++) {
    const char *p = src + ln->so[v] * e;
    if (is == e) {
      for (int64_t b = 0; b < n * e; b += 64) __builtin_prefetch(p + b, 0, 3);
      __builtin_prefetch(p + n * e - 1, 0, 3);
    } else {
      for (int64_t j = 0; j < n; j++) __builtin_prefetch(p + j * is, 0, 3);
    }
  }
}
