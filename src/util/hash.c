/* Hashes that key on-disk caches (compiled kernels, tables) and in-memory
 * plan lookups: stable across runs and machines of one byte order.
 * Short inputs (under 256 bytes: names, sizes, problem fields) go through
 * FNV-1a 64-bit a byte at a time. Long ones (generated sources of 10-100
 * KB, hashed two or three times per plan) go through four lanes of eight
 * bytes, each multiplied and folded a word at a time, then mixed into the
 * running hash, so hashing stays a small part of a warm plan's time
 * (FNV-1a's one multiply per byte is too slow for inputs this long). */
#include <string.h>

#include "hy_util.h"

#define HY_FNV_PRIME UINT64_C(0x100000001b3)
#define HY_HASH_LONG 256

static uint64_t hy_fnv(uint64_t h, const unsigned char *p, size_t len) {
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= HY_FNV_PRIME;
  }
  return h;
}

/* A full avalanche of 64 bits (every input bit moves every output bit
 * with probability near one half). */
static uint64_t hy_hash_mix(uint64_t x) {
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= UINT64_C(0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return x;
}

static uint64_t hy_hash_long(uint64_t h, const unsigned char *p, size_t len) {
  const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
  uint64_t lane[4] = {h, h ^ k, h ^ (k * 3), h ^ (k * 5)};
  size_t n = len;
  while (n >= 32) {
    uint64_t w[4];
    memcpy(w, p, sizeof w);
    for (int i = 0; i < 4; i++) {
      lane[i] = (lane[i] ^ w[i]) * k;
      lane[i] ^= lane[i] >> 29;
    }
    p += 32;
    n -= 32;
  }
  uint64_t out = hy_fnv(h, p, n); /* the last 0-31 bytes */
  for (int i = 0; i < 4; i++) out = hy_hash_mix(out ^ lane[i]) * HY_FNV_PRIME;
  return hy_hash_mix(out ^ (uint64_t)len);
}

uint64_t hy_hash_bytes(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  return len < HY_HASH_LONG ? hy_fnv(h, p, len) : hy_hash_long(h, p, len);
}

uint64_t hy_hash_u64(uint64_t h, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
  return hy_hash_bytes(h, b, 8);
}

uint64_t hy_hash_str(uint64_t h, const char *s) { return hy_hash_bytes(h, s, strlen(s) + 1); }
