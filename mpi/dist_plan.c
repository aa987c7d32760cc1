/* Distributed plans: the stage list (local hyfft plans and global
 * transposes), collective validation, execution and destruction.
 *
 * A decomposition has a chain of states (slab: normal, transposed; pencil:
 * x-, y- and z-pencils). The forward chain F transforms the axes each state
 * holds whole and moves to the next state between them. Forward-mode
 * problems (R2C, C2C with normal input) run F and then, unless the output
 * stays transposed, transpose back to the normal state. Reverse-mode
 * problems (C2R, C2C with transposed input) first move a normal input to
 * the last state, then run F backwards, which ends in the normal state with
 * the real axis (if any) transformed last. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

#define HY_DIST_MAGIC 0x68794469737450ULL /* "hyDistP" */
#define HY_DIST_MAX_STAGES 8
#define HY_DIST_MAX_CHUNKS 16

enum { HY_BUF_IN = 0, HY_BUF_OUT = 1, HY_BUF_W0 = 2, HY_BUF_W1 = 3, HY_BUF_PACK = 4 };

typedef struct hy_dist_stage {
  int is_redist;
  hyfft_plan local; /* NULL where this rank's box is empty */
  hy_dist_redist redist;
  /* Overlap (a local stage whose transpose follows, HYFFT_DIST_OVERLAP):
   * the local transform cut into nchunks along the axis that transpose
   * gathers, one plan per chunk (NULL where the chunk is empty) at byte
   * offsets into the stage's source and destination, and the transpose cut
   * the same way (chunk_redist[c] sends what chunk c's plan wrote). */
  int nchunks;
  hyfft_plan chunk_plan[HY_DIST_MAX_CHUNKS];
  size_t chunk_src_off[HY_DIST_MAX_CHUNKS], chunk_dst_off[HY_DIST_MAX_CHUNKS];
  hy_dist_redist *chunk_redist;
} hy_dist_stage;

struct hyfft_dist_plan_s {
  uint64_t magic;
  hyfft_dist_problem problem;
  hy_dist_geometry geom;
  hyfft_dist_layout layout;
  MPI_Comm comm;            /* duplicate of the caller's */
  MPI_Comm cart, comm_p, comm_q; /* pencil: the grid and its two sub-communicators */
  MPI_Datatype elem;        /* one complex element */
  size_t esize;
  int nstages;
  hy_dist_stage stages[HY_DIST_MAX_STAGES];
  void *work[3];        /* two for the steps, a third for packing (host memory) */
  int need_pack_buffer;
  /* Device buffers (problem.memory == HYFFT_MEMORY_DEVICE): the context
   * they belong to, and the two device work buffers the local steps run
   * between; work[] then stages the transposes on the host. */
  hyfft_context ctx;
  void *dev_work[2];
  int overlap; /* chunks of the overlapped transposes (HYFFT_DIST_OVERLAP); 0: plain */
  int64_t direct_min; /* the least run of a direct transpose, bytes (HYFFT_DIST_DIRECT_MIN); 0: none */
  hyfft_dist_times times;
};

/* Agree on a status across comm: every rank gets the largest status of any
 * rank (the lowest such rank named), its own message if it failed itself. */
static hyfft_status hy_dist_agree(MPI_Comm comm, hyfft_status local, const char *what) {
  int me = 0;
  int rc = MPI_Comm_rank(comm, &me);
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Comm_rank");
  int in[2] = {(int)local, me}, out[2] = {0, 0};
  rc = MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, comm);
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Allreduce (status agreement)");
  if (out[0] == HYFFT_SUCCESS) return HYFFT_SUCCESS;
  if (local != HYFFT_SUCCESS) return local;
  return hy_dist_error((hyfft_status)out[0], "%s failed on rank %d: %s", what, out[1],
                       hyfft_status_name((hyfft_status)out[0]));
}

/* ---- destruction ----------------------------------------------------------- */

static void hy_dist_comm_free(MPI_Comm *c) {
  if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
  *c = MPI_COMM_NULL;
}

static void hy_dist_plan_free(struct hyfft_dist_plan_s *p) {
  for (int k = 0; k < p->nstages; k++) {
    hy_dist_stage *st = &p->stages[k];
    if (st->local) hyfft_plan_destroy(st->local);
    hy_dist_redist_free(&st->redist);
    for (int c = 0; c < st->nchunks; c++) {
      if (st->chunk_plan[c]) hyfft_plan_destroy(st->chunk_plan[c]);
      if (st->chunk_redist) hy_dist_redist_free(&st->chunk_redist[c]);
    }
    free(st->chunk_redist);
  }
  for (int i = 0; i < 3; i++) free(p->work[i]);
  for (int i = 0; i < 2; i++)
    if (p->dev_work[i]) hyfft_buffer_free(p->ctx, p->dev_work[i]);
  if (p->elem != MPI_DATATYPE_NULL) MPI_Type_free(&p->elem);
  hy_dist_comm_free(&p->comm_p);
  hy_dist_comm_free(&p->comm_q);
  hy_dist_comm_free(&p->cart);
  hy_dist_comm_free(&p->comm);
  p->magic = 0;
  free(p);
}

/* ---- building -------------------------------------------------------------- */

/* A local stage: the axes `axes` (count naxes) transformed from state
 * `from` to state `to` (the same split; the memory orders may differ, so
 * that the output lands in the order the next transpose wants). R2C reads
 * the padded real side, C2R writes it. */
/* The local plan of a stage, or of chunk c of `chunks` of its rows along
 * the batch axis `chunk_axis` (< 0: the whole stage), with the chunk's byte
 * offsets into the stage's source and destination. *plan is NULL where
 * there is nothing to transform. */
static hyfft_status hy_dist_local_plan(struct hyfft_dist_plan_s *p, hyfft_context ctx,
                                       unsigned flags, const hy_dist_state *from,
                                       const hy_dist_state *to, const int *axes, int naxes,
                                       hyfft_kind kind, int sign, int chunk_axis, int chunks,
                                       int c, hyfft_plan *plan, size_t *src_off,
                                       size_t *dst_off) {
  const hy_dist_geometry *g = &p->geom;
  hyfft_dist_box src, dst;
  hy_dist_box_of(g, from, g->coords[0], g->coords[1], kind == HYFFT_R2C, &src);
  hy_dist_box_of(g, to, g->coords[0], g->coords[1], kind == HYFFT_C2R, &dst);
  *plan = NULL;
  *src_off = *dst_off = 0;
  if (chunk_axis >= 0) {
    int64_t lo, n;
    hy_dist_chunk(dst.count[chunk_axis], chunks, c, &lo, &n);
    *src_off = (size_t)(lo * src.stride[chunk_axis]) * (kind == HYFFT_R2C ? p->esize / 2 : p->esize);
    *dst_off = (size_t)(lo * dst.stride[chunk_axis]) * (kind == HYFFT_C2R ? p->esize / 2 : p->esize);
    src.count[chunk_axis] = n;
    if (n == 0) src.elements = 0;
  }
  if (src.elements == 0) return HYFFT_SUCCESS;
  hyfft_problem prob;
  memset(&prob, 0, sizeof prob);
  prob.kind = kind;
  prob.precision = p->problem.precision;
  prob.sign = sign;
  prob.memory = p->problem.memory;
  /* Transform dims by axis (the real axis, the last, is the halved one);
   * batch dims are the others. */
  for (int a = 0; a < 3; a++) {
    int transformed = 0;
    for (int i = 0; i < naxes; i++) transformed |= axes[i] == a;
    hyfft_dim d;
    d.n = (kind != HYFFT_C2C && a == g->real_axis) ? g->n[a] : src.count[a];
    d.in_stride = src.stride[a];
    d.out_stride = dst.stride[a];
    /* The boxes count elements of howmany values: strides in values. */
    d.in_stride *= g->howmany;
    d.out_stride *= g->howmany;
    if (transformed)
      prob.dims[prob.rank++] = d;
    else if (d.n > 1)
      prob.batch[prob.batch_rank++] = d;
  }
  if (g->howmany > 1) {
    /* The interleaved transforms: the innermost batch dim, values side by side. */
    hyfft_dim h = {g->howmany, 1, 1};
    prob.batch[prob.batch_rank++] = h;
  }
  hyfft_status s = hyfft_plan_create(ctx, &prob, flags, plan);
  if (s != HYFFT_SUCCESS) {
    *plan = NULL;
    return hy_dist_hyfft_error(s, "planning a local transform");
  }
  return HYFFT_SUCCESS;
}

static hyfft_status hy_dist_local_stage(struct hyfft_dist_plan_s *p, hyfft_context ctx,
                                        unsigned flags, const hy_dist_state *from,
                                        const hy_dist_state *to, const int *axes, int naxes,
                                        hyfft_kind kind, int sign, hy_dist_stage *stage) {
  size_t so, dof;
  stage->is_redist = 0;
  return hy_dist_local_plan(p, ctx, flags, from, to, axes, naxes, kind, sign, -1, 1, 0,
                            &stage->local, &so, &dof);
}

/* The axis a transpose gathers (split before, whole after) and the one it
 * splits, and the grid dim it runs over. */
static void hy_dist_moved(const hy_dist_state *from, const hy_dist_state *to, int *gather,
                          int *split, int *grid_dim) {
  *gather = *split = *grid_dim = -1;
  for (int a = 0; a < 3; a++) {
    if (from->split[a] != HY_DIST_FULL && to->split[a] == HY_DIST_FULL) *gather = a;
    if (from->split[a] == HY_DIST_FULL && to->split[a] != HY_DIST_FULL) {
      *split = a;
      *grid_dim = to->split[a] - 1;
    }
  }
}

/* An order with axis a slowest, the others in increasing order. */
static void hy_dist_front(int a, int *order) {
  int k = 0;
  order[k++] = a;
  for (int b = 0; b < 3; b++)
    if (b != a) order[k++] = b;
}

/* The forward chain of a decomposition: for each state, the axes it
 * transforms. */
static int hy_dist_chain(const hy_dist_geometry *g, int axes[HY_DIST_MAX_STATES][3],
                         int naxes[HY_DIST_MAX_STATES]) {
  if (g->decomposition == HYFFT_DIST_SLAB) {
    naxes[0] = 0;
    for (int a = 1; a < g->rank; a++) axes[0][naxes[0]++] = a;
    axes[1][0] = 0;
    naxes[1] = 1;
    return 2;
  }
  axes[0][0] = 2;
  axes[1][0] = 1;
  axes[2][0] = 0;
  naxes[0] = naxes[1] = naxes[2] = 1;
  return 3;
}

/* One step of the pipeline before the memory orders are chosen. */
typedef struct hy_dist_op {
  int redist;
  int from, to; /* state indices (equal for a local step) */
  int axes[3], naxes;
  hyfft_kind kind;
} hy_dist_op;

static hyfft_status hy_dist_build(struct hyfft_dist_plan_s *p, hyfft_context ctx,
                                  unsigned flags) {
  const hyfft_dist_problem *pr = &p->problem;
  const hy_dist_geometry *geom = &p->geom;
  hyfft_status s;
  int rc;
  if (geom->decomposition == HYFFT_DIST_PENCIL) {
    int dims[2] = {geom->grid[0], geom->grid[1]}, periods[2] = {0, 0};
    int keep_p[2] = {1, 0}, keep_q[2] = {0, 1};
    rc = MPI_Cart_create(p->comm, 2, dims, periods, 0, &p->cart);
    if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Cart_create");
    rc = MPI_Cart_sub(p->cart, keep_p, &p->comm_p);
    if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Cart_sub");
    rc = MPI_Cart_sub(p->cart, keep_q, &p->comm_q);
    if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Cart_sub");
  } else {
    rc = MPI_Comm_dup(p->comm, &p->comm_p);
    if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Comm_dup");
  }
  /* An element of the transposes: howmany complex values. */
  p->esize = (size_t)geom->howmany * (pr->precision == HYFFT_F32 ? 8 : 16);
  if (p->esize > INT_MAX)
    return hy_dist_error(HYFFT_SIZE_OVERFLOW, "howmany = %lld: an element exceeds INT_MAX bytes",
                         (long long)geom->howmany);
  rc = MPI_Type_contiguous((int)p->esize, MPI_BYTE, &p->elem);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&p->elem);
  if (rc != MPI_SUCCESS) {
    p->elem = MPI_DATATYPE_NULL;
    return hy_dist_mpi_error(rc, "MPI_Type_contiguous");
  }

  /* 1. The steps. */
  int axes[HY_DIST_MAX_STATES][3], naxes[HY_DIST_MAX_STATES];
  int ns = hy_dist_chain(geom, axes, naxes);
  int reverse = pr->kind == HYFFT_C2R ||
                (pr->kind == HYFFT_C2C && (pr->layout & HYFFT_DIST_TRANSPOSED_IN));
  int in_state = (reverse && (pr->layout & HYFFT_DIST_TRANSPOSED_IN)) ? ns - 1 : 0;
  int out_state = (!reverse && (pr->layout & HYFFT_DIST_TRANSPOSED_OUT)) ? ns - 1 : 0;
  hy_dist_op ops[HY_DIST_MAX_STAGES];
  int nops = 0;
  memset(ops, 0, sizeof ops);
#define HY_DIST_REDIST(a, b) (ops[nops].redist = 1, ops[nops].from = (a), ops[nops++].to = (b))
#define HY_DIST_LOCAL(i)                                                  \
  do {                                                                    \
    ops[nops].from = ops[nops].to = (i);                                  \
    ops[nops].naxes = naxes[i];                                           \
    memcpy(ops[nops].axes, axes[i], sizeof axes[i]);                      \
    ops[nops].kind = (i) == 0 ? pr->kind : HYFFT_C2C;                     \
    nops++;                                                               \
  } while (0)
  if (geom->grid[0] * geom->grid[1] == 1) {
    /* One rank: the whole transform is one local plan, from the input
     * layout to the output layout. */
    ops[0].from = in_state;
    ops[0].to = out_state;
    ops[0].kind = pr->kind;
    for (int a = 0; a < geom->rank; a++) ops[0].axes[ops[0].naxes++] = a;
    nops = 1;
  } else if (!reverse) {
    for (int i = 0; i < ns; i++) {
      if (i > 0) HY_DIST_REDIST(i - 1, i);
      HY_DIST_LOCAL(i);
    }
    if (out_state == 0)
      for (int i = ns - 1; i > 0; i--) HY_DIST_REDIST(i, i - 1);
  } else {
    if (in_state == 0)
      for (int i = 1; i < ns; i++) HY_DIST_REDIST(i - 1, i);
    for (int i = ns - 1; i >= 0; i--) {
      HY_DIST_LOCAL(i);
      if (i > 0) HY_DIST_REDIST(i, i - 1);
    }
  }
#undef HY_DIST_REDIST
#undef HY_DIST_LOCAL

  /* A transpose over a grid dim of one rank (a pencil grid P x 1 or 1 x Q)
   * moves no data between ranks: its two states hold the same box, only
   * the memory order differs, which the local steps set for free. Such
   * transposes are dropped, and the local steps that then follow one
   * another become one step over the union of their axes (from the first
   * one's state to the last one's; R2C or C2R if either is, the real axis
   * staying the last transformed axis), so that a P x 1 pencil runs as a
   * slab: one 2D step, one transpose, one 1D step. */
  if (geom->grid[0] * geom->grid[1] > 1) {
    int w = 0;
    for (int k = 0; k < nops; k++) {
      if (ops[k].redist) {
        int g, sp, gd;
        hy_dist_moved(&geom->states[ops[k].from], &geom->states[ops[k].to], &g, &sp, &gd);
        if (gd >= 0 && geom->grid[gd] == 1) continue;
      } else if (w > 0 && !ops[w - 1].redist) {
        hy_dist_op *m = &ops[w - 1];
        m->to = ops[k].to;
        for (int i = 0; i < ops[k].naxes; i++) m->axes[m->naxes++] = ops[k].axes[i];
        if (ops[k].kind != HYFFT_C2C) m->kind = ops[k].kind;
        continue;
      }
      ops[w++] = ops[k];
    }
    nops = w;
  }

  /* 2. The memory order between steps. The caller's layouts fix the first
   * and the last; in between, a transpose that gathers axis g receives
   * straight into its destination when g is the slowest axis of both its
   * source and destination orders (the peers' blocks then follow one
   * another), and sends straight from its source when the axis it splits
   * is the slowest of the source. Local steps reorder for free (their
   * output strides), so they write what the next transpose wants. */
  int ord[HY_DIST_MAX_STAGES + 1][3];
  memcpy(ord[0], geom->states[in_state].order, sizeof ord[0]);
  memcpy(ord[nops], geom->states[out_state].order, sizeof ord[nops]);
  for (int k = 0; k + 1 < nops; k++) {
    const hy_dist_op *op = &ops[k];
    if (!op->redist) {
      int g, sp, gd;
      hy_dist_moved(&geom->states[ops[k + 1].from], &geom->states[ops[k + 1].to], &g, &sp, &gd);
      if (k + 2 == nops && ord[nops][0] != g)
        hy_dist_front(sp, ord[k + 1]); /* the last transpose unpacks: send unpacked */
      else if (k + 2 == nops)
        memcpy(ord[k + 1], ord[nops], sizeof ord[k + 1]);
      else
        hy_dist_front(g, ord[k + 1]);
    } else {
      int g, sp, gd;
      hy_dist_moved(&geom->states[op->from], &geom->states[op->to], &g, &sp, &gd);
      if (ord[k][0] == g)
        memcpy(ord[k + 1], ord[k], sizeof ord[k + 1]);
      else
        hy_dist_front(g, ord[k + 1]);
    }
  }

  /* 3. The stages. */
  for (int k = 0; k < nops; k++) {
    const hy_dist_op *op = &ops[k];
    hy_dist_state from = geom->states[op->from], to = geom->states[op->to];
    memcpy(from.order, ord[k], sizeof from.order);
    memcpy(to.order, ord[k + 1], sizeof to.order);
    p->nstages = k + 1;
    if (op->redist) {
      int g, sp, gd;
      hy_dist_moved(&from, &to, &g, &sp, &gd);
      if (gd < 0) return hy_dist_error(HYFFT_INTERNAL, "a transpose that moves no axis");
      p->stages[k].is_redist = 1;
      s = hy_dist_redist_init(&p->stages[k].redist, geom, &from, &to, gd,
                              gd == 0 ? p->comm_p : p->comm_q, p->direct_min, p->esize);
      if (s != HYFFT_SUCCESS) return s;
      const hy_dist_redist *r = &p->stages[k].redist;
      if ((r->pack || r->unpack) && !r->direct) p->need_pack_buffer = 1;
    } else {
      s = hy_dist_local_stage(p, ctx, flags, &from, &to, op->axes, op->naxes, op->kind, pr->sign,
                              &p->stages[k]);
      if (s != HYFFT_SUCCESS) return s;
    }
  }

  /* 4. Overlap: a local step followed by a transpose that receives in place
   * (no unpacking), over more than one rank, gathering an axis the local
   * step does not transform, is also cut into p->overlap chunks along that
   * axis, so that chunk c's all-to-all runs while chunk c + 1 transforms.
   * The buffers must not collide while chunks are in flight: the step's
   * source must not be the transpose's destination, which holds for the
   * first step (input to a work buffer, unless the transpose is the last
   * step: the output may be the input) and for a later step only when the
   * transpose is the last (it receives into the output). The conditions
   * depend on the problem only, so every rank cuts the same stages. */
  for (int k = 0; p->overlap > 1 && k + 1 < nops; k++) {
    const hy_dist_op *op = &ops[k];
    hy_dist_stage *rs = &p->stages[k + 1];
    if (op->redist || !ops[k + 1].redist || rs->redist.unpack || rs->redist.peers < 2) continue;
    if (!((k == 0 && k + 2 < nops) || (k >= 1 && k + 2 == nops))) continue;
    int g, sp, gd;
    hy_dist_moved(&geom->states[ops[k + 1].from], &geom->states[ops[k + 1].to], &g, &sp, &gd);
    int transformed = 0;
    for (int i = 0; i < op->naxes; i++) transformed |= op->axes[i] == g;
    if (transformed || g < 0) continue;
    hy_dist_stage *ls = &p->stages[k];
    hy_dist_state from = geom->states[op->from], to = geom->states[op->to];
    memcpy(from.order, ord[k], sizeof from.order);
    memcpy(to.order, ord[k + 1], sizeof to.order);
    hy_dist_state rto = geom->states[ops[k + 1].to];
    memcpy(rto.order, ord[k + 2], sizeof rto.order);
    ls->chunk_redist = calloc((size_t)p->overlap, sizeof *ls->chunk_redist);
    if (!ls->chunk_redist) return hy_dist_error(HYFFT_OUT_OF_MEMORY, "overlap chunks");
    int64_t base = 0;
    for (int c = 0; c < p->overlap; c++) {
      ls->nchunks = c + 1;
      s = hy_dist_local_plan(p, ctx, flags, &from, &to, op->axes, op->naxes, op->kind, pr->sign, g,
                             p->overlap, c, &ls->chunk_plan[c], &ls->chunk_src_off[c],
                             &ls->chunk_dst_off[c]);
      if (s != HYFFT_SUCCESS) return s;
      s = hy_dist_redist_init_chunk(&ls->chunk_redist[c], geom, &to, &rto, gd,
                                    gd == 0 ? p->comm_p : p->comm_q, g, p->overlap, c, base);
      if (s != HYFFT_SUCCESS) return s;
      /* The chunks pack into the pack buffer even where the whole
       * transpose would have gone direct. */
      if (ls->chunk_redist[c].pack) p->need_pack_buffer = 1;
      base += ls->chunk_redist[c].send_total;
    }
  }

  /* Work buffers, each holding any state's box (packed streams are no
   * larger than the box they come from); the third only for packing. */
  int64_t most = 1;
  for (int i = 0; i < ns; i++) {
    hyfft_dist_box b;
    hy_dist_box_of(geom, &geom->states[i], geom->coords[0], geom->coords[1], 0, &b);
    if (b.elements > most) most = b.elements;
  }
  size_t bytes = (size_t)most * p->esize;
  bytes = (bytes + 63) / 64 * 64;
  /* A single step (one rank) uses its work buffer only when run in place:
   * it then writes the buffer and copies it to the output. */
  int nwork = nops == 1 ? 1 : (p->need_pack_buffer ? 3 : 2);
  /* With device buffers the local steps run between two device work
   * buffers, and a transpose stages its source box in work[0], its
   * result in work[1] and packs in work[2] (every transpose may pack);
   * a single step (one rank) in place writes dev_work[0] and copies it
   * back through work[0]. */
  int device = p->problem.memory == HYFFT_MEMORY_DEVICE;
  if (device && nops > 1) nwork = 3;
  for (int i = 0; i < nwork; i++) {
    p->work[i] = aligned_alloc(64, bytes);
    if (!p->work[i])
      return hy_dist_error(HYFFT_OUT_OF_MEMORY, "%zu bytes of work buffer", bytes);
  }
  for (int i = 0; device && i < (nops > 1 ? 2 : 1); i++) {
    hyfft_status e = hyfft_buffer_alloc(ctx, bytes, &p->dev_work[i]);
    if (e != HYFFT_SUCCESS) {
      p->dev_work[i] = NULL;
      return hy_dist_hyfft_error(e, "a device work buffer");
    }
  }
  return HYFFT_SUCCESS;
}

/* A fingerprint of the problem and flags, compared across ranks. */
#define HY_DIST_PRINT_FIELDS 16
static const char *const hy_dist_print_names[HY_DIST_PRINT_FIELDS] = {
    "kind", "precision", "sign", "rank", "n[0]", "n[1]", "n[2]",
    "decomposition", "grid[0]", "grid[1]", "layout", "flags", "HYFFT_DIST_OVERLAP", "memory",
    "HYFFT_DIST_DIRECT_MIN", "howmany"};

/* HYFFT_DIST_OVERLAP: the chunks of the overlapped transposes, 2 to
 * HY_DIST_MAX_CHUNKS; unset, empty, 0 or 1: the plain path. -1 for a value
 * that is none of these. */
static int hy_dist_overlap_env(void) {
  const char *e = getenv("HYFFT_DIST_OVERLAP");
  if (!e || !*e) return 0;
  char *end = NULL;
  long v = strtol(e, &end, 10);
  if (*end || v < 0 || v > HY_DIST_MAX_CHUNKS) return -1;
  return v < 2 ? 0 : (int)v;
}

/* HYFFT_DIST_DIRECT_MIN: the least run, in bytes, of a direct transpose;
 * 0 turns direct transposes off; unset or empty: the default. -1 for a
 * value that is not a count of bytes. */
static int64_t hy_dist_direct_min_env(void) {
  const char *e = getenv("HYFFT_DIST_DIRECT_MIN");
  if (!e || !*e) return HY_DIST_DIRECT_MIN_DEFAULT;
  char *end = NULL;
  long long v = strtoll(e, &end, 10);
  if (*end || v < 0) return -1;
  return (int64_t)v;
}

static void hy_dist_fingerprint(const hyfft_dist_problem *pr, unsigned flags, int overlap,
                                int64_t direct_min, int64_t *v) {
  v[0] = pr->kind;
  v[1] = pr->precision;
  v[2] = pr->sign;
  v[3] = pr->rank;
  v[4] = pr->n[0];
  v[5] = pr->n[1];
  v[6] = pr->rank == 3 ? pr->n[2] : 1;
  v[7] = pr->decomposition;
  v[8] = pr->grid[0];
  v[9] = pr->grid[1];
  v[10] = pr->layout;
  v[11] = flags;
  v[12] = overlap;
  v[13] = pr->memory;
  v[14] = direct_min;
  v[15] = pr->howmany > 1 ? pr->howmany : 1;
}

hyfft_status hyfft_dist_plan_create(hyfft_context context, MPI_Comm comm,
                                    const hyfft_dist_problem *problem, unsigned flags,
                                    hyfft_dist_plan *plan) {
  int initialized = 0, finalized = 0;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
      MPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "MPI is not initialised (or already finalised)");
  if (comm == MPI_COMM_NULL)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "the communicator is MPI_COMM_NULL");
  int size = 0, me = 0, rc;
  if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Comm_size");
  if ((rc = MPI_Comm_rank(comm, &me)) != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Comm_rank");

  /* 1. Every rank's own arguments. */
  hyfft_status local = HYFFT_SUCCESS;
  hy_dist_geometry geom;
  if (!context || !problem || !plan)
    local = hy_dist_error(HYFFT_NULL_POINTER, "context, problem or plan is NULL on rank %d", me);
  else
    local = hy_dist_geometry_init(problem, size, me, &geom);
  int overlap = hy_dist_overlap_env();
  if (local == HYFFT_SUCCESS && overlap < 0)
    local = hy_dist_error(HYFFT_INVALID_ARGUMENT,
                          "HYFFT_DIST_OVERLAP='%s' on rank %d: chunks, 0 to %d (0 or 1: no overlap)",
                          getenv("HYFFT_DIST_OVERLAP"), me, HY_DIST_MAX_CHUNKS);
  int64_t direct_min = hy_dist_direct_min_env();
  if (local == HYFFT_SUCCESS && direct_min < 0)
    local = hy_dist_error(HYFFT_INVALID_ARGUMENT,
                          "HYFFT_DIST_DIRECT_MIN='%s' on rank %d: bytes, 0 or more (0: never direct)",
                          getenv("HYFFT_DIST_DIRECT_MIN"), me);
  hyfft_status s = hy_dist_agree(comm, local, "validating the problem");
  if (s != HYFFT_SUCCESS) return s;

  /* 2. The same problem on every rank: compare min and max of each field. */
  int64_t v[2 * HY_DIST_PRINT_FIELDS], r[2 * HY_DIST_PRINT_FIELDS];
  hy_dist_fingerprint(problem, flags, overlap, direct_min, v);
  for (int i = 0; i < HY_DIST_PRINT_FIELDS; i++) v[HY_DIST_PRINT_FIELDS + i] = -v[i];
  rc = MPI_Allreduce(v, r, 2 * HY_DIST_PRINT_FIELDS, MPI_INT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Allreduce (problem agreement)");
  for (int i = 0; i < HY_DIST_PRINT_FIELDS; i++)
    if (r[i] != -r[HY_DIST_PRINT_FIELDS + i])
      return hy_dist_error(HYFFT_INVALID_ARGUMENT,
                           "the ranks disagree on the problem: %s ranges from %lld to %lld",
                           hy_dist_print_names[i], (long long)-r[HY_DIST_PRINT_FIELDS + i],
                           (long long)r[i]);

  /* 3. Build; agree that every rank succeeded before returning a plan. */
  struct hyfft_dist_plan_s *p = calloc(1, sizeof *p);
  local = HYFFT_SUCCESS;
  if (!p) {
    local = hy_dist_error(HYFFT_OUT_OF_MEMORY, "the distributed plan");
  } else {
    p->magic = HY_DIST_MAGIC;
    p->problem = *problem;
    p->geom = geom;
    /* The chunks of an overlapped transpose are offsets into the buffers,
     * which device buffers (an OpenCL cl_mem) do not have: plain path. */
    p->overlap = problem->memory == HYFFT_MEMORY_DEVICE ? 0 : overlap;
    p->direct_min = direct_min;
    p->ctx = context;
    p->comm = p->cart = p->comm_p = p->comm_q = MPI_COMM_NULL;
    p->elem = MPI_DATATYPE_NULL;
    hy_dist_layout_fill(&geom, problem, &p->layout);
    rc = MPI_Comm_dup(comm, &p->comm);
    if (rc != MPI_SUCCESS) {
      p->comm = MPI_COMM_NULL;
      local = hy_dist_mpi_error(rc, "MPI_Comm_dup");
    } else {
      local = hy_dist_build(p, context, flags);
    }
  }
  s = hy_dist_agree(comm, local, "building the plan");
  if (s != HYFFT_SUCCESS) {
    if (p) hy_dist_plan_free(p);
    return s;
  }
  *plan = p;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_dist_plan_token(hyfft_context context, MPI_Comm comm, const char *token,
                                   unsigned flags, hyfft_dist_plan *plan) {
  hyfft_dist_problem pr;
  hyfft_status local = hyfft_dist_problem_parse(token, &pr);
  if (comm == MPI_COMM_NULL) return hy_dist_error(HYFFT_INVALID_ARGUMENT, "the communicator is MPI_COMM_NULL");
  hyfft_status s = hy_dist_agree(comm, local, "parsing the token");
  if (s != HYFFT_SUCCESS) return s;
  return hyfft_dist_plan_create(context, comm, &pr, flags, plan);
}

static hyfft_status hy_dist_check(hyfft_dist_plan plan) {
  if (!plan) return hy_dist_error(HYFFT_NULL_POINTER, "plan is NULL");
  if (plan->magic != HY_DIST_MAGIC)
    return hy_dist_error(HYFFT_INVALID_HANDLE, "plan is not a live distributed plan");
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_dist_plan_layout(hyfft_dist_plan plan, hyfft_dist_layout *layout) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  if (!layout) return hy_dist_error(HYFFT_NULL_POINTER, "layout is NULL");
  *layout = plan->layout;
  hy_dist_layout_public(&plan->geom, layout);
  return HYFFT_SUCCESS;
}

/* ---- description ----------------------------------------------------------- */

/* A growing text; `failed` once an allocation failed. */
typedef struct hy_dist_text {
  char *p;
  size_t len, cap;
  int failed;
} hy_dist_text;

static void hy_dist_textf(hy_dist_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hy_dist_textf(hy_dist_text *t, const char *fmt, ...) {
  if (t->failed) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = 1;
    return;
  }
  if (t->len + (size_t)n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->len + (size_t)n + 1) cap *= 2;
    char *q = realloc(t->p, cap);
    if (!q) {
      t->failed = 1;
      return;
    }
    t->p = q;
    t->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

static void hy_dist_text_box(hy_dist_text *t, const char *what, const hyfft_dist_box *b, int rank) {
  hy_dist_textf(t, "  %s: start", what);
  for (int a = 0; a < rank; a++) hy_dist_textf(t, "%s%lld", a ? "x" : " ", (long long)b->start[a]);
  hy_dist_textf(t, ", count");
  for (int a = 0; a < rank; a++) hy_dist_textf(t, "%s%lld", a ? "x" : " ", (long long)b->count[a]);
  hy_dist_textf(t, ", memory order");
  for (int a = 0; a < rank; a++) hy_dist_textf(t, " %d", b->order[a]);
  hy_dist_textf(t, "\n");
}

/* A local plan's own description, each line indented by `indent`. */
static void hy_dist_text_local(hy_dist_text *t, hyfft_plan local, const char *indent) {
  size_t need = 0;
  if (!local) {
    hy_dist_textf(t, "%s(this rank's part is empty)\n", indent);
    return;
  }
  hyfft_status s = hyfft_plan_describe(local, NULL, 0, &need);
  char *d = s == HYFFT_BUFFER_TOO_SMALL || s == HYFFT_SUCCESS ? malloc(need + 1) : NULL;
  if (!d || hyfft_plan_describe(local, d, need + 1, NULL) != HYFFT_SUCCESS) {
    free(d);
    t->failed = 1;
    return;
  }
  for (char *line = d; *line;) {
    char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    hy_dist_textf(t, "%s%.*s\n", indent, (int)len, line);
    line += len + (end ? 1 : 0);
  }
  free(d);
}

static void hy_dist_text_redist(hy_dist_text *t, const hy_dist_redist *r, size_t esize) {
  long long sent = (long long)(r->send_total - r->self_total);
  if (r->direct) {
    long long messages = 0, least = 0;
    for (int j = 0; j < r->peers; j++) {
      if (j == r->self || r->send_runs[j].messages == 0) continue;
      messages += r->send_runs[j].messages;
      if (least == 0 || r->send_runs[j].run < least) least = r->send_runs[j].run;
    }
    hy_dist_textf(t, "over %d ranks (grid dim %d): direct, %lld messages of runs of at least "
                     "%lld bytes from the source into place; sends %lld elements (%lld bytes) "
                     "to other ranks, keeps %lld\n",
                  r->peers, r->g, messages, least * (long long)esize, sent,
                  sent * (long long)esize, (long long)r->self_total);
    return;
  }
  hy_dist_textf(t, "over %d rank%s (grid dim %d): %s, %s; sends %lld elements (%lld bytes) to "
                   "other ranks, keeps %lld\n",
                r->peers, r->peers == 1 ? "" : "s", r->g,
                r->pack ? "packs each peer's block" : "sends from the source in place",
                r->unpack ? "unpacks what arrives" : "receives in place",
                sent, sent * (long long)esize, (long long)r->self_total);
}

hyfft_status hyfft_dist_plan_describe(hyfft_dist_plan plan, char *buf, size_t buf_size,
                                      size_t *needed) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  const hyfft_dist_problem *p = &plan->problem;
  const hyfft_dist_layout *L = &plan->layout;
  static const char *const kinds[] = {"c2c", "r2c", "c2r"};
  int ranks = 1, me = 0;
  MPI_Comm_size(plan->comm, &ranks);
  MPI_Comm_rank(plan->comm, &me);
  hy_dist_text t = {0};
  hy_dist_textf(&t, "%s:%s", (unsigned)p->kind < 3 ? kinds[p->kind] : "?",
                p->precision == HYFFT_F64 ? "f64" : "f32");
  if (p->kind == HYFFT_C2C) hy_dist_textf(&t, ":%s", p->sign < 0 ? "fwd" : "bwd");
  for (int a = 0; a < p->rank; a++) hy_dist_textf(&t, "%s%lld", a ? "x" : ":", (long long)p->n[a]);
  hy_dist_textf(&t, ":mpi");
  if (plan->geom.howmany > 1) hy_dist_textf(&t, ":howmany=%lld", (long long)plan->geom.howmany);
  hy_dist_textf(&t, " on %d rank%s, %s %dx%d%s%s; rank %d at grid (%d, %d)\n", ranks,
                ranks == 1 ? "" : "s", L->decomposition == HYFFT_DIST_SLAB ? "slab" : "pencil",
                L->grid[0], L->grid[1],
                (p->layout & HYFFT_DIST_TRANSPOSED_OUT) ? ", transposed output" : "",
                (p->layout & HYFFT_DIST_TRANSPOSED_IN) ? ", transposed input" : "", me,
                L->coords[0], L->coords[1]);
  if (p->memory == HYFFT_MEMORY_DEVICE)
    hy_dist_textf(&t, "  device buffers: local transforms on the device, each transpose staged "
                      "through host memory\n");
  hy_dist_text_box(&t, "input box", &L->in, p->rank);
  hy_dist_text_box(&t, "output box", &L->out, p->rank);
  for (int k = 0; k < plan->nstages; k++) {
    const hy_dist_stage *st = &plan->stages[k];
    if (st->is_redist) {
      hy_dist_textf(&t, "  stage %d: transpose ", k + 1);
      hy_dist_text_redist(&t, &st->redist, plan->esize);
    } else if (st->nchunks > 0) {
      hy_dist_textf(&t, "  stage %d: local transform in %d chunks, each chunk's transpose started "
                        "as soon as it is done (HYFFT_DIST_OVERLAP); chunk 1:\n", k + 1, st->nchunks);
      hy_dist_text_local(&t, st->chunk_plan[0], "    ");
      hy_dist_textf(&t, "  stage %d: the chunks' transposes, each ", k + 2);
      hy_dist_text_redist(&t, &st->chunk_redist[0], plan->esize);
      k++; /* the transpose runs inside the chunks */
    } else {
      hy_dist_textf(&t, "  stage %d: local transform\n", k + 1);
      hy_dist_text_local(&t, st->local, "    ");
    }
  }
  if (t.failed) {
    free(t.p);
    return hy_dist_error(HYFFT_OUT_OF_MEMORY, "the plan's description");
  }
  if (needed) *needed = t.len;
  if (!buf || buf_size <= t.len) {
    free(t.p);
    return hy_dist_error(HYFFT_BUFFER_TOO_SMALL, "buffer of %zu bytes, %zu needed", buf_size,
                         t.len + 1);
  }
  memcpy(buf, t.p ? t.p : "", t.len + 1);
  free(t.p);
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_dist_plan_times(hyfft_dist_plan plan, hyfft_dist_times *times) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  if (!times) return hy_dist_error(HYFFT_NULL_POINTER, "times is NULL");
  *times = plan->times;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_dist_plan_reset_times(hyfft_dist_plan plan) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  memset(&plan->times, 0, sizeof plan->times);
  return HYFFT_SUCCESS;
}

static int hy_dist_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

hyfft_status hyfft_dist_plan_alltoall_reference(hyfft_dist_plan plan, int runs, double *seconds,
                                                int64_t *bytes) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  hyfft_status local = HYFFT_SUCCESS;
  if (!seconds || !bytes)
    local = hy_dist_error(HYFFT_NULL_POINTER, "seconds or bytes is NULL");
  else if (runs < 1)
    local = hy_dist_error(HYFFT_INVALID_ARGUMENT, "runs is %d (at least 1)", runs);
  int peers = 1;
  for (int k = 0; k < plan->nstages; k++)
    if (plan->stages[k].is_redist && plan->stages[k].redist.peers > peers)
      peers = plan->stages[k].redist.peers;
  double *t = local == HYFFT_SUCCESS ? calloc((size_t)runs, sizeof *t) : NULL;
  int *displs = local == HYFFT_SUCCESS ? calloc((size_t)peers * 2, sizeof *displs) : NULL;
  if (local == HYFFT_SUCCESS && (!t || !displs))
    local = hy_dist_error(HYFFT_OUT_OF_MEMORY, "%d run times", runs);
  s = hy_dist_agree(plan->comm, local, "the all-to-all reference's arguments");
  if (s != HYFFT_SUCCESS) {
    free(t);
    free(displs);
    return s;
  }
  /* Every rank runs the same transposes in the same order (the stage list
   * is the same on every rank), so the collective calls match. */
  int64_t sent = 0;
  for (int k = 0; k < plan->nstages; k++)
    if (plan->stages[k].is_redist && plan->stages[k].redist.peers > 1)
      sent += (plan->stages[k].redist.send_total - plan->stages[k].redist.self_total) *
              (int64_t)plan->esize;
  for (int i = 0; i < runs && local == HYFFT_SUCCESS; i++) {
    for (int k = 0; k < plan->nstages && local == HYFFT_SUCCESS; k++) {
      const hy_dist_stage *st = &plan->stages[k];
      if (!st->is_redist) continue;
      double dt = 0;
      local = hy_dist_redist_replay(&st->redist, plan->elem, plan->work[0], plan->work[1], displs,
                                    &dt);
      t[i] += dt;
    }
  }
  s = hy_dist_agree(plan->comm, local, "the all-to-all reference");
  if (s == HYFFT_SUCCESS) {
    qsort(t, (size_t)runs, sizeof *t, hy_dist_cmp_double);
    *seconds = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
    *bytes = sent;
  }
  free(t);
  free(displs);
  return s;
}

hyfft_status hyfft_dist_plan_destroy(hyfft_dist_plan plan) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  hy_dist_plan_free(plan);
  return HYFFT_SUCCESS;
}

/* ---- execution ------------------------------------------------------------- */

/* The stages on device buffers: each local step between device buffers
 * (the caller's in and out, the plan's two device work buffers, in the
 * roles the host path gives its buffers), each transpose staged on the
 * host: the source box read into work[0], transposed into work[1] as on
 * host data, written to the destination. A failed copy before an
 * all-to-all is agreed on first, so no rank is left in MPI alone. Returns
 * an agreement's failure; *local collects this rank's own. */
static hyfft_status hy_dist_run_device(struct hyfft_dist_plan_s *plan, const void *in, void *out,
                                       hyfft_status *local) {
  void *buf[4] = {(void *)in, out, plan->dev_work[0], plan->dev_work[1]};
  int last = plan->nstages - 1;
  for (int k = 0; k <= last && *local == HYFFT_SUCCESS; k++) {
    int src = k == 0 ? HY_BUF_IN : HY_BUF_W0 + (k - 1) % 2;
    int dst = k == last ? HY_BUF_OUT : HY_BUF_W0 + k % 2;
    hy_dist_stage *st = &plan->stages[k];
    if (!st->is_redist) {
      if (!st->local) continue;
      double t = hy_dist_now();
      int inplace = last == 0 && in == out;
      hyfft_status e = hyfft_execute(st->local, buf[src], inplace ? buf[HY_BUF_W0] : buf[dst]);
      plan->times.local_fft += hy_dist_now() - t;
      if (e != HYFFT_SUCCESS) {
        *local = hy_dist_hyfft_error(e, "a local transform");
      } else if (inplace) {
        size_t bytes = (size_t)plan->layout.out.elements *
                       (plan->problem.kind == HYFFT_C2R ? plan->esize / 2 : plan->esize);
        t = hy_dist_now();
        e = hyfft_buffer_read(plan->ctx, buf[HY_BUF_W0], 0, plan->work[0], bytes);
        if (e == HYFFT_SUCCESS) e = hyfft_buffer_write(plan->ctx, out, 0, plan->work[0], bytes);
        plan->times.staging += hy_dist_now() - t;
        plan->times.staged_bytes += 2 * (int64_t)bytes;
        if (e != HYFFT_SUCCESS) *local = hy_dist_hyfft_error(e, "copying the result to out");
      }
      continue;
    }
    const hy_dist_redist *r = &st->redist;
    size_t from_bytes = (size_t)r->from.elements * plan->esize;
    size_t to_bytes = (size_t)r->to.elements * plan->esize;
    double t = hy_dist_now();
    if (from_bytes > 0) {
      hyfft_status e = hyfft_buffer_read(plan->ctx, buf[src], 0, plan->work[0], from_bytes);
      if (e != HYFFT_SUCCESS) *local = hy_dist_hyfft_error(e, "reading a box from the device");
      plan->times.staged_bytes += (int64_t)from_bytes;
    }
    plan->times.staging += hy_dist_now() - t;
    double ta = hy_dist_now();
    hyfft_status s = hy_dist_agree(plan->comm, *local, "a local transform or a device copy");
    plan->times.agree += hy_dist_now() - ta;
    if (s != HYFFT_SUCCESS) return s;
    /* A packing transpose has read its source before the exchange, which
     * may then receive into it. */
    void *unpack = r->pack ? plan->work[0] : plan->work[2];
    *local = hy_dist_redist_run(r, plan->elem, plan->esize, plan->work[0], plan->work[2], unpack,
                                plan->work[1], &plan->times);
    if (*local == HYFFT_SUCCESS && to_bytes > 0) {
      t = hy_dist_now();
      hyfft_status e = hyfft_buffer_write(plan->ctx, buf[dst], 0, plan->work[1], to_bytes);
      if (e != HYFFT_SUCCESS) *local = hy_dist_hyfft_error(e, "writing a box to the device");
      plan->times.staging += hy_dist_now() - t;
      plan->times.staged_bytes += (int64_t)to_bytes;
    }
  }
  return HYFFT_SUCCESS;
}

/* The stages on host buffers: local steps between the caller's buffers
 * and the plan's work buffers, transposes through MPI (overlapped chunk
 * by chunk where the plan cut them). Returns an agreement's failure;
 * *local collects this rank's own. */
static hyfft_status hy_dist_run_host(struct hyfft_dist_plan_s *plan, const void *in, void *out,
                                     hyfft_status *local) {
  void *buf[5] = {(void *)in, out, plan->work[0], plan->work[1], plan->work[2]};
  int last = plan->nstages - 1;
  for (int k = 0; k <= last && *local == HYFFT_SUCCESS; k++) {
    int src = k == 0 ? HY_BUF_IN : HY_BUF_W0 + (k - 1) % 2;
    int dst = k == last ? HY_BUF_OUT : HY_BUF_W0 + k % 2;
    hy_dist_stage *st = &plan->stages[k];
    if (st->nchunks > 0) {
      /* Overlapped: this local step and the transpose after it, chunk by
       * chunk (docs/mpi.md, "Overlap"). Every rank posts every chunk's
       * all-to-all, even after a local failure (which is reported after
       * them), so that no rank is left waiting. */
      double ta = hy_dist_now();
      hyfft_status s = hy_dist_agree(plan->comm, *local, "a local transform");
      plan->times.agree += hy_dist_now() - ta;
      if (s != HYFFT_SUCCESS) return s;
      int rdst = k + 1 == last ? HY_BUF_OUT : HY_BUF_W0 + (k + 1) % 2;
      MPI_Request req[HY_DIST_MAX_CHUNKS];
      for (int c = 0; c < st->nchunks; c++) {
        req[c] = MPI_REQUEST_NULL;
        if (st->chunk_plan[c]) {
          double t = hy_dist_now();
          hyfft_status e = hyfft_execute(st->chunk_plan[c], (char *)buf[src] + st->chunk_src_off[c],
                                         (char *)buf[dst] + st->chunk_dst_off[c]);
          plan->times.local_fft += hy_dist_now() - t;
          if (e != HYFFT_SUCCESS && *local == HYFFT_SUCCESS)
            *local = hy_dist_hyfft_error(e, "a local transform");
        }
        hyfft_status e = hy_dist_redist_start(&st->chunk_redist[c], plan->elem, plan->esize,
                                              buf[dst], buf[HY_BUF_PACK], buf[rdst], &req[c],
                                              &plan->times);
        if (e != HYFFT_SUCCESS && *local == HYFFT_SUCCESS) *local = e;
        /* Drive the chunks in flight (MPI progresses a nonblocking
         * collective inside MPI calls). */
        double t = hy_dist_now();
        int flag = 0;
        MPI_Testall(c + 1, req, &flag, MPI_STATUSES_IGNORE);
        plan->times.alltoall += hy_dist_now() - t;
      }
      double t = hy_dist_now();
      int rc = MPI_Waitall(st->nchunks, req, MPI_STATUSES_IGNORE);
      plan->times.alltoall += hy_dist_now() - t;
      if (rc != MPI_SUCCESS && *local == HYFFT_SUCCESS) *local = hy_dist_mpi_error(rc, "MPI_Waitall");
      k++; /* the transpose is done */
      continue;
    }
    if (!st->is_redist) {
      if (st->local) {
        double t = hy_dist_now();
        /* The local plans are out of place: a single step in place goes
         * through the work buffer. */
        int inplace = last == 0 && in == out;
        hyfft_status e = hyfft_execute(st->local, buf[src], inplace ? buf[HY_BUF_W0] : buf[dst]);
        if (e == HYFFT_SUCCESS && inplace)
          memcpy(out, buf[HY_BUF_W0],
                 (size_t)plan->layout.out.elements *
                     (plan->problem.kind == HYFFT_C2R ? plan->esize / 2 : plan->esize));
        plan->times.local_fft += hy_dist_now() - t;
        if (e != HYFFT_SUCCESS) *local = hy_dist_hyfft_error(e, "a local transform");
      }
      continue;
    }
    /* No rank enters the all-to-all unless every rank got here. */
    double ta = hy_dist_now();
    hyfft_status s = hy_dist_agree(plan->comm, *local, "a local transform");
    plan->times.agree += hy_dist_now() - ta;
    if (s != HYFFT_SUCCESS) return s;
    /* Packing goes to the pack buffer; an unpacking transpose receives into
     * a work buffer that the step neither reads after packing nor writes. */
    int other_dst = dst == HY_BUF_W0 ? HY_BUF_W1 : HY_BUF_W0;
    int unpack = st->redist.pack ? (src >= HY_BUF_W0 ? src : other_dst) : HY_BUF_PACK;
    *local = hy_dist_redist_run(&st->redist, plan->elem, plan->esize, buf[src], buf[HY_BUF_PACK],
                                buf[unpack], buf[dst], &plan->times);
  }
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_dist_execute(hyfft_dist_plan plan, const void *in, void *out) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  double t0 = hy_dist_now();
  hyfft_status local = HYFFT_SUCCESS;
  if (!in && plan->layout.in.elements > 0)
    local = hy_dist_error(HYFFT_NULL_POINTER, "in is NULL on a rank whose input box is not empty");
  else if (!out && plan->layout.out.elements > 0)
    local = hy_dist_error(HYFFT_NULL_POINTER, "out is NULL on a rank whose output box is not empty");
  double ta = hy_dist_now();
  s = hy_dist_agree(plan->comm, local, "checking the buffers");
  plan->times.agree += hy_dist_now() - ta;
  if (s != HYFFT_SUCCESS) return s;

  s = plan->problem.memory == HYFFT_MEMORY_DEVICE ? hy_dist_run_device(plan, in, out, &local)
                                                 : hy_dist_run_host(plan, in, out, &local);
  if (s != HYFFT_SUCCESS) return s;
  ta = hy_dist_now();
  s = hy_dist_agree(plan->comm, local, "executing");
  double tend = hy_dist_now();
  plan->times.agree += tend - ta;
  plan->times.total += tend - t0;
  plan->times.executions++;
  return s;
}
