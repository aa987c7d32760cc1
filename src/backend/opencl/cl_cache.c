/* Disk cache of compiled OpenCL programs: the shared disk cache
 * (util/disk_cache.h), one file opencl-<key>.bin per program, the key
 * covering the program hash, the device name, the platform and driver
 * versions and HY_CODEGEN_VERSION. A binary that fails the cache's checks
 * (magic, key, size, checksum), or that the driver refuses, is ignored and
 * rewritten by the next build. */
#include <string.h>

#include "backend/opencl/cl_internal.h"
#include "util/disk_cache.h"

static const hy_disk_kind hy_cl_programs = {"opencl", "HYFFTCL3", NULL};

static uint64_t hy_cl_cache_key(const hy_cl_device *dev, uint64_t hash) {
  uint64_t h = hy_hash_u64(HY_HASH_INIT, hash);
  h = hy_hash_str(h, dev->info.name);
  h = hy_hash_str(h, dev->info.platform);
  h = hy_hash_str(h, dev->driver);
  return hy_hash_u64(h, HY_CODEGEN_VERSION);
}

cl_program hy_cl_cache_load(hy_cl_device *dev, uint64_t hash) {
  void *bin = NULL;
  size_t len = 0;
  if (hy_disk_cache_load(&hy_cl_programs, hy_cl_cache_key(dev, hash), &bin, &len) != HYFFT_SUCCESS)
    return NULL;
  const hy_cl_api *api = dev->api;
  const unsigned char *bins[1] = {bin};
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program program =
      api->CreateProgramWithBinary(dev->context, 1, &dev->device, &len, bins, &status, &err);
  if (program && (err != CL_SUCCESS || status != CL_SUCCESS)) {
    api->ReleaseProgram(program);
    program = NULL;
  }
  if (program && api->BuildProgram(program, 1, &dev->device, "", NULL, NULL) != CL_SUCCESS) {
    api->ReleaseProgram(program);
    program = NULL;
  }
  hy_free(bin);
  return program;
}

void hy_cl_cache_store(hy_cl_device *dev, uint64_t hash, cl_program program) {
  const hy_cl_api *api = dev->api;
  size_t size = 0;
  if (api->GetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0)
    return;
  unsigned char *bin = hy_malloc(size);
  if (!bin) return;
  unsigned char *bins[1] = {bin};
  if (api->GetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS &&
      hy_disk_cache_store(&hy_cl_programs, hy_cl_cache_key(dev, hash), bin, size)) {
    pthread_mutex_lock(&dev->lock);
    dev->disk_writes++;
    pthread_mutex_unlock(&dev->lock);
  }
  hy_free(bin);
}
