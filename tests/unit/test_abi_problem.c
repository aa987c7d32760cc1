/* Programs built before R2R have a hyfft_problem that ends at `memory`
 * (r2r_kind is the field added last). Such a struct is placed right before
 * an inaccessible page, and every entry point that reads or writes a
 * problem is called with it for C2C, R2C and C2R: any access to the bytes
 * of r2r_kind faults. Also: for those kinds r2r_kind is ignored, whatever
 * it holds. */
#define _DEFAULT_SOURCE
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "hyfft.h"

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  char *map = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  CHECK(map != MAP_FAILED, "mmap");
  if (map == MAP_FAILED) return 1;
  CHECK(mprotect(map + page, (size_t)page, PROT_NONE) == 0, "mprotect");
  size_t old_size = offsetof(hyfft_problem, r2r_kind);
  /* 8-byte aligned: the struct holds int64 and double. */
  hyfft_problem *old = (hyfft_problem *)(void *)(map + page - ((old_size + 7) / 8) * 8);
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  static const char *const tokens[] = {"c2c:f64:fwd:16:b3", "r2c:f32:12x10:ip", "c2r:f64:9"};
  for (int i = 0; i < 3; i++) {
    CHECK_OK(hyfft_problem_parse(tokens[i], old));
    char buf[128];
    CHECK_OK(hyfft_problem_print(old, buf, sizeof buf, NULL));
    CHECK(strcmp(buf, tokens[i]) == 0, "printed '%s' for '%s'", buf, tokens[i]);
    hyfft_plan plan = NULL;
    CHECK_OK(hyfft_plan_create(ctx, old, 0, &plan));
    if (plan) {
      CHECK_OK(hyfft_plan_problem(plan, old));
      CHECK_OK(hyfft_plan_destroy(plan));
    }
    int64_t n[2] = {6, 4};
    CHECK_OK(hyfft_problem_init(old, i == 0 ? HYFFT_C2C : i == 1 ? HYFFT_R2C : HYFFT_C2R,
                                HYFFT_F32, i == 2 ? HYFFT_BACKWARD : HYFFT_FORWARD, 2, n));
    CHECK_OK(hyfft_plan_create(ctx, old, 0, &plan));
    if (plan) CHECK_OK(hyfft_plan_destroy(plan));
  }
  /* A full struct of another kind with garbage in r2r_kind plans alike. */
  hyfft_problem p;
  memset(&p, 0x5a, sizeof p);
  CHECK_OK(hyfft_problem_parse("c2c:f32:bwd:8x8", &p));
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_create(ctx, &p, 0, &plan));
  if (plan) CHECK_OK(hyfft_plan_destroy(plan));
  CHECK_OK(hyfft_context_destroy(ctx));
  munmap(map, (size_t)(2 * page));
  return hy_test_summary();
}
