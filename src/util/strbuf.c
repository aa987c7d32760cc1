/* A growable string with a sticky allocation error, so that long chains of
 * appends (kernel source, plan descriptions) check for failure once. */
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
  char *p = realloc(sb->data, cap);
  if (!p) {
    sb->failed = 1;
    return 0;
  }
  sb->data = p;
  sb->cap = cap;
  return 1;
}

void hy_strbuf_append(hy_strbuf *sb, const char *text) {
  size_t n = strlen(text);
  if (!hy_strbuf_reserve(sb, n)) return;
  memcpy(sb->data + sb->len, text, n + 1);
  sb->len += n;
}

/* Formats straight into the free room and only formats again, after
 * growing, when the text did not fit: one vsnprintf per append instead of
 * a measuring one and a writing one (the generator's appends are short;
 * half of a long plan's generation time was formatting). */
void hy_strbuf_vappendf(hy_strbuf *sb, const char *fmt, va_list ap) {
  if (!hy_strbuf_reserve(sb, 255)) return;
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
