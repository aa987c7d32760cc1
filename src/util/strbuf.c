/* A growable string with a sticky allocation error, so that long chains of
 * appends (kernel source, plan descriptions) check for failure once. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hy_util.h"

void hy_strbuf_init(hy_strbuf *sb) {
  sb->data = NULL;
  sb->len = 0;
  sb->cap = 0;
  sb->failed = 0;
}

void hy_strbuf_free(hy_strbuf *sb) {
  free(sb->data);
  hy_strbuf_init(sb);
}

static int hy_strbuf_reserve(hy_strbuf *sb, size_t extra) {
  if (sb->failed) return 0;
  if (sb->len + extra + 1 <= sb->cap) return 1;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) {
    if (cap > SIZE_MAX / 2) {
      sb->failed = 1;
      return 0;
    }
    cap *= 2;
  }
  char *p = hy_realloc(sb->data, cap);
  if (!p) {
    sb->failed = 1;
    return 0;
  }
  sb->data = p;
  sb->cap = cap;
  return 1;
}

static void hy_strbuf_bytes(hy_strbuf *sb, const char *text, size_t n) {
  if (!hy_strbuf_reserve(sb, n)) return;
  memcpy(sb->data + sb->len, text, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void hy_strbuf_append(hy_strbuf *sb, const char *text) { hy_strbuf_bytes(sb, text, strlen(text)); }

/* Decimal digits of v, as printf's %lld writes them. */
static void hy_strbuf_decimal(hy_strbuf *sb, long long v) {
  char buf[24];
  int at = (int)sizeof buf;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do {
    buf[--at] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) buf[--at] = '-';
  hy_strbuf_bytes(sb, buf + at, sizeof buf - (size_t)at);
}

/* Whether fmt uses only the conversions hy_strbuf_simplef writes: %s, %d,
 * %c, %ld, %lld, %zu, %.*s and %%, without flags or widths. */
static int hy_strbuf_simple_format(const char *fmt) {
  for (const char *p = fmt; (p = strchr(p, '%')) != NULL;) {
    p++;
    if (*p == '%' || *p == 's' || *p == 'd' || *p == 'c') p += 1;
    else if (p[0] == 'l' && p[1] == 'd') p += 2;
    else if (p[0] == 'z' && p[1] == 'u') p += 2;
    else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'd') p += 3;
    else if (p[0] == '.' && p[1] == '*' && p[2] == 's') p += 3;
    else return 0;
  }
  return 1;
}

/* What vsnprintf would write for a simple format (above), without its
 * stream set-up per call: most of the generator's appends are these, and
 * formatting them through vsnprintf would dominate generating a long
 * plan's source. 1 when done; 0, with part of it written, at a null string
 * argument, which is left to vsnprintf. */
static int hy_strbuf_simplef(hy_strbuf *sb, const char *fmt, va_list ap) {
  const char *p = fmt;
  while (*p && !sb->failed) {
    const char *pct = strchr(p, '%');
    size_t run = pct ? (size_t)(pct - p) : strlen(p);
    if (run) hy_strbuf_bytes(sb, p, run);
    if (!pct) break;
    p = pct + 1;
    if (*p == '%') {
      hy_strbuf_bytes(sb, "%", 1);
      p += 1;
    } else if (*p == 's') {
      const char *text = va_arg(ap, const char *);
      if (!text) return 0;
      hy_strbuf_bytes(sb, text, strlen(text));
      p += 1;
    } else if (*p == 'd') {
      hy_strbuf_decimal(sb, va_arg(ap, int));
      p += 1;
    } else if (*p == 'c') {
      char c = (char)(unsigned char)va_arg(ap, int);
      hy_strbuf_bytes(sb, &c, 1);
      p += 1;
    } else if (p[0] == 'l' && p[1] == 'd') {
      hy_strbuf_decimal(sb, va_arg(ap, long));
      p += 2;
    } else if (p[0] == 'z' && p[1] == 'u') {
      size_t v = va_arg(ap, size_t);
      if (v > (size_t)LLONG_MAX) {
        char buf[32];
        snprintf(buf, sizeof buf, "%zu", v);
        hy_strbuf_bytes(sb, buf, strlen(buf));
      } else {
        hy_strbuf_decimal(sb, (long long)v);
      }
      p += 2;
    } else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'd') {
      hy_strbuf_decimal(sb, va_arg(ap, long long));
      p += 3;
    } else { /* "%.*s" (hy_strbuf_simple_format allows nothing else) */
      int precision = va_arg(ap, int);
      const char *text = va_arg(ap, const char *);
      if (!text) return 0;
      size_t n = precision < 0 ? strlen(text) : strnlen(text, (size_t)precision);
      hy_strbuf_bytes(sb, text, n);
      p += 3;
    }
  }
  return 1;
}

/* Other formats are written straight into the free room, and formatted
 * again after growing only when the text did not fit (one vsnprintf per
 * append, not a measuring one and a writing one). */
void hy_strbuf_vappendf(hy_strbuf *sb, const char *fmt, va_list ap) {
  if (!hy_strbuf_reserve(sb, 255)) return;
  if (hy_strbuf_simple_format(fmt)) {
    /* A null string argument (what the C library prints for it varies)
     * sends the whole append to vsnprintf, from where it began. */
    size_t start = sb->len;
    va_list again;
    va_copy(again, ap);
    int done = hy_strbuf_simplef(sb, fmt, again);
    va_end(again);
    if (done || sb->failed) return;
    sb->len = start;
    sb->data[start] = '\0';
  }
  size_t room = sb->cap - sb->len;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(sb->data + sb->len, room, fmt, ap2);
  va_end(ap2);
  if (n >= 0 && (size_t)n >= room) {
    if (!hy_strbuf_reserve(sb, (size_t)n)) {
      sb->data[sb->len] = '\0';
      return;
    }
    n = vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  }
  if (n < 0) {
    sb->data[sb->len] = '\0';
    sb->failed = 1;
    return;
  }
  sb->len += (size_t)n;
}

void hy_strbuf_appendf(hy_strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  hy_strbuf_vappendf(sb, fmt, ap);
  va_end(ap);
}

hy_status hy_strbuf_status(const hy_strbuf *sb) {
  return sb->failed ? hy_error(HYFFT_OUT_OF_MEMORY, "out of memory while building a string")
                    : HYFFT_SUCCESS;
}

hy_status hy_strbuf_export(const hy_strbuf *sb, char *buf, size_t buf_size, size_t *needed) {
  HY_TRY(hy_strbuf_status(sb));
  const char *text = sb->data ? sb->data : "";
  if (needed) *needed = sb->len;
  if (!buf) {
    if (needed) return HYFFT_SUCCESS; /* size query */
    return hy_error(HYFFT_NULL_POINTER, "buf is NULL and needed is NULL");
  }
  if (buf_size <= sb->len)
    return hy_error(HYFFT_BUFFER_TOO_SMALL, "buffer of %zu bytes, %zu needed", buf_size,
                    sb->len + 1);
  memcpy(buf, text, sb->len + 1);
  return HYFFT_SUCCESS;
}
