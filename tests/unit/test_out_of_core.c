/* Unit tests of out-of-core plans (src/exec/out_of_core.c) without a GPU,
 * on a fake GPU backend: the CPU backend's table with a GPU id and an
 * allocator that counts live device bytes, so that every execution's peak
 * can be held against the budget.
 *   - HYFFT_DEVICE_MEMORY_LIMIT: suffixes, and bad values refused at plan
 *     creation with HYFFT_INVALID_ARGUMENT naming the variable;
 *   - the decision: over the budget a plan is out of core (its description
 *     says so), within it it is not; a batch whose single transform fits
 *     goes in one sweep of whole entries (any length: primes, strided
 *     reals), others in two sweeps; the problems of the OpenCL suite
 *     opencl.paths.out_of_core are out of core under its limit whatever
 *     the device, since their data alone exceed it;
 *   - results equal to a plain CPU plan's for 2D, 3D, batched, in place,
 *     strided (with output gaps left alone), scaled, f32 and f64, both
 *     directions, with the device peak within the budget, and the same
 *     bits from two threads at once; one round trip per piece (no hooks,
 *     as on OpenCL) and double-buffered (the staging hooks, synchronous
 *     fakes, as CUDA's), and HYFFT_STAGING=simple;
 *   - progress (hyfft_plan_set_progress): one call per piece, never
 *     decreasing, ending at 1.0, none once turned off, and its argument
 *     checks;
 *   - the 1D geometry an H100 gets for 2^31 and 2^32 points under 4 GiB;
 *   - a slab that does not fit: HYFFT_OUT_OF_MEMORY with the bytes needed
 *     and the budget; problems the file does not take: HYFFT_NOT_SUPPORTED
 *     with the reason, under a user limit only. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/settings.h"
#include "check.h"
#include "exec/exec.h"
#include "exec/out_of_core.h"
#include "../backend/cuda/h100_caps.h"

/* ---- the fake GPU backend ------------------------------------------------- */

static atomic_llong live_bytes, peak_bytes;
static atomic_int live_buffers;

/* Buffers carry their size in a 64-byte header. */
static hy_status fake_alloc(void *device, size_t bytes, void **buffer) {
  (void)device;
  char *p = aligned_alloc(64, 64 + ((bytes + 63) / 64) * 64);
  if (!p) return hy_error(HYFFT_OUT_OF_MEMORY, "fake alloc of %zu bytes", bytes);
  memcpy(p, &bytes, sizeof bytes);
  long long now = atomic_fetch_add(&live_bytes, (long long)bytes) + (long long)bytes;
  long long peak = atomic_load(&peak_bytes);
  while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now)) {
  }
  atomic_fetch_add(&live_buffers, 1);
  *buffer = p + 64;
  return HYFFT_SUCCESS;
}

static void fake_release(void *device, void *buffer) {
  (void)device;
  char *p = (char *)buffer - 64;
  size_t bytes;
  memcpy(&bytes, p, sizeof bytes);
  atomic_fetch_sub(&live_bytes, (long long)bytes);
  atomic_fetch_sub(&live_buffers, 1);
  free(p);
}

/* The staging hooks, synchronous like the CPU backend's copies: they make
 * plans take the double-buffered path, whose order of pieces, slots and
 * events they check only as far as a synchronous device can. */
static atomic_int live_pinned, live_queues, live_events, waits;

static hy_status fake_host_alloc(void *device, size_t bytes, void **host) {
  (void)device;
  *host = malloc(bytes ? bytes : 1);
  if (!*host) return hy_error(HYFFT_OUT_OF_MEMORY, "fake host_alloc");
  atomic_fetch_add(&live_pinned, 1);
  return HYFFT_SUCCESS;
}
static void fake_host_release(void *device, void *host) {
  (void)device;
  free(host);
  atomic_fetch_sub(&live_pinned, 1);
}
static hy_status fake_queue_create(void *device, void **queue) {
  (void)device;
  *queue = malloc(1);
  atomic_fetch_add(&live_queues, 1);
  return HYFFT_SUCCESS;
}
static void fake_queue_release(void *device, void *queue) {
  (void)device;
  free(queue);
  atomic_fetch_sub(&live_queues, 1);
}
static hy_status fake_event_create(void *device, void **event) {
  (void)device;
  *event = malloc(1);
  atomic_fetch_add(&live_events, 1);
  return HYFFT_SUCCESS;
}
static void fake_event_release(void *device, void *event) {
  (void)device;
  free(event);
  atomic_fetch_sub(&live_events, 1);
}
static hy_status fake_event_record(void *device, void *event, void *queue) {
  (void)device, (void)event, (void)queue;
  return HYFFT_SUCCESS;
}
static hy_status fake_queue_wait(void *device, void *queue, void *event) {
  (void)device, (void)queue, (void)event;
  return HYFFT_SUCCESS;
}
static hy_status fake_event_wait(void *device, void *event) {
  (void)device, (void)event;
  atomic_fetch_add(&waits, 1);
  return HYFFT_SUCCESS;
}

/* Page-locked user memory as the fake sees it (every pointer, while
 * `pinned` is set), and its 2D copies: rows of `width` bytes between the
 * user's memory and the fake device buffer, counted. */
static int pinned;
static atomic_long copies_2d;
static int fake_host_pinned(void *device, const void *ptr, size_t bytes) {
  (void)device, (void)ptr, (void)bytes;
  return pinned;
}
static hy_status fake_copy_2d(void *device, void *queue, int to_device, void *buffer,
                              size_t dev_offset, size_t dev_pitch, void *host, size_t host_pitch,
                              size_t width, size_t height) {
  (void)device, (void)queue;
  if (!pinned || width > dev_pitch || (height > 1 && width > host_pitch))
    return hy_error(HYFFT_INTERNAL, "fake copy_2d: unpinned memory or rows wider than a pitch");
  char *d = (char *)buffer + dev_offset, *h = host;
  for (size_t r = 0; r < height; r++) {
    if (to_device)
      memcpy(d + r * dev_pitch, h + r * host_pitch, width);
    else
      memcpy(h + r * host_pitch, d + r * dev_pitch, width);
  }
  atomic_fetch_add(&copies_2d, 1);
  return HYFFT_SUCCESS;
}

static hy_backend fake, fake_hooks;

/* Piece copies that go through a buffer of the plan's (write and read of
 * more than one 8-byte word: the 1D first sweep's column offsets are
 * single words), counted: page-locked user data should need none. */
static atomic_long bulk_copies;
static hy_status fake_write(void *device, void *queue, void *buffer, size_t offset,
                            const void *host, size_t bytes, int blocking) {
  if (bytes > 8) atomic_fetch_add(&bulk_copies, 1);
  return hy_backend_cpu.write(device, queue, buffer, offset, host, bytes, blocking);
}
static hy_status fake_read(void *device, void *queue, const void *buffer, size_t offset,
                           void *host, size_t bytes, int blocking) {
  if (bytes > 8) atomic_fetch_add(&bulk_copies, 1);
  return hy_backend_cpu.read(device, queue, buffer, offset, host, bytes, blocking);
}

static void use_hooks(hyfft_context gpu, int on) {
  gpu->backend = on ? &fake_hooks : &fake;
}

static void set_limit(const char *value) {
  if (value)
    setenv("HYFFT_DEVICE_MEMORY_LIMIT", value, 1);
  else
    unsetenv("HYFFT_DEVICE_MEMORY_LIMIT");
  hy_settings_reload();
}

static void fill(void *buf, size_t bytes, unsigned seed) {
  float *f = buf;
  for (size_t i = 0; i < bytes / sizeof(float); i++) {
    seed = seed * 1664525u + 1013904223u;
    f[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

static void fill64(void *buf, size_t bytes, unsigned seed) {
  double *f = buf;
  for (size_t i = 0; i < bytes / sizeof(double); i++) {
    seed = seed * 1664525u + 1013904223u;
    f[i] = (double)((seed >> 8) & 0xffff) / 65536.0 - 0.5;
  }
}

/* Largest |a - b| over largest |b|, elementwise in the problem's type. */
static double rel_diff(const void *a, const void *b, size_t bytes, int f64) {
  double num = 0, den = 0;
  size_t n = bytes / (f64 ? 8 : 4);
  for (size_t i = 0; i < n; i++) {
    double x = f64 ? ((const double *)a)[i] : ((const float *)a)[i];
    double y = f64 ? ((const double *)b)[i] : ((const float *)b)[i];
    if (!(fabs(x - y) <= num)) num = fabs(x - y);
    if (fabs(y) > den) den = fabs(y);
  }
  return den > 0 ? num / den : num;
}

/* Overwrite a C2R problem's input `buf` (in its layout) with the R2C of
 * real data on the CPU, so that it is a half spectrum. */
static void hermitian(const hyfft_problem *c2r, void *buf, size_t bytes, int inplace) {
  hyfft_problem r = *c2r;
  r.kind = HYFFT_R2C;
  r.sign = HYFFT_FORWARD;
  r.scale = 0;
  for (int d = 0; d < r.rank; d++) {
    int64_t t = r.dims[d].in_stride;
    r.dims[d].in_stride = r.dims[d].out_stride;
    r.dims[d].out_stride = t;
  }
  for (int b = 0; b < r.batch_rank; b++) {
    int64_t t = r.batch[b].in_stride;
    r.batch[b].in_stride = r.batch[b].out_stride;
    r.batch[b].out_stride = t;
  }
  hyfft_context cpu = NULL;
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_context_create("cpu", &cpu));
  if (cpu) CHECK_OK(hyfft_plan_create(cpu, &r, HYFFT_ESTIMATE, &plan));
  char *real = malloc(bytes);
  if (plan && real) {
    memcpy(real, buf, bytes);
    CHECK_OK(hyfft_execute(plan, inplace ? buf : real, buf));
  }
  free(real);
  if (plan) hyfft_plan_destroy(plan);
  if (cpu) hyfft_context_destroy(cpu);
}

/* Zero the reals of an in-place C2R output that are no output element:
 * the padding at the end of each row. */
static void clear_padding(const hy_problem *p, void *buf) {
  size_t n = (size_t)p->out_extent;
  char *used = calloc(n, 1);
  if (!used) return;
  int nd = p->rank + p->batch_rank;
  int64_t idx[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK] = {0};
  for (;;) {
    int64_t off = 0;
    for (int d = 0; d < nd; d++)
      off += idx[d] * (d < p->rank ? p->dims[d].out_stride : p->batch[d - p->rank].out_stride);
    used[off] = 1;
    int d = nd - 1;
    for (; d >= 0; d--) {
      int64_t len = d < p->rank ? p->dims[d].n : p->batch[d - p->rank].n;
      if (++idx[d] < len) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
  size_t elem = p->precision == HYFFT_F64 ? 8 : 4;
  for (size_t i = 0; i < n; i++)
    if (!used[i]) memset((char *)buf + i * elem, 0, elem);
  free(used);
}

static int describes_ooc(hyfft_plan plan) {
  size_t need = 0;
  if (hyfft_plan_describe(plan, NULL, 0, &need) != HYFFT_BUFFER_TOO_SMALL &&
      hyfft_plan_describe(plan, NULL, 0, &need) != HYFFT_SUCCESS)
    return -1;
  char *text = malloc(need + 1);
  if (!text || hyfft_plan_describe(plan, text, need + 1, NULL) != HYFFT_SUCCESS) {
    free(text);
    return -1;
  }
  /* 1: two sweeps, 2: one sweep of whole batch entries (each element
   * once each way), 3: Bluestein's convolution through an M-point plan,
   * 4: a 1D R2R through the C2C of a symmetric extension, 5: stages of
   * inner plans (rank 4 and up, batch dims that do not merge). */
  int yes = strstr(text, "out of core") != NULL && strstr(text, "bytes to the device") != NULL;
  /* The outer plan's kind first: an inner plan may be Bluestein's. */
  if (strstr(text, "out of core") != NULL &&
      strstr(text, "the DFT of a symmetric extension") != NULL &&
      strstr(text, "-point plan:") != NULL)
    yes = 4;
  else if (strstr(text, "out of core") != NULL && strstr(text, "Bluestein: the") != NULL &&
           strstr(text, "-point plan:") != NULL)
    yes = 3;
  else if (strstr(text, "out of core") != NULL && strstr(text, "stage 1: ") != NULL &&
           strstr(text, "stage 1 plan:") != NULL)
    yes = 5;
  else if (yes && strstr(text, "sweep 2") != NULL && strstr(text, "twice each way") != NULL)
    yes = 1;
  else if (yes && strstr(text, "one sweep:") != NULL && strstr(text, "once each way") != NULL)
    yes = 2;
  else
    yes = 0;
  free(text);
  return yes;
}

/* ---- progress ------------------------------------------------------------ */

/* hyfft_plan_set_progress's calls of one execution. */
typedef struct progress_log {
  int calls, ones, bad; /* bad: out of [0, 1] or decreasing */
  double last;
} progress_log;

static void progress_record(void *user, double fraction) {
  progress_log *g = user;
  if (!(fraction >= 0 && fraction <= 1) || (g->calls && fraction < g->last)) g->bad++;
  if (fraction == 1.0) g->ones++;
  g->last = fraction;
  g->calls++;
}

/* One execution's calls: `want` of them, in [0, 1], never decreasing, the
 * last and only the last exactly 1.0. */
static void progress_check(const progress_log *g, int want, const char *token) {
  /* want < 0: at least -want calls (an inner plan's pieces, relayed). */
  CHECK((want < 0 ? g->calls >= -want : g->calls == want) && g->bad == 0 && g->ones == 1 && g->last == 1.0,
        "%s: progress: %d calls (expected %d), %d bad, %d of 1.0, last %g", token, g->calls, want,
        g->bad, g->ones, g->last);
}

/* ---- cases -------------------------------------------------------------- */

typedef struct thread_arg {
  hyfft_plan plan;
  const void *in, *out_init, *want;
  size_t buf_bytes, out_bytes;
  int inplace, failures;
} thread_arg;

/* Two runs from the same input, each bit for bit equal to `want`. */
static void *run_thread(void *v) {
  thread_arg *a = v;
  char *in = malloc(a->buf_bytes), *out = malloc(a->buf_bytes);
  for (int r = 0; r < 2 && in && out; r++) {
    memcpy(in, a->in, a->buf_bytes);
    memcpy(out, a->out_init, a->buf_bytes);
    char *o = a->inplace ? in : out;
    if (hyfft_execute(a->plan, in, o) != HYFFT_SUCCESS || memcmp(o, a->want, a->out_bytes) != 0)
      a->failures++;
  }
  if (!in || !out) a->failures++;
  free(in);
  free(out);
  return NULL;
}

/* `token` under `limit` on the fake GPU against a plain CPU plan; the plan
 * must be out of core or not as `ooc` says, and no execution may hold more
 * device memory than the limit. Out of core, two threads then run the
 * plan at once. ooc: 0 not out of core; OOC_SWEEPS two sweeps;
 * OOC_ENTRIES one sweep of whole batch entries, double-buffered with the
 * hooks; OOC_ENTRIES_ONE the same where the budget holds one piece only
 * (one round trip at a time); OOC_CHIRP Bluestein's convolution and
 * OOC_R2R1D a 1D R2R through a symmetric extension (no sweeps of their
 * own; their inner plan's pieces reported as the outer plan's progress);
 * OOC_STAGES stages of inner plans over outer loops (likewise). */
enum { OOC_SWEEPS = 1, OOC_ENTRIES = 2, OOC_ENTRIES_ONE = 3, OOC_CHIRP = 4, OOC_R2R1D = 5,
       OOC_STAGES = 6 };

static void run_case_flags(hyfft_context cpu, hyfft_context gpu, const char *token,
                           const char *limit, int64_t limit_bytes, int ooc, unsigned flags) {
  hyfft_problem u;
  CHECK_OK(hyfft_problem_parse(token, &u));
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_create(cpu, &u, HYFFT_ESTIMATE, &ref));
  int simple = hy_settings_get()->staging_simple;
  set_limit(limit);
  CHECK_OK(hyfft_plan_create(gpu, &u, HYFFT_ESTIMATE | flags, &plan));
  set_limit(NULL);
  if (!ref || !plan) {
    if (ref) hyfft_plan_destroy(ref);
    if (plan) hyfft_plan_destroy(plan);
    return;
  }
  int hooks = gpu->backend == &fake_hooks;
  int entries = ooc == OOC_ENTRIES || ooc == OOC_ENTRIES_ONE;
  CHECK((plan->ooc != NULL) == (ooc != 0), "%s under %s: out of core %d, expected %d", token,
        limit, plan->ooc != NULL, ooc);
  const int nested = ooc == OOC_CHIRP || ooc == OOC_R2R1D || ooc == OOC_STAGES;
  CHECK(describes_ooc(plan) == (entries ? 2 : ooc == OOC_CHIRP ? 3 : ooc == OOC_R2R1D ? 4
                                : ooc == OOC_STAGES ? 5 : ooc),
        "%s under %s: the description says out of core: %d (expected mode %d)", token, limit,
        describes_ooc(plan), ooc);
  if (ooc) {
    int overlap = hooks && !simple && ooc != OOC_ENTRIES_ONE && !nested;
    CHECK(hy_ooc_overlapped(plan) == overlap, "%s under %s: overlapped %d with%s hooks%s", token,
          limit, hy_ooc_overlapped(plan), hooks ? "" : "out",
          simple ? ", HYFFT_STAGING=simple" : "");
    if (nested)
      CHECK(hy_ooc_pieces(plan, 0) == 0 && hy_ooc_pieces(plan, 1) == 0,
            "%s under %s: an inner plan with %lld and %lld pieces of sweeps", token, limit,
            (long long)hy_ooc_pieces(plan, 0), (long long)hy_ooc_pieces(plan, 1));
    else if (entries)
      CHECK(hy_ooc_pieces(plan, 0) >= 2 && hy_ooc_pieces(plan, 1) == 0,
            "%s under %s: %lld pieces of entries, %lld in a second sweep", token, limit,
            (long long)hy_ooc_pieces(plan, 0), (long long)hy_ooc_pieces(plan, 1));
    else
      CHECK(hy_ooc_pieces(plan, 0) >= 2 && hy_ooc_pieces(plan, 1) >= 2,
            "%s under %s: %lld slabs, %lld blocks", token, limit,
            (long long)hy_ooc_pieces(plan, 0), (long long)hy_ooc_pieces(plan, 1));
  }
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  size_t buf_bytes = in_bytes > out_bytes ? in_bytes : out_bytes;
  int f64 = p->precision == HYFFT_F64;
  void *in = malloc(buf_bytes), *in2 = malloc(buf_bytes), *out_init = malloc(buf_bytes);
  void *want = malloc(buf_bytes), *got = malloc(buf_bytes);
  (f64 ? fill64 : fill)(in, buf_bytes, 12345);
  /* C2R input: a half spectrum (the R2C of real data), so that every way
   * of transforming it gives the same real output. */
  if (p->kind == HYFFT_C2R) hermitian(&u, in, buf_bytes, p->inplace);
  memcpy(in2, in, buf_bytes);
  /* Output gaps keep their contents: start both from the same bytes. */
  (f64 ? fill64 : fill)(out_init, buf_bytes, 777);
  memcpy(want, out_init, buf_bytes);
  memcpy(got, out_init, buf_bytes);
  long long base = atomic_load(&live_bytes);
  atomic_store(&peak_bytes, base);
  /* Progress: out of core once per piece of either sweep (the last one's
   * call being the final 1.0), else the final 1.0 alone. */
  progress_log log = {0, 0, 0, 0};
  CHECK_OK(hyfft_plan_set_progress(plan, progress_record, &log));
  if (p->inplace) {
    CHECK_OK(hyfft_execute(ref, in2, in2));
    memcpy(want, in2, buf_bytes);
    memcpy(in2, in, buf_bytes);
    CHECK_OK(hyfft_execute(plan, in2, in2));
    memcpy(got, in2, buf_bytes);
  } else {
    CHECK_OK(hyfft_execute(ref, in, want));
    CHECK_OK(hyfft_execute(plan, in2, got));
    if (!(flags & HYFFT_DESTROY_INPUT))
      CHECK(memcmp(in, in2, in_bytes) == 0, "%s: input changed", token);
  }
  progress_check(&log,
                 nested ? -2
                 : ooc  ? (int)(hy_ooc_pieces(plan, 0) + hy_ooc_pieces(plan, 1))
                        : 1,
                 token);
  CHECK_OK(hyfft_plan_set_progress(plan, NULL, &log));
  const int calls_on = log.calls;
  /* In-place C2R leaves its rows' padding undefined (as FFTW does): it
   * is compared without it, and the threads below against `got` as is. */
  double d;
  if (p->kind == HYFFT_C2R && p->inplace) {
    void *g = malloc(buf_bytes);
    memcpy(g, got, buf_bytes);
    clear_padding(p, want);
    clear_padding(p, g);
    d = rel_diff(g, want, out_bytes, f64);
    free(g);
  } else {
    d = rel_diff(got, want, out_bytes, f64);
  }
  CHECK(d < (f64 ? 1e-12 : 2e-5), "%s under %s: differs from the CPU by %.3g", token, limit, d);
  if (ooc) {
    CHECK(atomic_load(&peak_bytes) - base <= limit_bytes,
          "%s under %s: the execution held %lld device bytes", token, limit,
          (long long)(atomic_load(&peak_bytes) - base));
    pthread_t t[2];
    thread_arg a[2];
    for (int i = 0; i < 2; i++) {
      a[i] = (thread_arg){plan, in, out_init, got, buf_bytes, out_bytes, p->inplace, 0};
      if (i == 1 && (flags & HYFFT_DESTROY_INPUT)) break;
      pthread_create(&t[i], NULL, run_thread, &a[i]);
    }
    for (int i = 0; i < ((flags & HYFFT_DESTROY_INPUT) ? 1 : 2); i++) {
      pthread_join(t[i], NULL);
      CHECK(a[i].failures == 0, "%s under %s: thread %d: %d bad runs", token, limit, i,
            a[i].failures);
    }
    CHECK(log.calls == calls_on,
          "%s: progress called after it was turned off", token);
  }
  free(in);
  free(in2);
  free(out_init);
  free(want);
  free(got);
  CHECK_OK(hyfft_plan_destroy(ref));
  CHECK_OK(hyfft_plan_destroy(plan));
}

static void run_case(hyfft_context cpu, hyfft_context gpu, const char *token, const char *limit,
                     int64_t limit_bytes, int ooc) {
  run_case_flags(cpu, gpu, token, limit, limit_bytes, ooc, 0);
}

/* The out-of-core cases, on the backend `gpu` has now. */
static void run_cases(hyfft_context cpu, hyfft_context gpu) {
  /* 2D, 3D, batched, in place, both precisions and directions. */
  run_case(cpu, gpu, "c2c:f32:fwd:64x48", "8K", 8192, 1);
  run_case(cpu, gpu, "c2c:f64:bwd:30x20:ip", "3K", 3072, 1);
  run_case(cpu, gpu, "c2c:f32:fwd:8x12x10:b3", "4K", 4096, 1);
  run_case(cpu, gpu, "c2c:f64:fwd:12x10x6:b2:ip", "6K", 6144, 1);
  run_case(cpu, gpu, "c2c:f32:bwd:20x30:scale=1/N", "2K", 2048, 1);
  run_case(cpu, gpu, "c2c:f32:fwd:17x13:b5", "1K", 1024, 1); /* odd sizes, short last pieces */
  /* Strided: padded rows, gaps between batch entries (left alone), dims
   * in any order in memory, in place with strides. */
  run_case(cpu, gpu, "c2c:f32:bwd:16x12:b2:is=13,1:os=24,2:idist=300:odist=500", "1K", 1024, 1);
  run_case(cpu, gpu, "c2c:f64:fwd:7x9x11:is=110,11,1:os=1,7,63", "4K", 4096, 1);
  run_case(cpu, gpu, "c2c:f32:fwd:10x12:b3:ip:is=14,1:os=14,1:idist=150:odist=150", "1K", 1024,
           OOC_ENTRIES_ONE);
  /* R2C and C2R: even and odd last axes, 2D and 3D, batched, in place
   * (padded rows), strided with gaps, scaled, both precisions; C2R with
   * and without HYFFT_DESTROY_INPUT (a host scratch keeps the input). */
  run_case(cpu, gpu, "r2c:f32:64x48", "8K", 8192, 1);
  run_case(cpu, gpu, "r2c:f64:30x21:ip", "3K", 3072, 1);
  run_case(cpu, gpu, "r2c:f32:8x12x10:b3", "4K", 4096, 1);
  run_case(cpu, gpu, "r2c:f64:12x10x7:b2:ip", "6K", 6144, 1);
  /* An odd last axis whose DFT takes the real step (the CPU's fused
   * pass, no work buffer): one transform fits the larger budget whole,
   * a piece at a time; the smaller one takes two sweeps. */
  run_case(cpu, gpu, "r2c:f32:17x13:b5:scale=1/N", "1K", 1024, OOC_ENTRIES_ONE);
  run_case(cpu, gpu, "r2c:f32:17x13:b5:scale=1/N", "512", 512, 1);
  run_case(cpu, gpu, "r2c:f32:16x12:b2:is=13,1:os=9,1:idist=300:odist=200", "1K", 1024,
           OOC_ENTRIES_ONE);
  run_case(cpu, gpu, "c2r:f32:64x48", "8K", 8192, 1);
  run_case(cpu, gpu, "c2r:f64:30x21:ip", "3K", 3072, 1);
  run_case(cpu, gpu, "c2r:f32:8x12x9:b3", "4K", 4096, OOC_ENTRIES_ONE);
  run_case(cpu, gpu, "c2r:f32:8x12x9:b3", "2K", 2048, 1);
  run_case(cpu, gpu, "c2r:f64:12x10x6:b2:ip:scale=1/N", "6K", 6144, 1);
  run_case(cpu, gpu, "c2r:f32:16x13:b2:is=9,1:os=15,1:idist=200:odist=300", "1K", 1024,
           OOC_ENTRIES_ONE);
  run_case(cpu, gpu, "c2r:f32:16x13:b2:is=9,1:os=15,1:idist=200:odist=300", "512", 512, 1);
  run_case_flags(cpu, gpu, "c2r:f32:64x48", "8K", 8192, 1, HYFFT_DESTROY_INPUT);
  run_case_flags(cpu, gpu, "c2r:f64:8x12x9:b3", "4K", 4096, 1, HYFFT_DESTROY_INPUT);
  /* 1D by four-step: even and odd lengths, batched, in place (through the
   * host scratch), strided with gaps, scaled, both precisions. */
  run_case(cpu, gpu, "c2c:f32:fwd:4096", "8K", 8192, 1);
  run_case(cpu, gpu, "c2c:f64:bwd:3000:b3", "4K", 4096, 1);
  run_case(cpu, gpu, "c2c:f32:fwd:4096:ip", "8K", 8192, 1);
  run_case(cpu, gpu, "c2c:f64:fwd:3375:b2:ip", "6K", 6144, 1);
  run_case(cpu, gpu, "c2c:f32:bwd:10000:scale=1/N", "16K", 16384, 1);
  run_case(cpu, gpu, "c2c:f32:fwd:2000:b2:is=2:os=3:idist=4100:odist=6100", "4K", 4096, 1);
  run_case(cpu, gpu, "c2c:f32:bwd:1024:b3:ip:is=2:os=2:idist=2100:odist=2100", "4K", 4096, 1);
  /* 1D R2C and C2R of even length (the m-point C2C of the reals viewed
   * as complex and the host step pairing bins k and m - k): m a power of
   * two and not, odd m (no self-paired bin), batched, in place (padded
   * rows, through the 1D scratch), gaps between transforms, scaled,
   * both precisions; C2R keeping its input (a host scratch) and with
   * HYFFT_DESTROY_INPUT (the step in place on the input). */
  run_case(cpu, gpu, "r2c:f32:8192", "8K", 8192, 1);
  run_case(cpu, gpu, "c2r:f32:8192", "8K", 8192, 1);
  run_case(cpu, gpu, "r2c:f64:6000:b3", "4K", 4096, 1);
  run_case(cpu, gpu, "c2r:f64:6000:b3", "4K", 4096, 1);
  run_case(cpu, gpu, "r2c:f32:4050:b2:ip", "4K", 4096, 1);
  run_case(cpu, gpu, "c2r:f32:4050:b2:ip", "4K", 4096, 1);
  run_case(cpu, gpu, "r2c:f64:3000:b2:idist=3100:odist=1600", "4K", 4096, 1);
  run_case(cpu, gpu, "c2r:f32:8192:b2:scale=1/N:idist=4200:odist=8400", "8K", 8192, 1);
  run_case_flags(cpu, gpu, "c2r:f64:6000:b2", "4K", 4096, 1, HYFFT_DESTROY_INPUT);
  /* Single transforms, whose step runs by columns beside the sweeps
   * (before each C2R piece is read, after each R2C piece lands): even and
   * odd splits of m, in place, scaled, C2R keeping or destroying its
   * input, both precisions. */
  run_case(cpu, gpu, "r2c:f64:12000", "8K", 8192, 1);
  run_case(cpu, gpu, "c2r:f64:12000", "8K", 8192, 1);
  run_case(cpu, gpu, "r2c:f32:6750:ip", "4K", 4096, 1);
  run_case(cpu, gpu, "c2r:f32:6750:ip:scale=1/N", "4K", 4096, 1);
  run_case(cpu, gpu, "r2c:f32:30258", "8K", 8192, 1);
  run_case(cpu, gpu, "c2r:f64:30258", "16K", 16384, 1);
  run_case_flags(cpu, gpu, "c2r:f32:16384", "8K", 8192, 1, HYFFT_DESTROY_INPUT);
  /* Odd lengths through the host buffer of n complex values: batched, in
   * place, strided reals and bins with gaps, scaled, both precisions. */
  run_case(cpu, gpu, "r2c:f32:3375", "8K", 8192, 1);
  run_case(cpu, gpu, "c2r:f32:3375", "8K", 8192, 1);
  run_case(cpu, gpu, "r2c:f64:1225:b3:ip", "4K", 4096, 1);
  run_case(cpu, gpu, "c2r:f64:1225:b3:ip", "4K", 4096, 1);
  run_case(cpu, gpu, "r2c:f32:2025:b2:is=2:idist=4100:odist=1100", "4K", 4096, 1);
  run_case(cpu, gpu, "c2r:f32:2025:b2:os=3:idist=1100:odist=6100:scale=1/N", "4K", 4096, 1);
  /* Even lengths whose reals the complex view cannot take go the same
   * way: strided along the axis, an odd batch distance. */
  run_case(cpu, gpu, "r2c:f32:4096:is=2", "8K", 8192, 1);
  run_case(cpu, gpu, "c2r:f64:3000:os=3:scale=1/N", "8K", 8192, 1);
  run_case(cpu, gpu, "r2c:f64:2048:b3:idist=2049:odist=1030", "8K", 8192, 1);
  run_case(cpu, gpu, "c2r:f32:2048:b2:idist=1025:odist=2051", "4K", 4096, 1);
  /* Batches whose single transform fits: one sweep of whole entries, any
   * length the device plans (primes, odd and even real lengths with
   * strided reals, which the two sweeps do not take), 1D to 3D, in place,
   * gaps between entries, C2R keeping its input, scaled, both
   * precisions; a budget of one entry goes one round trip at a time. */
  run_case(cpu, gpu, "c2c:f32:fwd:1009:b40", "40K", 40960, OOC_ENTRIES);
  run_case(cpu, gpu, "c2c:f64:bwd:997:b9:ip:scale=1/N", "40K", 40960, OOC_ENTRIES);
  run_case(cpu, gpu, "c2c:f32:bwd:1000:b7:is=2:os=3:idist=2100:odist=3100", "24K", 24576,
           OOC_ENTRIES);
  run_case(cpu, gpu, "r2c:f64:1001:b6:ip", "40K", 40960, OOC_ENTRIES);
  run_case(cpu, gpu, "c2r:f64:1001:b6:ip", "40K", 40960, OOC_ENTRIES);
  run_case(cpu, gpu, "r2c:f32:2048:b5:is=2:idist=4200:odist=1100", "20K", 20480, OOC_ENTRIES);
  run_case(cpu, gpu, "c2r:f32:2048:b5:os=3:idist=1100:odist=6200:scale=1/N", "20K", 20480,
           OOC_ENTRIES);
  run_case(cpu, gpu, "r2c:f64:2:b4000", "16K", 16384, OOC_ENTRIES);
  run_case(cpu, gpu, "c2c:f32:fwd:17x13:b12", "8K", 8192, OOC_ENTRIES);
  run_case(cpu, gpu, "r2c:f64:10x9x7:b5:ip", "24K", 24576, OOC_ENTRIES);
  run_case(cpu, gpu, "c2r:f32:12x10:b9", "2K", 2048, OOC_ENTRIES);
  run_case(cpu, gpu, "c2r:f32:11x10:b4:is=7,1:os=12,1:idist=90:odist=150", "2K", 2048,
           OOC_ENTRIES);
  run_case(cpu, gpu, "c2c:f64:fwd:1000:b3", "20K", 20480, OOC_ENTRIES_ONE);
  /* R2R: reals on both sides and on the device, in entries (1D to 3D)
   * and, for 2D and 3D transforms that do not fit, in the two sweeps
   * (R2R slabs of the other dims, R2R blocks along dim 0); kinds per
   * axis, odd lengths, in place, strided with gaps, scaled. */
  run_case(cpu, gpu, "r2r:f32:dct2xdct2:64x48", "8K", 8192, 1);
  run_case(cpu, gpu, "r2r:f64:dst1xdct3xdht:8x12x10:ip", "4K", 4096, 1);
  run_case(cpu, gpu, "r2r:f32:dct4xdst2:30x21:b2:is=23,1:os=1,30:idist=700:odist=650:scale=1/N",
           "2K", 2048, 1);
  /* 1D R2R that does not fit: every kind through the C2C of its
   * symmetric extension (itself out of core), strided, in place, scaled,
   * batched, both precisions. */
  run_case(cpu, gpu, "r2r:f64:dct1:1500", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f32:dct2:3000:is=2", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f64:dct3:1200:ip:scale=1/N", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f32:dct4:2500:os=3", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f64:dst1:1300:b2", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f32:dst2:3001", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f64:dst3:1100:ip", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f32:dst4:2222", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f64:dht:1999:b3:idist=2000:odist=2001", "8K", 8192, OOC_R2R1D);
  run_case(cpu, gpu, "r2r:f32:dct2:1000:b12", "16K", 16384, OOC_ENTRIES);
  run_case(cpu, gpu, "r2r:f64:dst3xdct1:16x17:b9:ip", "16K", 16384, OOC_ENTRIES);
  run_case(cpu, gpu, "r2r:f32:dht:101:b40:is=2:idist=210:odist=103", "2K", 2048, OOC_ENTRIES);
  run_case(cpu, gpu, "r2r:f64:dct4xdst2xdct3:6x7x5:b8", "12K", 12288, OOC_ENTRIES);
  /* 1D lengths the four-step sweeps cannot take: Bluestein's convolution
   * through an M-point plan on host data (itself out of core here):
   * primes, C2C both directions, batched with strides, in place, scaled,
   * R2C/C2R of odd prime length (through the n-point host buffer) and of
   * even length with m = n/2 prime (the complex view), both precisions;
   * then a length 2 x prime whose split's long side does not fit. */
  /* Stages of inner plans: batch dims that do not merge (transforms
   * along the middle axis of a 3D array, C2C, R2C, C2R keeping its input),
   * rank 4 and 5 (C2C in place and scaled, R2C, C2R through the host
   * scratch, in place and with HYFFT_DESTROY_INPUT; R2R of mixed kinds),
   * both precisions. */
  run_case(cpu, gpu, "c2c:f32:fwd:64:b8x16:is=16:os=16:idist=1024,1:odist=1024,1", "16K", 16384,
           OOC_STAGES);
  run_case(cpu, gpu, "r2c:f32:32:b8x6:is=6:os=6:idist=192,1:odist=102,1", "8K", 8192, OOC_STAGES);
  run_case(cpu, gpu, "c2r:f64:32:b8x6:is=6:os=6:idist=102,1:odist=192,1", "8K", 8192, OOC_STAGES);
  run_case(cpu, gpu, "c2c:f32:fwd:8x8x8x8", "16K", 16384, OOC_STAGES);
  run_case(cpu, gpu, "c2c:f64:bwd:6x8x5x7:b2:ip:scale=1/N", "16K", 16384, OOC_STAGES);
  run_case(cpu, gpu, "r2c:f32:8x6x8x10", "8K", 8192, OOC_STAGES);
  run_case(cpu, gpu, "c2r:f32:8x6x8x10", "8K", 8192, OOC_STAGES);
  run_case(cpu, gpu, "c2r:f64:6x4x6x8:b2:ip", "8K", 8192, OOC_STAGES);
  run_case(cpu, gpu, "r2c:f64:6x4x6x8:b2:ip", "8K", 8192, OOC_STAGES);
  run_case_flags(cpu, gpu, "c2r:f32:8x6x8x10", "8K", 8192, OOC_STAGES, HYFFT_DESTROY_INPUT);
  run_case(cpu, gpu, "c2c:f32:fwd:4x4x4x4x8", "8K", 8192, OOC_STAGES);
  run_case(cpu, gpu, "c2c:f64:fwd:4x4x4x8:b3x2:idist=2000,512:odist=1500,600", "8K", 8192,
           OOC_STAGES);
  /* R2R stages whose inner plans fit whole need workspace: their own
   * (HYFFT_OWN_WORKSPACE, passed on to the inner plans), so that the
   * context's shared area, which lives until the context goes, is not
   * counted as a leak at the end. */
  run_case_flags(cpu, gpu, "r2r:f64:dct2xdst1xdct3xdht:6x5x8x7", "8K", 8192, OOC_STAGES,
                 HYFFT_OWN_WORKSPACE);
  run_case_flags(cpu, gpu, "r2r:f32:dct1xdst4xdct2xdst2:5x8x6x7:b2:ip", "8K", 8192, OOC_STAGES,
                 HYFFT_OWN_WORKSPACE);
  run_case(cpu, gpu, "c2c:f32:fwd:4099", "8K", 8192, OOC_CHIRP);
  run_case(cpu, gpu, "c2c:f64:bwd:2053:ip:scale=1/N", "8K", 8192, OOC_CHIRP);
  run_case(cpu, gpu, "c2c:f32:bwd:3001:b2:is=2:os=3:idist=6100:odist=9100", "8K", 8192,
           OOC_CHIRP);
  run_case(cpu, gpu, "r2c:f32:4099", "8K", 8192, OOC_CHIRP);
  run_case(cpu, gpu, "c2r:f64:2053:scale=1/N", "8K", 8192, OOC_CHIRP);
  run_case(cpu, gpu, "r2c:f64:4106:ip", "8K", 8192, OOC_CHIRP);
  run_case(cpu, gpu, "c2r:f32:8198", "8K", 8192, OOC_CHIRP);
  run_case(cpu, gpu, "c2c:f32:fwd:8198", "16K", 16384, OOC_CHIRP);
  /* Within the budget: the ordinary path. */
  run_case(cpu, gpu, "c2c:f32:fwd:64x48", "1M", 1 << 20, 0);
  run_case(cpu, gpu, "c2c:f32:fwd:64x48", NULL, 0, 0);
}

static void test_limit_values(hyfft_context gpu) {
  static const struct { const char *raw; int64_t bytes; } good[] = {
      {"1024", 1024}, {"3k", 3072}, {"4M", 4 << 20}, {"2G", (int64_t)2 << 30}, {"7m", 7 << 20}};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    set_limit(good[i].raw);
    CHECK(hy_settings_get()->device_memory_limit == good[i].bytes, "'%s' read as %lld",
          good[i].raw, (long long)hy_settings_get()->device_memory_limit);
  }
  static const char *const bad[] = {"abc", "4MB", "-1", "0", "1.5M", "99999999999999999999",
                                    "9000000000G", " 4M", "4 M"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    set_limit(bad[i]);
    hyfft_plan plan;
    memset(&plan, 0xA5, sizeof plan);
    hyfft_status st = hyfft_plan_token(gpu, "c2c:f32:fwd:64x64", HYFFT_ESTIMATE, &plan);
    CHECK(st == HYFFT_INVALID_ARGUMENT, "limit '%s': plan creation returned %s", bad[i],
          hyfft_status_name(st));
    CHECK(strstr(hyfft_last_error(), "HYFFT_DEVICE_MEMORY_LIMIT") != NULL,
          "limit '%s': message '%s' does not name the variable", bad[i], hyfft_last_error());
    if (st == HYFFT_SUCCESS) hyfft_plan_destroy(plan);
  }
  set_limit(NULL);
  CHECK(hy_settings_get()->device_memory_limit == 0, "unset limit read as %lld",
        (long long)hy_settings_get()->device_memory_limit);
}

/* The OpenCL suite's problems (tests/backend/opencl/CMakeLists.txt,
 * opencl.paths.out_of_core, limit 1M) are out of core because their data
 * alone exceed the limit, on any device. */
static void test_suite_problems(hyfft_context gpu) {
  static const char *const tokens[] = {
      "c2c:f32:fwd:512x512",  "c2c:f64:bwd:256x300:ip", "c2c:f32:fwd:64x64x64",
      "c2c:f32:bwd:96x80x50:b2", "c2c:f32:fwd:1000x600",
      /* opencl.paths.out_of_core_real */
      "r2c:f32:512x512",      "c2r:f64:512x301:ip",     "r2c:f32:64x64x127:b2",
      "c2r:f32:96x80x50",     "r2c:f64:600x1001:ip",    "c2r:f32:700x513:scale=1/N",
      /* opencl.paths.out_of_core_1d */
      "c2c:f32:fwd:262144",   "c2c:f64:bwd:100000:b2:ip", "c2c:f32:fwd:177147",
      "c2c:f32:bwd:65536:b8:scale=1/N", "c2c:f64:fwd:360000",
      /* opencl.paths.out_of_core_1d_odd, _packed and _multipass */
      "c2c:f32:fwd:200000", "c2c:f64:bwd:150000", "c2c:f32:bwd:300125", "c2c:f64:fwd:255255",
      "c2c:f32:fwd:98304:b3", "c2c:f64:bwd:135135:ip", "c2c:f32:bwd:200000:scale=1/N",
      "c2c:f64:fwd:300125", "c2c:f64:fwd:262144:ip",
      /* opencl.paths.out_of_core_1d_real */
      "r2c:f32:524288", "c2r:f32:524288", "r2c:f64:200000:b2", "c2r:f64:200000:b2:ip",
      "r2c:f32:262144:ip", "c2r:f32:300000:scale=1/N", "c2r:f64:131072:b3",
      "r2c:f32:131072:b2:idist=131200:odist=65600",
      /* opencl.paths.out_of_core_1d_real_odd */
      "r2c:f32:531441", "c2r:f32:531441", "r2c:f64:135135:b2", "c2r:f64:135135:b2:ip",
      "r2c:f32:300125:ip", "c2r:f32:300125:scale=1/N", "r2c:f32:99225:b3:is=2:idist=200000",
      "c2r:f64:99225:b2:os=3:odist=300000", "r2c:f32:524288:is=2",
      "c2r:f64:200000:b2:odist=200001", "c2r:f32:262144:os=2:scale=1/N",
      /* opencl.paths.out_of_core_entries: one sweep of whole entries */
      "c2c:f32:fwd:1009:b1000", "c2c:f64:bwd:10007:b40:ip",
      "r2c:f32:2048:b300:is=2:idist=4100:odist=1100", "c2r:f64:1001:b300:ip",
      "r2c:f32:32x40x63:b6", "c2r:f32:100x99:b40:scale=1/N",
      /* opencl.paths.out_of_core_bluestein: Bluestein's convolution */
      "c2c:f32:fwd:262147", "c2c:f64:bwd:131071:ip", "c2r:f32:262151",
      "r2c:f64:262126:scale=1/N", "c2c:f64:fwd:262142"};
  const size_t first_chirp = sizeof tokens / sizeof *tokens - 5;
  const size_t first_entries = first_chirp - 6;
  set_limit("1M");
  for (size_t i = 0; i < sizeof tokens / sizeof *tokens; i++) {
    hyfft_plan plan = NULL;
    CHECK_OK(hyfft_plan_token(gpu, tokens[i], HYFFT_ESTIMATE, &plan));
    if (!plan) continue;
    const hy_problem *p = &plan->problem;
    size_t data = (size_t)p->in_extent * hy_problem_in_elem_size(p);
    size_t out = (size_t)p->out_extent * hy_problem_out_elem_size(p);
    if (out > data) data = out;
    CHECK(data > ((size_t)1 << 20), "%s: %zu bytes of input or output fit 1M", tokens[i], data);
    CHECK(plan->ooc != NULL && describes_ooc(plan) >= 1, "%s under 1M is not out of core",
          tokens[i]);
    if (i >= first_chirp)
      CHECK(describes_ooc(plan) == 3, "%s under 1M: not Bluestein's convolution", tokens[i]);
    else if (i >= first_entries)
      CHECK(describes_ooc(plan) == 2, "%s under 1M: not one sweep of whole entries", tokens[i]);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  set_limit(NULL);
}

static void test_refusals(hyfft_context gpu) {
  hyfft_plan plan;
  /* Callbacks index the whole caller buffers; an out-of-core plan's
   * sub-plans see pieces: refused by name (the fake backend is a "CUDA"
   * one, so the callback is source text; nothing is compiled). */
  set_limit("8K");
  hyfft_problem cbp;
  CHECK_OK(hyfft_problem_parse("c2c:f32:fwd:64x48", &cbp));
  hyfft_callbacks cb = {"return in[index];", NULL, NULL, NULL, NULL, NULL};
  plan = NULL;
  hyfft_status st = hyfft_plan_create_with_callbacks(gpu, &cbp, HYFFT_ESTIMATE, &cb, &plan);
  CHECK(st == HYFFT_NOT_SUPPORTED && strstr(hyfft_last_error(), "out-of-core"),
        "out of core with a callback: %s (%s)", hyfft_status_name(st), hyfft_last_error());
  if (st == HYFFT_SUCCESS) hyfft_plan_destroy(plan);
  /* One row of 4096 f32 points is 32 KiB: no slab fits 16 KiB. */
  set_limit("16K");
  memset(&plan, 0xA5, sizeof plan);
  st = hyfft_plan_token(gpu, "c2c:f32:fwd:64x4096", HYFFT_ESTIMATE, &plan);
  CHECK(st == HYFFT_OUT_OF_MEMORY, "64x4096 under 16K: %s", hyfft_status_name(st));
  CHECK(strstr(hyfft_last_error(), "16384") && strstr(hyfft_last_error(), "32768") &&
            strstr(hyfft_last_error(), "budget"),
        "64x4096 under 16K: message '%s' lacks the bytes needed or the budget", hyfft_last_error());
  unsigned char poison[sizeof plan];
  memset(poison, 0xA5, sizeof poison);
  CHECK(memcmp(&plan, poison, sizeof plan) == 0, "the refused plan's handle was written");
  /* The same for the blocks of sweep 2: a column of 8192 f32 points. */
  st = hyfft_plan_token(gpu, "c2c:f32:fwd:8192x2", HYFFT_ESTIMATE, &plan);
  CHECK(st == HYFFT_OUT_OF_MEMORY && strstr(hyfft_last_error(), "block"),
        "8192x2 under 16K: %s (%s)", hyfft_status_name(st), hyfft_last_error());

  /* Batch dims that do not merge, and rank 4, go in stages under the
   * limit; without a user limit the budget is the device's memory, and
   * these small problems fit whole. */
  static const char *const staged[] = {"c2c:f32:fwd:64x64:b3x5:idist=30000,4096",
                                       "c2c:f32:fwd:16x16x16x16"};
  for (size_t i = 0; i < sizeof staged / sizeof *staged; i++) {
    hyfft_plan ok = NULL;
    CHECK_OK(hyfft_plan_token(gpu, staged[i], HYFFT_ESTIMATE, &ok));
    if (ok) {
      CHECK(ok->ooc != NULL && describes_ooc(ok) == 5, "%s under 16K: not in stages", staged[i]);
      CHECK_OK(hyfft_plan_destroy(ok));
    }
  }
  set_limit(NULL);
  for (size_t i = 0; i < sizeof staged / sizeof *staged; i++) {
    hyfft_plan ok = NULL;
    CHECK_OK(hyfft_plan_token(gpu, staged[i], HYFFT_ESTIMATE, &ok));
    if (ok) {
      CHECK(ok->ooc == NULL, "%s without a limit is out of core", staged[i]);
      CHECK_OK(hyfft_plan_destroy(ok));
    }
  }
}

/* The geometry an H100 gets (its caps, the staging hooks; planned, not
 * run) for the 1D transforms docs/cli.md measures under a 4 GiB budget:
 * out of core and double-buffered, the first sweep twiddled on the device
 * with its transposed output over the block's input (three pieces' worth
 * of device memory with the workspace, not five), and every block's host
 * rows as wide as HY_OOC_MIN_BLOCK_ROW (32 KiB) where three pieces of that
 * fit the budget (2^30 f32 points), else at least 16 KiB, in both sweeps. */
static void test_large_geometry(hyfft_context gpu) {
  static const struct {
    const char *token;
    int64_t n2[2];
    size_t elem;
    int64_t min_row;
  } big[] = {{"c2c:f32:fwd:1073741824", {32768, 32768}, 8, 32768},
             {"c2c:f32:fwd:2147483648", {65536, 32768}, 8, 16384},
             {"c2c:f64:fwd:2147483648", {65536, 32768}, 16, 16384},
             {"c2c:f32:fwd:4294967296", {65536, 65536}, 8, 16384}};
  hy_device_caps saved = gpu->caps;
  gpu->caps = hy_h100_caps();
  use_hooks(gpu, 1);
  set_limit("4G");
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
    hyfft_plan plan = NULL;
    CHECK_OK(hyfft_plan_token(gpu, big[i].token, HYFFT_ESTIMATE, &plan));
    if (!plan) continue;
    CHECK(plan->ooc && hy_ooc_overlapped(plan), "%s under 4G: out of core %d, overlapped %d",
          big[i].token, plan->ooc != NULL, hy_ooc_overlapped(plan));
    for (int k = 0; k < 2 && plan->ooc; k++) {
      int64_t pieces = hy_ooc_pieces(plan, k), row = big[i].n2[k] / pieces * (int64_t)big[i].elem;
      CHECK(row >= big[i].min_row, "%s under 4G: sweep %d in %lld pieces, rows of %lld bytes",
            big[i].token, k + 1, (long long)pieces, (long long)row);
    }
    size_t need = 0;
    (void)hyfft_plan_describe(plan, NULL, 0, &need);
    char *text = malloc(need + 1);
    if (text && hyfft_plan_describe(plan, text, need + 1, NULL) == HYFFT_SUCCESS)
      CHECK(strstr(text, "twiddled on the device, stored transposed over the block's input") &&
                strstr(text, ": twiddle out -> out"),
            "%s under 4G: the description lacks the device twiddles:\n%s", big[i].token, text);
    free(text);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  /* HYFFT_OOC_BLOCK_ROW sets the width instead: 16 KiB rows at 2^30 f32
   * are 16 pieces of 2048 columns per sweep. */
  setenv("HYFFT_OOC_BLOCK_ROW", "16K", 1);
  hy_settings_reload();
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_token(gpu, "c2c:f32:fwd:1073741824", HYFFT_ESTIMATE, &plan));
  if (plan) {
    for (int k = 0; k < 2 && plan->ooc; k++)
      CHECK(hy_ooc_pieces(plan, k) == 16, "HYFFT_OOC_BLOCK_ROW=16K: sweep %d in %lld pieces", k + 1,
            (long long)hy_ooc_pieces(plan, k));
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  unsetenv("HYFFT_OOC_BLOCK_ROW");
  set_limit(NULL);
  use_hooks(gpu, 0);
  gpu->caps = saved;
}

int main(void) {
  hyfft_context cpu = NULL, gpu = NULL;
  CHECK_OK(hyfft_context_create("cpu", &cpu));
  CHECK_OK(hyfft_context_create("cpu", &gpu));
  if (!cpu || !gpu) return hy_test_summary();
  fake = *gpu->backend;
  fake.id = HYFFT_BACKEND_CUDA;
  fake.alloc = fake_alloc;
  fake.release = fake_release;
  fake.write = fake_write;
  fake.read = fake_read;
  gpu->backend = &fake;

  fake_hooks = fake;
  fake_hooks.host_alloc = fake_host_alloc;
  fake_hooks.host_release = fake_host_release;
  fake_hooks.queue_create = fake_queue_create;
  fake_hooks.queue_release = fake_queue_release;
  fake_hooks.event_create = fake_event_create;
  fake_hooks.event_release = fake_event_release;
  fake_hooks.event_record = fake_event_record;
  fake_hooks.queue_wait = fake_queue_wait;
  fake_hooks.event_wait = fake_event_wait;
  fake_hooks.host_pinned = fake_host_pinned;
  fake_hooks.copy_2d = fake_copy_2d;

  test_large_geometry(gpu);
  test_limit_values(gpu);
  test_suite_problems(gpu);
  /* One blocking round trip per piece (OpenCL's way), then double-buffered
   * (CUDA's), then HYFFT_STAGING=simple with the hooks. */
  run_cases(cpu, gpu);
  use_hooks(gpu, 1);
  run_cases(cpu, gpu);
  CHECK(atomic_load(&waits) > 0, "the double-buffered path waited for no event");
  CHECK(atomic_load(&copies_2d) == 0, "unpinned user memory went by %ld 2D copies",
        atomic_load(&copies_2d));
  /* The user's memory page-locked: sides whose pieces are rows one stride
   * apart go by 2D copies (the CPU packs only the others: padded or
   * interleaved layouts, the host scratch); then
   * HYFFT_STAGING=packed packs them all again. */
  pinned = 1;
  run_cases(cpu, gpu);
  CHECK(atomic_load(&copies_2d) > 0, "page-locked user memory went by no 2D copy");
  /* Each kind of side by itself: complex slabs and blocks, real slabs
   * (padded in place), 3D slabs of na lines, and the 1D four-step. */
  static const struct { const char *token, *limit; size_t bytes; } direct[] = {
      {"c2c:f32:fwd:64x48", "8K", 8192},     {"r2c:f64:30x21:ip", "3K", 3072},
      {"c2c:f32:fwd:8x12x10:b3", "4K", 4096}, {"c2r:f32:8x12x9:b3", "2K", 2048},
      {"c2c:f64:bwd:3000:b3", "4K", 4096}};
  for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++) {
    long at = atomic_load(&copies_2d);
    run_case(cpu, gpu, direct[i].token, direct[i].limit, direct[i].bytes, 1);
    CHECK(atomic_load(&copies_2d) > at, "%s on page-locked memory went by no 2D copy",
          direct[i].token);
  }
  /* 1D out of place on page-locked memory: both sweeps' uploads and
   * downloads by 2D copies (the first sweep's download is the device's
   * transposed, twiddled block), nothing through the plan's buffers but
   * the pieces' first columns; in place, the host scratch goes packed. */
  static const struct { const char *token, *limit; size_t bytes; } direct_1d[] = {
      {"c2c:f64:bwd:3000:b3", "4K", 4096},
      {"c2c:f32:fwd:4096", "8K", 8192},
      {"c2c:f32:bwd:10000:scale=1/N", "16K", 16384}};
  for (size_t i = 0; i < sizeof direct_1d / sizeof direct_1d[0]; i++) {
    long bulk = atomic_load(&bulk_copies), at = atomic_load(&copies_2d);
    run_case(cpu, gpu, direct_1d[i].token, direct_1d[i].limit, direct_1d[i].bytes, 1);
    CHECK(atomic_load(&bulk_copies) == bulk && atomic_load(&copies_2d) > at,
          "%s on page-locked memory: %ld piece copies through the plan's buffers, %ld 2D copies",
          direct_1d[i].token, atomic_load(&bulk_copies) - bulk, atomic_load(&copies_2d) - at);
  }
  setenv("HYFFT_STAGING", "packed", 1);
  hy_settings_reload();
  long before = atomic_load(&copies_2d);
  run_case(cpu, gpu, "c2c:f32:fwd:64x48", "8K", 8192, 1);
  run_case(cpu, gpu, "r2c:f32:8x12x10:b3", "4K", 4096, 1);
  run_case(cpu, gpu, "c2c:f64:bwd:3000:b3", "4K", 4096, 1);
  run_case(cpu, gpu, "c2c:f32:fwd:4096", "8K", 8192, 1);
  CHECK(atomic_load(&copies_2d) == before, "HYFFT_STAGING=packed still copied directly");
  unsetenv("HYFFT_STAGING");
  hy_settings_reload();
  pinned = 0;
  /* A budget that holds one column (512 bytes) but not two: one round
   * trip at a time even with the hooks. */
  set_limit("700");
  hyfft_plan one = NULL;
  CHECK_OK(hyfft_plan_token(gpu, "c2c:f32:fwd:64x48", HYFFT_ESTIMATE, &one));
  if (one) {
    CHECK(one->ooc && !hy_ooc_overlapped(one) && hy_ooc_pieces(one, 1) == 48,
          "64x48 under 700 bytes: out of core %d, overlapped %d, %lld blocks", one->ooc != NULL,
          hy_ooc_overlapped(one), (long long)hy_ooc_pieces(one, 1));
    CHECK_OK(hyfft_plan_destroy(one));
  }
  set_limit(NULL);
  setenv("HYFFT_STAGING", "simple", 1);
  hy_settings_reload();
  run_case(cpu, gpu, "c2c:f32:fwd:8x12x10:b3", "4K", 4096, 1);
  unsetenv("HYFFT_STAGING");
  hy_settings_reload();
  test_refusals(gpu);
  use_hooks(gpu, 0);
  CHECK(hyfft_plan_set_progress(NULL, progress_record, NULL) == HYFFT_NULL_POINTER,
        "hyfft_plan_set_progress(NULL) did not fail with HYFFT_NULL_POINTER");

  CHECK(atomic_load(&live_pinned) == 0 && atomic_load(&live_queues) == 0 &&
            atomic_load(&live_events) == 0,
        "leaked %d pinned buffers, %d queues, %d events", atomic_load(&live_pinned),
        atomic_load(&live_queues), atomic_load(&live_events));
  CHECK(atomic_load(&live_buffers) == 0, "%d device buffers leaked", atomic_load(&live_buffers));
  gpu->backend = &hy_backend_cpu;
  CHECK_OK(hyfft_context_destroy(gpu));
  CHECK_OK(hyfft_context_destroy(cpu));
  return hy_test_summary();
}
