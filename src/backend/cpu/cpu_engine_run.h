/* CPU engine impl, part 6 of 6: running a node, and four-step (LARGE)
 * nodes. hy_cpu_node_run dispatches by node kind and picks the thread
 * split for each; hy_large_run does n = n1*n2 as two batched sub-runs
 * with the twiddle between them, whole transforms per thread when the
 * batch is large enough. Included only by cpu_engine_impl.h, once per
 * precision. */

static hy_status hy_large_run(const hy_cpu_node *node, const hy_cpu_run *run);

hy_status HY_SFX(hy_cpu_node_run)(const hy_cpu_node *node, const hy_cpu_run *run) {
  hy_job job = {node, run, hy_run_count(run), 0};
  if (job.count == 0) return HYFFT_SUCCESS;
  /* A real step needs the whole of each transform: in one lane group's
   * gather or scatter (DIRECT) or beside one transform's DFT (LARGE, even
   * steps only, with their twiddles). */
  const int odd = hy_cpu_real_odd(run->real_step);
  if (run->real_step != HY_CPU_REAL_NONE &&
      (run->twiddle_loop >= 0 ||
       (odd ? node->kind != HY_CPU_DIRECT
            : (node->kind != HY_CPU_DIRECT && node->kind != HY_CPU_LARGE) || !run->real_tw)))
    return hy_error(HYFFT_INTERNAL, "cpu engine: a real step on a node of kind %d", (int)node->kind);
  switch (node->kind) {
    case HY_CPU_DIRECT: {
      /* One transform by itself: straight through, where its length has
       * a straight-line kernel, as a row with every lane busy
       * (hy_rowk_pick: unit strides, a row plan) or else in lane 0
       * (hy_single_pick). */
      const int one = job.count == 1 && node->fused && !run->real_step && run->twiddle_loop < 0;
      const hy_rowk_fn rowk = one && node->rtw && run->axis.in_stride == 1 &&
                                      run->axis.out_stride == 1
                                  ? hy_rowk_pick(&node->rkp)
                                  : NULL;
      if (rowk) {
        rowk(node, (const hy_r *)run->src, (hy_r *)run->dst, (hy_r)run->scale, run->scale != 1.0,
             0);
        return HYFFT_SUCCESS;
      }
      const hy_single_fn single = one ? hy_single_pick(&node->kp) : NULL;
      if (single) {
        single(&node->kp, (const hy_r *)run->src, run->axis.in_stride, (hy_r *)run->dst,
               run->axis.out_stride, (hy_r)run->scale, run->scale != 1.0);
        return HYFFT_SUCCESS;
      }
      int64_t groups = (job.count + L_ - 1) / L_;
      /* Each thread gets at least ~16K points: waking a team costs more
       * than transforming fewer. */
      int64_t grain = 16384 / (node->n * L_);
      hy_parallel_for(groups, grain < 1 ? 1 : grain, hy_direct_range, &job);
      break;
    }
    case HY_CPU_BLUESTEIN:
    case HY_CPU_RADER: {
      int64_t groups = (job.count + L_ - 1) / L_;
      if (job.count < L_ || groups < hy_num_threads() || node->conv_wide)
        return hy_conv_wide(node, run);
      hy_parallel_for(groups, 1, hy_conv_range, &job);
      break;
    }
    default:
      return hy_large_run(node, run);
  }
  if (job.failed)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: no scratch for length %lld", (long long)node->n);
  return HYFFT_SUCCESS;
}

/* Four-step: n = n1*n2, x[a*n2 + b] -> X[c + n1*d]. First n2 transforms of
 * length n1 (stride n2), twiddled by w_n^(b*c), into tmp[c*ld + b]; then
 * n1 transforms of length n2 from the rows of tmp to X with stride n1.
 * Out of place with short columns (n2 < 128), tmp is not needed: the
 * first half writes row b of the output viewed as n2 x n1 (y[c + n1*b]),
 * and the second half transforms each column c of it in place, which is
 * exactly where X[c + n1*d] goes; two arrays instead of three stay in
 * cache. In place with n1 = n2 the
 * same is done on the one array: the first half writes each column back
 * where it came from, the second half each row, and a square transpose
 * puts X[c + n1*d] in place; other in-place splits go through tmp.
 * Transforms of the batch run one after the other, each parallel inside. */
typedef struct hy_large_job {
  const hy_cpu_node *node;
  const hy_cpu_run *run;
  int failed; /* hy_status of the first failure, 0 if none */
} hy_large_job;

/* In-place transpose of an m x m matrix of complex elements at stride os
 * (element (i, j) at x + 2*(i*m + j)*os), tile rows [begin, end) of
 * 8 x 8 tiles: each tile on or right of the diagonal swaps with its
 * mirror. */
typedef struct hy_tsq_job {
  hy_r *x;
  int64_t m, os;
} hy_tsq_job;

#define HY_TSQ_B 8
HY_CLONES static void hy_transpose_sq_range(void *arg, int64_t begin, int64_t end,
                                            int thread_index) {
  (void)thread_index;
  const hy_tsq_job *job = arg;
  hy_r *x = job->x;
  const int64_t m = job->m, os = job->os;
  for (int64_t ib = begin * HY_TSQ_B; ib < end * HY_TSQ_B && ib < m; ib += HY_TSQ_B) {
    const int64_t ie = ib + HY_TSQ_B < m ? ib + HY_TSQ_B : m;
    for (int64_t jb = ib; jb < m; jb += HY_TSQ_B) {
      const int64_t je = jb + HY_TSQ_B < m ? jb + HY_TSQ_B : m;
      for (int64_t i = ib; i < ie; i++)
        for (int64_t j = jb == ib ? i + 1 : jb; j < je; j++) {
          hy_r *a = x + 2 * (i * m + j) * os, *b = x + 2 * (j * m + i) * os;
          hy_r t0 = a[0], t1 = a[1];
          a[0] = b[0];
          a[1] = b[1];
          b[0] = t0;
          b[1] = t1;
        }
    }
  }
}

static void hy_transpose_sq(hy_r *x, int64_t m, int64_t os) {
  hy_tsq_job job = {x, m, os};
  hy_parallel_for((m + HY_TSQ_B - 1) / HY_TSQ_B, 1, hy_transpose_sq_range, &job);
}

/* Transforms [begin, end) of the batch, one after the other, on this
 * thread's scratch. */
static void hy_large_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_large_job *job = arg;
  const hy_cpu_node *node = job->node;
  const hy_cpu_run *run = job->run;
  const int64_t n = node->n, n1 = node->n1, n2 = node->n2;
  const int twiddled = run->twiddle_loop >= 0 && node->tw.n > 0;
  /* Rows of tmp padded by one cache line: power-of-two row strides would
   * send every column access of the first half to the same cache sets. */
  const int64_t ld = n2 + 64 / (2 * (int64_t)sizeof(hy_r));
  /* Same base pointer here means in place (the backend copies any other
   * overlapping input away first). Off the local path a C2R step writes
   * each transform's DFT input into its output first: the DFT is then in
   * place there. */
  const int pre = run->real_step == HY_CPU_REAL_PRE, post = run->real_step == HY_CPU_REAL_POST;
  const int in_place = run->src == run->dst || pre;
  /* Local (node->local: two copies of a transform fit the L2 cache): each
   * transform of unit stride on both sides is copied in whole (loc), its
   * first half writes tmp, a second local array, in the layout of the
   * short-column path, the second half runs on tmp's columns in place,
   * and tmp is copied out whole. Memory then sees one sequential read and
   * one sequential write per transform, which the hardware prefetches,
   * instead of the first half's column reads and strided stores into the
   * destination, which stall on DRAM for every line; the copies run in
   * cache. Any layout of the destination, in place included, works alike,
   * as the whole input is read before anything is written. A C2R step
   * writes its DFT input into loc in place of the copy (in the
   * destination instead, the first half's column reads and the in-place
   * second half there measured 1.4-1.6x slower; docs/performance.md). */
  const int local = node->local && run->axis.in_stride == 1 && run->axis.out_stride == 1;
  const int64_t tbytes = n * 2 * (int64_t)sizeof(hy_r);
  /* In place with n1 = n2: the columns in place, the rows in place, then
   * a square transpose in place, all on the one array (no scratch). */
  const int square = !local && in_place && n1 == n2 && (pre || run->axis.in_stride == run->axis.out_stride);
  /* Out of place, long columns (n2 >= 128) go through tmp as well: the
   * column half reads and writes lines n1 elements apart, a multiple of
   * 2 KiB for the usual n1 = 256, which fall on one or two L1 sets and
   * miss from the second line on; tmp's rows are padded (ld). Up to
   * transforms of 16 MiB, whose tmp a thread keeps between runs. */
  const int via_tmp =
      !local && (in_place ? !square : n2 >= 128 && tbytes <= ((int64_t)16 << 20));
  const size_t bytes = via_tmp ? sizeof(hy_r) * 2 * (size_t)(n1 * ld) : local ? (size_t)tbytes : 0;
  hy_r *tmp = via_tmp || local ? hy_cpu_scratch_get(HY_SCRATCH_FOUR_STEP, bytes) : NULL;
  hy_r *loc = local ? hy_cpu_scratch_get(HY_SCRATCH_LOCAL_COPY, (size_t)tbytes) : NULL;
  if (((via_tmp || local) && !tmp) || (local && !loc)) {
    hy_cpu_scratch_put(HY_SCRATCH_FOUR_STEP, tmp, bytes);
    __atomic_store_n(&job->failed, (int)HYFFT_OUT_OF_MEMORY, __ATOMIC_RELAXED);
    return;
  }
  hy_status st = HYFFT_SUCCESS;
  const hy_r *src = run->src;
  hy_r *dst = run->dst;
  const int64_t is = pre ? run->axis.out_stride : run->axis.in_stride, os = run->axis.out_stride;
  const hyfft_precision prec = sizeof(hy_r) == sizeof(double) ? HYFFT_F64 : HYFFT_F32;
  for (int64_t t = begin; t < end && st == HYFFT_SUCCESS; t++) {
    int64_t so, dof, m;
    hy_run_offsets(run, t, &so, &dof, &m);
    const hy_r *base = src;
    if (pre && local) {
      st = hy_cpu_op_real_one(0, prec, run->real_tw, n, src + 2 * so, run->axis.in_stride, loc, 1,
                              1.0);
      if (st != HYFFT_SUCCESS) break;
      base = loc;
      so = 0;
    } else if (pre) {
      st = hy_cpu_op_real_one(0, prec, run->real_tw, n, src + 2 * so, run->axis.in_stride,
                              dst + 2 * dof, os, 1.0);
      if (st != HYFFT_SUCCESS) break;
      base = dst;
      so = dof;
    } else if (local) {
      memcpy(loc, src + 2 * so, (size_t)tbytes);
      base = loc;
      so = 0;
    }
    hy_cpu_run ra = {0}, rb = {0};
    ra.src = base + 2 * so;
    ra.dst = tmp;
    ra.axis = (hyfft_dim){n1, n2 * is, ld};
    ra.nloops = 1;
    ra.loops[0] = (hyfft_dim){n2, is, 1};
    ra.twiddle_loop = 0;
    ra.scale = 1.0;
    rb.src = tmp;
    rb.dst = dst + 2 * dof;
    rb.axis = (hyfft_dim){n2, 1, n1 * os};
    rb.nloops = 1;
    rb.loops[0] = (hyfft_dim){n1, ld, os};
    rb.twiddle_loop = -1;
    rb.scale = twiddled || post ? 1.0 : run->scale;
    /* The second half writes the destination along the long stride, one
     * line per element of each lane group: streamed where the run
     * streams and nothing below reads the transform back. */
    rb.stream_out = run->stream_out && via_tmp && !twiddled && !post;
    if (local) {
      /* The short-column layout on tmp: row b of the first half's
       * output at tmp[c + n1*b], then the columns c in place. */
      ra.dst = tmp;
      ra.axis = (hyfft_dim){n1, n2, 1};
      ra.loops[0] = (hyfft_dim){n2, 1, n1};
      rb.src = rb.dst = tmp;
      rb.axis = (hyfft_dim){n2, n1, n1};
      rb.loops[0] = (hyfft_dim){n1, 1, 1};
    } else if (square) {
      ra.dst = dst + 2 * dof;
      ra.axis = (hyfft_dim){n1, n2 * is, n2 * os};
      ra.loops[0] = (hyfft_dim){n2, is, os};
      rb.src = dst + 2 * dof;
      rb.axis = (hyfft_dim){n2, os, os};
      rb.loops[0] = (hyfft_dim){n1, n2 * os, n2 * os};
    } else if (!via_tmp) {
      ra.dst = dst + 2 * dof;
      ra.axis = (hyfft_dim){n1, n2 * is, os};
      ra.loops[0] = (hyfft_dim){n2, is, n1 * os};
      rb.src = dst + 2 * dof;
      rb.axis = (hyfft_dim){n2, n1 * os, n1 * os};
      rb.loops[0] = (hyfft_dim){n1, os, os};
    }
    st = HY_SFX(hy_cpu_node_run)(node->a, &ra);
    if (st == HYFFT_SUCCESS) st = HY_SFX(hy_cpu_node_run)(node->b, &rb);
    if (st == HYFFT_SUCCESS && square) hy_transpose_sq(dst + 2 * dof, n1, os);
    /* An R2C step reads the local result and writes the destination
     * itself: its pass is the copy out. */
    const int post_from_tmp = local && post && !twiddled;
    if (st == HYFFT_SUCCESS && local && !post_from_tmp) {
      /* Streamed, unless the twiddles below read the transform back. */
      if (run->stream_out && !twiddled)
        hy_cpu_stream_copy(dst + 2 * dof, tmp, (size_t)tbytes);
      else
        memcpy(dst + 2 * dof, tmp, (size_t)tbytes);
    }
    if (st == HYFFT_SUCCESS && twiddled) {
      int64_t p = 0, d = m % node->tw.n;
      for (int64_t k = 0; k < n; k++) {
        hy_r *q = dst + 2 * (dof + k * os);
        double wr, wi, x = q[0], y = q[1];
        hy_tw_eval(&node->tw, p, &wr, &wi);
        q[0] = (hy_r)((x * wr - y * wi) * run->scale);
        q[1] = (hy_r)((x * wi + y * wr) * run->scale);
        p += d;
        if (p >= node->tw.n) p -= node->tw.n;
      }
    }
    if (st == HYFFT_SUCCESS && post_from_tmp)
      st = hy_cpu_op_real_one(1, prec, run->real_tw, n, tmp, 1, dst + 2 * dof, os, run->scale);
    else if (st == HYFFT_SUCCESS && post)
      st = hy_cpu_op_real_one(1, prec, run->real_tw, n, dst + 2 * dof, os, dst + 2 * dof, os,
                              run->scale);
  }
  hy_cpu_scratch_put(HY_SCRATCH_FOUR_STEP, tmp, bytes);
  hy_cpu_scratch_put(HY_SCRATCH_LOCAL_COPY, loc, (size_t)tbytes);
  /* Non-temporal stores are weakly ordered: done before the loop joins. */
  if (run->stream_out) hy_cpu_stream_fence();
  if (st != HYFFT_SUCCESS) __atomic_store_n(&job->failed, (int)st, __ATOMIC_RELAXED);
}

/* A batch with at least one transform per thread runs whole transforms in
 * parallel in one team (the sub-runs inside stay on their thread); fewer
 * transforms run one after the other, each parallel inside. Splitting
 * every transform over the threads costs two team wake-ups and barriers
 * per transform and shares each one's cache lines between cores. */
static hy_status hy_large_run(const hy_cpu_node *node, const hy_cpu_run *run) {
  const int64_t count = hy_run_count(run);
  hy_large_job job = {node, run, 0};
  const int threads = hy_num_threads();
  /* Whole transforms per thread only while each thread's share of
   * memory stays modest: past 32 MiB a transform is long enough to keep
   * every thread busy inside it, and in place each thread would hold a
   * scratch copy of that size. */
  const int64_t tbytes = node->n * 2 * (int64_t)sizeof(hy_r);
  if (count >= 2 && count >= threads && tbytes <= ((int64_t)32 << 20))
    hy_parallel_for(count, 1, hy_large_range, &job);
  else
    hy_large_range(&job, 0, count, 0);
  if (job.failed == (int)HYFFT_OUT_OF_MEMORY)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: no scratch for length %lld", (long long)node->n);
  if (job.failed)
    return hy_error((hy_status)job.failed, "cpu engine: four-step run of length %lld failed", (long long)node->n);
  return HYFFT_SUCCESS;
}

/* What a run of the node asks of its thread's scratch slots at most,
 * sub-nodes included, raised into bytes[] (upper bounds of the requests
 * of hy_direct_range, hy_conv_range, hy_conv_wide_range and
 * hy_large_range on the thread that runs them). */
void HY_SFX(hy_cpu_node_reserve)(const hy_cpu_node *node, size_t bytes[]) {
  if (!node) return;
#define HY_RAISE(slot, v)                           \
  do {                                              \
    size_t v_ = (v);                                \
    if (v_ > bytes[slot]) bytes[slot] = v_;         \
  } while (0)
  const int64_t n = node->n;
  switch (node->kind) {
    case HY_CPU_DIRECT:
      HY_RAISE(HY_SCRATCH_LANES, HY_SFX(hy_cpu_node_scratch)(node));
      break;
    case HY_CPU_BLUESTEIN:
    case HY_CPU_RADER: {
      const int64_t S = n > node->m ? n : node->m;
      HY_RAISE(HY_SCRATCH_LANES, sizeof(hy_v) * (4 * (size_t)hy_lane_stride(S) + L_));
      HY_RAISE(HY_SCRATCH_CONV, sizeof(hy_r) * 4 * (size_t)S);
      HY_SFX(hy_cpu_node_reserve)(node->fft, bytes);
      break;
    }
    case HY_CPU_LARGE: {
      const int64_t ld = node->n2 + 64 / (2 * (int64_t)sizeof(hy_r));
      const size_t tbytes = (size_t)n * 2 * sizeof(hy_r);
      const size_t tmp = sizeof(hy_r) * 2 * (size_t)(node->n1 * ld);
      HY_RAISE(HY_SCRATCH_FOUR_STEP, tmp > tbytes ? tmp : tbytes);
      if (node->local) HY_RAISE(HY_SCRATCH_LOCAL_COPY, tbytes);
      HY_SFX(hy_cpu_node_reserve)(node->a, bytes);
      HY_SFX(hy_cpu_node_reserve)(node->b, bytes);
      break;
    }
  }
#undef HY_RAISE
}
