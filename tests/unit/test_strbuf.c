/* hy_strbuf_appendf writes the generator's common conversions itself
 * (src/util/strbuf.c) and hands the rest to vsnprintf: every append must
 * give what snprintf gives, at every buffer size (appends that grow the
 * buffer, ones that just fit, long ones). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/hy_util.h"

/* Append the same thing to sb and, through snprintf, to expect. */
#define SAME(sb, expect, ...)                                                  \
  do {                                                                         \
    char piece_[4096];                                                         \
    snprintf(piece_, sizeof piece_, __VA_ARGS__);                              \
    hy_strbuf_appendf(sb, __VA_ARGS__);                                        \
    strcat(expect, piece_);                                                    \
  } while (0)

static size_t first_difference(const char *a, const char *b) {
  size_t i = 0;
  while (a[i] && a[i] == b[i]) i++;
  return i;
}

static void check_formats(size_t prefix) {
  static char expect[1 << 16];
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  expect[0] = '\0';
  /* A prefix of every length up to past the first growth, so that each
   * append below meets the buffer's end somewhere. */
  for (size_t i = 0; i < prefix; i++) SAME(&sb, expect, "%c", 'a' + (int)(i % 26));
  char longtext[700];
  memset(longtext, 'x', sizeof longtext - 1);
  longtext[sizeof longtext - 1] = '\0';
  SAME(&sb, expect, "plain text, no conversions\n");
  SAME(&sb, expect, "%d %d %d %d", 0, -1, INT_MAX, INT_MIN);
  SAME(&sb, expect, "%lld|%lld|%lld", 0LL, LLONG_MAX, LLONG_MIN);
  SAME(&sb, expect, "%ld,%ld", -123456789L, LONG_MIN);
  SAME(&sb, expect, "%zu %zu %zu", (size_t)0, (size_t)SIZE_MAX, (size_t)LLONG_MAX + 1);
  SAME(&sb, expect, "100%% of %s%s", "the ", "");
  SAME(&sb, expect, "[%.*s][%.*s][%.*s][%.*s]", 3, "abcdef", 0, "abc", -1, "whole", 10, "short");
  SAME(&sb, expect, "%s", longtext);
  SAME(&sb, expect, "a%cb%c", 'Z', '!');
  SAME(&sb, expect, "x0_%d = src[ib + (%s)rin[e] * %lld];\n", 17, "int", 4096LL);
  /* A null string goes to vsnprintf (what C libraries print for it
   * differs), after the fast path has begun the same append. */
  const char *volatile none = NULL;
  SAME(&sb, expect, "x=%d [%s] y=%lld", 7, none, 8LL);
  for (int precision = -1; precision < 8; precision++)
    SAME(&sb, expect, "<%.*s|%d>", precision, none, precision);
  /* Conversions the fast path leaves to vsnprintf. */
  SAME(&sb, expect, "%-6s|%5d|%x|%.17e|%g|%08.3f", "ab", 42, 255u, 0.1, 1e-30, -3.25);
  SAME(&sb, expect, "%s and %.9e", longtext, 2.5);
  CHECK(hy_strbuf_status(&sb) == HYFFT_SUCCESS, "prefix %zu: append failed", prefix);
  CHECK(sb.len == strlen(expect) && strcmp(sb.data, expect) == 0,
        "prefix %zu: strbuf gave %zu bytes, snprintf %zu (first difference at %zu)", prefix,
        sb.len, strlen(expect), first_difference(sb.data, expect));
  hy_strbuf_free(&sb);
}

int main(void) {
  for (size_t prefix = 0; prefix < 600; prefix += 1) check_formats(prefix);
  return hy_test_summary();
}
