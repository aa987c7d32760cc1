/* Complex values of f32 or f64 host arrays, read and written in double,
 * for the host steps of out-of-core plans (exec/ooc_real.c,
 * exec/ooc_chirp.c): element `at` of an interleaved complex array. */
#ifndef HY_EXEC_HOST_COMPLEX_H
#define HY_EXEC_HOST_COMPLEX_H

#include <stdint.h>

typedef struct hy_cplx {
  double re, im;
} hy_cplx;

static inline hy_cplx hy_cplx_mul(hy_cplx a, hy_cplx b) {
  return (hy_cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

static inline hy_cplx hy_cplx_get(const char *base, int64_t at, int f64) {
  if (f64) {
    const double *p = (const double *)base + 2 * at;
    return (hy_cplx){p[0], p[1]};
  }
  const float *p = (const float *)base + 2 * at;
  return (hy_cplx){p[0], p[1]};
}

/* f32 arrays get each part rounded once. */
static inline void hy_cplx_put(char *base, int64_t at, hy_cplx v, int f64) {
  if (f64) {
    double *p = (double *)base + 2 * at;
    p[0] = v.re;
    p[1] = v.im;
  } else {
    float *p = (float *)base + 2 * at;
    p[0] = (float)v.re;
    p[1] = (float)v.im;
  }
}

#endif /* HY_EXEC_HOST_COMPLEX_H */
