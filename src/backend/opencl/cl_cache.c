/* Disk cache of compiled OpenCL programs: $HYFFT_CACHE_DIR (or
 * ~/.cache/hyfft; "none" disables it), one file per program, named by a key
 * of the program hash, the device name, the platform and driver versions and
 * HY_CODEGEN_VERSION. Entries are written to a temporary file and renamed,
 * so concurrent processes never see half a file; a file that fails any
 * check (magic, key, size, checksum, or the driver refusing the binary) is
 * ignored and rewritten by the next build. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/opencl/cl_internal.h"

static const char hy_cl_magic[8] = {'H', 'Y', 'F', 'F', 'T', 'C', 'L', '1'};

typedef struct hy_cl_cache_header {
  char magic[8];
  uint64_t key;
  uint64_t size;
  uint64_t checksum;
} hy_cl_cache_header;

static uint64_t hy_cl_cache_key(const hy_cl_device *dev, uint64_t hash) {
  uint64_t h = hy_hash_u64(HY_HASH_INIT, hash);
  h = hy_hash_str(h, dev->info.name);
  h = hy_hash_str(h, dev->info.platform);
  h = hy_hash_str(h, dev->driver);
  return hy_hash_u64(h, HY_CODEGEN_VERSION);
}

/* The cache directory (created if needed) or 0 when there is none. */
static int hy_cl_cache_dir(char *dir, size_t size) {
  const char *env = hy_getenv("HYFFT_CACHE_DIR");
  if (env && strcmp(env, "none") == 0) return 0;
  if (env) {
    snprintf(dir, size, "%s", env);
  } else {
    const char *home = hy_getenv("HOME");
    if (!home) return 0;
    char parent[4096];
    int n = snprintf(parent, sizeof parent, "%s/.cache", home);
    if (n < 0 || (size_t)n >= sizeof parent - 8) return 0;
    if (mkdir(parent, 0755) != 0 && errno != EEXIST) return 0;
    snprintf(dir, size, "%.4000s/hyfft", parent);
  }
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) return 0;
  return 1;
}

static int hy_cl_cache_path(const hy_cl_device *dev, uint64_t hash, char *path, size_t size,
                            uint64_t *key) {
  char dir[4096];
  if (!hy_cl_cache_dir(dir, sizeof dir)) return 0;
  *key = hy_cl_cache_key(dev, hash);
  int n = snprintf(path, size, "%s/opencl-%016llx.bin", dir, (unsigned long long)*key);
  return n > 0 && (size_t)n < size;
}

cl_program hy_cl_cache_load(hy_cl_device *dev, uint64_t hash) {
  char path[4200];
  uint64_t key;
  if (!hy_cl_cache_path(dev, hash, path, sizeof path, &key)) return NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  hy_cl_cache_header hdr;
  unsigned char *bin = NULL;
  cl_program program = NULL;
  if (fread(&hdr, sizeof hdr, 1, f) != 1) goto done;
  if (memcmp(hdr.magic, hy_cl_magic, sizeof hy_cl_magic) != 0 || hdr.key != key) goto done;
  if (hdr.size == 0 || hdr.size > ((uint64_t)1 << 31)) goto done;
  bin = malloc((size_t)hdr.size);
  if (!bin || fread(bin, 1, (size_t)hdr.size, f) != hdr.size) goto done;
  if (fgetc(f) != EOF) goto done; /* trailing bytes: not a file we wrote */
  if (hy_hash_bytes(HY_HASH_INIT, bin, (size_t)hdr.size) != hdr.checksum) goto done;
  {
    const hy_cl_api *api = dev->api;
    size_t len = (size_t)hdr.size;
    const unsigned char *bins[1] = {bin};
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    program = api->CreateProgramWithBinary(dev->context, 1, &dev->device, &len, bins, &status, &err);
    if (program && (err != CL_SUCCESS || status != CL_SUCCESS)) {
      api->ReleaseProgram(program);
      program = NULL;
    }
    if (program && api->BuildProgram(program, 1, &dev->device, "", NULL, NULL) != CL_SUCCESS) {
      api->ReleaseProgram(program);
      program = NULL;
    }
  }
done:
  free(bin);
  fclose(f);
  return program;
}

void hy_cl_cache_store(hy_cl_device *dev, uint64_t hash, cl_program program) {
  char path[4200];
  uint64_t key;
  if (!hy_cl_cache_path(dev, hash, path, sizeof path, &key)) return;
  const hy_cl_api *api = dev->api;
  size_t size = 0;
  if (api->GetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0)
    return;
  unsigned char *bin = malloc(size);
  if (!bin) return;
  unsigned char *bins[1] = {bin};
  if (api->GetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) != CL_SUCCESS) {
    free(bin);
    return;
  }
  hy_cl_cache_header hdr;
  memcpy(hdr.magic, hy_cl_magic, sizeof hy_cl_magic);
  hdr.key = key;
  hdr.size = size;
  hdr.checksum = hy_hash_bytes(HY_HASH_INIT, bin, size);
  static unsigned long counter;
  unsigned long unique = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lu.%p", path, (long)getpid(), unique, (void *)dev);
  FILE *f = fopen(tmp, "wb");
  int ok = f != NULL;
  if (ok) ok = fwrite(&hdr, sizeof hdr, 1, f) == 1 && fwrite(bin, 1, size, f) == size;
  if (f && fclose(f) != 0) ok = 0;
  if (ok && rename(tmp, path) == 0) {
    pthread_mutex_lock(&dev->lock);
    dev->disk_writes++;
    pthread_mutex_unlock(&dev->lock);
  } else if (f) {
    unlink(tmp);
  }
  free(bin);
}
