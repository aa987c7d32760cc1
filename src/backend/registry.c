/* The compiled-in backends, in the order "auto" tries them. */
#include "backend/backend.h"

static const hy_backend *const hy_backend_list[] = {
#ifdef HYFFT_WITH_CUDA
    &hy_backend_cuda,
#endif
#ifdef HYFFT_WITH_OPENCL
    &hy_backend_opencl,
#endif
    &hy_backend_cpu,
};

const hy_backend *const *hy_backends(int *count) {
  *count = (int)(sizeof hy_backend_list / sizeof hy_backend_list[0]);
  return hy_backend_list;
}

const hy_backend *hy_backend_by_id(hyfft_backend_id id) {
  int n;
  const hy_backend *const *all = hy_backends(&n);
  for (int i = 0; i < n; i++)
    if (all[i]->id == id) return all[i];
  return NULL;
}
