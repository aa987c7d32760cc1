/* Generated CUDA C -> device image through NVRTC, for the exact
 * architecture of the device (a CUBIN needs no JIT at load time). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_compile.h"
#include "util/settings.h"

/* Pick what to build: sm_<arch> when this NVRTC knows it, else PTX for the
 * newest architecture it knows below `arch` (the driver JIT-compiles PTX
 * for newer GPUs). */
static hy_status hy_cuda_pick_target(const hy_nvrtc *nv, int arch, int *target, int *is_ptx) {
  int n = 0;
  if (nv->nvrtcGetNumSupportedArchs(&n) != 0 || n <= 0 || n > 256) {
    *target = arch;
    *is_ptx = 0;
    return HYFFT_SUCCESS;
  }
  int archs[256];
  if (nv->nvrtcGetSupportedArchs(archs) != 0) {
    *target = arch;
    *is_ptx = 0;
    return HYFFT_SUCCESS;
  }
  int best_below = 0;
  for (int i = 0; i < n; i++) {
    if (archs[i] == arch) {
      *target = arch;
      *is_ptx = 0;
      return HYFFT_SUCCESS;
    }
    if (archs[i] < arch && archs[i] > best_below) best_below = archs[i];
  }
  if (!best_below)
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "NVRTC %d.%d (%s) cannot compile for sm_%d: the GPU is older than "
                    "anything this NVRTC supports (oldest sm_%d)",
                    nv->version / 1000, nv->version % 1000 / 10, nv->path, arch, archs[0]);
  *target = best_below;
  *is_ptx = 1;
  return HYFFT_SUCCESS;
}

hy_status hy_cuda_compile(const char *source, int arch, void **image, size_t *size, int *is_ptx) {
  const hy_nvrtc *nv;
  HY_TRY(hy_cuda_nvrtc_get(&nv));
  int target = arch, ptx = 0;
  HY_TRY(hy_cuda_pick_target(nv, arch, &target, &ptx));

  char arch_opt[48];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", target);
  const char *opts[4 + HY_NVRTC_EXTRA_MAX];
  int nopts = 0;
  opts[nopts++] = arch_opt;
  opts[nopts++] = "-std=c++17";
  /* Line tables cost nothing at run time and let compute-sanitizer and
   * profilers point at generated source lines. */
  if (hy_settings_get()->cuda_lineinfo) opts[nopts++] = "-lineinfo";
  /* $HYFFT_NVRTC_OPTIONS: more options, separated by spaces (they are part
   * of every image's cache key, hy_cuda_options_hash). */
  char extra[256];
  const char *env = hy_settings_get()->nvrtc_options;
  snprintf(extra, sizeof extra, "%s", env ? env : "");
  for (char *save = NULL, *tok = strtok_r(extra, " ", &save);
       tok && nopts < (int)(sizeof opts / sizeof opts[0]); tok = strtok_r(NULL, " ", &save))
    opts[nopts++] = tok;

  if (hy_fault_point())
    return hy_error(HYFFT_COMPILE_ERROR, "NVRTC compile failed (injected fault)");
  nvrtcProgram prog = NULL;
  int r = nv->nvrtcCreateProgram(&prog, source, "hyfft_generated.cu", 0, NULL, NULL);
  if (r != 0)
    return hy_error(HYFFT_COMPILE_ERROR, "nvrtcCreateProgram failed: %s",
                    nv->nvrtcGetErrorString(r));
  hy_status st = HYFFT_SUCCESS;
  r = nv->nvrtcCompileProgram(prog, nopts, opts);
  if (r != 0) {
    size_t log_size = 0;
    char *log = NULL;
    if (nv->nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 0)
      log = hy_malloc(log_size + 1);
    if (log && nv->nvrtcGetProgramLog(prog, log) == 0) {
      log[log_size] = '\0';
    } else if (log) {
      log[0] = '\0';
    }
    st = hy_error(HYFFT_COMPILE_ERROR, "NVRTC (%s) failed for %s: %s\n%s", nv->path, arch_opt,
                  nv->nvrtcGetErrorString(r), log ? log : "(no log)");
    hy_free(log);
    nv->nvrtcDestroyProgram(&prog);
    return st;
  }
  size_t bytes = 0;
  r = ptx ? nv->nvrtcGetPTXSize(prog, &bytes) : nv->nvrtcGetCUBINSize(prog, &bytes);
  char *out = r == 0 && bytes > 0 ? hy_malloc(bytes) : NULL;
  if (r != 0 || bytes == 0) {
    st = hy_error(HYFFT_COMPILE_ERROR, "NVRTC produced no %s for %s", ptx ? "PTX" : "CUBIN",
                  arch_opt);
  } else if (!out) {
    st = hy_error(HYFFT_OUT_OF_MEMORY, "cannot hold a compiled image of %zu bytes", bytes);
  } else {
    r = ptx ? nv->nvrtcGetPTX(prog, out) : nv->nvrtcGetCUBIN(prog, out);
    if (r != 0) st = hy_error(HYFFT_COMPILE_ERROR, "nvrtcGet%s failed: %s", ptx ? "PTX" : "CUBIN",
                              nv->nvrtcGetErrorString(r));
  }
  nv->nvrtcDestroyProgram(&prog);
  if (st != HYFFT_SUCCESS) {
    hy_free(out);
    return st;
  }
  *image = out;
  *size = bytes;
  *is_ptx = ptx;
  return HYFFT_SUCCESS;
}

uint64_t hy_cuda_options_hash(uint64_t h) {
  const char *env = hy_settings_get()->nvrtc_options;
  h = hy_hash_str(h, env ? env : "");
  return hy_hash_u64(h, hy_settings_get()->cuda_lineinfo ? 1 : 0);
}

/* ---- several units in parallel -------------------------------------------- */

typedef struct hy_unit_job {
  hy_cuda_unit *units;
  const int *order; /* largest source first: the longest compile starts first */
  int n, arch;
  atomic_int next;   /* position in order[] of the next unit to take */
  atomic_int failed; /* once set, units not yet taken are skipped */
  hy_status *status; /* per unit; HYFFT_SUCCESS for skipped ones too */
  char **message;    /* per unit: copy of the failing unit's detail message */
} hy_unit_job;

static void *hy_unit_worker(void *arg) {
  hy_unit_job *job = arg;
  for (;;) {
    int at = atomic_fetch_add(&job->next, 1);
    if (at >= job->n || atomic_load(&job->failed)) break;
    int i = job->order[at];
    hy_cuda_unit *u = &job->units[i];
    hy_status st = hy_cuda_compile(u->source, job->arch, &u->image, &u->size, &u->is_ptx);
    if (st != HYFFT_SUCCESS) {
      /* The detail message is per thread: copy it for the caller's thread. */
      const char *msg = hyfft_last_error();
      size_t len = strlen(msg);
      job->message[i] = hy_malloc(len + 1);
      if (job->message[i]) memcpy(job->message[i], msg, len + 1);
      job->status[i] = st;
      atomic_store(&job->failed, 1);
    }
  }
  return NULL;
}

hy_status hy_cuda_compile_units(hy_cuda_unit *units, int n, int arch, int threads) {
  if (n <= 0) return HYFFT_SUCCESS;
  if (!units) return hy_error(HYFFT_NULL_POINTER, "hy_cuda_compile_units: NULL units");
  /* Load NVRTC here once, so a missing library is reported plainly. */
  const hy_nvrtc *nv;
  HY_TRY(hy_cuda_nvrtc_get(&nv));
  for (int i = 0; i < n; i++) {
    units[i].image = NULL;
    units[i].size = 0;
    units[i].is_ptx = 0;
  }
  int *order = hy_malloc((size_t)n * sizeof *order);
  hy_status *status = hy_calloc((size_t)n, sizeof *status);
  char **message = hy_calloc((size_t)n, sizeof *message);
  pthread_t *tids = hy_calloc((size_t)n, sizeof *tids);
  size_t *len = hy_malloc((size_t)n * sizeof *len);
  if (!order || !status || !message || !tids || !len) {
    hy_free(len);
    hy_free(order);
    hy_free(status);
    hy_free(message);
    hy_free(tids);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate %d compile jobs", n);
  }
  /* Insertion sort by source length, largest first (n <= a few dozen). */
  for (int i = 0; i < n; i++) {
    len[i] = strlen(units[i].source);
    int j = i;
    while (j > 0 && len[order[j - 1]] < len[i]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
  hy_unit_job job = {.units = units, .order = order, .n = n, .arch = arch,
                     .status = status, .message = message};
  atomic_init(&job.next, 0);
  atomic_init(&job.failed, 0);

  if (threads > n) threads = n;
  if (threads < 1) threads = 1;
  /* NVRTC runs a whole compiler on each thread; leave it at least the
   * stack a main thread usually has. */
  pthread_attr_t attr;
  int have_attr = pthread_attr_init(&attr) == 0;
  size_t stack = 0;
  if (have_attr && pthread_attr_getstacksize(&attr, &stack) == 0 && stack < ((size_t)16 << 20))
    pthread_attr_setstacksize(&attr, (size_t)16 << 20);
  /* A thread that cannot be created only means less parallelism: the
   * calling thread takes whatever units are left. */
  int started = 0;
  for (int t = 1; t < threads; t++) {
    if (pthread_create(&tids[started], have_attr ? &attr : NULL, hy_unit_worker, &job) != 0) break;
    started++;
  }
  if (have_attr) pthread_attr_destroy(&attr);
  hy_unit_worker(&job);
  for (int t = 0; t < started; t++) pthread_join(tids[t], NULL);

  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < n && st == HYFFT_SUCCESS; i++) {
    if (status[i] == HYFFT_SUCCESS) continue;
    st = hy_error(status[i], "kernel %s: %s", units[i].name ? units[i].name : "?",
                  message[i] ? message[i] : "(message lost: out of memory)");
  }
  if (st != HYFFT_SUCCESS) {
    for (int i = 0; i < n; i++) {
      hy_free(units[i].image);
      units[i].image = NULL;
      units[i].size = 0;
    }
  }
  for (int i = 0; i < n; i++) hy_free(message[i]);
  hy_free(len);
  hy_free(order);
  hy_free(status);
  hy_free(message);
  hy_free(tids);
  return st;
}

hy_status hy_cuda_units_build(hy_cuda_unit *units, const uint64_t *keys, int *from_disk, int n,
                              int arch) {
  int pending[HY_MAX_KERNELS];
  hy_cuda_unit build[HY_MAX_KERNELS];
  if (n < 0 || n > HY_MAX_KERNELS)
    return hy_error(HYFFT_INTERNAL, "hy_cuda_units_build: %d units (at most %d)", n,
                    HY_MAX_KERNELS);
  int nt = 0;
  for (int i = 0; i < n; i++) {
    units[i].image = NULL;
    units[i].size = 0;
    units[i].is_ptx = 0;
    from_disk[i] = hy_cuda_cache_load(keys[i], &units[i].image, &units[i].size) == HYFFT_SUCCESS;
    if (!from_disk[i]) {
      pending[nt] = i;
      build[nt++] = units[i];
    }
  }
  int threads = hy_num_threads();
  hy_status st = hy_cuda_compile_units(build, nt, arch, threads);
  if (st != HYFFT_SUCCESS) {
    for (int i = 0; i < n; i++) {
      hy_free(units[i].image);
      units[i].image = NULL;
    }
    return st;
  }
  for (int j = 0; j < nt; j++) {
    units[pending[j]] = build[j];
    /* PTX is cached too (the driver JITs it); the driver version in the
     * key keeps images apart across upgrades. */
    hy_cuda_cache_store(keys[pending[j]], build[j].image, build[j].size);
  }
  return HYFFT_SUCCESS;
}

/* ---- one unit in the background ------------------------------------------- */

struct hy_cuda_background {
  pthread_t thread;
  int joined;
  char *source;
  int arch;
  uint64_t key;
  atomic_int done;
  /* Written by the thread before `done` is set; read after joining. */
  hy_status status;
  char *message;
  void *image;
  size_t size;
};

static void *hy_background_worker(void *arg) {
  hy_cuda_background *job = arg;
  int is_ptx = 0;
  job->status = hy_cuda_compile(job->source, job->arch, &job->image, &job->size, &is_ptx);
  if (job->status == HYFFT_SUCCESS) {
    hy_cuda_cache_store(job->key, job->image, job->size);
  } else {
    const char *msg = hyfft_last_error();
    size_t len = strlen(msg);
    job->message = hy_malloc(len + 1);
    if (job->message) memcpy(job->message, msg, len + 1);
  }
  atomic_store(&job->done, 1);
  return NULL;
}

hy_status hy_cuda_background_start(const char *source, int arch, uint64_t key,
                                   hy_cuda_background **out) {
  *out = NULL;
  if (!source) return hy_error(HYFFT_NULL_POINTER, "hy_cuda_background_start: NULL source");
  /* Load NVRTC on the caller's thread, so a missing library is its error. */
  const hy_nvrtc *nv;
  HY_TRY(hy_cuda_nvrtc_get(&nv));
  hy_cuda_background *job = hy_calloc(1, sizeof *job);
  size_t len = strlen(source);
  if (job) job->source = hy_malloc(len + 1);
  if (!job || !job->source) {
    hy_free(job);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate a background compile");
  }
  memcpy(job->source, source, len + 1);
  job->arch = arch;
  job->key = key;
  atomic_init(&job->done, 0);
  pthread_attr_t attr;
  int have_attr = pthread_attr_init(&attr) == 0;
  size_t stack = 0;
  if (have_attr && pthread_attr_getstacksize(&attr, &stack) == 0 && stack < ((size_t)16 << 20))
    pthread_attr_setstacksize(&attr, (size_t)16 << 20);
  int rc = pthread_create(&job->thread, have_attr ? &attr : NULL, hy_background_worker, job);
  if (have_attr) pthread_attr_destroy(&attr);
  if (rc != 0) {
    hy_free(job->source);
    hy_free(job);
    return hy_error(HYFFT_INTERNAL, "cannot start a background compile thread (error %d)", rc);
  }
  *out = job;
  return HYFFT_SUCCESS;
}

int hy_cuda_background_done(const hy_cuda_background *job) {
  return job && atomic_load(&((hy_cuda_background *)job)->done);
}

static void hy_background_join(hy_cuda_background *job) {
  if (job->joined) return;
  pthread_join(job->thread, NULL);
  job->joined = 1;
}

hy_status hy_cuda_background_finish(hy_cuda_background *job, void **image, size_t *size) {
  *image = NULL;
  *size = 0;
  if (!job) return hy_error(HYFFT_NULL_POINTER, "hy_cuda_background_finish: NULL job");
  hy_background_join(job);
  if (job->status != HYFFT_SUCCESS)
    return hy_error(job->status, "%s", job->message ? job->message : "(message lost: out of memory)");
  if (!job->image) return hy_error(HYFFT_INTERNAL, "background compile: image already taken");
  *image = job->image;
  *size = job->size;
  job->image = NULL;
  return HYFFT_SUCCESS;
}

void hy_cuda_background_free(hy_cuda_background *job) {
  if (!job) return;
  hy_background_join(job);
  hy_free(job->image);
  hy_free(job->message);
  hy_free(job->source);
  hy_free(job);
}
