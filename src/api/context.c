/* Public entry points for contexts, devices and buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "util/disk_cache.h"
#include "util/settings.h"
#include "exec/exec.h"

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
                  "device spec '%.64s': expected auto, cpu, cuda[:N] or opencl[:P:D]", spec);
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
                  "device spec '%s': expected auto, cpu, cuda[:N] or opencl[:P:D]", spec);
}

hyfft_status hyfft_context_create(const char *device_spec, hyfft_context *context) {
  hy_error_clear();
  if (!context) return hy_error(HYFFT_NULL_POINTER, "context is NULL");
  HY_TRY(hy_settings_check());
  const char *spec = device_spec ? device_spec : hy_settings_get()->device;
  if (!spec) spec = "auto";
  const hy_backend *backend = NULL;
  int index = 0;
  HY_TRY(hy_find_device(spec, &backend, &index));
  /* Before the first plan can look for wisdom. */
  HY_TRY(hy_wisdom_env_import());

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
    if (st == HYFFT_SUCCESS) st = hy_handle_register(ctx, HY_HANDLE_CONTEXT);
    if (st != HYFFT_SUCCESS) backend->close(ctx->device);
  }
  if (st != HYFFT_SUCCESS) {
    pthread_mutex_destroy(&ctx->work_lock);
    free(ctx);
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
  return context->backend->synchronize(context->device, NULL);
}
