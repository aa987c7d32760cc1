/* The backend interface: every backend (cpu, opencl, cuda) fills one of
 * these tables. Backends know nothing of the public API or of solvers; they
 * discover devices, manage memory and queues, prepare a plan tree (compile
 * kernels, build twiddle tables) and execute it. */
#ifndef HY_BACKEND_H
#define HY_BACKEND_H

#include "planner/plan.h"

/* What the planner needs to know of a device. */
typedef struct hy_device_caps {
  hyfft_backend_id backend;
  int compute_units;
  int64_t local_memory;   /* bytes of shared/local memory one block may use */
  /* Bytes of shared memory one compute unit holds for all its resident
   * blocks (CUDA: 228 KB on sm_90); 0 where the backend does not know. */
  int64_t unit_local_memory;
  int max_work_group;     /* threads per block */
  /* The smallest block that can still fill a compute unit with threads:
   * its most resident threads over its most resident blocks (CUDA: 2048 /
   * 32 = 64 on sm_80 and sm_90); 0 where the backend does not know. */
  int min_full_block;
  int warp_size;          /* threads that issue together (CUDA: 32); 0 if unknown */
  int64_t l2_cache;       /* bytes, 0 if unknown */
  int64_t last_level_cache; /* CPU: bytes of the last cache level the cores share, 0 if unknown */
  int64_t global_memory;  /* bytes */
  double bandwidth;       /* bytes/s of a device-to-device copy (read+write), estimate */
  double launch_overhead; /* seconds per pass */
  double flop_rate;       /* flop/s, estimate */
  int supports_f64;
  /* Half-precision storage (HYFFT_F16, HYFFT_BF16): the backend converts
   * the caller's data on load and store and computes in f32. */
  int supports_half;
  /* Longest 1D transform one pass can do (in elements of each precision):
   * unlimited (INT64_MAX) on the CPU, limited by local memory on GPUs. */
  int64_t max_pass_length[2];
  /* CPU: the longest transform that runs as one gathered lane group
   * (each lane a transform; the group's arrays in one core's L2), per
   * precision, where the engine's gather and scatter also take the
   * odd-length real steps (HY_FUSE_R2C_ODD / HY_FUSE_C2R_ODD); 0 on
   * other backends. */
  int64_t lane_group_max[2];
  /* CPU: the longest transform whose lane group's values (LANES x n
   * complex elements) fit one core's L1 data cache, per precision; 0 on
   * other backends. Up to it an even real axis whose reals cannot be
   * viewed as complex values takes the one-pass real steps too (solvers/
   * real.c, hy_real_even_one_pass). */
  int64_t lane_group_l1_max[2];
  /* A planner restriction, not the device's: no plane passes (the quick
   * first tier of a tiered plan, hy_planner_quick_tree). */
  int no_planes;
} hy_device_caps;

/* What a pointer is, as far as a backend can tell (hy_backend.memory_kind). */
typedef enum hy_memory_kind {
  HY_MEMKIND_UNKNOWN = 0,
  HY_MEMKIND_HOST = 1,        /* host memory (pageable or page-locked) */
  HY_MEMKIND_DEVICE = 2,      /* memory of this device */
  HY_MEMKIND_OTHER_DEVICE = 3 /* memory of another device of the backend */
} hy_memory_kind;

typedef struct hy_backend {
  hyfft_backend_id id;
  const char *name; /* "cpu", "cuda", "opencl": the device spec prefix */

  /* Discovery. A backend whose runtime is missing reports 0 devices from
   * device_count and HYFFT_BACKEND_UNAVAILABLE from open. */
  hy_status (*device_count)(int *count);
  hy_status (*device_info)(int index, hyfft_device_info *info);

  /* Device state for one context. `index` counts this backend's devices. */
  hy_status (*open)(int index, void **device);
  void (*close)(void *device);
  hy_status (*caps)(void *device, hy_device_caps *caps);

  /* Memory: buffers are device pointers (CUDA), cl_mem (OpenCL) or host
   * pointers (CPU). queue NULL means the device's own queue; blocking
   * copies return when done. */
  hy_status (*alloc)(void *device, size_t bytes, void **buffer);
  void (*release)(void *device, void *buffer);
  hy_status (*write)(void *device, void *queue, void *buffer, size_t offset, const void *host,
                     size_t bytes, int blocking);
  hy_status (*read)(void *device, void *queue, const void *buffer, size_t offset, void *host,
                    size_t bytes, int blocking);
  hy_status (*synchronize)(void *device, void *queue);

  /* Optional: 1 when plans on this device may start on a quick first tier
   * (one pass per axis) and switch to the tree's own kernels once those
   * have compiled in the background, as CUDA plans with a plane pass do;
   * the caller then plans that tier (hy_planner_quick_tree) and hands it
   * to plan_prepare. NULL or 0: never, and plan_prepare gets NULL. */
  int (*plan_tiers)(void *device);
  /* Plans: prepare compiles/builds what the tree needs and returns an
   * opaque state for execute (plans run from several threads; a state that
   * changes after prepare guards that itself, like a CUDA plan that
   * switches to kernels it compiled in the background). `quick` is the
   * plan's quick first tier (see plan_tiers), NULL when it has none; a
   * backend runs it while the tree's plane kernel compiles, and plans
   * nothing itself. */
  hy_status (*plan_prepare)(void *device, const hy_problem *problem, const hy_plan_tree *tree,
                            const hy_plan_tree *quick, void **plan_state);
  void (*plan_release)(void *device, void *plan_state);
  /* Optional: complex elements of WORK0 the prepared plan touches when
   * fewer than its tree's work_elems[0] (0: the tree's). The plan's
   * workspace is then allocated, and reported, that small. */
  int64_t (*plan_workspace)(void *device, const void *plan_state);
  /* Optional: wait for kernels the plan still compiles in the background
   * and run them from now on; their build's failure if it failed (the plan
   * still runs, on the kernels it started with). NULL: nothing pending. */
  hy_status (*plan_wait)(void *device, void *plan_state);
  /* Append the generated source of the plan's kernels (may append nothing). */
  hy_status (*plan_source)(void *device, const void *plan_state, hy_strbuf *sb);
  /* Run every pass of the tree in order on `queue`. buffers[HY_BUF_*] are
   * this backend's buffers; work buffers hold tree->work_elems elements. */
  hy_status (*execute)(void *device, const void *plan_state, const hy_plan_tree *tree,
                       void *const buffers[HY_BUF_COUNT], void *queue);

  /* Optional, for host data staged with copies overlapped with compute
   * (src/exec/staging.c); NULL where a backend lacks them, and exec/ then
   * stages host data the simple way. A backend that fills them must have
   * buffers that are addresses: a buffer plus a byte offset is a buffer.
   * host_alloc gives page-locked host memory (copies from it run
   * asynchronously); events are created once and recorded many times;
   * queue_wait makes later work on `queue` wait for the event's last
   * recording, event_wait blocks the calling thread until it completes. */
  hy_status (*host_alloc)(void *device, size_t bytes, void **host);
  void (*host_release)(void *device, void *host);
  hy_status (*queue_create)(void *device, void **queue);
  void (*queue_release)(void *device, void *queue);
  hy_status (*event_create)(void *device, void **event);
  void (*event_release)(void *device, void *event);
  hy_status (*event_record)(void *device, void *event, void *queue);
  hy_status (*queue_wait)(void *device, void *queue, void *event);
  hy_status (*event_wait)(void *device, void *event);

  /* Optional: what `ptr` is (CUDA asks the driver). NULL, or UNKNOWN,
   * where the backend cannot tell; exec/ then checks what it can. */
  hy_memory_kind (*memory_kind)(void *device, const void *ptr);
  /* Optional: 1 when host bytes [ptr, ptr + bytes) are page-locked memory
   * of one allocation the device can copy from and to asynchronously
   * (cuMemAllocHost, cuMemHostRegister), so staging copies them directly
   * instead of through its own page-locked buffers; 0 otherwise. */
  int (*host_pinned)(void *device, const void *ptr, size_t bytes);
  /* Optional: a strided copy between page-locked host memory and a device
   * buffer, asynchronous on `queue`: `height` rows of `width` bytes, rows
   * host_pitch bytes apart from `host` and dev_pitch bytes apart from
   * byte dev_offset of `buffer`; to_device 1 uploads, 0 downloads. Out of
   * core moves pinned user data with it instead of packing on the host. */
  hy_status (*copy_2d)(void *device, void *queue, int to_device, void *buffer, size_t dev_offset,
                       size_t dev_pitch, void *host, size_t host_pitch, size_t width,
                       size_t height);

  /* Optional, both or neither: device-to-device copies between two
   * devices of this backend (or within one), for the global transpose of
   * a multi-device slab plan (exec/multi_slab.c). peer_access returns 1
   * when `device` can read and write `src_device`'s buffers without the
   * host (enabling that access, e.g. CUDA peer access, on the first call),
   * 0 when it cannot: the caller then bounces through host memory.
   * copy_peer is a strided copy, asynchronous on `queue` of `device`:
   * `height` rows of `width` bytes, rows src_pitch bytes apart from byte
   * src_offset of `src` (a buffer of `src_device`) and dst_pitch bytes
   * apart from byte dst_offset of `dst`. One end is a buffer of `device`,
   * the other of `device` or of a device that peer_access(device, it)
   * allows: the slab exchange writes from its own buffers into the
   * others' (`src_device` is then `device`). The caller makes sure `src`
   * is complete before the call (its device synchronized) and that no one
   * uses `dst` until the copy is waited for. */
  int (*peer_access)(void *device, void *src_device);
  hy_status (*copy_peer)(void *device, void *queue, void *dst, size_t dst_offset,
                         size_t dst_pitch, void *src_device, const void *src, size_t src_offset,
                         size_t src_pitch, size_t width, size_t height);
} hy_backend;

/* The registered backends, in "auto" preference order (cuda, opencl, cpu);
 * entries for backends compiled out are absent. */
const hy_backend *const *hy_backends(int *count);
const hy_backend *hy_backend_by_id(hyfft_backend_id id);

extern const hy_backend hy_backend_cpu;
#ifdef HYFFT_WITH_OPENCL
extern const hy_backend hy_backend_opencl;
#endif
#ifdef HYFFT_WITH_CUDA
extern const hy_backend hy_backend_cuda;
#endif

#endif /* HY_BACKEND_H */
