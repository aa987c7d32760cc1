/* High-precision twiddles: exact integer reduction to the first octant,
 * long double sinl/cosl there, symmetries elsewhere (see twiddle.h). */
#include <math.h>

#include "util/hy_util.h"
#include "tables/twiddle.h"

#define HY_PI_2L 1.570796326794896619231321691639751442L

/* The root in quadrant q whose first-quadrant cosine and sine are c, s. */
static void hy_twiddle_place(int q, long double c, long double s, int sign, long double *re,
                             long double *im) {
  long double x, y;
  switch (q) {
    case 0: x = c; y = s; break;
    case 1: x = -s; y = c; break;
    case 2: x = -c; y = -s; break;
    default: x = s; y = -c; break;
  }
  *re = x;
  *im = sign < 0 ? -y : y;
}

void hy_twiddle_ld(int64_t k, int64_t n, int sign, long double *re, long double *im) {
  if (n < 1) n = 1;
  __int128 kk = (__int128)k % n;
  if (kk < 0) kk += n;
  /* 4k = q*n + r: quadrant q, and the angle within it is (pi/2) * r/n. */
  __int128 k4 = 4 * kk;
  int q = (int)(k4 / n);
  __int128 r = k4 - (__int128)q * n;
  long double c, s;
  if (r == 0) {
    c = 1.0L;
    s = 0.0L;
  } else if (2 * r <= n) {
    long double phi = HY_PI_2L * ((long double)r / (long double)n);
    c = cosl(phi);
    s = sinl(phi);
  } else {
    /* Second octant of the quadrant: use the complementary angle, which
     * is again in [0, pi/4]. */
    long double phi = HY_PI_2L * ((long double)(n - r) / (long double)n);
    c = sinl(phi);
    s = cosl(phi);
  }
  hy_twiddle_place(q, c, s, sign, re, im);
}

/* hy_twiddle_roots_ld's work, shared by the threads: 4k = q*n + r takes
 * only multiples of g = gcd(4, n) for r, so the first-octant angles are
 * x = g, 2g, ... up to n/2, their cosines and sines at [x/g]. */
typedef struct hy_twiddle_roots_job {
  long double *cx, *sx, *re, *im;
  int64_t n, g;
  int sign;
} hy_twiddle_roots_job;

static void hy_twiddle_roots_angles(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_twiddle_roots_job *a = arg;
  for (int64_t i = begin; i < end; i++) {
    long double phi = HY_PI_2L * ((long double)(i * a->g) / (long double)a->n);
    a->cx[i] = cosl(phi);
    a->sx[i] = sinl(phi);
  }
}

static void hy_twiddle_roots_fill(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  const hy_twiddle_roots_job *a = arg;
  const int64_t n = a->n;
  for (int64_t k = begin; k < end; k++) {
    __int128 k4 = 4 * (__int128)k;
    int q = (int)(k4 / n);
    int64_t r = (int64_t)(k4 - (__int128)q * n);
    long double c, s;
    if (r == 0) {
      c = 1.0L;
      s = 0.0L;
    } else {
      int low = 2 * (__int128)r <= n;
      int64_t x = (low ? r : n - r) / a->g;
      c = low ? a->cx[x] : a->sx[x];
      s = low ? a->sx[x] : a->cx[x];
    }
    hy_twiddle_place(q, c, s, a->sign, &a->re[k], &a->im[k]);
  }
}

int hy_twiddle_roots_ld(int64_t n, int sign, long double *re, long double *im) {
  if (n < 1) return 1;
  /* hy_twiddle_ld's reduction: 4k = q*n + r, and sinl/cosl of
   * (pi/2) * x/n with x = r or n - r, whichever is at most n/2. Each x
   * once (threads over the angles, then over the roots), with the same
   * expressions, so every value is the same. */
  const int64_t g = n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
  const int64_t angles = n / 2 / g + 1;
  long double *cx = hy_malloc((size_t)angles * 2 * sizeof *cx);
  if (!cx) return 0;
  hy_twiddle_roots_job a = {cx, cx + angles, re, im, n, g, sign};
  hy_parallel_for(angles, 1 << 12, hy_twiddle_roots_angles, &a);
  hy_parallel_for(n, 1 << 14, hy_twiddle_roots_fill, &a);
  hy_free(cx);
  return 1;
}

void hy_chirp_ld(int64_t k, int64_t n, int sign, long double *re, long double *im) {
  if (n < 1) n = 1;
  int64_t two_n = 2 * n;
  /* k^2 mod 2n depends only on k mod 2n. */
  __int128 kk = (__int128)k % two_n;
  if (kk < 0) kk += two_n;
  int64_t k2 = (int64_t)((kk * kk) % two_n);
  hy_twiddle_ld(k2, two_n, sign, re, im);
}

void hy_twiddle_table_f64(double *out, int64_t count, int64_t step, int64_t n, int sign) {
  for (int64_t j = 0; j < count; j++) {
    long double re, im;
    hy_twiddle_ld((int64_t)(((__int128)j * step) % n), n, sign, &re, &im);
    out[2 * j] = (double)re;
    out[2 * j + 1] = (double)im;
  }
}

void hy_twiddle_table_f32(float *out, int64_t count, int64_t step, int64_t n, int sign) {
  for (int64_t j = 0; j < count; j++) {
    long double re, im;
    hy_twiddle_ld((int64_t)(((__int128)j * step) % n), n, sign, &re, &im);
    out[2 * j] = (float)re;
    out[2 * j + 1] = (float)im;
  }
}
