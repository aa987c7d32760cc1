/* FNV-1a 64-bit: stable across runs and machines, so hashes can key on-disk
 * caches and wisdom. */
#include <string.h>

#include "hy_util.h"

uint64_t hy_hash_bytes(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

uint64_t hy_hash_u64(uint64_t h, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
  return hy_hash_bytes(h, b, 8);
}

uint64_t hy_hash_str(uint64_t h, const char *s) { return hy_hash_bytes(h, s, strlen(s) + 1); }
