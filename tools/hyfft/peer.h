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
  /* Load the runtime; 0 on success, else a reason in err. Called once. */
  int (*load)(char *err, size_t errlen);
  /* Plan `problem` (validated, strides in elements as in hyfft) on these
   * buffers with `threads` threads; `measure` asks for the peer's measured
   * planning (FFTW_MEASURE) rather than its estimate. May overwrite the
   * buffers (the caller fills them afterwards). Returns 0 and *state, or a
   * reason in err. */
  int (*plan)(const hyfft_problem *problem, void *in, void *out, int threads, int measure,
              void **state, char *err, size_t errlen);
  /* Run once and return when the result is in `out`. 0 on success. */
  int (*run)(void *state, void *in, void *out);
  /* Whether run() may overwrite its input (then the caller refills it). */
  int (*destroys_input)(const hyfft_problem *problem);
  void (*destroy)(void *state);
  /* Optional (NULL: the caller times run() on the host clock): `warmup`
   * untimed runs, then `runs` runs timed on the device (CUDA events);
   * *median gets the median seconds of one run. 0 on success. */
  int (*time)(void *state, void *in, void *out, int warmup, int runs, double *median);
} cli_peer;

/* The peer named `name` ("fftw", "cufft"), or NULL. */
const cli_peer *cli_peer_find(const char *name);
/* Comma-separated names of the peers built into this tool. */
const char *cli_peer_names(void);

extern const cli_peer cli_peer_fftw;
extern const cli_peer cli_peer_cufft;

/* hyfft on a CUDA context timed exactly like the cuFFT peer (CUDA events on
 * a stream of the buffers' primary context): median of `runs` after
 * `warmup`, in seconds. -1 when the CUDA driver cannot be used. Defined in
 * peer_cufft.c. */
int cli_cuda_time_plan(hyfft_plan plan, const void *in, void *out, int warmup, int runs,
                       double *median);

#endif /* HYFFT_CLI_PEER_H */
