/* One precision of the FFTW3-compatible interface, included by
 * fftw3_double.c and fftw3_float.c with
 *   X(name)  the precision's FFTW name (fftw_name / fftwf_name),
 *   R, C     its real and complex types,
 *   HY_PREC  hyfft's precision.
 * Every planner turns its description into a guru one (hy_fftw_plan_guru
 * or hy_fftw_plan_many in fftw3_common.c); FFTW's plan type is a
 * hy_fftw_plan behind FFTW's opaque struct name. */

struct X(plan_s) {
  hy_fftw_plan p;
};

static X(plan) X(hy_wrap)(hy_fftw_plan *p) {
  /* hy_fftw_plan is the whole of struct X(plan_s): the pointer converts. */
  return (X(plan))(void *)p;
}

static hy_fftw_plan *X(hy_unwrap)(const X(plan) p) { return p ? (hy_fftw_plan *)(void *)p : NULL; }

/* ---- memory -------------------------------------------------------------- */

void *X(malloc)(size_t n) { return hy_fftw_malloc(n); }
void X(free)(void *p) { hy_fftw_free(p); }
R *X(alloc_real)(size_t n) { return n > SIZE_MAX / sizeof(R) ? NULL : hy_fftw_malloc(n * sizeof(R)); }
C *X(alloc_complex)(size_t n) { return n > SIZE_MAX / sizeof(C) ? NULL : hy_fftw_malloc(n * sizeof(C)); }
int X(alignment_of)(R *p) { return (int)((uintptr_t)p % 16); }

/* ---- complex DFT --------------------------------------------------------- */

X(plan) X(plan_many_dft)(int rank, const int *n, int howmany, C *in, const int *inembed,
                         int istride, int idist, C *out, const int *onembed, int ostride,
                         int odist, int sign, unsigned flags) {
  return X(hy_wrap)(hy_fftw_plan_many(HYFFT_C2C, HY_PREC, sign, rank, n, howmany, in, inembed,
                                      istride, idist, out, onembed, ostride, odist, flags));
}

X(plan) X(plan_dft)(int rank, const int *n, C *in, C *out, int sign, unsigned flags) {
  return X(plan_many_dft)(rank, n, 1, in, NULL, 1, 0, out, NULL, 1, 0, sign, flags);
}

X(plan) X(plan_dft_1d)(int n, C *in, C *out, int sign, unsigned flags) {
  return X(plan_dft)(1, &n, in, out, sign, flags);
}

X(plan) X(plan_dft_2d)(int n0, int n1, C *in, C *out, int sign, unsigned flags) {
  int n[2] = {n0, n1};
  return X(plan_dft)(2, n, in, out, sign, flags);
}

X(plan) X(plan_dft_3d)(int n0, int n1, int n2, C *in, C *out, int sign, unsigned flags) {
  int n[3] = {n0, n1, n2};
  return X(plan_dft)(3, n, in, out, sign, flags);
}

/* Guru dims of either width into hyfft's. */
#define HY_FFTW_DIMS(dst, src, count)                                    \
  hy_fftw_dim dst[HYFFT_MAX_RANK > HYFFT_MAX_BATCH_RANK ? HYFFT_MAX_RANK \
                                                        : HYFFT_MAX_BATCH_RANK]; \
  if ((count) > (int)(sizeof dst / sizeof dst[0])) {                     \
    hy_fftw_unsupported("ranks above hyfft's limits");                   \
    return NULL;                                                         \
  }                                                                      \
  for (int i_ = 0; i_ < (count) && (src); i_++)                          \
    dst[i_] = (hy_fftw_dim){(src)[i_].n, (src)[i_].is, (src)[i_].os};

X(plan) X(plan_guru_dft)(int rank, const X(iodim) *dims, int howmany_rank,
                         const X(iodim) *howmany_dims, C *in, C *out, int sign, unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru(HYFFT_C2C, HY_PREC, sign, rank, d, howmany_rank, h, in,
                                      out, flags));
}

X(plan) X(plan_guru64_dft)(int rank, const X(iodim64) *dims, int howmany_rank,
                           const X(iodim64) *howmany_dims, C *in, C *out, int sign,
                           unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru(HYFFT_C2C, HY_PREC, sign, rank, d, howmany_rank, h, in,
                                      out, flags));
}

/* ---- real to complex and back ------------------------------------------- */

X(plan) X(plan_many_dft_r2c)(int rank, const int *n, int howmany, R *in, const int *inembed,
                             int istride, int idist, C *out, const int *onembed, int ostride,
                             int odist, unsigned flags) {
  return X(hy_wrap)(hy_fftw_plan_many(HYFFT_R2C, HY_PREC, HYFFT_FORWARD, rank, n, howmany, in,
                                      inembed, istride, idist, out, onembed, ostride, odist,
                                      flags));
}

X(plan) X(plan_dft_r2c)(int rank, const int *n, R *in, C *out, unsigned flags) {
  return X(plan_many_dft_r2c)(rank, n, 1, in, NULL, 1, 0, out, NULL, 1, 0, flags);
}

X(plan) X(plan_dft_r2c_1d)(int n, R *in, C *out, unsigned flags) {
  return X(plan_dft_r2c)(1, &n, in, out, flags);
}

X(plan) X(plan_dft_r2c_2d)(int n0, int n1, R *in, C *out, unsigned flags) {
  int n[2] = {n0, n1};
  return X(plan_dft_r2c)(2, n, in, out, flags);
}

X(plan) X(plan_dft_r2c_3d)(int n0, int n1, int n2, R *in, C *out, unsigned flags) {
  int n[3] = {n0, n1, n2};
  return X(plan_dft_r2c)(3, n, in, out, flags);
}

X(plan) X(plan_many_dft_c2r)(int rank, const int *n, int howmany, C *in, const int *inembed,
                             int istride, int idist, R *out, const int *onembed, int ostride,
                             int odist, unsigned flags) {
  return X(hy_wrap)(hy_fftw_plan_many(HYFFT_C2R, HY_PREC, HYFFT_BACKWARD, rank, n, howmany, in,
                                      inembed, istride, idist, out, onembed, ostride, odist,
                                      flags));
}

X(plan) X(plan_dft_c2r)(int rank, const int *n, C *in, R *out, unsigned flags) {
  return X(plan_many_dft_c2r)(rank, n, 1, in, NULL, 1, 0, out, NULL, 1, 0, flags);
}

X(plan) X(plan_dft_c2r_1d)(int n, C *in, R *out, unsigned flags) {
  return X(plan_dft_c2r)(1, &n, in, out, flags);
}

X(plan) X(plan_dft_c2r_2d)(int n0, int n1, C *in, R *out, unsigned flags) {
  int n[2] = {n0, n1};
  return X(plan_dft_c2r)(2, n, in, out, flags);
}

X(plan) X(plan_dft_c2r_3d)(int n0, int n1, int n2, C *in, R *out, unsigned flags) {
  int n[3] = {n0, n1, n2};
  return X(plan_dft_c2r)(3, n, in, out, flags);
}

X(plan) X(plan_guru_dft_r2c)(int rank, const X(iodim) *dims, int howmany_rank,
                             const X(iodim) *howmany_dims, R *in, C *out, unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru(HYFFT_R2C, HY_PREC, HYFFT_FORWARD, rank, d, howmany_rank,
                                      h, in, out, flags));
}

X(plan) X(plan_guru64_dft_r2c)(int rank, const X(iodim64) *dims, int howmany_rank,
                               const X(iodim64) *howmany_dims, R *in, C *out, unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru(HYFFT_R2C, HY_PREC, HYFFT_FORWARD, rank, d, howmany_rank,
                                      h, in, out, flags));
}

X(plan) X(plan_guru_dft_c2r)(int rank, const X(iodim) *dims, int howmany_rank,
                             const X(iodim) *howmany_dims, C *in, R *out, unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru(HYFFT_C2R, HY_PREC, HYFFT_BACKWARD, rank, d,
                                      howmany_rank, h, in, out, flags));
}

X(plan) X(plan_guru64_dft_c2r)(int rank, const X(iodim64) *dims, int howmany_rank,
                               const X(iodim64) *howmany_dims, C *in, R *out, unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru(HYFFT_C2R, HY_PREC, HYFFT_BACKWARD, rank, d,
                                      howmany_rank, h, in, out, flags));
}

/* ---- real to real (DCT/DST/DHT; not the halfcomplex R2HC/HC2R) ----------- */

/* FFTW's kind enum as ints, at most hyfft's rank (HYFFT_MAX_RANK) of them. */
#define HY_FFTW_KINDS(dst, src, count)                     \
  int dst[HYFFT_MAX_RANK];                                 \
  if ((count) < 1 || (count) > HYFFT_MAX_RANK || !(src)) { \
    hy_fftw_unsupported("r2r ranks other than 1..8");      \
    return NULL;                                           \
  }                                                        \
  for (int i_ = 0; i_ < (count); i_++) dst[i_] = (int)(src)[i_];

X(plan) X(plan_many_r2r)(int rank, const int *n, int howmany, R *in, const int *inembed,
                         int istride, int idist, R *out, const int *onembed, int ostride,
                         int odist, const X(r2r_kind) *kind, unsigned flags) {
  HY_FFTW_KINDS(k, kind, rank)
  return X(hy_wrap)(hy_fftw_plan_many_r2r(HY_PREC, rank, n, howmany, in, inembed, istride, idist,
                                          out, onembed, ostride, odist, k, flags));
}

X(plan) X(plan_r2r)(int rank, const int *n, R *in, R *out, const X(r2r_kind) *kind,
                    unsigned flags) {
  return X(plan_many_r2r)(rank, n, 1, in, NULL, 1, 0, out, NULL, 1, 0, kind, flags);
}

X(plan) X(plan_r2r_1d)(int n, R *in, R *out, X(r2r_kind) kind, unsigned flags) {
  return X(plan_r2r)(1, &n, in, out, &kind, flags);
}

X(plan) X(plan_r2r_2d)(int n0, int n1, R *in, R *out, X(r2r_kind) k0, X(r2r_kind) k1,
                       unsigned flags) {
  int n[2] = {n0, n1};
  X(r2r_kind) k[2] = {k0, k1};
  return X(plan_r2r)(2, n, in, out, k, flags);
}

X(plan) X(plan_r2r_3d)(int n0, int n1, int n2, R *in, R *out, X(r2r_kind) k0, X(r2r_kind) k1,
                       X(r2r_kind) k2, unsigned flags) {
  int n[3] = {n0, n1, n2};
  X(r2r_kind) k[3] = {k0, k1, k2};
  return X(plan_r2r)(3, n, in, out, k, flags);
}

X(plan) X(plan_guru_r2r)(int rank, const X(iodim) *dims, int howmany_rank,
                         const X(iodim) *howmany_dims, R *in, R *out, const X(r2r_kind) *kind,
                         unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_KINDS(k, kind, rank)
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru_r2r(HY_PREC, rank, d, howmany_rank, h, in, out, k, flags));
}

X(plan) X(plan_guru64_r2r)(int rank, const X(iodim64) *dims, int howmany_rank,
                           const X(iodim64) *howmany_dims, R *in, R *out,
                           const X(r2r_kind) *kind, unsigned flags) {
  if (rank < 0 || howmany_rank < 0) return NULL;
  HY_FFTW_KINDS(k, kind, rank)
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_guru_r2r(HY_PREC, rank, d, howmany_rank, h, in, out, k, flags));
}

/* ---- split arrays (separate real and imaginary parts) ------------------------ */

X(plan) X(plan_guru_split_dft)(int rank, const X(iodim) *dims, int howmany_rank,
                               const X(iodim) *howmany_dims, R *ri, R *ii, R *ro, R *io,
                               unsigned flags) {
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_split(1, HY_PREC, rank, d, howmany_rank, h, ri, ii, ro, io,
                                       flags));
}
X(plan) X(plan_guru64_split_dft)(int rank, const X(iodim64) *dims, int howmany_rank,
                                 const X(iodim64) *howmany_dims, R *ri, R *ii, R *ro, R *io,
                                 unsigned flags) {
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_split(1, HY_PREC, rank, d, howmany_rank, h, ri, ii, ro, io,
                                       flags));
}
X(plan) X(plan_guru_split_dft_r2c)(int rank, const X(iodim) *dims, int howmany_rank,
                                   const X(iodim) *howmany_dims, R *in, R *ro, R *io,
                                   unsigned flags) {
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_split(2, HY_PREC, rank, d, howmany_rank, h, in, NULL, ro, io,
                                       flags));
}
X(plan) X(plan_guru64_split_dft_r2c)(int rank, const X(iodim64) *dims, int howmany_rank,
                                     const X(iodim64) *howmany_dims, R *in, R *ro, R *io,
                                     unsigned flags) {
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_split(2, HY_PREC, rank, d, howmany_rank, h, in, NULL, ro, io,
                                       flags));
}
X(plan) X(plan_guru_split_dft_c2r)(int rank, const X(iodim) *dims, int howmany_rank,
                                   const X(iodim) *howmany_dims, R *ri, R *ii, R *out,
                                   unsigned flags) {
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_split(3, HY_PREC, rank, d, howmany_rank, h, ri, ii, out, NULL,
                                       flags));
}
X(plan) X(plan_guru64_split_dft_c2r)(int rank, const X(iodim64) *dims, int howmany_rank,
                                     const X(iodim64) *howmany_dims, R *ri, R *ii, R *out,
                                     unsigned flags) {
  HY_FFTW_DIMS(d, dims, rank)
  HY_FFTW_DIMS(h, howmany_dims, howmany_rank)
  return X(hy_wrap)(hy_fftw_plan_split(3, HY_PREC, rank, d, howmany_rank, h, ri, ii, out, NULL,
                                       flags));
}

/* ---- execution ----------------------------------------------------------- */

void X(execute)(const X(plan) p) {
  const hy_fftw_plan *fp = X(hy_unwrap)(p);
  if (fp) hy_fftw_execute(fp, fp->in, fp->out);
}

/* The new-array functions: the same plan on other arrays of the same
 * layout (FFTW's rule; hyfft checks the in-place one). */
void X(execute_dft)(const X(plan) p, C *in, C *out) { hy_fftw_execute(X(hy_unwrap)(p), in, out); }
void X(execute_dft_r2c)(const X(plan) p, R *in, C *out) {
  hy_fftw_execute(X(hy_unwrap)(p), in, out);
}
void X(execute_dft_c2r)(const X(plan) p, C *in, R *out) {
  hy_fftw_execute(X(hy_unwrap)(p), in, out);
}
void X(execute_r2r)(const X(plan) p, R *in, R *out) { hy_fftw_execute(X(hy_unwrap)(p), in, out); }
void X(execute_split_dft)(const X(plan) p, R *ri, R *ii, R *ro, R *io) {
  hy_fftw_execute_split(X(hy_unwrap)(p), ri, ii, ro, io);
}
void X(execute_split_dft_r2c)(const X(plan) p, R *in, R *ro, R *io) {
  hy_fftw_execute_split(X(hy_unwrap)(p), in, NULL, ro, io);
}
void X(execute_split_dft_c2r)(const X(plan) p, R *ri, R *ii, R *out) {
  hy_fftw_execute_split(X(hy_unwrap)(p), ri, ii, out, NULL);
}

void X(destroy_plan)(X(plan) p) { hy_fftw_destroy(X(hy_unwrap)(p)); }

/* ---- plan inspection ------------------------------------------------------ */

char *X(sprint_plan)(const X(plan) p) { return hy_fftw_sprint(X(hy_unwrap)(p)); }
void X(fprint_plan)(const X(plan) p, FILE *f) {
  char *s = hy_fftw_sprint(X(hy_unwrap)(p));
  if (s && f) fputs(s, f);
  free(s);
}
void X(print_plan)(const X(plan) p) { X(fprint_plan)(p, stdout); }

void X(flops)(const X(plan) p, double *add, double *mul, double *fmas) {
  double f = hy_fftw_flops(X(hy_unwrap)(p));
  /* FFTW's split of its own count: about 60% additions, 40% multiplies. */
  if (add) *add = 0.6 * f;
  if (mul) *mul = 0.4 * f;
  if (fmas) *fmas = 0;
}
double X(estimate_cost)(const X(plan) p) { return hy_fftw_flops(X(hy_unwrap)(p)); }
double X(cost)(const X(plan) p) { return hy_fftw_flops(X(hy_unwrap)(p)); }

/* ---- planner settings and threads ------------------------------------------ */

void X(set_timelimit)(double seconds) { (void)seconds; /* hyfft bounds measuring itself */ }
void X(cleanup)(void) { hy_fftw_cleanup(); }
int X(init_threads)(void) { return 1; }
void X(plan_with_nthreads)(int n) { hy_fftw_set_threads(n); }
int X(planner_nthreads)(void) { return hy_fftw_threads(); }
void X(cleanup_threads)(void) { hy_fftw_cleanup(); }
void X(make_planner_thread_safe)(void) { /* hyfft's planner is thread-safe */ }
void X(threads_set_callback)(void (*parallel_loop)(void *(*work)(char *), char *jobdata,
                                                   size_t elsize, int njobs, void *data),
                             void *data) {
  hy_fftw_set_callback(parallel_loop, data);
}
