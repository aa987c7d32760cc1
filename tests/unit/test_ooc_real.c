/* Unit tests of the 1D real step of out-of-core plans by columns
 * (src/exec/ooc_real.c, hy_ooc_real_columns and the tracker that runs it
 * piece by piece beside the sweeps): for m = ncols x nrows bins with
 * ncols and nrows even and odd, f32 and f64, R2C and C2R, in place and
 * into another buffer, the pieces of columns taken in natural, reversed
 * and shuffled order give the same bits as the whole step at once
 * (hy_ooc_real_run); the tracker reports completion only once every
 * column has been through it; before (C2R) it never touches columns of a
 * piece already read, after (R2C) never columns that have not landed;
 * the same with the step on a helper thread. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/ooc_real.h"

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static double rnd(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 9007199254740992.0 - 0.5;
}

static void fill(char *buf, int64_t count, int f64) {
  for (int64_t i = 0; i < 2 * count; i++) {
    if (f64)
      ((double *)buf)[i] = rnd();
    else
      ((float *)buf)[i] = (float)rnd();
  }
}

/* Pieces of `per` columns of ncols, in one of three orders: natural,
 * reversed, mirrored (the order of the sweeps that carry the step). */
static int64_t piece_order(int64_t k, int64_t count, int order) {
  if (order == 1) return count - 1 - k;
  return hy_ooc_piece_block(k, count, order == 2);
}

static void one_case(int64_t ncols, int64_t nrows, int f64, int r2c, int inplace, int64_t per,
                     int order, int async) {
  const int64_t m = ncols * nrows;
  const size_t ce = f64 ? 16 : 8;
  hy_ooc_real_tables tw;
  CHECK_OK((hyfft_status)hy_ooc_real_tables_make(&tw, 2 * m, r2c ? -1 : 1));
  char *src = malloc((size_t)(m + 1) * ce), *ref = malloc((size_t)(m + 1) * ce);
  char *dst = malloc((size_t)(m + 1) * ce), *got = malloc((size_t)(m + 1) * ce);
  fill(src, m + 1, f64);
  memcpy(ref, src, (size_t)(m + 1) * ce);
  memcpy(got, src, (size_t)(m + 1) * ce);
  /* Reference: the whole step. R2C reads m values and writes m + 1;
   * C2R reads m + 1 and writes m. */
  char *ref_out = inplace ? ref : dst;
  memset(dst, 0x7f, (size_t)(m + 1) * ce);
  hy_ooc_real_step whole = {&tw, r2c, f64, ref, 1, 0, ref_out, 1, 0};
  hy_ooc_real_run(&whole, 1);
  char *copy_ref = malloc((size_t)(m + 1) * ce);
  memcpy(copy_ref, ref_out, (size_t)(m + 1) * ce);

  /* R2C: a piece's columns hold their values only once it has landed
   * (poison before), so a pair done too early shows in the bits. */
  if (r2c) memset(got, 0x7f, (size_t)(m + 1) * ce);
  char *got_out = inplace ? got : malloc((size_t)(m + 1) * ce);
  if (!inplace) memset(got_out, 0x7f, (size_t)(m + 1) * ce);
  hy_ooc_real_step step = {&tw, r2c, f64, got, 1, 0, got_out, 1, 0};
  hy_ooc_real_track t;
  CHECK_OK((hyfft_status)hy_ooc_real_track_init(&t, &step, ncols, !r2c));
  int64_t count = (ncols + per - 1) / per;
  if (async) CHECK_OK((hyfft_status)hy_ooc_real_track_start(&t, per, count, order == 2));
  int early = 0;
  for (int64_t k = 0; k < count; k++) {
    int64_t b = piece_order(k, count, order);
    int64_t u0 = b * per, u1 = u0 + per < ncols ? u0 + per : ncols;
    if (!async && hy_ooc_real_track_complete(&t) && k < count - 1 && r2c) early = 1;
    if (r2c)
      for (int64_t r = 0; r < nrows; r++)
        memcpy(got + (size_t)(u0 + ncols * r) * ce, src + (size_t)(u0 + ncols * r) * ce,
               (size_t)(u1 - u0) * ce);
    hy_ooc_real_track_piece(&t, k, u0, u1);
    if (!r2c) {
      /* Every column of the piece about to be read is final. */
      int bad = 0;
      for (int64_t r = 0; r < nrows && !bad; r++)
        for (int64_t c = u0; c < u1 && !bad; c++) {
          int64_t i = c + ncols * r;
          bad = memcmp(got_out + (size_t)i * ce, copy_ref + (size_t)i * ce, ce) != 0;
        }
      CHECK(!bad, "C2R ncols %lld nrows %lld f64 %d: columns [%lld, %lld) not final when read",
            (long long)ncols, (long long)nrows, f64, (long long)u0, (long long)u1);
    }
  }
  hy_ooc_real_track_finish(&t, 0);
  CHECK(!early, "R2C: complete before every piece landed");
  CHECK(hy_ooc_real_track_complete(&t), "%s ncols %lld nrows %lld: not complete after all pieces",
        r2c ? "R2C" : "C2R", (long long)ncols, (long long)nrows);
  size_t bytes = (size_t)(r2c ? m + 1 : m) * ce;
  CHECK(memcmp(got_out, copy_ref, bytes) == 0,
        "%s f%d ncols %lld nrows %lld per %lld order %d %s%s: bits differ from the whole step",
        r2c ? "R2C" : "C2R", f64 ? 64 : 32, (long long)ncols, (long long)nrows, (long long)per,
        order, inplace ? "in place" : "out of place", async ? ", helper thread" : "");
  hy_ooc_real_track_free(&t);
  if (!inplace) free(got_out);
  hy_ooc_real_tables_free(&tw);
  free(src);
  free(ref);
  free(dst);
  free(got);
  free(copy_ref);
}

int main(void) {
  static const int64_t shapes[][2] = {{8, 8}, {16, 6}, {12, 7}, {9, 8}, {7, 5}, {2, 3},
                                      {64, 32}, {33, 10}, {1024, 16}, {6, 1}, {1, 9}, {300, 3}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int f64 = 0; f64 < 2; f64++)
      for (int r2c = 0; r2c < 2; r2c++)
        for (int inplace = 0; inplace < 2; inplace++)
          for (int order = 0; order < 3; order++) {
            int64_t ncols = shapes[s][0];
            int64_t per = ncols >= 4 ? ncols / 4 + (order == 2) : 1;
            one_case(ncols, shapes[s][1], f64, r2c, inplace, per, order, 0);
            /* The helper thread takes C2R's pieces in natural or mirrored
             * order. */
            if (order != 1 || r2c) one_case(ncols, shapes[s][1], f64, r2c, inplace, per, order, 1);
          }
  return hy_test_summary();
}
