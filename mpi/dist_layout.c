/* Decompositions: FFTW-MPI's block rule, the states a plan moves the data
 * through (slab: two, pencil: three), each rank's boxes, and the public
 * hyfft_dist_local_size. */
#include <string.h>

#include "dist_internal.h"

void hy_dist_block(int64_t n, int s, int r, int64_t *start, int64_t *count) {
  int64_t block = (n + s - 1) / s;
  int64_t lo = block * r;
  if (lo > n) lo = n;
  int64_t hi = lo + block;
  if (hi > n) hi = n;
  *start = lo;
  *count = hi - lo;
}

static void hy_dist_set_state(hy_dist_state *st, int s0, int s1, int s2, int o0, int o1,
                              int o2) {
  st->split[0] = s0;
  st->split[1] = s1;
  st->split[2] = s2;
  st->order[0] = o0;
  st->order[1] = o1;
  st->order[2] = o2;
}

hyfft_status hy_dist_geometry_init(const hyfft_dist_problem *problem, int size, int me,
                                   hy_dist_geometry *geom) {
  const hyfft_dist_problem *p = problem;
  memset(geom, 0, sizeof *geom);
  if (p->kind != HYFFT_C2C && p->kind != HYFFT_R2C && p->kind != HYFFT_C2R)
    return hy_dist_error(HYFFT_INVALID_KIND, "kind %d is not C2C, R2C or C2R", (int)p->kind);
  if (p->precision != HYFFT_F32 && p->precision != HYFFT_F64)
    return hy_dist_error(HYFFT_INVALID_PRECISION, "precision %d is not F32 or F64",
                         (int)p->precision);
  if (p->sign != HYFFT_FORWARD && p->sign != HYFFT_BACKWARD)
    return hy_dist_error(HYFFT_INVALID_SIGN, "sign %d is neither -1 nor +1", p->sign);
  if (p->kind == HYFFT_R2C && p->sign != HYFFT_FORWARD)
    return hy_dist_error(HYFFT_INVALID_SIGN, "R2C must be forward");
  if (p->kind == HYFFT_C2R && p->sign != HYFFT_BACKWARD)
    return hy_dist_error(HYFFT_INVALID_SIGN, "C2R must be backward");
  if (p->rank != 2 && p->rank != 3)
    return hy_dist_error(HYFFT_INVALID_RANK, "rank %d: distributed transforms are 2D or 3D",
                         p->rank);
  int64_t total = 1;
  for (int a = 0; a < 3; a++) {
    int64_t n = a < p->rank ? p->n[a] : 1;
    if (n < 1) return hy_dist_error(HYFFT_INVALID_SIZE, "n[%d] = %lld is not positive", a, (long long)n);
    /* Padded real rows hold 2*(n/2+1) reals; keep every byte count below 2^62. */
    if (n > ((int64_t)1 << 40) || total > (((int64_t)1 << 58) / (n + 2)))
      return hy_dist_error(HYFFT_SIZE_OVERFLOW, "the global size overflows at n[%d] = %lld", a,
                           (long long)n);
    total *= n + 2;
    geom->n[a] = n;
    geom->nc[a] = n;
  }
  if (p->howmany < 0)
    return hy_dist_error(HYFFT_INVALID_SIZE, "howmany = %lld is negative (0 or 1: one transform)",
                         (long long)p->howmany);
  geom->howmany = p->howmany > 1 ? p->howmany : 1;
  if (geom->howmany > (((int64_t)1 << 58) / total))
    return hy_dist_error(HYFFT_SIZE_OVERFLOW, "the global size overflows at howmany = %lld",
                         (long long)geom->howmany);
  geom->rank = p->rank;
  geom->real_axis = p->kind == HYFFT_C2C ? -1 : p->rank - 1;
  if (geom->real_axis >= 0) geom->nc[geom->real_axis] = geom->n[geom->real_axis] / 2 + 1;
  if (p->decomposition != HYFFT_DIST_AUTO && p->decomposition != HYFFT_DIST_SLAB &&
      p->decomposition != HYFFT_DIST_PENCIL)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "decomposition %d is not AUTO, SLAB or PENCIL",
                         (int)p->decomposition);
  if (p->layout & ~(HYFFT_DIST_TRANSPOSED_IN | HYFFT_DIST_TRANSPOSED_OUT))
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "layout 0x%x has unknown bits", p->layout);
  if (p->layout == (HYFFT_DIST_TRANSPOSED_IN | HYFFT_DIST_TRANSPOSED_OUT))
    return hy_dist_error(HYFFT_INVALID_ARGUMENT,
                         "TRANSPOSED_IN and TRANSPOSED_OUT together are not supported");
  if (p->kind == HYFFT_R2C && (p->layout & HYFFT_DIST_TRANSPOSED_IN))
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "R2C has a real input: TRANSPOSED_IN does not apply");
  if (p->kind == HYFFT_C2R && (p->layout & HYFFT_DIST_TRANSPOSED_OUT))
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "C2R has a real output: TRANSPOSED_OUT does not apply");
  if (p->memory != HYFFT_MEMORY_HOST && p->memory != HYFFT_MEMORY_DEVICE)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "memory %d is not HOST or DEVICE", (int)p->memory);
  if (size < 1 || me < 0 || me >= size)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "rank %d of a communicator of %d", me, size);
  if (p->grid[0] < 0 || p->grid[1] < 0)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "grid %dx%d is negative", p->grid[0], p->grid[1]);

  hyfft_dist_decomposition d = p->decomposition;
  int grid_given = p->grid[0] != 0 || p->grid[1] != 0;
  if (d == HYFFT_DIST_AUTO) {
    if (p->rank == 2)
      d = HYFFT_DIST_SLAB;
    else if (grid_given && !(p->grid[0] == size && p->grid[1] == 1))
      d = HYFFT_DIST_PENCIL;
    else /* slab while every rank gets rows in both of its layouts */
      d = (geom->nc[0] >= size && geom->nc[1] >= size) ? HYFFT_DIST_SLAB : HYFFT_DIST_PENCIL;
  }
  if (d == HYFFT_DIST_PENCIL && p->rank != 3)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "a pencil decomposition needs a 3D problem");
  geom->decomposition = d;
  if (d == HYFFT_DIST_SLAB) {
    if (grid_given && !(p->grid[0] == size && p->grid[1] == 1))
      return hy_dist_error(HYFFT_INVALID_ARGUMENT,
                           "a slab decomposition's grid is %dx1, not %dx%d", size, p->grid[0],
                           p->grid[1]);
    geom->grid[0] = size;
    geom->grid[1] = 1;
    geom->nstates = 2;
    hy_dist_set_state(&geom->states[0], HY_DIST_BY_P, HY_DIST_FULL, HY_DIST_FULL, 0, 1, 2);
    hy_dist_set_state(&geom->states[1], HY_DIST_FULL, HY_DIST_BY_P, HY_DIST_FULL, 1, 0, 2);
  } else {
    int dims[2] = {p->grid[0], p->grid[1]};
    if (!grid_given) {
      int rc = MPI_Dims_create(size, 2, dims);
      if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Dims_create");
    } else if (dims[0] < 1 || dims[1] < 1 || (int64_t)dims[0] * dims[1] != size) {
      return hy_dist_error(HYFFT_INVALID_ARGUMENT,
                           "the pencil grid %dx%d needs %lld ranks; the communicator has %d",
                           dims[0], dims[1], (long long)dims[0] * dims[1], size);
    }
    geom->grid[0] = dims[0];
    geom->grid[1] = dims[1];
    geom->nstates = 3;
    /* x-pencils (dim 2 whole), then y (dim 1 whole), then z (dim 0 whole,
     * stored as n1 x n2 x n0: the transposed layout). */
    hy_dist_set_state(&geom->states[0], HY_DIST_BY_P, HY_DIST_BY_Q, HY_DIST_FULL, 0, 1, 2);
    hy_dist_set_state(&geom->states[1], HY_DIST_BY_P, HY_DIST_FULL, HY_DIST_BY_Q, 0, 2, 1);
    hy_dist_set_state(&geom->states[2], HY_DIST_FULL, HY_DIST_BY_P, HY_DIST_BY_Q, 1, 2, 0);
  }
  geom->coords[0] = me / geom->grid[1];
  geom->coords[1] = me % geom->grid[1];
  return HYFFT_SUCCESS;
}

void hy_dist_box_of(const hy_dist_geometry *geom, const hy_dist_state *st, int p, int q,
                    int real, hyfft_dist_box *box) {
  int64_t ext[3];
  for (int a = 0; a < 3; a++) {
    int64_t len = geom->nc[a];
    if (st->split[a] == HY_DIST_BY_P)
      hy_dist_block(len, geom->grid[0], p, &box->start[a], &box->count[a]);
    else if (st->split[a] == HY_DIST_BY_Q)
      hy_dist_block(len, geom->grid[1], q, &box->start[a], &box->count[a]);
    else {
      box->start[a] = 0;
      box->count[a] = len;
    }
    ext[a] = box->count[a];
    if (real && a == geom->real_axis) {
      /* The real side is only used where the real axis is whole and fastest. */
      box->count[a] = geom->n[a];
      ext[a] = 2 * geom->nc[a];
    }
    box->order[a] = st->order[a];
  }
  int64_t stride = 1;
  for (int k = 2; k >= 0; k--) {
    int a = st->order[k];
    box->stride[a] = stride;
    stride *= ext[a];
  }
  box->elements = box->count[0] && box->count[1] && box->count[2] ? stride : 0;
}

void hy_dist_layout_fill(const hy_dist_geometry *geom, const hyfft_dist_problem *problem,
                         hyfft_dist_layout *layout) {
  memset(layout, 0, sizeof *layout);
  int p = geom->coords[0], q = geom->coords[1];
  const hy_dist_state *normal = &geom->states[0];
  const hy_dist_state *transposed = &geom->states[geom->nstates - 1];
  int reverse = problem->kind == HYFFT_C2R ||
                (problem->kind == HYFFT_C2C && (problem->layout & HYFFT_DIST_TRANSPOSED_IN));
  if (!reverse) {
    hy_dist_box_of(geom, normal, p, q, problem->kind == HYFFT_R2C, &layout->in);
    hy_dist_box_of(geom, (problem->layout & HYFFT_DIST_TRANSPOSED_OUT) ? transposed : normal,
                   p, q, 0, &layout->out);
  } else {
    hy_dist_box_of(geom, (problem->layout & HYFFT_DIST_TRANSPOSED_IN) ? transposed : normal, p,
                   q, 0, &layout->in);
    hy_dist_box_of(geom, normal, p, q, problem->kind == HYFFT_C2R, &layout->out);
  }
  layout->decomposition = geom->decomposition;
  layout->grid[0] = geom->grid[0];
  layout->grid[1] = geom->grid[1];
  layout->coords[0] = p;
  layout->coords[1] = q;
  hyfft_dist_box nb, tb;
  hy_dist_box_of(geom, normal, p, q, 0, &nb);
  hy_dist_box_of(geom, transposed, p, q, 0, &tb);
  layout->local_n0 = nb.count[0];
  layout->local_0_start = nb.start[0];
  if (geom->decomposition == HYFFT_DIST_SLAB) {
    layout->local_n1 = tb.count[1];
    layout->local_1_start = tb.start[1];
  } else {
    layout->local_n1 = nb.count[1];
    layout->local_1_start = nb.start[1];
  }
  /* Complex elements; a real side of r reals needs ceil(r / 2). */
  int64_t in_c = problem->kind == HYFFT_R2C ? (layout->in.elements + 1) / 2 : layout->in.elements;
  int64_t out_c =
      problem->kind == HYFFT_C2R ? (layout->out.elements + 1) / 2 : layout->out.elements;
  layout->alloc_local = in_c > out_c ? in_c : out_c;
}

void hy_dist_layout_public(const hy_dist_geometry *geom, hyfft_dist_layout *layout) {
  int64_t h = geom->howmany;
  hyfft_dist_box *boxes[2] = {&layout->in, &layout->out};
  for (int i = 0; i < 2; i++) {
    for (int a = 0; a < 3; a++) boxes[i]->stride[a] *= h;
    boxes[i]->elements *= h;
  }
  layout->alloc_local *= h;
}

hyfft_status hyfft_dist_problem_init(hyfft_dist_problem *problem, hyfft_kind kind,
                                     hyfft_precision precision, int sign, int rank,
                                     const int64_t *n) {
  if (!problem || !n) return hy_dist_error(HYFFT_NULL_POINTER, "problem or n is NULL");
  if (rank != 2 && rank != 3)
    return hy_dist_error(HYFFT_INVALID_RANK, "rank %d: distributed transforms are 2D or 3D", rank);
  hyfft_dist_problem p;
  memset(&p, 0, sizeof p);
  p.kind = kind;
  p.precision = precision;
  p.sign = sign;
  p.rank = rank;
  for (int a = 0; a < 3; a++) p.n[a] = a < rank ? n[a] : 1;
  p.decomposition = HYFFT_DIST_AUTO;
  p.howmany = 1;
  hy_dist_geometry geom;
  hyfft_status st = hy_dist_geometry_init(&p, 1, 0, &geom);
  if (st != HYFFT_SUCCESS) return st;
  *problem = p;
  return HYFFT_SUCCESS;
}

hyfft_status hyfft_dist_local_size(MPI_Comm comm, const hyfft_dist_problem *problem,
                                   hyfft_dist_layout *layout) {
  if (!problem || !layout) return hy_dist_error(HYFFT_NULL_POINTER, "problem or layout is NULL");
  if (comm == MPI_COMM_NULL)
    return hy_dist_error(HYFFT_INVALID_ARGUMENT, "the communicator is MPI_COMM_NULL");
  int size = 0, me = 0;
  int rc = MPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Comm_size");
  rc = MPI_Comm_rank(comm, &me);
  if (rc != MPI_SUCCESS) return hy_dist_mpi_error(rc, "MPI_Comm_rank");
  hy_dist_geometry geom;
  hyfft_status st = hy_dist_geometry_init(problem, size, me, &geom);
  if (st != HYFFT_SUCCESS) return st;
  hy_dist_layout_fill(&geom, problem, layout);
  hy_dist_layout_public(&geom, layout);
  return HYFFT_SUCCESS;
}
