/*
 * hyfft: fast Fourier transforms for GPUs and CPUs.
 *
 * The public API. Everything here is C11; nothing else in the library is
 * visible to users. Conventions:
 *   - every function returns an hyfft_status; HYFFT_SUCCESS is 0;
 *   - on error nothing is written to the caller's output arguments or data,
 *     and hyfft_last_error() returns a message naming the bad part;
 *   - transforms are unnormalised (FFTW and cuFFT convention) unless a scale
 *     is given;
 *   - complex data is interleaved (re, im) pairs of float or double;
 *   - sizes and strides are 64-bit and counted in elements (complex elements
 *     for complex data, real elements for real data).
 */
#ifndef HYFFT_H
#define HYFFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HYFFT_STATIC_DEFINE)
#define HYFFT_API
#elif defined(HYFFT_BUILDING_LIBRARY)
#define HYFFT_API __attribute__((visibility("default")))
#else
#define HYFFT_API
#endif

#define HYFFT_VERSION_MAJOR 0
#define HYFFT_VERSION_MINOR 1
#define HYFFT_VERSION_PATCH 0

/* ------------------------------------------------------------------------ */
/* Status codes: one table generates the enum, the names and the messages.  */
/* ------------------------------------------------------------------------ */

#define HYFFT_STATUS_MAP(XX)                                                   \
  XX(SUCCESS, 0, "success")                                                    \
  XX(NULL_POINTER, 1, "a required pointer argument is NULL")                   \
  XX(INVALID_HANDLE, 2, "the handle is not a live hyfft object")               \
  XX(INVALID_SIZE, 3, "a transform or batch length is not positive")           \
  XX(INVALID_RANK, 4, "the number of transform or batch dimensions is out of range") \
  XX(INVALID_STRIDE, 5, "a stride is invalid for this layout")                 \
  XX(SIZE_OVERFLOW, 6, "a size or stride product overflows 64-bit arithmetic") \
  XX(INVALID_SIGN, 7, "the transform sign is neither -1 (forward) nor +1 (backward)") \
  XX(INVALID_KIND, 8, "the transform kind is not C2C, R2C, C2R or R2R (with valid r2r kinds)") \
  XX(INVALID_PRECISION, 9, "the precision is not f32, f64, f16 or bf16")      \
  XX(INVALID_ARGUMENT, 10, "an argument is outside its valid range")          \
  XX(INVALID_TOKEN, 11, "the problem token is malformed")                      \
  XX(INVALID_DEVICE, 12, "the device specification names no usable device")    \
  XX(INPLACE_LAYOUT, 13, "an in-place transform needs identical input and output layouts") \
  XX(ALIASING, 14, "input and output buffers overlap but are not the same buffer") \
  XX(WRONG_MEMORY, 15, "the data pointers are not in the memory the plan was made for") \
  XX(NOT_SUPPORTED, 16, "the selected backend does not support this yet")      \
  XX(NO_SOLVER, 17, "no solver can plan this problem on this backend")         \
  XX(OUT_OF_MEMORY, 18, "memory allocation failed")                            \
  XX(BACKEND_UNAVAILABLE, 19, "the backend's runtime library was not found")  \
  XX(BACKEND_ERROR, 20, "a call into the backend's runtime failed")           \
  XX(COMPILE_ERROR, 21, "a generated kernel failed to compile")               \
  XX(IO_ERROR, 22, "reading or writing a file failed")                         \
  XX(INVALID_WISDOM, 23, "the wisdom text is malformed")                       \
  XX(BUFFER_TOO_SMALL, 24, "the caller's buffer is too small")                 \
  XX(INTERNAL, 25, "internal error in hyfft (please report it)")

typedef enum hyfft_status {
#define HYFFT_STATUS_ENUM_(name, value, message) HYFFT_##name = value,
  HYFFT_STATUS_MAP(HYFFT_STATUS_ENUM_)
#undef HYFFT_STATUS_ENUM_
  HYFFT_STATUS_COUNT_
} hyfft_status;

/* "HYFFT_INVALID_SIZE" etc.; "HYFFT_UNKNOWN_STATUS" for a value not in the table. */
HYFFT_API const char *hyfft_status_name(hyfft_status status);
/* The table's one-line message for a status. */
HYFFT_API const char *hyfft_strerror(hyfft_status status);
/* The detail message of the last failed call on this thread ("" if none). */
HYFFT_API const char *hyfft_last_error(void);

HYFFT_API const char *hyfft_version_string(void);

/* ------------------------------------------------------------------------ */
/* Problems                                                                 */
/* ------------------------------------------------------------------------ */

#define HYFFT_MAX_RANK 8       /* transform dimensions */
#define HYFFT_MAX_BATCH_RANK 8 /* batch (howmany) dimensions */

#define HYFFT_FORWARD (-1)
#define HYFFT_BACKWARD (+1)

typedef enum hyfft_kind {
  HYFFT_C2C = 0,
  HYFFT_R2C = 1,
  HYFFT_C2R = 2,
  HYFFT_R2R = 3 /* real to real: one hyfft_r2r_kind per transform dim (r2r_kind[]) */
} hyfft_kind;

/* The real-to-real transforms of FFTW (fftw_r2r_kind), with FFTW's exact
 * definitions and normalisations (unnormalised; docs/api.md, "Real-to-real
 * transforms"). 0 means "not r2r". REDFT00 needs n >= 2, the others
 * n >= 1. */
typedef enum hyfft_r2r_kind {
  HYFFT_R2R_NONE = 0,
  HYFFT_REDFT00 = 1, /* DCT-I   Y_k = x_0 + (-1)^k x_{n-1} + 2 sum_{j=1}^{n-2} x_j cos(pi j k/(n-1)) */
  HYFFT_REDFT10 = 2, /* DCT-II  Y_k = 2 sum_j x_j cos(pi (j+1/2) k / n) */
  HYFFT_REDFT01 = 3, /* DCT-III Y_k = x_0 + 2 sum_{j>=1} x_j cos(pi j (k+1/2) / n) */
  HYFFT_REDFT11 = 4, /* DCT-IV  Y_k = 2 sum_j x_j cos(pi (j+1/2) (k+1/2) / n) */
  HYFFT_RODFT00 = 5, /* DST-I   Y_k = 2 sum_j x_j sin(pi (j+1) (k+1) / (n+1)) */
  HYFFT_RODFT10 = 6, /* DST-II  Y_k = 2 sum_j x_j sin(pi (j+1/2) (k+1) / n) */
  HYFFT_RODFT01 = 7, /* DST-III Y_k = (-1)^k x_{n-1} + 2 sum_{j<n-1} x_j sin(pi (j+1) (k+1/2) / n) */
  HYFFT_RODFT11 = 8, /* DST-IV  Y_k = 2 sum_j x_j sin(pi (j+1/2) (k+1/2) / n) */
  HYFFT_DHT = 9      /* Hartley Y_k = sum_j x_j (cos(2 pi j k/n) + sin(2 pi j k/n)) */
} hyfft_r2r_kind;

/* The precision of the data in memory. F16 (IEEE 754 binary16) and BF16
 * (bfloat16) are storage formats: a real element is one half, a complex
 * element two (4 bytes, real part first), and the transform computes in
 * f32 with f32 twiddles, converting on load and store. They serve C2C, R2C
 * and C2R problems; R2R is refused with HYFFT_NOT_SUPPORTED (docs/api.md,
 * "Half precision"). */
typedef enum hyfft_precision {
  HYFFT_F32 = 0,
  HYFFT_F64 = 1,
  HYFFT_F16 = 2, /* IEEE binary16: 1 sign, 5 exponent, 10 fraction bits */
  HYFFT_BF16 = 3 /* bfloat16: the upper 16 bits of an f32 */
} hyfft_precision;

/* Where the data given to hyfft_execute lives. */
typedef enum hyfft_memory {
  HYFFT_MEMORY_HOST = 0,  /* ordinary host memory */
  HYFFT_MEMORY_DEVICE = 1 /* device memory of the context (CUDA pointer, cl_mem) */
} hyfft_memory;

/* One dimension in FFTW guru style: length and the element strides in the
 * input and in the output. */
typedef struct hyfft_dim {
  int64_t n;
  int64_t in_stride;
  int64_t out_stride;
} hyfft_dim;

/* A full problem description. Transform dims are listed slowest first (row
 * major); for R2C and C2R the last transform dim is the one halved
 * (n/2+1 complex elements on the complex side). C2R treats the imaginary
 * parts of bins 0 and n/2 as zero (as FFTW does) and, out of place, leaves
 * its input unchanged unless planned with HYFFT_DESTROY_INPUT. R2C/C2R run on every backend (on CUDA and OpenCL
 * not yet for a real axis of a prime length too long for one pass:
 * HYFFT_NOT_SUPPORTED). R2R problems (ranks 1..3) hold reals on both sides,
 * laid out like C2C; their sign is ignored and r2r_kind[d] names the
 * transform along dims[d]. */
typedef struct hyfft_problem {
  hyfft_kind kind;
  hyfft_precision precision;
  int sign; /* HYFFT_FORWARD or HYFFT_BACKWARD; R2C must be forward, C2R backward */
  int rank; /* 1..HYFFT_MAX_RANK */
  hyfft_dim dims[HYFFT_MAX_RANK];
  int batch_rank; /* 0..HYFFT_MAX_BATCH_RANK */
  hyfft_dim batch[HYFFT_MAX_BATCH_RANK];
  int inplace;         /* 1: hyfft_execute must be given in == out */
  double scale;        /* multiplies every output element; 0 means 1 */
  hyfft_memory memory; /* where the data lives */
  /* R2R only: the transform along each dim (entries past rank ignored).
   * Last, so the fields before keep their offsets; hyfft reads and writes
   * it only for kind R2R, so that programs built before it existed (a
   * shorter struct) work unchanged: for the other kinds it is ignored and
   * left as it was. */
  hyfft_r2r_kind r2r_kind[HYFFT_MAX_RANK];
} hyfft_problem;

/* Fill *problem with a contiguous, unbatched, out-of-place problem of the
 * given shape (row major, n[rank-1] varies fastest). */
HYFFT_API hyfft_status hyfft_problem_init(hyfft_problem *problem, hyfft_kind kind,
                                          hyfft_precision precision, int sign, int rank,
                                          const int64_t *n);

/* Fill *problem with a contiguous, unbatched, out-of-place R2R problem:
 * kinds[d] along n[d] (like fftw_plan_r2r). */
HYFFT_API hyfft_status hyfft_problem_init_r2r(hyfft_problem *problem, hyfft_precision precision,
                                              int rank, const int64_t *n,
                                              const hyfft_r2r_kind *kinds);

/* Parse a problem token (see docs/api.md, e.g. "c2c:f32:fwd:1024x1024:b64"). */
HYFFT_API hyfft_status hyfft_problem_parse(const char *token, hyfft_problem *problem);

/* Print a problem as a token into buf (NUL terminated). *needed (optional)
 * receives the length without the NUL; HYFFT_BUFFER_TOO_SMALL if it does not
 * fit. */
HYFFT_API hyfft_status hyfft_problem_print(const hyfft_problem *problem, char *buf,
                                           size_t buf_size, size_t *needed);

/* ------------------------------------------------------------------------ */
/* Contexts: a backend, a device and their caches.                          */
/* ------------------------------------------------------------------------ */

typedef struct hyfft_context_s *hyfft_context;
typedef struct hyfft_plan_s *hyfft_plan;

/* device_spec: "auto", "cpu", "cuda", "cuda:N", "opencl", "opencl:P:D"; NULL
 * means $HYFFT_DEVICE or "auto" (the best device found: CUDA, then OpenCL
 * GPUs, then the CPU). */
HYFFT_API hyfft_status hyfft_context_create(const char *device_spec, hyfft_context *context);
HYFFT_API hyfft_status hyfft_context_destroy(hyfft_context context);

typedef enum hyfft_backend_id {
  HYFFT_BACKEND_CPU = 0,
  HYFFT_BACKEND_CUDA = 1,
  HYFFT_BACKEND_OPENCL = 2
} hyfft_backend_id;

typedef struct hyfft_device_info {
  hyfft_backend_id backend;
  char spec[64];         /* the spec string that selects this device */
  char name[128];        /* device name as the runtime reports it */
  char platform[128];    /* OpenCL platform or CUDA driver version; "" on CPU */
  int compute_units;     /* cores / SMs / compute units */
  int64_t global_memory; /* bytes */
  int64_t local_memory;  /* shared/local memory per block in bytes (0 on CPU) */
  int64_t l2_cache;      /* bytes, 0 if unknown */
  int max_work_group;    /* threads per block (0 on CPU) */
  int supports_f64;
  int is_gpu;            /* "auto" prefers GPUs over CPU devices */
} hyfft_device_info;

/* Enumerate the devices of every backend that could be loaded. Call with
 * index 0,1,...; returns HYFFT_INVALID_ARGUMENT past the last one.
 * *count (optional) receives the number of devices. */
HYFFT_API hyfft_status hyfft_device_get(int index, hyfft_device_info *info, int *count);
/* The device a context runs on. */
HYFFT_API hyfft_status hyfft_context_device(hyfft_context context, hyfft_device_info *info);

/* Device buffers of a context, for callers without their own runtime calls
 * (tests, the CLI). On CUDA *buffer is a device pointer, on OpenCL a cl_mem,
 * on the CPU ordinary 64-byte aligned host memory. */
HYFFT_API hyfft_status hyfft_buffer_alloc(hyfft_context context, size_t bytes, void **buffer);
HYFFT_API hyfft_status hyfft_buffer_free(hyfft_context context, void *buffer);
HYFFT_API hyfft_status hyfft_buffer_write(hyfft_context context, void *buffer, size_t offset,
                                          const void *host, size_t bytes);
HYFFT_API hyfft_status hyfft_buffer_read(hyfft_context context, const void *buffer,
                                         size_t offset, void *host, size_t bytes);
/* Wait until all work the context queued on its own queue is done. */
HYFFT_API hyfft_status hyfft_context_synchronize(hyfft_context context);

/* ------------------------------------------------------------------------ */
/* Plans                                                                    */
/* ------------------------------------------------------------------------ */

/* Planner flags. */
#define HYFFT_ESTIMATE 0u        /* plan from the cost model (default) */
#define HYFFT_MEASURE (1u << 0)  /* time candidate plans (also $HYFFT_MEASURE=1) */
/* An out-of-place plan may use its input as scratch and leave it changed
 * (FFTW_DESTROY_INPUT; FFTW's and cuFFT's default for multi-dimensional
 * C2R). Without it hyfft never writes an out-of-place plan's input. The
 * pointer stays `const void *` in hyfft_execute: the flag is the caller's
 * promise that the memory is writable. Today only multi-dimensional C2R
 * uses it (its other axes then run in place on the input instead of in a
 * workspace). */
#define HYFFT_DESTROY_INPUT (1u << 1)
/* Host data on a GPU backend, batched: let the CPU compute a share of the
 * outermost batch dim at the same time as the GPU, the share from a model
 * calibrated at plan creation by short timing runs of both, refined by
 * timing a few shares around it, and kept in wisdom, so that a later plan
 * of the problem on the device skips both (docs/api.md, "Hybrid
 * execution"). The model may give the CPU nothing. Without the flag,
 * $HYFFT_CPU_SHARE ("auto" or a fraction) asks for the same. */
#define HYFFT_HYBRID (1u << 2)
/* On a GPU context the plans share one work area that the context holds,
 * grown to the largest need of their executions (docs/api.md, "Work
 * areas"); this flag gives the plan a work area of its own instead,
 * allocated at creation. CPU plans always hold their own. */
#define HYFFT_OWN_WORKSPACE (1u << 3)

HYFFT_API hyfft_status hyfft_plan_create(hyfft_context context, const hyfft_problem *problem,
                                         unsigned flags, hyfft_plan *plan);
HYFFT_API hyfft_status hyfft_plan_token(hyfft_context context, const char *token,
                                        unsigned flags, hyfft_plan *plan);

/* Callbacks: user code fused into the transform (docs/api.md,
 * "Callbacks"). A load callback gives the value the transform sees for
 * each input element, a store callback writes each output element; both
 * take the element's offset (`index`, in elements of the caller's buffer,
 * strides and batch distances included) and a user pointer. They are part
 * of the plan: its kernels are generated and compiled with them at
 * creation, and plans are read-only afterwards, so they are given here
 * and not set on a finished plan.
 *
 * GPU contexts (CUDA, OpenCL) take source text: the body of
 *   real2 hy_load_cb(const HY_GLOBAL real2 *in, hy_i64 index, HY_GLOBAL void *user)
 *   void hy_store_cb(HY_GLOBAL real2 *out, hy_i64 index, real2 value, HY_GLOBAL void *user)
 * in the generator's C subset (real/real2 are float or double per the
 * plan, MK(re, im) builds a real2, cmul/cscale multiply); `user` is the
 * device pointer (CUDA) or cl_mem (OpenCL) given as *_user, or NULL.
 * A snippet that does not compile gives HYFFT_COMPILE_ERROR with the
 * compiler's log in hyfft_last_error, its line numbers the snippet's
 * ("load_callback":N). On the real side of R2C (its input) and C2R (its
 * output) the element is one real: real/real * instead of real2/real2 *.
 * The CPU backend takes C function pointers instead: `value` points to one
 * element of the plan's precision (float[2] or double[2]; one float or
 * double on the real side), `in`/`out` to the caller's buffers. Each form
 * is refused on the other kind of context (HYFFT_NOT_SUPPORTED). C2C, R2C
 * and C2R in f32 and f64; see docs/api.md for what else is refused. */
typedef void (*hyfft_load_fn)(void *value, const void *in, int64_t index, void *user);
typedef void (*hyfft_store_fn)(void *out, int64_t index, const void *value, void *user);
typedef struct hyfft_callbacks {
  const char *load_source;  /* GPU: body of hy_load_cb, or NULL */
  const char *store_source; /* GPU: body of hy_store_cb, or NULL */
  hyfft_load_fn load_fn;    /* CPU: or NULL */
  hyfft_store_fn store_fn;  /* CPU: or NULL */
  void *load_user;          /* `user` of the load callback */
  void *store_user;         /* `user` of the store callback */
} hyfft_callbacks;

/* hyfft_plan_create with callbacks (callbacks NULL, or all members NULL:
 * the same as hyfft_plan_create). The source texts are copied. */
HYFFT_API hyfft_status hyfft_plan_create_with_callbacks(hyfft_context context,
                                                        const hyfft_problem *problem,
                                                        unsigned flags,
                                                        const hyfft_callbacks *callbacks,
                                                        hyfft_plan *plan);

/* Windows (docs/api.md, "Zero padding and cropping"): a transform whose
 * input holds only the first in_len[d] of the n[d] elements along each
 * transform dim (the rest read as zero and never touched in memory),
 * and whose output stores only the out_len[d] elements from out_start[d]
 * on. A padded input is contiguous row major over in_len, a cropped
 * output over out_len, batch entries one after another (the problem's
 * strides of that side are not read); the other side keeps the problem's
 * layout. in_len[d] 0 means n[d]; out_len[d] 0 means up to the end of the
 * dim (n[d], or n/2+1 on the last dim of R2C's output). Entries past the
 * rank are not read. */
typedef struct hyfft_window {
  int64_t in_len[HYFFT_MAX_RANK];
  int64_t out_start[HYFFT_MAX_RANK];
  int64_t out_len[HYFFT_MAX_RANK];
} hyfft_window;

/* A transform with a window: C2C (either sign) and R2C, f32 and f64, rank
 * 1..3, out of place; window NULL or all zero: hyfft_plan_create. The
 * zero padding is a load callback fused into the first pass; the crop a
 * pass of its own after the transform (hyfft_plan_describe shows both). */
HYFFT_API hyfft_status hyfft_plan_create_window(hyfft_context context,
                                                const hyfft_problem *problem,
                                                const hyfft_window *window, unsigned flags,
                                                hyfft_plan *plan);
/* Parse a token with the window fields "pad=" and "crop=" (docs/api.md);
 * window receives zeros for a token without them. */
HYFFT_API hyfft_status hyfft_problem_parse_window(const char *token, hyfft_problem *problem,
                                                  hyfft_window *window);

/* Convolution plans (docs/api.md, "Convolution"): the circular
 * convolution of each input signal with each of `filters` kernels,
 *   y[b][k] = x[b] (*) h[k] = IDFT(DFT(x[b]) . H[k]) / N,
 * N the product of the transform lengths, normalised (a unit impulse
 * kernel gives back the input), times problem->scale when it is not 0.
 * `problem` gives the signals: kind HYFFT_C2C (complex data) or HYFFT_R2C
 * (real data, real output), f32 or f64, rank 1..3, any batch; the input
 * layout is the problem's (in_stride of dims and batch); the sign and
 * every out_stride are not read: the output is contiguous, row major,
 * [batch...][filter][dims...] (the batch dims as listed, then the filter,
 * then one whole signal), of the input's element type. In place
 * (problem->inplace, in == out) needs filters == 1 and a contiguous input.
 * `spectra` (host memory, copied into the plan) holds the kernels'
 * unnormalised forward DFTs H[k], one after the other, each contiguous
 * over the transform dims (C2C: n[0] x ... x n[rank-1] complex elements;
 * R2C: the half spectrum, n[rank-1]/2+1 on the last dim), so
 * spectra_bytes = filters x (complex elements of one spectrum) x 8 (f32)
 * or 16 (f64); hyfft_convolution_spectra computes them from spatial
 * kernels. The pointwise multiply runs fused into the inverse transform's
 * first pass where the generator allows it, else as a pass of its own;
 * hyfft_plan_describe says which. Flags: HYFFT_MEASURE, HYFFT_OWN_WORKSPACE
 * (passed to the forward and inverse sub-plans). `window` (NULL: none)
 * pads the signals with zeros (in_len: the linear convolution of signals
 * of in_len[d] points with kernels of n[d] - in_len[d] + 1 points, when
 * n[d] is at least their sum less one) and crops each output signal
 * (out_start, out_len over the n[d] points); the kernels' spectra are
 * still those of n[d]-point kernels. */
HYFFT_API hyfft_status hyfft_plan_convolution(hyfft_context context, const hyfft_problem *problem,
                                              int64_t filters, const void *spectra,
                                              size_t spectra_bytes, const hyfft_window *window,
                                              unsigned flags, hyfft_plan *plan);

/* The spectra hyfft_plan_convolution takes, from `filters` spatial kernels
 * in host memory: each kernel a contiguous signal of the problem's
 * transform shape and element type (complex for C2C, real for R2C), one
 * after the other; the spectra go to `spectra` (host memory,
 * spectra_bytes as for hyfft_plan_convolution), computed by a forward
 * plan of the problem's kind on `context`. Only kind, precision, rank and
 * the transform lengths of `problem` are read. */
HYFFT_API hyfft_status hyfft_convolution_spectra(hyfft_context context,
                                                 const hyfft_problem *problem, int64_t filters,
                                                 const void *kernels, void *spectra,
                                                 size_t spectra_bytes);

/* Convolution tokens (docs/api.md, "Convolution tokens"), e.g.
 * "conv:r2c:f32:256x256:b8:k3", "conv:c2c:f32:64:k1:pad=40:crop=48": parse
 * into the problem, the filter count and the window (window NULL: a token
 * with pad= or crop= is refused), and print one (hyfft_problem_print's
 * buffer rules). */
HYFFT_API hyfft_status hyfft_convolution_parse(const char *token, hyfft_problem *problem,
                                               int64_t *filters, hyfft_window *window);
/* window NULL: none printed. filters 0 prints a plain token with the
 * window's fields (hyfft_problem_parse_window's form). */
HYFFT_API hyfft_status hyfft_convolution_print(const hyfft_problem *problem, int64_t filters,
                                               const hyfft_window *window, char *buf,
                                               size_t buf_size, size_t *needed);

/* Convenience planners: contiguous, out-of-place, host memory. */
HYFFT_API hyfft_status hyfft_plan_1d(hyfft_context context, int64_t n, hyfft_kind kind,
                                     hyfft_precision precision, int sign, int64_t batch,
                                     hyfft_plan *plan);
HYFFT_API hyfft_status hyfft_plan_2d(hyfft_context context, int64_t n0, int64_t n1,
                                     hyfft_kind kind, hyfft_precision precision, int sign,
                                     hyfft_plan *plan);
HYFFT_API hyfft_status hyfft_plan_3d(hyfft_context context, int64_t n0, int64_t n1, int64_t n2,
                                     hyfft_kind kind, hyfft_precision precision, int sign,
                                     hyfft_plan *plan);
/* Like fftw_plan_many_dft: rank dims n[], `batch` transforms; element j of
 * transform b is at in[b*idist + stride-weighted index * istride]. inembed/
 * onembed may be NULL (then equal to n). */
HYFFT_API hyfft_status hyfft_plan_many(hyfft_context context, int rank, const int64_t *n,
                                       int64_t batch, const int64_t *inembed, int64_t istride,
                                       int64_t idist, const int64_t *onembed, int64_t ostride,
                                       int64_t odist, hyfft_kind kind, hyfft_precision precision,
                                       int sign, hyfft_plan *plan);

HYFFT_API hyfft_status hyfft_plan_destroy(hyfft_plan plan);

/* The problem a plan was made for (after validation, before normalisation). */
HYFFT_API hyfft_status hyfft_plan_problem(hyfft_plan plan, hyfft_problem *problem);

/* A multi-line text describing the plan tree. Same buffer rules as
 * hyfft_problem_print. */
HYFFT_API hyfft_status hyfft_plan_describe(hyfft_plan plan, char *buf, size_t buf_size,
                                           size_t *needed);

/* Generated kernel source of the plan (GPU backends); "" on the CPU. */
HYFFT_API hyfft_status hyfft_plan_source(hyfft_plan plan, char *buf, size_t buf_size,
                                         size_t *needed);

/* Wait until the plan runs its final kernels. A CUDA plan whose fastest
 * program is a long compile missing from the kernel caches (a persistent
 * kernel, or a kernel over whole 2D planes: about 1 s) is returned running
 * quicker kernels (one per pass, or one pass per axis), which compile in
 * parallel in a fraction of that time, while the fastest program compiles
 * on a background thread; executions switch to it once it is built. This
 * call waits for that build and makes the switch, so that timings taken
 * after it are the final plan's. Returns at once for other plans. Should
 * the build fail, it returns that error and the plan keeps running its
 * quick kernels, correctly. $HYFFT_CUDA_BACKGROUND=0 makes every plan
 * compile everything before hyfft_plan_create returns. */
HYFFT_API hyfft_status hyfft_plan_wait(hyfft_plan plan);

/* Bytes of workspace the plan needs when the caller supplies it. */
HYFFT_API hyfft_status hyfft_plan_workspace_size(hyfft_plan plan, size_t *bytes);

/* Give the plan a work area of the caller's (a device buffer of the plan's
 * context: a CUDA device pointer, a cl_mem from hyfft_buffer_alloc, host
 * memory on the CPU) that every later execution uses, hyfft_execute and
 * hyfft_execute_async without a workspace argument alike. `bytes` must be
 * at least hyfft_plan_workspace_size (else HYFFT_BUFFER_TOO_SMALL). The
 * plan frees its own work area (or stops using the context's shared one),
 * so the memory is really saved; workspace NULL returns the plan to its
 * default (its own area, allocated again, or the context's shared one).
 * The caller keeps the buffer alive and unused by other work while the
 * plan may run, and must not execute the plan concurrently with itself
 * (from several threads, or on several queues): such executions would
 * share the buffer. A plan whose workspace size is 0 (out of core,
 * hybrid, or one pass) accepts any buffer and ignores it. An OpenCL plan
 * with two work slots (Bluestein) cannot take one cl_mem for both:
 * HYFFT_NOT_SUPPORTED. Call it while no execution of the plan runs. */
HYFFT_API hyfft_status hyfft_plan_set_workspace(hyfft_plan plan, void *workspace, size_t bytes);

/* Bytes of device memory the context's shared work area holds now (0 on
 * the CPU backend, whose plans hold their own, and before the first
 * execution that needs one). Plans of a GPU context share it, so it is
 * the largest need of the plans that ran, not their sum. */
HYFFT_API hyfft_status hyfft_context_workspace_bytes(hyfft_context context, size_t *bytes);

/* Progress of an execution: fn(user, fraction) with fraction in [0, 1].
 * Within one execution the fractions never decrease, and a successful
 * execution's last call is exactly 1.0; a failed one stops short of it.
 * Out-of-core plans call fn after each piece of either sweep, host-data
 * plans staged in chunks on a GPU backend after each chunk (the fraction
 * is the share of pieces or chunks done); every execution that returns
 * with its output complete (hyfft_execute; host-data plans on a GPU
 * backend also through hyfft_execute_async) then calls it with 1.0. fn
 * runs on the executing thread, between pieces, and should return quickly;
 * it must not execute or destroy the plan. Concurrent executions of one
 * plan each call it with their own fractions. fn NULL turns progress off
 * (the default). Set it while no execution of the plan is running. */
typedef void (*hyfft_progress_fn)(void *user, double fraction);
HYFFT_API hyfft_status hyfft_plan_set_progress(hyfft_plan plan, hyfft_progress_fn fn, void *user);

/* ------------------------------------------------------------------------ */
/* Execution                                                                */
/* ------------------------------------------------------------------------ */

/* Run the plan; returns when the result is in `out`. For in-place plans in
 * must equal out. For device-memory plans in/out are device pointers (CUDA)
 * or cl_mem handles (OpenCL). A plan may be executed from several threads at
 * once on different data. */
HYFFT_API hyfft_status hyfft_execute(hyfft_plan plan, const void *in, void *out);

/* Enqueue the plan on a user queue (cudaStream_t / CUstream, cl_command_queue;
 * NULL means the context's own queue) and return. `workspace` may be NULL
 * or a device buffer of hyfft_plan_workspace_size bytes. NULL uses the
 * buffer of hyfft_plan_set_workspace, else the plan's own work area, else
 * the context's shared area. The uses of a plan's own or the shared area
 * run one after the other: on CUDA ordered on the device (a queue other
 * than the last user's waits for an event recorded after that use; the
 * call only enqueues), on OpenCL by waiting on the host for the context's
 * queue before and this queue after an execution on another queue
 * (docs/api.md, "Work areas"). On the CPU backend
 * this runs synchronously, and so does a host-memory plan on a GPU: it
 * returns when the output is in host memory. A host-memory C2C plan of 2 or
 * 3 dims larger than the device memory budget ($HYFFT_DEVICE_MEMORY_LIMIT,
 * else the device's memory) runs out of core in slabs and blocks that fit
 * (docs/design.md section 5); it has no workspace of its own to share
 * (hyfft_plan_workspace_size gives 0) and ignores `workspace`. */
HYFFT_API hyfft_status hyfft_execute_async(hyfft_plan plan, const void *in, void *out,
                                           void *workspace, void *queue);

/* ------------------------------------------------------------------------ */
/* Wisdom                                                                   */
/* ------------------------------------------------------------------------ */

/* Wisdom is what HYFFT_MEASURE planning chose (solver and kernel variant)
 * and what HYFFT_HYBRID plans found for their CPU share, per problem,
 * device and generator version, in one table per process
 * shared by all contexts and threads; plans of a problem with wisdom use it
 * without measuring. $HYFFT_WISDOM names a file imported when the first
 * context is created. Import is strict (HYFFT_INVALID_WISDOM naming the
 * line) and all or nothing; entries of other generator versions are
 * skipped. See docs/api.md, "Tuning and wisdom". The context argument only
 * has to be live: the table is process-wide. */
HYFFT_API hyfft_status hyfft_wisdom_export_file(hyfft_context context, const char *path);
HYFFT_API hyfft_status hyfft_wisdom_import_file(hyfft_context context, const char *path);
/* Same text in memory; export follows hyfft_problem_print's buffer rules. */
HYFFT_API hyfft_status hyfft_wisdom_export_string(char *buf, size_t buf_size, size_t *needed);
HYFFT_API hyfft_status hyfft_wisdom_import_string(const char *text);
/* Empty the table. */
HYFFT_API hyfft_status hyfft_wisdom_forget(void);

/* What the last hyfft_plan_create on this thread learned from measuring
 * (or from wisdom): the tuner's progress report. */
typedef struct hyfft_tune_info {
  int measured;            /* 1: chosen by timing variants on the device */
  int from_wisdom;         /* 1: chosen by an existing wisdom entry */
  double default_seconds;  /* median time of the model's plan (measured only) */
  double best_seconds;     /* median time of the chosen plan */
  int variants_tried;      /* distinct variants built and run, the default included */
  int variants_rejected;   /* of those: failed to build or to pass the accuracy check */
  char solver[32];         /* chosen solver */
  char variant[96];        /* chosen kernel variant, "" for the model's switches */
} hyfft_tune_info;
HYFFT_API hyfft_status hyfft_last_tune_info(hyfft_tune_info *info);

#ifdef __cplusplus
}
#endif

#endif /* HYFFT_H */
