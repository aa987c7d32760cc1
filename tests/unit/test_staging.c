/* Unit tests of host-data staging (src/exec/staging.c) without a GPU:
 *   - chunk planning: exact chunk sizes, remainders and byte ranges for the
 *     problems the GPU test runs, every fallback, and a brute-force check
 *     on small problems that each chunk's ranges hold exactly what its
 *     batch entries touch and that ranges of different chunks are disjoint;
 *   - the whole chunked pipeline (sub-plans, offsets, pinned double
 *     buffers, remainder chunk, events) on a fake GPU backend: the CPU
 *     backend's table with a GPU id and the staging hooks (synchronous),
 *     checked against the plain CPU result, from several threads at once,
 *     with the hooks' resources counted for leaks, and HYFFT_STAGING=simple;
 *     progress (hyfft_plan_set_progress) once per chunk, ending at 1.0.
 * The asynchronous overlap itself only shows on a GPU
 * (tests/backend/cuda/cuda_backend.c). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/half.h"
#include "util/settings.h"
#include "check.h"
#include "exec/exec.h"
#include "exec/staging.h"

#define MIB ((size_t)1 << 20)

static hy_problem make(const char *token) {
  hyfft_problem u;
  hy_problem p;
  memset(&p, 0, sizeof p);
  if (hyfft_problem_parse(token, &u) != HYFFT_SUCCESS || hy_problem_make(&u, &p) != HYFFT_SUCCESS)
    hy_test_fail("%s: %s", token, hyfft_last_error());
  return p;
}

/* Exact plans for the GPU test's problems with the library defaults. */
static void test_exact(void) {
  hy_stage_chunks c;
  const char *why;
  hy_problem p = make("c2c:f32:fwd:4096:b4099");
  int ok = hy_stage_plan_chunks(&p, HY_STAGE_MIN_CHUNK_BYTES, HY_STAGE_MAX_CHUNK_BYTES,
                                HY_STAGE_MIN_CHUNKS, &c, &why);
  CHECK(ok, "4096:b4099 not chunked: %s", why ? why : "");
  /* 134 MB / 16 = 8.39 MB -> 257 entries of 32 KiB, 15 x 257 + 244. */
  CHECK(c.chunk == 257 && c.count == 16 && c.last == 244, "chunk %lld count %lld last %lld",
        (long long)c.chunk, (long long)c.count, (long long)c.last);
  CHECK(c.in_step == 257 * 32768 && c.out_step == 257 * 32768, "steps %zu %zu", c.in_step,
        c.out_step);
  CHECK(c.in_bytes == 257 * 32768 && c.out_bytes == 257 * 32768 && c.in_last_bytes == 244 * 32768 &&
            c.out_last_bytes == 244 * 32768,
        "bytes %zu %zu %zu %zu", c.in_bytes, c.out_bytes, c.in_last_bytes, c.out_last_bytes);

  p = make("c2c:f64:fwd:1024:b2000:idist=1100");
  ok = hy_stage_plan_chunks(&p, HY_STAGE_MIN_CHUNK_BYTES, HY_STAGE_MAX_CHUNK_BYTES,
                            HY_STAGE_MIN_CHUNKS, &c, &why);
  CHECK(ok, "f64 1024:b2000:idist=1100 not chunked: %s", why ? why : "");
  /* 17600 B per entry in, 16384 out; 8 MiB minimum -> 477 entries. */
  CHECK(c.chunk == 477 && c.count == 5 && c.last == 92, "chunk %lld count %lld last %lld",
        (long long)c.chunk, (long long)c.count, (long long)c.last);
  CHECK(c.in_step == 477 * 17600 && c.out_step == 477 * 16384, "steps %zu %zu", c.in_step,
        c.out_step);
  /* The input range stops at the last entry's last element, not its pad. */
  CHECK(c.in_bytes == (476 * 1100 + 1024) * 16 && c.in_last_bytes == (91 * 1100 + 1024) * 16,
        "in bytes %zu %zu", c.in_bytes, c.in_last_bytes);
  CHECK(c.out_bytes == 477 * 16384 && c.out_last_bytes == 92 * 16384, "out bytes %zu %zu",
        c.out_bytes, c.out_last_bytes);

  /* Huge batches: chunks capped at 64 MiB. */
  p = make("c2c:f32:fwd:1024:b2097216");
  ok = hy_stage_plan_chunks(&p, HY_STAGE_MIN_CHUNK_BYTES, HY_STAGE_MAX_CHUNK_BYTES,
                            HY_STAGE_MIN_CHUNKS, &c, &why);
  CHECK(ok && c.chunk == 8192 && c.in_bytes == 64 * MIB && c.count == 257 && c.last == 64,
        "2^31 case: ok %d chunk %lld count %lld last %lld", ok, (long long)c.chunk,
        (long long)c.count, (long long)c.last);

  /* In place: the same range both ways. */
  p = make("c2c:f32:bwd:4096:b4099:ip");
  ok = hy_stage_plan_chunks(&p, HY_STAGE_MIN_CHUNK_BYTES, HY_STAGE_MAX_CHUNK_BYTES,
                            HY_STAGE_MIN_CHUNKS, &c, &why);
  CHECK(ok && c.in_bytes == c.out_bytes && c.in_step == c.out_step, "in place");
}

static void expect_fallback(const char *token, const char *reason_part) {
  hy_problem p = make(token);
  hy_stage_chunks c;
  const char *why = NULL;
  int ok = hy_stage_plan_chunks(&p, HY_STAGE_MIN_CHUNK_BYTES, HY_STAGE_MAX_CHUNK_BYTES,
                                HY_STAGE_MIN_CHUNKS, &c, &why);
  CHECK(!ok && why && strstr(why, reason_part), "%s: ok %d, why '%s', expected '%s'", token, ok,
        why ? why : "(none)", reason_part);
}

static void test_fallbacks(void) {
  expect_fallback("c2c:f32:fwd:16777216", "no batch");
  expect_fallback("c2c:f32:fwd:4096x4096", "no batch");
  expect_fallback("c2c:f32:fwd:1024:b64", "too little");
  /* 23 MiB: not four chunks of 8 MiB (31 MiB is: three and a remainder). */
  expect_fallback("c2c:f32:fwd:1024:b3000", "too little");
  /* Output pads between entries, and strided outputs, have gaps. */
  expect_fallback("c2c:f32:fwd:4096:b4099:odist=5000", "gaps");
  expect_fallback("c2c:f32:fwd:4096:b4099:os=2:odist=8192", "gaps");
  /* Entries interleaved: the batch dim has the smallest input stride. */
  expect_fallback("c2c:f32:fwd:4096:b4099:is=4099:idist=1:os=4099:odist=1", "interleave");
  /* The lower boundary: exactly 32 MiB is four chunks of 8 MiB. */
  hy_problem p = make("c2c:f32:fwd:1024:b4096");
  hy_stage_chunks c;
  const char *why;
  int ok = hy_stage_plan_chunks(&p, HY_STAGE_MIN_CHUNK_BYTES, HY_STAGE_MAX_CHUNK_BYTES,
                                HY_STAGE_MIN_CHUNKS, &c, &why);
  CHECK(ok && c.count == 4 && c.chunk == 1024 && c.last == 1024, "32 MiB: ok %d count %lld", ok,
        (long long)c.count);
}

/* Visit every element index one batch entry of batch[0] touches, relative
 * to the entry's start, on one side. */
static void entry_indices(const hy_problem *p, int output, int64_t *idx, int64_t *count) {
  hyfft_dim dims[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  int m = 0;
  for (int i = 0; i < p->rank; i++) dims[m++] = p->dims[i];
  for (int i = 1; i < p->batch_rank; i++) dims[m++] = p->batch[i];
  int64_t ctr[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK] = {0};
  int64_t k = 0;
  for (;;) {
    int64_t off = 0;
    for (int i = 0; i < m; i++) off += ctr[i] * (output ? dims[i].out_stride : dims[i].in_stride);
    idx[k++] = off;
    int i = m - 1;
    while (i >= 0 && ++ctr[i] == dims[i].n) ctr[i--] = 0;
    if (i < 0) break;
  }
  *count = k;
}

/* Each chunk's byte range covers exactly its entries' elements (output,
 * out of place: all of the range is written; in place: the union), and
 * ranges of different chunks do not meet. Small limits make small
 * problems split. */
static void brute_force(const char *token, size_t min_bytes, size_t max_bytes, int expect) {
  hy_problem p = make(token);
  hy_stage_chunks c;
  const char *why = NULL;
  int ok = hy_stage_plan_chunks(&p, min_bytes, max_bytes, 4, &c, &why);
  CHECK(ok == expect, "%s: chunked %d, expected %d (%s)", token, ok, expect, why ? why : "");
  if (!ok || ok != expect) return;
  size_t ie = hy_problem_in_elem_size(&p), oe = hy_problem_out_elem_size(&p);
  int64_t per = p.total_transform * p.total_batch / p.batch[0].n;
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)per);
  CHECK(c.last >= 1 && c.last <= c.chunk && (c.count - 1) * c.chunk + c.last == p.batch[0].n,
        "%s: chunk %lld count %lld last %lld", token, (long long)c.chunk, (long long)c.count,
        (long long)c.last);
  CHECK(c.in_bytes <= c.in_step && c.out_bytes <= c.out_step, "%s: ranges overlap", token);
  CHECK(c.chunk == 1 || c.in_bytes >= min_bytes || c.out_bytes >= min_bytes,
        "%s: chunk of %zu bytes", token, c.in_bytes);
  for (int side = 0; side < 2; side++) {
    size_t elem = side ? oe : ie;
    int64_t stride = side ? p.batch[0].out_stride : p.batch[0].in_stride;
    int64_t n;
    entry_indices(&p, side, idx, &n);
    for (int64_t k = 0; k < c.count; k++) {
      int64_t entries = k == c.count - 1 ? c.last : c.chunk;
      size_t lo = (size_t)k * (side ? c.out_step : c.in_step);
      size_t bytes = k == c.count - 1 ? (side ? c.out_last_bytes : c.in_last_bytes)
                                      : (side ? c.out_bytes : c.in_bytes);
      char *hit = calloc(bytes / elem + 1, 1);
      int bad = 0;
      for (int64_t j = 0; j < entries; j++) {
        int64_t base = (k * c.chunk + j) * stride;
        for (int64_t e = 0; e < n; e++) {
          int64_t at = (base + idx[e]) * (int64_t)elem - (int64_t)lo;
          if (at < 0 || (size_t)at + elem > bytes) bad = 1;
          else hit[at / (int64_t)elem] = 1;
        }
      }
      CHECK(!bad, "%s: chunk %lld side %d: an element outside the range", token, (long long)k,
            side);
      /* The range's last element is touched (tight), and out of place
       * every output element in it is (no gaps to clobber). */
      CHECK(hit[bytes / elem - 1], "%s: chunk %lld side %d: range not tight", token,
            (long long)k, side);
      if (side == 1 && !p.inplace) {
        int64_t holes = 0;
        for (size_t e = 0; e < bytes / elem; e++) holes += !hit[e];
        CHECK(holes == 0, "%s: chunk %lld: %lld output holes", token, (long long)k,
              (long long)holes);
      }
      free(hit);
    }
  }
  free(idx);
}

static void test_brute_force(void) {
  brute_force("c2c:f32:fwd:16:b37", 256, 1024, 1);
  brute_force("c2c:f64:fwd:16:b37:idist=20", 256, 1024, 1);
  brute_force("c2c:f32:fwd:8x6:b29:is=7,1:idist=60", 300, 2000, 1);
  brute_force("c2c:f32:fwd:4:b9x5:idist=40,4", 300, 2000, 1);
  brute_force("c2c:f32:fwd:16:b37:ip", 256, 1024, 1);
  brute_force("c2c:f32:fwd:16:b37:ip:is=2:os=2:idist=40:odist=40", 256, 1024, 1);
  brute_force("c2c:f32:fwd:16:b10:idist=17", 64, 64, 1);   /* one entry per chunk */
  brute_force("c2c:f32:fwd:16:b37:odist=17", 256, 1024, 0); /* output gaps */
  brute_force("c2c:f32:fwd:16:b3", 256, 1024, 0);           /* too small */
}

/* ---- the pipeline on a fake GPU backend ------------------------------------ */

static atomic_int live_host, live_queues, live_events;
static atomic_long records, waits;

static hy_status fake_host_alloc(void *device, size_t bytes, void **host) {
  (void)device;
  *host = malloc(bytes ? bytes : 1);
  if (!*host) return hy_error(HYFFT_OUT_OF_MEMORY, "fake host_alloc");
  atomic_fetch_add(&live_host, 1);
  return HYFFT_SUCCESS;
}
static void fake_host_release(void *device, void *host) {
  (void)device;
  free(host);
  atomic_fetch_sub(&live_host, 1);
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
  atomic_fetch_add(&records, 1);
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

/* The fake's answer to "is this page-locked user memory?", and how often
 * it said yes. */
static int all_pinned;
static atomic_long pinned_yes;
static int fake_host_pinned(void *device, const void *ptr, size_t bytes) {
  (void)device, (void)ptr, (void)bytes;
  if (all_pinned) atomic_fetch_add(&pinned_yes, 1);
  return all_pinned;
}

static hy_backend fake;

/* f32 values in [-0.5, 0.5), or (half = 1) f16 patterns of such values. */
static void fill_as(void *buf, size_t bytes, unsigned seed, int half) {
  float *f = buf;
  uint16_t *h = buf;
  for (size_t i = 0; i < bytes / (half ? 2 : sizeof(float)); i++) {
    seed = seed * 1664525u + 1013904223u;
    float v = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    if (half) h[i] = hy_f32_to_f16(v);
    else f[i] = v;
  }
}

static void fill(void *buf, size_t bytes, unsigned seed) { fill_as(buf, bytes, seed, 0); }

/* Largest |a - b| over largest |b|, elementwise in the problem's type. */
static double rel_diff(const void *a, const void *b, size_t bytes, int f64) {
  double num = 0, den = 0;
  size_t n = bytes / (f64 == 2 ? 2 : f64 ? 8 : 4); /* f64 == 2: f16 storage */
  for (size_t i = 0; i < n; i++) {
    double x = f64 == 2 ? hy_f16_to_f32(((const uint16_t *)a)[i])
               : f64    ? ((const double *)a)[i]
                        : ((const float *)a)[i];
    double y = f64 == 2 ? hy_f16_to_f32(((const uint16_t *)b)[i])
               : f64    ? ((const double *)b)[i]
                        : ((const float *)b)[i];
    if (fabs(x - y) > num) num = fabs(x - y);
    if (fabs(y) > den) den = fabs(y);
  }
  return den > 0 ? num / den : num;
}

typedef struct run_arg {
  hyfft_plan plan;
  const void *in;
  size_t in_bytes, out_bytes;
  const void *want, *out_init;
  int f64, inplace, reps;
  int failures;
} run_arg;

static void *run_thread(void *v) {
  run_arg *a = v;
  void *in = malloc(a->in_bytes), *out = a->inplace ? NULL : malloc(a->out_bytes);
  for (int r = 0; r < a->reps; r++) {
    memcpy(in, a->in, a->in_bytes);
    if (out) memcpy(out, a->out_init, a->out_bytes);
    void *o = a->inplace ? in : out;
    if (hyfft_execute(a->plan, in, o) != HYFFT_SUCCESS ||
        memcmp(o, a->want, a->out_bytes) != 0)
      a->failures++;
  }
  free(in);
  free(out);
  return NULL;
}

/* Run `token` through the staged plan on the fake backend and through a
 * plain CPU plan; `chunked` says whether the stage should split it. */
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

static void pipeline_case(hyfft_context cpu, hyfft_context gpu, const char *token, int chunked,
                          int threads) {
  hyfft_problem u;
  CHECK_OK(hyfft_problem_parse(token, &u));
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_create(cpu, &u, HYFFT_ESTIMATE, &ref));
  CHECK_OK(hyfft_plan_create(gpu, &u, HYFFT_ESTIMATE, &plan));
  if (!ref || !plan) return;
  /* chunked < 0: no stage expected (HYFFT_STAGING=simple). */
  CHECK((plan->stage != NULL) == (chunked >= 0), "%s: stage %p", token, (void *)plan->stage);
  CHECK(hy_stage_is_chunked(plan) == (chunked > 0), "%s: chunked %d, expected %d", token,
        hy_stage_is_chunked(plan), chunked);
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  /* In place, one buffer holds both ends: a real transform's complex end
   * may reach past its padded real one. */
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  int f64 = p->storage == HYFFT_F16 ? 2 : p->precision == HYFFT_F64;
  void *in = malloc(in_bytes), *in2 = malloc(in_bytes);
  void *want = malloc(out_bytes), *got = malloc(out_bytes);
  fill_as(in, in_bytes, 12345, f64 == 2);
  memcpy(in2, in, in_bytes);
  /* Output gaps keep their contents: start both from the same bytes. */
  void *out_init = malloc(out_bytes);
  fill(out_init, out_bytes, 777);
  memcpy(want, out_init, out_bytes);
  memcpy(got, out_init, out_bytes);
  /* Progress: once per chunk (the last one's call being the final 1.0),
   * else the final 1.0 alone. */
  progress_log log = {0, 0, 0, 0};
  CHECK_OK(hyfft_plan_set_progress(plan, progress_record, &log));
  if (p->inplace) {
    CHECK_OK(hyfft_execute(ref, in2, in2));
    memcpy(want, in2, out_bytes);
    memcpy(in2, in, in_bytes);
    CHECK_OK(hyfft_execute(plan, in2, in2));
    memcpy(got, in2, out_bytes);
  } else {
    CHECK_OK(hyfft_execute(ref, in, want));
    CHECK_OK(hyfft_execute(plan, in2, got));
    CHECK(memcmp(in, in2, in_bytes) == 0, "%s: input changed", token);
  }
  CHECK((chunked > 0 ? log.calls >= 2 : log.calls == 1) && log.bad == 0 && log.ones == 1 &&
            log.last == 1.0,
        "%s: progress: %d calls, %d bad, %d of 1.0, last %g", token, log.calls, log.bad, log.ones,
        log.last);
  CHECK_OK(hyfft_plan_set_progress(plan, NULL, NULL));
  double d = rel_diff(got, want, out_bytes, f64);
  /* f16: the chunks' trees may round an output to the neighbouring half. */
  CHECK(d < (f64 == 2 ? 2e-3 : f64 ? 1e-13 : 1e-5), "%s: staged differs from CPU by %.3g", token, d);
  if (threads > 1) {
    /* Against this plan's own first result, bit for bit. */
    pthread_t t[8];
    run_arg a[8];
    for (int i = 0; i < threads; i++) {
      a[i] = (run_arg){plan, in, in_bytes, out_bytes, got, out_init, f64, p->inplace, 2, 0};
      pthread_create(&t[i], NULL, run_thread, &a[i]);
    }
    for (int i = 0; i < threads; i++) {
      pthread_join(t[i], NULL);
      CHECK(a[i].failures == 0, "%s: thread %d: %d bad runs", token, i, a[i].failures);
    }
  }
  free(in);
  free(in2);
  free(want);
  free(got);
  free(out_init);
  CHECK_OK(hyfft_plan_destroy(ref));
  CHECK_OK(hyfft_plan_destroy(plan));
}

static void test_pipeline(void) {
  hyfft_context cpu = NULL, gpu = NULL;
  CHECK_OK(hyfft_context_create("cpu", &cpu));
  CHECK_OK(hyfft_context_create("cpu", &gpu));
  if (!cpu || !gpu) return;
  fake = *gpu->backend;
  fake.id = HYFFT_BACKEND_CUDA;
  fake.host_alloc = fake_host_alloc;
  fake.host_release = fake_host_release;
  fake.queue_create = fake_queue_create;
  fake.queue_release = fake_queue_release;
  fake.event_create = fake_event_create;
  fake.event_release = fake_event_release;
  fake.event_record = fake_event_record;
  fake.queue_wait = fake_queue_wait;
  fake.event_wait = fake_event_wait;
  fake.host_pinned = fake_host_pinned;
  gpu->backend = &fake;

  pipeline_case(cpu, gpu, "c2c:f32:fwd:1024:b4099", 1, 3);           /* remainder of 3 */
  CHECK(records > 0 && waits > 0, "the pipeline recorded %ld and waited %ld", (long)records,
        (long)waits);
  pipeline_case(cpu, gpu, "c2c:f64:fwd:1024:b2000:idist=1100", 1, 2); /* padded input */
  pipeline_case(cpu, gpu, "c2c:f32:bwd:1024:b4099:ip", 1, 2);
  pipeline_case(cpu, gpu, "c2c:f32:fwd:1024:b4096:scale=1/N", 1, 1);  /* no remainder */
  pipeline_case(cpu, gpu, "c2c:f32:fwd:64:b40x2048:idist=131200,64", 1, 1);
  pipeline_case(cpu, gpu, "c2c:f32:fwd:30:b200000:idist=33", 1, 1); /* mixed radix, padded */
  /* Half-precision storage: chunks of halves, sub-plans that store f16. */
  pipeline_case(cpu, gpu, "c2c:f16:fwd:1024:b8195", 1, 2);
  pipeline_case(cpu, gpu, "c2c:f16:bwd:2048:b4099:ip", 1, 1);
  pipeline_case(cpu, gpu, "r2c:f32:4096:b4099", 1, 2);  /* real: n/2+1 on the complex side */
  pipeline_case(cpu, gpu, "c2r:f64:2048:b4099", 1, 1);
  pipeline_case(cpu, gpu, "r2c:f32:4096:b4099:ip", 0, 1); /* real in place: whole */
  pipeline_case(cpu, gpu, "r2r:f32:dct2:4096:b4099", 1, 1);  /* each chunk keeps its kinds */
  /* Whole-buffer path through the plan-owned buffers. */
  pipeline_case(cpu, gpu, "c2c:f32:fwd:1024:b64", 0, 3);
  pipeline_case(cpu, gpu, "c2c:f32:fwd:4096:b4099:odist=5000", 0, 1);
  pipeline_case(cpu, gpu, "c2c:f64:fwd:64x64:is=65,1:os=70,1", 0, 2);
  /* Whole buffers large enough for the bounce buffers: a dense output
   * (not uploaded first), an output with gaps (uploaded first, gaps kept),
   * in place, and a real transform. */
  const char *const bounced[] = {"c2c:f32:fwd:2048x2048", "c2c:f32:bwd:2048x2048:os=2050,1",
                                 "c2c:f64:fwd:1024x1536:ip", "r2c:f32:2048x3000", NULL};
  for (int i = 0; bounced[i]; i++) {
    pipeline_case(cpu, gpu, bounced[i], 0, i == 0 ? 2 : 1);
    hyfft_plan plan = NULL;
    CHECK_OK(hyfft_plan_token(gpu, bounced[i], HYFFT_ESTIMATE, &plan));
    if (plan) {
      CHECK(hy_stage_bounces(plan), "%s: no bounce buffers", bounced[i]);
      CHECK_OK(hyfft_plan_destroy(plan));
    }
  }
  /* Page-locked user memory: copied directly, chunked and whole, in and
   * out of place. */
  all_pinned = 1;
  pipeline_case(cpu, gpu, "c2c:f32:fwd:1024:b4099", 1, 2);
  pipeline_case(cpu, gpu, "c2c:f32:bwd:1024:b4099:ip", 1, 1);
  pipeline_case(cpu, gpu, "c2c:f32:fwd:2048x2048", 0, 1);
  pipeline_case(cpu, gpu, "c2c:f32:bwd:2048x2048:os=2050,1", 0, 1);
  all_pinned = 0;
  CHECK(pinned_yes > 0, "the pinned path was never taken");
  CHECK(live_host == 0 && live_queues == 0 && live_events == 0,
        "leaked %d pinned buffers, %d queues, %d events", (int)live_host, (int)live_queues,
        (int)live_events);

  /* The lead's switch: no stage at all, the per-call path. */
  setenv("HYFFT_STAGING", "simple", 1);
  hy_settings_reload();
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_token(gpu, "c2c:f32:fwd:1024:b4099", HYFFT_ESTIMATE, &plan));
  if (plan) {
    CHECK(plan->stage == NULL, "HYFFT_STAGING=simple left a stage");
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  pipeline_case(cpu, gpu, "c2c:f32:fwd:1024:b4099", -1, 2);
  unsetenv("HYFFT_STAGING");
  hy_settings_reload();

  gpu->backend = &hy_backend_cpu;
  CHECK_OK(hyfft_context_destroy(gpu));
  CHECK_OK(hyfft_context_destroy(cpu));
}

int main(void) {
  test_exact();
  test_fallbacks();
  test_brute_force();
  test_pipeline();
  return hy_test_summary();
}
