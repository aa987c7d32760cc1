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
 * Off unless asked for (switch persist=1 in $HYFFT_KERNEL_SPEC or the
 * plan's variant; ring=R and lag=L set the ring and the lag); a plan that
 * does not qualify keeps its two launches. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_internal.h"

typedef struct hy_cg_persist_req {
  int on;
  int64_t ring, lag; /* 0: from the L2 size */
} hy_cg_persist_req;

static void hy_cg_persist_parse(const char *text, hy_cg_persist_req *r) {
  while (text && *text) {
    char key[32];
    long v = 0;
    int used = 0;
    if (sscanf(text, "%31[a-z]=%ld%n", key, &v, &used) != 2) break;
    if (strcmp(key, "persist") == 0 && (v == 0 || v == 1)) r->on = (int)v;
    if (strcmp(key, "ring") == 0 && v >= 2 && v <= 1 << 20) r->ring = v;
    if (strcmp(key, "lag") == 0 && v >= 1 && v <= 1 << 20) r->lag = v;
    text += used;
    if (*text == ',') text++;
  }
}

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

/* The CUDA accessors the pass functions read and write through. */
static void hy_cg_persist_accessors(hy_strbuf *sb) {
  hy_strbuf_append(
      sb,
      "struct hy_ld_stream {\n"
      "  const real2 *p;\n"
      "  __device__ __forceinline__ real2 operator[](hy_i64 i) const { return __ldcs(p + i); }\n"
      "};\n"
      "struct hy_ld_l2 {\n"
      "  const real2 *p;\n"
      "  __device__ __forceinline__ real2 operator[](hy_i64 i) const { return __ldcg(p + i); }\n"
      "};\n"
      "struct hy_st_ref {\n"
      "  real2 *p;\n"
      "  __device__ __forceinline__ void operator=(real2 v) const { __stcs(p, v); }\n"
      "};\n"
      "struct hy_st_stream {\n"
      "  real2 *p;\n"
      "  __device__ __forceinline__ hy_st_ref operator[](hy_i64 i) const {\n"
      "    hy_st_ref r = {p + i};\n"
      "    return r;\n"
      "  }\n"
      "};\n");
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

hy_status hy_cg_persist(const hy_problem *problem, const hy_plan_tree *tree,
                        const hy_device_caps *caps, const hy_gpu_program *plain,
                        hy_gpu_program *out, int *made) {
  *made = 0;
  hy_cg_persist_req req = {0, 0, 0};
  hy_cg_persist_parse(hy_getenv("HYFFT_KERNEL_SPEC"), &req);
  hy_cg_persist_parse(tree->passes[0].kernel_spec, &req);
  /* What qualifies: two DFT passes, each launched over whole elements of
   * the batch in element order with blocks of one size, the second reading
   * what the first wrote, and room for the counters. */
  if (!req.on || tree->npasses != 2 || plain->nlaunches != 2 || plain->nkernels != 2)
    return HYFFT_SUCCESS;
  int64_t batch = problem->batch_rank > 0 ? problem->batch[0].n : 0;
  if (batch < 2 || tree->sync_ints < 1 + 2 * batch) return HYFFT_SUCCESS;
  hy_pass full[2], elem[2];
  for (int i = 0; i < 2; i++) {
    const hy_launch *l = &plain->launches[i];
    hy_cg_effective_pass(&tree->passes[i], &full[i]);
    const hy_pass *p = &full[i];
    if (p->op != HY_PASS_DFT || p->algo != HY_ALGO_MIXED_RADIX || p->fuse != HY_FUSE_NONE ||
        p->twiddle_loop == 0 || p->nloops < 1 || p->loops[0].n != batch)
      return HYFFT_SUCCESS;
    if (l->batch_blocks <= 0 || l->block_offset != 0 || l->grid != l->batch_blocks * batch)
      return HYFFT_SUCCESS;
    hy_cg_element_pass(p, &elem[i]);
  }
  const hy_launch *la = &plain->launches[0], *lb = &plain->launches[1];
  if (la->block != lb->block || full[0].dst != full[1].src ||
      full[0].dst_offset != full[1].src_offset || full[0].dst == HY_BUF_IN ||
      full[0].loops[0].out_stride != full[1].loops[0].in_stride)
    return HYFFT_SUCCESS;
  int64_t blocks_a = la->batch_blocks, blocks_b = lb->batch_blocks;
  int64_t tickets = batch * (blocks_a + blocks_b);
  if (tickets > INT32_MAX / 2) return HYFFT_SUCCESS;

  /* Ring and lag. An element's intermediate is stride S elements of the
   * work buffer; the ring takes about half of L2, the lag half the ring. */
  int64_t esize = problem->precision == HYFFT_F64 ? 16 : 8;
  int64_t slot = full[0].loops[0].out_stride;
  int ring_ok = (full[0].dst == HY_BUF_WORK0 || full[0].dst == HY_BUF_WORK1) && slot > 0;
  int64_t budget = caps->l2_cache > 0 ? caps->l2_cache / 2 : (int64_t)16 << 20;
  int64_t per = slot > 0 ? slot * esize : budget;
  int64_t ring = batch;
  if (ring_ok) {
    ring = req.ring > 0 ? req.ring : budget / per;
    if (ring < 2) ring = 2;
    if (ring > batch) ring = batch;
  }
  int64_t lag = req.lag > 0 ? req.lag : (ring_ok ? ring / 2 : budget / per / 2);
  if (lag < 1) lag = 1;
  if (ring_ok && lag > ring - 1) lag = ring - 1;
  if (lag > batch) lag = batch;
  int use_ring = ring_ok && ring < batch;

  /* The program: prelude, the clearing kernel, then one block with the
   * two pass functions and the kernel that runs them. */
  hy_dialect dialect = plain->dialect;
  memset(out, 0, sizeof *out);
  out->dialect = dialect;
  hy_strbuf_init(&out->source);
  hy_strbuf *sb = &out->source;
  hy_strbuf_appendf(sb, "%.*s", (int)plain->prelude_end, plain->source.data);
  out->prelude_begin = plain->prelude_begin;
  out->prelude_end = plain->prelude_end;
  const char *g = hy_cg_global(dialect);
  int64_t off_bytes = tree->sync_offset * esize;
  int64_t nctr = 1 + 2 * batch;
  hy_status st = HYFFT_SUCCESS;

  /* Kernel 0: zero the counters. */
  out->kernel_begin[0] = sb->len;
  snprintf(out->names[0], sizeof out->names[0], "hy_clear_counters");
  hy_strbuf_append(sb, "/* the persistent kernel's counters, zeroed before every run */\n");
  hy_cg_kernel_open(sb, dialect, out->names[0], 256, 0);
  hy_strbuf_appendf(sb, "%sreal2 *sync, const hy_i64 hy_block0) {\n", g);
  hy_cg_emit_block_index(sb, 0);
  hy_strbuf_append(sb, "  const hy_i64 i = HY_GID * 256 + HY_LID;\n");
  hy_strbuf_appendf(sb, "  if (i < %lld) ((%sint *)((%schar *)sync + %lld))[i] = 0;\n}\n\n",
                    (long long)nctr, g, g, (long long)off_bytes);
  out->kernel_end[0] = sb->len;
  out->nkernels = 1;

  /* Kernel 1: the pass functions, then the persistent kernel. */
  out->kernel_begin[1] = sb->len;
  hy_strbuf_appendf(sb,
                    "/* passes 0 and 1 in one persistent kernel: %lld tickets over %lld elements, "
                    "pass 1 %lld element(s) behind pass 0",
                    (long long)tickets, (long long)batch, (long long)lag);
  if (use_ring)
    hy_strbuf_appendf(sb, ", a ring of %lld work slots of %lld bytes */\n", (long long)ring,
                      (long long)per);
  else
    hy_strbuf_append(sb, " */\n");
  if (dialect == HY_DIALECT_CUDA) hy_cg_persist_accessors(sb);
  hy_kernel_spec specs[2];
  int targs[2][HY_MAX_KERNEL_ARGS], ntargs[2] = {0, 0};
  size_t shared = 0;
  int min_blocks = 0, split[2];
  char body_name[2][64];
  for (int i = 0; i < 2 && st == HYFFT_SUCCESS; i++) {
    st = hy_cg_default_spec(problem, &full[i], caps, &specs[i]);
    if (st != HYFFT_SUCCESS) break;
    specs[i].reverse_blocks = 0;
    specs[i].body = i + 1;
    int nl = out->nlaunches;
    out->nkernels = 1;
    st = hy_cg_pass_kernel(problem, &elem[i], i, caps, &specs[i], out);
    if (st != HYFFT_SUCCESS) break;
    const hy_launch *l = &out->launches[nl];
    if (l->grid != (i ? blocks_b : blocks_a) || l->block != la->block) {
      st = hy_error(HYFFT_INTERNAL, "codegen: persistent pass %d has %lld blocks of %d threads, "
                                    "its launch %lld of %d", i, (long long)l->grid, l->block,
                    (long long)(i ? blocks_b : blocks_a), la->block);
      break;
    }
    /* The tables are its arguments between the buffers and the block offset. */
    for (int a = 2; a < l->nargs; a++)
      if (l->args[a].kind == HY_ARG_TABLE) targs[i][ntargs[i]++] = l->args[a].index;
    if (l->shared_bytes > shared) shared = l->shared_bytes;
    if (specs[i].min_blocks > min_blocks) min_blocks = specs[i].min_blocks;
    split[i] = specs[i].split_exchange;
    snprintf(body_name[i], sizeof body_name[i], "%s", out->names[1]);
    out->nlaunches = nl;
  }
  if (st != HYFFT_SUCCESS) {
    hy_gpu_program_free(out);
    return st;
  }
  /* The buffers the kernel takes: the passes' and the counters' (WORK0). */
  int bufs[4], nbufs = 0;
  int want[4] = {full[0].src, full[0].dst, full[1].dst, HY_BUF_WORK0};
  for (int i = 0; i < 4; i++) {
    int seen = 0;
    for (int j = 0; j < nbufs; j++) seen |= bufs[j] == want[i];
    if (!seen) bufs[nbufs++] = want[i];
  }
  if (nbufs + ntargs[0] + ntargs[1] + 1 > HY_MAX_KERNEL_ARGS) {
    hy_gpu_program_free(out);
    return HYFFT_SUCCESS;
  }
  snprintf(out->names[1], sizeof out->names[0], "hy_persist_passes");
  hy_cg_kernel_open(sb, dialect, out->names[1], la->block, min_blocks);
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
    size_t n2 = (shared + (size_t)esize - 1) / (size_t)esize;
    hy_strbuf_appendf(sb, "  __local real2 hy_lds[%zu];\n  __local int hy_tk;\n", n2 ? n2 : 1);
    hy_strbuf_appendf(sb, "  volatile __global int *hy_ctr = (volatile __global int *)((__global char *)"
                          "hy_work0 + %lld);\n", (long long)off_bytes);
  }
  hy_strbuf_append(sb, "  for (;;) {\n");
  if (dialect == HY_DIALECT_CUDA)
    hy_strbuf_append(sb, "    if (HY_LID == 0) hy_tk = atomicAdd(hy_ctr, 1);\n");
  else
    hy_strbuf_append(sb, "    if (HY_LID == 0) hy_tk = atomic_add(hy_ctr, 1);\n");
  hy_strbuf_append(sb, "    HY_BARRIER();\n    const int tk = hy_tk;\n    HY_BARRIER();\n");
  hy_strbuf_appendf(sb, "    if (tk >= %lld) break;\n", (long long)tickets);
  /* Ticket -> (pass, element, block of the element). */
  int64_t head = lag * blocks_a, round = blocks_a + blocks_b, mid = (batch - lag) * round;
  hy_strbuf_append(sb, "    int ph, e, j;\n");
  hy_strbuf_appendf(sb, "    if (tk < %lld) {\n      ph = 0; e = tk / %lld; j = tk %% %lld;\n",
                    (long long)head, (long long)blocks_a, (long long)blocks_a);
  hy_strbuf_appendf(sb,
                    "    } else if (tk - %lld < %lld) {\n"
                    "      const int r = (tk - %lld) / %lld, o = (tk - %lld) %% %lld;\n"
                    "      if (o < %lld) { ph = 0; e = %lld + r; j = o; }\n"
                    "      else { ph = 1; e = r; j = o - %lld; }\n",
                    (long long)head, (long long)mid, (long long)head, (long long)round,
                    (long long)head, (long long)round, (long long)blocks_a, (long long)lag,
                    (long long)blocks_a);
  hy_strbuf_appendf(sb,
                    "    } else {\n"
                    "      const int r = tk - %lld;\n"
                    "      ph = 1; e = %lld + r / %lld; j = r %% %lld;\n"
                    "    }\n",
                    (long long)(head + mid), (long long)(batch - lag), (long long)blocks_b,
                    (long long)blocks_b);
  /* Where element e of each buffer starts. */
  char wbase[160];
  if (use_ring)
    snprintf(wbase, sizeof wbase, "%s + (hy_i64)(e %% %lld) * %lld", hy_cg_buffer_name(full[0].dst),
             (long long)ring, (long long)slot);
  else
    snprintf(wbase, sizeof wbase, "%s + (hy_i64)e * %lld", hy_cg_buffer_name(full[0].dst),
             (long long)slot);
  char lds[2][64];
  for (int i = 0; i < 2; i++) {
    if (dialect == HY_DIALECT_CUDA)
      snprintf(lds[i], sizeof lds[i], "(%s *)hy_smem", split[i] ? "real" : "real2");
    else
      snprintf(lds[i], sizeof lds[i], "(__local %s *)hy_lds", split[i] ? "real" : "real2");
  }
  /* What the ticket waits for and what it counts, then the pass. The
   * waits, counts and barriers are the same statements for every ticket
   * (a wait for 0 passes at once): PoCL's work-item loops hung on a count
   * by one thread that ran straight into the next ticket's claim, and gave
   * wrong results now and then with the waits inside the branches. */
  hy_strbuf_append(sb, "    int wi, wn, si;\n");
  if (use_ring)
    hy_strbuf_appendf(sb,
                      "    if (ph == 0) { wi = e >= %lld ? %lld + e : 0; wn = e >= %lld ? %lld : 0; "
                      "si = 1 + e; }\n",
                      (long long)ring, (long long)(1 + batch - ring), (long long)ring,
                      (long long)blocks_b);
  else
    hy_strbuf_append(sb, "    if (ph == 0) { wi = 0; wn = 0; si = 1 + e; }\n");
  hy_strbuf_appendf(sb, "    else { wi = 1 + e; wn = %lld; si = %lld + e; }\n", (long long)blocks_a,
                    (long long)(1 + batch));
  hy_cg_persist_wait(sb, dialect, "wi", "wn", "    ");
  char src0[160], dst1[160];
  snprintf(src0, sizeof src0, "%s + (hy_i64)e * %lld", hy_cg_buffer_name(full[0].src),
           (long long)full[0].loops[0].in_stride);
  snprintf(dst1, sizeof dst1, "%s + (hy_i64)e * %lld", hy_cg_buffer_name(full[1].dst),
           (long long)full[1].loops[0].out_stride);
  hy_strbuf_append(sb, "    if (ph == 0) {\n");
  if (dialect == HY_DIALECT_CUDA)
    hy_strbuf_appendf(sb, "      %s(hy_ld_stream{%s}, %s", body_name[0], src0, wbase);
  else
    hy_strbuf_appendf(sb, "      %s(%s, %s", body_name[0], src0, wbase);
  for (int a = 0; a < ntargs[0]; a++) hy_strbuf_appendf(sb, ", hy_t0_%d", a);
  hy_strbuf_appendf(sb, ", j, %s);\n", lds[0]);
  hy_strbuf_append(sb, "    } else {\n");
  if (dialect == HY_DIALECT_CUDA)
    hy_strbuf_appendf(sb, "      %s(hy_ld_l2{%s}, hy_st_stream{%s}", body_name[1], wbase, dst1);
  else
    hy_strbuf_appendf(sb, "      %s(%s, %s", body_name[1], wbase, dst1);
  for (int a = 0; a < ntargs[1]; a++) hy_strbuf_appendf(sb, ", hy_t1_%d", a);
  hy_strbuf_appendf(sb, ", j, %s);\n", lds[1]);
  hy_strbuf_append(sb, "    }\n");
  hy_cg_persist_signal(sb, dialect, "si", "    ");
  hy_strbuf_append(sb, "    HY_BARRIER();\n  }\n}\n\n");
  out->kernel_end[1] = sb->len;
  out->nkernels = 2;

  /* Launches: clear, then as many blocks as the device holds at once. */
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
  int64_t per_cu = 2048 / la->block;
  if (shared > 0) {
    int64_t by_shared = (caps->local_memory + 1024) / ((int64_t)shared + 1024);
    if (by_shared < per_cu) per_cu = by_shared;
  }
  if (per_cu < 1) per_cu = 1;
  int64_t units = caps->compute_units > 0 ? caps->compute_units : 1;
  p->grid = units * per_cu < tickets ? units * per_cu : tickets;
  p->block = la->block;
  p->shared_bytes = dialect == HY_DIALECT_CUDA ? shared : shared + sizeof(int);
  for (int j = 0; j < nbufs; j++) p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_BUFFER, bufs[j]};
  for (int i = 0; i < 2; i++)
    for (int a = 0; a < ntargs[i]; a++) p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_TABLE, targs[i][a]};
  p->args[p->nargs++] = (hy_kernel_arg){HY_ARG_BLOCK_OFFSET, 0};
  out->nlaunches = 2;
  st = hy_strbuf_status(sb);
  if (st != HYFFT_SUCCESS) {
    hy_gpu_program_free(out);
    return st;
  }
  *made = 1;
  return HYFFT_SUCCESS;
}
