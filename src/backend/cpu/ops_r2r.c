/* The pointwise steps of real-to-real transforms on the CPU (ops_r2r.h):
 * plain loops over the pass's rows, split into chunks along the axis so
 * that one long row still uses every thread. The formulas are those of
 * solvers/r2r.c. */
#include "backend/cpu/ops_r2r.h"

#include "planner/r2r_twiddle.h"

/* Elements one work item covers. */
#define HY_R2R_CHUNK 4096

typedef struct hy_r2r_run {
  const hy_pass *pass;
  const double *table;
  const char *src;
  char *dst;
  int f64;
  int64_t items;  /* elements written per row */
  int64_t chunks; /* work items per row */
} hy_r2r_run;

int hy_cpu_op_is_r2r(hy_pass_op op) { return op == HY_PASS_R2R_PRE || op == HY_PASS_R2R_POST; }

static inline double hy_ld(const char *base, int64_t i, int f64) {
  return f64 ? ((const double *)base)[i] : (double)((const float *)base)[i];
}

static inline void hy_st(char *base, int64_t i, int f64, double v) {
  if (f64) ((double *)base)[i] = v;
  else ((float *)base)[i] = (float)v;
}

/* PRE: complex element e (0 <= e < N) of one row from the n reals at
 * src[ib + j * is]. */
static inline void hy_r2r_pre_one(const hy_r2r_run *r, int64_t ib, int64_t e, double *re,
                                  double *im) {
  const hy_pass *p = r->pass;
  const int64_t n = p->axis.n, N = p->r2r_len, is = p->axis.in_stride;
  const int f64 = r->f64;
  const double *t = r->table;
  *im = 0;
  switch ((hyfft_r2r_kind)p->r2r_kind) {
    case HYFFT_REDFT10:
    case HYFFT_RODFT10: {
      int64_t j = e < (n + 1) / 2 ? 2 * e : 2 * (n - 1 - e) + 1;
      double v = hy_ld(r->src, ib + j * is, f64);
      *re = p->r2r_kind == HYFFT_RODFT10 && (j & 1) ? -v : v;
      break;
    }
    case HYFFT_REDFT01:
    case HYFFT_RODFT01: {
      /* (a - i b) exp(+i pi e/(2n)), a = x_e, b = x_n-e (0 for e = 0);
       * DST-III reads x reversed. */
      int dst = p->r2r_kind == HYFFT_RODFT01;
      double a = hy_ld(r->src, ib + (dst ? n - 1 - e : e) * is, f64);
      double b = e == 0 ? 0.0 : hy_ld(r->src, ib + (dst ? e - 1 : n - e) * is, f64);
      double tr = t[2 * e], ti = t[2 * e + 1];
      *re = a * tr + b * ti;
      *im = a * ti - b * tr;
      break;
    }
    case HYFFT_REDFT11:
    case HYFFT_RODFT11:
      if (n % 2 == 0) {
        /* (x_2e + i x_n-1-2e) t_e; DST-IV negates the odd-index x. */
        double a = hy_ld(r->src, ib + 2 * e * is, f64);
        double b = hy_ld(r->src, ib + (n - 1 - 2 * e) * is, f64);
        if (p->r2r_kind == HYFFT_RODFT11) b = -b;
        *re = a * t[2 * e] - b * t[2 * e + 1];
        *im = a * t[2 * e + 1] + b * t[2 * e];
      } else if (e < n) {
        double v = hy_ld(r->src, ib + e * is, f64);
        *re = v * t[2 * e];
        *im = v * t[2 * e + 1];
      } else {
        *re = 0;
      }
      break;
    case HYFFT_REDFT00:
      *re = hy_ld(r->src, ib + (e < n ? e : N - e) * is, f64);
      break;
    case HYFFT_RODFT00:
      if (e == 0 || e == n + 1) *re = 0;
      else if (e <= n) *re = hy_ld(r->src, ib + (e - 1) * is, f64);
      else *re = -hy_ld(r->src, ib + (N - e - 1) * is, f64);
      break;
    default: /* HYFFT_DHT */
      *re = hy_ld(r->src, ib + e * is, f64);
      break;
  }
}

/* POST: output o (0 <= o < n) of one row from the N complex values at
 * src[ib + e * is] (complex elements). */
static inline double hy_r2r_post_one(const hy_r2r_run *r, int64_t ib, int64_t o) {
  const hy_pass *p = r->pass;
  const int64_t n = p->axis.n, is = p->axis.in_stride;
  const int f64 = r->f64;
  const double *t = r->table;
#define HY_X(e, part) hy_ld(r->src, 2 * (ib + (e) * is) + (part), f64)
  switch ((hyfft_r2r_kind)p->r2r_kind) {
    case HYFFT_REDFT10:
    case HYFFT_RODFT10: {
      int64_t k = p->r2r_kind == HYFFT_RODFT10 ? n - 1 - o : o;
      return 2.0 * (t[2 * k] * HY_X(k, 0) - t[2 * k + 1] * HY_X(k, 1));
    }
    case HYFFT_REDFT01:
    case HYFFT_RODFT01: {
      int64_t e = o % 2 == 0 ? o / 2 : n - 1 - (o - 1) / 2;
      double v = HY_X(e, 0);
      return p->r2r_kind == HYFFT_RODFT01 && (o & 1) ? -v : v;
    }
    case HYFFT_REDFT11:
    case HYFFT_RODFT11:
      if (n % 2 == 0) {
        /* W_k = t_k X_k: Y_2k = 2 Re W_k, Y_n-1-2k = -2 Im W_k; DST-IV
         * reads its outputs reversed. */
        int64_t q = p->r2r_kind == HYFFT_RODFT11 ? n - 1 - o : o;
        int64_t k = q % 2 == 0 ? q / 2 : (n - 1 - q) / 2;
        double wr = t[2 * k], wi = t[2 * k + 1];
        return q % 2 == 0 ? 2.0 * (wr * HY_X(k, 0) - wi * HY_X(k, 1))
                          : -2.0 * (wr * HY_X(k, 1) + wi * HY_X(k, 0));
      }
      if (p->r2r_kind == HYFFT_REDFT11)
        return 2.0 * (t[2 * o] * HY_X(o, 0) - t[2 * o + 1] * HY_X(o, 1));
      return -2.0 * (t[2 * o] * HY_X(o, 1) + t[2 * o + 1] * HY_X(o, 0));
    case HYFFT_REDFT00:
      return HY_X(o, 0);
    case HYFFT_RODFT00:
      return -HY_X(o + 1, 1);
    default: /* HYFFT_DHT */
      return HY_X(o, 0) - HY_X(o, 1);
  }
#undef HY_X
}

static void hy_r2r_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_r2r_run *r = arg;
  const hy_pass *pass = r->pass;
  const double scale = pass->scale;
  const int64_t os = pass->axis.out_stride;
  const int pre = pass->op == HY_PASS_R2R_PRE;
  for (int64_t item = begin; item < end; item++) {
    int64_t t = item / r->chunks, c = item % r->chunks;
    int64_t lo = c * HY_R2R_CHUNK, hi = lo + HY_R2R_CHUNK;
    if (hi > r->items) hi = r->items;
    int64_t ib, ob;
    hy_pass_loop_offsets(pass, t, &ib, &ob);
    if (pre) {
      for (int64_t e = lo; e < hi; e++) {
        double re, im;
        hy_r2r_pre_one(r, ib, e, &re, &im);
        hy_st(r->dst, 2 * (ob + e * os), r->f64, scale * re);
        hy_st(r->dst, 2 * (ob + e * os) + 1, r->f64, scale * im);
      }
    } else {
      for (int64_t o = lo; o < hi; o++)
        hy_st(r->dst, ob + o * os, r->f64, scale * hy_r2r_post_one(r, ib, o));
    }
  }
}

hy_status hy_cpu_op_r2r_table(const hy_pass *pass, double **table) {
  *table = NULL;
  hy_r2r_twiddle tw;
  if (!hy_r2r_twiddle_of(pass, &tw)) return HYFFT_SUCCESS;
  double *t = hy_malloc(sizeof(double) * 2 * (size_t)tw.count);
  if (!t)
    return hy_error(HYFFT_OUT_OF_MEMORY, "r2r pass: twiddles for n = %lld",
                    (long long)pass->axis.n);
  for (int64_t j = 0; j < tw.count; j++) {
    long double re, im;
    hy_r2r_twiddle_ld(&tw, j, &re, &im);
    t[2 * j] = (double)re;
    t[2 * j + 1] = (double)im;
  }
  *table = t;
  return HYFFT_SUCCESS;
}

hy_status hy_cpu_op_r2r(const hy_pass *pass, const double *table, const void *src_base,
                        void *dst_base) {
  if (!hy_cpu_op_is_r2r(pass->op))
    return hy_error(HYFFT_INTERNAL, "hy_cpu_op_r2r called on a pass of op %d", (int)pass->op);
  hy_r2r_twiddle tw;
  if (hy_r2r_twiddle_of(pass, &tw) && !table)
    return hy_error(HYFFT_INTERNAL, "r2r pass: no twiddles");
  const int f64 = pass->precision == HYFFT_F64;
  const int64_t real = f64 ? 8 : 4;
  const int pre = pass->op == HY_PASS_R2R_PRE;
  /* Offsets in the element type of each end: reals at the real end. */
  hy_r2r_run run = {pass,
                    table,
                    (const char *)src_base + pass->src_offset * (pre ? real : 2 * real),
                    (char *)dst_base + pass->dst_offset * (pre ? 2 * real : real),
                    f64,
                    pre ? pass->r2r_len : pass->axis.n,
                    1};
  run.chunks = (run.items + HY_R2R_CHUNK - 1) / HY_R2R_CHUNK;
  if (run.chunks < 1) run.chunks = 1;
  hy_parallel_for(hy_pass_count(pass) * run.chunks, 1, hy_r2r_range, &run);
  return HYFFT_SUCCESS;
}
