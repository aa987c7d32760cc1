/* A persistent kernel for two-pass plans: both passes of a batched
 * four-step (or two-axis) plan in one launch, so that the second pass
 * reads what the first wrote while it is still in L2 (DESIGN: keep
 * multi-pass intermediates in L2).
 *
 * Launching pass 1 over chunks of the batch and then pass 2 (codegen.c's
 * L2 chunks) lost to the idle SMs at the tail of every launch. Here the
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
 * plan that does not qualify keeps its two launches. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_internal.h"

/* The pass over one element of the outermost batch loop: loops[0] gone
 * (the persistent kernel offsets the buffers by element instead). */
static void hy_cg_element_pass(const hy_pass *pass, hy_pass *out) {
  *out = *pass;
  memmove(out->loops, out->loops + 1, (size_t)(pass->nloops - 1) * sizeof out->loops[0]);
  out->nloops--;
  if (out->twiddle_loop > 0) out->twiddle_loop--;
}

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

/* Statements: wait until counter `idx` reaches `need` (one thread polls,
 * then the block goes on together). */
static void hy_cg_persist_wait(hy_strbuf *sb, hy_dialect d, const char *idx, const char *need,
                               const char *in) {
  if (d == HY_DIALECT_CUDA)
    hy_strbuf_appendf(sb,
                      "%sif (HY_LID == 0) {\n"
                      "%s  while (*(volatile int *)(hy_ctr + %s) < %s) {\n"
                      "#if __CUDA_ARCH__ >= 700\n"
                      "%s    __nanosleep(64);\n"
                      "#endif\n"
                      "%s  }\n"
                      "%s  __threadfence();\n"
                      "%s}\n"
                      "%sHY_BARRIER();\n",
                      in, in, idx, need, in, in, in, in, in);
  else
    hy_strbuf_appendf(sb,
                      "%sif (HY_LID == 0) {\n"
                      "%s  while (hy_ctr[%s] < %s) {}\n"
                      "%s  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
                      "%s}\n"
                      "%sbarrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n",
                      in, in, idx, need, in, in, in);
}

/* Statements: every thread's writes made visible, then one count. */
static void hy_cg_persist_signal(hy_strbuf *sb, hy_dialect d, const char *idx, const char *in) {
  if (d == HY_DIALECT_CUDA)
    hy_strbuf_appendf(sb,
                      "%s__threadfence();\n"
                      "%sHY_BARRIER();\n"
                      "%sif (HY_LID == 0) atomicAdd(hy_ctr + %s, 1);\n",
                      in, in, in, idx);
  else
    hy_strbuf_appendf(sb,
                      "%smem_fence(CLK_GLOBAL_MEM_FENCE);\n"
                      "%sbarrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
                      "%sif (HY_LID == 0) atomic_add(hy_ctr + %s, 1);\n",
                      in, in, in, idx);
}

/* What a qualifying plan looks like to the persistent kernel. */
typedef struct hy_cg_persist_shape {
  hy_pass full[2];   /* the two passes as the plain program has them */
  hy_pass elem[2];   /* the same over one element of the batch */
  int64_t batch;     /* elements of the outermost batch loop */
  int64_t blocks[2]; /* blocks of each pass per element */
  int64_t tickets;   /* batch * (blocks[0] + blocks[1]) */
  int block;         /* threads per block, the same for both passes */
  int64_t slot;      /* elements between two elements' intermediates */
  int64_t slot_bytes;
  int64_t ring;      /* work slots (== batch: no ring) */
  int64_t lag;       /* elements pass 1 runs behind pass 0 */
  int use_ring;
} hy_cg_persist_shape;

/* Whether the plain program qualifies: two DFT passes, each launched over
 * whole elements of the batch in element order with blocks of one size,
 * the second reading what the first wrote, room for the counters; then
 * the ring and the lag. The ring takes about half of L2, the lag half the
 * ring (or what $HYFFT_KERNEL_SPEC / the variant name). */
static int hy_cg_persist_shape_of(const hy_problem *problem, const hy_plan_tree *tree,
                                  const hy_device_caps *caps, const hy_gpu_program *plain,
                                  const hy_kernel_spec *req, hy_cg_persist_shape *sh) {
  memset(sh, 0, sizeof *sh);
  if (req->persist == 0 || tree->npasses != 2 || plain->nlaunches != 2 || plain->nkernels != 2)
    return 0;
  sh->batch = problem->batch_rank > 0 ? problem->batch[0].n : 0;
  if (sh->batch < 2 || tree->sync_ints < 1 + 2 * sh->batch) return 0;
  for (int i = 0; i < 2; i++) {
    const hy_launch *l = &plain->launches[i];
    hy_cg_effective_pass(&tree->passes[i], &sh->full[i]);
    const hy_pass *p = &sh->full[i];
    if (p->op != HY_PASS_DFT || p->algo != HY_ALGO_MIXED_RADIX || p->fuse != HY_FUSE_NONE ||
        p->twiddle_loop == 0 || p->nloops < 1 || p->loops[0].n != sh->batch)
      return 0;
    if (l->batch_blocks <= 0 || l->block_offset != 0 || l->grid != l->batch_blocks * sh->batch)
      return 0;
    sh->blocks[i] = l->batch_blocks;
    hy_cg_element_pass(p, &sh->elem[i]);
  }
  const hy_pass *a = &sh->full[0], *b = &sh->full[1];
  sh->block = plain->launches[0].block;
  if (plain->launches[1].block != sh->block || a->dst != b->src || a->dst_offset != b->src_offset ||
      a->dst == HY_BUF_IN || a->loops[0].out_stride != b->loops[0].in_stride)
    return 0;
  sh->tickets = sh->batch * (sh->blocks[0] + sh->blocks[1]);
  if (sh->tickets > INT32_MAX / 2) return 0;

  int64_t esize = problem->precision == HYFFT_F64 ? 16 : 8;
  sh->slot = a->loops[0].out_stride;
  int ring_ok = (a->dst == HY_BUF_WORK0 || a->dst == HY_BUF_WORK1) && sh->slot > 0;
  int64_t budget = caps->l2_cache > 0 ? caps->l2_cache / 2 : (int64_t)16 << 20;
  sh->slot_bytes = sh->slot > 0 ? sh->slot * esize : budget;
  sh->ring = sh->batch;
  if (ring_ok) {
    sh->ring = req->persist_ring > 0 ? req->persist_ring : budget / sh->slot_bytes;
    if (sh->ring < 2) sh->ring = 2;
    if (sh->ring > sh->batch) sh->ring = sh->batch;
  }
  sh->lag = req->persist_lag > 0 ? req->persist_lag
                                 : (ring_ok ? sh->ring / 2 : budget / sh->slot_bytes / 2);
  if (sh->lag < 1) sh->lag = 1;
  if (ring_ok && sh->lag > sh->ring - 1) sh->lag = sh->ring - 1;
  if (sh->lag > sh->batch) sh->lag = sh->batch;
  sh->use_ring = ring_ok && sh->ring < sh->batch;
  /* By default only where it measured faster (H100, side by side with
   * cuFFT): CUDA plans whose elements' intermediates take at most 2 MB
   * (2^16 f32 1.06 -> 1.16-1.18, f64 1.01 -> 1.12-1.14, 2^18 f32 1.00 ->
   * 1.01-1.12). Elements of 4 MB and more lost in every ring, lag and hint
   * tried (2^20 f32 1.01-1.04 -> 0.85-0.91, f64 2^18 0.93 -> 0.74-0.82,
   * 2^22 0.98 -> 0.79-0.84, 10^6 1.14 -> 0.81-0.97). */
  if (req->persist < 0) {
    /* $HYFFT_L2_CHUNK asks for the chunked launches (codegen.c) instead. */
    const char *chunk = hy_getenv("HYFFT_L2_CHUNK");
    return caps->backend == HYFFT_BACKEND_CUDA && sh->use_ring &&
           sh->slot_bytes <= ((int64_t)2 << 20) && !(chunk && *chunk);
  }
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

/* Statements: ticket tk -> pass ph, element e, block j of the element.
 * Tickets come as A(0..L-1), then rounds of A(L + r), B(r), then the last
 * L elements' B. */
static void hy_cg_persist_decode(hy_strbuf *sb, const hy_cg_persist_shape *sh) {
  long long ba = sh->blocks[0], bb = sh->blocks[1], lag = sh->lag;
  long long head = lag * ba, round = ba + bb, mid = (sh->batch - lag) * round;
  hy_strbuf_append(sb, "    int ph, e, j;\n");
  hy_strbuf_appendf(sb, "    if (tk < %lld) {\n      ph = 0; e = tk / %lld; j = tk %% %lld;\n", head,
                    ba, ba);
  hy_strbuf_appendf(sb,
                    "    } else if (tk - %lld < %lld) {\n"
                    "      const int r = (tk - %lld) / %lld, o = (tk - %lld) %% %lld;\n"
                    "      if (o < %lld) { ph = 0; e = %lld + r; j = o; }\n"
                    "      else { ph = 1; e = r; j = o - %lld; }\n",
                    head, mid, head, round, head, round, ba, lag, ba);
  hy_strbuf_appendf(sb,
                    "    } else {\n"
                    "      const int r = tk - %lld;\n"
                    "      ph = 1; e = %lld + r / %lld; j = r %% %lld;\n"
                    "    }\n",
                    head + mid, (long long)sh->batch - lag, bb, bb);
}

/* Statements: the counter the ticket waits on (wi, until it reaches wn)
 * and the one it counts itself done in (si). Counters: [0] the tickets,
 * [1 + e] pass 0's blocks done on element e, [1 + batch + e] pass 1's. */
static void hy_cg_persist_counters(hy_strbuf *sb, const hy_cg_persist_shape *sh) {
  hy_strbuf_append(sb, "    int wi, wn, si;\n");
  if (sh->use_ring)
    hy_strbuf_appendf(sb,
                      "    if (ph == 0) { wi = e >= %lld ? %lld + e : 0; wn = e >= %lld ? %lld : 0; "
                      "si = 1 + e; }\n",
                      (long long)sh->ring, (long long)(1 + sh->batch - sh->ring),
                      (long long)sh->ring, (long long)sh->blocks[1]);
  else
    hy_strbuf_append(sb, "    if (ph == 0) { wi = 0; wn = 0; si = 1 + e; }\n");
  hy_strbuf_appendf(sb, "    else { wi = 1 + e; wn = %lld; si = %lld + e; }\n",
                    (long long)sh->blocks[0], (long long)(1 + sh->batch));
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

hy_status hy_cg_persist(const hy_problem *problem, const hy_plan_tree *tree,
                        const hy_device_caps *caps, const hy_gpu_program *plain,
                        hy_gpu_program *out, int *made) {
  *made = 0;
  if (tree->npasses < 1) return HYFFT_SUCCESS;
  /* The switches, as the first pass's kernel has them ($HYFFT_KERNEL_SPEC,
   * then the plan's variant). */
  hy_pass first;
  hy_cg_effective_pass(&tree->passes[0], &first);
  hy_kernel_spec req;
  HY_TRY(hy_cg_default_spec(problem, &first, caps, &req));
  hy_cg_persist_shape sh;
  if (!hy_cg_persist_shape_of(problem, tree, caps, plain, &req, &sh)) return HYFFT_SUCCESS;
  const hy_pass *full = sh.full;
  int64_t esize = problem->precision == HYFFT_F64 ? 16 : 8;
  /* The counters: where the planner reserved them, at the end of WORK0;
   * with a ring in WORK0, right behind the ring instead, and the plan
   * needs no more of WORK0 than that (hy_gpu_program.work_elems). */
  int64_t nctr = 1 + 2 * sh.batch, ctr_at = tree->sync_offset, used = 0;
  if (sh.use_ring && full[0].dst == HY_BUF_WORK0) {
    ctr_at = full[0].dst_offset + sh.ring * sh.slot;
    used = ctr_at + (nctr * 4 + esize - 1) / esize;
    if (used > tree->sync_offset) ctr_at = tree->sync_offset, used = 0;
  }
  int64_t off_bytes = ctr_at * esize;

  /* The program: the plain one's header and prelude, the clearing kernel,
   * then one block with the two pass functions and the kernel that runs
   * them. */
  hy_dialect dialect = plain->dialect;
  memset(out, 0, sizeof *out);
  out->dialect = dialect;
  hy_strbuf_init(&out->source);
  hy_strbuf *sb = &out->source;
  hy_strbuf_appendf(sb, "%.*s", (int)plain->prelude_end, plain->source.data);
  out->prelude_begin = plain->prelude_begin;
  out->prelude_end = plain->prelude_end;
  const char *g = hy_cg_global(dialect);

  out->kernel_begin[0] = sb->len;
  snprintf(out->names[0], sizeof out->names[0], "hy_clear_counters");
  hy_cg_persist_clear(sb, dialect, out->names[0], nctr, off_bytes);
  out->kernel_end[0] = sb->len;

  out->kernel_begin[1] = sb->len;
  hy_strbuf_appendf(sb,
                    "/* passes 0 and 1 in one persistent kernel: %lld tickets over %lld elements, "
                    "pass 1 %lld element(s) behind pass 0",
                    (long long)sh.tickets, (long long)sh.batch, (long long)sh.lag);
  if (sh.use_ring)
    hy_strbuf_appendf(sb, ", a ring of %lld work slots of %lld bytes */\n", (long long)sh.ring,
                      (long long)sh.slot_bytes);
  else
    hy_strbuf_append(sb, " */\n");
  if (dialect == HY_DIALECT_CUDA) hy_cg_persist_accessors(sb, req.persist_hints);
  /* The pass functions, generated as the plain kernels were (same
   * switches) over one element; their tables are what their launches list
   * between the buffers and the block offset. */
  int targs[2][HY_MAX_KERNEL_ARGS], ntargs[2] = {0, 0};
  size_t shared = 0;
  int min_blocks = 0, split[2];
  char body_name[2][64];
  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++) {
    hy_kernel_spec spec;
    st = hy_cg_default_spec(problem, &full[i], caps, &spec);
    if (st != HYFFT_SUCCESS) break;
    spec.reverse_blocks = 0;
    spec.body = i + 1;
    out->nkernels = 1;
    out->nlaunches = 0;
    st = hy_cg_pass_kernel(problem, &sh.elem[i], i, caps, &spec, out);
    if (st != HYFFT_SUCCESS) break;
    const hy_launch *l = &out->launches[0];
    if (l->grid != sh.blocks[i] || l->block != sh.block) {
      st = hy_error(HYFFT_INTERNAL, "codegen: persistent pass %d has %lld blocks of %d threads, "
                                    "its launch %lld of %d", i, (long long)l->grid, l->block,
                    (long long)sh.blocks[i], sh.block);
      break;
    }
    for (int a = 2; a < l->nargs; a++)
      if (l->args[a].kind == HY_ARG_TABLE) targs[i][ntargs[i]++] = l->args[a].index;
    if (l->shared_bytes > shared) shared = l->shared_bytes;
    if (spec.min_blocks > min_blocks) min_blocks = spec.min_blocks;
    split[i] = spec.split_exchange;
    snprintf(body_name[i], sizeof body_name[i], "%s", out->names[1]);
  }
  /* The buffers the kernel takes: the passes' and the counters' (WORK0). */
  int bufs[4], nbufs = 0;
  int want[4] = {full[0].src, full[0].dst, full[1].dst, HY_BUF_WORK0};
  for (int i = 0; i < 4; i++) {
    int seen = 0;
    for (int j = 0; j < nbufs; j++) seen |= bufs[j] == want[i];
    if (!seen) bufs[nbufs++] = want[i];
  }
  if (st != HYFFT_SUCCESS || nbufs + ntargs[0] + ntargs[1] + 1 > HY_MAX_KERNEL_ARGS) {
    hy_gpu_program_free(out);
    return st; /* too many arguments: the plain program stays */
  }

  /* The kernel: claim a ticket, wait for what it needs, run its pass
   * block, count it done. */
  snprintf(out->names[1], sizeof out->names[0], "hy_persist_passes");
  hy_cg_kernel_open(sb, dialect, out->names[1], sh.block, min_blocks);
  for (int j = 0; j < nbufs; j++)
    hy_strbuf_appendf(sb, "%s%sreal2 *%s", j ? ", " : "", g, hy_cg_buffer_name(bufs[j]));
  for (int i = 0; i < 2; i++)
    for (int a = 0; a < ntargs[i]; a++) hy_strbuf_appendf(sb, ", %sconst real2 *hy_t%d_%d", g, i, a);
  hy_strbuf_append(sb, ", const hy_i64 hy_block0) {\n  (void)hy_block0;\n");
  if (dialect == HY_DIALECT_CUDA) {
    hy_strbuf_append(sb, "  extern __shared__ __align__(16) unsigned char hy_smem[];\n"
                         "  __shared__ int hy_tk;\n");
    hy_strbuf_appendf(sb, "  int *hy_ctr = (int *)((char *)hy_work0 + %lld);\n", (long long)off_bytes);
  } else {
    size_t n = (shared + (size_t)esize - 1) / (size_t)esize;
    hy_strbuf_appendf(sb, "  __local real2 hy_lds[%zu];\n  __local int hy_tk;\n", n ? n : 1);
    hy_strbuf_appendf(sb, "  volatile __global int *hy_ctr = (volatile __global int *)((__global char *)"
                          "hy_work0 + %lld);\n", (long long)off_bytes);
  }
  hy_strbuf_append(sb, "  for (;;) {\n");
  hy_strbuf_appendf(sb, "    if (HY_LID == 0) hy_tk = %s(hy_ctr, 1);\n",
                    dialect == HY_DIALECT_CUDA ? "atomicAdd" : "atomic_add");
  hy_strbuf_append(sb, "    HY_BARRIER();\n    const int tk = hy_tk;\n    HY_BARRIER();\n");
  hy_strbuf_appendf(sb, "    if (tk >= %lld) break;\n", (long long)sh.tickets);
  hy_cg_persist_decode(sb, &sh);
  /* The waits, counts and barriers are the same statements for every
   * ticket (a wait for 0 passes at once): PoCL's work-item loops hung on a
   * count by one thread that ran straight into the next ticket's claim,
   * and gave wrong results now and then with the waits inside the pass
   * branches. */
  hy_cg_persist_counters(sb, &sh);
  hy_cg_persist_wait(sb, dialect, "wi", "wn", "    ");
  char src0[160], work[160], dst1[160];
  snprintf(src0, sizeof src0, "%s + (hy_i64)e * %lld", hy_cg_buffer_name(full[0].src),
           (long long)full[0].loops[0].in_stride);
  if (sh.use_ring)
    snprintf(work, sizeof work, "%s + (hy_i64)(e %% %lld) * %lld", hy_cg_buffer_name(full[0].dst),
             (long long)sh.ring, (long long)sh.slot);
  else
    snprintf(work, sizeof work, "%s + (hy_i64)e * %lld", hy_cg_buffer_name(full[0].dst),
             (long long)sh.slot);
  snprintf(dst1, sizeof dst1, "%s + (hy_i64)e * %lld", hy_cg_buffer_name(full[1].dst),
           (long long)full[1].loops[0].out_stride);
  for (int i = 0; i < 2; i++) {
    hy_strbuf_append(sb, i == 0 ? "    if (ph == 0) {\n" : "    } else {\n");
    if (dialect == HY_DIALECT_CUDA && i == 0)
      hy_strbuf_appendf(sb, "      %s(hy_ld_stream{%s}, %s", body_name[0], src0, work);
    else if (dialect == HY_DIALECT_CUDA)
      hy_strbuf_appendf(sb, "      %s(hy_ld_l2{%s}, hy_st_stream{%s}", body_name[1], work, dst1);
    else
      hy_strbuf_appendf(sb, "      %s(%s, %s", body_name[i], i == 0 ? src0 : work, i == 0 ? work : dst1);
    for (int a = 0; a < ntargs[i]; a++) hy_strbuf_appendf(sb, ", hy_t%d_%d", i, a);
    if (dialect == HY_DIALECT_CUDA)
      hy_strbuf_appendf(sb, ", j, (%s *)hy_smem);\n", split[i] ? "real" : "real2");
    else
      hy_strbuf_appendf(sb, ", j, (__local %s *)hy_lds);\n", split[i] ? "real" : "real2");
  }
  hy_strbuf_append(sb, "    }\n");
  hy_cg_persist_signal(sb, dialect, "si", "    ");
  hy_strbuf_append(sb, "    HY_BARRIER();\n  }\n}\n\n");
  out->kernel_end[1] = sb->len;
  out->nkernels = 2;

  /* Launches: clear the counters, then as many blocks as the device holds. */
  hy_launch *c = &out->launches[0];
  memset(c, 0, sizeof *c);
  c->kernel = 0;
  c->grid = (1 + 2 * sh.batch + 255) / 256;
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
  for (int i = 0; i < 2; i++)
    for (int a = 0; a < ntargs[i]; a++)
      p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, targs[i][a]};
  p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  out->nlaunches = 2;
  out->work_elems = used;
  st = hy_strbuf_status(sb);
  if (st != HYFFT_SUCCESS) {
    hy_gpu_program_free(out);
    return st;
  }
  *made = 1;
  return HYFFT_SUCCESS;
}
