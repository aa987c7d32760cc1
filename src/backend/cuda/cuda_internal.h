/* Private to the CUDA backend's files (not its tests): the state of a
 * device, of a loaded module, of a loaded program and of a plan, the rule
 * for entering and leaving the device's context, and the functions one
 * file of the backend calls in another. The backend is split by
 * responsibility: cuda_backend.c discovers devices and fills the backend
 * table, cuda_memory.c holds memory, copies, queues and events,
 * cuda_module.c compiles and caches modules, cuda_program.c loads a
 * generated program and launches it, and cuda_plan.c prepares plans,
 * tiered ones with their background compile included.
 *
 * Every entry point that calls the driver pushes the device's primary
 * context and pops it on the way out: user threads may have another
 * context current (or none), and hyfft must leave theirs untouched.
 * The primary context is the one the CUDA runtime uses, so device pointers
 * from cudaMalloc and streams from cudaStreamCreate work here directly. */
#ifndef HY_CUDA_INTERNAL_H
#define HY_CUDA_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_compile.h"


/* A module loaded in one context, shared by the plans whose programs hash
 * the same. */
typedef struct hy_cuda_module {
  struct hy_cuda_module *next;
  uint64_t key;
  CUmodule module;
  int refs;
} hy_cuda_module;

typedef struct hy_cuda_device {
  const hy_cuda_driver *cu;
  int index;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream; /* the context's own queue */
  int arch;        /* 10 * major + minor */
  int max_grid_x;
  int shared_optin;
  hy_device_caps caps;
  pthread_mutex_t lock; /* guards modules */
  hy_cuda_module *modules;
  atomic_long compiled, disk_hits, memory_hits;
  atomic_long background, switched, background_failed;
} hy_cuda_device;

/* A generated program loaded in the context. */
typedef struct hy_cuda_loaded {
  hy_gpu_program program;
  /* A program compiled as one unit is all in modules[0]; one compiled a
   * unit per kernel (per_kernel) has kernel k in modules[k]. */
  int per_kernel;
  hy_cuda_module *modules[HY_MAX_KERNELS];
  CUfunction functions[HY_MAX_KERNELS];
  int max_threads[HY_MAX_KERNELS]; /* what the compiled kernel can launch with */
  /* The program's tables, all in one allocation (one cuMemAlloc per plan
   * instead of one per table: warm plans of several tables are quicker). */
  CUdeviceptr table_block;
  CUdeviceptr tables[HY_MAX_TABLES];
} hy_cuda_loaded;

/* What a plan runs: most plans one program, `main`, from the start.
 *
 * Two kinds of program are long compiles, long enough to dominate the
 * time to create a plan: a persistent kernel (cg_persist.c) and a kernel
 * over whole 2D planes (axis_passes.c). Each has a quick alternative: the plain program of one
 * kernel per pass the persistent one was made from, or the program of one
 * pass per axis (the quick tree plan_prepare is given), whose small
 * kernels compile in parallel in a fraction of that. So when such a program is in neither
 * cache, the plan is tiered: it loads the quick program (`plain`) and
 * runs it, while a thread compiles the main one (`job`; its tables are
 * uploaded already). The first execution after that compile has finished,
 * or hy_cuda_plan_wait, loads it and switches `active` to it, under
 * `lock`; both programs compute the same transform. A compile that fails
 * leaves the plan on its quick program, with the failure kept for
 * hy_cuda_plan_wait to report. $HYFFT_CUDA_BACKGROUND=0 turns tiering off
 * (every plan compiles its program before it is returned). */
typedef struct hy_cuda_plan {
  _Atomic(hy_cuda_loaded *) active;
  hy_cuda_loaded *main;  /* the program the generator made for the tree */
  hy_cuda_loaded *plain; /* tiered plans: the quick program, run until main is compiled */
  hy_cuda_background *job;
  uint64_t main_key;     /* main's module key (tiered plans) */
  atomic_int settled;    /* tiered plans: 1 once switched, or given up */
  pthread_mutex_t lock;
  hy_status failure;     /* why a tiered plan stayed on plain */
  char *failure_message;
} hy_cuda_plan;

/* ---- context entry/exit ------------------------------------------------- */

static inline hy_status hy_cuda_enter(const hy_cuda_device *d) {
  CUresult r = d->cu->cuCtxPushCurrent(d->ctx);
  return r == HY_CUDA_SUCCESS ? HYFFT_SUCCESS : hy_cuda_fail(d->cu, r, "cuCtxPushCurrent");
}

static inline void hy_cuda_leave(const hy_cuda_device *d) {
  CUcontext popped;
  d->cu->cuCtxPopCurrent(&popped);
}

#define HY_CU_CALL(d, call, name)                                              \
  do {                                                                         \
    CUresult hy_cu_r_ = (call);                                                \
    if (hy_cu_r_ != HY_CUDA_SUCCESS) return hy_cuda_fail((d)->cu, hy_cu_r_, name); \
  } while (0)

static inline CUstream hy_cuda_stream(const hy_cuda_device *d, void *queue) {
  return queue ? (CUstream)queue : d->stream;
}

/* Largest power of two <= v (v >= 1). */
static inline int64_t hy_floor_pow2(int64_t v) {
  int64_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

/* ---- cuda_memory.c: the backend table's memory, copy, queue and event
 * entries ---------------------------------------------------------------- */

hy_status hy_cuda_alloc(void *device, size_t bytes, void **buffer);
void hy_cuda_release(void *device, void *buffer);
hy_memory_kind hy_cuda_memory_kind(void *device, const void *ptr);
int hy_cuda_host_pinned(void *device, const void *ptr, size_t bytes);
hy_status hy_cuda_write(void *device, void *queue, void *buffer, size_t offset, const void *host,
                        size_t bytes, int blocking);
hy_status hy_cuda_read(void *device, void *queue, const void *buffer, size_t offset, void *host,
                       size_t bytes, int blocking);
hy_status hy_cuda_synchronize(void *device, void *queue);
hy_status hy_cuda_host_alloc(void *device, size_t bytes, void **host);
void hy_cuda_host_release(void *device, void *host);
hy_status hy_cuda_event_create(void *device, void **event);
hy_status hy_cuda_event_rerecord(void *device, void *event, void *queue);
hy_status hy_cuda_event_wait(void *device, void *event);

/* ---- cuda_module.c: modules, compiled or from a cache; all called with
 * the context current ----------------------------------------------------- */

/* Key of a program compiled as one unit. */
uint64_t hy_cuda_program_key(const hy_cuda_device *d, const hy_gpu_program *p);
/* Record a freshly loaded module under `key` (hy_cuda_module_add owns it). */
hy_status hy_cuda_module_add(hy_cuda_device *d, uint64_t key, CUmodule module,
                             hy_cuda_module **out);
/* The module for `key` from memory or disk, or *out = NULL. */
hy_status hy_cuda_module_cached(hy_cuda_device *d, uint64_t key, hy_cuda_module **out);
/* The module of a program compiled as one unit, from a cache or NVRTC. */
hy_status hy_cuda_module_get(hy_cuda_device *d, const hy_gpu_program *p, uint64_t key,
                             hy_cuda_module **out);
/* One module per kernel of a program, the missing ones compiled in parallel. */
hy_status hy_cuda_units_get(hy_cuda_device *d, const hy_gpu_program *p, hy_cuda_module **out);
/* Drop a reference; the last one unloads the module. */
void hy_cuda_module_put(hy_cuda_device *d, hy_cuda_module *m);

/* ---- cuda_program.c: loaded programs and plan states -------------------- */

void hy_cuda_loaded_free_in(hy_cuda_device *d, hy_cuda_loaded *s);
void hy_cuda_plan_free_in(hy_cuda_device *d, hy_cuda_plan *s);
void hy_cuda_plan_discard(hy_cuda_plan *s);
hy_cuda_plan *hy_cuda_plan_new(void);
hy_cuda_loaded *hy_cuda_loaded_new(hy_gpu_program *program);
hy_status hy_cuda_check_program(const hy_cuda_device *d, const hy_gpu_program *p);
hy_status hy_cuda_loaded_functions(hy_cuda_device *d, hy_cuda_loaded *s);
hy_status hy_cuda_loaded_tables(hy_cuda_device *d, hy_cuda_loaded *s);
hy_status hy_cuda_loaded_load_in(hy_cuda_device *d, hy_cuda_loaded *s);
/* Every launch of a loaded program; called with the context current. */
hy_status hy_cuda_launch_all(hy_cuda_device *d, const hy_cuda_loaded *s,
                             void *const buffers[HY_BUF_COUNT], void *queue);
hy_status hy_cuda_execute(void *device, const void *plan_state, const hy_plan_tree *tree,
                          void *const buffers[HY_BUF_COUNT], void *queue);

/* ---- cuda_plan.c: plans, tiered ones included ---------------------------- */

/* Switch a tiered plan to its final program once its compile is done (or,
 * with `wait`, after waiting for it); called with the context current. */
void hy_cuda_plan_settle(hy_cuda_device *d, hy_cuda_plan *s, int wait);
/* 1 when plans may be tiered (not $HYFFT_CUDA_BACKGROUND=0): the
 * backend table's plan_tiers. */
int hy_cuda_plan_tiers(void *device);
hy_status hy_cuda_plan_prepare(void *device, const hy_problem *problem, const hy_plan_tree *tree,
                               const hy_plan_tree *quick_tree, void **plan_state);
void hy_cuda_plan_release(void *device, void *plan_state);
hy_status hy_cuda_plan_source(void *device, const void *plan_state, hy_strbuf *sb);
int64_t hy_cuda_plan_workspace(void *device, const void *plan_state);

#endif /* HY_CUDA_INTERNAL_H */
