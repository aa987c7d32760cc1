/* Fuzz target: the wisdom reader. Any text is imported; import is all or
 * nothing, so after a refused import the table must be as it was, and an
 * accepted one must export text that imports again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "planner/wisdom.h"
#include "util/hy_util.h"

static char *hy_fuzz_export(void) {
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  if (hy_wisdom_export(&sb) != HYFFT_SUCCESS) abort();
  return sb.data; /* the caller frees it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  hy_wisdom_forget();
  char *before = hy_fuzz_export();
  if (hy_wisdom_import(text, "fuzz") == HYFFT_SUCCESS) {
    char *after = hy_fuzz_export();
    hy_wisdom_forget();
    if (after && hy_wisdom_import(after, "fuzz") != HYFFT_SUCCESS) abort();
    free(after);
  } else {
    char *after = hy_fuzz_export();
    if (before && after && strcmp(before, after) != 0) abort();
    free(after);
  }
  free(before);
  free(text);
  hy_wisdom_forget();
  return 0;
}
