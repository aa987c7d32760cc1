/* The FFTW3-compatible interface: the shared context, the mapping of
 * FFTW's problem descriptions and planner flags onto hyfft's, memory,
 * threads and wisdom (the wisdom functions serve both precisions: hyfft
 * keeps one table). */
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fftw3_common.h"
#include "util/hy_util.h"

static pthread_mutex_t hy_fftw_lock = PTHREAD_MUTEX_INITIALIZER;
static hyfft_context hy_fftw_ctx;
static long hy_fftw_live_plans;
static int hy_fftw_nthreads = 1;

/* The context every plan uses: $HYFFT_DEVICE, or the CPU (FFTW's own
 * place), created on the first plan. */
static hyfft_context hy_fftw_context(void) {
  pthread_mutex_lock(&hy_fftw_lock);
  if (!hy_fftw_ctx) {
    const char *spec = getenv("HYFFT_DEVICE");
    if (hyfft_context_create(spec && *spec ? spec : "cpu", &hy_fftw_ctx) != HYFFT_SUCCESS)
      hy_fftw_ctx = NULL;
  }
  hyfft_context ctx = hy_fftw_ctx;
  pthread_mutex_unlock(&hy_fftw_lock);
  return ctx;
}

void *hy_fftw_unsupported(const char *what) {
  hy_error(HYFFT_NOT_SUPPORTED, "the FFTW3 interface of hyfft does not provide %s yet", what);
  return NULL;
}

/* FFTW's planner flags as hyfft's. FFTW_MEASURE is 0: any plan not asked
 * for FFTW_ESTIMATE is measured (on the CPU backend hyfft's measuring
 * plans by its model). C2R may destroy its input unless
 * FFTW_PRESERVE_INPUT says otherwise (FFTW's default); every other kind
 * only with FFTW_DESTROY_INPUT. */
static unsigned hy_fftw_flags(hyfft_kind kind, unsigned flags) {
  unsigned out = 0;
  if (!(flags & FFTW_ESTIMATE)) out |= HYFFT_MEASURE;
  int destroy = kind == HYFFT_C2R ? !(flags & FFTW_PRESERVE_INPUT)
                                  : (flags & FFTW_DESTROY_INPUT) && !(flags & FFTW_PRESERVE_INPUT);
  if (destroy) out |= HYFFT_DESTROY_INPUT;
  return out;
}

static hy_fftw_plan *hy_fftw_plan_make(const hyfft_problem *problem, void *in, void *out,
                                       unsigned flags);

/* A finished plan with the arrays given at planning, counted live until
 * hy_fftw_destroy. */
static hy_fftw_plan *hy_fftw_register(hy_fftw_plan *fp, void *in, void *out) {
  fp->in = in;
  fp->out = out;
  pthread_mutex_lock(&hy_fftw_lock);
  hy_fftw_live_plans++;
  pthread_mutex_unlock(&hy_fftw_lock);
  return fp;
}

hy_fftw_plan *hy_fftw_plan_guru(hyfft_kind kind, hyfft_precision precision, int sign, int rank,
                                const hy_fftw_dim *dims, int howmany_rank,
                                const hy_fftw_dim *howmany, void *in, void *out,
                                unsigned flags) {
  if (rank < 0 || howmany_rank < 0 || (rank > 0 && !dims) || (howmany_rank > 0 && !howmany)) {
    hy_error(HYFFT_INVALID_ARGUMENT, "FFTW3 interface: negative rank or missing dims");
    return NULL;
  }
  if (rank > HYFFT_MAX_RANK || howmany_rank > HYFFT_MAX_BATCH_RANK) {
    hy_error(HYFFT_NOT_SUPPORTED, "FFTW3 interface: rank %d / howmany rank %d above hyfft's "
             "limits (%d, %d)", rank, howmany_rank, HYFFT_MAX_RANK, HYFFT_MAX_BATCH_RANK);
    return NULL;
  }
  if (kind != HYFFT_C2C && rank == 0) {
    hy_error(HYFFT_INVALID_ARGUMENT, "FFTW3 interface: an R2C/C2R plan needs rank >= 1");
    return NULL;
  }
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  p.kind = kind;
  p.precision = precision;
  p.sign = sign;
  p.rank = rank > 0 ? rank : 1;
  if (rank == 0) p.dims[0] = (hyfft_dim){1, 1, 1}; /* rank 0: a copy */
  for (int d = 0; d < rank; d++) p.dims[d] = (hyfft_dim){dims[d].n, dims[d].is, dims[d].os};
  p.batch_rank = howmany_rank;
  for (int b = 0; b < howmany_rank; b++)
    p.batch[b] = (hyfft_dim){howmany[b].n, howmany[b].is, howmany[b].os};
  p.inplace = (const void *)in == (const void *)out;
  p.scale = 0;
  p.memory = HYFFT_MEMORY_HOST;
  return hy_fftw_plan_make(&p, in, out, flags);
}

/* Plan a filled-in problem on the interface's context and keep it with
 * the arrays given at planning. */
static hy_fftw_plan *hy_fftw_plan_make(const hyfft_problem *problem, void *in, void *out,
                                       unsigned flags) {
  hyfft_problem p = *problem;
  hyfft_kind kind = p.kind;
  hyfft_context ctx = hy_fftw_context();
  if (!ctx) return NULL; /* hyfft_last_error says why */
  hy_fftw_plan *fp = calloc(1, sizeof *fp);
  if (!fp) {
    hy_error(HYFFT_OUT_OF_MEMORY, "FFTW3 interface: cannot allocate a plan");
    return NULL;
  }
  hyfft_status st = hyfft_plan_create(ctx, &p, hy_fftw_flags(kind, flags), &fp->plan);
  if (st == HYFFT_SUCCESS && (flags & FFTW_WISDOM_ONLY)) {
    /* FFTW_WISDOM_ONLY: a plan only where wisdom knows the problem. */
    hyfft_tune_info info;
    if (hyfft_last_tune_info(&info) != HYFFT_SUCCESS || !info.from_wisdom) {
      hyfft_plan_destroy(fp->plan);
      hy_error(HYFFT_NOT_SUPPORTED, "FFTW3 interface: FFTW_WISDOM_ONLY and no wisdom for "
               "this problem");
      st = HYFFT_NOT_SUPPORTED;
    }
  }
  if (st != HYFFT_SUCCESS) {
    free(fp);
    return NULL;
  }
  fp->problem = p;
  return hy_fftw_register(fp, in, out);
}

hy_fftw_plan *hy_fftw_plan_many(hyfft_kind kind, hyfft_precision precision, int sign, int rank,
                                const int *n, int howmany, void *in, const int *inembed,
                                int istride, int idist, void *out, const int *onembed,
                                int ostride, int odist, unsigned flags) {
  if (rank < 0 || rank > HYFFT_MAX_RANK || (rank > 0 && !n) || howmany < 0) {
    hy_error(rank > HYFFT_MAX_RANK ? HYFFT_NOT_SUPPORTED : HYFFT_INVALID_ARGUMENT,
             "FFTW3 interface: rank %d, howmany %d", rank, howmany);
    return NULL;
  }
  int inplace = (const void *)in == (const void *)out;
  int64_t ie[HYFFT_MAX_RANK], oe[HYFFT_MAX_RANK];
  for (int d = 0; d < rank; d++) {
    ie[d] = inembed ? inembed[d] : n[d];
    oe[d] = onembed ? onembed[d] : n[d];
  }
  /* The last dim of each side as FFTW lays it out by default: n/2 + 1 on
   * the complex side, 2 (n/2 + 1) reals on the real side in place. */
  if (rank > 0 && kind != HYFFT_C2C) {
    int64_t last = n[rank - 1], half = last / 2 + 1;
    int64_t *real_side = kind == HYFFT_R2C ? ie : oe, *cplx_side = kind == HYFFT_R2C ? oe : ie;
    const int *real_embed = kind == HYFFT_R2C ? inembed : onembed;
    const int *cplx_embed = kind == HYFFT_R2C ? onembed : inembed;
    if (!cplx_embed) cplx_side[rank - 1] = half;
    if (!real_embed && inplace) real_side[rank - 1] = 2 * half;
  }
  hy_fftw_dim dims[HYFFT_MAX_RANK];
  int64_t is = istride, os = ostride;
  for (int d = rank - 1; d >= 0; d--) {
    dims[d] = (hy_fftw_dim){n[d], is, os};
    is *= ie[d];
    os *= oe[d];
  }
  hy_fftw_dim batch = {howmany, idist, odist};
  return hy_fftw_plan_guru(kind, precision, sign, rank, dims, 1, &batch, in, out, flags);
}

/* A rank-1 FFTW_R2HC (r2hc) or FFTW_HC2R plan (hy_fftw_halfcomplex): the
 * R2C or C2R problem between the caller's real side and the packed
 * scratch, the howmany dims laid out in the scratch one after another. */
static hy_fftw_plan *hy_fftw_plan_halfcomplex(hyfft_precision precision, const hy_fftw_dim *dim,
                                              int howmany_rank, const hy_fftw_dim *howmany,
                                              void *in, void *out, int r2hc, unsigned flags) {
  const int64_t n = dim->n, h = n / 2 + 1;
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  p.kind = r2hc ? HYFFT_R2C : HYFFT_C2R;
  p.precision = precision;
  p.sign = r2hc ? HYFFT_FORWARD : HYFFT_BACKWARD;
  p.rank = 1;
  p.dims[0] = r2hc ? (hyfft_dim){n, dim->is, 1} : (hyfft_dim){n, 1, dim->os};
  p.batch_rank = howmany_rank;
  int64_t packed = h;
  for (int b = howmany_rank - 1; b >= 0; b--) {
    p.batch[b] = r2hc ? (hyfft_dim){howmany[b].n, howmany[b].is, packed}
                      : (hyfft_dim){howmany[b].n, packed, howmany[b].os};
    packed *= howmany[b].n;
  }
  p.memory = HYFFT_MEMORY_HOST;
  /* The scratch is the plan's own: HC2R's C2R may overwrite it. */
  hy_fftw_plan *fp = hy_fftw_plan_make(&p, in, out, r2hc ? flags : flags | FFTW_DESTROY_INPUT);
  if (!fp) return NULL;
  hy_fftw_halfcomplex *hc = &fp->hc;
  hc->kind = r2hc ? 1 : 2;
  hc->n = n;
  hc->s = r2hc ? dim->os : dim->is;
  hc->nloops = howmany_rank;
  hc->transforms = 1;
  for (int b = 0; b < howmany_rank; b++) {
    hc->count[b] = howmany[b].n;
    hc->stride[b] = r2hc ? howmany[b].os : howmany[b].is;
    hc->transforms *= howmany[b].n;
  }
  hc->real_bytes = precision == HYFFT_F64 ? 8 : 4;
  return fp;
}

/* A multi-dimensional r2r plan with a halfcomplex kind on some axis: FFTW
 * defines it as the product of 1D transforms along each axis, so it runs
 * as one rank-1 plan per axis, the other axes and the howmany dims as
 * that plan's howmany dims; the first axis goes from in to out, the
 * others in place on out. */
static hy_fftw_plan *hy_fftw_plan_r2r_chain(hyfft_precision precision, int rank,
                                            const hy_fftw_dim *dims, int howmany_rank,
                                            const hy_fftw_dim *howmany, void *in, void *out,
                                            const int *kinds, unsigned flags) {
  if (rank - 1 + howmany_rank > HYFFT_MAX_BATCH_RANK)
    return hy_fftw_unsupported("halfcomplex r2r kinds where rank - 1 + howmany rank exceeds 8");
  hy_fftw_plan *fp = calloc(1, sizeof *fp);
  if (!fp) {
    hy_error(HYFFT_OUT_OF_MEMORY, "FFTW3 interface: cannot allocate a plan");
    return NULL;
  }
  for (int a = 0; a < rank; a++) {
    int first = a == 0;
    hy_fftw_dim axis = {dims[a].n, first ? dims[a].is : dims[a].os, dims[a].os};
    hy_fftw_dim loops[HYFFT_MAX_BATCH_RANK];
    int nl = 0;
    for (int b = 0; b < howmany_rank; b++)
      loops[nl++] = (hy_fftw_dim){howmany[b].n, first ? howmany[b].is : howmany[b].os,
                                  howmany[b].os};
    for (int d = 0; d < rank; d++)
      if (d != a)
        loops[nl++] = (hy_fftw_dim){dims[d].n, first ? dims[d].is : dims[d].os, dims[d].os};
    /* The later axes overwrite out, which is theirs to overwrite. */
    fp->chain[a] = hy_fftw_plan_guru_r2r(precision, 1, &axis, nl, loops, first ? in : out, out,
                                         &kinds[a], first ? flags : flags | FFTW_DESTROY_INPUT);
    fp->nchain = a + 1;
    if (!fp->chain[a]) {
      for (int k = 0; k < a; k++) hy_fftw_destroy(fp->chain[k]);
      free(fp);
      return NULL;
    }
  }
  fp->problem = fp->chain[0]->problem;
  fp->problem.rank = rank;
  for (int d = 0; d < rank; d++) fp->problem.dims[d] = (hyfft_dim){dims[d].n, dims[d].is, dims[d].os};
  fp->problem.batch_rank = howmany_rank;
  for (int b = 0; b < howmany_rank; b++)
    fp->problem.batch[b] = (hyfft_dim){howmany[b].n, howmany[b].is, howmany[b].os};
  return hy_fftw_register(fp, in, out);
}

hy_fftw_plan *hy_fftw_plan_guru_r2r(hyfft_precision precision, int rank, const hy_fftw_dim *dims,
                                    int howmany_rank, const hy_fftw_dim *howmany, void *in,
                                    void *out, const int *kinds, unsigned flags) {
  /* fftw_r2r_kind (fftw3.h): R2HC 0, HC2R 1, DHT 2, REDFT00 3, REDFT01 4,
   * REDFT10 5, REDFT11 6, RODFT00 7, RODFT01 8, RODFT10 9, RODFT11 10. */
  static const hyfft_r2r_kind map[11] = {HYFFT_R2R_NONE, HYFFT_R2R_NONE, HYFFT_DHT,
                                         HYFFT_REDFT00,  HYFFT_REDFT01,  HYFFT_REDFT10,
                                         HYFFT_REDFT11,  HYFFT_RODFT00,  HYFFT_RODFT01,
                                         HYFFT_RODFT10,  HYFFT_RODFT11};
  if (rank < 1 || rank > HYFFT_MAX_RANK || howmany_rank < 0 ||
      howmany_rank > HYFFT_MAX_BATCH_RANK || !dims || !kinds || (howmany_rank > 0 && !howmany)) {
    hy_error(rank > HYFFT_MAX_RANK || howmany_rank > HYFFT_MAX_BATCH_RANK ? HYFFT_NOT_SUPPORTED
                                                                          : HYFFT_INVALID_ARGUMENT,
             "FFTW3 interface: r2r rank %d (hyfft: 1..%d), howmany rank %d", rank, HYFFT_MAX_RANK,
             howmany_rank);
    return NULL;
  }
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  p.kind = HYFFT_R2R;
  p.precision = precision;
  p.sign = HYFFT_FORWARD;
  p.rank = rank;
  if (rank == 1 && (kinds[0] == 0 || kinds[0] == 1))
    return hy_fftw_plan_halfcomplex(precision, dims, howmany_rank, howmany, in, out,
                                    kinds[0] == 0, flags);
  for (int d = 0; d < rank; d++)
    if (kinds[d] == 0 || kinds[d] == 1)
      return hy_fftw_plan_r2r_chain(precision, rank, dims, howmany_rank, howmany, in, out, kinds,
                                    flags);
  for (int d = 0; d < rank; d++) {
    if (kinds[d] < 0 || kinds[d] > 10 || map[kinds[d]] == HYFFT_R2R_NONE)
      return hy_fftw_unsupported("halfcomplex r2r kinds (FFTW_R2HC, FFTW_HC2R) of rank 2 and up");
    p.dims[d] = (hyfft_dim){dims[d].n, dims[d].is, dims[d].os};
    p.r2r_kind[d] = map[kinds[d]];
  }
  p.batch_rank = howmany_rank;
  for (int b = 0; b < howmany_rank; b++)
    p.batch[b] = (hyfft_dim){howmany[b].n, howmany[b].is, howmany[b].os};
  p.inplace = (const void *)in == (const void *)out;
  p.memory = HYFFT_MEMORY_HOST;
  return hy_fftw_plan_make(&p, in, out, flags);
}

hy_fftw_plan *hy_fftw_plan_many_r2r(hyfft_precision precision, int rank, const int *n,
                                    int howmany, void *in, const int *inembed, int istride,
                                    int idist, void *out, const int *onembed, int ostride,
                                    int odist, const int *kinds, unsigned flags) {
  if (rank < 1 || rank > HYFFT_MAX_RANK || !n || howmany < 0) {
    hy_error(rank > HYFFT_MAX_RANK ? HYFFT_NOT_SUPPORTED : HYFFT_INVALID_ARGUMENT,
             "FFTW3 interface: r2r rank %d (hyfft: 1..%d), howmany %d", rank, HYFFT_MAX_RANK,
             howmany);
    return NULL;
  }
  hy_fftw_dim dims[HYFFT_MAX_RANK];
  int64_t is = istride, os = ostride;
  for (int d = rank - 1; d >= 0; d--) {
    dims[d] = (hy_fftw_dim){n[d], is, os};
    is *= inembed ? inembed[d] : n[d];
    os *= onembed ? onembed[d] : n[d];
  }
  hy_fftw_dim batch = {howmany, idist, odist};
  return hy_fftw_plan_guru_r2r(precision, rank, dims, 1, &batch, in, out, kinds, flags);
}

static double hy_fftw_real_get(const char *base, int64_t at, size_t bytes) {
  return bytes == 8 ? ((const double *)base)[at] : (double)((const float *)base)[at];
}

static void hy_fftw_real_put(char *base, int64_t at, double v, size_t bytes) {
  if (bytes == 8)
    ((double *)base)[at] = v;
  else
    ((float *)base)[at] = (float)v;
}

/* Between the packed scratch (n/2 + 1 complex values per transform, the
 * transforms in the order of the howmany dims) and the caller's
 * halfcomplex side: to_hc 1 for R2HC's output, 0 for HC2R's input (the
 * imaginary parts of bin 0 and of bin n/2 for even n set to 0). */
static void hy_fftw_halfcomplex_move(const hy_fftw_halfcomplex *hc, char *scratch, char *side,
                                     int to_hc) {
  const int64_t n = hc->n, h = n / 2 + 1;
  const size_t rb = hc->real_bytes;
  for (int64_t t = 0; t < hc->transforms; t++) {
    int64_t rem = t, off = 0;
    for (int b = hc->nloops - 1; b >= 0; b--) {
      off += (rem % hc->count[b]) * hc->stride[b];
      rem /= hc->count[b];
    }
    char *c = scratch + (size_t)(t * h) * 2 * rb;
    for (int64_t k = 0; k < h; k++) {
      int64_t re_at = off + k * hc->s;
      int has_im = k > 0 && 2 * k != n; /* bins 0 and n/2 are real */
      if (to_hc) {
        hy_fftw_real_put(side, re_at, hy_fftw_real_get(c, 2 * k, rb), rb);
        if (has_im) hy_fftw_real_put(side, off + (n - k) * hc->s, hy_fftw_real_get(c, 2 * k + 1, rb), rb);
      } else {
        hy_fftw_real_put(c, 2 * k, hy_fftw_real_get(side, re_at, rb), rb);
        hy_fftw_real_put(c, 2 * k + 1, has_im ? hy_fftw_real_get(side, off + (n - k) * hc->s, rb) : 0.0, rb);
      }
    }
  }
}

hy_fftw_plan *hy_fftw_plan_split(int kind, hyfft_precision precision, int rank,
                                 const hy_fftw_dim *dims, int howmany_rank,
                                 const hy_fftw_dim *howmany, void *ri, void *ii, void *ro,
                                 void *io, unsigned flags) {
  if (rank < 1 || rank > HYFFT_MAX_RANK || howmany_rank < 0 ||
      howmany_rank > HYFFT_MAX_BATCH_RANK || !dims || (howmany_rank > 0 && !howmany)) {
    hy_error(rank > HYFFT_MAX_RANK || howmany_rank > HYFFT_MAX_BATCH_RANK
                 ? HYFFT_NOT_SUPPORTED
                 : HYFFT_INVALID_ARGUMENT,
             "FFTW3 interface: split-array rank %d (1..%d), howmany rank %d", rank,
             HYFFT_MAX_RANK, howmany_rank);
    return NULL;
  }
  hy_fftw_split sp;
  memset(&sp, 0, sizeof sp);
  sp.kind = kind;
  sp.real_bytes = precision == HYFFT_F64 ? 8 : 4;
  /* The loops: howmany dims, then the transform dims (complex lengths). */
  for (int b = 0; b < howmany_rank; b++) {
    sp.count[sp.nloops] = howmany[b].n;
    sp.is[sp.nloops] = howmany[b].is;
    sp.os[sp.nloops++] = howmany[b].os;
  }
  for (int d = 0; d < rank; d++) {
    int64_t n = dims[d].n;
    if (kind != 1 && d == rank - 1) n = n / 2 + 1;
    sp.count[sp.nloops] = n;
    sp.is[sp.nloops] = dims[d].is;
    sp.os[sp.nloops++] = dims[d].os;
  }
  /* Packed strides of the scratch, innermost last. */
  int64_t packed[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK], elems = 1;
  for (int l = sp.nloops - 1; l >= 0; l--) {
    packed[l] = elems;
    elems *= sp.count[l];
  }
  sp.elems = elems;
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  p.kind = kind == 1 ? HYFFT_C2C : kind == 2 ? HYFFT_R2C : HYFFT_C2R;
  p.precision = precision;
  p.sign = kind == 3 ? HYFFT_BACKWARD : HYFFT_FORWARD;
  p.rank = rank;
  for (int d = 0; d < rank; d++) {
    int64_t pk = packed[howmany_rank + d];
    p.dims[d] = kind == 1   ? (hyfft_dim){dims[d].n, pk, pk}
                : kind == 2 ? (hyfft_dim){dims[d].n, dims[d].is, pk}
                            : (hyfft_dim){dims[d].n, pk, dims[d].os};
  }
  p.batch_rank = howmany_rank;
  for (int b = 0; b < howmany_rank; b++) {
    int64_t pk = packed[b];
    p.batch[b] = kind == 1   ? (hyfft_dim){howmany[b].n, pk, pk}
                 : kind == 2 ? (hyfft_dim){howmany[b].n, howmany[b].is, pk}
                             : (hyfft_dim){howmany[b].n, pk, howmany[b].os};
  }
  p.inplace = kind == 1; /* the DFT runs in place on the scratch */
  p.memory = HYFFT_MEMORY_HOST;
  /* C2R reads the scratch, which is the plan's own. */
  hy_fftw_plan *fp = hy_fftw_plan_make(&p, ri, ro, kind == 3 ? flags | FFTW_DESTROY_INPUT : flags);
  if (!fp) return NULL;
  fp->split = sp;
  fp->in2 = ii;
  fp->out2 = io;
  return fp;
}

/* Between the split arrays (re, im; strides `st` in reals) and the packed
 * scratch: to_split 1 scatters the scratch there, 0 gathers from there. */
static void hy_fftw_split_move(const hy_fftw_split *sp, const int64_t *st, char *re, char *im,
                               char *scratch, int to_split) {
  const size_t rb = sp->real_bytes;
  for (int64_t e = 0; e < sp->elems; e++) {
    int64_t rem = e, off = 0;
    for (int l = sp->nloops - 1; l >= 0; l--) {
      off += (rem % sp->count[l]) * st[l];
      rem /= sp->count[l];
    }
    if (to_split) {
      hy_fftw_real_put(re, off, hy_fftw_real_get(scratch, 2 * e, rb), rb);
      hy_fftw_real_put(im, off, hy_fftw_real_get(scratch, 2 * e + 1, rb), rb);
    } else {
      hy_fftw_real_put(scratch, 2 * e, hy_fftw_real_get(re, off, rb), rb);
      hy_fftw_real_put(scratch, 2 * e + 1, hy_fftw_real_get(im, off, rb), rb);
    }
  }
}

void hy_fftw_execute_split(const hy_fftw_plan *p, const void *ri, const void *ii, void *ro,
                           void *io) {
  if (!p) return;
  const hy_fftw_split *sp = &p->split;
  if (!sp->kind) {
    hy_error(HYFFT_INVALID_ARGUMENT, "FFTW3 interface: a split execute on a plan of "
             "interleaved arrays");
    return;
  }
  size_t bytes = (size_t)sp->elems * 2 * sp->real_bytes;
  char *scratch = malloc(bytes ? bytes : 1);
  if (!scratch) {
    hy_error(HYFFT_OUT_OF_MEMORY, "FFTW3 interface: no %zu bytes for a split-array scratch",
             bytes);
    return;
  }
  hyfft_status st = HYFFT_SUCCESS;
  if (sp->kind != 2)
    hy_fftw_split_move(sp, sp->is, (char *)(uintptr_t)ri, (char *)(uintptr_t)ii, scratch, 0);
  if (sp->kind == 1) st = hyfft_execute(p->plan, scratch, scratch);
  if (sp->kind == 2) st = hyfft_execute(p->plan, ri, scratch);
  if (sp->kind == 3) st = hyfft_execute(p->plan, scratch, ro);
  if (st == HYFFT_SUCCESS && sp->kind != 3) hy_fftw_split_move(sp, sp->os, ro, io, scratch, 1);
  free(scratch);
}

void hy_fftw_execute(const hy_fftw_plan *p, const void *in, void *out) {
  /* FFTW's execute returns nothing; a failure (a pointer hyfft refuses)
   * leaves the reason in hyfft_last_error(). */
  if (!p) return;
  if (p->nchain) {
    hy_fftw_execute(p->chain[0], in, out);
    for (int k = 1; k < p->nchain; k++) hy_fftw_execute(p->chain[k], out, out);
    return;
  }
  if (p->split.kind) {
    /* fftw_execute of a split plan: its own arrays. */
    hy_fftw_execute_split(p, p->in, p->in2, p->out, p->out2);
    return;
  }
  if (!p->hc.kind) {
    (void)hyfft_execute(p->plan, in, out);
    return;
  }
  const hy_fftw_halfcomplex *hc = &p->hc;
  size_t bytes = (size_t)(hc->transforms * (hc->n / 2 + 1)) * 2 * hc->real_bytes;
  char *scratch = malloc(bytes ? bytes : 1);
  if (!scratch) {
    hy_error(HYFFT_OUT_OF_MEMORY, "FFTW3 interface: no %zu bytes for a halfcomplex scratch", bytes);
    return;
  }
  if (hc->kind == 1) {
    /* The whole input is read into the scratch before out is written, so
     * in place works too. */
    if (hyfft_execute(p->plan, in, scratch) == HYFFT_SUCCESS)
      hy_fftw_halfcomplex_move(hc, scratch, out, 1);
  } else {
    hy_fftw_halfcomplex_move(hc, scratch, (char *)(uintptr_t)in, 0);
    (void)hyfft_execute(p->plan, scratch, out);
  }
  free(scratch);
}

void hy_fftw_destroy(hy_fftw_plan *p) {
  if (!p) return;
  for (int k = 0; k < p->nchain; k++) hy_fftw_destroy(p->chain[k]);
  if (p->plan) hyfft_plan_destroy(p->plan);
  free(p);
  pthread_mutex_lock(&hy_fftw_lock);
  hy_fftw_live_plans--;
  pthread_mutex_unlock(&hy_fftw_lock);
}

char *hy_fftw_sprint(const hy_fftw_plan *p) {
  if (p && p->nchain) {
    /* One description per axis, one after the other. */
    size_t len = 0;
    char *all = calloc(1, 1);
    for (int k = 0; k < p->nchain && all; k++) {
      char *part = hy_fftw_sprint(p->chain[k]);
      size_t add = part ? strlen(part) : 0;
      char *grown = realloc(all, len + add + 1);
      if (!grown) {
        free(all);
        free(part);
        return NULL;
      }
      all = grown;
      if (part) memcpy(all + len, part, add + 1);
      len += add;
      free(part);
    }
    return all;
  }
  size_t need = 0;
  if (!p || hyfft_plan_describe(p->plan, NULL, 0, &need) != HYFFT_BUFFER_TOO_SMALL) {
    char *empty = malloc(1);
    if (empty) empty[0] = 0;
    return empty;
  }
  char *s = malloc(need + 1);
  if (s && hyfft_plan_describe(p->plan, s, need + 1, NULL) != HYFFT_SUCCESS) s[0] = 0;
  return s;
}

/* FFTW's count for a radix-2 style transform: 5 N log2 N per complex
 * transform, half of it for a real one, over the batch. */
double hy_fftw_flops(const hy_fftw_plan *p) {
  if (!p) return 0;
  if (p->nchain) {
    double f = 0;
    for (int k = 0; k < p->nchain; k++) f += hy_fftw_flops(p->chain[k]);
    return f;
  }
  double n = 1, batch = 1;
  for (int d = 0; d < p->problem.rank; d++) n *= (double)p->problem.dims[d].n;
  for (int b = 0; b < p->problem.batch_rank; b++) batch *= (double)p->problem.batch[b].n;
  double f = n > 1 ? 5.0 * n * log2(n) : 0;
  return (p->problem.kind == HYFFT_C2C ? f : f / 2) * batch;
}

void *hy_fftw_malloc(size_t bytes) {
  void *p = NULL;
  /* 64-byte alignment: whole cache lines and every SIMD width. */
  if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) return NULL;
  return p;
}

void hy_fftw_free(void *p) { free(p); }

void hy_fftw_set_threads(int n) {
  pthread_mutex_lock(&hy_fftw_lock);
  hy_fftw_nthreads = n > 0 ? n : 1;
  pthread_mutex_unlock(&hy_fftw_lock);
  hy_set_num_threads(n > 0 ? n : 1);
}

void hy_fftw_set_callback(void (*loop)(void *(*work)(char *), char *jobdata, size_t elsize,
                                        int njobs, void *data),
                          void *data) {
  hy_set_parallel_loop(loop, data);
}

int hy_fftw_threads(void) {
  pthread_mutex_lock(&hy_fftw_lock);
  int n = hy_fftw_nthreads;
  pthread_mutex_unlock(&hy_fftw_lock);
  return n;
}

/* fftw_cleanup: FFTW requires every plan destroyed first; the context
 * goes with the last one, and the next plan makes a new one. */
void hy_fftw_cleanup(void) {
  pthread_mutex_lock(&hy_fftw_lock);
  if (hy_fftw_ctx && hy_fftw_live_plans == 0) {
    hyfft_context_destroy(hy_fftw_ctx);
    hy_fftw_ctx = NULL;
  }
  pthread_mutex_unlock(&hy_fftw_lock);
}

/* ---- wisdom: one table for both precisions --------------------------------- */

static char *hy_fftw_wisdom_text(void) {
  size_t need = 0;
  hyfft_status st = hyfft_wisdom_export_string(NULL, 0, &need);
  if (st != HYFFT_SUCCESS && st != HYFFT_BUFFER_TOO_SMALL) return NULL;
  char *s = malloc(need + 1);
  if (s && hyfft_wisdom_export_string(s, need + 1, NULL) != HYFFT_SUCCESS) {
    free(s);
    return NULL;
  }
  return s;
}

/* Reads characters from `next` up to EOF and imports them as wisdom;
 * 1 on success (FFTW's import_wisdom and import_wisdom_from_file). */
static int hy_fftw_import_chars(int (*next)(void *), void *data) {
  size_t cap = 4096, len = 0;
  char *s = malloc(cap);
  int c;
  while (s && (c = next(data)) != EOF) {
    if (len + 1 >= cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) free(s);
      s = t;
      if (!s) return 0;
    }
    s[len++] = (char)c;
  }
  if (!s) return 0;
  s[len] = 0;
  int ok = hyfft_wisdom_import_string(s) == HYFFT_SUCCESS;
  free(s);
  return ok;
}

static int hy_fftw_fgetc(void *f) { return fgetc((FILE *)f); }

#define HY_FFTW_WISDOM(X)                                                                    \
  char *X(export_wisdom_to_string)(void) { return hy_fftw_wisdom_text(); }                   \
  int X(import_wisdom_from_string)(const char *s) {                                          \
    return s && hyfft_wisdom_import_string(s) == HYFFT_SUCCESS;                              \
  }                                                                                          \
  int X(export_wisdom_to_filename)(const char *path) {                                       \
    FILE *f = path ? fopen(path, "w") : NULL;                                                \
    if (!f) return 0;                                                                        \
    X(export_wisdom_to_file)(f);                                                             \
    return fclose(f) == 0;                                                                   \
  }                                                                                          \
  void X(export_wisdom_to_file)(FILE * f) {                                                  \
    char *s = hy_fftw_wisdom_text();                                                         \
    if (s && f) fputs(s, f);                                                                 \
    free(s);                                                                                 \
  }                                                                                          \
  void X(export_wisdom)(X(write_char_func) write_char, void *data) {                         \
    char *s = hy_fftw_wisdom_text();                                                         \
    for (const char *c = s; c && *c; c++) write_char(*c, data);                              \
    free(s);                                                                                 \
  }                                                                                          \
  int X(import_wisdom_from_file)(FILE * f) {                                                 \
    return f && hy_fftw_import_chars(hy_fftw_fgetc, f);                                      \
  }                                                                                          \
  int X(import_wisdom_from_filename)(const char *path) {                                     \
    FILE *f = path ? fopen(path, "r") : NULL;                                                \
    if (!f) return 0;                                                                        \
    int ok = X(import_wisdom_from_file)(f);                                                  \
    fclose(f);                                                                               \
    return ok;                                                                               \
  }                                                                                          \
  int X(import_wisdom)(X(read_char_func) read_char, void *data) {                            \
    return read_char && hy_fftw_import_chars(read_char, data);                               \
  }                                                                                          \
  int X(import_system_wisdom)(void) { return 0; /* hyfft has no system wisdom file */ }     \
  void X(forget_wisdom)(void) { (void)hyfft_wisdom_forget(); }

HY_FFTW_WISDOM(FFTW_MANGLE_DOUBLE)
HY_FFTW_WISDOM(FFTW_MANGLE_FLOAT)
