/* Shared helpers of the bad-input tests: every failure must return the
 * named status, leave a non-empty detail message, and write nothing to
 * the caller's outputs (checked against a byte poison). */
#ifndef HY_TEST_ERRORS_COMMON_H
#define HY_TEST_ERRORS_COMMON_H

#include <string.h>

#include "check.h"

#define POISON_BYTE 0xA5

/* Under AddressSanitizer a huge allocation must fail with NULL, as it
 * does in production, instead of aborting the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static inline void poison(void *p, size_t n) { memset(p, POISON_BYTE, n); }

static inline int is_poisoned(const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    if (c[i] != POISON_BYTE) return 0;
  return 1;
}

/* The call fails with `expected` and a detail message. */
#define EXPECT_FAIL(expr, expected)                                            \
  do {                                                                         \
    CHECK_STATUS(expr, expected);                                              \
    CHECK(hyfft_last_error()[0] != '\0', "%s left no detail message", #expr);  \
  } while (0)

/* ... and the detail message mentions `part`. */
#define EXPECT_FAIL_NAMING(expr, expected, part)                               \
  do {                                                                         \
    EXPECT_FAIL(expr, expected);                                               \
    CHECK(strstr(hyfft_last_error(), part) != NULL,                            \
          "%s: detail '%s' does not mention '%s'", #expr, hyfft_last_error(),  \
          part);                                                               \
  } while (0)

#endif /* HY_TEST_ERRORS_COMMON_H */
