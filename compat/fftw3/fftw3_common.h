/* The FFTW3-compatible interface (libhyfft_fftw3): what its double and
 * single precision halves share. A program written for FFTW 3.3 compiles
 * against FFTW's own fftw3.h and links against libhyfft_fftw3 instead of
 * libfftw3/libfftw3f; every plan becomes a hyfft plan on one process-wide
 * context ($HYFFT_DEVICE, the CPU by default) over host memory. */
#ifndef HY_FFTW3_COMMON_H
#define HY_FFTW3_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "hyfft.h"

/* What a plan of either precision holds. */
/* FFTW's halfcomplex r2r kinds of a rank-1 plan: the hyfft plan is the R2C
 * (R2HC) or C2R (HC2R) of the same length between the caller's real side
 * and a packed complex scratch of n/2 + 1 values per transform (allocated
 * per execution), and the halfcomplex side is filled from or read into
 * that scratch: r_0 .. r_{n/2}, then i_{(n+1)/2-1} .. i_1. */
typedef struct hy_fftw_halfcomplex {
  int kind;            /* 0: none, 1: R2HC, 2: HC2R */
  int64_t n, s;        /* length, and the halfcomplex side's stride */
  int nloops;          /* the howmany dims: counts, and the halfcomplex */
  int64_t count[HYFFT_MAX_BATCH_RANK], stride[HYFFT_MAX_BATCH_RANK]; /* side's distances */
  int64_t transforms;  /* product of the counts */
  size_t real_bytes;   /* 4 or 8 */
} hy_fftw_halfcomplex;

/* FFTW's split arrays (real and imaginary parts in separate arrays, strides
 * in reals): the hyfft plan works on a packed interleaved scratch (its
 * elements in the order of the howmany dims, then the transform dims,
 * allocated per execution), gathered from the split input and/or
 * scattered to the split output on the host. kind: 0 none, 1 split DFT
 * (C2C forward in place on the scratch), 2 split R2C (from the real
 * input into the scratch), 3 split C2R (from the scratch to the real
 * output). The loops are the complex side's (n/2 + 1 on the last
 * transform dim of R2C and C2R), with the split input's and output's
 * strides. */
typedef struct hy_fftw_split {
  int kind;
  int nloops;
  int64_t count[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  int64_t is[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK], os[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  int64_t elems; /* complex elements of the scratch */
  size_t real_bytes;
} hy_fftw_split;

typedef struct hy_fftw_plan {
  hyfft_plan plan;
  hyfft_problem problem;
  void *in, *out; /* the arrays given at planning, for fftw_execute */
  void *in2, *out2; /* the imaginary parts' arrays of split plans */
  hy_fftw_halfcomplex hc;
  hy_fftw_split split;
  /* Multi-dimensional r2r with a halfcomplex kind: FFTW's separable
   * product as one rank-1 plan per axis (no hyfft plan of its own), the
   * first from in to out, the others in place on out. */
  struct hy_fftw_plan *chain[HYFFT_MAX_RANK];
  int nchain;
} hy_fftw_plan;

/* One dimension of a guru description, in elements (64-bit). */
typedef struct hy_fftw_dim {
  int64_t n, is, os;
} hy_fftw_dim;

/* A plan for the guru description (FFTW's rules: rank 0 is a copy, in-place
 * when in == out, FFTW's planner flags mapped onto hyfft's), or NULL with
 * the reason in hyfft_last_error(). */
hy_fftw_plan *hy_fftw_plan_guru(hyfft_kind kind, hyfft_precision precision, int sign, int rank,
                                const hy_fftw_dim *dims, int howmany_rank,
                                const hy_fftw_dim *howmany, void *in, void *out,
                                unsigned flags);

/* The advanced interface's layout (inembed/onembed NULL: the logical size,
 * with FFTW's padding of the real side of an in-place R2C/C2R) turned into
 * a guru description. */
hy_fftw_plan *hy_fftw_plan_many(hyfft_kind kind, hyfft_precision precision, int sign, int rank,
                                const int *n, int howmany, void *in, const int *inembed,
                                int istride, int idist, void *out, const int *onembed,
                                int ostride, int odist, unsigned flags);

/* The same for real-to-real plans: kinds[d] are FFTW's fftw_r2r_kind
 * values, one per dim, planned as hyfft R2R (DCT/DST/DHT), or for a rank-1
 * FFTW_R2HC / FFTW_HC2R as an R2C / C2R plan with the halfcomplex layout
 * made on the host (hy_fftw_halfcomplex); a plan of rank 2 and up with a
 * halfcomplex kind as a chain of rank-1 plans, one per axis. The
 * advanced form lays the dims out like a complex plan's (embed = n when
 * NULL). */
hy_fftw_plan *hy_fftw_plan_guru_r2r(hyfft_precision precision, int rank, const hy_fftw_dim *dims,
                                    int howmany_rank, const hy_fftw_dim *howmany, void *in,
                                    void *out, const int *kinds, unsigned flags);
hy_fftw_plan *hy_fftw_plan_many_r2r(hyfft_precision precision, int rank, const int *n,
                                    int howmany, void *in, const int *inembed, int istride,
                                    int idist, void *out, const int *onembed, int ostride,
                                    int odist, const int *kinds, unsigned flags);

/* Split-array plans (FFTW's guru split interface: the forward DFT; FFTW's
 * users get the backward one by swapping the real and imaginary arrays).
 * kind 1: ri/ii -> ro/io; 2: the real input ri -> ro/io (ii unused); 3:
 * ri/ii -> the real output ro (io unused). */
hy_fftw_plan *hy_fftw_plan_split(int kind, hyfft_precision precision, int rank,
                                 const hy_fftw_dim *dims, int howmany_rank,
                                 const hy_fftw_dim *howmany, void *ri, void *ii, void *ro,
                                 void *io, unsigned flags);
void hy_fftw_execute_split(const hy_fftw_plan *p, const void *ri, const void *ii, void *ro,
                           void *io);

void hy_fftw_execute(const hy_fftw_plan *p, const void *in, void *out);
void hy_fftw_destroy(hy_fftw_plan *p);
/* NULL, with hyfft_last_error() naming what this interface does not do yet. */
void *hy_fftw_unsupported(const char *what);
/* Plan printing and the FFTW cost figures. */
char *hy_fftw_sprint(const hy_fftw_plan *p);
double hy_fftw_flops(const hy_fftw_plan *p);

void *hy_fftw_malloc(size_t bytes);
void hy_fftw_free(void *p);

/* Threads (FFTW's threads API): one setting for both precisions. */
void hy_fftw_set_threads(int n);
int hy_fftw_threads(void);
/* fftw_threads_set_callback: the caller's parallel loop runs hyfft's
 * parallel loops from now on (NULL: hyfft's own workers). One setting for
 * both precisions and for every hyfft plan of the process: FFTW keeps one
 * per precision library, and callers set both to the same loop. */
void hy_fftw_set_callback(void (*loop)(void *(*work)(char *), char *jobdata, size_t elsize,
                                        int njobs, void *data),
                          void *data);
void hy_fftw_cleanup(void);

#endif /* HY_FFTW3_COMMON_H */
