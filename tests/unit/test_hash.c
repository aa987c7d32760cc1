/* The hashes behind the disk caches' keys (src/util/hash.c): short inputs
 * are FNV-1a 64-bit (known values), long ones go through the word-lane
 * path; every single-bit change of a long input, at every position and
 * over the lengths around the lanes' 32-byte blocks, must change the
 * hash, and the same input must always give the same hash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/hy_util.h"

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  /* FNV-1a 64 of "" and "a" (the published test vectors). */
  CHECK(hy_hash_bytes(HY_HASH_INIT, "", 0) == UINT64_C(0xcbf29ce484222325), "FNV-1a of \"\"");
  CHECK(hy_hash_bytes(HY_HASH_INIT, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c), "FNV-1a of \"a\"");

  enum { MAXLEN = 1100 };
  static unsigned char buf[MAXLEN];
  uint64_t seed = 12345;
  for (int i = 0; i < MAXLEN; i++) {
    seed = seed * UINT64_C(6364136223846793005) + 1442695040888963407ULL;
    buf[i] = (unsigned char)(seed >> 56);
  }
  static const size_t lens[] = {255, 256, 257, 287, 288, 289, 300, 319, 320, 1024, 1100};
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
    size_t len = lens[li];
    uint64_t base = hy_hash_bytes(HY_HASH_INIT, buf, len);
    CHECK(base == hy_hash_bytes(HY_HASH_INIT, buf, len), "length %zu: not deterministic", len);
    CHECK(base != hy_hash_bytes(HY_HASH_INIT + 1, buf, len), "length %zu: seed ignored", len);
    CHECK(base != hy_hash_bytes(HY_HASH_INIT, buf, len - 1), "length %zu: last byte ignored",
          len);
    /* One hash per single-bit flip, plus the unflipped one: all distinct. */
    size_t count = len * 8 + 1;
    uint64_t *h = malloc(count * sizeof *h);
    if (!h) return 2;
    h[0] = base;
    for (size_t bit = 0; bit < len * 8; bit++) {
      buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
      h[bit + 1] = hy_hash_bytes(HY_HASH_INIT, buf, len);
      buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    qsort(h, count, sizeof *h, cmp_u64);
    size_t same = 0;
    for (size_t i = 1; i < count; i++) same += h[i] == h[i - 1];
    CHECK(same == 0, "length %zu: %zu single-bit changes left the hash unchanged or equal",
          len, same);
    free(h);
  }
  return hy_test_summary();
}
