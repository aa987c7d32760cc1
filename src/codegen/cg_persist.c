/* A persistent kernel for plans of two to four passes in a chain: all
 * passes of a batched four-step (or two-axis, or fused Rader / Bluestein)
 * plan in one launch, so that each pass reads what the one before wrote
 * while it is still in L2 (DESIGN: keep multi-pass intermediates in L2).
 * The two-pass case is described first; longer chains follow below.
 *
 * Launching pass 1 over chunks of the batch and then pass 2 (codegen.c's
 * L2 chunks) leaves SMs idle at the tail of every launch. Here the
 * blocks stay resident and take tickets from a counter, in an order that
 * interleaves the passes element by element of the outermost batch loop:
 *
 *   A(0) .. A(L-1), then for e = L ..: A(e), B(e - L), then the last B,
 *
 * where A(e) are the blocks of pass 1 over element e and B(e) those of
 * pass 2, L elements behind (the lag). B(e) first waits until every block
 * of A(e) has counted itself done. When pass 1 writes a work buffer, the
 * elements go to a ring of R slots of it (R > L) instead of one slot
 * each: a slot is rewritten while its lines are still in L2, so L2 never
 * writes the intermediate back to DRAM, and A(e) waits until B(e - R) has
 * read its slot. Every wait is on tickets taken earlier, by blocks that are
 * running and wait only on tickets earlier still, so the earliest
 * unfinished ticket always makes progress: no deadlock, however few blocks
 * are resident and however the device schedules them.
 *
 * Counters live in the plan's workspace (hy_plan_tree.sync_offset): a
 * clearing kernel zeroes them before every run. In the first pass the
 * input is read with streaming hints (CUDA __ldcs), in the second the
 * intermediate past L1 (__ldcg: L1 is not coherent between SMs) and the
 * output stored streaming (__stcs), so that the input and output pass
 * through L2 without evicting the ring.
 *
 * On by default for CUDA plans whose elements' intermediates take at most
 * 2 MB, where it measured faster (hy_cg_persist_shape_of); the switch
 * persist=1 or persist=0 in $HYFFT_KERNEL_SPEC or the plan's variant asks
 * for it or keeps it out, ring=R and lag=L set the ring and the lag, and
 * hints=0 reads and writes the input and output without cache hints. A
 * plan that does not qualify keeps its two launches.
 *
 * Chains of three or four passes (k passes) take tickets in rounds: round
 * r holds pass 0 over element r, pass 1 over r - L, .., pass k-1 over
 * r - (k-1) L (those that exist). Every intermediate region (the fused
 * convolutions have two: WORK1, which passes 0-3 go through, and WORK0,
 * passes 1-2) gets a ring of (span + 1) L slots; the pass that starts a
 * slot waits for the last pass over the element that held it, which ran
 * at least one lag earlier, and every pass after the first waits for the
 * one before over its element. The regions' rings are laid out from the
 * start of WORK0, then fused Rader's stash, then the counters. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "util/half.h"
#include "planner/kernel_model.h"

/* The pass over one element of the outermost batch loop: loops[0] gone
 * and its buffers' offsets (the persistent kernel passes each pass
 * pointers to the element's data instead). Fused Rader's stash is passed
 * per element too, so its slots start at 0. */
static void hy_cg_element_pass(const hy_pass *pass, hy_pass *out) {
  *out = *pass;
  memmove(out->loops, out->loops + 1, (size_t)(pass->nloops - 1) * sizeof out->loops[0]);
  out->nloops--;
  if (out->twiddle_loop > 0) out->twiddle_loop--;
  if (out->fuse_loop > 0) out->fuse_loop--;
  out->src_offset = out->dst_offset = out->aux_offset = 0;
}

/* Elements a pass touches from an element's start on its input (side 0)
 * or output (side 1) side: the last offset plus one. */
static int64_t hy_cg_element_extent(const hy_pass *elem, int side) {
  int64_t s = side ? elem->axis.out_stride : elem->axis.in_stride;
  int64_t last = (elem->axis.n - 1) * (s < 0 ? -s : s);
  for (int l = 0; l < elem->nloops; l++) {
    int64_t ls = side ? elem->loops[l].out_stride : elem->loops[l].in_stride;
    last += (elem->loops[l].n - 1) * (ls < 0 ? -ls : ls);
  }
  return last + 1;
}

/* Fused Rader's stash slots per element: the transforms over the loops
 * other than the fused step's (hy_cg_emit_stash_index). */
static int64_t hy_cg_element_stash(const hy_pass *elem) {
  int64_t count = 1;
  for (int l = 0; l < elem->nloops; l++)
    if (l != elem->fuse_loop) count *= elem->loops[l].n;
  return count;
}

static int hy_cg_pass_rader_fused(const hy_pass *p) { return hy_fuse_is_rader(p->fuse); }

static const char *hy_cg_buffer_name(int b) {
  static const char *const names[HY_BUF_COUNT] = {"hy_in", "hy_out", "hy_work0", "hy_work1"};
  return names[b];
}

/* The CUDA accessors the pass functions read and write through: the
 * input and output streamed (or plain loads and stores without hints), the
 * intermediate read through L2 only. */
static void hy_cg_persist_accessors(hy_strbuf *sb, int hints) {
  hy_strbuf_appendf(
      sb,
      "struct hy_ld_stream {\n"
      "  const real2 *p;\n"
      "  __device__ __forceinline__ real2 operator[](hy_i64 i) const { return %s; }\n"
      "};\n"
      "struct hy_ld_l2 {\n"
      "  const real2 *p;\n"
      "  __device__ __forceinline__ real2 operator[](hy_i64 i) const { return __ldcg(p + i); }\n"
      "};\n"
      "struct hy_st_ref {\n"
      "  real2 *p;\n"
      "  __device__ __forceinline__ void operator=(real2 v) const { %s; }\n"
      "};\n"
      "struct hy_st_stream {\n"
      "  real2 *p;\n"
      "  __device__ __forceinline__ hy_st_ref operator[](hy_i64 i) const {\n"
      "    hy_st_ref r = {p + i};\n"
      "    return r;\n"
      "  }\n"
      "};\n",
      hints ? "__ldcs(p + i)" : "p[i]", hints ? "__stcs(p, v)" : "*p = v");
}


/* Statements: wait until counter wi reaches wn (or wi1 wn1 and then wi2
 * wn2, `two`): one thread polls, then the block goes on together; a wait
 * for 0 passes at once. */
static void hy_cg_persist_wait(hy_strbuf *sb, hy_dialect d, int two) {
  hy_strbuf_append(sb, "    if (HY_LID == 0) {\n");
  for (int w = 0; w < 1 + two; w++) {
    const char *wi = two ? (w ? "wi2" : "wi1") : "wi";
    const char *wn = two ? (w ? "wn2" : "wn1") : "wn";
    if (d == HY_DIALECT_CUDA)
      hy_strbuf_appendf(sb, "      while (*(volatile int *)(hy_ctr + %s) < %s) {\n"
                            "#if __CUDA_ARCH__ >= 700\n"
                            "        __nanosleep(64);\n"
                            "#endif\n"
                            "      }\n", wi, wn);
    else
      hy_strbuf_appendf(sb, "      while (hy_ctr[%s] < %s) {}\n", wi, wn);
  }
  if (d == HY_DIALECT_CUDA)
    hy_strbuf_append(sb, "      __threadfence();\n    }\n    HY_BARRIER();\n");
  else
    hy_strbuf_append(sb, "      mem_fence(CLK_GLOBAL_MEM_FENCE);\n    }\n"
                         "    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n");
}

/* Statements: every thread's writes made visible, then one count. */
static void hy_cg_persist_signal(hy_strbuf *sb, hy_dialect d) {
  if (d == HY_DIALECT_CUDA)
    hy_strbuf_append(sb, "    __threadfence();\n"
                         "    HY_BARRIER();\n"
                         "    if (HY_LID == 0) atomicAdd(hy_ctr + si, 1);\n");
  else
    hy_strbuf_append(sb, "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
                         "    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
                         "    if (HY_LID == 0) atomic_add(hy_ctr + si, 1);\n");
}

#define HY_PERSIST_MAX_PASSES 4

/* An intermediate of the chain: what pass i writes and pass i + 1 reads
 * (one region may hold several: the fused convolutions' WORK1 holds the
 * first and the third). */
typedef struct hy_cg_persist_region {
  hy_buffer buf;
  int64_t offset;  /* where the plain program has it */
  int64_t slot;    /* elements from one batch element's data to the next's */
  int64_t extent;  /* elements one batch element's data spans, from its start */
  int first, last; /* the first pass that writes it, the last that touches it */
  int64_t ring;    /* slots of it (== batch: one per element, no ring) */
  int64_t base;    /* where the persistent kernel has it */
} hy_cg_persist_region;

/* What a qualifying plan looks like to the persistent kernel. */
typedef struct hy_cg_persist_shape {
  int npasses;
  hy_pass full[HY_PERSIST_MAX_PASSES]; /* the passes as the plain program has them */
  hy_pass elem[HY_PERSIST_MAX_PASSES]; /* the same over one element of the batch */
  int dst_region[HY_PERSIST_MAX_PASSES]; /* the region pass i writes (i < npasses - 1) */
  int nregions;
  hy_cg_persist_region region[HY_PERSIST_MAX_PASSES];
  int relocate;      /* the work regions move to the start of WORK0, as rings */
  int64_t batch;     /* elements of the outermost batch loop */
  int64_t blocks[HY_PERSIST_MAX_PASSES]; /* blocks of each pass per element */
  int64_t tickets;   /* batch * the sum of blocks[] */
  int block;         /* threads per block, the same for every pass */
  int64_t lag;       /* elements pass i + 1 runs behind pass i */
  int use_ring;      /* some region has fewer slots than elements */
  int64_t slot_bytes; /* the largest ring slot */
  int64_t stash;     /* fused Rader: stash slots per element (two elements each); 0: none */
  int64_t stash_base;
  int64_t ctr_at;    /* the counters: complex element of WORK0 */
  int64_t used;      /* elements of WORK0 the kernel touches (0: as the plan has it) */
} hy_cg_persist_shape;

/* Lays out the regions (rings first, at the start of WORK0 where they
 * qualify), the stash and the counters; returns 0 when they do not fit
 * the plan's workspace. */
static int hy_cg_persist_layout(const hy_plan_tree *tree, hy_cg_persist_shape *sh,
                                int64_t esize) {
  int64_t nctr = 1 + (int64_t)sh->npasses * sh->batch;
  int64_t ctr_elems = (nctr * 4 + esize - 1) / esize;
  if (!sh->relocate) {
    for (int x = 0; x < sh->nregions; x++) sh->region[x].base = sh->region[x].offset;
    sh->ctr_at = tree->sync_offset;
    sh->used = 0;
    return 1;
  }
  int64_t at = 0;
  for (int x = 0; x < sh->nregions; x++) {
    hy_cg_persist_region *r = &sh->region[x];
    if (r->buf != HY_BUF_WORK0 && r->buf != HY_BUF_WORK1) {
      r->base = r->offset;
      continue;
    }
    r->base = at;
    at += r->ring * r->slot;
  }
  if (sh->stash > 0) {
    sh->stash_base = at;
    at += 2 * sh->stash * sh->batch;
  }
  sh->ctr_at = at;
  sh->used = at + ctr_elems;
  return sh->used <= tree->work_elems[0];
}

/* Whether the plain program qualifies: a chain of 2 to 4 DFT passes, each
 * launched over whole elements of the batch in element order, pass i + 1
 * reading what pass i wrote, room for the counters; then the regions, the
 * lag and the rings (sized below, or as $HYFFT_KERNEL_SPEC / the variant
 * names them). */
static int hy_cg_persist_shape_of(const hy_problem *problem, const hy_plan_tree *tree,
                                  const hy_device_caps *caps, const hy_gpu_program *plain,
                                  const hy_kernel_spec *req, hy_cg_persist_shape *sh) {
  memset(sh, 0, sizeof *sh);
  int k = tree->npasses;
  if (req->persist == 0 || k < 2 || k > HY_PERSIST_MAX_PASSES || plain->nlaunches != k ||
      plain->nkernels != k)
    return 0;
  sh->npasses = k;
  sh->batch = problem->batch_rank > 0 ? problem->batch[0].n : 0;
  if (sh->batch < 2 || tree->sync_ints < 1 + k * sh->batch || tree->work_elems[1] != 0) return 0;
  int64_t esize = problem->precision == HYFFT_F64 ? 16 : 8;
  int64_t stash_at = -1;
  for (int i = 0; i < k; i++) {
    const hy_launch *l = &plain->launches[i];
    sh->full[i] = tree->passes[i];
    const hy_pass *p = &sh->full[i];
    if (p->op != HY_PASS_DFT || p->algo != HY_ALGO_MIXED_RADIX || p->twiddle_loop == 0 ||
        hy_fuse_is_real(p->fuse) || hy_fuse_is_real_odd(p->fuse) || p->fuse == HY_FUSE_R2R ||
        p->real_end ||
        p->fuse_loop == 0 || p->nloops < 1 || p->loops[0].n != sh->batch)
      return 0;
    if (l->batch_blocks <= 0 || l->block_offset != 0 || l->grid != l->batch_blocks * sh->batch)
      return 0;
    hy_cg_element_pass(p, &sh->elem[i]);
    if (hy_cg_pass_rader_fused(p)) {
      int64_t per = hy_cg_element_stash(&sh->elem[i]);
      if ((stash_at >= 0 && (stash_at != p->aux_offset || per != sh->stash)) || p->aux_offset < 0)
        return 0;
      stash_at = p->aux_offset;
      sh->stash = per;
    }
    if (i == 0) continue;
    const hy_pass *a = &sh->full[i - 1];
    if (a->dst != p->src || a->dst_offset != p->src_offset ||
        a->loops[0].out_stride != p->loops[0].in_stride)
      return 0;
  }
  if (sh->full[0].src == HY_BUF_WORK0 || sh->full[0].src == HY_BUF_WORK1 ||
      sh->full[k - 1].dst == HY_BUF_WORK0 || sh->full[k - 1].dst == HY_BUF_WORK1)
    return 0;
  int64_t tickets = 0;
  for (int i = 0; i < k; i++) tickets += plain->launches[i].batch_blocks;
  if (tickets * sh->batch > INT32_MAX / 4) return 0;

  /* The intermediates, merged by place. */
  sh->relocate = 1;
  for (int i = 0; i + 1 < k; i++) {
    const hy_pass *a = &sh->full[i];
    int x = 0;
    while (x < sh->nregions && !(sh->region[x].buf == a->dst && sh->region[x].offset == a->dst_offset))
      x++;
    int64_t slot = a->loops[0].out_stride;
    int64_t extent = hy_cg_element_extent(&sh->elem[i], 1);
    int64_t read = hy_cg_element_extent(&sh->elem[i + 1], 0);
    if (read > extent) extent = read;
    if (x == sh->nregions) {
      sh->nregions++;
      sh->region[x] = (hy_cg_persist_region){a->dst, a->dst_offset, slot, extent, i, i + 1, 0, 0};
    } else if (sh->region[x].slot != slot) {
      return 0;
    }
    hy_cg_persist_region *r = &sh->region[x];
    if (extent > r->extent) r->extent = extent;
    r->last = i + 1;
    sh->dst_region[i] = x;
    int work = a->dst == HY_BUF_WORK0 || a->dst == HY_BUF_WORK1;
    if (work && (slot <= 0 || r->extent > slot)) sh->relocate = 0;
  }
  for (int i = 0; i + 1 < k && sh->relocate; i++)
    for (int side = 0; side < 2; side++) {
      const hy_pass *e = &sh->elem[i + side];
      if ((side ? e->axis.in_stride : e->axis.out_stride) < 0) sh->relocate = 0;
      for (int l = 0; l < e->nloops; l++)
        if ((side ? e->loops[l].in_stride : e->loops[l].out_stride) < 0) sh->relocate = 0;
    }

  /* The lag and the rings: region x of span s (its last pass less its
   * first) gets (s + 1) * lag slots, so that its first pass over element
   * e waits only on the last pass over e - ring, which ran s + 1 lags
   * earlier. The rings together take half of L2 for two passes and three
   * quarters for longer chains, whose lag measured best there (on the
   * H100, see docs/notes-from-src.md). */
  int64_t budget = caps->l2_cache > 0 ? caps->l2_cache / 2 : (int64_t)16 << 20;
  if (k > 2) budget = budget * 3 / 2;
  int64_t weight = 0, span_max = 1;
  for (int x = 0; x < sh->nregions; x++) {
    const hy_cg_persist_region *r = &sh->region[x];
    int64_t span = r->last - r->first;
    if (span > span_max) span_max = span;
    if (sh->relocate && (r->buf == HY_BUF_WORK0 || r->buf == HY_BUF_WORK1))
      weight += (span + 1) * r->slot * esize;
  }
  if (req->persist_lag > 0) sh->lag = req->persist_lag;
  else if (req->persist_ring > 0) sh->lag = req->persist_ring / (span_max + 1);
  else if (weight > 0) sh->lag = budget / weight;
  else sh->lag = budget / (2 * (sh->region[0].slot > 0 ? sh->region[0].slot : 1) * esize);
  if (sh->lag < 1) sh->lag = 1;
  if (sh->lag > sh->batch) sh->lag = sh->batch;
  for (int x = 0; x < sh->nregions; x++) {
    hy_cg_persist_region *r = &sh->region[x];
    int64_t span = r->last - r->first;
    r->ring = sh->batch;
    if (!sh->relocate || (r->buf != HY_BUF_WORK0 && r->buf != HY_BUF_WORK1)) continue;
    int64_t ring = (span + 1) * sh->lag;
    /* A lone ring takes the whole budget. */
    if (sh->nregions == 1 && budget / (r->slot * esize) > ring) ring = budget / (r->slot * esize);
    if (req->persist_ring > 0) ring = req->persist_ring > span * sh->lag ? req->persist_ring
                                                                         : span * sh->lag + 1;
    if (ring < sh->batch) {
      r->ring = ring;
      sh->use_ring = 1;
      if (r->slot * esize > sh->slot_bytes) sh->slot_bytes = r->slot * esize;
    }
  }
  if (stash_at >= 0) sh->stash_base = stash_at;
  if (!hy_cg_persist_layout(tree, sh, esize)) return 0;
  /* By default where the planner's rule says it pays ($HYFFT_L2_CHUNK
   * already turned the default off there, kernel_model.c). */
  if (req->persist < 0) return hy_persist_pays(caps, sh->use_ring, sh->slot_bytes);
  return 1;
}

/* Kernel 0: zero the nctr counters at byte offset off of WORK0. */
static void hy_cg_persist_clear(hy_strbuf *sb, hy_dialect d, const char *name, int64_t nctr,
                                int64_t off) {
  const char *g = hy_cg_global(d);
  hy_strbuf_append(sb, "/* the persistent kernel's counters, zeroed before every run */\n");
  hy_cg_kernel_open(sb, d, name, 256, 0);
  hy_strbuf_appendf(sb, "%sreal2 *sync, const hy_i64 hy_block0) {\n", g);
  hy_cg_emit_block_index(sb, 0);
  hy_strbuf_append(sb, "  const hy_i64 i = HY_GID * 256 + HY_LID;\n");
  hy_strbuf_appendf(sb, "  if (i < %lld) ((%sint *)((%schar *)sync + %lld))[i] = 0;\n}\n\n",
                    (long long)nctr, g, g, (long long)off);
}

/* Tickets in round r: the blocks of every pass i whose element r - i * lag
 * is one of the batch's. */
static int64_t hy_cg_persist_round_size(const hy_cg_persist_shape *sh, int64_t r) {
  int64_t size = 0;
  for (int i = 0; i < sh->npasses; i++) {
    int64_t e = r - i * sh->lag;
    if (e >= 0 && e < sh->batch) size += sh->blocks[i];
  }
  return size;
}

/* An expression: blocks of pass `ph` (a variable of the kernel). */
static void hy_cg_persist_blocks_of(hy_strbuf *sb, const hy_cg_persist_shape *sh, const char *ph) {
  hy_strbuf_append(sb, "(");
  for (int i = 0; i + 1 < sh->npasses; i++)
    hy_strbuf_appendf(sb, "%s == %d ? %lld : ", ph, i, (long long)sh->blocks[i]);
  hy_strbuf_appendf(sb, "%lld)", (long long)sh->blocks[sh->npasses - 1]);
}

/* Statements: ticket tk -> pass ph, element e, block j of the element.
 * Tickets come in rounds r = 0, 1, ..: round r holds pass 0 over element
 * r, pass 1 over r - lag, pass 2 over r - 2 lag .. (those that exist), in
 * that order. The rounds where every pass has an element have one size
 * and are found by a division; the first and last few by a loop. */
static void hy_cg_persist_decode(hy_strbuf *sb, const hy_cg_persist_shape *sh) {
  int k = sh->npasses;
  long long lag = sh->lag, batch = sh->batch;
  long long ramp = (long long)(k - 1) * lag, nfull = batch - ramp, full = 0, head = 0;
  for (int i = 0; i < k; i++) full += sh->blocks[i];
  for (long long r = 0; r < ramp && nfull > 0; r++) head += hy_cg_persist_round_size(sh, r);
  hy_strbuf_append(sb, "    int r = 0, o = tk;\n");
  if (nfull > 0) {
    hy_strbuf_appendf(sb,
                      "    if (tk >= %lld && tk < %lld) {\n"
                      "      r = %lld + (tk - %lld) / %lld; o = (tk - %lld) %% %lld;\n"
                      "    } else {\n"
                      "      if (tk >= %lld) { r = %lld; o = tk - %lld; }\n",
                      head, head + nfull * full, ramp, head, full, head, full, head + nfull * full,
                      batch, head + nfull * full);
  } else {
    hy_strbuf_append(sb, "    {\n");
  }
  /* the loop over the ramp's rounds */
  hy_strbuf_append(sb, "      for (;;) {\n        const int size = 0");
  for (int i = 0; i < k; i++)
    hy_strbuf_appendf(sb, " + (r - %lld >= 0 && r - %lld < %lld ? %lld : 0)", i * lag, i * lag,
                      batch, (long long)sh->blocks[i]);
  hy_strbuf_append(sb, ";\n        if (o < size) break;\n        o -= size;\n        r++;\n"
                       "      }\n    }\n");
  hy_strbuf_appendf(sb, "    int ph = 0;\n    while (r - ph * %lld >= %lld) ph++;\n", lag, batch);
  hy_strbuf_append(sb, "    while (o >= ");
  hy_cg_persist_blocks_of(sb, sh, "ph");
  hy_strbuf_append(sb, ") {\n      o -= ");
  hy_cg_persist_blocks_of(sb, sh, "ph");
  hy_strbuf_appendf(sb, ";\n      ph++;\n    }\n    hy_job[1] = ph;\n    hy_job[2] = r - ph * %lld;\n"
                        "    hy_job[3] = o;\n", lag);
}

/* Statements: the counters the ticket waits on (wi1 until it reaches wn1:
 * the previous pass over the element; wi2 until wn2: the last pass over
 * the element that had its ring slot before) and the one it counts itself
 * done in (si). Counters: [0] the tickets, [1 + i * batch + e] pass i's
 * blocks done on element e. */
static int hy_cg_persist_ring_first(const hy_cg_persist_shape *sh, int i) {
  for (int x = 0; x < sh->nregions; x++)
    if (sh->region[x].ring < sh->batch && sh->region[x].first == i) return x;
  return -1;
}

/* Whether some ticket waits on two counters: a pass after the first that
 * also starts a ring (chains of more than two passes). */
static int hy_cg_persist_two_waits(const hy_cg_persist_shape *sh) {
  for (int i = 1; i < sh->npasses; i++)
    if (hy_cg_persist_ring_first(sh, i) >= 0) return 1;
  return 0;
}

static void hy_cg_persist_counters(hy_strbuf *sb, const hy_cg_persist_shape *sh) {
  long long batch = sh->batch;
  /* One branch per pass, each setting every variable, and one wait where
   * one is enough: waits set by separate ifs, and two waits for every
   * ticket, change the kernel's register allocation and make it slower. */
  int two = hy_cg_persist_two_waits(sh);
  hy_strbuf_append(sb, two ? "    int wi1, wn1, wi2, wn2, si;\n" : "    int wi, wn, si;\n");
  for (int i = 0; i < sh->npasses; i++) {
    if (i == 0) hy_strbuf_append(sb, "    if (ph == 0) {");
    else if (i + 1 < sh->npasses) hy_strbuf_appendf(sb, "    else if (ph == %d) {", i);
    else hy_strbuf_append(sb, "    else {");
    char cwi[48] = "0", cwn[32] = "0", rwi[64] = "0", rwn[64] = "0";
    if (i > 0) {
      snprintf(cwi, sizeof cwi, "%lld + e", 1 + (i - 1) * batch);
      snprintf(cwn, sizeof cwn, "%lld", (long long)sh->blocks[i - 1]);
    }
    int x = hy_cg_persist_ring_first(sh, i);
    if (x >= 0) {
      const hy_cg_persist_region *r = &sh->region[x];
      snprintf(rwi, sizeof rwi, "e >= %lld ? %lld + e : 0", (long long)r->ring,
               1 + r->last * batch - (long long)r->ring);
      snprintf(rwn, sizeof rwn, "e >= %lld ? %lld : 0", (long long)r->ring,
               (long long)sh->blocks[r->last]);
    }
    if (two)
      hy_strbuf_appendf(sb, " wi1 = %s; wn1 = %s; wi2 = %s; wn2 = %s;", cwi, cwn, rwi, rwn);
    else
      hy_strbuf_appendf(sb, " wi = %s; wn = %s;", x >= 0 ? rwi : cwi, x >= 0 ? rwn : cwn);
    hy_strbuf_appendf(sb, " si = %lld + e; }\n", 1 + i * batch);
  }
}

/* Blocks the device holds at once: by threads (2048 per SM) and shared
 * memory; registers are not known here, and blocks beyond what fits only
 * start once others are done and find no tickets left. */
static int64_t hy_cg_persist_grid(const hy_device_caps *caps, const hy_cg_persist_shape *sh,
                                  size_t shared) {
  int64_t per_cu = 2048 / sh->block;
  if (shared > 0) {
    int64_t by_shared = (caps->local_memory + 1024) / ((int64_t)shared + 1024);
    if (by_shared < per_cu) per_cu = by_shared;
  }
  if (per_cu < 1) per_cu = 1;
  int64_t units = caps->compute_units > 0 ? caps->compute_units : 1;
  return units * per_cu < sh->tickets ? units * per_cu : sh->tickets;
}

/* Where element e of region x (or of the input, x = -1, or the output, x
 * = -2) starts, as an expression. */
static void hy_cg_persist_place(char *out, size_t size, const hy_cg_persist_shape *sh, int x) {
  const hy_pass *first = &sh->full[0], *last = &sh->full[sh->npasses - 1];
  if (x == -1)
    snprintf(out, size, "%s + %lld + (hy_i64)e * %lld", hy_cg_buffer_name(first->src),
             (long long)first->src_offset, (long long)first->loops[0].in_stride);
  else if (x == -2)
    snprintf(out, size, "%s + %lld + (hy_i64)e * %lld", hy_cg_buffer_name(last->dst),
             (long long)last->dst_offset, (long long)last->loops[0].out_stride);
  else if (sh->region[x].ring < sh->batch)
    snprintf(out, size, "%s + %lld + (hy_i64)(e %% %lld) * %lld",
             hy_cg_buffer_name(sh->region[x].buf), (long long)sh->region[x].base,
             (long long)sh->region[x].ring, (long long)sh->region[x].slot);
  else
    snprintf(out, size, "%s + %lld + (hy_i64)e * %lld", hy_cg_buffer_name(sh->region[x].buf),
             (long long)sh->region[x].base, (long long)sh->region[x].slot);
}

hy_status hy_cg_persist(const hy_problem *problem, const hy_plan_tree *tree,
                        const hy_device_caps *caps, const hy_gpu_program *plain,
                        hy_gpu_program *out, int *made) {
  *made = 0;
  if (tree->npasses < 1) return HYFFT_SUCCESS;
  /* Half-precision storage rewrites each pass's kernel (cg_storage.c);
   * the persistent kernel's accessors are not rewritten, so none is made
   * (the planner says so too: spec.persist = 0, hy_planner_finalize). */
  if (hy_precision_is_half(problem->storage)) return HYFFT_SUCCESS;
  /* The switches, as the first pass's kernel has them. */
  const hy_kernel_spec *req = &tree->passes[0].spec;
  hy_cg_persist_shape sh;
  if (!hy_cg_persist_shape_of(problem, tree, caps, plain, req, &sh)) return HYFFT_SUCCESS;
  const int k = sh.npasses;
  const hy_pass *full = sh.full;
  int64_t esize = problem->precision == HYFFT_F64 ? 16 : 8;
  int64_t nctr = 1 + k * sh.batch, off_bytes = sh.ctr_at * esize;

  /* Every pass must run with blocks of one size. Taking the least common
   * multiple (more transforms per block in the smaller passes) gives wrong
   * results on PoCL for elements whose passes take two blocks each (a race
   * whose cause is not known); so the passes must agree as generated. */
  hy_kernel_spec specs[HY_PERSIST_MAX_PASSES];
  sh.block = 0;
  for (int i = 0; i < k; i++) {
    specs[i] = full[i].spec;
    int b = specs[i].threads_per_transform * specs[i].transforms_per_block;
    if (i > 0 && b != sh.block) return HYFFT_SUCCESS;
    sh.block = b;
  }

  /* The program: the plain one's header and prelude, the clearing kernel,
   * then one block with the pass functions and the kernel that runs them. */
  hy_dialect dialect = plain->dialect;
  memset(out, 0, sizeof *out);
  out->dialect = dialect;
  hy_strbuf_init(&out->source);
  hy_strbuf *sb = &out->source;
  hy_strbuf_appendf(sb, "%.*s", (int)plain->prelude_end, plain->source.data);
  out->prelude_begin = plain->prelude_begin;
  out->prelude_end = plain->prelude_end;
  /* The passes' tables are the plain program's: borrowed, not computed
   * again (fused Rader's powers of g are most of a long plan's generation);
   * codegen.c hands them over when this program replaces the plain one. */
  out->reuse = plain;
  const char *g = hy_cg_global(dialect);

  out->kernel_begin[0] = sb->len;
  snprintf(out->names[0], sizeof out->names[0], "hy_clear_counters");
  hy_cg_persist_clear(sb, dialect, out->names[0], nctr, off_bytes);
  out->kernel_end[0] = sb->len;

  out->kernel_begin[1] = sb->len;
  /* Streaming hints by default, but not where the first pass gathers its
   * input and the last scatters its output (fused Rader, where the hints
   * measured slower): a sector read or written with evict-first is needed
   * again by the neighbouring gathers. */
  int hints = req->persist_hints >= 0 ? req->persist_hints : !hy_cg_pass_rader_fused(&full[0]);
  if (dialect == HY_DIALECT_CUDA) hy_cg_persist_accessors(sb, hints);
  /* The pass functions, generated as the plain kernels were (same
   * switches) over one element. What their launches list between the
   * buffers and the block offset are tables (kernel arguments of their
   * own, shared where passes use the same table) and fused Rader's stash
   * (WORK0). */
  int ptab[HY_PERSIST_MAX_PASSES][HY_MAX_KERNEL_ARGS], npargs[HY_PERSIST_MAX_PASSES];
  int tables[HY_MAX_KERNEL_ARGS], ntables = 0;
  size_t shared = 0;
  int min_blocks = 0, split[HY_PERSIST_MAX_PASSES];
  char body_name[HY_PERSIST_MAX_PASSES][64];
  hy_status st = HYFFT_SUCCESS;
  int fits = 1;
  for (int i = 0; i < k && st == HYFFT_SUCCESS && fits; i++) {
    hy_kernel_spec spec = specs[i];
    spec.reverse_blocks = 0;
    spec.body = i == 0 ? 1 : i == k - 1 ? 2 : 3;
    out->nkernels = 1;
    out->nlaunches = 0;
    st = hy_cg_pass_kernel(problem, &sh.elem[i], i, caps, &spec, out);
    if (st != HYFFT_SUCCESS) break;
    const hy_launch *l = &out->launches[0];
    if (l->block != sh.block || l->grid < 1) {
      fits = 0;
      break;
    }
    sh.blocks[i] = l->grid;
    npargs[i] = 0;
    for (int a = 2; a + 1 < l->nargs && fits; a++) {
      int t = -1; /* -1: the stash */
      if (l->args[a].kind == HY_ARG_TABLE) {
        for (t = 0; t < ntables && tables[t] != l->args[a].index; t++) {
        }
        if (t == ntables && ntables < HY_MAX_KERNEL_ARGS) tables[ntables++] = l->args[a].index;
        else if (t == ntables) fits = 0;
      } else if (l->args[a].kind != HY_ARG_BUFFER || l->args[a].index != HY_BUF_WORK0 ||
                 !hy_cg_pass_rader_fused(&sh.elem[i])) {
        fits = 0;
      }
      ptab[i][npargs[i]++] = t;
    }
    if (l->shared_bytes > shared) shared = l->shared_bytes;
    if (spec.min_blocks > min_blocks) min_blocks = spec.min_blocks;
    split[i] = spec.split_exchange;
    snprintf(body_name[i], sizeof body_name[i], "%s", out->names[1]);
  }
  sh.tickets = 0;
  for (int i = 0; i < k; i++) sh.tickets += sh.batch * sh.blocks[i];
  /* The kernel needs the registers of its largest pass and then some, so
   * fewer of its blocks may fit an SM than of the passes' own kernels.
   * Chains of more than two passes with blocks of 256 threads or fewer ask
   * for two blocks per SM (at most 128 registers per thread). */
  if (k > 2 && sh.block <= 256 && min_blocks < 2 &&
      (caps->local_memory + 1024) / ((int64_t)shared + 1024) >= 2)
    min_blocks = 2;
  /* The buffers the kernel takes: the passes' and the counters' (WORK0). */
  int bufs[2 + HY_PERSIST_MAX_PASSES], nbufs = 0;
  int want[2 + HY_PERSIST_MAX_PASSES], nwant = 0;
  want[nwant++] = full[0].src;
  for (int i = 0; i < k; i++) want[nwant++] = full[i].dst;
  want[nwant++] = HY_BUF_WORK0;
  for (int i = 0; i < nwant; i++) {
    int seen = 0;
    for (int j = 0; j < nbufs; j++) seen |= bufs[j] == want[i];
    if (!seen) bufs[nbufs++] = want[i];
  }
  /* By default not where the blocks have more than 512 threads or fewer
   * than two fit an SM: such a kernel is slower than the plain launches. */
  if (req->persist < 0 &&
      (sh.block > 512 || (caps->local_memory + 1024) / ((int64_t)shared + 1024) < 2))
    fits = 0;
  if (st != HYFFT_SUCCESS || !fits || nbufs + ntables + 1 > HY_MAX_KERNEL_ARGS ||
      sh.tickets > INT32_MAX / 2 || shared > (size_t)caps->local_memory) {
    hy_gpu_program_free(out);
    return st; /* the plain program stays */
  }
  hy_strbuf_appendf(sb,
                    "/* passes 0-%d in one persistent kernel: %lld tickets over %lld elements, "
                    "each pass %lld element(s) behind the one before",
                    k - 1, (long long)sh.tickets, (long long)sh.batch, (long long)sh.lag);
  for (int x = 0; x < sh.nregions; x++)
    if (sh.region[x].ring < sh.batch)
      hy_strbuf_appendf(sb, "; passes %d-%d through a ring of %lld work slots of %lld bytes",
                        sh.region[x].first, sh.region[x].last, (long long)sh.region[x].ring,
                        (long long)(sh.region[x].slot * esize));
  hy_strbuf_append(sb, " */\n");
  /* The kernel: claim a ticket, wait for what it needs, run its pass
   * block, count it done. */
  snprintf(out->names[1], sizeof out->names[0], "hy_persist_passes");
  hy_cg_kernel_open(sb, dialect, out->names[1], sh.block, min_blocks);
  for (int j = 0; j < nbufs; j++)
    hy_strbuf_appendf(sb, "%s%sreal2 *%s", j ? ", " : "", g, hy_cg_buffer_name(bufs[j]));
  for (int t = 0; t < ntables; t++)
    hy_strbuf_appendf(sb, ", %sconst %s *hy_t%d", g,
                      out->tables[tables[t]].type == HY_TABLE_INDEX ? "int" : "real2", t);
  hy_strbuf_append(sb, ", const hy_i64 hy_block0) {\n  (void)hy_block0;\n");
  if (dialect == HY_DIALECT_CUDA) {
    hy_strbuf_append(sb, "  extern __shared__ __align__(16) unsigned char hy_smem[];\n"
                         "  __shared__ int hy_job[4];\n");
    hy_strbuf_appendf(sb, "  int *hy_ctr = (int *)((char *)hy_work0 + %lld);\n", (long long)off_bytes);
  } else {
    size_t n = (shared + (size_t)esize - 1) / (size_t)esize;
    hy_strbuf_appendf(sb, "  __local real2 hy_lds[%zu];\n  __local int hy_job[4];\n", n ? n : 1);
    hy_strbuf_appendf(sb, "  volatile __global int *hy_ctr = (volatile __global int *)((__global char *)"
                          "hy_work0 + %lld);\n", (long long)off_bytes);
  }
  hy_strbuf_append(sb, "  for (;;) {\n");
  /* One thread claims the ticket and decodes it, the block reads the
   * job from local memory: every pass branch below then depends on values
   * the compiler can see are the same for the whole block (PoCL computes
   * wrong results when every thread decodes a ticket in loops). */
  hy_strbuf_appendf(sb, "    if (HY_LID == 0) {\n    const int tk = %s(hy_ctr, 1);\n    hy_job[0] = tk;\n"
                        "    if (tk < %lld) {\n",
                    dialect == HY_DIALECT_CUDA ? "atomicAdd" : "atomic_add", (long long)sh.tickets);
  hy_cg_persist_decode(sb, &sh);
  hy_strbuf_append(sb, "    }\n    }\n    HY_BARRIER();\n"
                       "    const int tk = hy_job[0], ph = hy_job[1], e = hy_job[2], j = hy_job[3];\n"
                       "    HY_BARRIER();\n");
  hy_strbuf_appendf(sb, "    if (tk >= %lld) break;\n", (long long)sh.tickets);
  /* The waits, counts and barriers are the same statements for every
   * ticket (a wait for 0 passes at once): PoCL's work-item loops hang on
   * a count by one thread that runs straight into the next ticket's claim,
   * and give wrong results now and then with the waits inside the pass
   * branches. */
  hy_cg_persist_counters(sb, &sh);
  hy_cg_persist_wait(sb, dialect, hy_cg_persist_two_waits(&sh));
  for (int i = 0; i < k; i++) {
    char src[200], dst[200];
    hy_cg_persist_place(src, sizeof src, &sh, i == 0 ? -1 : sh.dst_region[i - 1]);
    hy_cg_persist_place(dst, sizeof dst, &sh, i == k - 1 ? -2 : sh.dst_region[i]);
    if (i == 0) hy_strbuf_append(sb, "    if (ph == 0) {\n");
    else if (i < k - 1) hy_strbuf_appendf(sb, "    } else if (ph == %d) {\n", i);
    else hy_strbuf_append(sb, "    } else {\n");
    if (dialect == HY_DIALECT_CUDA)
      hy_strbuf_appendf(sb, "      %s(%s{%s}, ", body_name[i], i == 0 ? "hy_ld_stream" : "hy_ld_l2",
                        src);
    else
      hy_strbuf_appendf(sb, "      %s(%s, ", body_name[i], src);
    if (dialect == HY_DIALECT_CUDA && i == k - 1)
      hy_strbuf_appendf(sb, "hy_st_stream{%s}", dst);
    else
      hy_strbuf_append(sb, dst);
    for (int a = 0; a < npargs[i]; a++) {
      if (ptab[i][a] >= 0)
        hy_strbuf_appendf(sb, ", hy_t%d", ptab[i][a]);
      else
        hy_strbuf_appendf(sb, ", hy_work0 + %lld + (hy_i64)e * %lld", (long long)sh.stash_base,
                          (long long)(2 * sh.stash));
    }
    if (dialect == HY_DIALECT_CUDA)
      hy_strbuf_append(sb, ", j);\n"); /* the function takes the shared memory itself */
    else
      hy_strbuf_appendf(sb, ", j, (__local %s *)hy_lds);\n", split[i] ? "real" : "real2");
  }
  hy_strbuf_append(sb, "    }\n");
  hy_cg_persist_signal(sb, dialect);
  hy_strbuf_append(sb, "    HY_BARRIER();\n  }\n}\n\n");
  out->kernel_end[1] = sb->len;
  out->nkernels = 2;

  /* Launches: clear the counters, then as many blocks as the device holds. */
  hy_launch *c = &out->launches[0];
  memset(c, 0, sizeof *c);
  c->kernel = 0;
  c->grid = (nctr + 255) / 256;
  c->block = 256;
  c->nargs = 2;
  c->args[0] = (hy_kernel_arg){HY_ARG_BUFFER, HY_BUF_WORK0};
  c->args[1] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  hy_launch *p = &out->launches[1];
  memset(p, 0, sizeof *p);
  p->kernel = 1;
  p->grid = hy_cg_persist_grid(caps, &sh, shared);
  p->block = sh.block;
  p->shared_bytes = dialect == HY_DIALECT_CUDA ? shared : shared + sizeof(int);
  for (int j = 0; j < nbufs; j++) p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, bufs[j]};
  for (int t = 0; t < ntables; t++) p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, tables[t]};
  p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  out->nlaunches = 2;
  out->work_elems = sh.used;
  st = hy_strbuf_status(sb);
  if (st != HYFFT_SUCCESS) {
    hy_gpu_program_free(out);
    return st;
  }
  out->reuse = NULL;
  *made = 1;
  return HYFFT_SUCCESS;
}
