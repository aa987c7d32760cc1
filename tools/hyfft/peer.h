/* Peer libraries that `hyfft bench --vs NAME` times against hyfft on the
 * same data in the same process. A peer is a small table of functions,
 * loaded with dlopen so that no peer is a build dependency. To add one,
 * write peer_NAME.c defining `const cli_peer cli_peer_NAME` and list it in
 * peer.c. */
#ifndef HYFFT_CLI_PEER_H
#define HYFFT_CLI_PEER_H

#include <stddef.h>

#include "hyfft.h"

typedef struct cli_peer {
  const char *name; /* the --vs name, also the row label */
  /* Where its buffers live: HYFFT_MEMORY_HOST (host copies of the data) or
   * HYFFT_MEMORY_DEVICE (the same device buffers hyfft uses; only offered
   * when the context's backend is `device_backend`). */
  hyfft_memory memory;
  hyfft_backend_id device_backend;
  /* Set: the peer runs on whatever buffers hyfft executes on, on every
   * backend (device buffers on a GPU context, host memory on the CPU);
   * `memory` and `device_backend` are then ignored and plan() learns the
   * backend from its `backend` argument. For one name that works
   * everywhere (the copy floor). */
  int any_device;
  /* Set: the peer does not compute the transform, so its output is not
   * checked and its row carries no accuracy, GFLOP/s or ratio. */
  int no_accuracy;
  /* Optional (NULL: the transform's, cli_layout_bytes): the bytes one run
   * reads plus writes, for the row's GB/s. */
  double (*moved_bytes)(const hyfft_problem *problem);
  /* Load the runtime; 0 on success, else a reason in err. Called once. */
  int (*load)(char *err, size_t errlen);
  /* Plan `problem` (validated, strides in elements as in hyfft) on these
   * buffers with `threads` threads; `backend` is the backend of hyfft's
   * context (which says what kind of device buffer `in` and `out` are);
   * `rigor` is how hard the peer plans where it has a choice: 0 its
   * estimate (FFTW_ESTIMATE), 1 measured (FFTW_MEASURE), 2 its most
   * thorough search short of exhaustive (FFTW_PATIENT). May overwrite the
   * buffers (the caller fills them afterwards). Returns 0 and *state, or a
   * reason in err. */
  int (*plan)(const hyfft_problem *problem, hyfft_backend_id backend, void *in, void *out,
              int threads, int rigor, void **state, char *err, size_t errlen);
  /* Run once and return when the result is in `out`. 0 on success. */
  int (*run)(void *state, void *in, void *out);
  /* Whether run() may overwrite its input (then the caller refills it). */
  int (*destroys_input)(const hyfft_problem *problem);
  void (*destroy)(void *state);
  /* Optional (NULL: the caller times run() on the host clock): `warmup`
   * untimed runs, then `runs` runs timed on the device (CUDA events);
   * *median gets the median seconds of one run. 0 on success, 1 when this
   * state has no device timer (the caller then times run() on the host
   * clock, as for NULL), else failure. */
  int (*time)(void *state, void *in, void *out, int warmup, int runs, double *median);
  /* Optional: the row's note for a floor (no_accuracy) peer, in place of
   * "NAME floor". */
  void (*describe)(void *state, char *buf, size_t len);
} cli_peer;

/* The peer named `name` ("fftw", "cufft", "copy", "cufft-host", "bus", "vkfft"),
 * or NULL. */
const cli_peer *cli_peer_find(const char *name);
/* Comma-separated names of the peers built into this tool. */
const char *cli_peer_names(void);

extern const cli_peer cli_peer_fftw;
extern const cli_peer cli_peer_cufft_host;
extern const cli_peer cli_peer_bus;
extern const cli_peer cli_peer_vkfft;
/* cuFFT on hyfft's device buffers; R2R problems (DCT-II/III) through the
 * route a user writes around it (peer_cufft_r2r.c). */
extern const cli_peer cli_peer_cufft;
/* Not a library: a device-to-device copy of the problem's bytes from
 * hyfft's input buffer to its output buffer, the floor of a one-pass
 * transform (one read plus one write); bench reports hyfft's %copy. */
extern const cli_peer cli_peer_copy;

/* hyfft on a CUDA context timed exactly like the cuFFT peer (CUDA events on
 * a stream of the buffers' primary context): median of `runs` after
 * `warmup`, in seconds. -1 when the CUDA driver cannot be used. Defined in
 * peer_cufft.c. */
int cli_cuda_time_plan(hyfft_plan plan, const void *in, void *out, int warmup, int runs,
                       double *median);

#endif /* HYFFT_CLI_PEER_H */
