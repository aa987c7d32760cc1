/* The disk cache (util/disk_cache.h): one file per key, written by an
 * atomic rename, checked on every read. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/disk_cache.h"
#include "util/settings.h"

#define HY_DISK_CACHE_MAX ((uint64_t)1 << 30)

typedef struct hy_cache_header {
  char magic[8];
  uint64_t key;
  uint64_t length;
  uint64_t checksum;
} hy_cache_header;

/* The cache directory of `kind` (NULL: the configured one), or 0 when
 * caching on disk is off. */
static int hy_cache_dir(const hy_disk_kind *kind, char *dir, size_t size) {
  const hy_settings *set = hy_settings_get();
  const char *env = kind && kind->dir ? kind->dir : set->cache_dir;
  int n;
  if (env) {
    if (strcmp(env, "off") == 0 || strcmp(env, "none") == 0) return 0;
    n = snprintf(dir, size, "%s", env);
  } else if (set->xdg_cache_home) {
    n = snprintf(dir, size, "%s/hyfft", set->xdg_cache_home);
  } else if (set->home) {
    n = snprintf(dir, size, "%s/.cache/hyfft", set->home);
  } else {
    return 0;
  }
  return n > 0 && (size_t)n < size;
}

void hy_disk_cache_path(const hy_disk_kind *kind, uint64_t key, char *path, size_t path_size) {
  char dir[512];
  path[0] = '\0';
  if (!hy_cache_dir(kind, dir, sizeof dir)) return;
  int n = snprintf(path, path_size, "%s/%s-%016llx.bin", dir, kind->kind, (unsigned long long)key);
  if (n < 0 || (size_t)n >= path_size) path[0] = '\0';
}

/* Checksum of a payload: hy_hash_bytes, whose long inputs go a word at a
 * time in four lanes, so a warm plan does not wait on a byte-at-a-time
 * hash of its megabytes of tables. It guards against damaged files, not
 * against an adversary. */
static uint64_t hy_cache_checksum(const void *data, size_t size) {
  return hy_hash_bytes(HY_HASH_INIT, data, size);
}

static int hy_read_full(int fd, void *buf, size_t size) {
  char *p = buf;
  while (size > 0) {
    ssize_t got = read(fd, p, size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    p += got;
    size -= (size_t)got;
  }
  return 1;
}

static int hy_write_full(int fd, const void *buf, size_t size) {
  const char *p = buf;
  while (size > 0) {
    ssize_t put = write(fd, p, size);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return 0;
    p += put;
    size -= (size_t)put;
  }
  return 1;
}

hy_status hy_disk_cache_load(const hy_disk_kind *kind, uint64_t key, void **image, size_t *size) {
  char path[640];
  hy_disk_cache_path(kind, key, path, sizeof path);
  if (!path[0]) return HYFFT_NOT_SUPPORTED;
  int fd = hy_fault_point() ? -1 : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return HYFFT_NOT_SUPPORTED;
  hy_cache_header h;
  void *data = NULL;
  int ok = hy_read_full(fd, &h, sizeof h) && memcmp(h.magic, kind->magic, 8) == 0 &&
           h.key == key && h.length > 0 && h.length <= HY_DISK_CACHE_MAX;
  if (ok) {
    data = hy_malloc((size_t)h.length);
    ok = data && hy_read_full(fd, data, (size_t)h.length);
  }
  if (ok) {
    /* Trailing bytes mean a torn or foreign file. */
    char extra;
    ok = read(fd, &extra, 1) == 0 && hy_cache_checksum(data, (size_t)h.length) == h.checksum;
  }
  close(fd);
  if (!ok) {
    hy_free(data);
    return HYFFT_NOT_SUPPORTED;
  }
  *image = data;
  *size = (size_t)h.length;
  return HYFFT_SUCCESS;
}

/* mkdir -p; existing directories are fine. */
static int hy_mkdirs(const char *dir) {
  char tmp[512];
  size_t len = strlen(dir);
  if (len == 0 || len >= sizeof tmp) return 0;
  memcpy(tmp, dir, len + 1);
  for (size_t i = 1; i <= len; i++) {
    if (tmp[i] != '/' && tmp[i] != '\0') continue;
    char c = tmp[i];
    tmp[i] = '\0';
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return 0;
    tmp[i] = c;
  }
  return 1;
}

int hy_disk_cache_usable(char *dir, size_t size) {
  if (!hy_cache_dir(NULL, dir, size)) return 1; /* off: nothing to use */
  return hy_mkdirs(dir) && access(dir, W_OK | X_OK) == 0;
}

int hy_disk_cache_store(const hy_disk_kind *kind, uint64_t key, const void *image, size_t size) {
  static atomic_uint counter;
  char dir[512], path[640], tmp[700];
  if (!hy_cache_dir(kind, dir, sizeof dir) || !hy_mkdirs(dir)) return 0;
  hy_disk_cache_path(kind, key, path, sizeof path);
  if (!path[0]) return 0;
  /* pid + per-process counter: unique among processes and threads. */
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
           atomic_fetch_add(&counter, 1u));
  int fd = hy_fault_point() ? -1 : open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return 0;
  hy_cache_header h;
  memcpy(h.magic, kind->magic, 8);
  h.key = key;
  h.length = size;
  h.checksum = hy_cache_checksum(image, size);
  int ok = hy_write_full(fd, &h, sizeof h) && hy_write_full(fd, image, size);
  if (close(fd) != 0) ok = 0;
  /* A cache that cannot be written is only slower; no error is raised. */
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return 0;
  }
  return 1;
}
