/* hyfft_destroy_input: the planner flag HYFFT_DESTROY_INPUT.
 *
 * For each problem, a plan with the flag and one without run on the same
 * random input: the outputs must agree bit for bit (the same passes run,
 * only the buffers differ), the plan without the flag must leave its input
 * unchanged, and where the flag lets the plan drop its workspace
 * (multi-dimensional out-of-place C2R: the other axes run in place on the
 * input) its workspace must be smaller. Unknown flags stay refused.
 *
 *   hyfft_destroy_input [DEVICE]   (default "cpu") */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct destroy_case {
  const char *token;
  int drops_workspace; /* 1: the flagged plan needs less workspace */
} destroy_case;

static int64_t elems(const hyfft_problem *p, int out) {
  /* Default layouts only: rows of the last dim, batches back to back. */
  int64_t count = 1;
  for (int d = 0; d < p->rank; d++) {
    int64_t n = p->dims[d].n;
    int complex_side = p->kind == HYFFT_C2C || (p->kind == HYFFT_R2C ? out : !out);
    if (d == p->rank - 1 && p->kind != HYFFT_C2C && complex_side) n = n / 2 + 1;
    count *= n;
  }
  for (int b = 0; b < p->batch_rank; b++) count *= p->batch[b].n;
  return count;
}

static size_t elem_bytes(const hyfft_problem *p, int out) {
  size_t real = p->precision == HYFFT_F64 ? 8 : 4;
  int complex_side = p->kind == HYFFT_C2C || (p->kind == HYFFT_R2C ? out : !out);
  return complex_side ? 2 * real : real;
}

static void run_case(hyfft_context ctx, const destroy_case *dc, unsigned seed) {
  hyfft_problem p;
  CHECK_OK(hyfft_problem_parse(dc->token, &p));
  size_t in_bytes = (size_t)elems(&p, 0) * elem_bytes(&p, 0);
  size_t out_bytes = (size_t)elems(&p, 1) * elem_bytes(&p, 1);
  unsigned char *in = malloc(in_bytes), *saved = malloc(in_bytes);
  unsigned char *out_keep = malloc(out_bytes), *out_destroy = malloc(out_bytes);
  hyfft_plan keep = NULL, destroy = NULL;
  if (!in || !saved || !out_keep || !out_destroy) {
    hy_test_fail("%s: out of memory", dc->token);
    goto done;
  }
  srand(seed);
  if (p.precision == HYFFT_F64) {
    double *v = (double *)(void *)in;
    for (size_t i = 0; i < in_bytes / 8; i++) v[i] = (double)rand() / RAND_MAX - 0.5;
  } else {
    float *v = (float *)(void *)in;
    for (size_t i = 0; i < in_bytes / 4; i++) v[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  }
  memcpy(saved, in, in_bytes);
  memset(out_keep, 0xA5, out_bytes);
  memset(out_destroy, 0x5A, out_bytes);
  CHECK_OK(hyfft_plan_create(ctx, &p, 0, &keep));
  CHECK_OK(hyfft_plan_create(ctx, &p, HYFFT_DESTROY_INPUT, &destroy));
  if (!keep || !destroy) goto done;
  size_t w_keep = 0, w_destroy = 0;
  CHECK_OK(hyfft_plan_workspace_size(keep, &w_keep));
  CHECK_OK(hyfft_plan_workspace_size(destroy, &w_destroy));
  CHECK(dc->drops_workspace ? w_destroy < w_keep : w_destroy == w_keep,
        "%s: workspace %zu bytes with HYFFT_DESTROY_INPUT, %zu without", dc->token, w_destroy,
        w_keep);
  CHECK_OK(hyfft_execute(keep, in, out_keep));
  CHECK(memcmp(in, saved, in_bytes) == 0, "%s: the plan without HYFFT_DESTROY_INPUT changed "
        "its input", dc->token);
  CHECK_OK(hyfft_execute(destroy, in, out_destroy));
  CHECK(memcmp(out_keep, out_destroy, out_bytes) == 0,
        "%s: the outputs with and without HYFFT_DESTROY_INPUT differ", dc->token);
done:
  if (keep) hyfft_plan_destroy(keep);
  if (destroy) hyfft_plan_destroy(destroy);
  free(in);
  free(saved);
  free(out_keep);
  free(out_destroy);
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "cpu";
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create(device, &ctx);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("context %s: %s (%s)", device, hyfft_status_name(st), hyfft_last_error());
    return hy_test_summary();
  }
  static const destroy_case cases[] = {
      {"c2r:f32:12x10:b2", 1},     {"c2r:f64:8x6x10", 1},  {"c2r:f32:64x48:b3", 1},
      {"c2r:f32:17x9", 1},         {"c2r:f32:1000:b3", 0}, {"r2c:f32:12x10:b2", 0},
      {"c2c:f32:bwd:16x12:b2", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(ctx, &cases[i], 1234u + (unsigned)i);
  /* Flags beyond the known ones are refused, nothing planned. */
  hyfft_plan plan = (hyfft_plan)(uintptr_t)0x1;
  hyfft_problem p;
  CHECK_OK(hyfft_problem_parse("c2r:f32:8x8", &p));
  CHECK_STATUS(hyfft_plan_create(ctx, &p, 1u << 7, &plan), HYFFT_INVALID_ARGUMENT);
  CHECK(plan == (hyfft_plan)(uintptr_t)0x1, "a refused plan_create wrote its plan handle");
  hyfft_context_destroy(ctx);
  return hy_test_summary();
}
