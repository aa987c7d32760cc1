/* Public wisdom entry points and the $HYFFT_WISDOM import. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/settings.h"
#include "planner/wisdom.h"

static hy_status hy_check_context(hyfft_context context) {
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  if (!hy_handle_is_live(context, HY_HANDLE_CONTEXT))
    return hy_error(HYFFT_INVALID_HANDLE, "context %p is not live", (void *)context);
  return HYFFT_SUCCESS;
}

/* Whole file into a NUL-terminated heap string. *missing = 1 (and no
 * error message) when it does not exist. */
static hy_status hy_read_file(const char *path, char **text, int *missing) {
  *text = NULL;
  *missing = 0;
  errno = 0;
  FILE *f = hy_fault_point() ? NULL : fopen(path, "rb");
  if (!f && !errno) errno = EIO; /* an injected fault */
  if (!f) {
    if (errno == ENOENT) *missing = 1;
    return hy_error(HYFFT_IO_ERROR, "cannot open wisdom file '%s': %s", path, strerror(errno));
  }
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (memchr(chunk, 0, got)) {
      fclose(f);
      hy_strbuf_free(&sb);
      return hy_error(HYFFT_INVALID_WISDOM, "wisdom file '%s' holds a NUL byte", path);
    }
    hy_strbuf_appendf(&sb, "%.*s", (int)got, chunk);
  }
  int failed = ferror(f);
  fclose(f);
  if (failed || hy_strbuf_status(&sb) != HYFFT_SUCCESS) {
    hy_strbuf_free(&sb);
    return hy_error(HYFFT_IO_ERROR, "cannot read wisdom file '%s'", path);
  }
  /* The buffer's storage is plain malloc'd text; an empty file has none. */
  *text = sb.data ? sb.data : hy_calloc(1, 1);
  if (!*text) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot read wisdom file '%s'", path);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_wisdom_export_file(hyfft_context context, const char *path) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!path) return hy_error(HYFFT_NULL_POINTER, "path is NULL");
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_status st = hy_wisdom_export(&sb);
  if (st == HYFFT_SUCCESS) {
    errno = 0;
    FILE *f = hy_fault_point() ? NULL : fopen(path, "wb");
    if (!f && !errno) errno = EIO; /* an injected fault */
    if (!f) {
      st = hy_error(HYFFT_IO_ERROR, "cannot create wisdom file '%s': %s", path, strerror(errno));
    } else {
      int bad = fwrite(sb.data, 1, sb.len, f) != sb.len;
      bad |= fclose(f) != 0;
      if (bad) st = hy_error(HYFFT_IO_ERROR, "cannot write wisdom file '%s'", path);
    }
  }
  hy_strbuf_free(&sb);
  return st;
}

hyfft_status hyfft_wisdom_import_file(hyfft_context context, const char *path) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!path) return hy_error(HYFFT_NULL_POINTER, "path is NULL");
  char *text = NULL;
  int missing = 0;
  HY_TRY(hy_read_file(path, &text, &missing));
  hy_status st = hy_wisdom_import(text, path);
  free(text);
  return st;
}

hyfft_status hyfft_wisdom_export_string(char *buf, size_t buf_size, size_t *needed) {
  hy_error_clear();
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_status st = hy_wisdom_export(&sb);
  if (st == HYFFT_SUCCESS) st = hy_strbuf_export(&sb, buf, buf_size, needed);
  hy_strbuf_free(&sb);
  return st;
}

hyfft_status hyfft_wisdom_import_string(const char *text) {
  hy_error_clear();
  if (!text) return hy_error(HYFFT_NULL_POINTER, "text is NULL");
  return hy_wisdom_import(text, "string");
}

hyfft_status hyfft_wisdom_forget(void) {
  hy_error_clear();
  hy_wisdom_forget();
  return HYFFT_SUCCESS;
}

static pthread_mutex_t hy_env_lock = PTHREAD_MUTEX_INITIALIZER;
static int hy_env_done;

hy_status hy_wisdom_env_import(void) {
  pthread_mutex_lock(&hy_env_lock);
  hy_status st = HYFFT_SUCCESS;
  if (!hy_env_done) {
    const char *path = hy_settings_get()->wisdom;
    char *text = NULL;
    int missing = 0;
    if (path) st = hy_read_file(path, &text, &missing);
    /* A file not written yet (before the first `hyfft tune`) is no wisdom,
     * not an error; a malformed one is, so that it gets fixed. */
    if (missing) {
      hy_error_clear();
      st = HYFFT_SUCCESS;
    }
    if (st == HYFFT_SUCCESS && text) st = hy_wisdom_import(text, path);
    free(text);
    if (st == HYFFT_SUCCESS) hy_env_done = 1;
  }
  pthread_mutex_unlock(&hy_env_lock);
  return st;
}
