/* Memory of the CPU engine: whole-array scratch with huge pages
 * (hy_cpu_big_alloc) and per-thread scratch kept between executions
 * (hy_cpu_scratch_get/put). Kept apart from node building (cpu_node.c) so
 * that the per-precision engines, which use these, and the node builder,
 * which uses the engines, do not depend on each other in a circle. */
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/mman.h>

#include "backend/cpu/cpu_scratch.h"
#include "util/hy_util.h"

#define HY_CPU_HUGE (2u << 20)

void *hy_cpu_big_alloc(size_t bytes) {
  if (bytes < 4 * HY_CPU_HUGE) return hy_malloc(bytes);
  size_t rounded = (bytes + HY_CPU_HUGE - 1) & ~(size_t)(HY_CPU_HUGE - 1);
  void *p = NULL;
  if (posix_memalign(&p, HY_CPU_HUGE, rounded) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void hy_cpu_big_free(void *p, size_t bytes) {
  if (bytes < 4 * HY_CPU_HUGE) hy_free(p);
  else free(p);
}

/* Thread-specific data rather than _Thread_local: its destructor frees a
 * thread's buffers when a user thread that ran plans exits. */

typedef struct hy_cpu_tls {
  void *p[HY_CPU_SCRATCH_SLOTS];
  size_t bytes[HY_CPU_SCRATCH_SLOTS];
  int busy[HY_CPU_SCRATCH_SLOTS];
  /* The last reservation's key (0: none) while every slot still holds
   * what it asked: the same key again is answered at once. */
  uint64_t reserved_key;
} hy_cpu_tls;

static pthread_key_t hy_cpu_tls_key;
static pthread_once_t hy_cpu_tls_once = PTHREAD_ONCE_INIT;
static int hy_cpu_tls_ok;

static void hy_cpu_tls_destroy(void *v) {
  hy_cpu_tls *tls = v;
  for (int s = 0; s < HY_CPU_SCRATCH_SLOTS; s++)
    if (tls->p[s]) hy_cpu_big_free(tls->p[s], tls->bytes[s]);
  free(tls);
}

static void hy_cpu_tls_init(void) {
  hy_cpu_tls_ok = pthread_key_create(&hy_cpu_tls_key, hy_cpu_tls_destroy) == 0;
}

static hy_cpu_tls *hy_cpu_tls_get(void) {
  pthread_once(&hy_cpu_tls_once, hy_cpu_tls_init);
  if (!hy_cpu_tls_ok) return NULL;
  hy_cpu_tls *tls = pthread_getspecific(hy_cpu_tls_key);
  if (tls) return tls;
  tls = hy_calloc(1, sizeof *tls);
  if (tls && pthread_setspecific(hy_cpu_tls_key, tls) != 0) {
    free(tls);
    tls = NULL;
  }
  return tls;
}

void *hy_cpu_scratch_get(int slot, size_t bytes) {
  hy_cpu_tls *tls = hy_cpu_tls_get();
  if (!tls || tls->busy[slot] || (bytes > HY_CPU_SCRATCH_KEEP && tls->bytes[slot] < bytes))
    return hy_cpu_big_alloc(bytes);
  if (tls->bytes[slot] < bytes) {
    if (tls->p[slot]) hy_cpu_big_free(tls->p[slot], tls->bytes[slot]);
    tls->p[slot] = hy_cpu_big_alloc(bytes);
    tls->bytes[slot] = tls->p[slot] ? bytes : 0;
    if (!tls->p[slot]) {
      tls->reserved_key = 0;
      return NULL;
    }
  }
  tls->busy[slot] = 1;
  return tls->p[slot];
}

void hy_cpu_scratch_put(int slot, void *p, size_t bytes) {
  if (!p) return;
  hy_cpu_tls *tls = hy_cpu_tls_get();
  if (tls && tls->busy[slot] && tls->p[slot] == p) {
    tls->busy[slot] = 0;
    return;
  }
  hy_cpu_big_free(p, bytes);
}

int hy_cpu_scratch_reserve(uint64_t key, const size_t bytes[HY_CPU_SCRATCH_SLOTS]) {
  hy_cpu_tls *tls = hy_cpu_tls_get();
  if (!tls) return -1;
  if (key && tls->reserved_key == key) return HY_CPU_SCRATCH_SLOTS;
  tls->reserved_key = 0;
  for (int slot = 0; slot < HY_CPU_SCRATCH_SLOTS; slot++) {
    /* A slot lent out to an outer execution on this thread stays with it:
     * the requests here then take plain allocations, as before. */
    if (bytes[slot] == 0 || tls->bytes[slot] >= bytes[slot] || tls->busy[slot]) continue;
    if (tls->p[slot]) hy_cpu_big_free(tls->p[slot], tls->bytes[slot]);
    tls->p[slot] = hy_cpu_big_alloc(bytes[slot]);
    tls->bytes[slot] = tls->p[slot] ? bytes[slot] : 0;
    if (!tls->p[slot]) return slot;
  }
  tls->reserved_key = key;
  return HY_CPU_SCRATCH_SLOTS;
}

void hy_cpu_scratch_trim(void) {
  pthread_once(&hy_cpu_tls_once, hy_cpu_tls_init);
  hy_cpu_tls *tls = hy_cpu_tls_ok ? pthread_getspecific(hy_cpu_tls_key) : NULL;
  if (!tls) return;
  tls->reserved_key = 0;
  for (int s = 0; s < HY_CPU_SCRATCH_SLOTS; s++)
    if (!tls->busy[s] && tls->bytes[s] > HY_CPU_SCRATCH_KEEP) {
      hy_cpu_big_free(tls->p[s], tls->bytes[s]);
      tls->p[s] = NULL;
      tls->bytes[s] = 0;
    }
}
