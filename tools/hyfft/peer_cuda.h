/* The CUDA driver as the peers see it: loaded once with dlopen by
 * peer_cufft.c and shared with peer_copy.c, so that the copy floor is timed
 * by the very loop (CUDA events on a stream of the buffers' primary
 * context) that times cuFFT and hyfft. Internal to the tool. */
#ifndef HYFFT_CLI_PEER_CUDA_H
#define HYFFT_CLI_PEER_CUDA_H

#include <stddef.h>

typedef int cli_cu_result;
typedef struct cli_cu_ctx *cli_cu_context;
typedef struct cli_cu_stream *cli_cu_stream;
typedef struct cli_cu_event *cli_cu_event;
typedef unsigned long long cli_cu_ptr;

#define CLI_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9

/* The driver calls the peers need (context, stream, events, copies). */
typedef struct cli_cu_driver {
  cli_cu_result (*init)(unsigned);
  cli_cu_result (*pointer_attr)(void *data, int attr, cli_cu_ptr ptr);
  cli_cu_result (*primary_retain)(cli_cu_context *ctx, int dev);
  cli_cu_result (*primary_release)(int dev);
  cli_cu_result (*push)(cli_cu_context ctx);
  cli_cu_result (*pop)(cli_cu_context *ctx);
  cli_cu_result (*stream_create)(cli_cu_stream *s, unsigned flags);
  cli_cu_result (*stream_destroy)(cli_cu_stream s);
  cli_cu_result (*stream_sync)(cli_cu_stream s);
  cli_cu_result (*event_create)(cli_cu_event *e, unsigned flags);
  cli_cu_result (*event_destroy)(cli_cu_event e);
  cli_cu_result (*event_record)(cli_cu_event e, cli_cu_stream s);
  cli_cu_result (*event_sync)(cli_cu_event e);
  cli_cu_result (*event_elapsed)(float *ms, cli_cu_event a, cli_cu_event b);
  cli_cu_result (*memcpy_dtod_async)(cli_cu_ptr dst, cli_cu_ptr src, size_t bytes,
                                     cli_cu_stream s);
  /* Host-side buffers and bus copies, for the host-data peers
   * (peer_cufft_host.c). */
  cli_cu_result (*mem_alloc)(cli_cu_ptr *ptr, size_t bytes);
  cli_cu_result (*mem_free)(cli_cu_ptr ptr);
  cli_cu_result (*mem_alloc_host)(void **ptr, size_t bytes);
  cli_cu_result (*mem_free_host)(void *ptr);
  cli_cu_result (*memcpy_htod)(cli_cu_ptr dst, const void *src, size_t bytes);
  cli_cu_result (*memcpy_dtoh)(void *dst, cli_cu_ptr src, size_t bytes);
  cli_cu_result (*memcpy_htod_async)(cli_cu_ptr dst, const void *src, size_t bytes,
                                     cli_cu_stream s);
  cli_cu_result (*memcpy_dtoh_async)(void *dst, cli_cu_ptr src, size_t bytes, cli_cu_stream s);
  cli_cu_result (*host_register)(void *ptr, size_t bytes, unsigned flags);
  cli_cu_result (*host_unregister)(void *ptr);
  int loaded;
} cli_cu_driver;

/* The CUDA device ordinal of bench's context (-1: not a CUDA context); the
 * host-data peers allocate their device buffers there. */
extern int cli_cuda_ordinal;

/* Valid after cli_cu_load() returned 0. */
extern cli_cu_driver cli_cu;

/* Load libcuda.so.1 and cuInit (once); 0 on success, else a reason in err. */
int cli_cu_load(char *err, size_t errlen);

/* Page-lock `bytes` of host memory at `ptr` for every CUDA context
 * (cuMemHostRegister, portable), as a user with pinned buffers has them:
 * `bench --pinned`. 0 on success, else a reason in err. */
int cli_cuda_pin(void *ptr, size_t bytes, char *err, size_t errlen);
void cli_cuda_unpin(void *ptr);

/* Median of `runs` event-timed executions after `warmup` untimed ones;
 * `enqueue` puts one execution on `stream`, with `ctx` made current for
 * the loop. */
int cli_cuda_time_loop(cli_cu_context ctx, cli_cu_stream stream, cli_cu_event e0, cli_cu_event e1,
                       int (*enqueue)(void *, void *, void *), void *arg, void *in, void *out,
                       int warmup, int runs, double *median);

/* The copy floor of a convolution (peer_copy.c): `times` copies of the
 * `bytes` at src into consecutive parts of dst (the output of K filters
 * written once from the input), event-timed like the peers. 0, or -1 with
 * a reason. */
int cli_cuda_copy_fan_time(const void *src, void *dst, size_t bytes, int times, int warmup,
                           int runs, double *median, char *err, size_t errlen);

/* cuFFT's entry points (peer_cufft.c), valid after cli_cufft_load
 * returned 0; shared with the convolution peer (peer_cufft_conv.c). */
typedef struct cli_cufft_api {
  int (*create)(int *plan);
  int (*make_many64)(int plan, int rank, long long *n, long long *inembed, long long istride,
                     long long idist, long long *onembed, long long ostride, long long odist,
                     int type, long long batch, size_t *work);
  int (*set_stream)(int plan, cli_cu_stream s);
  int (*destroy)(int plan);
  int (*get_version)(int *version);
  int (*exec_c2c)(int plan, void *in, void *out, int dir);
  int (*exec_z2z)(int plan, void *in, void *out, int dir);
  int (*exec_r2c)(int plan, void *in, void *out);
  int (*exec_d2z)(int plan, void *in, void *out);
  int (*exec_c2r)(int plan, void *in, void *out);
  int (*exec_z2d)(int plan, void *in, void *out);
  /* cuFFT's Xt entry points for f16/bf16 data (NULL where the library
   * lacks them): cudaDataType codes for each side and the execution. */
  int (*xt_make_many)(int plan, int rank, long long *n, long long *inembed, long long istride,
                      long long idist, int itype, long long *onembed, long long ostride,
                      long long odist, int otype, long long batch, size_t *work, int etype);
  int (*xt_exec)(int plan, void *in, void *out, int dir);
} cli_cufft_api;
extern cli_cufft_api cli_cufft;
/* Load the driver and libcufft (once); 0 on success, else a reason. */
int cli_cufft_load(char *err, size_t errlen);

typedef struct cli_cu_module *cli_cu_module;
typedef struct cli_cu_function *cli_cu_function;

/* The driver's module and launch calls and NVRTC (peer_cufft_conv.c),
 * valid after cli_cu_rtc_load returned 0: the peers that compile small
 * kernels of their own at run time (the cuFFT convolution's multiply, the
 * cuFFT DCT route's pre- and post-kernels). */
typedef struct cli_cu_rtc_api {
  cli_cu_result (*module_load)(cli_cu_module *m, const void *image);
  cli_cu_result (*module_unload)(cli_cu_module m);
  cli_cu_result (*module_function)(cli_cu_function *f, cli_cu_module m, const char *name);
  cli_cu_result (*launch)(cli_cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shared, cli_cu_stream s,
                          void **params, void **extra);
  int (*nvrtc_create)(void **prog, const char *src, const char *name, int nh,
                      const char *const *headers, const char *const *names);
  int (*nvrtc_compile)(void *prog, int nopt, const char *const *opts);
  int (*nvrtc_ptx_size)(void *prog, size_t *size);
  int (*nvrtc_ptx)(void *prog, char *ptx);
  int (*nvrtc_destroy)(void **prog);
  int (*nvrtc_log_size)(void *prog, size_t *size); /* optional (NULL) */
  int (*nvrtc_log)(void *prog, char *log);         /* optional (NULL) */
  int loaded;
} cli_cu_rtc_api;
extern cli_cu_rtc_api cli_rtc;
/* Load the driver, cuFFT and NVRTC (once); 0 on success, else a reason. */
int cli_cu_rtc_load(char *err, size_t errlen);
/* PTX (compute_80, JIT-compiled by the driver for the device) of the CUDA
 * program `src`; malloc'd, or NULL with a reason (the compile log). */
char *cli_cu_rtc_ptx(const char *src, const char *name, char *err, size_t errlen);

/* The cuFFT peer's route for R2R problems (peer_cufft_r2r.c): DCT-II or
 * DCT-III, the same kind on every axis, contiguous, as Makhoul's reorder
 * kernel, one N-D cuFFT R2C/C2R and a twiddle kernel (NVRTC). The cufft
 * peer hands R2R problems to these. */
struct hyfft_problem;
int cli_cufft_r2r_plan(const struct hyfft_problem *p, void *in, void *out, void **state,
                       char *err, size_t errlen);
int cli_cufft_r2r_run(void *state, void *in, void *out);
int cli_cufft_r2r_time(void *state, void *in, void *out, int warmup, int runs, double *median);
void cli_cufft_r2r_destroy(void *state);

#endif /* HYFFT_CLI_PEER_CUDA_H */
