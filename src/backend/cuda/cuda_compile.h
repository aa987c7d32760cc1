/* Several generated CUDA translation units through NVRTC at once: the
 * kernels of one plan, compiled one unit per kernel on parallel threads,
 * so that a cold plan costs its largest kernel's compile instead of the
 * sum of all of them. */
#ifndef HY_CUDA_COMPILE_H
#define HY_CUDA_COMPILE_H

#include "backend/cuda/cuda_api.h"
#include "codegen/codegen.h"

typedef struct hy_cuda_unit {
  const char *name;   /* for messages: the kernel the unit holds */
  const char *source; /* NUL-terminated CUDA C */
  void *image;        /* out: hy_malloc'ed CUBIN, or PTX when is_ptx */
  size_t size;
  int is_ptx;
} hy_cuda_unit;

/* Compile units[0..n) for sm_<arch> (as hy_cuda_compile does each) on up
 * to `threads` threads, the calling one included; NVRTC is thread-safe for
 * distinct programs. On success every unit holds its image. On failure no
 * unit holds one (all freed, NULL), and the status and detail message are
 * those of the failing unit of lowest index (with its NVRTC log, prefixed
 * by its name); units not started after a failure are skipped. */
hy_status hy_cuda_compile_units(hy_cuda_unit *units, int n, int arch, int threads);

/* The images of n <= HY_MAX_KERNELS units: each from the disk cache under
 * keys[i] when there (from_disk[i] = 1), the others compiled in parallel
 * (on up to hy_num_threads() threads) and stored under their keys. On
 * failure no unit holds an image. */
hy_status hy_cuda_units_build(hy_cuda_unit *units, const uint64_t *keys, int *from_disk, int n,
                              int arch);

#endif /* HY_CUDA_COMPILE_H */
