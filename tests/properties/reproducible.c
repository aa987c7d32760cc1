/* hyfft_reproducible: the same plan gives bitwise-identical results run
 * after run, and planning with HYFFT_ESTIMATE is deterministic (two plans
 * of one problem describe the same tree and compute the same bits).
 *
 *   hyfft_reproducible [DEVICE]   (default "cpu") */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static size_t bytes_of(hyfft_plan plan, int out) {
  hyfft_problem p;
  if (hyfft_plan_problem(plan, &p) != HYFFT_SUCCESS) return 0;
  /* Default layouts only: count the elements of each side. */
  size_t count = 1;
  for (int d = 0; d < p.rank; d++) {
    size_t n = (size_t)p.dims[d].n;
    int cplx = p.kind == HYFFT_C2C || (p.kind == HYFFT_R2C ? out : !out);
    if (d == p.rank - 1 && p.kind != HYFFT_C2C && cplx) n = n / 2 + 1;
    count *= n;
  }
  for (int b = 0; b < p.batch_rank; b++) count *= (size_t)p.batch[b].n;
  size_t real = p.precision == HYFFT_F64 ? 8 : 4;
  int cplx = p.kind == HYFFT_C2C || (p.kind == HYFFT_R2C ? out : !out);
  return count * (cplx ? 2 * real : real);
}

static char *describe(hyfft_plan plan) {
  size_t need = 0;
  hyfft_plan_describe(plan, NULL, 0, &need);
  char *s = malloc(need + 1);
  if (s && hyfft_plan_describe(plan, s, need + 1, NULL) != HYFFT_SUCCESS) s[0] = 0;
  /* The planning time differs between plans: cut the text there. */
  char *t = s ? strstr(s, "plan created") : NULL;
  if (t) *t = 0;
  return s;
}

static void run_case(hyfft_context ctx, const char *token) {
  hyfft_plan a = NULL, b = NULL;
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_ESTIMATE, &a));
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_ESTIMATE, &b));
  if (!a || !b) goto done;
  char *da = describe(a), *db = describe(b);
  CHECK(da && db && strcmp(da, db) == 0, "%s: two ESTIMATE plans differ:\n%s\n---\n%s", token,
        da ? da : "", db ? db : "");
  free(da);
  free(db);
  size_t in_bytes = bytes_of(a, 0), out_bytes = bytes_of(a, 1);
  unsigned char *in = malloc(in_bytes), *o1 = malloc(out_bytes), *o2 = malloc(out_bytes),
                *o3 = malloc(out_bytes);
  if (!in || !o1 || !o2 || !o3) {
    hy_test_fail("%s: out of memory", token);
  } else {
    srand(77);
    int f64 = strstr(token, ":f64:") != NULL;
    for (size_t i = 0; i < in_bytes / (f64 ? 8 : 4); i++) {
      double v = (double)rand() / RAND_MAX - 0.5;
      if (f64) ((double *)(void *)in)[i] = v;
      else ((float *)(void *)in)[i] = (float)v;
    }
    CHECK_OK(hyfft_execute(a, in, o1));
    CHECK_OK(hyfft_execute(a, in, o2));
    CHECK_OK(hyfft_execute(b, in, o3));
    CHECK(memcmp(o1, o2, out_bytes) == 0, "%s: two runs of one plan differ", token);
    CHECK(memcmp(o1, o3, out_bytes) == 0, "%s: two plans of one problem differ", token);
  }
  free(in);
  free(o1);
  free(o2);
  free(o3);
done:
  if (a) hyfft_plan_destroy(a);
  if (b) hyfft_plan_destroy(b);
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "cpu";
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create(device, &ctx);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("context %s: %s (%s)", device, hyfft_status_name(st), hyfft_last_error());
    return hy_test_summary();
  }
  static const char *const tokens[] = {
      "c2c:f32:fwd:1024:b64", "c2c:f64:bwd:1000:b8", "c2c:f32:fwd:1009:b4",
      "c2c:f32:fwd:65536:b2", "c2c:f32:bwd:96x80:b3", "c2c:f64:fwd:16x12x10",
      "r2c:f32:1000:b16",     "c2r:f64:64x48:b2",    "r2c:f32:1001:b3"};
  for (size_t i = 0; i < sizeof tokens / sizeof *tokens; i++) run_case(ctx, tokens[i]);
  hyfft_context_destroy(ctx);
  return hy_test_summary();
}
