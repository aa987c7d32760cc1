/* CPU engine impl, part 5 of 6: Bluestein (chirp-z) and Rader nodes. Both
 * turn a prime-length DFT into a cyclic convolution of length m (Bluestein:
 * m >= 2n - 2, the input times a chirp; Rader: m = n - 1, the input read
 * at g^q mod n), done as two forward transforms with the kernel's spectrum
 * multiplied in between, in the data's precision. Two drivers each:
 * LANES transforms side by side on the kernel plan, gathered and scattered
 * like a DIRECT node's (hy_conv_range, for batches), or one transform at
 * a time through the length-m node `fft` (hy_conv_wide, for single or few
 * long transforms). The tables come from cpu_node.c. Included only by
 * cpu_engine_impl.h, once per precision. */

/* The middle step on lane vectors: (pr, pi) = conj(P * spec), the inverse
 * transform then runs as a forward one. */
HY_CLONES static void hy_conv_mul(int64_t M, hy_v *restrict pr, hy_v *restrict pi,
                                  const hy_r *restrict sr, const hy_r *restrict si) {
  for (int64_t j = 0; j < M; j++) {
    hy_v x = pr[j], y = pi[j];
    pr[j] = x * sr[j] - y * si[j];
    pi[j] = -(x * si[j] + y * sr[j]);
  }
}

/* Bluestein's input step: a[j] = x[j] * c[j] for j < n, zero up to M. */
HY_CLONES static void hy_bl_chirp_in(int64_t n, int64_t M, const hy_v *restrict xr,
                                     const hy_v *restrict xi, const hy_r *restrict cr,
                                     const hy_r *restrict ci, hy_v *restrict ar,
                                     hy_v *restrict ai) {
  for (int64_t j = 0; j < n; j++) {
    hy_v x = xr[j], y = xi[j];
    ar[j] = x * cr[j] - y * ci[j];
    ai[j] = x * ci[j] + y * cr[j];
  }
  for (int64_t j = n; j < M; j++) ar[j] = ai[j] = (hy_v){0};
}

/* Bluestein's output step, in place: X[k] = c[k] * conj(q[k]). */
HY_CLONES static void hy_bl_chirp_out(int64_t n, hy_v *restrict fr, hy_v *restrict fi,
                                      const hy_r *restrict cr, const hy_r *restrict ci) {
  for (int64_t k = 0; k < n; k++) {
    hy_v x = fr[k], y = fi[k];
    fr[k] = x * cr[k] + y * ci[k];
    fi[k] = x * ci[k] - y * cr[k];
  }
}

/* Rader's input step: a[q] = x[g^q mod n]. */
HY_CLONES static void hy_rd_in(int64_t M, const int32_t *restrict rd, const hy_v *restrict xr,
                               const hy_v *restrict xi, hy_v *restrict ar, hy_v *restrict ai) {
  for (int64_t q = 0; q < M; q++) {
    ar[q] = xr[rd[q]];
    ai[q] = xi[rd[q]];
  }
}

/* Rader's output step: X[g^-r mod n] = x_0 + conj(q[r]), X[0] = x_0 plus
 * the sum of the others (the first transform's DC term); x0 and dc hold
 * re then im. */
HY_CLONES static void hy_rd_out(int64_t M, const int32_t *restrict wr, const hy_v *restrict fr,
                                const hy_v *restrict fi, const hy_v *restrict x0,
                                const hy_v *restrict dc, hy_v *restrict xr, hy_v *restrict xi) {
  const hy_v x0r = x0[0], x0i = x0[1];
  xr[0] = x0r + dc[0];
  xi[0] = x0i + dc[1];
  for (int64_t r = 0; r < M; r++) {
    xr[wr[r]] = x0r + fr[r];
    xi[wr[r]] = x0i - fi[r];
  }
}

/* LANES transforms side by side in two buffer pairs, A and B: the gather into B in natural order, the input step into A,
 * the two transforms ping-ponging between A and B, the output step in
 * natural order (Bluestein in place, Rader into the free pair), and the
 * DIRECT node's scatter (scale, twiddle). Four arrays instead of six keep
 * the lane buffers in L1 (127) and L2 (1009, 4099). */
static void hy_conv_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_job *job = arg;
  const hy_cpu_node *node = job->node;
  const hy_cpu_run *run = job->run;
  const int64_t n = node->n, M = node->m;
  const int rader = node->kind == HY_CPU_RADER;
  /* Arrays of max(n, M) vectors (Rader's n is M + 1), P apart, and LANES
   * vectors of slack after them, as for DIRECT nodes. */
  const int64_t S = n > M ? n : M, P = hy_lane_stride(S);
  const size_t bytes = sizeof(hy_v) * (4 * (size_t)P + L_);
  hy_v *buf = hy_cpu_scratch_get(HY_SCRATCH_LANES, bytes);
  if (!buf) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  hy_v *ar = buf, *ai = buf + P, *br = buf + 2 * P, *bi = buf + 3 * P;
  hy_lane_pads_clear(buf, P, S);
  const hy_r *sr = node->spec, *si = sr + M;
  const hy_r *cr = node->chirp, *ci = rader ? NULL : cr + n;
  for (int64_t g = begin; g < end; g++) {
    hy_lanes ln;
    hy_lanes_make(run, g * L_, job->count, L_, &ln);
    hy_gather(run, &ln, n, br, bi);
    const hy_v x0[2] = {br[0], bi[0]};
    if (rader) hy_rd_in(M, node->rd, br, bi, ar, ai);
    else hy_bl_chirp_in(n, M, br, bi, cr, ci, ar, ai);
    int w1 = hy_kp_exec(&node->kp, ar, ai, br, bi);
    hy_v *pr = w1 ? br : ar, *pi = w1 ? bi : ai, *qr = w1 ? ar : br, *qi = w1 ? ai : bi;
    const hy_v dc[2] = {pr[0], pi[0]};
    hy_conv_mul(M, pr, pi, sr, si);
    int w2 = hy_kp_exec(&node->kp, pr, pi, qr, qi);
    hy_v *fr = w2 ? qr : pr, *fi = w2 ? qi : pi, *er = w2 ? pr : qr, *ei = w2 ? pi : qi;
    if (rader) {
      hy_rd_out(M, node->wr, fr, fi, x0, dc, er, ei);
      hy_scatter(node, run, &ln, n, er, ei);
    } else {
      hy_bl_chirp_out(n, fr, fi, cr, ci);
      hy_scatter(node, run, &ln, n, fr, fi);
    }
  }
  hy_cpu_scratch_put(HY_SCRATCH_LANES, buf, bytes);
}

/* ---- one transform at a time ------------------------------------------ */

/* Interleaved complex, one transform: a = conj(a * spec). */
HY_CLONES static void hy_conv_mul1(int64_t M, hy_r *restrict a, const hy_r *restrict sr,
                                   const hy_r *restrict si) {
  for (int64_t j = 0; j < M; j++) {
    hy_r x = a[2 * j], y = a[2 * j + 1];
    a[2 * j] = x * sr[j] - y * si[j];
    a[2 * j + 1] = -(x * si[j] + y * sr[j]);
  }
}

typedef struct hy_conv_wide_job {
  const hy_cpu_node *node;
  const hy_cpu_run *run;
  int failed; /* hy_status of the first failure, 0 if none */
} hy_conv_wide_job;

/* Output k of transform (dof, mm): value (x, y) times the run's twiddle
 * and scale. */
HY_INLINE void hy_conv_store(const hy_cpu_node *node, const hy_cpu_run *run, hy_r *dst,
                             int64_t k, int64_t mm, double x, double y) {
  if (run->twiddle_loop >= 0 && node->tw.n > 0) {
    double wr, wi;
    hy_tw_eval(&node->tw, (int64_t)(((__int128)k * mm) % node->tw.n), &wr, &wi);
    double t = x * wr - y * wi;
    y = x * wi + y * wr;
    x = t;
  }
  hy_r *q = dst + 2 * k * run->axis.out_stride;
  q[0] = (hy_r)(x * run->scale);
  q[1] = (hy_r)(y * run->scale);
}

/* Transforms [begin, end) of the batch, one after the other: the input
 * step into a, the node from a to b, the spectrum, the node from b to a,
 * the output step. The node's runs are parallel inside unless this is
 * already one of a team's threads. */
static void hy_conv_wide_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_conv_wide_job *job = arg;
  const hy_cpu_node *node = job->node;
  const hy_cpu_run *run = job->run;
  const int64_t n = node->n, M = node->m, is = run->axis.in_stride;
  const int rader = node->kind == HY_CPU_RADER;
  /* a and b of max(n, M) complex values each (Rader's n is M + 1). */
  const int64_t S = n > M ? n : M;
  const size_t bytes = sizeof(hy_r) * 4 * (size_t)S;
  hy_r *a = hy_cpu_scratch_get(HY_SCRATCH_CONV, bytes);
  if (!a) {
    __atomic_store_n(&job->failed, (int)HYFFT_OUT_OF_MEMORY, __ATOMIC_RELAXED);
    return;
  }
  hy_r *b = a + 2 * S;
  const hy_r *sr = node->spec, *si = sr + M;
  const hy_r *cr = node->chirp, *ci = rader ? NULL : cr + n;
  hy_status st = HYFFT_SUCCESS;
  for (int64_t t = begin; t < end && st == HYFFT_SUCCESS; t++) {
    int64_t so, dof, mm;
    hy_run_offsets(run, t, &so, &dof, &mm);
    const hy_r *src = (const hy_r *)run->src + 2 * so;
    hy_r *dst = (hy_r *)run->dst + 2 * dof;
    const hy_r x0r = src[0], x0i = src[1];
    if (rader) {
      /* The row in order first (the prefetchers follow it), then the
       * permutation from there (L2): gathered from memory at g^q mod n
       * every line would come in at random. */
      for (int64_t j = 0; j < n; j++) {
        b[2 * j] = src[2 * j * is];
        b[2 * j + 1] = src[2 * j * is + 1];
      }
      for (int64_t q = 0; q < M; q++) {
        a[2 * q] = b[2 * node->rd[q]];
        a[2 * q + 1] = b[2 * node->rd[q] + 1];
      }
    } else {
      for (int64_t j = 0; j < n; j++) {
        hy_r u = src[2 * j * is], v = src[2 * j * is + 1];
        a[2 * j] = u * cr[j] - v * ci[j];
        a[2 * j + 1] = u * ci[j] + v * cr[j];
      }
      memset(a + 2 * n, 0, sizeof(hy_r) * 2 * (size_t)(M - n));
    }
    hy_cpu_run r = {0};
    r.src = a;
    r.dst = b;
    r.axis = (hyfft_dim){M, 1, 1};
    r.twiddle_loop = -1;
    r.scale = 1.0;
    st = HY_SFX(hy_cpu_node_run)(node->fft, &r);
    if (st != HYFFT_SUCCESS) break;
    const hy_r dcr = b[0], dci = b[1];
    hy_conv_mul1(M, b, sr, si);
    r.src = b;
    r.dst = a;
    st = HY_SFX(hy_cpu_node_run)(node->fft, &r);
    if (st != HYFFT_SUCCESS) break;
    /* The output step reads all of a and none of the input, so the
     * stores may land on the input (in place). */
    if (rader) {
      /* Likewise the output: permuted into b (L2), then stored in order. */
      b[0] = x0r + dcr;
      b[1] = x0i + dci;
      for (int64_t q = 0; q < M; q++) {
        b[2 * node->wr[q]] = x0r + a[2 * q];
        b[2 * node->wr[q] + 1] = x0i - a[2 * q + 1];
      }
      for (int64_t k = 0; k < n; k++)
        hy_conv_store(node, run, dst, k, mm, (double)b[2 * k], (double)b[2 * k + 1]);
    } else {
      for (int64_t k = 0; k < n; k++) {
        hy_r qr = a[2 * k], qi = a[2 * k + 1];
        hy_conv_store(node, run, dst, k, mm, (double)(qr * cr[k] + qi * ci[k]),
                      (double)(qr * ci[k] - qi * cr[k]));
      }
    }
  }
  hy_cpu_scratch_put(HY_SCRATCH_CONV, a, bytes);
  if (st != HYFFT_SUCCESS) __atomic_store_n(&job->failed, (int)st, __ATOMIC_RELAXED);
}

/* One transform at a time through the length-m node (four-step and all
 * lanes busy): whole transforms per thread where the batch gives every
 * thread one, else one after the other, each parallel inside. */
static hy_status hy_conv_wide(const hy_cpu_node *node, const hy_cpu_run *run) {
  const int64_t count = hy_run_count(run);
  hy_conv_wide_job job = {node, run, 0};
  if (count >= 2 && count >= hy_num_threads())
    hy_parallel_for(count, 1, hy_conv_wide_range, &job);
  else
    hy_conv_wide_range(&job, 0, count, 0);
  if (job.failed == (int)HYFFT_OUT_OF_MEMORY)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: convolution buffers for m = %lld",
                    (long long)node->m);
  if (job.failed)
    return hy_error((hy_status)job.failed, "cpu engine: convolution of length %lld failed",
                    (long long)node->m);
  return HYFFT_SUCCESS;
}
