/* A minimal test framework shared by every hyfft test program: CHECK
 * macros that count, a detail line on failure, and the closing summary
 * line "N passed, N failed" that CI reads. Header only. */
#ifndef HY_TEST_CHECK_H
#define HY_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include "hyfft.h"

static long hy_test_passed, hy_test_failed;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (cond) {                                                                \
      hy_test_passed++;                                                        \
    } else {                                                                   \
      hy_test_failed++;                                                        \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
    }                                                                          \
  } while (0)

/* Expect a status; on mismatch print both names and the detail message. */
#define CHECK_STATUS(expr, expected)                                           \
  do {                                                                         \
    hyfft_status hy_got_ = (expr);                                             \
    CHECK(hy_got_ == (expected), "%s returned %s (%s), expected %s", #expr,    \
          hyfft_status_name(hy_got_), hyfft_last_error(),                      \
          hyfft_status_name(expected));                                        \
  } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, HYFFT_SUCCESS)

/* For suites that judge a whole case at once: count a pass, or count a
 * failure and print "FAIL " and the message (one line). */
static inline void hy_test_pass(void) { hy_test_passed++; }
static inline void hy_test_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void hy_test_fail(const char *fmt, ...) {
  va_list ap;
  hy_test_failed++;
  fflush(stdout);
  fprintf(stderr, "FAIL ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  fflush(stderr);
}

/* Print the summary line and return the process exit code. */
static inline int hy_test_summary(void) {
  printf("%ld passed, %ld failed\n", hy_test_passed, hy_test_failed);
  return hy_test_failed ? 1 : 0;
}

#endif /* HY_TEST_CHECK_H */
