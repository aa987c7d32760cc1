/* hy_codegen_plan: the whole program of a plan tree, one kernel per pass,
 * in one translation unit (with the layout that cuts it into one unit per
 * kernel). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_internal.h"
#include "codegen/codegen.h"

/* L2 chunks (DESIGN: keep multi-pass intermediates in L2). A plan of
 * several passes over a batch normally runs pass 1 over every element,
 * then pass 2 over every element: each pass streams the whole batch
 * through DRAM. When one element's data are a small part of L2, the
 * launches are cut into chunks of whole elements instead, and every pass
 * runs over chunk 1 before any runs over chunk 2: pass 2 then reads what
 * pass 1 just wrote from L2, and in-place passes on the output touch DRAM
 * once. Needs every launch to cover whole elements with whole blocks, in
 * element order (hy_launch.batch_blocks). Chunks stay few enough for
 * HY_MAX_LAUNCHES.
 *
 * The budget, the bytes of L2 a chunk may take, is the planner's
 * (hy_plan_tree.l2_chunk_bytes, kernel_model.c); 0 keeps the plain order. */
static void hy_cg_schedule_chunks(const hy_problem *problem, const hy_plan_tree *tree,
                                  hy_gpu_program *prog) {
  int n = prog->nlaunches;
  if (n < 2 || n != tree->npasses || problem->batch_rank < 1) return;
  int64_t batch = problem->batch[0].n;
  if (batch < 2) return;
  int64_t elem = problem->precision == HYFFT_F64 ? 16 : 8;
  int64_t per = 0; /* bytes one batch element occupies in the largest pass */
  for (int i = 0; i < n; i++) {
    const hy_launch *l = &prog->launches[i];
    if (l->batch_blocks <= 0 || l->block_offset != 0 || l->grid != l->batch_blocks * batch) return;
    const hy_pass *pass = &tree->passes[i];
    int64_t bytes = hy_pass_count(pass) / batch * pass->axis.n * elem;
    if (bytes > per) per = bytes;
  }
  /* Every pass must keep each batch element in one place of each buffer:
   * a buffer whose element stride changes between passes (a work buffer
   * reused with another layout once an earlier pass has read it all)
   * would have a later chunk's data overwritten before it is read. */
  int64_t where[HY_BUF_COUNT];
  for (int b = 0; b < HY_BUF_COUNT; b++) where[b] = -1;
  for (int i = 0; i < n; i++) {
    const hy_pass *pass = &tree->passes[i];
    if (pass->nloops < 1 || pass->loops[0].n != batch) return;
    const int64_t side[2] = {pass->loops[0].in_stride, pass->loops[0].out_stride};
    const hy_buffer buf[2] = {pass->src, pass->dst};
    for (int k = 0; k < 2; k++) {
      if (buf[k] < 0 || buf[k] >= HY_BUF_COUNT) return;
      if (where[buf[k]] >= 0 && where[buf[k]] != side[k]) return;
      where[buf[k]] = side[k];
    }
  }
  int64_t budget = tree->l2_chunk_bytes;
  if (budget <= 0 || per <= 0 || per > budget) return;
  int64_t chunk = budget / per;
  if (chunk >= batch) return;
  int64_t most = HY_MAX_LAUNCHES / n;
  if ((batch + chunk - 1) / chunk > most) chunk = (batch + most - 1) / most;
  int64_t nchunks = (batch + chunk - 1) / chunk;
  if (nchunks < 2) return;
  hy_launch plain[HY_MAX_LAUNCHES];
  memcpy(plain, prog->launches, (size_t)n * sizeof plain[0]);
  prog->nlaunches = 0;
  for (int64_t c = 0; c < nchunks; c++) {
    int64_t first = c * chunk, last = first + chunk < batch ? first + chunk : batch;
    for (int i = 0; i < n; i++) {
      hy_launch *l = &prog->launches[prog->nlaunches++];
      *l = plain[i];
      l->block_offset = first * plain[i].batch_blocks;
      l->grid = (last - first) * plain[i].batch_blocks;
    }
  }
}


/* The persistent program borrowed tables of the plain one it was made
 * from: it now owns them, and the plain program, about to be freed, no
 * longer does. */
static void hy_cg_take_borrowed(hy_gpu_program *plain, hy_gpu_program *fused) {
  for (int i = 0; i < fused->ntables; i++) {
    if (!fused->tables[i].borrowed) continue;
    for (int j = 0; j < plain->ntables; j++)
      if (plain->tables[j].data == fused->tables[i].data) plain->tables[j].data = NULL;
    fused->tables[i].borrowed = 0;
  }
}




/* The plain program the persistent one was made from, kept as a program
 * of its own: it gets its own copy of every table the persistent program
 * borrowed, so that each frees only what it owns. */
static hy_status hy_cg_keep_plain(hy_gpu_program *plain, hy_gpu_program *fused) {
  for (int i = 0; i < fused->ntables; i++) {
    hy_table *t = &fused->tables[i];
    if (!t->borrowed) continue;
    size_t bytes = hy_table_bytes(t);
    void *copy = hy_malloc(bytes ? bytes : 1);
    if (!copy) return hy_error(HYFFT_OUT_OF_MEMORY, "codegen: cannot copy a %zu-byte table", bytes);
    memcpy(copy, t->data, bytes);
    t->data = copy;
    t->borrowed = 0;
  }
  fused->reuse = NULL;
  return HYFFT_SUCCESS;
}

static uint64_t hy_cg_program_hash(const hy_gpu_program *p) {
  uint64_t h = hy_hash_u64(HY_HASH_INIT, HY_CODEGEN_VERSION);
  return hy_hash_bytes(h, p->source.data, p->source.len);
}

hy_status hy_codegen_plan(const hy_problem *problem, const hy_plan_tree *tree,
                          const hy_device_caps *caps, hy_dialect dialect, hy_gpu_program *out) {
  return hy_codegen_plan_tiers(problem, tree, caps, dialect, out, NULL);
}

hy_status hy_codegen_plan_tiers(const hy_problem *problem, const hy_plan_tree *tree,
                                const hy_device_caps *caps, hy_dialect dialect,
                                hy_gpu_program *out, hy_gpu_program *plain) {
  if (plain) memset(plain, 0, sizeof *plain);
  if (!problem || !tree || !caps || !out)
    return hy_error(HYFFT_NULL_POINTER, "codegen: NULL argument");
  if (dialect != HY_DIALECT_OPENCL && dialect != HY_DIALECT_CUDA)
    return hy_error(HYFFT_INVALID_ARGUMENT, "codegen: unknown dialect %d", (int)dialect);
  if (!tree->specs_ready)
    return hy_error(HYFFT_INTERNAL, "codegen: the plan tree's kernel specs were not chosen "
                    "(hy_planner_finalize)");
  memset(out, 0, sizeof *out);
  out->dialect = dialect;
  hy_strbuf_init(&out->source);
  hy_strbuf *sb = &out->source;
  /* Where the data live does not change a kernel: leave it out of the token
   * so host and device-memory plans share compiled programs. */
  hyfft_problem named = problem->user;
  named.memory = HYFFT_MEMORY_HOST;

  hy_strbuf_append(sb, "/* Generated by the hyfft kernel generator (src/codegen), version ");
  hy_strbuf_appendf(sb, "%d, for ", HY_CODEGEN_VERSION);
  hy_token_print(&named, sb);
  hy_strbuf_appendf(sb, " (%s dialect). Do not edit. */\n",
                    dialect == HY_DIALECT_OPENCL ? "OpenCL C" : "CUDA C");
  out->prelude_begin = sb->len;
  hy_cg_preamble(sb, dialect, problem->precision);
  hy_cg_storage_preamble(sb, dialect, problem->storage);
  hy_cg_callback_preamble(sb, dialect, problem);
  out->prelude_end = sb->len;

  hy_status st = HYFFT_SUCCESS;
  for (int i = 0; i < tree->npasses && st == HYFFT_SUCCESS; i++) {
    const hy_pass *pass = &tree->passes[i];
    if (pass->precision != problem->precision) {
      st = hy_error(HYFFT_INTERNAL, "codegen: pass %d precision differs from the problem's", i);
      break;
    }
    if (st == HYFFT_SUCCESS) {
      hy_strbuf_append(sb, "/* ");
      hy_token_print(&named, sb);
      hy_strbuf_append(sb, " */\n");
      int k = out->nkernels;
      size_t begin = sb->len;
      st = hy_cg_pass_kernel(problem, pass, i, caps, &pass->spec, out);
      if (st == HYFFT_SUCCESS) st = hy_cg_storage_kernel(problem, pass, sb, begin);
      if (st == HYFFT_SUCCESS && out->nkernels == k + 1)
        st = hy_cg_callback_kernel(problem, tree, i, out, k, begin);
      /* A block is one kernel and nothing at file scope besides: that is
       * what makes prelude + block a complete translation unit. */
      if (st == HYFFT_SUCCESS && out->nkernels != k + 1)
        st = hy_error(HYFFT_INTERNAL, "codegen: pass %d made %d kernels, not 1", i,
                      out->nkernels - k);
      if (st == HYFFT_SUCCESS) {
        out->kernel_begin[k] = begin;
        out->kernel_end[k] = sb->len;
      }
    }
  }
  if (st == HYFFT_SUCCESS) st = hy_strbuf_status(sb);
  if (st != HYFFT_SUCCESS) {
    hy_gpu_program_free(out);
    return st;
  }
  hy_gpu_program fused;
  int made = 0;
  /* The persistent kernel is built from the passes' steps, not from the
   * kernels the callback rewrite changed: callback plans keep one kernel
   * per pass. */
  if (!problem->load_cb && !problem->store_cb)
    st = hy_cg_persist(problem, tree, caps, out, &fused, &made);
  if (st != HYFFT_SUCCESS) {
    hy_gpu_program_free(out);
    return st;
  }
  if (made && plain) {
    st = hy_cg_keep_plain(out, &fused);
    if (st != HYFFT_SUCCESS) {
      hy_gpu_program_free(&fused);
      hy_gpu_program_free(out);
      return st;
    }
    hy_cg_schedule_chunks(problem, tree, out);
    out->hash = hy_cg_program_hash(out);
    *plain = *out;
    *out = fused;
  } else if (made) {
    hy_cg_take_borrowed(out, &fused);
    hy_gpu_program_free(out);
    *out = fused;
  } else {
    hy_cg_schedule_chunks(problem, tree, out);
  }
  out->hash = hy_cg_program_hash(out);
  return HYFFT_SUCCESS;
}
