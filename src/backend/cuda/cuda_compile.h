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
/* At most this many options from $HYFFT_NVRTC_OPTIONS are used. */
#define HY_NVRTC_EXTRA_MAX 8
/* h with what changes a compile besides the source and target folded in
 * ($HYFFT_NVRTC_OPTIONS, $HYFFT_CUDA_LINEINFO): part of every image key. */
uint64_t hy_cuda_options_hash(uint64_t h);

hy_status hy_cuda_compile_units(hy_cuda_unit *units, int n, int arch, int threads);

/* The images of n <= HY_MAX_KERNELS units: each from the disk cache under
 * keys[i] when there (from_disk[i] = 1), the others compiled in parallel
 * (on up to hy_num_threads() threads) and stored under their keys. On
 * failure no unit holds an image. */
hy_status hy_cuda_units_build(hy_cuda_unit *units, const uint64_t *keys, int *from_disk, int n,
                              int arch);

/* One unit compiled on a thread of its own while the caller goes on: a
 * plan's persistent kernel (one long compile) builds in the background
 * while the plan already runs its plain kernels (cuda_plan.c).
 *
 * hy_cuda_background_start copies the source and starts the thread, which
 * compiles it for sm_<arch> and stores the image in the disk cache under
 * `key`. hy_cuda_background_done says, without waiting, whether it has
 * finished. hy_cuda_background_finish waits for it and hands over the
 * image (hy_malloc'ed; the caller frees it), or returns the compile's
 * status with its message (NVRTC's log). hy_cuda_background_free waits
 * for the thread if it still runs, then frees everything; NULL is fine. */
typedef struct hy_cuda_background hy_cuda_background;
hy_status hy_cuda_background_start(const char *source, int arch, uint64_t key,
                                   hy_cuda_background **job);
int hy_cuda_background_done(const hy_cuda_background *job);
hy_status hy_cuda_background_finish(hy_cuda_background *job, void **image, size_t *size);
void hy_cuda_background_free(hy_cuda_background *job);

#endif /* HY_CUDA_COMPILE_H */
