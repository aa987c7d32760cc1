/*
 * hyfft_mpi: MPI-distributed 2D and 3D transforms on top of hyfft.
 *
 * A separate library (libhyfft_mpi, linked with libhyfft and the MPI
 * library); the core library does not depend on MPI. Each rank holds a box
 * of the global array; local transforms run through hyfft plans on the
 * caller's context and the global transposes through MPI_Alltoallv. The
 * layouts follow FFTW-MPI: slab decomposition along dim 0 by FFTW's block
 * rule (block = ceil(n / ranks)), optional transposed output (dims 0 and 1
 * swapped, distributed along dim 1), and the padded real layout of R2C/C2R
 * (real rows of 2*(n/2+1) reals, in place and out of place). For 3D a pencil
 * decomposition over a P x Q process grid is also available. See docs/mpi.md.
 *
 * Conventions are hyfft's: every function returns an hyfft_status from the
 * one table of hyfft.h; on error nothing is written to the caller's outputs.
 * The detail message of a failed call is hyfft_dist_last_error() (this
 * library's own thread-local message; it repeats hyfft_last_error() when a
 * local hyfft call failed). Collective calls (marked below) agree on
 * validity across the communicator before any all-to-all: bad input on one
 * rank gives the same named status on every rank, never a hang.
 */
#ifndef HYFFT_MPI_H
#define HYFFT_MPI_H

#include <mpi.h>

#include "hyfft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hyfft_dist_decomposition {
  HYFFT_DIST_AUTO = 0,  /* slab if every rank gets rows of dims 0 and 1, else pencil (3D) */
  HYFFT_DIST_SLAB = 1,  /* dim 0 split over all ranks (FFTW-MPI's layout) */
  HYFFT_DIST_PENCIL = 2 /* 3D only: dim 0 split over P, dim 1 over Q (P x Q = ranks) */
} hyfft_dist_decomposition;

/* Layout flags of hyfft_dist_problem.layout. */
#define HYFFT_DIST_TRANSPOSED_OUT (1u << 0) /* complex output left in the transposed layout */
#define HYFFT_DIST_TRANSPOSED_IN (1u << 1)  /* complex input given in the transposed layout */

/* A distributed problem: the global shape, identical on every rank. */
typedef struct hyfft_dist_problem {
  hyfft_kind kind;
  hyfft_precision precision;
  int sign;  /* HYFFT_FORWARD / HYFFT_BACKWARD (R2C forward, C2R backward) */
  int rank;  /* 2 or 3 */
  int64_t n[3]; /* global lengths, slowest first; real lengths for R2C/C2R */
  hyfft_dist_decomposition decomposition;
  int grid[2];     /* pencil process grid P x Q; {0, 0} lets MPI_Dims_create choose */
  unsigned layout; /* HYFFT_DIST_TRANSPOSED_OUT / _IN (at most one) */
  /* Where in and out of hyfft_dist_execute live: HYFFT_MEMORY_HOST (the
   * default) or HYFFT_MEMORY_DEVICE, buffers of the plan's context as
   * hyfft_buffer_alloc makes them (a CUDA device pointer, an OpenCL
   * cl_mem, host memory on the CPU). With device buffers the local
   * transforms run on the device, on device work buffers, and each global
   * transpose goes through host memory: the rank's box is read to the
   * host, transposed there with MPI as for host data, and written back
   * (hyfft_dist_times.staging). The token form is ':dev' before ':mpi'. */
  hyfft_memory memory;
  /* Transforms of one plan, interleaved as FFTW-MPI's `howmany`: each
   * element (i0, i1, i2) of the global array holds `howmany` values side
   * by side (complex values, or reals on a real side), value b of it
   * belonging to transform b. 0 or 1: one transform. The boxes of
   * hyfft_dist_layout then count values, so their strides and element
   * counts are howmany times a single transform's, and value b of an
   * element sits b after its first. Token form ':howmany=N' after ':mpi'. */
  int64_t howmany;
} hyfft_dist_problem;

/* One rank's box of a global array. Global element (i0, i1, i2) (i2 = 0 for
 * 2D) of the box is at element offset sum_a (i_a - start[a]) * stride[a]
 * from the buffer's start, counted in complex elements on a complex side
 * and in reals on a real side (with howmany > 1, the first of the
 * element's howmany values, the others following it). On a real side the last dim counts n reals
 * and its rows are padded to 2*(n/2+1). order[] lists the dims slowest
 * first in memory. */
typedef struct hyfft_dist_box {
  int64_t start[3];
  int64_t count[3];
  int64_t stride[3];
  int order[3];
  int64_t elements; /* elements the buffer must hold, padding included */
} hyfft_dist_box;

typedef struct hyfft_dist_layout {
  hyfft_dist_decomposition decomposition; /* the one chosen (never AUTO) */
  int grid[2];   /* slab: {ranks, 1}; pencil: {P, Q} */
  int coords[2]; /* this rank's place in the grid (rank = coords[0] * Q + coords[1]) */
  /* FFTW-MPI's terms: input rows of dim 0 (slab), rows of dim 1 in the
   * transposed layout (slab, complex lengths). Pencil: the input box's
   * dims 0 and 1. */
  int64_t local_n0, local_0_start, local_n1, local_1_start;
  hyfft_dist_box in, out;
  int64_t alloc_local; /* elements (complex, or reals on a real side) that hold in and out */
} hyfft_dist_layout;

/* Per-phase times of a plan's executions, summed since the plan was made
 * or last reset (seconds on this rank, from a monotonic clock read at each
 * phase boundary; divide by `executions` for one execution's). The phases
 * do not overlap, so local_fft + pack + alltoall + unpack + agree <= total;
 * the rest of total is bookkeeping between phases. */
typedef struct hyfft_dist_times {
  int64_t executions;
  double local_fft;  /* hyfft_execute of the local plans */
  double pack;       /* gathering each peer's block into the send buffer, the
                        copy of the block a rank keeps (straight from its old
                        place to its new one, outside the all-to-all), and
                        the local copy of a transpose within one rank */
  double alltoall;   /* MPI_Alltoallv (time in MPI, waiting for peers included) */
  int64_t alltoall_bytes; /* bytes this rank sent to the other ranks */
  int64_t alltoalls;      /* MPI_Alltoallv calls (transposes within one rank are copies) */
  double total;      /* hyfft_dist_execute from entry to return */
  double unpack;     /* scattering the received blocks into the new layout */
  double agree;      /* the status agreements (MPI_Allreduce) between steps */
  int64_t alltoall_recv_bytes; /* bytes this rank received from the other ranks */
  int64_t kept_bytes; /* bytes of the transposes over several ranks that stayed
                         on this rank (its own block, copied outside MPI) */
  double staging;     /* device buffers: copying each transpose's box from the
                         device to the host and the result back */
  int64_t staged_bytes; /* device buffers: bytes copied between the device and
                           the host, both directions summed */
} hyfft_dist_times;

typedef struct hyfft_dist_plan_s *hyfft_dist_plan;

/* A contiguous-shape problem: slab or pencil by HYFFT_DIST_AUTO, grid
 * chosen, normal layouts. */
HYFFT_API hyfft_status hyfft_dist_problem_init(hyfft_dist_problem *problem, hyfft_kind kind,
                                               hyfft_precision precision, int sign, int rank,
                                               const int64_t *n);

/* A token: a plain hyfft token of rank 2 or 3 followed by ':mpi' and
 * optionally ':slab' or ':pencil' or ':pencil=PxQ', ':tout' / ':tin'
 * (transposed output / input) and ':howmany=N' (N interleaved transforms),
 * e.g. "c2c:f32:fwd:64x64x64:mpi:pencil=2x2".
 * A ':dev' field before ':mpi' selects device buffers
 * (hyfft_dist_problem.memory). Batches, strides, scale and in-place
 * fields are refused (HYFFT_INVALID_TOKEN). */
HYFFT_API hyfft_status hyfft_dist_problem_parse(const char *token, hyfft_dist_problem *problem);

/* This rank's boxes for `problem` on `comm` (not collective: only the size
 * of comm and this rank's place in it are used). Validates the problem. */
HYFFT_API hyfft_status hyfft_dist_local_size(MPI_Comm comm, const hyfft_dist_problem *problem,
                                             hyfft_dist_layout *layout);

/* Collective over comm. `flags` are hyfft planner flags (HYFFT_ESTIMATE,
 * HYFFT_MEASURE) for the local plans, made on `context` with the
 * problem's memory.
 * The plan holds a duplicate of comm. $HYFFT_DIST_OVERLAP (2 to 16, the
 * same on every rank) overlaps the first transpose with the local FFTs
 * before it in that many chunks (docs/mpi.md, "Overlap"); unset: plain. */
HYFFT_API hyfft_status hyfft_dist_plan_create(hyfft_context context, MPI_Comm comm,
                                              const hyfft_dist_problem *problem, unsigned flags,
                                              hyfft_dist_plan *plan);
/* Collective: hyfft_dist_problem_parse then hyfft_dist_plan_create. */
HYFFT_API hyfft_status hyfft_dist_plan_token(hyfft_context context, MPI_Comm comm,
                                             const char *token, unsigned flags,
                                             hyfft_dist_plan *plan);
HYFFT_API hyfft_status hyfft_dist_plan_layout(hyfft_dist_plan plan, hyfft_dist_layout *layout);

/* A multi-line text, this rank's view of the plan: the decomposition, the
 * rank's boxes, and its stages in order (each local transform as
 * hyfft_plan_describe prints it, each transpose with the ranks it spans,
 * whether it packs and unpacks, and the elements it sends to other ranks
 * and keeps). Not collective. Same buffer rules as hyfft_plan_describe:
 * NUL terminated, *needed (optional) receives the length without the
 * NUL, HYFFT_BUFFER_TOO_SMALL (buf untouched) if it does not fit. */
HYFFT_API hyfft_status hyfft_dist_plan_describe(hyfft_dist_plan plan, char *buf, size_t buf_size,
                                                size_t *needed);

/* Collective. `in` holds layout.in (never written), `out` layout.out; in may
 * equal out (in place) when the buffer holds alloc_local elements. A rank
 * whose box is empty may pass NULL. With HYFFT_MEMORY_DEVICE both are
 * device buffers of the plan's context. Unlike an hyfft plan, a distributed
 * plan runs one execution at a time (its work buffers and counters are the
 * plan's). */
HYFFT_API hyfft_status hyfft_dist_execute(hyfft_dist_plan plan, const void *in, void *out);

HYFFT_API hyfft_status hyfft_dist_plan_times(hyfft_dist_plan plan, hyfft_dist_times *times);
HYFFT_API hyfft_status hyfft_dist_plan_reset_times(hyfft_dist_plan plan);

/* Collective: MPI's own MPI_Alltoallv on the plan's communicators with the
 * byte counts of one execution (every transpose of the plan, in order,
 * contiguous buffers, no packing), run `runs` times; *seconds is the
 * median over the runs of this rank's time in MPI_Alltoallv for one
 * execution's transposes, and *bytes what this rank sends in them (equal
 * to one execution's alltoall_bytes). The achieved bandwidth of the plan's
 * exchange against MPI's for the same traffic is then alltoall_bytes /
 * alltoall next to *bytes / *seconds. Uses the plan's work buffers: not
 * during an execution. */
HYFFT_API hyfft_status hyfft_dist_plan_alltoall_reference(hyfft_dist_plan plan, int runs,
                                                          double *seconds, int64_t *bytes);

/* Collective (frees the plan's duplicate communicator). */
HYFFT_API hyfft_status hyfft_dist_plan_destroy(hyfft_dist_plan plan);

/* The detail message of the last failed hyfft_dist_ call on this thread. */
HYFFT_API const char *hyfft_dist_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HYFFT_MPI_H */
