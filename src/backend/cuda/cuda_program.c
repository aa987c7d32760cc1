/* The CUDA backend's loaded programs: a generated program checked against
 * the device's limits, its modules (cuda_module.c), its kernels' functions
 * with their thread limits and shared-memory opt-in, and its tables
 * uploaded; then every launch of it on a stream. Also the plan states that
 * hold loaded programs (created, freed and discarded here, prepared in
 * cuda_plan.c), and the untiered load that tests and tools use directly. */
#include <string.h>

#include "backend/cuda/cuda_internal.h"

/* Frees a loaded program's device resources; called with the context
 * current. */
void hy_cuda_loaded_free_in(hy_cuda_device *d, hy_cuda_loaded *s) {
  if (!s) return;
  if (s->table_block) d->cu->cuMemFree(s->table_block);
  for (int k = 0; k < HY_MAX_KERNELS; k++) hy_cuda_module_put(d, s->modules[k]);
  hy_gpu_program_free(&s->program);
  hy_free(s);
}

/* Frees a plan; waits for its background compile if one still runs (its
 * image still goes to the disk cache). Called with the context current. */
void hy_cuda_plan_free_in(hy_cuda_device *d, hy_cuda_plan *s) {
  hy_cuda_background_free(s->job);
  hy_cuda_loaded_free_in(d, s->main);
  hy_cuda_loaded_free_in(d, s->plain);
  hy_free(s->failure_message);
  pthread_mutex_destroy(&s->lock);
  hy_free(s);
}

/* Frees a plan that failed before anything of it reached the device (no
 * modules, tables or background compile): its programs and itself. Needs
 * no context. */
void hy_cuda_plan_discard(hy_cuda_plan *s) {
  hy_cuda_loaded *parts[2] = {s->main, s->plain};
  for (int i = 0; i < 2; i++) {
    if (!parts[i]) continue;
    hy_gpu_program_free(&parts[i]->program);
    hy_free(parts[i]);
  }
  pthread_mutex_destroy(&s->lock);
  hy_free(s);
}

/* A plan state around nothing yet: the caller sets main (and plain). */
hy_cuda_plan *hy_cuda_plan_new(void) {
  hy_cuda_plan *s = hy_calloc(1, sizeof *s);
  if (!s) return NULL;
  atomic_init(&s->active, NULL);
  atomic_init(&s->settled, 1);
  pthread_mutex_init(&s->lock, NULL);
  return s;
}

/* Wraps a generated program (taking it over, also on failure). */
hy_cuda_loaded *hy_cuda_loaded_new(hy_gpu_program *program) {
  hy_cuda_loaded *s = hy_calloc(1, sizeof *s);
  if (!s) {
    hy_gpu_program_free(program);
    hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CUDA plan state");
    return NULL;
  }
  s->program = *program;
  memset(program, 0, sizeof *program);
  return s;
}

hy_status hy_cuda_check_program(const hy_cuda_device *d, const hy_gpu_program *p) {
  if (p->dialect != HY_DIALECT_CUDA)
    return hy_error(HYFFT_INTERNAL, "the CUDA backend was given a non-CUDA program");
  if (!p->source.data || p->source.len == 0)
    return hy_error(HYFFT_INTERNAL, "the generated CUDA program has no source");
  if (p->nkernels < 0 || p->nkernels > HY_MAX_KERNELS || p->ntables < 0 ||
      p->ntables > HY_MAX_TABLES || p->nlaunches < 0 || p->nlaunches > HY_MAX_LAUNCHES)
    return hy_error(HYFFT_INTERNAL, "generated program: counts out of range (%d kernels, %d "
                    "tables, %d launches)", p->nkernels, p->ntables, p->nlaunches);
  for (int i = 0; i < p->nlaunches; i++) {
    const hy_launch *l = &p->launches[i];
    if (l->kernel < 0 || l->kernel >= p->nkernels)
      return hy_error(HYFFT_INTERNAL, "launch %d names kernel %d of %d", i, l->kernel, p->nkernels);
    if (l->grid < 1 || l->grid > (d->max_grid_x > 0 ? d->max_grid_x : INT32_MAX))
      return hy_error(HYFFT_NOT_SUPPORTED,
                      "launch %d of kernel %s needs %lld blocks, more than the device's grid "
                      "limit %d", i, p->names[l->kernel], (long long)l->grid, d->max_grid_x);
    if (l->block < 1 || l->block > d->caps.max_work_group)
      return hy_error(HYFFT_INTERNAL, "launch %d: block of %d threads (device limit %d)", i,
                      l->block, d->caps.max_work_group);
    if (l->shared_bytes > (size_t)(d->shared_optin > 0 ? d->shared_optin : d->caps.local_memory))
      return hy_error(HYFFT_NOT_SUPPORTED,
                      "launch %d of kernel %s needs %zu bytes of shared memory; cuda:%d has %d",
                      i, p->names[l->kernel], l->shared_bytes, d->index, d->shared_optin);
    if (l->nargs < 0 || l->nargs > HY_MAX_KERNEL_ARGS)
      return hy_error(HYFFT_INTERNAL, "launch %d: %d arguments", i, l->nargs);
    for (int a = 0; a < l->nargs; a++) {
      const hy_kernel_arg *g = &l->args[a];
      if (g->kind == HY_ARG_BLOCK_OFFSET) continue;
      int limit = g->kind == HY_ARG_BUFFER ? HY_BUF_COUNT : p->ntables;
      if (g->index < 0 || g->index >= limit)
        return hy_error(HYFFT_INTERNAL, "launch %d argument %d: index %d out of range", i, a,
                        g->index);
    }
  }
  return HYFFT_SUCCESS;
}

/* Every kernel's function from the program's modules, with its thread
 * limit and shared memory opt-in; called with the context current. */
hy_status hy_cuda_loaded_functions(hy_cuda_device *d, hy_cuda_loaded *s) {
  const hy_gpu_program *p = &s->program;
  for (int k = 0; k < p->nkernels; k++) {
    CUmodule module = s->modules[s->per_kernel ? k : 0]->module;
    CUresult r = d->cu->cuModuleGetFunction(&s->functions[k], module, p->names[k]);
    if (r != HY_CUDA_SUCCESS) {
      hy_cuda_fail(d->cu, r, "cuModuleGetFunction");
      return hy_error(HYFFT_INTERNAL, "generated kernel '%s' is not in the compiled module (%s)",
                      p->names[k], hyfft_last_error());
    }
    /* Registers per thread times the block size must fit the SM's register
     * file; the compiler's answer is per kernel. */
    int most_threads = 0;
    if (d->cu->cuFuncGetAttribute(&most_threads, HY_CU_FUNC_ATTR_MAX_THREADS, s->functions[k]) !=
            HY_CUDA_SUCCESS || most_threads <= 0)
      most_threads = d->caps.max_work_group;
    s->max_threads[k] = most_threads;
    /* Above 48 KB, dynamic shared memory must be opted into per kernel. */
    size_t most = 0;
    for (int i = 0; i < p->nlaunches; i++)
      if (p->launches[i].kernel == k && p->launches[i].shared_bytes > most)
        most = p->launches[i].shared_bytes;
    if (most > 48 * 1024)
      HY_CU_CALL(d, d->cu->cuFuncSetAttribute(s->functions[k], HY_CU_FUNC_ATTR_MAX_DYNAMIC_SHARED,
                                              (int)most),
                 "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  return HYFFT_SUCCESS;
}

/* The program's tables on the device; called with the context current. */
hy_status hy_cuda_loaded_tables(hy_cuda_device *d, hy_cuda_loaded *s) {
  const hy_gpu_program *p = &s->program;
  /* Each table starts on a 256-byte boundary of the block. */
  size_t offset[HY_MAX_TABLES], total = 0;
  for (int t = 0; t < p->ntables; t++) {
    offset[t] = total;
    total += (hy_table_bytes(&p->tables[t]) + 255) & ~(size_t)255;
  }
  if (total == 0) return HYFFT_SUCCESS;
  HY_CU_CALL(d, d->cu->cuMemAlloc(&s->table_block, total), "cuMemAlloc (constant tables)");
  for (int t = 0; t < p->ntables; t++) {
    const hy_table *tb = &p->tables[t];
    size_t bytes = hy_table_bytes(tb);
    if (bytes == 0 || !tb->data) continue;
    s->tables[t] = s->table_block + offset[t];
    HY_CU_CALL(d, d->cu->cuMemcpyHtoDAsync(s->tables[t], tb->data, bytes, d->stream),
               "cuMemcpyHtoDAsync (constant table)");
  }
  /* Tables must be on the device before any user stream runs the plan. */
  HY_CU_CALL(d, d->cu->cuStreamSynchronize(d->stream), "cuStreamSynchronize");
  return HYFFT_SUCCESS;
}

/* Compile or find the program's modules, then its functions and tables;
 * called with the context current. */
hy_status hy_cuda_loaded_load_in(hy_cuda_device *d, hy_cuda_loaded *s) {
  const hy_gpu_program *p = &s->program;
  HY_TRY(hy_cuda_check_program(d, p));
  /* Several kernels compile in parallel, one unit each; one kernel (or a
   * program without the generator's layout) is one unit as it is. */
  s->per_kernel = p->nkernels > 1 && hy_gpu_program_has_units(p);
  if (s->per_kernel)
    HY_TRY(hy_cuda_units_get(d, p, s->modules));
  else
    HY_TRY(hy_cuda_module_get(d, p, hy_cuda_program_key(d, p), &s->modules[0]));
  HY_TRY(hy_cuda_loaded_functions(d, s));
  return hy_cuda_loaded_tables(d, s);
}

hy_status hy_cuda_program_load(void *device, hy_gpu_program *program, void **plan_state) {
  hy_cuda_device *d = device;
  hy_cuda_plan *s = hy_cuda_plan_new();
  if (!s) {
    hy_gpu_program_free(program);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CUDA plan state");
  }
  s->main = hy_cuda_loaded_new(program);
  hy_status st = s->main ? hy_cuda_enter(d) : HYFFT_OUT_OF_MEMORY;
  if (st != HYFFT_SUCCESS) {
    hy_cuda_plan_discard(s);
    return st;
  }
  st = hy_cuda_loaded_load_in(d, s->main);
  if (st == HYFFT_SUCCESS) atomic_store(&s->active, s->main);
  else hy_cuda_plan_free_in(d, s);
  hy_cuda_leave(d);
  if (st == HYFFT_SUCCESS) *plan_state = s;
  return st;
}

/* Every launch of a loaded program; called with the context current. */
hy_status hy_cuda_launch_all(hy_cuda_device *d, const hy_cuda_loaded *s,
                             void *const buffers[HY_BUF_COUNT], void *queue) {
  const hy_gpu_program *p = &s->program;
  CUstream stream = hy_cuda_stream(d, queue);
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < p->nlaunches && st == HYFFT_SUCCESS; i++) {
    const hy_launch *l = &p->launches[i];
    CUdeviceptr values[HY_MAX_KERNEL_ARGS];
    void *params[HY_MAX_KERNEL_ARGS];
    for (int a = 0; a < l->nargs; a++) {
      const hy_kernel_arg *g = &l->args[a];
      if (g->kind == HY_ARG_BUFFER) {
        values[a] = (CUdeviceptr)(uintptr_t)buffers[g->index];
        /* A callback's user pointer may be NULL. */
        if (!values[a] && g->index != HY_BUF_LOAD_USER && g->index != HY_BUF_STORE_USER)
          st = hy_error(HYFFT_INTERNAL, "launch %d of %s uses buffer %d, which is not set", i,
                        p->names[l->kernel], g->index);
      } else if (g->kind == HY_ARG_BLOCK_OFFSET) {
        /* Passed as the kernel's 64-bit hy_block0 (same size as a pointer). */
        values[a] = (CUdeviceptr)l->block_offset;
      } else {
        values[a] = s->tables[g->index];
      }
      params[a] = &values[a];
    }
    if (st != HYFFT_SUCCESS) break;
    CUresult r = d->cu->cuLaunchKernel(s->functions[l->kernel], (unsigned)l->grid, 1, 1,
                                       (unsigned)l->block, 1, 1, (unsigned)l->shared_bytes,
                                       stream, l->nargs ? params : NULL, NULL);
    if (r != HY_CUDA_SUCCESS) st = hy_cuda_fail(d->cu, r, p->names[l->kernel]);
  }
  return st;
}
