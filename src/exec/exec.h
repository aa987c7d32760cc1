/* Execution of plans and the objects behind the public handles. */
#ifndef HY_EXEC_H
#define HY_EXEC_H

#include <pthread.h>
#include <stdatomic.h>

#include "backend/backend.h"

struct hyfft_context_s {
  const hy_backend *backend;
  int device_index; /* within the backend */
  void *device;     /* backend device state */
  hyfft_device_info info;
  hy_device_caps caps;
  /* The user's handle plus one per plan: a context destroyed while plans
   * live stops being a valid handle at once but keeps its device open
   * until its last plan is destroyed. */
  atomic_int refs;
  /* A multi-device context (a device list such as "cuda:0,1"): its own
   * sub-contexts, one per listed device, private (no handles), in the
   * list's order. backend, device_index, device and caps are the first
   * sub-context's (device borrowed, not owned); plans on it are split
   * across the sub-contexts (exec/multi_device.c). n_sub 0 and sub NULL
   * for a context of one device. */
  int n_sub;
  struct hyfft_context_s **sub;
  /* The work area shared by the plans of a GPU context (docs/design.md
   * section 10): one device buffer per work slot, each grown to the
   * largest need of the executions that used it, freed with the context.
   * Executions take work_lock while they enqueue; work_order orders them
   * on the device (hy_work_order). Growing waits for the area's last use
   * before freeing the old buffer. */
  pthread_mutex_t work_lock;
  void *work[2];
  size_t work_bytes[2];
  struct hy_work_order {
    /* The queue of a work area's last use and an event recorded there
     * after it (backends with events: CUDA). An execution on another
     * queue makes its queue wait for that event on the device, then
     * records the event on its own queue: the users of one area run one
     * after the other on the device while the host never waits, and each
     * user's queue stays free of waits on its own earlier work (in
     * order). Without events (OpenCL, CPU) an execution on another queue
     * waits for the context's queue on the host before it starts and for
     * its own before it returns. */
    void *event;
    void *queue;
    int used;
  } work_order;
};

/* Drop one reference to a context; the last one closes the device (a
 * multi-device context's last one drops its sub-contexts instead). */
void hy_context_release(struct hyfft_context_s *context);

struct hyfft_plan_s {
  hyfft_context context;
  hy_problem problem;
  hy_plan_tree tree;
  /* The quick first tier the backend runs while the tree's plane kernel
   * compiles (hy_exec_plan_prepare), when has_quick; shown by hyfft_plan_describe. */
  hy_plan_tree quick;
  int has_quick;
  void *backend_state;
  /* Plan-owned workspace on the device, allocated once at creation; its
   * users take the lock so that concurrent executions stay correct. NULL
   * when the plan uses the context's shared area (work_shared) or the
   * caller's (user_work). */
  void *work[2];
  pthread_mutex_t work_lock;
  /* The order of the plan-owned area's users, as the context's for its
   * shared one. */
  struct hy_work_order work_order;
  /* 1: without a caller's workspace the plan's executions use the
   * context's shared work area (GPU contexts, unless HYFFT_OWN_WORKSPACE). */
  int work_shared;
  /* hyfft_plan_set_workspace's buffer (NULL: none) and its size; while set
   * the plan holds no work area of its own. */
  void *user_work;
  size_t user_work_bytes;
  /* Host plans on GPU backends with the staging hooks: plan-owned device
   * buffers and the chunked, overlapped pipeline (exec/staging.c); NULL
   * otherwise, and host data then goes the simple per-call way. */
  struct hy_stage *stage;
  /* Host C2C (1D, 2D, 3D), R2C and C2R (2D, 3D) plans larger than the device memory budget: two sweeps of
   * sub-plans over slabs and blocks (exec/out_of_core.c). The plan then has
   * no tree, backend state, workspace or stage of its own. NULL otherwise. */
  struct hy_ooc *ooc;
  /* Batched host plans on GPU backends with a CPU share: a GPU side and a
   * CPU side, each a plan of its own (exec/hybrid.c). The plan then has no
   * tree, backend state, workspace or stage of its own. NULL otherwise. */
  struct hy_hybrid *hybrid;
  /* hyfft_plan_set_progress's callback (NULL: none) and its argument. */
  hyfft_progress_fn progress;
  void *progress_user;
  /* Plans on a multi-device context: one host-data sub-plan per device
   * with entries of the outer batch dim (exec/multi_device.c). The plan
   * then has no tree, backend state, workspace or stage of its own. NULL
   * otherwise. */
  struct hy_multi *multi;
  /* Batched CPU plans run chunk by chunk of the outer batch dim
   * (exec/batch_chunks.c): the chunk sub-plans. The plan then has no tree,
   * backend state, workspace or stage of its own. NULL otherwise. */
  struct hy_chunks *chunks;
  /* hyfft_callbacks: the source texts (copies; problem.load_cb/store_cb
   * point to them), the CPU backend's function pointers and the user
   * pointers. A GPU plan's kernels take the user pointers as the buffers
   * HY_BUF_LOAD_USER and HY_BUF_STORE_USER; a CPU plan applies the
   * functions around the transform (hy_exec_run_callbacks). */
  char *cb_source[2];
  hyfft_load_fn load_fn;
  hyfft_store_fn store_fn;
  void *cb_user[2];
  /* Convolution plans (hyfft_plan_convolution): the forward, pointwise
   * and inverse sub-plans and their buffers (exec/conv.c). The plan then
   * has no tree, backend state, workspace or stage of its own. NULL
   * otherwise. */
  struct hy_conv *conv;
};

/* Report `fraction` of an execution to the plan's progress callback, if
 * any (hy_exec_run reports the final 1.0 itself). */
static inline void hy_exec_progress(const struct hyfft_plan_s *plan, double fraction) {
  if (plan->progress) plan->progress(plan->progress_user, fraction);
}

/* Internal plan flag (above the public ones): the plan is one side of a
 * hybrid plan or one device's part of a multi-device plan and must not
 * split again. */
#define HY_PLAN_SIDE (1u << 30)
/* Internal plan flag: the plan holds its own work area even on a GPU
 * context (the measuring planner's candidates, which must not grow the
 * context's shared area to the largest candidate's need). */
#define HY_PLAN_OWN_WORK (1u << 29)
/* A chunk's plan of a chunked CPU plan (exec/batch_chunks.c): never
 * chunked again. */
#define HY_PLAN_CHUNK (1u << 28)

/* Create a plan of `problem` (a user description, validated here) on
 * `context`: its tree, backend state, plan-owned workspace and staging
 * state, or, for a host problem over the device memory budget, the
 * out-of-core sweeps instead (exec/out_of_core.c). `tree` NULL chooses the
 * tree (hy_exec_choose: wisdom, measuring, the cost model); otherwise that
 * tree is used as is (the measuring planner builds its candidates so). The plan holds a reference to the
 * context. api/plan.c wraps this for the public call and registers the
 * handle. */
hy_status hy_exec_plan_create(struct hyfft_context_s *context, const hyfft_problem *problem,
                              unsigned flags, const hy_plan_tree *tree,
                              struct hyfft_plan_s **plan);
/* The same with callbacks (NULL: none; checked against the context here). */
hy_status hy_exec_plan_create_cb(struct hyfft_context_s *context, const hyfft_problem *problem,
                                 unsigned flags, const hyfft_callbacks *callbacks,
                                 struct hyfft_plan_s **plan);
/* Release everything hy_exec_plan_create made, and the context reference. */
void hy_exec_plan_destroy(struct hyfft_plan_s *plan);
/* Wait until the plan's final kernels are in place (a CUDA plan compiles
 * its persistent kernel in the background), its stage's sub-plans too. */
hy_status hy_exec_plan_wait(struct hyfft_plan_s *plan);

/* Tree and backend state of a canonical problem: `fixed` NULL chooses the
 * tree, else *tree = *fixed; the planner's quick first tier goes to
 * *quick and *has_quick where the backend tiers plans (both may be NULL:
 * not kept); then the backend prepares it and the workspace is fitted.
 * Staging builds its chunk sub-plans with this. */
hy_status hy_exec_plan_prepare(struct hyfft_context_s *context, const hy_problem *problem,
                               unsigned flags, const hy_plan_tree *fixed, hy_plan_tree *tree,
                               hy_plan_tree *quick, int *has_quick, void **state);

/* Run a plan on caller data (the public execute calls). Checks
 * the pointers (NULL, aliasing, in-place rules) before touching data,
 * stages host data through the device for GPU backends, and supplies
 * workspace. */
hy_status hy_exec_run(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                      void *queue, int blocking);

/* hy_exec_run's dispatch without its pointer checks and progress report:
 * the path the plan takes (sub-plans, staging, CPU callbacks, direct).
 * For callers that own the buffers and know better than the plan's
 * extents (convolution plans: an inverse whose load callback reads a
 * smaller input). */
hy_status hy_exec_dispatch(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                           void *queue);

/* Run on buffers the backend can address directly (device memory, or the
 * staging buffers), with the caller's or the plan-owned workspace. */
hy_status hy_exec_direct(struct hyfft_plan_s *plan, const void *in, void *out, void *workspace,
                         void *queue);

/* Whether `ptr` is the memory a plan was made for, as far as can be told
 * (`which` names it in the message; `need` bytes for hyfft's buffers). */
hy_status hy_exec_check_memory(const struct hyfft_plan_s *plan, const void *ptr,
                               const char *which, size_t need);

/* Bytes of workspace a plan needs. */
size_t hy_exec_workspace_bytes(const struct hyfft_plan_s *plan);
/* hyfft_plan_set_workspace: use `workspace` (`bytes` long; NULL: back to
 * the plan's default, its own or the context's shared area) for every
 * later execution without a workspace argument. */
hy_status hy_exec_set_workspace(struct hyfft_plan_s *plan, void *workspace, size_t bytes);
/* Initialise / release a context's shared work area (context creation and
 * the last reference). */
void hy_context_work_init(struct hyfft_context_s *context);
void hy_context_work_release(struct hyfft_context_s *context);
/* Wait on the host for the last use of a work area that `order` records,
 * and release its event: before the area is freed. */
void hy_work_order_drain(struct hyfft_context_s *context, struct hy_work_order *order);
/* Bytes the context's shared work area holds now. */
size_t hy_context_work_bytes(struct hyfft_context_s *context);
/* Whether a device memory limit is set and a plan's workspace of `bytes`
 * exceeds it: HYFFT_OUT_OF_MEMORY naming both (HYFFT_SUCCESS otherwise). */
hy_status hy_exec_check_budget(const struct hyfft_context_s *context, size_t bytes);
/* After plan_prepare: shrink tree->work_elems[0] to what the prepared plan
 * touches when the backend reports less (a persistent kernel's ring). */
void hy_exec_fit_workspace(const hy_backend *backend, void *device, const void *plan_state,
                           hy_plan_tree *tree);

#endif /* HY_EXEC_H */
