/* Aligned allocation and environment helpers. */
#include <stdlib.h>
#include <string.h>

#include "hy_util.h"

#define HY_ALIGNMENT 64

void *hy_malloc(size_t bytes) {
  if (hy_fault_point()) return NULL;
  if (bytes == 0) bytes = 1;
  size_t rounded = (bytes + HY_ALIGNMENT - 1) / HY_ALIGNMENT * HY_ALIGNMENT;
  if (rounded < bytes) return NULL;
  return aligned_alloc(HY_ALIGNMENT, rounded);
}

void *hy_calloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) return NULL;
  void *p = hy_malloc(bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

void *hy_realloc(void *p, size_t bytes) {
  if (hy_fault_point()) return NULL;
  return realloc(p, bytes ? bytes : 1);
}

void hy_free(void *p) { free(p); }

const char *hy_getenv(const char *name) {
  const char *v = getenv(name);
  return (v && v[0]) ? v : NULL;
}
