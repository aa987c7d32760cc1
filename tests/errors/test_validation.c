/* Bad problems and bad tokens: each invalid field gets its named status and
 * a message naming it; the caller's problem or plan is left untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "errors_common.h"

static const char *const bad_tokens[] = {
    "",
    ":",
    "c2c",
    "c2c:f32",
    "c2c:f32:fwd",
    "c2c:f32:fwd:",
    "c2c:f32:8",
    "c2x:f32:fwd:8",
    "C2C:f32:fwd:8",
    "c2c::fwd:8",
    "c2c:f32:forward:8",
    "c2c:f32:fwd:0",
    "c2c:f32:fwd:-8",
    "c2c:f32:fwd:8x",
    "c2c:f32:fwd:x8",
    "c2c:f32:fwd:8xx8",
    "c2c:f32:fwd:8x0",
    "c2c:f32:fwd:1x2x3x4x5x6x7x8x9",
    "c2c:f32:fwd:99999999999999999999",
    "c2c:f32:fwd:8:",
    "c2c:f32:fwd:8::ip",
    " c2c:f32:fwd:8",
    "c2c:f32:fwd:8 ",
    "c2c:f32:fwd:8\t",
    "c2c:f32:fwd:8\n",
    "c2c:f32:fwd:8:ip:ip",
    "c2c:f32:fwd:8:b4:b4",
    "c2c:f32:fwd:8:b0",
    "c2c:f32:fwd:8:b",
    "c2c:f32:fwd:8:bx",
    "c2c:f32:fwd:8:b4x",
    "c2c:f32:fwd:8:b1x2x3x4x5x6x7x8x9",
    "c2c:f32:fwd:8:foo",
    "c2c:f32:fwd:8:IP",
    "c2c:f32:fwd:8:dev=1",
    "c2c:f32:fwd:8:is=",
    "c2c:f32:fwd:8:is=1,1",
    "c2c:f32:fwd:8x8:is=1",
    "c2c:f32:fwd:8:is=a",
    "c2c:f32:fwd:8:is=1.5",
    "c2c:f32:fwd:8:is=--1",
    "c2c:f32:fwd:8:is=99999999999999999999",
    "c2c:f32:fwd:8:os=1,",
    "c2c:f32:fwd:8:idist=8",
    "c2c:f32:fwd:8:b2x2:odist=8",
    "c2c:f32:fwd:8:b2:idist=8:idist=8",
    "c2c:f32:fwd:8:scale=",
    "c2c:f32:fwd:8:scale=abc",
    "c2c:f32:fwd:8:scale=nan",
    "c2c:f32:fwd:8:scale=inf",
    "c2c:f32:fwd:8:scale=1e999",
    "c2c:f32:fwd:8:scale=1e",
    "c2c:f32:fwd:8:scale=.",
    "c2c:f32:fwd:8:scale=0x10",
    "c2c:f32:fwd:8:scale=1/M",
    "c2c:f32:fwd:8:scale=1/N:scale=2",
    "r2c:f32:bwd:8",
    "c2r:f32:fwd:8",
    "c2c:f32:fwd:8:ip:extra",
    "c2c:f32:fwd:8:fwd",
    "c2c:f32:fwd:bwd:8",
    "c2c:f32:fwd:8\xc3\xa9",
    "c2c:f8:fwd:8",
    "c2c:F16:fwd:8",
    "c2c:bf16x:fwd:8",
};

static void test_bad_tokens(hyfft_context ctx) {
  for (size_t i = 0; i < sizeof bad_tokens / sizeof bad_tokens[0]; i++) {
    hyfft_problem p;
    poison(&p, sizeof p);
    hyfft_status st = hyfft_problem_parse(bad_tokens[i], &p);
    CHECK(st == HYFFT_INVALID_TOKEN, "parse '%s' returned %s (%s)", bad_tokens[i],
          hyfft_status_name(st), hyfft_last_error());
    CHECK(hyfft_last_error()[0] != '\0', "parse '%s' left no message", bad_tokens[i]);
    CHECK(bad_tokens[i][0] == '\0' || strstr(hyfft_last_error(), "position") != NULL,
          "parse '%s': message '%s' gives no position", bad_tokens[i], hyfft_last_error());
    CHECK(is_poisoned(&p, sizeof p), "parse '%s' wrote to the problem", bad_tokens[i]);

    hyfft_plan plan;
    poison(&plan, sizeof plan);
    st = hyfft_plan_token(ctx, bad_tokens[i], HYFFT_ESTIMATE, &plan);
    CHECK(st == HYFFT_INVALID_TOKEN, "plan_token '%s' returned %s", bad_tokens[i],
          hyfft_status_name(st));
    CHECK(is_poisoned(&plan, sizeof plan), "plan_token '%s' wrote the plan", bad_tokens[i]);
  }
  hyfft_problem p;
  poison(&p, sizeof p);
  EXPECT_FAIL(hyfft_problem_parse(NULL, &p), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_problem_parse("c2c:f32:fwd:8", NULL), HYFFT_NULL_POINTER);
  CHECK(is_poisoned(&p, sizeof p), "parse(NULL) wrote the problem");
}

/* A problem that must be rejected by hyfft_plan_create. */
static void expect_bad_problem(hyfft_context ctx, const hyfft_problem *p, hyfft_status want,
                               const char *part, const char *what) {
  hyfft_plan plan;
  poison(&plan, sizeof plan);
  hyfft_status st = hyfft_plan_create(ctx, p, HYFFT_ESTIMATE, &plan);
  CHECK(st == want, "%s: plan_create returned %s (%s), expected %s", what, hyfft_status_name(st),
        hyfft_last_error(), hyfft_status_name(want));
  CHECK(hyfft_last_error()[0] != '\0', "%s: no detail message", what);
  CHECK(part == NULL || strstr(hyfft_last_error(), part) != NULL,
        "%s: detail '%s' does not mention '%s'", what, hyfft_last_error(), part);
  CHECK(is_poisoned(&plan, sizeof plan), "%s: the plan handle was written", what);
  if (st == HYFFT_SUCCESS) hyfft_plan_destroy(plan);
}

static hyfft_problem base(const char *token) {
  hyfft_problem p;
  memset(&p, 0, sizeof p);
  if (hyfft_problem_parse(token, &p) != HYFFT_SUCCESS) {
    hy_test_fail("base token '%s' does not parse: %s", token, hyfft_last_error());
  }
  return p;
}

static void test_bad_problems(hyfft_context ctx) {
  hyfft_problem p;
#define BAD(token, stmt, want, part)                                           \
  do {                                                                         \
    p = base(token);                                                           \
    stmt;                                                                      \
    expect_bad_problem(ctx, &p, want, part, token " with " #stmt);             \
  } while (0)
  BAD("c2c:f32:fwd:8", p.kind = (hyfft_kind)7, HYFFT_INVALID_KIND, "kind");
  BAD("c2c:f32:fwd:8", p.kind = (hyfft_kind)-1, HYFFT_INVALID_KIND, "kind");
  BAD("c2c:f32:fwd:8", p.precision = (hyfft_precision)4, HYFFT_INVALID_PRECISION, "precision");
  /* Half-precision storage serves C2C, R2C and C2R: R2R is refused by
   * name (and the plan handle is left alone). */
  BAD("r2r:f16:dct2:8", (void)0, HYFFT_NOT_SUPPORTED, "R2R");
  BAD("r2r:bf16:dct1xdht:8x6", (void)0, HYFFT_NOT_SUPPORTED, "R2R");
  BAD("c2c:f32:fwd:8", p.sign = 0, HYFFT_INVALID_SIGN, "sign");
  BAD("c2c:f32:fwd:8", p.sign = 2, HYFFT_INVALID_SIGN, "sign");
  BAD("r2c:f32:8", p.sign = HYFFT_BACKWARD, HYFFT_INVALID_SIGN, "R2C");
  BAD("c2r:f32:8", p.sign = HYFFT_FORWARD, HYFFT_INVALID_SIGN, "C2R");
  BAD("c2c:f32:fwd:8", p.rank = 0, HYFFT_INVALID_RANK, "rank");
  BAD("c2c:f32:fwd:8", p.rank = -1, HYFFT_INVALID_RANK, "rank");
  BAD("c2c:f32:fwd:8", p.rank = HYFFT_MAX_RANK + 1, HYFFT_INVALID_RANK, "rank");
  BAD("c2c:f32:fwd:8", p.batch_rank = -1, HYFFT_INVALID_RANK, "batch_rank");
  BAD("c2c:f32:fwd:8", p.batch_rank = HYFFT_MAX_BATCH_RANK + 1, HYFFT_INVALID_RANK, "batch_rank");
  BAD("c2c:f32:fwd:8x8", p.dims[1].n = 0, HYFFT_INVALID_SIZE, "dims[1].n");
  BAD("c2c:f32:fwd:8x8", p.dims[0].n = -5, HYFFT_INVALID_SIZE, "dims[0].n");
  BAD("c2c:f32:fwd:8:b4", p.batch[0].n = 0, HYFFT_INVALID_SIZE, "batch[0].n");
  BAD("c2c:f32:fwd:8:b4x2", p.batch[1].n = -1, HYFFT_INVALID_SIZE, "batch[1].n");
  BAD("c2c:f32:fwd:8", p.dims[0].in_stride = 0, HYFFT_INVALID_STRIDE, "dims[0].in_stride");
  BAD("c2c:f32:fwd:8x4", p.dims[1].out_stride = -3, HYFFT_INVALID_STRIDE, "dims[1].out_stride");
  BAD("c2c:f32:fwd:8:b4", p.batch[0].in_stride = 0, HYFFT_INVALID_STRIDE, "batch[0].in_stride");
  BAD("c2c:f32:fwd:8:b4", p.batch[0].out_stride = -8, HYFFT_INVALID_STRIDE,
      "batch[0].out_stride");
  /* Overflow: extents, byte sizes, totals. */
  BAD("c2c:f32:fwd:8", (p.dims[0].n = INT64_C(1) << 62, p.dims[0].in_stride = 4),
      HYFFT_SIZE_OVERFLOW, "dims[0]");
  BAD("c2c:f64:fwd:8", p.dims[0].n = INT64_C(1) << 60, HYFFT_SIZE_OVERFLOW, "bytes");
  BAD("c2c:f32:fwd:8:b2", (p.batch[0].n = INT64_C(1) << 62, p.batch[0].out_stride = 8),
      HYFFT_SIZE_OVERFLOW, "batch[0]");
  BAD("c2c:f32:fwd:8x8", (p.dims[0].n = INT64_C(3037000500), p.dims[1].n = INT64_C(3037000500),
                          p.dims[0].in_stride = p.dims[0].out_stride = INT64_C(3037000500)),
      HYFFT_SIZE_OVERFLOW, NULL);
  BAD("c2c:f32:fwd:9223372036854775807", (void)0, HYFFT_SIZE_OVERFLOW, NULL);
  /* Overlapping outputs (inputs may overlap). */
  BAD("c2c:f32:fwd:8:b4", p.batch[0].out_stride = 4, HYFFT_INVALID_STRIDE, "overlap");
  BAD("c2c:f32:fwd:4x4", p.dims[0].out_stride = 1, HYFFT_INVALID_STRIDE, "overlap");
  BAD("c2c:f32:fwd:4x4:b3", (p.dims[1].out_stride = 3, p.dims[0].out_stride = 12,
                             p.batch[0].out_stride = 40),
      HYFFT_INVALID_STRIDE, "overlap");
  BAD("r2c:f32:8:b2", p.batch[0].out_stride = 4, HYFFT_INVALID_STRIDE, "overlap");
  BAD("c2r:f32:8:b2", p.batch[0].out_stride = 7, HYFFT_INVALID_STRIDE, "overlap");
  /* In-place layouts. */
  BAD("c2c:f32:fwd:8:ip", p.dims[0].out_stride = 2, HYFFT_INPLACE_LAYOUT, "dims[0]");
  BAD("c2c:f32:fwd:8:b3:ip", p.batch[0].in_stride = 9, HYFFT_INPLACE_LAYOUT, "batch[0]");
  BAD("r2c:f32:8:ip", (p.dims[0].in_stride = 2, p.dims[0].out_stride = 2), HYFFT_INPLACE_LAYOUT,
      "dims[0]");
  BAD("r2c:f32:8x8:ip", p.dims[0].in_stride = 8, HYFFT_INPLACE_LAYOUT, "dims[0]");
  BAD("c2r:f32:8x8:b2:ip", p.batch[0].out_stride = 81, HYFFT_INPLACE_LAYOUT, "batch[0]");
  /* Scalars. */
  BAD("c2c:f32:fwd:8", p.scale = NAN, HYFFT_INVALID_ARGUMENT, "scale");
  BAD("c2c:f32:fwd:8", p.scale = INFINITY, HYFFT_INVALID_ARGUMENT, "scale");
  BAD("c2c:f32:fwd:8", p.scale = -INFINITY, HYFFT_INVALID_ARGUMENT, "scale");
  BAD("c2c:f32:fwd:8", p.memory = (hyfft_memory)5, HYFFT_INVALID_ARGUMENT, "memory");
  BAD("c2c:f32:fwd:8", p.inplace = 2, HYFFT_INVALID_ARGUMENT, "inplace");
#undef BAD

  /* Real transforms plan on the CPU (other backends: test_opencl_backend.c). */
  {
    static const char *const real_tokens[] = {"r2c:f32:8", "c2r:f64:8x8:b2:ip", "r2c:f64:7x1",
                                               "c2r:f32:1:b3"};
    for (size_t i = 0; i < sizeof real_tokens / sizeof *real_tokens; i++) {
      hyfft_plan rplan;
      p = base(real_tokens[i]);
      hyfft_status st = hyfft_plan_create(ctx, &p, HYFFT_ESTIMATE, &rplan);
      CHECK(st == HYFFT_SUCCESS, "%s: plan_create returned %s (%s)", real_tokens[i],
            hyfft_status_name(st), hyfft_last_error());
      if (st == HYFFT_SUCCESS) CHECK_OK(hyfft_plan_destroy(rplan));
    }
  }

  /* A dim of length 1 may carry any stride. */
  p = base("c2c:f32:fwd:1x8:b1");
  p.dims[0].in_stride = 0;
  p.dims[0].out_stride = -7;
  p.batch[0].in_stride = 0;
  hyfft_plan plan;
  CHECK_OK(hyfft_plan_create(ctx, &p, HYFFT_ESTIMATE, &plan));
  CHECK_OK(hyfft_plan_destroy(plan));

  /* Bad arguments around the problem. */
  p = base("c2c:f32:fwd:8");
  poison(&plan, sizeof plan);
  EXPECT_FAIL(hyfft_plan_create(ctx, NULL, HYFFT_ESTIMATE, &plan), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_create(NULL, &p, HYFFT_ESTIMATE, &plan), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_create(ctx, &p, HYFFT_ESTIMATE, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL_NAMING(hyfft_plan_create(ctx, &p, 0x80u, &plan), HYFFT_INVALID_ARGUMENT, "flags");
  EXPECT_FAIL(hyfft_plan_token(ctx, NULL, HYFFT_ESTIMATE, &plan), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_token(ctx, "c2c:f32:fwd:8", HYFFT_ESTIMATE, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_token(NULL, "c2c:f32:fwd:8", HYFFT_ESTIMATE, &plan), HYFFT_NULL_POINTER);
  CHECK(is_poisoned(&plan, sizeof plan), "a failed plan call wrote the plan handle");
}

/* hyfft_problem_init and the convenience planners. */
static void test_shape_calls(hyfft_context ctx) {
  hyfft_problem p;
  int64_t n2[2] = {8, 8}, nz[2] = {8, 0}, nneg[1] = {-4};
  int64_t nbig[2] = {INT64_C(1) << 62, 4};
  poison(&p, sizeof p);
  EXPECT_FAIL(hyfft_problem_init(NULL, HYFFT_C2C, HYFFT_F32, -1, 2, n2), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, -1, 2, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, -1, 0, n2), HYFFT_INVALID_RANK);
  EXPECT_FAIL(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, -1, 9, n2), HYFFT_INVALID_RANK);
  EXPECT_FAIL_NAMING(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, -1, 2, nz), HYFFT_INVALID_SIZE,
                     "n[1]");
  EXPECT_FAIL(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, -1, 1, nneg), HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, -1, 2, nbig), HYFFT_SIZE_OVERFLOW);
  EXPECT_FAIL(hyfft_problem_init(&p, (hyfft_kind)3, HYFFT_F32, -1, 2, n2), HYFFT_INVALID_KIND);
  EXPECT_FAIL(hyfft_problem_init(&p, HYFFT_C2C, (hyfft_precision)9, -1, 2, n2),
              HYFFT_INVALID_PRECISION);
  EXPECT_FAIL(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F32, 0, 2, n2), HYFFT_INVALID_SIGN);
  CHECK(is_poisoned(&p, sizeof p), "a failed hyfft_problem_init wrote the problem");

  hyfft_plan plan;
  poison(&plan, sizeof plan);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 0, HYFFT_C2C, HYFFT_F32, -1, 1, &plan), HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_plan_1d(ctx, -8, HYFFT_C2C, HYFFT_F32, -1, 1, &plan), HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 8, HYFFT_C2C, HYFFT_F32, -1, 0, &plan), HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 8, HYFFT_C2C, HYFFT_F32, -1, -3, &plan), HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_plan_1d(ctx, INT64_C(1) << 40, HYFFT_C2C, HYFFT_F32, -1, INT64_C(1) << 40,
                            &plan),
              HYFFT_SIZE_OVERFLOW);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 8, (hyfft_kind)5, HYFFT_F32, -1, 1, &plan), HYFFT_INVALID_KIND);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 8, HYFFT_C2C, HYFFT_F32, 3, 1, &plan), HYFFT_INVALID_SIGN);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 8, HYFFT_R2C, HYFFT_F32, 1, 1, &plan), HYFFT_INVALID_SIGN);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 8, HYFFT_C2C, HYFFT_F32, -1, 1, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_1d(NULL, 8, HYFFT_C2C, HYFFT_F32, -1, 1, &plan), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_2d(ctx, 8, 0, HYFFT_C2C, HYFFT_F32, -1, &plan), HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_plan_2d(ctx, INT64_C(1) << 40, INT64_C(1) << 40, HYFFT_C2C, HYFFT_F32, -1,
                            &plan),
              HYFFT_SIZE_OVERFLOW);
  EXPECT_FAIL(hyfft_plan_3d(ctx, 8, 8, -1, HYFFT_C2C, HYFFT_F32, -1, &plan), HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_plan_3d(ctx, 8, 8, 8, HYFFT_C2C, (hyfft_precision)-1, -1, &plan),
              HYFFT_INVALID_PRECISION);

  int64_t n[2] = {8, 8}, emb_small[2] = {8, 4}, n0[1] = {0};
  EXPECT_FAIL(hyfft_plan_many(ctx, 0, n, 1, NULL, 1, 64, NULL, 1, 64, HYFFT_C2C, HYFFT_F32, -1,
                              &plan),
              HYFFT_INVALID_RANK);
  EXPECT_FAIL(hyfft_plan_many(ctx, 9, n, 1, NULL, 1, 64, NULL, 1, 64, HYFFT_C2C, HYFFT_F32, -1,
                              &plan),
              HYFFT_INVALID_RANK);
  EXPECT_FAIL(hyfft_plan_many(ctx, 2, NULL, 1, NULL, 1, 64, NULL, 1, 64, HYFFT_C2C, HYFFT_F32, -1,
                              &plan),
              HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_many(ctx, 1, n0, 1, NULL, 1, 64, NULL, 1, 64, HYFFT_C2C, HYFFT_F32, -1,
                              &plan),
              HYFFT_INVALID_SIZE);
  EXPECT_FAIL(hyfft_plan_many(ctx, 2, n, 0, NULL, 1, 64, NULL, 1, 64, HYFFT_C2C, HYFFT_F32, -1,
                              &plan),
              HYFFT_INVALID_SIZE);
  EXPECT_FAIL_NAMING(hyfft_plan_many(ctx, 2, n, 2, emb_small, 1, 64, NULL, 1, 64, HYFFT_C2C,
                                     HYFFT_F32, -1, &plan),
                     HYFFT_INVALID_STRIDE, "inembed[1]");
  EXPECT_FAIL_NAMING(hyfft_plan_many(ctx, 2, n, 2, NULL, 1, 64, emb_small, 1, 64, HYFFT_C2C,
                                     HYFFT_F32, -1, &plan),
                     HYFFT_INVALID_STRIDE, "onembed[1]");
  EXPECT_FAIL(hyfft_plan_many(ctx, 2, n, 2, NULL, 0, 64, NULL, 1, 64, HYFFT_C2C, HYFFT_F32, -1,
                              &plan),
              HYFFT_INVALID_STRIDE);
  EXPECT_FAIL_NAMING(hyfft_plan_many(ctx, 2, n, 2, NULL, 1, 64, NULL, 1, 32, HYFFT_C2C, HYFFT_F32,
                                     -1, &plan),
                     HYFFT_INVALID_STRIDE, "overlap");
  EXPECT_FAIL(hyfft_plan_many(ctx, 2, n, 2, NULL, 1, 64, NULL, 1, 64, HYFFT_C2C, HYFFT_F32, -1,
                              NULL),
              HYFFT_NULL_POINTER);
  CHECK(is_poisoned(&plan, sizeof plan), "a failed convenience planner wrote the plan handle");
}

int main(void) {
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create("cpu", &ctx);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("cannot open the cpu device: %s %s", hyfft_status_name(st), hyfft_last_error());
    return hy_test_summary();
  }
  test_bad_tokens(ctx);
  test_bad_problems(ctx);
  test_shape_calls(ctx);
  CHECK_OK(hyfft_context_destroy(ctx));
  return hy_test_summary();
}
