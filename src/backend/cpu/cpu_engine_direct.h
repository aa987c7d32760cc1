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

static void hy_direct_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_job *job = arg;
  const hy_cpu_node *node = job->node;
  const int64_t n = node->n;
  /* Four arrays P vectors apart (hy_lane_stride), and LANES vectors of
   * slack after the last: the scatter of n < LANES reads a whole tile
   * from any of them. */
  const int64_t P = hy_lane_stride(n);
  const size_t bytes = sizeof(hy_v) * (4 * (size_t)P + L_);
  hy_v *buf = hy_cpu_scratch_get(0, bytes);
  if (!buf) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  hy_v *ar = buf, *ai = buf + P, *br = buf + 2 * P, *bi = buf + 3 * P;
  for (int k = 1; k <= 4; k++) memset(buf + k * P - (P - n), 0, sizeof(hy_v) * (size_t)(P - n));
  memset(buf + 4 * P, 0, sizeof(hy_v) * L_);
  /* Prefetch about HY_PF_BYTES ahead: one group is too close to hide
   * DRAM latency when groups are small. */
  const int64_t gbytes = (int64_t)sizeof(hy_r) * 2 * L_ * n;
  int64_t ahead = HY_PF_BYTES / gbytes;
  if (ahead < 1) ahead = 1;
  const hy_cpu_run *run = job->run;
  /* A C2R step in the gather reads X_0..X_n of each transform. */
  const int pre = run->real_step == HY_CPU_REAL_PRE, post = run->real_step == HY_CPU_REAL_POST;
  const int64_t pf_n = pre ? n + 1 : n;
  for (int64_t g = begin; g < begin + ahead && g < end; g++) {
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
    if (n >= HY_CT && gb <= HY_CROW_BYTES) {
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
        hy_scatter_cblock((hy_r *)run->dst + off, n, where ? br : ar, where ? bi : ai, sc, scaled);
      }
    }
    for (; begin < stop; begin++) {
      const int64_t off = 2 * begin * L_ * n;
      hy_gather_block((const hy_r *)run->src + off, n, ar, ai);
      int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
      hy_scatter_block((hy_r *)run->dst + off, n, where ? br : ar, where ? bi : ai, sc, scaled);
    }
  }
  hy_lanes cur[1], pl;
  int have = 0;
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
    if (g + ahead < end && !cur->contig_in && !hy_lanes_block(cur, run->axis.in_stride, n, 0)) {
      hy_lanes_make(run, (g + ahead) * L_, job->count, L_, &pl);
      hy_prefetch_group(run, &pl, pf_n);
    }
    if (pre) hy_gather_pre(run, cur, n, ar, ai);
    else if (hy_gather_rows_fits(run, cur, n)) hy_gather_rows(run->src, cur, n, ar, ai);
    else hy_gather(run, cur, n, ar, ai);
    int where = hy_kp_exec(&node->kp, ar, ai, br, bi);
    if (post) {
      hy_v last;
      hy_post_lanes(run, n, where ? br : ar, where ? bi : ai, &last);
      hy_scatter(node, &unscaled, cur, n, where ? br : ar, where ? bi : ai);
      hy_post_last(run, cur, n, &last);
    } else {
      hy_scatter(node, job->run, cur, n, where ? br : ar, where ? bi : ai);
    }
  }
  hy_cpu_scratch_put(0, buf, bytes);
}
