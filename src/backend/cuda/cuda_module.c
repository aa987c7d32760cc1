/* The CUDA backend's modules: compiled images keyed by what they hold and
 * what they were built for, taken from the context's loaded modules, the
 * disk cache or NVRTC, in that order, and shared by every plan of a context
 * whose programs need the same image (reference counted). A program is
 * one unit, or one unit per kernel so that the kernels missing from both
 * caches compile on parallel threads; either way a cold plan waits for as
 * little NVRTC as it can. */
#include <string.h>

#include "backend/cuda/cuda_internal.h"

/* Key of a program's compiled image: what it is (source bytes, the
 * generator's hash and version) and what it was built for (architecture,
 * driver). */
uint64_t hy_cuda_program_key(const hy_cuda_device *d, const hy_gpu_program *p) {
  uint64_t h = hy_hash_str(HY_HASH_INIT, "hyfft-cuda-image");
  h = hy_hash_u64(h, p->hash);
  h = hy_hash_bytes(h, p->source.data ? p->source.data : "", p->source.len);
  h = hy_hash_u64(h, (uint64_t)d->arch);
  h = hy_hash_u64(h, (uint64_t)d->cu->driver_version);
  h = hy_hash_u64(h, (uint64_t)HY_CODEGEN_VERSION);
  return hy_cuda_options_hash(h);
}

/* The loaded module for `key` with a reference taken, or NULL. */
static hy_cuda_module *hy_cuda_module_find(hy_cuda_device *d, uint64_t key) {
  pthread_mutex_lock(&d->lock);
  for (hy_cuda_module *m = d->modules; m; m = m->next) {
    if (m->key == key) {
      m->refs++;
      pthread_mutex_unlock(&d->lock);
      atomic_fetch_add(&d->memory_hits, 1);
      return m;
    }
  }
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

/* Record a freshly loaded module under `key` (owned from here on, also on
 * failure). If another thread recorded the key meanwhile, theirs is used
 * and this one unloaded. */
hy_status hy_cuda_module_add(hy_cuda_device *d, uint64_t key, CUmodule module,
                                    hy_cuda_module **out) {
  hy_cuda_module *m = hy_calloc(1, sizeof *m);
  if (!m) {
    d->cu->cuModuleUnload(module);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a module record");
  }
  m->key = key;
  m->module = module;
  m->refs = 1;
  pthread_mutex_lock(&d->lock);
  for (hy_cuda_module *o = d->modules; o; o = o->next) {
    if (o->key == key) {
      o->refs++;
      pthread_mutex_unlock(&d->lock);
      d->cu->cuModuleUnload(module);
      hy_free(m);
      *out = o;
      return HYFFT_SUCCESS;
    }
  }
  m->next = d->modules;
  d->modules = m;
  pthread_mutex_unlock(&d->lock);
  *out = m;
  return HYFFT_SUCCESS;
}

/* The module for `key` from memory or the disk cache, or *out = NULL when
 * neither has it (or the driver rejects the cached image); called with
 * the context current. */
hy_status hy_cuda_module_cached(hy_cuda_device *d, uint64_t key, hy_cuda_module **out) {
  *out = hy_cuda_module_find(d, key);
  if (*out) return HYFFT_SUCCESS;
  void *image = NULL;
  size_t size = 0;
  if (hy_cuda_cache_load(key, &image, &size) != HYFFT_SUCCESS) {
    hy_error_clear();
    return HYFFT_SUCCESS;
  }
  CUmodule module = NULL;
  CUresult r = d->cu->cuModuleLoadData(&module, image);
  hy_free(image);
  if (r != HY_CUDA_SUCCESS) return HYFFT_SUCCESS;
  atomic_fetch_add(&d->disk_hits, 1);
  return hy_cuda_module_add(d, key, module, out);
}

/* Compile `source` with NVRTC, store its image in the disk cache and load
 * it as the module for `key`; called with the context current. PTX images
 * are valid too (the driver JITs them), so both are cached; the driver
 * version in the key keeps them apart across upgrades. */
static hy_status hy_cuda_module_build(hy_cuda_device *d, const char *source, uint64_t key,
                                      hy_cuda_module **out) {
  void *image = NULL;
  size_t size = 0;
  int is_ptx = 0;
  HY_TRY(hy_cuda_compile(source, d->arch, &image, &size, &is_ptx));
  hy_cuda_cache_store(key, image, size);
  atomic_fetch_add(&d->compiled, 1);
  CUmodule module = NULL;
  CUresult r = d->cu->cuModuleLoadData(&module, image);
  hy_free(image);
  if (r != HY_CUDA_SUCCESS) return hy_cuda_fail(d->cu, r, "cuModuleLoadData");
  return hy_cuda_module_add(d, key, module, out);
}

/* Find or build the module for `key`; called with the context current.
 * Compiles outside the lock: NVRTC takes long and other plans of the
 * context should not wait. Two threads racing on one key both build; the
 * loser's module is dropped by hy_cuda_module_add. A cached image the
 * driver rejects counts as a miss, so it is rebuilt. */
hy_status hy_cuda_module_get(hy_cuda_device *d, const hy_gpu_program *p, uint64_t key,
                                    hy_cuda_module **out) {
  HY_TRY(hy_cuda_module_cached(d, key, out));
  if (*out) return HYFFT_SUCCESS;
  return hy_cuda_module_build(d, p->source.data, key, out);
}

/* Key of one kernel's own unit (prelude + its block): its text and what it
 * was built for. The text holds nothing of the plan but the kernel, so
 * plans that share a kernel share its image and module. */
static uint64_t hy_cuda_unit_key(const hy_cuda_device *d, const hy_strbuf *text) {
  uint64_t h = hy_hash_str(HY_HASH_INIT, "hyfft-cuda-kernel");
  h = hy_hash_bytes(h, text->data, text->len);
  h = hy_hash_u64(h, (uint64_t)d->arch);
  h = hy_hash_u64(h, (uint64_t)d->cu->driver_version);
  h = hy_hash_u64(h, (uint64_t)HY_CODEGEN_VERSION);
  return hy_cuda_options_hash(h);
}

/* The modules of a program of several kernels, one per kernel, so that a
 * cold plan waits for its slowest kernel's compile, not for the sum: the
 * kernels in neither cache are compiled together on parallel threads.
 * Called with the context current; out[k] is set as each module is taken,
 * and the caller puts back whatever is set should this fail. */
hy_status hy_cuda_units_get(hy_cuda_device *d, const hy_gpu_program *p,
                                   hy_cuda_module **out) {
  int n = p->nkernels, nmiss = 0;
  hy_strbuf text[HY_MAX_KERNELS];
  hy_cuda_unit units[HY_MAX_KERNELS];
  uint64_t keys[HY_MAX_KERNELS];
  int which[HY_MAX_KERNELS], from_disk[HY_MAX_KERNELS];
  hy_status st = HYFFT_SUCCESS;
  for (int k = 0; k < n; k++) hy_strbuf_init(&text[k]);
  for (int k = 0; k < n && st == HYFFT_SUCCESS; k++) {
    st = hy_gpu_program_unit(p, k, &text[k]);
    if (st != HYFFT_SUCCESS) break;
    uint64_t key = hy_cuda_unit_key(d, &text[k]);
    out[k] = hy_cuda_module_find(d, key);
    if (out[k]) continue;
    keys[nmiss] = key;
    which[nmiss] = k;
    units[nmiss] = (hy_cuda_unit){.name = p->names[k], .source = text[k].data};
    nmiss++;
  }
  /* Disk cache, then NVRTC for the rest, outside the lock like
   * hy_cuda_module_get (a racing thread's duplicate module is dropped by
   * hy_cuda_module_add). */
  if (st == HYFFT_SUCCESS && nmiss > 0)
    st = hy_cuda_units_build(units, keys, from_disk, nmiss, d->arch);
  for (int i = 0; i < nmiss && st == HYFFT_SUCCESS; i++) {
    if (!from_disk[i]) atomic_fetch_add(&d->compiled, 1);
    CUmodule module = NULL;
    CUresult r = d->cu->cuModuleLoadData(&module, units[i].image);
    if (r != HY_CUDA_SUCCESS && from_disk[i]) {
      /* A cached image the driver rejects is rebuilt once. */
      st = hy_cuda_module_build(d, units[i].source, keys[i], &out[which[i]]);
      continue;
    }
    if (r != HY_CUDA_SUCCESS) {
      st = hy_cuda_fail(d->cu, r, "cuModuleLoadData");
      break;
    }
    if (from_disk[i]) atomic_fetch_add(&d->disk_hits, 1);
    st = hy_cuda_module_add(d, keys[i], module, &out[which[i]]);
  }
  for (int i = 0; i < nmiss; i++) hy_free(units[i].image);
  for (int k = 0; k < n; k++) hy_strbuf_free(&text[k]);
  return st;
}

void hy_cuda_module_put(hy_cuda_device *d, hy_cuda_module *m) {
  if (!m) return;
  pthread_mutex_lock(&d->lock);
  int last = --m->refs == 0;
  if (last) {
    for (hy_cuda_module **pp = &d->modules; *pp; pp = &(*pp)->next) {
      if (*pp == m) {
        *pp = m->next;
        break;
      }
    }
  }
  pthread_mutex_unlock(&d->lock);
  if (last) {
    d->cu->cuModuleUnload(m->module);
    hy_free(m);
  }
}
