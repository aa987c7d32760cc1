/* Registry of live public handles: an open-addressed table under a mutex,
 * looked up once per API call (every execution of a plan included). */
#include <pthread.h>
#include <stdlib.h>

#include "hy_util.h"

typedef struct {
  const void *ptr;
  int kind; /* 0 empty, -1 tombstone, else hy_handle_kind */
  const void *owner; /* buffers: the context that allocated it */
  size_t bytes;      /* buffers: its size */
} hy_handle_slot;

static pthread_mutex_t hy_handles_lock = PTHREAD_MUTEX_INITIALIZER;
static hy_handle_slot *hy_handles;
static size_t hy_handles_cap, hy_handles_used;

/* The slot a pointer starts its probe at: Fibonacci hashing of the
 * address (one multiply, the high bits taken), since every API call looks
 * its handle up and a byte-wise hash costs more than the rest of the
 * lookup. cap is a power of two. */
static size_t hy_handle_index(const void *p, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15);
  return cap > 1 ? (size_t)(h >> (64 - __builtin_ctzll((unsigned long long)cap))) : 0;
}

static int hy_handles_grow(void) {
  size_t cap = hy_handles_cap ? hy_handles_cap * 2 : 64;
  hy_handle_slot *slots = hy_calloc(cap, sizeof *slots);
  if (!slots) return 0;
  size_t used = 0;
  for (size_t i = 0; i < hy_handles_cap; i++) {
    if (hy_handles[i].kind > 0) {
      size_t j = hy_handle_index(hy_handles[i].ptr, cap);
      while (slots[j].kind) j = (j + 1) & (cap - 1);
      slots[j] = hy_handles[i];
      used++;
    }
  }
  free(hy_handles);
  hy_handles = slots;
  hy_handles_cap = cap;
  hy_handles_used = used;
  return 1;
}

static hy_handle_slot *hy_handle_find(const void *p) {
  if (!hy_handles_cap) return NULL;
  size_t j = hy_handle_index(p, hy_handles_cap);
  for (size_t probes = 0; probes < hy_handles_cap; probes++) {
    if (hy_handles[j].kind == 0) return NULL;
    if (hy_handles[j].kind > 0 && hy_handles[j].ptr == p) return &hy_handles[j];
    j = (j + 1) & (hy_handles_cap - 1);
  }
  return NULL;
}

hy_status hy_handle_register(const void *handle, hy_handle_kind kind) {
  return hy_handle_register_buffer(handle, kind, NULL, 0);
}

hy_status hy_handle_register_buffer(const void *handle, hy_handle_kind kind, const void *owner,
                                    size_t bytes) {
  hy_status st = HYFFT_SUCCESS;
  pthread_mutex_lock(&hy_handles_lock);
  if ((hy_handles_used + 1) * 2 > hy_handles_cap && !hy_handles_grow()) {
    st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot grow the handle registry");
  } else {
    size_t j = hy_handle_index(handle, hy_handles_cap);
    while (hy_handles[j].kind > 0) j = (j + 1) & (hy_handles_cap - 1);
    if (hy_handles[j].kind == 0) hy_handles_used++;
    hy_handles[j].ptr = handle;
    hy_handles[j].kind = (int)kind;
    hy_handles[j].owner = owner;
    hy_handles[j].bytes = bytes;
  }
  pthread_mutex_unlock(&hy_handles_lock);
  return st;
}

int hy_handle_is_live(const void *handle, hy_handle_kind kind) {
  pthread_mutex_lock(&hy_handles_lock);
  hy_handle_slot *s = hy_handle_find(handle);
  int live = s && s->kind == (int)kind;
  pthread_mutex_unlock(&hy_handles_lock);
  return live;
}

int hy_handle_buffer_info(const void *handle, const void **owner, size_t *bytes) {
  pthread_mutex_lock(&hy_handles_lock);
  hy_handle_slot *s = hy_handle_find(handle);
  int live = s && s->kind == (int)HY_HANDLE_BUFFER;
  if (live) {
    *owner = s->owner;
    *bytes = s->bytes;
  }
  pthread_mutex_unlock(&hy_handles_lock);
  return live;
}

int hy_handle_unregister(const void *handle, hy_handle_kind kind) {
  pthread_mutex_lock(&hy_handles_lock);
  hy_handle_slot *s = hy_handle_find(handle);
  int live = s && s->kind == (int)kind;
  if (live) s->kind = -1;
  pthread_mutex_unlock(&hy_handles_lock);
  return live;
}
