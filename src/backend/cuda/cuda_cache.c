/* On-disk cache of compiled CUDA images, so that a second process plans in
 * milliseconds instead of waiting for NVRTC: the shared disk cache
 * (util/disk_cache.h), files cuda-<key>.bin. */
#include "backend/cuda/cuda_api.h"
#include "util/disk_cache.h"

static const hy_disk_kind hy_cuda_images = {"cuda", "HYFFTCU3", NULL};

void hy_cuda_cache_path(uint64_t key, char *path, size_t path_size) {
  hy_disk_cache_path(&hy_cuda_images, key, path, path_size);
}

hy_status hy_cuda_cache_load(uint64_t key, void **image, size_t *size) {
  return hy_disk_cache_load(&hy_cuda_images, key, image, size);
}

void hy_cuda_cache_store(uint64_t key, const void *image, size_t size) {
  hy_disk_cache_store(&hy_cuda_images, key, image, size);
}
