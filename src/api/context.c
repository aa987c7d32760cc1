/* Public entry points for contexts, devices and buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/disk_cache.h"
#include "util/settings.h"
#include "exec/exec.h"
#include "exec/multi_device.h"

/* Parse "cpu", "cuda", "cuda:N", "opencl", "opencl:P:D", "auto".
 * For OpenCL the backend resolves (P, D) into its own flat index through
 * device_info's spec strings, so parsing here only splits the prefix. */
/* Digits only, at least one, no sign: device indices in specs. */
static const char *hy_spec_index(const char *s) {
  if (*s < '0' || *s > '9') return NULL;
  while (*s >= '0' && *s <= '9') s++;
  return s;
}

/* The spec grammar, checked before any backend is asked, so that a typo
 * is reported as such rather than as a missing device. */
static hy_status hy_check_spec(const char *spec) {
  const char *rest = NULL;
  if (strcmp(spec, "auto") == 0 || strcmp(spec, "cpu") == 0 || strcmp(spec, "cuda") == 0 ||
      strcmp(spec, "opencl") == 0)
    return HYFFT_SUCCESS;
  if (strncmp(spec, "cuda:", 5) == 0) {
    rest = hy_spec_index(spec + 5);
  } else if (strncmp(spec, "opencl:", 7) == 0) {
    rest = hy_spec_index(spec + 7);
    rest = rest && *rest == ':' ? hy_spec_index(rest + 1) : NULL;
  }
  if (rest && *rest == '\0') return HYFFT_SUCCESS;
  return hy_error(HYFFT_INVALID_DEVICE,
                  "device spec '%.64s': expected auto, cpu, cuda[:N] or opencl[:P:D], or a "
                  "list such as cuda:0,1", spec);
}

static hy_status hy_find_device(const char *spec, const hy_backend **backend, int *index) {
  HY_TRY(hy_check_spec(spec));
  int nb = 0;
  const hy_backend *const *all = hy_backends(&nb);
  if (strcmp(spec, "auto") == 0) {
    /* The first GPU of the first backend that has one, else the CPU. */
    for (int b = 0; b < nb; b++) {
      int count = 0;
      if (all[b]->device_count(&count) != HYFFT_SUCCESS) continue;
      for (int i = 0; i < count; i++) {
        hyfft_device_info info;
        if (all[b]->device_info(i, &info) != HYFFT_SUCCESS) continue;
        if (info.is_gpu || all[b]->id == HYFFT_BACKEND_CPU) {
          *backend = all[b];
          *index = i;
          return HYFFT_SUCCESS;
        }
      }
    }
    return hy_error(HYFFT_INVALID_DEVICE, "no device found");
  }
  for (int b = 0; b < nb; b++) {
    size_t len = strlen(all[b]->name);
    if (strncmp(spec, all[b]->name, len) != 0 || (spec[len] != '\0' && spec[len] != ':'))
      continue;
    int count = 0;
    hy_status st = all[b]->device_count(&count);
    if (st != HYFFT_SUCCESS) return st;
    if (count == 0)
      return hy_error(HYFFT_BACKEND_UNAVAILABLE, "device spec '%s': the %s backend found no device",
                      spec, all[b]->name);
    if (spec[len] == '\0') {
      *backend = all[b];
      *index = 0;
      return HYFFT_SUCCESS;
    }
    /* Match the full spec against each device's spec string. */
    for (int i = 0; i < count; i++) {
      hyfft_device_info info;
      HY_TRY(all[b]->device_info(i, &info));
      if (strcmp(info.spec, spec) == 0) {
        *backend = all[b];
        *index = i;
        return HYFFT_SUCCESS;
      }
    }
    return hy_error(HYFFT_INVALID_DEVICE, "device spec '%s': no such %s device (%d found)", spec,
                    all[b]->name, count);
  }
  return hy_error(HYFFT_INVALID_DEVICE,
                  "device spec '%s': expected auto, cpu, cuda[:N] or opencl[:P:D], or a list "
                  "such as cuda:0,1", spec);
}

/* A context of one device, not yet a handle: device state, info and caps
 * (the public call registers it; a multi-device context holds such
 * contexts privately). */
static hy_status hy_context_open(const hy_backend *backend, int index,
                                 struct hyfft_context_s **out) {
  struct hyfft_context_s *ctx = hy_calloc(1, sizeof *ctx);
  if (!ctx) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a context");
  ctx->backend = backend;
  ctx->device_index = index;
  atomic_init(&ctx->refs, 1);
  hy_context_work_init(ctx);
  hy_status st = backend->device_info(index, &ctx->info);
  if (st == HYFFT_SUCCESS) st = backend->open(index, &ctx->device);
  if (st == HYFFT_SUCCESS) {
    st = backend->caps(ctx->device, &ctx->caps);
    if (st != HYFFT_SUCCESS) backend->close(ctx->device);
  }
  if (st != HYFFT_SUCCESS) {
    pthread_mutex_destroy(&ctx->work_lock);
    free(ctx);
    return st;
  }
  *out = ctx;
  return HYFFT_SUCCESS;
}

/* ---- device lists ------------------------------------------------------------ */

/* A device list: "BACKEND:all" (every device of the backend), or entries
 * separated by commas, the first a full spec ("cuda:0", "opencl:0:1",
 * "cpu") and each later one a full spec of the same backend or only the
 * part after "BACKEND:" ("cuda:0,1", "opencl:0:0,0:1"). The same device
 * may be listed more than once (each entry is a context of its own).
 * Resolves to the backend and each entry's index within it. */
static hy_status hy_parse_device_list(const char *spec, const hy_backend **backend,
                                      int *index, int *count) {
  int nb = 0;
  const hy_backend *const *all = hy_backends(&nb);
  const hy_backend *b = NULL;
  for (int i = 0; i < nb && !b; i++) {
    size_t len = strlen(all[i]->name);
    if (strncmp(spec, all[i]->name, len) == 0 &&
        (spec[len] == '\0' || spec[len] == ':' || spec[len] == ','))
      b = all[i];
  }
  if (!b)
    return hy_error(HYFFT_INVALID_DEVICE, "device list '%.64s': expected a list of one backend's "
                    "devices (cuda:0,1, cuda:all, opencl:0:0,0:1, cpu,cpu)", spec);
  size_t len = strlen(b->name);
  int n = 0;
  if (spec[len] == ':' && strcmp(spec + len + 1, "all") == 0) {
    hy_status st = b->device_count(&n);
    if (st != HYFFT_SUCCESS) return st;
    if (n == 0)
      return hy_error(HYFFT_BACKEND_UNAVAILABLE, "device spec '%s': the %s backend found no "
                      "device", spec, b->name);
    /* The first HY_MULTI_MAX_DEVICES of a larger machine. */
    if (n > HY_MULTI_MAX_DEVICES) n = HY_MULTI_MAX_DEVICES;
    for (int i = 0; i < n; i++) index[i] = i;
    *backend = b;
    *count = n;
    return HYFFT_SUCCESS;
  }
  /* The grammar of every entry first, so that a typo is reported as such
   * rather than as a missing device; then the devices. */
  char full[HY_MULTI_MAX_DEVICES][80];
  const char *s = spec;
  for (int k = 0;; k++) {
    const char *end = strchr(s, ',');
    size_t elen = end ? (size_t)(end - s) : strlen(s);
    if (elen == 0)
      return hy_error(HYFFT_INVALID_DEVICE, "device list '%.64s': entry %d is empty", spec,
                      k + 1);
    if (n == HY_MULTI_MAX_DEVICES)
      return hy_error(HYFFT_INVALID_DEVICE, "device list '%.64s': more than %d devices", spec,
                      HY_MULTI_MAX_DEVICES);
    char entry[64];
    if (elen >= sizeof entry)
      return hy_error(HYFFT_INVALID_DEVICE, "device list '%.64s': entry %d is too long", spec,
                      k + 1);
    memcpy(entry, s, elen);
    entry[elen] = '\0';
    /* An entry that starts with a letter is a full spec, else the part
     * after "BACKEND:". */
    int named = (entry[0] >= 'a' && entry[0] <= 'z') || (entry[0] >= 'A' && entry[0] <= 'Z');
    if (named && (strncmp(entry, b->name, len) != 0 || (entry[len] != '\0' && entry[len] != ':')))
      return hy_error(HYFFT_INVALID_DEVICE, "device list '%.64s': entry '%s' is not a device "
                      "of the %s backend; one list holds devices of one backend", spec, entry,
                      b->name);
    if (named) snprintf(full[n], sizeof full[n], "%s", entry);
    else snprintf(full[n], sizeof full[n], "%s:%s", b->name, entry);
    if (strcmp(full[n], b->name) == 0 && b->id != HYFFT_BACKEND_CPU)
      return hy_error(HYFFT_INVALID_DEVICE, "device list '%.64s': a bare '%s' names no "
                      "device in a list; give each entry an index (e.g. %s)", spec, entry,
                      b->id == HYFFT_BACKEND_CUDA ? "cuda:0,1" : "opencl:0:0,0:1");
    hy_status st = hy_check_spec(full[n]);
    if (st != HYFFT_SUCCESS)
      return hy_error(st, "device list '%.64s': entry %d '%s': expected an index of the %s "
                      "backend (cuda:N, opencl:P:D, cpu)", spec, k + 1, entry, b->name);
    n++;
    if (!end) break;
    s = end + 1;
  }
  for (int k = 0; k < n; k++) {
    const hy_backend *found = NULL;
    HY_TRY(hy_find_device(full[k], &found, &index[k]));
  }
  *backend = b;
  *count = n;
  return HYFFT_SUCCESS;
}

/* A multi-device context: a sub-context per entry; backend, device (borrowed)
 * and caps of the first, double precision only where every device has
 * it. Its info is the first device's with the list as spec ("cuda:0,1":
 * the first entry's spec, then each later one's part after "BACKEND:"), a
 * name counting the devices, and compute units and memory summed. */
static hy_status hy_context_open_multi(const hy_backend *backend, const int *index, int n,
                                       struct hyfft_context_s **out) {
  struct hyfft_context_s *ctx = hy_calloc(1, sizeof *ctx);
  struct hyfft_context_s **sub = hy_calloc((size_t)n, sizeof *sub);
  if (!ctx || !sub) {
    free(ctx);
    free(sub);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a multi-device context");
  }
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < n && st == HYFFT_SUCCESS; i++) st = hy_context_open(backend, index[i], &sub[i]);
  if (st != HYFFT_SUCCESS) {
    for (int i = 0; i < n; i++)
      if (sub[i]) hy_context_release(sub[i]);
    free(sub);
    free(ctx);
    return st;
  }
  ctx->backend = backend;
  hy_context_work_init(ctx); /* its plans use the sub-contexts' areas; the lock still serves queries */
  ctx->device_index = sub[0]->device_index;
  ctx->device = sub[0]->device;
  ctx->caps = sub[0]->caps;
  ctx->info = sub[0]->info;
  ctx->n_sub = n;
  ctx->sub = sub;
  atomic_init(&ctx->refs, 1);
  char list[256];
  size_t used = (size_t)snprintf(list, sizeof list, "%s", sub[0]->info.spec);
  int same = 1;
  for (int i = 1; i < n; i++) {
    const char *spec = sub[i]->info.spec;
    const char *colon = strchr(spec, ':');
    if (used < sizeof list)
      used += (size_t)snprintf(list + used, sizeof list - used, ",%s", colon ? colon + 1 : spec);
    ctx->caps.supports_f64 &= sub[i]->caps.supports_f64;
    ctx->info.supports_f64 &= sub[i]->info.supports_f64;
    ctx->info.compute_units += sub[i]->info.compute_units;
    ctx->info.global_memory += sub[i]->info.global_memory;
    same &= strcmp(sub[i]->info.name, sub[0]->info.name) == 0;
  }
  if (used >= sizeof ctx->info.spec) {
    hy_context_release(ctx);
    return hy_error(HYFFT_INVALID_DEVICE, "device list of %d devices: its spec '%.64s...' is "
                    "longer than %zu characters", n, list, sizeof ctx->info.spec - 1);
  }
  memcpy(ctx->info.spec, list, used + 1);
  if (same)
    snprintf(ctx->info.name, sizeof ctx->info.name, "%d x %.100s", n, sub[0]->info.name);
  else
    snprintf(ctx->info.name, sizeof ctx->info.name, "%d devices: %.90s, ...", n,
             sub[0]->info.name);
  *out = ctx;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_context_create(const char *device_spec, hyfft_context *context) {
  hy_error_clear();
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  HY_TRY(hy_settings_check());
  const char *spec = device_spec ? device_spec : hy_settings_get()->device;
  if (!spec) spec = "auto";
  const hy_backend *backend = NULL;
  int index[HY_MULTI_MAX_DEVICES], n = 1;
  size_t len = strlen(spec);
  if (strchr(spec, ',') || (len > 4 && strcmp(spec + len - 4, ":all") == 0))
    HY_TRY(hy_parse_device_list(spec, &backend, index, &n));
  else
    HY_TRY(hy_find_device(spec, &backend, &index[0]));
  /* Before the first plan can look for wisdom. */
  HY_TRY(hy_wisdom_env_import());

  /* A list that names one device ("cuda:all" on a machine with one GPU) is
   * a context of that device. */
  struct hyfft_context_s *ctx = NULL;
  HY_TRY(n > 1 ? hy_context_open_multi(backend, index, n, &ctx)
               : hy_context_open(backend, index[0], &ctx));
  hy_status st = hy_handle_register(ctx, HY_HANDLE_CONTEXT);
  if (st != HYFFT_SUCCESS) {
    hy_context_release(ctx);
    return st;
  }
  *context = ctx;
  /* An unusable cache directory does not stop the context (kernels are
   * then compiled anew each time): a warning in hyfft_last_error(). */
  char dir[512];
  if (!hy_disk_cache_usable(dir, sizeof dir))
    hy_error(HYFFT_SUCCESS, "warning: the kernel cache directory '%s' (HYFFT_CACHE_DIR, "
             "XDG_CACHE_HOME or HOME) cannot be created or written; the disk cache is off", dir);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_context_destroy(hyfft_context context) {
  hy_error_clear();
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  if (!hy_handle_unregister(context, HY_HANDLE_CONTEXT))
    return hy_error(HYFFT_INVALID_HANDLE, "context %p is not live (destroyed twice?)",
                    (void *)context);
  hy_context_release(context);
  return HYFFT_SUCCESS;
}

static hy_status hy_check_context(hyfft_context context) {
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  if (!hy_handle_is_live(context, HY_HANDLE_CONTEXT))
    return hy_error(HYFFT_INVALID_HANDLE, "context %p is not live", (void *)context);
  return HYFFT_SUCCESS;
}

/* Device buffers belong to one device: a multi-device context has none. */
static hy_status hy_check_one_device(hyfft_context context, const char *what) {
  if (context->n_sub == 0) return HYFFT_SUCCESS;
  return hy_error(HYFFT_NOT_SUPPORTED, "%s on the multi-device context '%s': device buffers "
                  "belong to one device; use a context of one device (e.g. '%s')", what,
                  context->info.spec, context->sub[0]->info.spec);
}

hyfft_status hyfft_context_device(hyfft_context context, hyfft_device_info *info) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!info) return hy_error(HYFFT_NULL_POINTER, "info is NULL");
  *info = context->info;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_device_get(int index, hyfft_device_info *info, int *count) {
  hy_error_clear();
  if (!info && !count) return hy_error(HYFFT_NULL_POINTER, "info and count are both NULL");
  int nb = 0, total = 0;
  const hy_backend *const *all = hy_backends(&nb);
  int found = 0;
  hyfft_device_info found_info;
  for (int b = 0; b < nb; b++) {
    int n = 0;
    if (all[b]->device_count(&n) != HYFFT_SUCCESS) n = 0;
    if (!found && index >= total && index < total + n) {
      HY_TRY(all[b]->device_info(index - total, &found_info));
      found = 1;
    }
    total += n;
  }
  if (info && !found)
    return hy_error(HYFFT_INVALID_ARGUMENT, "device index %d out of range (%d devices)", index,
                    total);
  if (count) *count = total;
  if (info) *info = found_info;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_buffer_alloc(hyfft_context context, size_t bytes, void **buffer) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!buffer) return hy_error(HYFFT_NULL_POINTER, "buffer is NULL");
  if (bytes == 0) return hy_error(HYFFT_INVALID_ARGUMENT, "buffer of 0 bytes");
  HY_TRY(hy_check_one_device(context, "hyfft_buffer_alloc"));
  void *b = NULL;
  HY_TRY(context->backend->alloc(context->device, bytes, &b));
  hy_status st = hy_handle_register_buffer(b, HY_HANDLE_BUFFER, context, bytes);
  if (st != HYFFT_SUCCESS) {
    context->backend->release(context->device, b);
    return st;
  }
  *buffer = b;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_buffer_free(hyfft_context context, void *buffer) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!buffer) return HYFFT_SUCCESS;
  const void *owner = NULL;
  size_t size = 0;
  if (hy_handle_buffer_info(buffer, &owner, &size) && owner != context)
    return hy_error(HYFFT_WRONG_MEMORY, "buffer %p belongs to another context; free it with that "
                    "one", buffer);
  if (!hy_handle_unregister(buffer, HY_HANDLE_BUFFER))
    return hy_error(HYFFT_INVALID_HANDLE,
                    "buffer %p was not allocated by hyfft_buffer_alloc (or was freed already)",
                    buffer);
  context->backend->release(context->device, buffer);
  return HYFFT_SUCCESS;
}

/* A copy's buffer: one of this context's (then [offset, offset + bytes)
 * must lie inside it), or, where the backend's buffers are addresses
 * (CPU, CUDA), memory hyfft did not allocate, whose size it cannot know. */
static hy_status hy_check_copy(hyfft_context context, const void *buffer, size_t offset,
                               size_t bytes, const char *what) {
  HY_TRY(hy_check_one_device(context, what));
  const void *owner = NULL;
  size_t size = 0;
  if (hy_handle_buffer_info(buffer, &owner, &size)) {
    if (owner != context)
      return hy_error(HYFFT_WRONG_MEMORY, "%s: buffer %p belongs to another context", what,
                      buffer);
    if (offset > size || bytes > size - offset)
      return hy_error(HYFFT_INVALID_ARGUMENT, "%s: bytes [%zu, %zu + %zu) lie past the end of "
                      "buffer %p (%zu bytes)", what, offset, offset, bytes, buffer, size);
    return HYFFT_SUCCESS;
  }
  if (context->backend->id == HYFFT_BACKEND_OPENCL)
    return hy_error(HYFFT_WRONG_MEMORY, "%s: %p is not a buffer from hyfft_buffer_alloc on this "
                    "OpenCL context (host memory, or freed?)", what, buffer);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_buffer_write(hyfft_context context, void *buffer, size_t offset,
                                const void *host, size_t bytes) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!buffer || !host) return hy_error(HYFFT_NULL_POINTER, "buffer or host pointer is NULL");
  HY_TRY(hy_check_copy(context, buffer, offset, bytes, "hyfft_buffer_write"));
  return context->backend->write(context->device, NULL, buffer, offset, host, bytes, 1);
}

hyfft_status hyfft_buffer_read(hyfft_context context, const void *buffer, size_t offset,
                               void *host, size_t bytes) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!buffer || !host) return hy_error(HYFFT_NULL_POINTER, "buffer or host pointer is NULL");
  HY_TRY(hy_check_copy(context, buffer, offset, bytes, "hyfft_buffer_read"));
  return context->backend->read(context->device, NULL, buffer, offset, host, bytes, 1);
}

hyfft_status hyfft_context_workspace_bytes(hyfft_context context, size_t *bytes) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  if (!bytes) return hy_error(HYFFT_NULL_POINTER, "bytes is NULL");
  *bytes = hy_context_work_bytes(context);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_context_synchronize(hyfft_context context) {
  hy_error_clear();
  HY_TRY(hy_check_context(context));
  for (int i = 0; i < context->n_sub; i++)
    HY_TRY(context->backend->synchronize(context->sub[i]->device, NULL));
  if (context->n_sub) return HYFFT_SUCCESS;
  return context->backend->synchronize(context->device, NULL);
}
