/* Internal utilities shared by every layer: errors, memory, strings,
 * hashing, handle registry, threads, environment. */
#ifndef HY_UTIL_H
#define HY_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "hyfft.h"

typedef hyfft_status hy_status;

/* ---- errors ------------------------------------------------------------ */

/* Record a detail message for this thread and return `status`, so that a
 * failing path reads `return hy_error(HYFFT_INVALID_SIZE, "dims[%d].n = %lld", ...)`. */
hy_status hy_error(hy_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear the detail message (entry points call it on entry). */
void hy_error_clear(void);

/* Propagate a failing status: HY_TRY(expr) returns it from the caller. */
#define HY_TRY(expr)                                                           \
  do {                                                                         \
    hy_status hy_try_status_ = (expr);                                         \
    if (hy_try_status_ != HYFFT_SUCCESS) return hy_try_status_;                \
  } while (0)

/* ---- memory ------------------------------------------------------------ */

/* 64-byte aligned allocations; hy_free(NULL) is a no-op. Both return NULL
 * on failure (or on a size that overflows) without recording an error. */
void *hy_malloc(size_t bytes);
void *hy_calloc(size_t count, size_t size);
void *hy_realloc(void *p, size_t bytes); /* not aligned beyond malloc's */
void hy_free(void *p);

/* Fault injection for tests (util/fault.c). Allocations, file operations
 * and kernel compiles call hy_fault_point(), which returns 1 (the caller
 * then fails as if the operation had failed) at the k-th point after
 * hy_fault_arm(k), else 0; hy_fault_disarm() turns it off and returns the
 * points passed since arming (arm with a huge k to count them). */
void hy_fault_arm(long k);
long hy_fault_disarm(void);
int hy_fault_point(void);

/* Overflow-checked int64 arithmetic: return 0 and set *out on success, 1 on
 * overflow. */
static inline int hy_mul_overflow_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_mul_overflow(a, b, out);
}
static inline int hy_add_overflow_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_add_overflow(a, b, out);
}

/* ---- string builder with a sticky error --------------------------------- */

typedef struct hy_strbuf {
  char *data;   /* always NUL terminated once anything was appended */
  size_t len;
  size_t cap;
  int failed;   /* an allocation failed: further appends are ignored */
} hy_strbuf;

void hy_strbuf_init(hy_strbuf *sb);
void hy_strbuf_free(hy_strbuf *sb);
void hy_strbuf_append(hy_strbuf *sb, const char *text);
void hy_strbuf_appendf(hy_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void hy_strbuf_vappendf(hy_strbuf *sb, const char *fmt, va_list ap);
/* HYFFT_OUT_OF_MEMORY if any append failed, else success. */
hy_status hy_strbuf_status(const hy_strbuf *sb);
/* Copy into a caller's buffer with the public API's rules
 * (needed = len, HYFFT_BUFFER_TOO_SMALL if buf_size <= len). */
hy_status hy_strbuf_export(const hy_strbuf *sb, char *buf, size_t buf_size, size_t *needed);

/* ---- hashing ------------------------------------------------------------ */

#define HY_HASH_INIT UINT64_C(0xcbf29ce484222325)
uint64_t hy_hash_bytes(uint64_t h, const void *data, size_t len);
uint64_t hy_hash_u64(uint64_t h, uint64_t v);
uint64_t hy_hash_str(uint64_t h, const char *s);

/* ---- live handle registry ---------------------------------------------- */
/* Public handles are registered while alive so that a destroyed or foreign
 * pointer is answered with HYFFT_INVALID_HANDLE instead of a crash. */

typedef enum hy_handle_kind {
  HY_HANDLE_CONTEXT = 1,
  HY_HANDLE_PLAN = 2,
  HY_HANDLE_BUFFER = 3 /* from hyfft_buffer_alloc, so a foreign or freed one is refused */
} hy_handle_kind;

hy_status hy_handle_register(const void *handle, hy_handle_kind kind);
/* The same with the owner (a buffer's context) and size kept beside it. */
hy_status hy_handle_register_buffer(const void *handle, hy_handle_kind kind, const void *owner,
                                    size_t bytes);
/* 1 when `handle` is a live buffer (hyfft_buffer_alloc's exact pointer),
 * with its owner and size; 0 otherwise. */
int hy_handle_buffer_info(const void *handle, const void **owner, size_t *bytes);
/* Returns 1 if `handle` is live and of `kind`. */
int hy_handle_is_live(const void *handle, hy_handle_kind kind);
/* Removes it; returns 1 if it was live and of `kind`, 0 otherwise. */
int hy_handle_unregister(const void *handle, hy_handle_kind kind);

/* ---- threads ------------------------------------------------------------ */

/* Seconds on the monotonic clock (for timing runs). */
double hy_now(void);

/* Number of worker threads: $HYFFT_NUM_THREADS if set (>= 1), else all cores. */
int hy_num_threads(void);
/* Threads the CPU backend uses from now on, over $HYFFT_NUM_THREADS and the
 * core count; n <= 0 returns to those. */
void hy_set_num_threads(int n);
/* Caps hy_num_threads() for the calling thread only (n <= 0 lifts the
 * cap); returns the previous cap. A cap only lowers the count, so per-
 * thread buffers sized from the uncapped count stay large enough. The two
 * sides of a hybrid plan share the cores so. */
int hy_set_thread_limit(int n);

/* Calls fn(arg, begin, end, thread_index) on disjoint ranges covering
 * [0, count), in parallel on up to hy_num_threads() threads, and returns
 * when all are done. Safe to call from several user threads at once.
 * `grain` is the smallest range worth a thread. */
typedef void (*hy_range_fn)(void *arg, int64_t begin, int64_t end, int thread_index);
void hy_parallel_for(int64_t count, int64_t grain, hy_range_fn fn, void *arg);

/* Whether a helper thread may take part in the calling thread's loops:
 * fn(data) runs on a helper (a pool worker, or a job of the caller's own
 * parallel loop) before it claims any part of a range, and a helper for
 * which it returns 0 claims none; the parts it would have taken go to the
 * others and, where none is left, to the calling thread, which runs it
 * without asking. Set per calling thread for the loops it starts from
 * then on (nested loops inside a range run on their thread and ask
 * nothing); returns the previous setting. The CPU backend's multi-pass
 * executions set one that reserves a helper's scratch, so that a helper
 * that cannot get memory stays out rather than failing a pass that others
 * have half written. */
typedef struct hy_parallel_ready {
  int (*fn)(const void *data);
  const void *data;
} hy_parallel_ready;
hy_parallel_ready hy_parallel_ready_set(hy_parallel_ready ready);

/* A caller's own parallel loop, as FFTW's fftw_threads_set_callback takes
 * it: it must call work(jobdata + i * elsize) once for every i < njobs,
 * in any order and on any threads, and return when all have returned.
 * While one is set, hy_parallel_for hands its loops to it instead of the
 * worker pool (the same number of jobs as it would use threads); NULL
 * returns to the pool. Applies to the whole process. */
typedef void (*hy_parallel_loop_fn)(void *(*work)(char *), char *jobdata, size_t elsize,
                                    int njobs, void *data);
void hy_set_parallel_loop(hy_parallel_loop_fn loop, void *data);

/* ---- environment --------------------------------------------------------- */

/* getenv that treats an empty value as unset. util/settings.c reads the
 * environment through it; other code reads hy_settings_get() instead. */
const char *hy_getenv(const char *name);

#endif /* HY_UTIL_H */
