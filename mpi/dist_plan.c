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
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

#define HY_DIST_MAGIC 0x68794469737450ULL /* "hyDistP" */
#define HY_DIST_MAX_STAGES 8

enum { HY_BUF_IN = 0, HY_BUF_OUT = 1, HY_BUF_W0 = 2, HY_BUF_W1 = 3 };

typedef struct hy_dist_stage {
  int is_redist;
  hyfft_plan local; /* NULL where this rank's box is empty */
  hy_dist_redist redist;
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
  void *work[2];
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
    if (p->stages[k].local) hyfft_plan_destroy(p->stages[k].local);
    hy_dist_redist_free(&p->stages[k].redist);
  }
  free(p->work[0]);
  free(p->work[1]);
  if (p->elem != MPI_DATATYPE_NULL) MPI_Type_free(&p->elem);
  hy_dist_comm_free(&p->comm_p);
  hy_dist_comm_free(&p->comm_q);
  hy_dist_comm_free(&p->cart);
  hy_dist_comm_free(&p->comm);
  p->magic = 0;
  free(p);
}

/* ---- building -------------------------------------------------------------- */

/* A local stage: the axes `axes` (count naxes) of state `st` transformed,
 * from src_real/dst_real sides (1: the padded real side). */
static hyfft_status hy_dist_local_stage(struct hyfft_dist_plan_s *p, hyfft_context ctx,
                                        unsigned flags, const hy_dist_state *st,
                                        const int *axes, int naxes, hyfft_kind kind, int sign,
                                        hy_dist_stage *stage) {
  const hy_dist_geometry *g = &p->geom;
  hyfft_dist_box cbox, rbox;
  hy_dist_box_of(g, st, g->coords[0], g->coords[1], 0, &cbox);
  hy_dist_box_of(g, st, g->coords[0], g->coords[1], 1, &rbox);
  stage->is_redist = 0;
  stage->local = NULL;
  if (cbox.elements == 0) return HYFFT_SUCCESS;
  const hyfft_dist_box *src = kind == HYFFT_R2C ? &rbox : &cbox;
  const hyfft_dist_box *dst = kind == HYFFT_C2R ? &rbox : &cbox;
  hyfft_problem prob;
  memset(&prob, 0, sizeof prob);
  prob.kind = kind;
  prob.precision = p->problem.precision;
  prob.sign = sign;
  prob.memory = HYFFT_MEMORY_HOST;
  /* Dims in memory order, slowest first (the real axis is the fastest). */
  for (int k = 0; k < 3; k++) {
    int a = st->order[k], transformed = 0;
    for (int i = 0; i < naxes; i++) transformed |= axes[i] == a;
    hyfft_dim d;
    d.n = (kind != HYFFT_C2C && a == g->real_axis) ? g->n[a] : cbox.count[a];
    d.in_stride = src->stride[a];
    d.out_stride = dst->stride[a];
    if (transformed)
      prob.dims[prob.rank++] = d;
    else if (d.n > 1)
      prob.batch[prob.batch_rank++] = d;
  }
  hyfft_status s = hyfft_plan_create(ctx, &prob, flags, &stage->local);
  if (s != HYFFT_SUCCESS) {
    stage->local = NULL;
    return hy_dist_hyfft_error(s, "planning a local transform");
  }
  return HYFFT_SUCCESS;
}

static hyfft_status hy_dist_redist_stage(struct hyfft_dist_plan_s *p, int from, int to,
                                         hy_dist_stage *stage) {
  /* The grid dim that changes: the one that splits an axis in `to` which
   * `from` holds whole. */
  const hy_dist_state *a = &p->geom.states[from], *b = &p->geom.states[to];
  int g = -1;
  for (int ax = 0; ax < 3; ax++)
    if (a->split[ax] == HY_DIST_FULL && b->split[ax] != HY_DIST_FULL) g = b->split[ax] - 1;
  if (g < 0) return hy_dist_error(HYFFT_INTERNAL, "states %d and %d differ by no split", from, to);
  stage->is_redist = 1;
  return hy_dist_redist_init(&stage->redist, &p->geom, a, b, g, g == 0 ? p->comm_p : p->comm_q);
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

static hyfft_status hy_dist_build(struct hyfft_dist_plan_s *p, hyfft_context ctx,
                                  unsigned flags) {
  const hyfft_dist_problem *pr = &p->problem;
  hyfft_status s;
  int rc;
  if (p->geom.decomposition == HYFFT_DIST_PENCIL) {
    int dims[2] = {p->geom.grid[0], p->geom.grid[1]}, periods[2] = {0, 0};
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
  p->esize = pr->precision == HYFFT_F32 ? 8 : 16;
  rc = MPI_Type_contiguous((int)p->esize, MPI_BYTE, &p->elem);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&p->elem);
  if (rc != MPI_SUCCESS) {
    p->elem = MPI_DATATYPE_NULL;
    return hy_dist_mpi_error(rc, "MPI_Type_contiguous");
  }

  int axes[HY_DIST_MAX_STATES][3], naxes[HY_DIST_MAX_STATES];
  int ns = hy_dist_chain(&p->geom, axes, naxes);
  int reverse = pr->kind == HYFFT_C2R ||
                (pr->kind == HYFFT_C2C && (pr->layout & HYFFT_DIST_TRANSPOSED_IN));
  hyfft_kind real_kind = pr->kind; /* used by the stage holding the real axis */
  int k = 0;
#define HY_DIST_ADD(call)                     \
  do {                                        \
    p->nstages = k + 1;                       \
    s = (call);                               \
    if (s != HYFFT_SUCCESS) return s;         \
    k++;                                      \
  } while (0)
  if (!reverse) {
    for (int i = 0; i < ns; i++) {
      if (i > 0) HY_DIST_ADD(hy_dist_redist_stage(p, i - 1, i, &p->stages[k]));
      HY_DIST_ADD(hy_dist_local_stage(p, ctx, flags, &p->geom.states[i], axes[i], naxes[i],
                                      i == 0 ? real_kind : HYFFT_C2C, pr->sign, &p->stages[k]));
    }
    if (!(pr->layout & HYFFT_DIST_TRANSPOSED_OUT))
      for (int i = ns - 1; i > 0; i--) HY_DIST_ADD(hy_dist_redist_stage(p, i, i - 1, &p->stages[k]));
  } else {
    if (!(pr->layout & HYFFT_DIST_TRANSPOSED_IN))
      for (int i = 1; i < ns; i++) HY_DIST_ADD(hy_dist_redist_stage(p, i - 1, i, &p->stages[k]));
    for (int i = ns - 1; i >= 0; i--) {
      HY_DIST_ADD(hy_dist_local_stage(p, ctx, flags, &p->geom.states[i], axes[i], naxes[i],
                                      i == 0 ? real_kind : HYFFT_C2C, pr->sign, &p->stages[k]));
      if (i > 0) HY_DIST_ADD(hy_dist_redist_stage(p, i, i - 1, &p->stages[k]));
    }
  }
#undef HY_DIST_ADD

  /* Two work buffers, each holding any state's box (packed streams are no
   * larger than the box they come from). */
  int64_t most = 1;
  for (int i = 0; i < ns; i++) {
    hyfft_dist_box b;
    hy_dist_box_of(&p->geom, &p->geom.states[i], p->geom.coords[0], p->geom.coords[1], 0, &b);
    if (b.elements > most) most = b.elements;
  }
  size_t bytes = (size_t)most * p->esize;
  bytes = (bytes + 63) / 64 * 64;
  for (int i = 0; i < 2; i++) {
    p->work[i] = aligned_alloc(64, bytes);
    if (!p->work[i])
      return hy_dist_error(HYFFT_OUT_OF_MEMORY, "%zu bytes of work buffer", bytes);
  }
  return HYFFT_SUCCESS;
}

/* A fingerprint of the problem and flags, compared across ranks. */
#define HY_DIST_PRINT_FIELDS 12
static const char *const hy_dist_print_names[HY_DIST_PRINT_FIELDS] = {
    "kind", "precision", "sign", "rank", "n[0]", "n[1]", "n[2]",
    "decomposition", "grid[0]", "grid[1]", "layout", "flags"};

static void hy_dist_fingerprint(const hyfft_dist_problem *pr, unsigned flags, int64_t *v) {
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
  hyfft_status s = hy_dist_agree(comm, local, "validating the problem");
  if (s != HYFFT_SUCCESS) return s;

  /* 2. The same problem on every rank: compare min and max of each field. */
  int64_t v[2 * HY_DIST_PRINT_FIELDS], r[2 * HY_DIST_PRINT_FIELDS];
  hy_dist_fingerprint(problem, flags, v);
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

hyfft_status hyfft_dist_plan_destroy(hyfft_dist_plan plan) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  hy_dist_plan_free(plan);
  return HYFFT_SUCCESS;
}

/* ---- execution ------------------------------------------------------------- */

hyfft_status hyfft_dist_execute(hyfft_dist_plan plan, const void *in, void *out) {
  hyfft_status s = hy_dist_check(plan);
  if (s != HYFFT_SUCCESS) return s;
  double t0 = MPI_Wtime();
  hyfft_status local = HYFFT_SUCCESS;
  if (!in && plan->layout.in.elements > 0)
    local = hy_dist_error(HYFFT_NULL_POINTER, "in is NULL on a rank whose input box is not empty");
  else if (!out && plan->layout.out.elements > 0)
    local = hy_dist_error(HYFFT_NULL_POINTER, "out is NULL on a rank whose output box is not empty");
  s = hy_dist_agree(plan->comm, local, "checking the buffers");
  if (s != HYFFT_SUCCESS) return s;

  void *buf[4] = {(void *)in, out, plan->work[0], plan->work[1]};
  int last = plan->nstages - 1;
  for (int k = 0; k <= last && local == HYFFT_SUCCESS; k++) {
    int src = k == 0 ? HY_BUF_IN : HY_BUF_W0 + (k - 1) % 2;
    int dst = k == last ? HY_BUF_OUT : HY_BUF_W0 + k % 2;
    hy_dist_stage *st = &plan->stages[k];
    if (!st->is_redist) {
      if (st->local) {
        double t = MPI_Wtime();
        hyfft_status e = hyfft_execute(st->local, buf[src], buf[dst]);
        plan->times.local_fft += MPI_Wtime() - t;
        if (e != HYFFT_SUCCESS) local = hy_dist_hyfft_error(e, "a local transform");
      }
      continue;
    }
    /* No rank enters the all-to-all unless every rank got here. */
    s = hy_dist_agree(plan->comm, local, "a local transform");
    if (s != HYFFT_SUCCESS) return s;
    /* send is a work buffer the stage does not read, recv one it does not
     * write before unpacking (see hy_dist_redist_run). */
    int send = dst >= HY_BUF_W0 ? dst : (src == HY_BUF_W0 ? HY_BUF_W1 : HY_BUF_W0);
    int recv = src >= HY_BUF_W0 ? src : (dst == HY_BUF_W0 ? HY_BUF_W1 : HY_BUF_W0);
    local = hy_dist_redist_run(&st->redist, plan->elem, plan->esize, buf[src], buf[send],
                               buf[recv], buf[dst], &plan->times);
  }
  s = hy_dist_agree(plan->comm, local, "executing");
  plan->times.total += MPI_Wtime() - t0;
  plan->times.executions++;
  return s;
}
