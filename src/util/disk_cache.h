/* On-disk cache of byte blobs keyed by 64-bit keys, shared by the CUDA and
 * OpenCL backends (compiled images and program binaries) and the kernel
 * generator (long chirps and Bluestein spectra).
 *
 * One file per key: $HYFFT_CACHE_DIR (default $XDG_CACHE_HOME/hyfft or
 * ~/.cache/hyfft; "off" or "none" disables) / <kind>-<key>.bin, holding a
 * header (an 8-byte magic of the kind, the key, the length, a checksum of
 * the payload) and the blob. Writers fill a private temporary file and
 * rename it into place, which is atomic, so concurrent processes see either
 * no entry or a whole one; a reader that finds a bad header, length or
 * checksum treats the entry as absent, and the next store replaces it. */
#ifndef HY_DISK_CACHE_H
#define HY_DISK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hy_util.h"

/* kind: a short lowercase name ("cuda", "spectrum") used in the file name;
 * magic: exactly 8 bytes identifying the format of that kind; dir: a fixed
 * directory for this kind (tests keep their own caches), NULL for the
 * configured one. */
typedef struct hy_disk_kind {
  const char *kind;
  const char *magic;
  const char *dir;
} hy_disk_kind;

/* *blob is hy_malloc'ed. HYFFT_NOT_SUPPORTED: no entry, a bad entry, or no
 * cache directory. */
hy_status hy_disk_cache_load(const hy_disk_kind *kind, uint64_t key, void **blob, size_t *size);
/* Best effort: a cache that cannot be written is only slower. Returns 1
 * when the entry was written. */
int hy_disk_cache_store(const hy_disk_kind *kind, uint64_t key, const void *blob, size_t size);
/* 1 when the disk cache is off or its directory exists (or can be made)
 * and is writable; 0 with the directory in `dir` when it is configured
 * but unusable (the cache then stays off: loads miss, stores fail). */
int hy_disk_cache_usable(char *dir, size_t size);
/* The file a key is stored in ("" when the disk cache is off). */
void hy_disk_cache_path(const hy_disk_kind *kind, uint64_t key, char *path, size_t path_size);

#endif /* HY_DISK_CACHE_H */
