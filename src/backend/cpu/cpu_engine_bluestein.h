/* CPU engine impl, part 5 of 6: Bluestein (chirp-z) nodes. The convolution
 * runs in f64 whatever the data precision, either four transforms side by
 * side on the f64 kernel plan (hy_bluestein_range, for batches) or one
 * transform at a time through the f64 length-m node with pointwise steps
 * spread over threads (hy_bluestein_wide, for single long transforms).
 * The chirp and spectrum tables come from cpu_node.c. Included only by
 * cpu_engine_impl.h, once per precision. */

/* Bluestein in f64 whatever the data precision: the convolution's rounding
 * would otherwise grow with m, not n. Four transforms side by side. */
#define HY_BL_LANES HY_CPU_LANES_F64
static void hy_bluestein_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  hy_job *job = arg;
  const hy_cpu_node *node = job->node;
  const hy_cpu_run *run = job->run;
  const int64_t n = node->n, M = node->m;
  const size_t bytes = sizeof(hy_v4d) * 4 * (size_t)M;
  hy_v4d *buf = hy_cpu_scratch_get(0, bytes);
  if (!buf) {
    __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  hy_v4d *ar = buf, *ai = buf + M, *br = buf + 2 * M, *bi = buf + 3 * M;
  const double *cr = node->chirp, *ci = node->chirp + n;
  const double *sr = node->spec, *si = node->spec + M;
  const hy_r *src = run->src;
  hy_r *dst = run->dst;
  const int64_t is = run->axis.in_stride, os = run->axis.out_stride;
  const int twiddled = run->twiddle_loop >= 0 && node->tw.n > 0;
  for (int64_t g = begin; g < end; g++) {
    hy_lanes ln;
    hy_lanes_make(run, g * HY_BL_LANES, job->count, HY_BL_LANES, &ln);
    for (int64_t j = 0; j < n; j++) {
      hy_v4d x = {0}, y = {0};
      for (int v = 0; v < ln.count; v++) {
        const hy_r *p = src + 2 * (ln.so[v] + j * is);
        x[v] = (double)p[0];
        y[v] = (double)p[1];
      }
      ar[j] = x * cr[j] - y * ci[j];
      ai[j] = x * ci[j] + y * cr[j];
    }
    memset(ar + n, 0, sizeof(hy_v4d) * (size_t)(M - n));
    memset(ai + n, 0, sizeof(hy_v4d) * (size_t)(M - n));
    int w1 = hy_cpu_kp_exec_f64(&node->kp, ar, ai, br, bi);
    hy_v4d *pr = w1 ? br : ar, *pi = w1 ? bi : ai, *qr = w1 ? ar : br, *qi = w1 ? ai : bi;
    /* conj(A * spec): the inverse transform as a forward one */
    for (int64_t j = 0; j < M; j++) {
      hy_v4d x = pr[j], y = pi[j];
      pr[j] = x * sr[j] - y * si[j];
      pi[j] = -(x * si[j] + y * sr[j]);
    }
    int w2 = hy_cpu_kp_exec_f64(&node->kp, pr, pi, qr, qi);
    const hy_v4d *fr = w2 ? qr : pr, *fi = w2 ? qi : pi;
    int64_t p[HY_BL_LANES] = {0}, d[HY_BL_LANES] = {0};
    if (twiddled)
      for (int v = 0; v < ln.count; v++) d[v] = ln.m[v] % node->tw.n;
    for (int64_t k = 0; k < n; k++) {
      /* X[k] = c[k] * conj(q[k]) */
      hy_v4d xr = fr[k] * cr[k] + fi[k] * ci[k];
      hy_v4d xi = fr[k] * ci[k] - fi[k] * cr[k];
      for (int v = 0; v < ln.count; v++) {
        double x = xr[v], y = xi[v];
        if (twiddled) {
          double wr, wi;
          hy_tw_eval(&node->tw, p[v], &wr, &wi);
          double t = x * wr - y * wi;
          y = x * wi + y * wr;
          x = t;
          p[v] += d[v];
          if (p[v] >= node->tw.n) p[v] -= node->tw.n;
        }
        hy_r *q = dst + 2 * (ln.dof[v] + k * os);
        q[0] = (hy_r)(x * run->scale);
        q[1] = (hy_r)(y * run->scale);
      }
    }
  }
  hy_cpu_scratch_put(0, buf, bytes);
}


/* Pointwise steps of the wide Bluestein, parallel over the elements. */
typedef struct hy_bl_wide {
  const hy_cpu_node *node;
  const hy_cpu_run *run;
  int64_t so, dof, m;
  double *a; /* interleaved complex f64, length m */
} hy_bl_wide;

static void hy_bl_wide_in(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_bl_wide *w = arg;
  const hy_cpu_node *node = w->node;
  const hy_r *src = (const hy_r *)w->run->src + 2 * w->so;
  const int64_t is = w->run->axis.in_stride, n = node->n;
  const double *cr = node->chirp, *ci = node->chirp + n;
  for (int64_t j = begin; j < end; j++) {
    double x = 0, y = 0;
    if (j < n) {
      double u = src[2 * j * is], v = src[2 * j * is + 1];
      x = u * cr[j] - v * ci[j];
      y = u * ci[j] + v * cr[j];
    }
    w->a[2 * j] = x;
    w->a[2 * j + 1] = y;
  }
}

static void hy_bl_wide_mul(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_bl_wide *w = arg;
  const int64_t M = w->node->m;
  const double *sr = w->node->spec, *si = w->node->spec + M;
  for (int64_t j = begin; j < end; j++) {
    double x = w->a[2 * j], y = w->a[2 * j + 1];
    w->a[2 * j] = x * sr[j] - y * si[j];
    w->a[2 * j + 1] = -(x * si[j] + y * sr[j]);
  }
}

static void hy_bl_wide_out(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_bl_wide *w = arg;
  const hy_cpu_node *node = w->node;
  const hy_cpu_run *run = w->run;
  hy_r *dst = (hy_r *)run->dst + 2 * w->dof;
  const int64_t os = run->axis.out_stride, n = node->n;
  const double *cr = node->chirp, *ci = node->chirp + n;
  const int twiddled = run->twiddle_loop >= 0 && node->tw.n > 0;
  const int64_t T = node->tw.n, d = twiddled ? w->m % T : 0;
  int64_t p = twiddled ? (int64_t)(((__int128)d * begin) % T) : 0;
  for (int64_t k = begin; k < end; k++) {
    double qr = w->a[2 * k], qi = w->a[2 * k + 1];
    double x = qr * cr[k] + qi * ci[k], y = qr * ci[k] - qi * cr[k];
    if (twiddled) {
      double wr, wi;
      hy_tw_eval(&node->tw, p, &wr, &wi);
      double t = x * wr - y * wi;
      y = x * wi + y * wr;
      x = t;
      p += d;
      if (p >= T) p -= T;
    }
    dst[2 * k * os] = (hy_r)(x * run->scale);
    dst[2 * k * os + 1] = (hy_r)(y * run->scale);
  }
}

/* Bluestein one transform at a time, its length-m convolution through the
 * f64 node (four-step and all lanes busy): for single long transforms,
 * where four side by side would leave lanes and threads idle. */
static hy_status hy_bluestein_wide(const hy_cpu_node *node, const hy_cpu_run *run) {
  const int64_t M = node->m, count = hy_run_count(run);
  const size_t bytes = sizeof(double) * 4 * (size_t)M;
  double *buf = hy_cpu_big_alloc(bytes);
  if (!buf) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu engine: Bluestein buffers for m = %lld", (long long)M);
  hy_status st = HYFFT_SUCCESS;
  for (int64_t t = 0; t < count && st == HYFFT_SUCCESS; t++) {
    hy_bl_wide w = {node, run, 0, 0, 0, buf};
    hy_run_offsets(run, t, &w.so, &w.dof, &w.m);
    /* Pointwise work is cheap: threads only pay off on long arrays. */
    const int64_t grain = 32768;
    hy_parallel_for(M, grain, hy_bl_wide_in, &w);
    hy_cpu_run r = {0};
    r.src = buf;
    r.dst = buf + 2 * M;
    r.axis = (hyfft_dim){M, 1, 1};
    r.twiddle_loop = -1;
    r.scale = 1.0;
    st = hy_cpu_node_run_f64(node->fft, &r);
    if (st != HYFFT_SUCCESS) break;
    w.a = buf + 2 * M;
    hy_parallel_for(M, grain, hy_bl_wide_mul, &w);
    r.src = buf + 2 * M;
    r.dst = buf;
    st = hy_cpu_node_run_f64(node->fft, &r);
    w.a = buf;
    if (st == HYFFT_SUCCESS) hy_parallel_for(node->n, grain, hy_bl_wide_out, &w);
  }
  hy_cpu_big_free(buf, bytes);
  return st;
}
