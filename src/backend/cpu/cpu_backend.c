/* The native CPU backend: host memory, no queues, and plan execution
 * through the CPU engine (cpu_engine_impl.h), one node per pass. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include <unistd.h>

#include "backend/cpu/cpu_node.h"
#include "backend/cpu/cpu_scratch.h"
#include "backend/cpu/ops_chirp.h"
#include "backend/cpu/ops_r2r.h"
#include "backend/cpu/ops_real.h"
#include "planner/kernel_spec.h"
#include "util/half.h"
#include "util/settings.h"

typedef struct hy_cpu_plan {
  /* Half-precision storage (HYFFT_F16/BF16): the problem's element layout
   * (transform and batch dims with their strides, in elements; on each
   * side its length and reals per element), so that an execution converts
   * exactly the caller's elements. */
  hyfft_precision storage;
  int inplace;
  int ndims;
  hyfft_dim dims[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  int64_t side_n[2][HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK]; /* [0] input, [1] output */
  int width[2];                                            /* reals per element */
  int npasses;
  hy_cpu_node *nodes[HY_MAX_PASSES];
  hy_cpu_node *plane_nodes[HY_MAX_PASSES]; /* a plane pass's second axis (A) */
  double *tables[HY_MAX_PASSES];           /* a real or r2r pass's twiddles (ops_real.h, ops_r2r.h) */
  /* What the calling thread's scratch slots must hold before the first of
   * several passes writes (hy_cpu_reserve): the nodes' requests and the
   * fused Bluestein passes' dense sides, known from the tree. */
  size_t reserve[HY_CPU_SCRATCH_SLOTS];
  uint64_t reserve_key; /* unique to the plan (hy_cpu_scratch_reserve) */
} hy_cpu_plan;

/* A context needs no device state; open hands out this address. */
static int hy_cpu_device_token;

static hy_status hy_cpu_device_count(int *count) {
  *count = 1;
  return HYFFT_SUCCESS;
}

static void hy_cpu_model_name(char *name, size_t size) {
  snprintf(name, size, "CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *colon = strchr(line, ':');
    if (!colon) continue;
    colon++;
    while (*colon == ' ' || *colon == '\t') colon++;
    size_t len = strcspn(colon, "\n");
    if (len >= size) len = size - 1;
    if (len > 0) {
      memcpy(name, colon, len);
      name[len] = '\0';
    }
    break;
  }
  fclose(f);
}

static int64_t hy_cpu_memory_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (int64_t)pages * page : 0;
}

void hy_cpu_stream_copy(void *dst, const void *src, size_t bytes) {
#if defined(__x86_64__) && defined(__SSE2__)
  /* Whole cache lines only: a line that another copy also writes (the
   * ends of a piece that does not start or end on a line) would leave
   * the write-combining buffer part-filled, which costs more than a
   * plain store. */
  char *d = dst;
  const char *s = src;
  size_t head = (size_t)(-(uintptr_t)d & 63);
  if (head > bytes) head = bytes;
  memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, d += 64, s += 64)
    for (int q = 0; q < 64; q += 16)
      _mm_stream_ps((float *)(void *)(d + q), _mm_loadu_ps((const float *)(const void *)(s + q)));
  memcpy(d, s, bytes);
#else
  memcpy(dst, src, bytes);
#endif
}

void hy_cpu_stream_fence(void) {
#if defined(__x86_64__) && defined(__SSE2__)
  _mm_sfence();
#endif
}

/* A cache size from sysconf (name, or -1 where the system has no such
 * query), else `fallback`, read once into *cached: every execution asks
 * (the streaming rule), and sysconf runs CPUID for it, which a virtual
 * machine traps. */
static int64_t hy_cpu_cache_bytes(int64_t *cached, int name, int64_t fallback) {
  int64_t v = __atomic_load_n(cached, __ATOMIC_RELAXED);
  if (v >= 0) return v;
  long got = name >= 0 ? sysconf(name) : -1;
  v = got > 0 ? got : fallback;
  __atomic_store_n(cached, v, __ATOMIC_RELAXED);
  return v;
}

int64_t hy_cpu_l2_bytes(void) {
  static int64_t cached = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
  return hy_cpu_cache_bytes(&cached, _SC_LEVEL2_CACHE_SIZE, 0);
#else
  return hy_cpu_cache_bytes(&cached, -1, 0);
#endif
}

/* One core's L1 data cache; 32 KiB where the system does not say. */
int64_t hy_cpu_l1_bytes(void) {
  static int64_t cached = -1;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  return hy_cpu_cache_bytes(&cached, _SC_LEVEL1_DCACHE_SIZE, 32 << 10);
#else
  return hy_cpu_cache_bytes(&cached, -1, 32 << 10);
#endif
}

/* The largest unified cache of cpu0 as sysfs lists it (the last level the
 * cores share; sysconf's figure is unreliable in virtual machines), else
 * sysconf's L3, else 0. */
static int64_t hy_cpu_llc_bytes(void) {
  int64_t best = 0;
  for (int i = 0; i < 8; i++) {
    char path[96], text[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(text, sizeof text, f)) {
      char *end = NULL;
      long long v = strtoll(text, &end, 10);
      if (end && (*end == 'K' || *end == 'k')) v <<= 10;
      else if (end && (*end == 'M' || *end == 'm')) v <<= 20;
      if (v > best) best = v;
    }
    fclose(f);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) best = l3;
  }
#endif
  return best;
}

/* hy_cpu_llc_bytes read once (sysfs), for the execution path. */
static int64_t hy_cpu_llc_cached(void) {
  static int64_t cached = -1;
  int64_t v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (v < 0) {
    v = hy_cpu_llc_bytes();
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
  }
  return v;
}

static hy_status hy_cpu_device_info(int index, hyfft_device_info *info) {
  if (index != 0) return hy_error(HYFFT_INVALID_DEVICE, "cpu device %d does not exist (only cpu:0)", index);
  memset(info, 0, sizeof *info);
  info->backend = HYFFT_BACKEND_CPU;
  snprintf(info->spec, sizeof info->spec, "cpu");
  hy_cpu_model_name(info->name, sizeof info->name);
  info->compute_units = hy_num_threads();
  info->global_memory = hy_cpu_memory_bytes();
  info->l2_cache = hy_cpu_l2_bytes();
  info->supports_f64 = 1;
  info->is_gpu = 0;
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_open(int index, void **device) {
  if (index != 0) return hy_error(HYFFT_INVALID_DEVICE, "cpu device %d does not exist (only cpu:0)", index);
  *device = &hy_cpu_device_token;
  return HYFFT_SUCCESS;
}

static void hy_cpu_close(void *device) { (void)device; }

static hy_status hy_cpu_caps(void *device, hy_device_caps *caps) {
  (void)device;
  memset(caps, 0, sizeof *caps);
  int threads = hy_num_threads();
  caps->backend = HYFFT_BACKEND_CPU;
  caps->compute_units = threads;
  caps->l2_cache = hy_cpu_l2_bytes();
  caps->last_level_cache = hy_cpu_llc_bytes();
  caps->global_memory = hy_cpu_memory_bytes();
  /* Rough figures for the cost model: a few GB/s of copy bandwidth per
   * core up to a memory-bus limit, a few Gflop/s per core in SIMD. */
  caps->bandwidth = 8e9 * (threads < 4 ? threads : 4);
  caps->flop_rate = 8e9 * threads;
  caps->launch_overhead = 2e-6;
  caps->supports_f64 = 1;
  caps->supports_half = 1;
  caps->max_pass_length[HYFFT_F32] = INT64_MAX;
  caps->max_pass_length[HYFFT_F64] = INT64_MAX;
  caps->lane_group_max[HYFFT_F32] = hy_cpu_direct_max(HYFFT_F32);
  caps->lane_group_max[HYFFT_F64] = hy_cpu_direct_max(HYFFT_F64);
  const int64_t l1 = hy_cpu_l1_bytes();
  caps->lane_group_l1_max[HYFFT_F32] = l1 / (HY_CPU_LANES_F32 * 2 * (int64_t)sizeof(float));
  caps->lane_group_l1_max[HYFFT_F64] = l1 / (HY_CPU_LANES_F64 * 2 * (int64_t)sizeof(double));
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_alloc(void *device, size_t bytes, void **buffer) {
  (void)device;
  void *p = hy_malloc(bytes ? bytes : 1);
  if (!p) return hy_error(HYFFT_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory", bytes);
  *buffer = p;
  return HYFFT_SUCCESS;
}

static void hy_cpu_release(void *device, void *buffer) {
  (void)device;
  hy_free(buffer);
}

static hy_status hy_cpu_write(void *device, void *queue, void *buffer, size_t offset,
                              const void *host, size_t bytes, int blocking) {
  (void)device, (void)queue, (void)blocking;
  if (bytes) memmove((char *)buffer + offset, host, bytes);
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_read(void *device, void *queue, const void *buffer, size_t offset,
                             void *host, size_t bytes, int blocking) {
  (void)device, (void)queue, (void)blocking;
  if (bytes) memmove(host, (const char *)buffer + offset, bytes);
  return HYFFT_SUCCESS;
}

/* Every CPU "device" is the same host memory: a peer copy is a strided
 * memcpy (multi-device slab plans on "cpu,cpu"). */
static int hy_cpu_peer_access(void *device, void *src_device) {
  (void)device, (void)src_device;
  return 1;
}

static hy_status hy_cpu_copy_peer(void *device, void *queue, void *dst, size_t dst_offset,
                                  size_t dst_pitch, void *src_device, const void *src,
                                  size_t src_offset, size_t src_pitch, size_t width,
                                  size_t height) {
  (void)device, (void)queue, (void)src_device;
  if (width == 0) return HYFFT_SUCCESS;
  for (size_t r = 0; r < height; r++)
    memcpy((char *)dst + dst_offset + r * dst_pitch, (const char *)src + src_offset + r * src_pitch,
           width);
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_synchronize(void *device, void *queue) {
  (void)device, (void)queue;
  return HYFFT_SUCCESS;
}

static void hy_cpu_plan_release(void *device, void *plan_state) {
  (void)device;
  hy_cpu_plan *plan = plan_state;
  if (!plan) return;
  for (int i = 0; i < plan->npasses; i++) {
    hy_cpu_node_free(plan->nodes[i]);
    hy_cpu_node_free(plan->plane_nodes[i]);
    hy_free(plan->tables[i]);
  }
  hy_free(plan);
}

/* Bytes of a fused Bluestein pass's dense side (the input chirp's output
 * or the output chirp's input). */
static size_t hy_cpu_chirp_scratch_bytes(const hy_pass *pass) {
  size_t elem = pass->precision == HYFFT_F64 ? 16 : 8;
  int64_t count = hy_pass_count(pass) / pass->loops[pass->fuse_loop].n * pass->bluestein_m;
  return (size_t)count * elem;
}

static hy_status hy_cpu_plan_prepare(void *device, const hy_problem *problem,
                                     const hy_plan_tree *tree, const hy_plan_tree *quick,
                                     void **plan_state) {
  (void)quick; /* no tiers: the CPU backend compiles nothing */
  hy_cpu_plan *plan = hy_calloc(1, sizeof *plan);
  if (!plan) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu backend: plan state");
  hy_status st = HYFFT_SUCCESS;
  plan->storage = problem ? problem->storage : HYFFT_F32;
  if (problem && hy_precision_is_half(problem->storage)) {
    if (problem->kind == HYFFT_R2R)
      st = hy_error(HYFFT_NOT_SUPPORTED, "cpu backend: half-precision storage of R2R data");
    plan->inplace = problem->inplace;
    plan->width[0] = problem->kind == HYFFT_R2C ? 1 : 2;
    plan->width[1] = problem->kind == HYFFT_C2R ? 1 : 2;
    for (int d = 0; d < problem->rank; d++) {
      /* The halved axis has n/2 + 1 complex elements on the complex side. */
      int64_t n = problem->dims[d].n, half = n / 2 + 1, last = d == problem->rank - 1;
      plan->side_n[0][plan->ndims] = last && problem->kind == HYFFT_C2R ? half : n;
      plan->side_n[1][plan->ndims] = last && problem->kind == HYFFT_R2C ? half : n;
      plan->dims[plan->ndims++] = problem->dims[d];
    }
    for (int b = 0; b < problem->batch_rank; b++) {
      plan->side_n[0][plan->ndims] = plan->side_n[1][plan->ndims] = problem->batch[b].n;
      plan->dims[plan->ndims++] = problem->batch[b];
    }
  }
  for (int i = 0; i < tree->npasses && st == HYFFT_SUCCESS; i++) {
    const hy_pass *pass = &tree->passes[i];
    int64_t tw_n = pass->twiddle_loop >= 0 ? pass->twiddle_n : 0;
    if (pass->twiddle_loop >= pass->nloops)
      st = hy_error(HYFFT_INTERNAL, "cpu backend: pass %d twiddles along loop %d of %d", i,
                    pass->twiddle_loop, pass->nloops);
    else if (pass->op == HY_PASS_COPY) {
      static const int one[1] = {1};
      st = hy_cpu_node_build(pass->precision, pass->sign, 1, HY_ALGO_MIXED_RADIX, one, 1, 0,
                             tw_n, 0, &plan->nodes[i]);
    } else if (pass->op == HY_PASS_DFT && pass->plane_inner > 0) {
      /* A plane pass runs as its two axes: B's factors come first. */
      int split = 0;
      int64_t prod = 1;
      while (split < pass->nfactors && prod < pass->plane_inner) prod *= pass->factors[split++];
      if (prod != pass->plane_inner || pass->twiddle_loop >= 0 || pass->fuse != HY_FUSE_NONE ||
          pass->algo != HY_ALGO_MIXED_RADIX)
        st = hy_error(HYFFT_INTERNAL, "cpu backend: pass %d is not a well-formed plane pass", i);
      else
        st = hy_cpu_node_build(pass->precision, pass->sign, pass->plane_inner, pass->algo,
                               pass->factors, split, 0, 0, 0, &plan->nodes[i]);
      if (st == HYFFT_SUCCESS)
        st = hy_cpu_node_build(pass->precision, pass->sign, pass->axis.n / pass->plane_inner,
                               pass->algo, pass->factors + split, pass->nfactors - split, 0, 0,
                               0, &plan->plane_nodes[i]);
    } else if (pass->op == HY_PASS_DFT) {
      /* Runs of unit stride without a chirp step: the node may then take
       * the row path for a few long transforms. */
      const int64_t unit_runs = pass->axis.in_stride == 1 && pass->axis.out_stride == 1 &&
                                        (pass->fuse == HY_FUSE_NONE || hy_fuse_is_real(pass->fuse))
                                    ? hy_pass_count(pass)
                                    : 0;
      st = hy_cpu_node_build(pass->precision, pass->sign, pass->axis.n, pass->algo,
                             pass->factors, pass->nfactors, pass->bluestein_m, tw_n, unit_runs,
                             &plan->nodes[i]);
      /* A real transform's step in the node's gather or scatter: the
       * twiddles of the pass it stands for, from the same table. */
      if (st == HYFFT_SUCCESS && hy_fuse_is_real(pass->fuse)) {
        hy_pass step = *pass;
        step.op = pass->fuse == HY_FUSE_C2R_PRE ? HY_PASS_C2R_PRE : HY_PASS_R2C_POST;
        step.axis.n = pass->axis.n + 1;
        hy_cpu_node_kind kind = plan->nodes[i]->kind;
        if ((kind != HY_CPU_DIRECT && kind != HY_CPU_LARGE) || tw_n > 0 ||
            pass->chirp_n != 2 * pass->axis.n)
          st = hy_error(HYFFT_INTERNAL, "cpu backend: pass %d fuses a real step it cannot take", i);
        else
          st = hy_cpu_op_real_table(&step, &plan->tables[i]);
      }
      /* The odd-length steps in the gather and scatter of lane groups. */
      if (st == HYFFT_SUCCESS && hy_fuse_is_real_odd(pass->fuse) &&
          (plan->nodes[i]->kind != HY_CPU_DIRECT || tw_n > 0))
        st = hy_error(HYFFT_INTERNAL, "cpu backend: pass %d fuses an odd real step it cannot take", i);
    } else if (pass->op == HY_PASS_CHIRP || pass->op == HY_PASS_TWIDDLE) {
      plan->nodes[i] = NULL; /* pointwise: hy_cpu_op_chirp / _twiddle need no node */
    } else if (hy_cpu_op_is_real(pass->op)) {
      st = hy_cpu_op_real_table(pass, &plan->tables[i]); /* pointwise, no node */
    } else if (hy_cpu_op_is_r2r(pass->op)) {
      st = hy_cpu_op_r2r_table(pass, &plan->tables[i]); /* pointwise, no node */
    } else {
      st = hy_error(HYFFT_NOT_SUPPORTED, "cpu backend: pass %d has unknown op %d", i, (int)pass->op);
    }
    /* Slot i may hold a node or table even when a later step of the same
     * pass failed (the plane pass's second node, a fused real step's
     * table): release frees whatever slots 0..i hold. */
    plan->npasses = i + 1;
  }
  if (st != HYFFT_SUCCESS) {
    hy_cpu_plan_release(device, plan);
    return st;
  }
  static _Atomic uint64_t hy_cpu_plan_keys;
  plan->reserve_key = atomic_fetch_add(&hy_cpu_plan_keys, 1) + 1;
  for (int i = 0; i < tree->npasses; i++) {
    const hy_pass *pass = &tree->passes[i];
    void (*reserve)(const hy_cpu_node *, size_t[]) =
        pass->precision == HYFFT_F64 ? hy_cpu_node_reserve_f64 : hy_cpu_node_reserve_f32;
    reserve(plan->nodes[i], plan->reserve);
    reserve(plan->plane_nodes[i], plan->reserve);
    if (pass->op == HY_PASS_DFT && (pass->fuse == HY_FUSE_CHIRP_IN || pass->fuse == HY_FUSE_CHIRP_OUT)) {
      size_t b = hy_cpu_chirp_scratch_bytes(pass);
      if (b > plan->reserve[HY_SCRATCH_CHIRP]) plan->reserve[HY_SCRATCH_CHIRP] = b;
    }
  }
  *plan_state = plan;
  return HYFFT_SUCCESS;
}

/* The CPU backend generates no source: its "source" is what its engine
 * runs for each DFT pass, the node tree (hy_cpu_node_describe), with the
 * choices made at plan time, some of them timed on this machine. */
static hy_status hy_cpu_plan_source(void *device, const void *plan_state, hy_strbuf *sb) {
  (void)device;
  const hy_cpu_plan *plan = plan_state;
  for (int i = 0; i < plan->npasses; i++) {
    if (!plan->nodes[i]) continue;
    hy_strbuf_appendf(sb, "cpu engine, pass %d:\n", i);
    hy_cpu_node_describe(plan->nodes[i], 2, sb);
    if (plan->plane_nodes[i]) {
      hy_strbuf_append(sb, "  then the plane's second axis:\n");
      hy_cpu_node_describe(plan->plane_nodes[i], 2, sb);
    }
  }
  return HYFFT_SUCCESS;
}

/* [lo, hi] element range a layout touches. */
static void hy_cpu_extent(const hy_pass *pass, int input, int64_t axis_extra, int64_t *lo,
                          int64_t *hi) {
  int64_t a = 0, b = 0;
  for (int l = -1; l < pass->nloops; l++) {
    const hyfft_dim *d = l < 0 ? &pass->axis : &pass->loops[l];
    const int64_t len = l < 0 ? d->n + axis_extra : d->n;
    int64_t s = input ? d->in_stride : d->out_stride, span = (len - 1) * s;
    if (span > 0) b += span;
    else a += span;
  }
  *lo = a;
  *hi = b;
}

/* A fused odd-length real step's real side (R2C's input, C2R's output):
 * its offsets and strides count reals, and the complex side holds
 * n/2 + 1 elements along the axis. */
static int hy_cpu_side_real(const hy_pass *pass, int input) {
  return input ? pass->fuse == HY_FUSE_R2C_ODD : pass->fuse == HY_FUSE_C2R_ODD;
}

/* Bytes of one element of a DFT pass's side. */
static int64_t hy_cpu_side_elem(const hy_pass *pass, int input) {
  const int64_t elem = pass->precision == HYFFT_F64 ? 16 : 8;
  return hy_cpu_side_real(pass, input) ? elem / 2 : elem;
}

/* Elements a fused real step adds to (or takes from) the axis on a side:
 * the even steps' X_m (C2R reads it, R2C writes it), the odd steps'
 * shorter complex side (hy_pass_side_length). */
static int64_t hy_cpu_side_extra(const hy_pass *pass, int input) {
  if ((input && pass->fuse == HY_FUSE_C2R_PRE) || (!input && pass->fuse == HY_FUSE_R2C_POST))
    return 1;
  return hy_pass_side_length(pass, !input) - pass->axis.n;
}

static int hy_cpu_same_layout(const hy_pass *pass) {
  if (hy_cpu_side_real(pass, 1) || hy_cpu_side_real(pass, 0)) return 0;
  if (pass->axis.in_stride != pass->axis.out_stride) return 0;
  for (int l = 0; l < pass->nloops; l++)
    if (pass->loops[l].in_stride != pass->loops[l].out_stride) return 0;
  return 1;
}

/* A fused Bluestein step (hy_fuse) as the pointwise HY_PASS_CHIRP it
 * replaces, over the batch loops of `pass` (all loops but fuse_loop):
 * PRE reads the pass's source (axis stride: that of fuse_loop) into a
 * dense M per transform; SPECTRUM works in place on the pass's dense
 * output; POST reads a dense M per transform and writes the first N
 * outputs with the pass's own output strides. */
static hy_pass hy_cpu_fused_chirp(const hy_pass *pass, hy_chirp_step step) {
  hy_pass c;
  hy_pass_init(&c, HY_PASS_CHIRP, pass->precision, pass->fuse_sign);
  c.chirp_step = step;
  c.chirp_n = pass->chirp_n;
  c.bluestein_m = pass->bluestein_m;
  const hyfft_dim *f = &pass->loops[pass->fuse_loop];
  int64_t m = pass->bluestein_m;
  if (step == HY_CHIRP_PRE) c.axis = (hyfft_dim){m, f->in_stride, 1};
  else if (step == HY_CHIRP_SPECTRUM) c.axis = (hyfft_dim){m, 1, 1};
  else c.axis = (hyfft_dim){pass->chirp_n, 1, f->out_stride};
  for (int l = 0; l < pass->nloops; l++) {
    if (l == pass->fuse_loop) continue;
    /* PRE: source strides in, dense out (pass A's loops as they are);
     * SPECTRUM: dense both sides; POST: dense in, output strides out
     * (pass B's loops as they are). */
    hyfft_dim d = pass->loops[l];
    if (step == HY_CHIRP_SPECTRUM) d.in_stride = d.out_stride;
    c.loops[c.nloops++] = d;
  }
  if (step == HY_CHIRP_POST) c.scale = pass->scale;
  return c;
}

/* Whether hy_cpu_run_dft reads the source [s0, s1) from a copy: it
 * overlaps the destination [d0, d1) in another layout. hy_cpu_overlap_bytes:
 * that copy's bytes for a pass (0: none); a fused real step reads (C2R) or
 * writes (R2C) m + 1 elements along the axis of length m. */
static int hy_cpu_must_copy(const hy_pass *layout, const char *src, const char *dst,
                            const char *s0, const char *s1, const char *d0, const char *d1,
                            int may_overlap) {
  return may_overlap && s0 < d1 && d0 < s1 && !(src == dst && hy_cpu_same_layout(layout));
}

static size_t hy_cpu_overlap_bytes(const hy_pass *layout, const char *src, const char *dst) {
  const int64_t se = hy_cpu_side_elem(layout, 1), de = hy_cpu_side_elem(layout, 0);
  int64_t slo, shi, dlo, dhi;
  hy_cpu_extent(layout, 1, hy_cpu_side_extra(layout, 1), &slo, &shi);
  hy_cpu_extent(layout, 0, hy_cpu_side_extra(layout, 0), &dlo, &dhi);
  const char *s0 = src + slo * se, *s1 = src + (shi + 1) * se;
  const char *d0 = dst + dlo * de, *d1 = dst + (dhi + 1) * de;
  return hy_cpu_must_copy(layout, src, dst, s0, s1, d0, d1, 1) ? (size_t)(s1 - s0) : 0;
}

/* One DFT pass through its node: the loop order and the overlap check
 * from `layout`, the strides from `strides` (the same pass, or a fused
 * Bluestein pass with its dense side redirected to a scratch). */
/* Neighbouring loops (outermost first) that step as one, the outer one's
 * strides being the inner one's times its count on both sides, joined
 * into one loop: the same transforms in the same order, and the
 * back-to-back kernels (hy_direct_range) take a run of one loop only
 * (planes or batches of a multi-dimensional problem stored back to back
 * make their rows one run). */
static void hy_cpu_join_loops(hyfft_dim *loops, int *nloops) {
  for (int i = 0; i + 1 < *nloops;) {
    const hyfft_dim o = loops[i], in = loops[i + 1];
    if (o.in_stride == in.n * in.in_stride && o.out_stride == in.n * in.out_stride) {
      loops[i] = (hyfft_dim){o.n * in.n, in.in_stride, in.out_stride};
      for (int k = i + 1; k + 1 < *nloops; k++) loops[k] = loops[k + 1];
      (*nloops)--;
    } else {
      i++;
    }
  }
}

static hy_status hy_cpu_run_dft(const hy_cpu_node *node, const hy_pass *layout,
                                const hy_pass *strides, const char *src, char *dst,
                                int may_overlap, const double *real_tw) {
  const int64_t se = hy_cpu_side_elem(layout, 1), de = hy_cpu_side_elem(layout, 0);
  /* Every field but the loops past nloops, which nothing reads: clearing
   * the whole record costs more than a short transform. */
  hy_cpu_run run;
  run.src = run.dst = NULL;
  run.axis = strides->axis;
  run.scale = strides->scale;
  run.twiddle_loop = -1;
  run.real_step = HY_CPU_REAL_NONE;
  run.real_tw = NULL;
  if (hy_fuse_is_real(layout->fuse)) {
    run.real_step = layout->fuse == HY_FUSE_C2R_PRE ? HY_CPU_REAL_PRE : HY_CPU_REAL_POST;
    run.real_tw = real_tw;
  } else if (hy_fuse_is_real_odd(layout->fuse)) {
    run.real_step = layout->fuse == HY_FUSE_R2C_ODD ? HY_CPU_REAL_ODD_IN : HY_CPU_REAL_ODD_OUT;
  }
  /* Loops sorted by input stride, largest first, so that the lanes (the
   * innermost loop) are neighbouring transforms wherever possible. */
  int order[HY_MAX_LOOPS];
  for (int l = 0; l < layout->nloops; l++) {
    int j = l;
    while (j > 0 && llabs(layout->loops[order[j - 1]].in_stride) < llabs(layout->loops[l].in_stride)) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = l;
  }
  run.nloops = layout->nloops;
  for (int l = 0; l < layout->nloops; l++) {
    run.loops[l] = strides->loops[order[l]];
    if (order[l] == layout->twiddle_loop) run.twiddle_loop = l;
  }
  /* A four-step twiddle indexes its own loop: kept apart. */
  if (run.twiddle_loop < 0) hy_cpu_join_loops(run.loops, &run.nloops);
  /* Overlapping source and destination with different layouts: read
   * from a copy, since transforms would overwrite each other's input
   * (taken from the thread's scratch, which the execution reserved). */
  void *copy = NULL;
  size_t copy_bytes = 0;
  int64_t slo, shi, dlo, dhi;
  hy_cpu_extent(layout, 1, hy_cpu_side_extra(layout, 1), &slo, &shi);
  hy_cpu_extent(layout, 0, hy_cpu_side_extra(layout, 0), &dlo, &dhi);
  const char *s0 = src + slo * se, *s1 = src + (shi + 1) * se;
  const char *d0 = dst + dlo * de, *d1 = dst + (dhi + 1) * de;
  if (hy_cpu_must_copy(layout, src, dst, s0, s1, d0, d1, may_overlap)) {
    copy_bytes = (size_t)(s1 - s0);
    copy = hy_cpu_scratch_get(HY_SCRATCH_OVERLAP, copy_bytes);
    if (!copy)
      return hy_error(HYFFT_OUT_OF_MEMORY, "cpu backend: copy of an overlapping input (%zu bytes)",
                      copy_bytes);
    memcpy(copy, s0, copy_bytes);
    src = (const char *)copy - slo * se;
  }
  run.src = src;
  run.dst = dst;
  /* Non-temporal stores pay where the pass's data outgrow the L2 caches
   * of the threads running it (measured: docs/performance.md, "CPU:
   * non-temporal stores for large out-of-place passes"); in place the
   * lines are in cache already. HYFFT_CPU_STREAM=0/1 decides instead. */
  {
    const int setting = hy_settings_get()->cpu_stream;
    int64_t l2 = hy_cpu_l2_bytes();
    if (l2 <= 0) l2 = (int64_t)1 << 20;
    int64_t bytes = (int64_t)(s1 - s0) + (int64_t)(d1 - d0);
    run.stream_out = dst != src && !(d0 < s1 && s0 < d1) &&
                     (setting >= 0 ? setting : bytes >= 2 * l2 * hy_num_threads());
    run.stream_rows = run.stream_out && (setting >= 0 || bytes > hy_cpu_llc_cached());
  }
  hy_status st = layout->precision == HYFFT_F64 ? hy_cpu_node_run_f64(node, &run)
                                                : hy_cpu_node_run_f32(node, &run);
  hy_cpu_scratch_put(HY_SCRATCH_OVERLAP, copy, copy_bytes);
  return st;
}

/* One group of planes of a plane pass (the pass's loops are the group's
 * planes): B along the rows (src -> dst), then A along the columns in
 * place on dst, which also scales. */
static hy_status hy_cpu_run_planes(const hy_cpu_plan *plan, int i, const hy_pass *pass,
                                   const char *src, char *dst) {
  int64_t b = pass->plane_inner, a = pass->axis.n / b;
  int64_t is = pass->axis.in_stride, os = pass->axis.out_stride;
  if (pass->nloops + 1 > HY_MAX_LOOPS)
    return hy_error(HYFFT_INTERNAL, "cpu backend: plane pass %d has too many loops", i);
  hy_pass rows = *pass, cols = *pass;
  rows.plane_inner = cols.plane_inner = 0;
  rows.scale = 1.0;
  rows.axis = (hyfft_dim){b, is, os};
  rows.loops[rows.nloops++] = (hyfft_dim){a, b * is, b * os};
  cols.axis = (hyfft_dim){a, b * os, b * os};
  for (int l = 0; l < cols.nloops; l++) cols.loops[l].in_stride = cols.loops[l].out_stride;
  cols.loops[cols.nloops++] = (hyfft_dim){b, os, os};
  hy_status st = hy_cpu_run_dft(plan->nodes[i], &rows, &rows, src, dst, 1, NULL);
  if (st == HYFFT_SUCCESS)
    st = hy_cpu_run_dft(plan->plane_nodes[i], &cols, &cols, dst, dst, 1, NULL);
  return st;
}

/* A plane pass group by group: the planes of the loop of least input
 * stride (the innermost) are cut into groups whose input and output fit
 * a quarter of the L2 (one plane a group where a plane is larger; the
 * planner takes a plane pass only where one plane fits the whole L2),
 * each group's rows and columns run on one thread
 * while it is in that thread's L2, and the groups run in parallel. The
 * other loops' planes make separate lines of groups. A failed execution
 * writes no output: each thread first grows its scratch to what the two
 * axes' runs ask (hy_cpu_node_scratch), and only a thread that could
 * takes groups, so an allocation that fails does so before any group has
 * run; the groups then allocate nothing. */
typedef struct hy_plane_job {
  const hy_cpu_plan *plan;
  const hy_pass *pass;
  const char *src;
  char *dst;
  int i, inner;             /* the pass's index, the loop cut into groups */
  int64_t per, groups;      /* planes per group, groups per line */
  int64_t total;            /* groups over all lines */
  size_t elem, scratch;     /* element bytes; scratch slot 0 bytes a thread needs */
  int64_t next;             /* the next group to take (atomic) */
  int failed;
} hy_plane_job;

static void hy_cpu_plane_group(hy_plane_job *job, int64_t k) {
  const hy_pass *pass = job->pass;
  int64_t line = k / job->groups, first = (k % job->groups) * job->per;
  int64_t in_off = 0, out_off = 0;
  for (int l = pass->nloops - 1; l >= 0; l--) {
    if (l == job->inner) continue;
    int64_t idx = line % pass->loops[l].n;
    line /= pass->loops[l].n;
    in_off += idx * pass->loops[l].in_stride;
    out_off += idx * pass->loops[l].out_stride;
  }
  const hyfft_dim *g = &pass->loops[job->inner];
  in_off += first * g->in_stride;
  out_off += first * g->out_stride;
  hy_pass sub = *pass;
  sub.nloops = 1;
  sub.loops[0] = (hyfft_dim){g->n - first < job->per ? g->n - first : job->per, g->in_stride,
                             g->out_stride};
  hy_status st = hy_cpu_run_planes(job->plan, job->i, &sub, job->src + in_off * (int64_t)job->elem,
                                    job->dst + out_off * (int64_t)job->elem);
  if (st != HYFFT_SUCCESS) __atomic_store_n(&job->failed, (int)st, __ATOMIC_RELAXED);
}

static void hy_cpu_plane_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)begin, (void)end, (void)thread_index;
  hy_plane_job *job = arg;
  void *p = hy_cpu_scratch_get(HY_SCRATCH_LANES, job->scratch);
  if (!p) return;
  hy_cpu_scratch_put(HY_SCRATCH_LANES, p, job->scratch);
  for (;;) {
    int64_t k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
    if (k >= job->total || __atomic_load_n(&job->failed, __ATOMIC_RELAXED)) break;
    hy_cpu_plane_group(job, k);
  }
}

static hy_status hy_cpu_run_plane(const hy_cpu_plan *plan, int i, const hy_pass *pass,
                                  const char *src, char *dst) {
  /* Source and destination that overlap in different layouts: one group's
   * output could overwrite a later group's input, so the whole pass runs
   * as one group (hy_cpu_run_dft reads such a source from a copy). So do
   * axes whose nodes are not one gathered transform (their runs take
   * scratch beyond slot 0). */
  int64_t slo, shi, dlo, dhi, elem = pass->precision == HYFFT_F64 ? 16 : 8;
  hy_cpu_extent(pass, 1, 0, &slo, &shi);
  hy_cpu_extent(pass, 0, 0, &dlo, &dhi);
  const int clash = src + slo * elem < dst + (dhi + 1) * elem && dst + dlo * elem < src + (shi + 1) * elem &&
                    !(src == dst && hy_cpu_same_layout(pass));
  size_t (*need)(const hy_cpu_node *) =
      pass->precision == HYFFT_F64 ? hy_cpu_node_scratch_f64 : hy_cpu_node_scratch_f32;
  size_t rows = need(plan->nodes[i]), cols = need(plan->plane_nodes[i]);
  if (pass->nloops < 1 || clash || rows == 0 || cols == 0)
    return hy_cpu_run_planes(plan, i, pass, src, dst);
  hy_plane_job job;
  memset(&job, 0, sizeof job);
  job.plan = plan;
  job.pass = pass;
  job.src = src;
  job.dst = dst;
  job.i = i;
  job.elem = (size_t)elem;
  job.scratch = rows > cols ? rows : cols;
  for (int l = 1; l < pass->nloops; l++)
    if (llabs(pass->loops[l].in_stride) < llabs(pass->loops[job.inner].in_stride)) job.inner = l;
  int64_t lines = hy_pass_count(pass) / pass->loops[job.inner].n, n = pass->loops[job.inner].n;
  int64_t l2 = hy_cpu_l2_bytes(), plane = 2 * pass->axis.n * elem;
  if (l2 <= 0) l2 = (int64_t)1 << 20;
  job.per = l2 / 4 / plane > 1 ? l2 / 4 / plane : 1;
  /* Enough groups to keep every thread busy: two per thread, so each
   * line takes at least ceil(2 * threads / lines) groups where it can. */
  const int threads = hy_num_threads();
  int64_t per_line = (2 * (int64_t)threads + lines - 1) / lines;
  int64_t most = (n + per_line - 1) / per_line;
  if (most < job.per) job.per = most;
  job.groups = (n + job.per - 1) / job.per;
  job.total = lines * job.groups;
  /* One range per thread: each takes groups until none are left. */
  hy_parallel_for(threads < job.total ? threads : job.total, 1, hy_cpu_plane_range, &job);
  if (job.failed == (int)HYFFT_OUT_OF_MEMORY || (!job.failed && job.next < job.total))
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu backend: no scratch for plane pass %d", i);
  if (job.failed)
    return hy_error((hy_status)job.failed, "cpu backend: plane pass %d failed", i);
  return HYFFT_SUCCESS;
}

static hy_status hy_cpu_run_passes(const hy_cpu_plan *plan, const hy_plan_tree *tree,
                                   void *const buffers[HY_BUF_COUNT]) {
  for (int i = 0; i < tree->npasses; i++) {
    const hy_pass *pass = &tree->passes[i];
    size_t elem = pass->precision == HYFFT_F64 ? 16 : 8;
    if (!buffers[pass->src] || !buffers[pass->dst])
      return hy_error(HYFFT_INTERNAL, "cpu backend: pass %d uses a buffer that was not supplied", i);
    if (hy_cpu_op_is_real(pass->op)) {
      /* Offsets in reals at a real end: the op applies them itself. */
      hy_status rst = hy_cpu_op_real(pass, plan->tables[i], buffers[pass->src], buffers[pass->dst]);
      if (rst != HYFFT_SUCCESS) return rst;
      continue;
    }
    if (hy_cpu_op_is_r2r(pass->op)) {
      hy_status rst = hy_cpu_op_r2r(pass, plan->tables[i], buffers[pass->src], buffers[pass->dst]);
      if (rst != HYFFT_SUCCESS) return rst;
      continue;
    }
    const char *src = (const char *)buffers[pass->src] + pass->src_offset * hy_cpu_side_elem(pass, 1);
    char *dst = (char *)buffers[pass->dst] + pass->dst_offset * hy_cpu_side_elem(pass, 0);
    if (pass->op == HY_PASS_TWIDDLE) {
      int64_t base = 0;
      if (pass->aux_offset >= 0) {
        if (!buffers[HY_BUF_IN])
          return hy_error(HYFFT_INTERNAL, "cpu backend: twiddle pass %d without its input", i);
        memcpy(&base, (const char *)buffers[HY_BUF_IN] + pass->aux_offset * (int64_t)elem,
               sizeof base);
      }
      hy_status tst = hy_cpu_op_twiddle(pass, src, dst, base);
      if (tst != HYFFT_SUCCESS) return tst;
      continue;
    }
    if (pass->op == HY_PASS_CHIRP) {
      hy_status cst = hy_cpu_op_chirp(pass, src, dst);
      if (cst != HYFFT_SUCCESS) return cst;
      continue;
    }
    if (pass->plane_inner > 0) {
      hy_status pst = hy_cpu_run_plane(plan, i, pass, src, dst);
      if (pst != HYFFT_SUCCESS) return pst;
      continue;
    }
    /* Fused Bluestein steps run as the pointwise passes they stand for:
     * the input chirp into a dense scratch that the DFT then reads, the
     * output chirp from a dense scratch the DFT writes. Other passes run
     * with their own strides (no copy of the pass on the way). */
    hy_pass fused;
    const hy_pass *strides = pass;
    void *scratch = NULL;
    size_t scratch_bytes = 0;
    if (pass->fuse == HY_FUSE_CHIRP_IN || pass->fuse == HY_FUSE_CHIRP_OUT) {
      fused = *pass;
      strides = &fused;
      scratch_bytes = hy_cpu_chirp_scratch_bytes(pass);
      scratch = hy_cpu_scratch_get(HY_SCRATCH_CHIRP, scratch_bytes);
      if (!scratch) return hy_error(HYFFT_OUT_OF_MEMORY, "cpu backend: Bluestein scratch");
      memset(scratch, 0, scratch_bytes);
      /* Dense scratch: the transforms' outer loops at the strides of the
       * pass's dense side (its output for pass A, its input for pass B). */
      if (pass->fuse == HY_FUSE_CHIRP_IN) {
        hy_pass pre = hy_cpu_fused_chirp(pass, HY_CHIRP_PRE);
        hy_status cst = hy_cpu_op_chirp(&pre, src, scratch);
        if (cst != HYFFT_SUCCESS) {
          hy_cpu_scratch_put(HY_SCRATCH_CHIRP, scratch, scratch_bytes);
          return cst;
        }
        fused.axis.in_stride = pass->axis.out_stride;
        for (int l = 0; l < fused.nloops; l++) fused.loops[l].in_stride = fused.loops[l].out_stride;
        src = scratch;
      } else {
        fused.axis.out_stride = pass->fuse_split;
        for (int l = 0; l < fused.nloops; l++)
          fused.loops[l].out_stride = l == pass->fuse_loop ? 1 : fused.loops[l].in_stride;
        fused.scale = 1.0;
      }
    }
    hy_status st = hy_cpu_run_dft(plan->nodes[i], pass, strides, src,
                                  pass->fuse == HY_FUSE_CHIRP_OUT ? scratch : dst, !scratch,
                                  plan->tables[i]);
    if (st == HYFFT_SUCCESS && pass->fuse == HY_FUSE_SPECTRUM_OUT) {
      hy_pass spec = hy_cpu_fused_chirp(pass, HY_CHIRP_SPECTRUM);
      st = hy_cpu_op_chirp(&spec, dst, dst);
    }
    if (st == HYFFT_SUCCESS && pass->fuse == HY_FUSE_CHIRP_OUT) {
      hy_pass post = hy_cpu_fused_chirp(pass, HY_CHIRP_POST);
      st = hy_cpu_op_chirp(&post, scratch, dst);
    }
    hy_cpu_scratch_put(HY_SCRATCH_CHIRP, scratch, scratch_bytes);
    if (st != HYFFT_SUCCESS) return st;
  }
  return HYFFT_SUCCESS;
}

/* Everything the calling thread asks during the passes, taken before the
 * first one writes: each pass's nodes' scratch slots (sub-nodes
 * included), the copy of an overlapping source, a fused Bluestein pass's
 * dense side. A failure here leaves the output as it was; after it the
 * calling thread's requests allocate nothing. *trim: a slot was grown
 * past what a thread keeps. */
static hy_status hy_cpu_reserve(const hy_cpu_plan *plan, const hy_plan_tree *tree,
                                void *const buffers[HY_BUF_COUNT], int *trim) {
  size_t bytes[HY_CPU_SCRATCH_SLOTS];
  memcpy(bytes, plan->reserve, sizeof bytes);
  for (int i = 0; i < tree->npasses; i++) {
    const hy_pass *pass = &tree->passes[i];
    if (pass->op != HY_PASS_DFT || !buffers[pass->src] || !buffers[pass->dst] ||
        pass->fuse == HY_FUSE_CHIRP_IN || pass->fuse == HY_FUSE_CHIRP_OUT)
      continue;
    /* Only a pass within one buffer (the caller's two passed as one
     * included) can overlap, and not in its own layout. */
    if (buffers[pass->src] != buffers[pass->dst]) continue;
    const char *src = (const char *)buffers[pass->src] + pass->src_offset * hy_cpu_side_elem(pass, 1);
    const char *dst = (const char *)buffers[pass->dst] + pass->dst_offset * hy_cpu_side_elem(pass, 0);
    if (src == dst && hy_cpu_same_layout(pass)) continue;
    size_t b = hy_cpu_overlap_bytes(pass, src, dst);
    if (b > bytes[HY_SCRATCH_OVERLAP]) bytes[HY_SCRATCH_OVERLAP] = b;
  }
  /* The plan's own sizes have a key; an overlapping source's copy,
   * known only now, makes this reservation one of its own. */
  int overlap = bytes[HY_SCRATCH_OVERLAP] > plan->reserve[HY_SCRATCH_OVERLAP];
  int held = hy_cpu_scratch_reserve(overlap ? 0 : plan->reserve_key, bytes);
  if (held < 0)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu backend: no thread storage for scratch");
  if (held < HY_CPU_SCRATCH_SLOTS)
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu backend: scratch slot %d of %zu bytes", held,
                    bytes[held]);
  for (int slot = 0; slot < HY_CPU_SCRATCH_SLOTS; slot++)
    if (bytes[slot] > HY_CPU_SCRATCH_KEEP) *trim = 1;
  return HYFFT_SUCCESS;
}

/* Whether a helper thread may join a loop of a multi-pass execution of
 * `data` (the plan): it reserves the plan's per-thread scratch on its own
 * thread first, the slots a thread keeps (up to HY_CPU_SCRATCH_KEEP; a
 * larger one it still takes per request). A helper that cannot leaves
 * its share to the others and to the calling thread, whose scratch is
 * reserved (hy_parallel_ready_set). */
static int hy_cpu_helper_ready(const void *data) {
  const hy_cpu_plan *plan = data;
  size_t bytes[HY_CPU_SCRATCH_SLOTS];
  for (int slot = 0; slot < HY_CPU_SCRATCH_SLOTS; slot++)
    bytes[slot] = plan->reserve[slot] <= HY_CPU_SCRATCH_KEEP ? plan->reserve[slot] : 0;
  if (hy_cpu_scratch_reserve(0, bytes) == HY_CPU_SCRATCH_SLOTS) return 1;
  hy_error_clear();
  return 0;
}

/* The passes in order. Helpers join their loops only once they hold the
 * plan's scratch (hy_cpu_helper_ready). With more than one pass, the
 * calling thread's scratch is reserved first too (a later pass must not
 * fail for memory after an earlier one wrote the output), and slots grown
 * past what a thread keeps are freed after; a single pass's calling thread
 * takes its scratch in its first part of the range. */
static hy_status hy_cpu_run_tree(const hy_cpu_plan *plan, const hy_plan_tree *tree,
                                 void *const buffers[HY_BUF_COUNT]) {
  int trim = 0;
  hy_status st = tree->npasses <= 1 ? HYFFT_SUCCESS : hy_cpu_reserve(plan, tree, buffers, &trim);
  if (st == HYFFT_SUCCESS) {
    hy_parallel_ready old = hy_parallel_ready_set((hy_parallel_ready){hy_cpu_helper_ready, plan});
    st = hy_cpu_run_passes(plan, tree, buffers);
    hy_parallel_ready_set(old);
  }
  if (trim) hy_cpu_scratch_trim();
  return st;
}

/* [lo, hi + 1): the range of reals of one side of the half-precision
 * problem's layout (output = 0: input). */
static void hy_cpu_half_range(const hy_cpu_plan *plan, int output, int64_t *lo, int64_t *end) {
  int64_t a = 0, b = 0;
  for (int d = 0; d < plan->ndims; d++) {
    int64_t s = output ? plan->dims[d].out_stride : plan->dims[d].in_stride;
    int64_t span = (plan->side_n[output][d] - 1) * s;
    if (span > 0) b += span;
    else a += span;
  }
  *lo = a * plan->width[output];
  *end = (b + 1) * plan->width[output];
}

/* Convert every element of one side of the layout between the caller's
 * halves (`half`; real r of element o at half + w*o + r, w its reals per
 * element) and f32 (`wide`, at the same index): to f32 (narrow = 0) or
 * back. Only the layout's elements are touched, so gaps in a strided
 * output keep what they hold. The innermost loop runs along the dim of
 * the smallest stride. */
static void hy_cpu_half_convert(const hy_cpu_plan *plan, int output, int narrow, uint16_t *half,
                                float *wide) {
  int nd = plan->ndims, inner = -1, w = plan->width[output];
  int64_t n[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK], s[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  for (int d = 0; d < nd; d++) {
    n[d] = plan->side_n[output][d];
    s[d] = output ? plan->dims[d].out_stride : plan->dims[d].in_stride;
    if (inner < 0 || llabs(s[d]) < llabs(s[inner])) inner = d;
  }
  int64_t run = inner >= 0 ? n[inner] : 1, rs = inner >= 0 ? s[inner] : 1;
  int64_t idx[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK] = {0};
  for (;;) {
    int64_t o = 0;
    for (int d = 0; d < nd; d++)
      if (d != inner) o += idx[d] * s[d];
    if (rs == 1) {
      if (narrow) hy_half_narrow(plan->storage, wide + w * o, half + w * o, w * run);
      else hy_half_widen(plan->storage, half + w * o, wide + w * o, w * run);
    } else {
      for (int64_t i = 0; i < run; i++, o += rs) {
        if (narrow) hy_half_narrow(plan->storage, wide + w * o, half + w * o, w);
        else hy_half_widen(plan->storage, half + w * o, wide + w * o, w);
      }
    }
    int d = nd - 1;
    for (; d >= 0; d--) {
      if (d == inner) continue;
      if (++idx[d] < n[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

/* Half-precision storage: the input is widened into an f32 copy, the f32
 * tree runs from that copy into an f32 output (the same copy in place,
 * covering both sides' reals), and the output is rounded back into the
 * caller's buffer. Every pass, its work buffers included, computes and
 * keeps f32, so the data are rounded to the storage format once, at the
 * end. The copies belong to one execution (a plan may run on several
 * threads at once). */
static hy_status hy_cpu_execute_half(const hy_cpu_plan *plan, const hy_plan_tree *tree,
                                     void *const buffers[HY_BUF_COUNT]) {
  int64_t ilo, iend, olo, oend;
  hy_cpu_half_range(plan, 0, &ilo, &iend);
  hy_cpu_half_range(plan, 1, &olo, &oend);
  if (!buffers[HY_BUF_IN] || !buffers[HY_BUF_OUT])
    return hy_error(HYFFT_INTERNAL, "cpu backend: half-precision data buffers not supplied");
  if (plan->inplace) {
    if (olo < ilo) ilo = olo;
    if (oend > iend) iend = oend;
  }
  size_t in_bytes = (size_t)(iend - ilo) * 4, out_bytes = (size_t)(oend - olo) * 4;
  float *win = hy_malloc(in_bytes);
  float *wout = plan->inplace ? win : hy_malloc(out_bytes);
  if (!win || !wout) {
    if (wout != win) hy_free(wout);
    hy_free(win);
    return hy_error(HYFFT_OUT_OF_MEMORY, "cpu backend: f32 copies of half-precision data (%zu bytes)",
                    plan->inplace ? in_bytes : in_bytes + out_bytes);
  }
  float *in0 = win - ilo, *out0 = plan->inplace ? in0 : wout - olo;
  hy_cpu_half_convert(plan, 0, 0, buffers[HY_BUF_IN], in0);
  void *wide[HY_BUF_COUNT] = {in0, out0, buffers[HY_BUF_WORK0], buffers[HY_BUF_WORK1]};
  hy_status st = hy_cpu_run_tree(plan, tree, wide);
  if (st == HYFFT_SUCCESS) hy_cpu_half_convert(plan, 1, 1, buffers[HY_BUF_OUT], out0);
  if (wout != win) hy_free(wout);
  hy_free(win);
  return st;
}

static hy_status hy_cpu_execute(void *device, const void *plan_state, const hy_plan_tree *tree,
                                void *const buffers[HY_BUF_COUNT], void *queue) {
  (void)device, (void)queue;
  const hy_cpu_plan *plan = plan_state;
  if (hy_precision_is_half(plan->storage)) return hy_cpu_execute_half(plan, tree, buffers);
  return hy_cpu_run_tree(plan, tree, buffers);
}

const hy_backend hy_backend_cpu = {
    .id = HYFFT_BACKEND_CPU,
    .name = "cpu",
    .device_count = hy_cpu_device_count,
    .device_info = hy_cpu_device_info,
    .open = hy_cpu_open,
    .close = hy_cpu_close,
    .caps = hy_cpu_caps,
    .alloc = hy_cpu_alloc,
    .release = hy_cpu_release,
    .write = hy_cpu_write,
    .read = hy_cpu_read,
    .synchronize = hy_cpu_synchronize,
    .plan_prepare = hy_cpu_plan_prepare,
    .plan_release = hy_cpu_plan_release,
    .plan_source = hy_cpu_plan_source,
    .execute = hy_cpu_execute,
    .peer_access = hy_cpu_peer_access,
    .copy_peer = hy_cpu_copy_peer,
};
