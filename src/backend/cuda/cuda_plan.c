/* The CUDA backend's plans: plan_prepare generates a tree's program and
 * loads it, again with smaller blocks should a kernel's registers not allow
 * the blocks it was generated for. A plan whose program compiles long (a
 * persistent kernel, or a kernel over whole 2D planes) is tiered: it runs
 * a quick program at once while the long one compiles on a thread, and
 * switches when that is done (hy_cuda_plan in cuda_internal.h). A plane
 * plan's quick program is generated from the quick tree the planner hands
 * to plan_prepare: the backend plans nothing. */
#include <string.h>

#include "backend/cuda/cuda_internal.h"
#include "util/settings.h"

/* Where a plan with a plane pass gets its quick program: the quick tree
 * plan_prepare was given (one pass per axis, hy_planner_quick_tree), NULL
 * when the planner has none. It is generated only when the plane program
 * is in neither cache, so a warm plan costs no more than an untiered one. */
typedef struct hy_cuda_quick {
  const hy_problem *problem;
  const hy_plan_tree *tree;
  const hy_device_caps *caps;
} hy_cuda_quick;

/* The quick program from `q` into *plain, or 0 (nothing made, no error
 * left) when there is no quick tree or it does not generate. */
static int hy_cuda_quick_program(const hy_cuda_quick *q, hy_gpu_program *plain) {
  memset(plain, 0, sizeof *plain);
  if (!q || !q->tree) return 0;
  if (hy_codegen_plan(q->problem, q->tree, q->caps, HY_DIALECT_CUDA, plain) != HYFFT_SUCCESS) {
    hy_error_clear();
    memset(plain, 0, sizeof *plain);
    return 0;
  }
  return 1;
}

/* A program with a long compile (see hy_cuda_plan), cached as one unit
 * under its program key. Found in a cache, it runs from the start and
 * `plain` is dropped. Otherwise its compile starts on a thread and the
 * plan runs its quick program meanwhile: `plain` (a persistent program's
 * plain one) or, when that is empty, the one `quick` makes. With neither,
 * the program is loaded as an untiered one. Takes both programs over,
 * also on failure. */
static hy_status hy_cuda_program_load_tiered(hy_cuda_device *d, hy_gpu_program *program,
                                             hy_gpu_program *plain, const hy_cuda_quick *quick,
                                             void **plan_state) {
  hy_cuda_plan *s = hy_cuda_plan_new();
  if (!s) {
    hy_gpu_program_free(program);
    hy_gpu_program_free(plain);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate the CUDA plan state");
  }
  hy_status st = HYFFT_SUCCESS;
  s->main = hy_cuda_loaded_new(program);
  if (plain->source.data) {
    s->plain = hy_cuda_loaded_new(plain);
    if (!s->plain) st = HYFFT_OUT_OF_MEMORY;
  }
  if (!s->main) {
    hy_gpu_program_free(plain);
    st = HYFFT_OUT_OF_MEMORY;
  }
  if (st == HYFFT_SUCCESS) st = hy_cuda_enter(d);
  if (st != HYFFT_SUCCESS) {
    hy_cuda_plan_discard(s);
    return st;
  }
  hy_cuda_loaded *m = s->main;
  st = hy_cuda_check_program(d, &m->program);
  s->main_key = hy_cuda_program_key(d, &m->program);
  if (st == HYFFT_SUCCESS) st = hy_cuda_module_cached(d, s->main_key, &m->modules[0]);
  if (st == HYFFT_SUCCESS && !m->modules[0] && !s->plain) {
    hy_gpu_program made;
    if (hy_cuda_quick_program(quick, &made)) {
      s->plain = hy_cuda_loaded_new(&made);
      if (!s->plain) st = HYFFT_OUT_OF_MEMORY;
    }
  }
  if (st == HYFFT_SUCCESS && (m->modules[0] || !s->plain)) {
    /* Compiled already, or nothing quicker to run meanwhile: no tiers. */
    hy_cuda_loaded_free_in(d, s->plain);
    s->plain = NULL;
    if (m->modules[0]) {
      st = hy_cuda_loaded_functions(d, m);
      if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_tables(d, m);
    } else {
      st = hy_cuda_loaded_load_in(d, m);
    }
    if (st == HYFFT_SUCCESS) atomic_store(&s->active, m);
  } else if (st == HYFFT_SUCCESS) {
    /* The long compile starts first, then the plain program's kernels
     * compile in parallel beside it. */
    st = hy_cuda_background_start(m->program.source.data, d->arch, s->main_key, &s->job);
    if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_load_in(d, s->plain);
    if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_tables(d, m);
    if (st == HYFFT_SUCCESS) {
      atomic_store(&s->active, s->plain);
      atomic_store(&s->settled, 0);
      atomic_fetch_add(&d->background, 1);
    }
  }
  if (st != HYFFT_SUCCESS) hy_cuda_plan_free_in(d, s);
  hy_cuda_leave(d);
  if (st == HYFFT_SUCCESS) *plan_state = s;
  return st;
}

/* Smallest thread limit among a program's kernels whose launches exceed
 * theirs, or 0 when every launch fits. */
static int hy_cuda_thread_overrun(const hy_cuda_loaded *s) {
  int limit = 0;
  for (int i = 0; i < s->program.nlaunches; i++) {
    const hy_launch *l = &s->program.launches[i];
    int most = s->max_threads[l->kernel];
    if (l->block > most && (limit == 0 || most < limit)) limit = most;
  }
  return limit;
}

/* A tiered plan whose background compile has finished (or, with `wait`,
 * once it has): load the persistent program and make it the one that runs.
 * On failure the plan stays on its plain program and keeps the reason
 * for hy_cuda_plan_wait (an execution goes on, on the plain program).
 * Called with the context current. */
void hy_cuda_plan_settle(hy_cuda_device *d, hy_cuda_plan *s, int wait) {
  if (atomic_load(&s->settled)) return;
  if (!wait && !hy_cuda_background_done(s->job)) return;
  pthread_mutex_lock(&s->lock);
  if (!atomic_load(&s->settled)) {
    hy_cuda_loaded *m = s->main;
    void *image = NULL;
    size_t size = 0;
    hy_status st = hy_cuda_background_finish(s->job, &image, &size);
    if (st == HYFFT_SUCCESS) {
      CUmodule module = NULL;
      CUresult r = d->cu->cuModuleLoadData(&module, image);
      if (r != HY_CUDA_SUCCESS) st = hy_cuda_fail(d->cu, r, "cuModuleLoadData");
      else st = hy_cuda_module_add(d, s->main_key, module, &m->modules[0]);
    }
    hy_free(image);
    if (st == HYFFT_SUCCESS) atomic_fetch_add(&d->compiled, 1);
    if (st == HYFFT_SUCCESS) st = hy_cuda_loaded_functions(d, m);
    int limit = st == HYFFT_SUCCESS ? hy_cuda_thread_overrun(m) : 0;
    if (limit > 0)
      st = hy_error(HYFFT_NOT_SUPPORTED,
                    "the persistent kernel allows %d threads per block, fewer than it launches "
                    "with; the plan keeps its plain kernels", limit);
    if (st == HYFFT_SUCCESS) {
      atomic_store(&s->active, m);
      atomic_fetch_add(&d->switched, 1);
    } else {
      const char *msg = hyfft_last_error();
      size_t len = strlen(msg);
      s->failure = st;
      s->failure_message = hy_malloc(len + 1);
      if (s->failure_message) memcpy(s->failure_message, msg, len + 1);
      atomic_fetch_add(&d->background_failed, 1);
    }
    hy_cuda_background_free(s->job);
    s->job = NULL;
    atomic_store(&s->settled, 1);
  }
  pthread_mutex_unlock(&s->lock);
}

hy_status hy_cuda_plan_wait(void *device, void *plan_state) {
  hy_cuda_device *d = device;
  hy_cuda_plan *s = plan_state;
  if (!s || atomic_load(&s->settled)) {
    if (s && s->failure != HYFFT_SUCCESS) goto failed;
    return HYFFT_SUCCESS;
  }
  HY_TRY(hy_cuda_enter(d));
  hy_cuda_plan_settle(d, s, 1);
  hy_cuda_leave(d);
  if (s->failure == HYFFT_SUCCESS) return HYFFT_SUCCESS;
failed:
  return hy_error(s->failure, "the plan's persistent kernel did not build, and the plan runs its "
                  "plain kernels: %s", s->failure_message ? s->failure_message : "(message lost)");
}

int hy_cuda_plan_tier(const void *plan_state) {
  const hy_cuda_plan *s = plan_state;
  if (!s->plain) return 0;
  return atomic_load(&((hy_cuda_plan *)s)->active) == s->plain ? 1 : 2;
}

/* ---- plans ------------------------------------------------------------------ */

/* 1 unless $HYFFT_CUDA_BACKGROUND=0: plans may be tiered. Read at each
 * plan, so a process may change it between plans. */
int hy_cuda_plan_tiers(void *device) {
  (void)device;
  const char *env = hy_settings_get()->cuda_background_raw;
  return !(env && strcmp(env, "0") == 0);
}

hy_status hy_cuda_plan_prepare(void *device, const hy_problem *problem, const hy_plan_tree *tree,
                               const hy_plan_tree *quick_tree, void **plan_state) {
  hy_cuda_device *d = device;
  hy_device_caps caps = d->caps;
  /* The generator sizes blocks from the caps and marks every kernel with
   * __launch_bounds__(block), so ptxas keeps registers within what that
   * block may have. Should a kernel still report a smaller thread limit
   * (a driver or compiler that ignores the bound), it is generated again
   * with that limit instead of failing with LAUNCH_OUT_OF_RESOURCES. */
  int may_tier = hy_cuda_plan_tiers(device);
  for (int attempt = 0;; attempt++) {
    hy_gpu_program program, plain;
    memset(&program, 0, sizeof program);
    memset(&plain, 0, sizeof plain);
    HY_TRY(hy_codegen_plan_tiers(problem, tree, &caps, HY_DIALECT_CUDA, &program,
                                 may_tier ? &plain : NULL));
    /* A plan with a plane pass is tiered too: its quick tier is the quick
     * tree (one pass per axis), generated only if the plane program is in
     * no cache. */
    int plane = hy_plan_tree_has_plane(tree);
    hy_cuda_quick quick = {problem, quick_tree, &caps};
    void *state = NULL;
    /* A tiered plan's final program is compiled as one unit (a persistent
     * program's clearing kernel is tiny; a plane plan's other kernels are
     * small), cached under the program's key. */
    if (may_tier && (plain.source.data || plane)) {
      HY_TRY(hy_cuda_program_load_tiered(d, &program, &plain, plane ? &quick : NULL, &state));
    } else {
      HY_TRY(hy_cuda_program_load(d, &program, &state));
    }
    int limit = hy_cuda_thread_overrun(atomic_load(&((hy_cuda_plan *)state)->active));
    if (limit == 0) {
      *plan_state = state;
      return HYFFT_SUCCESS;
    }
    hy_cuda_plan_release(d, state);
    int64_t fit = hy_floor_pow2(limit);
    if (attempt >= 3 || fit < 32 || fit >= caps.max_work_group)
      return hy_error(HYFFT_NOT_SUPPORTED,
                      "generated CUDA kernel needs blocks larger than the %d threads its "
                      "registers allow on cuda:%d", limit, d->index);
    caps.max_work_group = (int)fit;
  }
}

void hy_cuda_plan_release(void *device, void *plan_state) {
  hy_cuda_device *d = device;
  if (!plan_state) return;
  if (hy_cuda_enter(d) != HYFFT_SUCCESS) return;
  hy_cuda_plan_free_in(d, plan_state);
  hy_cuda_leave(d);
}

/* A tiered plan's source is its persistent program's: the kernels it
 * runs from the switch on. */
hy_status hy_cuda_plan_source(void *device, const void *plan_state, hy_strbuf *sb) {
  const hy_cuda_plan *s = plan_state;
  if (s && s->main->program.source.data) hy_strbuf_append(sb, s->main->program.source.data);
  return hy_strbuf_status(sb);
}

/* A tiered plan may run its plain program, which uses the tree's whole
 * workspace (0); the persistent kernel's ring is within it. */
int64_t hy_cuda_plan_workspace(void *device, const void *plan_state) {
  (void)device;
  const hy_cuda_plan *s = plan_state;
  if (!s || s->plain) return 0;
  return s->main->program.work_elems;
}

/* Running a plan: its plain tier on request, else the active program,
 * switching to the final one first when its background compile is done. */
hy_status hy_cuda_plan_run_tier(void *device, const void *plan_state, int tier,
                                void *const buffers[HY_BUF_COUNT], void *queue) {
  hy_cuda_device *d = device;
  hy_cuda_plan *plan = (hy_cuda_plan *)plan_state;
  if (tier == 1 && !plan->plain)
    return hy_error(HYFFT_INVALID_ARGUMENT, "the plan has no plain tier");
  HY_TRY(hy_cuda_enter(d));
  const hy_cuda_loaded *s = plan->plain;
  if (tier != 1) {
    hy_cuda_plan_settle(d, plan, 0);
    s = atomic_load(&plan->active);
  }
  hy_status st = hy_cuda_launch_all(d, s, buffers, queue);
  hy_cuda_leave(d);
  return st;
}

hy_status hy_cuda_program_run(void *device, const void *plan_state,
                              void *const buffers[HY_BUF_COUNT], void *queue) {
  return hy_cuda_plan_run_tier(device, plan_state, 0, buffers, queue);
}

hy_status hy_cuda_execute(void *device, const void *plan_state, const hy_plan_tree *tree,
                                 void *const buffers[HY_BUF_COUNT], void *queue) {
  return hy_cuda_program_run(device, plan_state, buffers, queue);
}
