/* The environment snapshot (util/settings.h). Snapshots are immutable and
 * never freed: a reader may hold one while hy_settings_reload installs the
 * next, and reloads are rare (tests), so the few bytes they keep are the
 * price of lock-free reads. */
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/hy_util.h"
#include "util/settings.h"

/* Every raw string field and the variable it holds. */
static const struct {
  const char *name;
  size_t offset;
} hy_settings_vars[] = {
    {"HYFFT_DEVICE", offsetof(hy_settings, device)},
    {"HYFFT_WISDOM", offsetof(hy_settings, wisdom)},
    {"HYFFT_MEASURE", offsetof(hy_settings, measure_raw)},
    {"HYFFT_MEASURE_BUDGET", offsetof(hy_settings, measure_budget_raw)},
    {"HYFFT_STAGING", offsetof(hy_settings, staging)},
    {"HYFFT_DEVICE_MEMORY_LIMIT", offsetof(hy_settings, device_memory_limit_raw)},
    {"HYFFT_OOC_BLOCK_ROW", offsetof(hy_settings, ooc_block_row_raw)},
    {"HYFFT_CPU_SHARE", offsetof(hy_settings, cpu_share_raw)},
    {"HYFFT_MULTI_EXCHANGE", offsetof(hy_settings, multi_exchange)},
    {"HYFFT_NUM_THREADS", offsetof(hy_settings, num_threads_raw)},
    {"HYFFT_CACHE_DIR", offsetof(hy_settings, cache_dir)},
    {"XDG_CACHE_HOME", offsetof(hy_settings, xdg_cache_home)},
    {"HOME", offsetof(hy_settings, home)},
    {"HYFFT_KERNEL_SPEC", offsetof(hy_settings, kernel_spec)},
    {"HYFFT_RADER", offsetof(hy_settings, rader_raw)},
    {"HYFFT_L2_CHUNK", offsetof(hy_settings, l2_chunk_raw)},
    {"HYFFT_REVERSE", offsetof(hy_settings, reverse_raw)},
    {"HYFFT_PLANES", offsetof(hy_settings, planes_raw)},
    {"HYFFT_CPU_CHUNKS", offsetof(hy_settings, cpu_chunks_raw)},
    {"HYFFT_CPU_LOCAL", offsetof(hy_settings, cpu_local_raw)},
    {"HYFFT_CPU_DIRECT_MAX", offsetof(hy_settings, cpu_direct_max_raw)},
    {"HYFFT_CPU_SHORT", offsetof(hy_settings, cpu_short_raw)},
    {"HYFFT_CPU_ROWS", offsetof(hy_settings, cpu_rows_raw)},
    {"HYFFT_CPU_STREAM", offsetof(hy_settings, cpu_stream_raw)},
    {"HYFFT_BLUESTEIN_UNFUSED", offsetof(hy_settings, bluestein_unfused)},
    {"HYFFT_REAL_UNFUSED", offsetof(hy_settings, real_unfused)},
    {"HYFFT_CONV_UNFUSED", offsetof(hy_settings, conv_unfused)},
    {"HYFFT_FOUR_STEP_PASSES", offsetof(hy_settings, four_step_passes_raw)},
    {"HYFFT_OPENCL_LIBRARY", offsetof(hy_settings, opencl_library)},
    {"HYFFT_OPENCL_MAX_PASS", offsetof(hy_settings, opencl_max_pass_raw)},
    {"CUDA_HOME", offsetof(hy_settings, cuda_home)},
    {"CUDA_PATH", offsetof(hy_settings, cuda_path)},
    {"HYFFT_CUDA_BACKGROUND", offsetof(hy_settings, cuda_background_raw)},
    {"HYFFT_CUDA_LINEINFO", offsetof(hy_settings, cuda_lineinfo)},
    {"HYFFT_NVRTC_OPTIONS", offsetof(hy_settings, nvrtc_options)},
};
#define HY_SETTINGS_NVARS (sizeof hy_settings_vars / sizeof hy_settings_vars[0])

typedef struct hy_settings_node {
  hy_settings s;
  struct hy_settings_node *retired; /* the snapshot this one replaced */
} hy_settings_node;

static _Atomic(hy_settings_node *) hy_settings_current;
static pthread_once_t hy_settings_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t hy_settings_lock = PTHREAD_MUTEX_INITIALIZER;
/* Used only when the first snapshot cannot be allocated: every variable
 * unset. */
static hy_settings_node hy_settings_fallback;

static const char **hy_settings_field(hy_settings *s, size_t i) {
  return (const char **)(void *)((char *)s + hy_settings_vars[i].offset);
}

static int hy_settings_is(const char *raw, const char *value) {
  return raw && strcmp(raw, value) == 0;
}

/* A byte count: decimal digits and an optional K, M or G (either case,
 * powers of 1024). Returns the count, or -1 when the text is anything
 * else, zero, or overflows int64. */
static int64_t hy_settings_bytes(const char *raw) {
  int64_t v = 0;
  const char *c = raw;
  if (*c < '0' || *c > '9') return -1;
  for (; *c >= '0' && *c <= '9'; c++) {
    if (v > (INT64_MAX - (*c - '0')) / 10) return -1;
    v = v * 10 + (*c - '0');
  }
  int shift = 0;
  if (*c == 'K' || *c == 'k') shift = 10;
  if (*c == 'M' || *c == 'm') shift = 20;
  if (*c == 'G' || *c == 'g') shift = 30;
  if (shift) c++;
  if (*c != '\0' || v == 0 || v > (INT64_MAX >> shift)) return -1;
  return v << shift;
}

/* The parsed fields, from the raw ones. */
static void hy_settings_parse(hy_settings *s) {
  s->measure = s->measure_raw && strcmp(s->measure_raw, "0") != 0;
  double budget = s->measure_budget_raw ? atof(s->measure_budget_raw) : 0;
  s->measure_budget = budget > 0 ? budget : HY_SETTINGS_MEASURE_BUDGET_DEFAULT;
  s->staging_simple = hy_settings_is(s->staging, "simple");
  s->staging_packed = hy_settings_is(s->staging, "packed");
  s->multi_exchange_host = hy_settings_is(s->multi_exchange, "host");
  s->cpu_chunks_off = hy_settings_is(s->cpu_chunks_raw, "0");
  s->cpu_chunk_bytes = s->cpu_chunks_raw && !s->cpu_chunks_off ? hy_settings_bytes(s->cpu_chunks_raw) : 0;
  s->cpu_local_off = hy_settings_is(s->cpu_local_raw, "0");
  s->cpu_short_off = hy_settings_is(s->cpu_short_raw, "0");
  s->cpu_rows = hy_settings_is(s->cpu_rows_raw, "0") ? 0 : hy_settings_is(s->cpu_rows_raw, "1") ? 1 : -1;
  s->cpu_stream =
      hy_settings_is(s->cpu_stream_raw, "0") ? 0 : hy_settings_is(s->cpu_stream_raw, "1") ? 1 : -1;
  s->cpu_local_bytes = s->cpu_local_raw && !s->cpu_local_off ? hy_settings_bytes(s->cpu_local_raw) : 0;
  s->cpu_direct_max = s->cpu_direct_max_raw ? strtoll(s->cpu_direct_max_raw, NULL, 10) : 0;
  s->device_memory_limit =
      s->device_memory_limit_raw ? hy_settings_bytes(s->device_memory_limit_raw) : 0;
  s->ooc_block_row = s->ooc_block_row_raw ? hy_settings_bytes(s->ooc_block_row_raw) : 0;
  s->cpu_share = -1;
  if (hy_settings_is(s->cpu_share_raw, "auto")) {
    s->cpu_share = -2;
  } else if (s->cpu_share_raw && !hy_settings_is(s->cpu_share_raw, "off")) {
    char *end = NULL;
    double v = strtod(s->cpu_share_raw, &end);
    s->cpu_share = end != s->cpu_share_raw && *end == '\0' && v >= 0 && v <= 1 ? v : -3;
  }
  s->num_threads = 0;
  if (s->num_threads_raw) {
    long n = strtol(s->num_threads_raw, NULL, 10);
    if (n >= 1 && n <= 4096) s->num_threads = (int)n;
  }
  s->rader = hy_settings_is(s->rader_raw, "1") ? 1 : hy_settings_is(s->rader_raw, "0") ? 0 : -1;
  s->l2_chunk_set = s->l2_chunk_raw != NULL;
  s->l2_chunk = s->l2_chunk_raw ? strtoll(s->l2_chunk_raw, NULL, 10) : 0;
  s->reverse = !hy_settings_is(s->reverse_raw, "0");
  s->planes = !hy_settings_is(s->planes_raw, "0");
  s->four_step_three = !hy_settings_is(s->four_step_passes_raw, "2");
  s->opencl_max_pass = s->opencl_max_pass_raw ? atoll(s->opencl_max_pass_raw) : 0;
  s->cuda_background = !hy_settings_is(s->cuda_background_raw, "0");
}

/* A new snapshot of the environment in one allocation (the node, then the
 * copied strings), or NULL when memory is short. */
static hy_settings_node *hy_settings_read(void) {
  const char *raw[HY_SETTINGS_NVARS];
  size_t bytes = sizeof(hy_settings_node);
  for (size_t i = 0; i < HY_SETTINGS_NVARS; i++) {
    raw[i] = hy_getenv(hy_settings_vars[i].name);
    if (raw[i]) bytes += strlen(raw[i]) + 1;
  }
  hy_settings_node *node = hy_calloc(1, bytes);
  if (!node) return NULL;
  char *text = (char *)(node + 1);
  for (size_t i = 0; i < HY_SETTINGS_NVARS; i++) {
    if (!raw[i]) continue;
    size_t len = strlen(raw[i]) + 1;
    memcpy(text, raw[i], len);
    *hy_settings_field(&node->s, i) = text;
    text += len;
  }
  hy_settings_parse(&node->s);
  return node;
}

static void hy_settings_first(void) {
  hy_settings_node *node = hy_settings_read();
  if (!node) {
    node = &hy_settings_fallback;
    hy_settings_parse(&node->s);
  }
  atomic_store_explicit(&hy_settings_current, node, memory_order_release);
}

/* An integer in [lo, hi], the whole text. */
static int hy_settings_int_in(const char *raw, long lo, long hi) {
  char *end = NULL;
  errno = 0;
  long v = strtol(raw, &end, 10);
  return errno == 0 && end != raw && *end == '\0' && v >= lo && v <= hi;
}

/* One of the words of a NULL-terminated list. */
static int hy_settings_one_of(const char *raw, const char *const *words) {
  for (; *words; words++)
    if (strcmp(raw, *words) == 0) return 1;
  return 0;
}

hy_status hy_settings_check(void) {
  const hy_settings *s = hy_settings_get();
  static const char *const bit[] = {"0", "1", NULL};
  static const char *const staging[] = {"simple", "packed", NULL};
  static const char *const exchange[] = {"host", "device", NULL};
  static const char *const passes[] = {"2", "3", NULL};
  if (s->num_threads_raw && !hy_settings_int_in(s->num_threads_raw, 1, 4096))
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_NUM_THREADS='%s' is not an "
                    "integer from 1 to 4096", s->num_threads_raw);
  if (s->measure_budget_raw) {
    char *end = NULL;
    double v = strtod(s->measure_budget_raw, &end);
    if (end == s->measure_budget_raw || *end != '\0' || !(v > 0) || v > 1e9)
      return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_MEASURE_BUDGET='%s' is not a "
                      "positive number of seconds", s->measure_budget_raw);
  }
  if (s->staging && !hy_settings_one_of(s->staging, staging))
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_STAGING='%s': the values are "
                    "'simple' and 'packed'", s->staging);
  if (s->multi_exchange && !hy_settings_one_of(s->multi_exchange, exchange))
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_MULTI_EXCHANGE='%s': the values "
                    "are 'host' and 'device'", s->multi_exchange);
  if (s->device_memory_limit < 0)
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_DEVICE_MEMORY_LIMIT='%s' is not a "
                    "positive byte count (digits, optionally K, M or G)",
                    s->device_memory_limit_raw);
  if (s->ooc_block_row < 0)
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_OOC_BLOCK_ROW='%s' is not a "
                    "positive byte count (digits, optionally K, M or G)", s->ooc_block_row_raw);
  if (s->cpu_chunk_bytes < 0)
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_CPU_CHUNKS='%s' is neither 0 nor "
                    "a byte count (digits, optionally K, M or G)", s->cpu_chunks_raw);
  if (s->cpu_local_bytes < 0)
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_CPU_LOCAL='%s' is neither 0 nor "
                    "a byte count (digits, optionally K, M or G)", s->cpu_local_raw);
  if (s->cpu_direct_max_raw && !hy_settings_int_in(s->cpu_direct_max_raw, 2, (long)1 << 30))
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_CPU_DIRECT_MAX='%s' is not a "
                    "number of points from 2 to 2^30", s->cpu_direct_max_raw);
  if (s->cpu_share == -3)
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_CPU_SHARE='%s' is neither 'off', "
                    "'auto' nor a fraction from 0 to 1", s->cpu_share_raw);
  const struct {
    const char *name, *raw;
  } bits[] = {{"HYFFT_RADER", s->rader_raw},
              {"HYFFT_REVERSE", s->reverse_raw},
              {"HYFFT_PLANES", s->planes_raw},
              {"HYFFT_CPU_SHORT", s->cpu_short_raw},
              {"HYFFT_CPU_ROWS", s->cpu_rows_raw},
              {"HYFFT_CPU_STREAM", s->cpu_stream_raw},
              {"HYFFT_CUDA_BACKGROUND", s->cuda_background_raw}};
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
    if (bits[i].raw && !hy_settings_one_of(bits[i].raw, bit))
      return hy_error(HYFFT_INVALID_ARGUMENT, "environment: %s='%s' is neither 0 nor 1",
                      bits[i].name, bits[i].raw);
  if (s->four_step_passes_raw && !hy_settings_one_of(s->four_step_passes_raw, passes))
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_FOUR_STEP_PASSES='%s' is neither "
                    "2 nor 3", s->four_step_passes_raw);
  if (s->l2_chunk_raw && !hy_settings_int_in(s->l2_chunk_raw, 0, LONG_MAX))
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_L2_CHUNK='%s' is not a byte count "
                    "(0 or more)", s->l2_chunk_raw);
  if (s->opencl_max_pass_raw && !hy_settings_int_in(s->opencl_max_pass_raw, 2, LONG_MAX))
    return hy_error(HYFFT_INVALID_ARGUMENT, "environment: HYFFT_OPENCL_MAX_PASS='%s' is not an "
                    "integer of at least 2", s->opencl_max_pass_raw);
  return HYFFT_SUCCESS;
}

const hy_settings *hy_settings_get(void) {
  hy_settings_node *node = atomic_load_explicit(&hy_settings_current, memory_order_acquire);
  if (!node) {
    pthread_once(&hy_settings_once, hy_settings_first);
    node = atomic_load_explicit(&hy_settings_current, memory_order_acquire);
  }
  return &node->s;
}

void hy_settings_reload(void) {
  pthread_once(&hy_settings_once, hy_settings_first);
  pthread_mutex_lock(&hy_settings_lock);
  hy_settings_node *node = hy_settings_read();
  /* Out of memory: the current snapshot stays. */
  if (node) {
    node->retired = atomic_load_explicit(&hy_settings_current, memory_order_relaxed);
    atomic_store_explicit(&hy_settings_current, node, memory_order_release);
  }
  pthread_mutex_unlock(&hy_settings_lock);
}
