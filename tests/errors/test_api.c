/* Bad handles, pointers and buffers at every public entry point that is
 * not about the problem itself: status names, contexts and devices,
 * buffers, plan queries, execution (aliasing, in-place rules) and wisdom.
 * Outputs are poisoned beforehand and must come back unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "errors_common.h"
#include "util/settings.h"

static void test_status_table(void) {
  CHECK(strcmp(hyfft_status_name(HYFFT_INVALID_SIZE), "HYFFT_INVALID_SIZE") == 0, "name");
  CHECK(strcmp(hyfft_status_name((hyfft_status)-1), "HYFFT_UNKNOWN_STATUS") == 0, "name(-1)");
  CHECK(strcmp(hyfft_status_name(HYFFT_STATUS_COUNT_), "HYFFT_UNKNOWN_STATUS") == 0,
        "name(count)");
  CHECK(hyfft_strerror((hyfft_status)12345) != NULL && hyfft_strerror((hyfft_status)12345)[0],
        "strerror of an unknown status");
  CHECK(hyfft_last_error() != NULL, "last_error is never NULL");
  CHECK(hyfft_version_string() != NULL && hyfft_version_string()[0], "version string");

  /* Printing never crashes, whatever the problem holds; an invalid one
   * prints as a token that does not parse. */
  hyfft_problem garbage;
  poison(&garbage, sizeof garbage);
  char buf[4096];
  size_t needed = 0;
  CHECK_OK(hyfft_problem_print(&garbage, buf, sizeof buf, &needed));
  hyfft_problem back;
  CHECK_STATUS(hyfft_problem_parse(buf, &back), HYFFT_INVALID_TOKEN);
  char small[4];
  poison(small, sizeof small);
  CHECK_OK(hyfft_problem_parse("c2c:f32:fwd:8", &back));
  EXPECT_FAIL(hyfft_problem_print(&back, small, sizeof small, NULL), HYFFT_BUFFER_TOO_SMALL);
  EXPECT_FAIL(hyfft_problem_print(&back, NULL, 0, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_problem_print(NULL, small, sizeof small, NULL), HYFFT_NULL_POINTER);
  CHECK(is_poisoned(small, sizeof small), "a failed problem_print wrote the buffer");
  garbage.rank = HYFFT_MAX_RANK + 100;
  garbage.batch_rank = HYFFT_MAX_BATCH_RANK + 100;
  CHECK_OK(hyfft_problem_print(&garbage, buf, sizeof buf, &needed));
}

/* Environment values outside their documented sets are an error at
 * context creation, naming the variable; an unusable cache directory is a
 * warning (the context works, without its disk cache). */
static void test_environment(void) {
  static const struct {
    const char *name, *value;
  } bad[] = {{"HYFFT_NUM_THREADS", "abc"},      {"HYFFT_NUM_THREADS", "0"},
             {"HYFFT_NUM_THREADS", "-1"},       {"HYFFT_NUM_THREADS", "100000"},
             {"HYFFT_NUM_THREADS", "2x"},       {"HYFFT_MEASURE_BUDGET", "soon"},
             {"HYFFT_MEASURE_BUDGET", "-3"},    {"HYFFT_STAGING", "fast"},
             {"HYFFT_RADER", "yes"},            {"HYFFT_PLANES", "2"},
             {"HYFFT_FOUR_STEP_PASSES", "4"},   {"HYFFT_L2_CHUNK", "16MB"},
             {"HYFFT_OPENCL_MAX_PASS", "1"},    {"HYFFT_DEVICE_MEMORY_LIMIT", "lots"},
             {"HYFFT_CPU_SHORT", "off"},        {"HYFFT_OOC_BLOCK_ROW", "wide"},
             {"HYFFT_OOC_BLOCK_ROW", "0"},      {"HYFFT_CPU_ROWS", "yes"},
             {"HYFFT_CPU_DIRECT_MAX", "1"},     {"HYFFT_CPU_DIRECT_MAX", "16K"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv(bad[i].name, bad[i].value, 1);
    hy_settings_reload();
    hyfft_context ctx;
    poison(&ctx, sizeof ctx);
    EXPECT_FAIL_NAMING(hyfft_context_create("cpu", &ctx), HYFFT_INVALID_ARGUMENT, bad[i].name);
    CHECK(is_poisoned(&ctx, sizeof ctx), "a refused context_create wrote the handle");
    unsetenv(bad[i].name);
  }
  setenv("HYFFT_NUM_THREADS", "3", 1);
  hy_settings_reload();
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  CHECK_OK(hyfft_context_destroy(ctx));
  unsetenv("HYFFT_NUM_THREADS");
  setenv("HYFFT_CACHE_DIR", "/dev/null/sub", 1);
  hy_settings_reload();
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  CHECK(strstr(hyfft_last_error(), "HYFFT_CACHE_DIR") != NULL &&
            strstr(hyfft_last_error(), "/dev/null/sub") != NULL,
        "no warning for an unusable cache directory: '%s'", hyfft_last_error());
  CHECK_OK(hyfft_context_destroy(ctx));
  unsetenv("HYFFT_CACHE_DIR");
  hy_settings_reload();
}

static void test_contexts(void) {
  hyfft_context ctx;
  poison(&ctx, sizeof ctx);
  EXPECT_FAIL(hyfft_context_create("cpu", NULL), HYFFT_NULL_POINTER);
  const char *const bad_specs[] = {"gpu", "cuda:x", "cuda:", "cuda:-1", "cpu:1", "cpu:",
                                   "opencl:1", "opencl:0:", "opencl:a:b", "opencl:9:9:9",
                                   "", "CPU", " cpu", "auto:0"};
  for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
    hyfft_status st = hyfft_context_create(bad_specs[i], &ctx);
    CHECK(st == HYFFT_INVALID_DEVICE, "context_create('%s') returned %s (%s)", bad_specs[i],
          hyfft_status_name(st), hyfft_last_error());
    CHECK(hyfft_last_error()[0] != '\0', "context_create('%s') left no message", bad_specs[i]);
  }
  /* Well-formed specs naming a device that is not there: INVALID_DEVICE
   * when the backend has devices, BACKEND_UNAVAILABLE when it has none. */
  const char *const absent[] = {"opencl:9:9", "cuda:9"};
  for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
    hyfft_status st = hyfft_context_create(absent[i], &ctx);
    CHECK(st == HYFFT_INVALID_DEVICE || st == HYFFT_BACKEND_UNAVAILABLE,
          "context_create('%s') returned %s (%s)", absent[i], hyfft_status_name(st),
          hyfft_last_error());
    CHECK(hyfft_last_error()[0] != '\0', "context_create('%s') left no message", absent[i]);
  }
  CHECK(is_poisoned(&ctx, sizeof ctx), "a failed context_create wrote the handle");

  EXPECT_FAIL(hyfft_context_destroy(NULL), HYFFT_NULL_POINTER);
  int not_a_context = 0;
  EXPECT_FAIL(hyfft_context_destroy((hyfft_context)(void *)&not_a_context), HYFFT_INVALID_HANDLE);

  CHECK_OK(hyfft_context_create("cpu", &ctx));
  hyfft_device_info info;
  poison(&info, sizeof info);
  EXPECT_FAIL(hyfft_context_device(NULL, &info), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_context_device(ctx, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_context_device((hyfft_context)(void *)&not_a_context, &info),
              HYFFT_INVALID_HANDLE);
  CHECK(is_poisoned(&info, sizeof info), "a failed context_device wrote the info");
  EXPECT_FAIL(hyfft_context_synchronize(NULL), HYFFT_NULL_POINTER);
  CHECK_OK(hyfft_context_synchronize(ctx));
  size_t ctx_work = 777;
  EXPECT_FAIL(hyfft_context_workspace_bytes(NULL, &ctx_work), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_context_workspace_bytes(ctx, NULL), HYFFT_NULL_POINTER);
  CHECK(ctx_work == 777, "a failed context_workspace_bytes wrote the size");
  CHECK_OK(hyfft_context_workspace_bytes(ctx, &ctx_work));
  CHECK_OK(hyfft_context_destroy(ctx));
  /* The handle is dead now. */
  EXPECT_FAIL(hyfft_context_destroy(ctx), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_context_device(ctx, &info), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_context_synchronize(ctx), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_context_workspace_bytes(ctx, &ctx_work), HYFFT_INVALID_HANDLE);
  hyfft_plan plan;
  poison(&plan, sizeof plan);
  EXPECT_FAIL(hyfft_plan_token(ctx, "c2c:f32:fwd:8", HYFFT_ESTIMATE, &plan), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_plan_1d(ctx, 8, HYFFT_C2C, HYFFT_F32, -1, 1, &plan), HYFFT_INVALID_HANDLE);
  CHECK(is_poisoned(&plan, sizeof plan), "planning on a dead context wrote the plan handle");
  CHECK(is_poisoned(&info, sizeof info), "a failed context_device wrote the info");

  /* Devices. */
  int count = -1;
  CHECK_OK(hyfft_device_get(0, NULL, &count));
  CHECK(count >= 1, "at least the cpu device, got %d", count);
  EXPECT_FAIL(hyfft_device_get(0, NULL, NULL), HYFFT_NULL_POINTER);
  int count2 = -7;
  EXPECT_FAIL(hyfft_device_get(-1, &info, &count2), HYFFT_INVALID_ARGUMENT);
  EXPECT_FAIL(hyfft_device_get(count, &info, &count2), HYFFT_INVALID_ARGUMENT);
  EXPECT_FAIL(hyfft_device_get(1 << 30, &info, NULL), HYFFT_INVALID_ARGUMENT);
  CHECK(count2 == -7, "a failed device_get wrote the count");
  CHECK(is_poisoned(&info, sizeof info), "a failed device_get wrote the info");
}

static void test_buffers(hyfft_context ctx) {
  void *buf;
  int not_a_context = 0;
  hyfft_context dead;
  CHECK_OK(hyfft_context_create("cpu", &dead));
  CHECK_OK(hyfft_context_destroy(dead));
  poison(&buf, sizeof buf);
  EXPECT_FAIL(hyfft_buffer_alloc(NULL, 64, &buf), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_alloc(dead, 64, &buf), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_buffer_alloc((hyfft_context)(void *)&not_a_context, 64, &buf),
              HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_buffer_alloc(ctx, 64, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_alloc(ctx, 0, &buf), HYFFT_INVALID_ARGUMENT);
  EXPECT_FAIL(hyfft_buffer_alloc(ctx, SIZE_MAX, &buf), HYFFT_OUT_OF_MEMORY);
  CHECK(is_poisoned(&buf, sizeof buf), "a failed buffer_alloc wrote the pointer");

  CHECK_OK(hyfft_buffer_alloc(ctx, 64, &buf));
  unsigned char host[64];
  poison(host, sizeof host);
  EXPECT_FAIL(hyfft_buffer_write(NULL, buf, 0, host, 64), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_write(dead, buf, 0, host, 64), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_buffer_write(ctx, NULL, 0, host, 64), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_write(ctx, buf, 0, NULL, 64), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_read(NULL, buf, 0, host, 64), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_read(dead, buf, 0, host, 64), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_buffer_read(ctx, NULL, 0, host, 64), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_read(ctx, buf, 0, NULL, 64), HYFFT_NULL_POINTER);
  CHECK(is_poisoned(host, sizeof host), "a failed buffer_read wrote the host memory");
  /* Bounds: the library knows the buffer's size. */
  EXPECT_FAIL(hyfft_buffer_write(ctx, buf, 32, host, 64), HYFFT_INVALID_ARGUMENT);
  EXPECT_FAIL(hyfft_buffer_write(ctx, buf, 65, host, 0), HYFFT_INVALID_ARGUMENT);
  EXPECT_FAIL(hyfft_buffer_read(ctx, buf, 1, host, 64), HYFFT_INVALID_ARGUMENT);
  EXPECT_FAIL(hyfft_buffer_read(ctx, buf, SIZE_MAX, host, 2), HYFFT_INVALID_ARGUMENT);
  CHECK(is_poisoned(host, sizeof host), "a refused buffer_read wrote the host memory");
  CHECK_OK(hyfft_buffer_write(ctx, buf, 60, host, 4));
  CHECK_OK(hyfft_buffer_read(ctx, buf, 0, host, 64));
  poison(host, sizeof host);
  /* A buffer of another context is refused by this one. */
  hyfft_context other;
  void *foreign = NULL;
  CHECK_OK(hyfft_context_create("cpu", &other));
  CHECK_OK(hyfft_buffer_alloc(other, 64, &foreign));
  EXPECT_FAIL(hyfft_buffer_write(ctx, foreign, 0, host, 64), HYFFT_WRONG_MEMORY);
  EXPECT_FAIL(hyfft_buffer_free(ctx, foreign), HYFFT_WRONG_MEMORY);
  CHECK_OK(hyfft_buffer_free(other, foreign));
  CHECK_OK(hyfft_context_destroy(other));
  EXPECT_FAIL(hyfft_buffer_free(NULL, buf), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_buffer_free(dead, buf), HYFFT_INVALID_HANDLE);
  CHECK_OK(hyfft_buffer_free(ctx, NULL));
  EXPECT_FAIL(hyfft_buffer_free(ctx, host), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_buffer_free(ctx, (char *)buf + 8), HYFFT_INVALID_HANDLE);
  CHECK_OK(hyfft_buffer_free(ctx, buf));
  EXPECT_FAIL(hyfft_buffer_free(ctx, buf), HYFFT_INVALID_HANDLE);
}

static void test_plan_queries(hyfft_context ctx) {
  hyfft_plan plan, dead;
  int not_a_plan = 0;
  hyfft_plan foreign = (hyfft_plan)(void *)&not_a_plan;
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:16:b2", HYFFT_ESTIMATE, &plan));
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:8", HYFFT_ESTIMATE, &dead));
  CHECK_OK(hyfft_plan_destroy(dead));
  EXPECT_FAIL(hyfft_plan_destroy(dead), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_plan_destroy(NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_destroy(foreign), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_plan_destroy((hyfft_plan)(void *)ctx), HYFFT_INVALID_HANDLE);

  /* hyfft_plan_create_with_callbacks: the argument checks of
   * hyfft_plan_create, and the plan is left unwritten on failure. */
  {
    hyfft_problem cp;
    int64_t n = 16;
    CHECK_OK(hyfft_problem_init(&cp, HYFFT_C2C, HYFFT_F32, HYFFT_FORWARD, 1, &n));
    hyfft_callbacks cb = {"return in[index];", NULL, NULL, NULL, NULL, NULL};
    hyfft_plan untouched = foreign;
    EXPECT_FAIL(hyfft_plan_create_with_callbacks(NULL, &cp, 0, &cb, &untouched), HYFFT_NULL_POINTER);
    EXPECT_FAIL(hyfft_plan_create_with_callbacks(ctx, NULL, 0, &cb, &untouched), HYFFT_NULL_POINTER);
    EXPECT_FAIL(hyfft_plan_create_with_callbacks(ctx, &cp, 0, &cb, NULL), HYFFT_NULL_POINTER);
    EXPECT_FAIL(hyfft_plan_create_with_callbacks((hyfft_context)(void *)&not_a_plan, &cp, 0, &cb,
                                                 &untouched), HYFFT_INVALID_HANDLE);
    EXPECT_FAIL(hyfft_plan_create_with_callbacks(ctx, &cp, 1u << 20, &cb, &untouched),
                HYFFT_INVALID_ARGUMENT);
    CHECK(untouched == foreign, "a failed plan creation wrote the plan");
  }

  hyfft_problem prob;
  poison(&prob, sizeof prob);
  EXPECT_FAIL(hyfft_plan_problem(NULL, &prob), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_problem(dead, &prob), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_plan_problem(foreign, &prob), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_plan_problem(plan, NULL), HYFFT_NULL_POINTER);
  CHECK(is_poisoned(&prob, sizeof prob), "a failed plan_problem wrote the problem");

  typedef hyfft_status (*text_fn)(hyfft_plan, char *, size_t, size_t *);
  const struct {
    const char *name;
    text_fn fn;
  } texts[] = {{"describe", hyfft_plan_describe}, {"source", hyfft_plan_source}};
  for (size_t i = 0; i < 2; i++) {
    char buf[8];
    size_t needed = 12345;
    poison(buf, sizeof buf);
    EXPECT_FAIL(texts[i].fn(NULL, buf, sizeof buf, &needed), HYFFT_NULL_POINTER);
    EXPECT_FAIL(texts[i].fn(dead, buf, sizeof buf, &needed), HYFFT_INVALID_HANDLE);
    EXPECT_FAIL(texts[i].fn(foreign, buf, sizeof buf, &needed), HYFFT_INVALID_HANDLE);
    CHECK(needed == 12345, "plan_%s on a bad handle wrote needed", texts[i].name);
    CHECK(is_poisoned(buf, sizeof buf), "plan_%s on a bad handle wrote the buffer", texts[i].name);
    size_t full = 0;
    CHECK_OK(texts[i].fn(plan, NULL, 0, &full));
    if (full > 0) {
      EXPECT_FAIL(texts[i].fn(plan, buf, full < sizeof buf ? full : sizeof buf, NULL),
                  HYFFT_BUFFER_TOO_SMALL);
      CHECK(is_poisoned(buf, sizeof buf), "plan_%s: BUFFER_TOO_SMALL wrote the buffer",
            texts[i].name);
    }
    EXPECT_FAIL(texts[i].fn(plan, NULL, 0, NULL), HYFFT_NULL_POINTER);
    char *big = malloc(full + 1);
    if (big) {
      CHECK_OK(texts[i].fn(plan, big, full + 1, NULL));
      CHECK(strlen(big) == full, "plan_%s: length %zu, needed said %zu", texts[i].name,
            strlen(big), full);
    }
    free(big);
  }

  size_t bytes = 777;
  EXPECT_FAIL(hyfft_plan_workspace_size(NULL, &bytes), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_workspace_size(dead, &bytes), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_plan_workspace_size(plan, NULL), HYFFT_NULL_POINTER);
  CHECK(bytes == 777, "a failed workspace_size wrote the size");
  EXPECT_FAIL(hyfft_plan_set_progress(NULL, NULL, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_set_progress(dead, NULL, NULL), HYFFT_INVALID_HANDLE);
  CHECK_OK(hyfft_plan_set_progress(plan, NULL, NULL));
  EXPECT_FAIL(hyfft_plan_set_workspace(NULL, NULL, 0), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_plan_set_workspace(dead, NULL, 0), HYFFT_INVALID_HANDLE);
  {
    size_t need = 0;
    CHECK_OK(hyfft_plan_workspace_size(plan, &need));
    unsigned char ws[64];
    if (need > 0)
      EXPECT_FAIL(hyfft_plan_set_workspace(plan, ws, need - 1), HYFFT_BUFFER_TOO_SMALL);
    else
      CHECK_OK(hyfft_plan_set_workspace(plan, ws, sizeof ws));
    CHECK_OK(hyfft_plan_set_workspace(plan, NULL, 0));
  }
  CHECK_OK(hyfft_plan_destroy(plan));
}

static void test_execute(hyfft_context ctx) {
  enum { N = 16, B = 2, ELEMS = N * B };
  hyfft_plan oop, ip, dead;
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:16:b2", HYFFT_ESTIMATE, &oop));
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:16:b2:ip", HYFFT_ESTIMATE, &ip));
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:16", HYFFT_ESTIMATE, &dead));
  CHECK_OK(hyfft_plan_destroy(dead));

  /* One block holding input, output and a spare, to build overlaps. */
  float *block = malloc(3 * ELEMS * 2 * sizeof(float));
  float *in = block, *out = block + 2 * ELEMS;
  if (!block) {
    hy_test_fail("out of memory");
    return;
  }
  for (int i = 0; i < 2 * ELEMS; i++) in[i] = (float)(i % 7) - 3.0f;
  float saved_in[2 * ELEMS];
  memcpy(saved_in, in, sizeof saved_in);
  poison(out, 2 * ELEMS * 2 * sizeof(float));

  for (int async = 0; async < 2; async++) {
#define RUN(plan, a, b) \
  (async ? hyfft_execute_async(plan, a, b, NULL, NULL) : hyfft_execute(plan, a, b))
    EXPECT_FAIL(RUN(NULL, in, out), HYFFT_NULL_POINTER);
    EXPECT_FAIL(RUN(dead, in, out), HYFFT_INVALID_HANDLE);
    EXPECT_FAIL(RUN((hyfft_plan)(void *)ctx, in, out), HYFFT_INVALID_HANDLE);
    EXPECT_FAIL(RUN(oop, NULL, out), HYFFT_NULL_POINTER);
    EXPECT_FAIL(RUN(oop, in, NULL), HYFFT_NULL_POINTER);
    /* Out-of-place plan on the same buffer, and on overlapping ranges. */
    EXPECT_FAIL(RUN(oop, in, in), HYFFT_ALIASING);
    EXPECT_FAIL(RUN(oop, in, in + 2), HYFFT_ALIASING);
    EXPECT_FAIL(RUN(oop, out + 2 * (ELEMS - 1), out), HYFFT_ALIASING);
    EXPECT_FAIL(RUN(oop, in + 2 * ELEMS - 2, out - 2 * ELEMS + 2), HYFFT_ALIASING);
    /* In-place plan given two buffers. */
    EXPECT_FAIL(RUN(ip, in, out), HYFFT_INVALID_ARGUMENT);
    CHECK(memcmp(in, saved_in, sizeof saved_in) == 0, "a failed execute changed the input");
    CHECK(is_poisoned(out, 2 * ELEMS * 2 * sizeof(float)), "a failed execute wrote the output");
#undef RUN
  }
  /* A plan outlives its destroyed context: it still runs and is then
   * destroyed normally (the context closes with its last plan). */
  hyfft_context ctx2;
  hyfft_plan orphan;
  CHECK_OK(hyfft_context_create("cpu", &ctx2));
  CHECK_OK(hyfft_plan_token(ctx2, "c2c:f32:fwd:16:b2", HYFFT_ESTIMATE, &orphan));
  CHECK_OK(hyfft_context_destroy(ctx2));
  EXPECT_FAIL(hyfft_context_destroy(ctx2), HYFFT_INVALID_HANDLE);
  CHECK_OK(hyfft_execute(orphan, in, out));
  CHECK_OK(hyfft_plan_destroy(orphan));

  CHECK_OK(hyfft_plan_destroy(oop));
  CHECK_OK(hyfft_plan_destroy(ip));
  free(block);
}

static void test_wisdom(hyfft_context ctx) {
  hyfft_context dead;
  CHECK_OK(hyfft_context_create("cpu", &dead));
  CHECK_OK(hyfft_context_destroy(dead));
  EXPECT_FAIL(hyfft_wisdom_export_file(NULL, "/tmp/x"), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_wisdom_export_file(ctx, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_wisdom_export_file(dead, "/tmp/x"), HYFFT_INVALID_HANDLE);
  EXPECT_FAIL(hyfft_wisdom_import_file(NULL, "/tmp/x"), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_wisdom_import_file(ctx, NULL), HYFFT_NULL_POINTER);
  EXPECT_FAIL(hyfft_wisdom_import_file(dead, "/tmp/x"), HYFFT_INVALID_HANDLE);
}

int main(void) {
  test_status_table();
  test_environment();
  test_contexts();
  hyfft_context ctx = NULL;
  hyfft_status st = hyfft_context_create("cpu", &ctx);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("cannot open the cpu device: %s %s", hyfft_status_name(st), hyfft_last_error());
    return hy_test_summary();
  }
  test_buffers(ctx);
  test_plan_queries(ctx);
  test_execute(ctx);
  test_wisdom(ctx);
  CHECK_OK(hyfft_context_destroy(ctx));
  return hy_test_summary();
}
