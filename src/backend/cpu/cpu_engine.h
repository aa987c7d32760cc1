/* The native CPU engine: internal interface between the backend glue
 * (cpu_backend.c) and the per-precision engines (cpu_engine_f32.c,
 * cpu_engine_f64.c, both generated from cpu_engine_impl.h).
 *
 * Data layout inside the engine: a batch of LANES transforms is gathered
 * side by side into split re/im scratch, element j of lane v at
 * [j*LANES + v], so every butterfly is one operation on a whole compiler
 * vector (GCC vector extensions) whatever the radix or stage. LANES is 8
 * for f32 and 4 for f64 (32-byte vectors). Long rows of unit stride
 * instead hold one transform, lane v its elements LANES*j + v
 * (hy_cpu_node.rkp, rtw). */
#ifndef HY_CPU_ENGINE_H
#define HY_CPU_ENGINE_H

#include "backend/backend.h"

#define HY_CPU_LANES_F32 8
#define HY_CPU_LANES_F64 4

/* Longest transform always done in one go on gathered scratch, and more
 * where the L2 cache holds the group (hy_cpu_direct_max); longer ones are
 * split into two batched passes (four-step) so that each fits in cache. */
#define HY_CPU_DIRECT_MAX 4096
/* Transforms of at most this many points run as one codelet (one stage)
 * rather than one stage per factor: the codelet's 2n lane vectors then
 * fit the 16 vector registers of AVX2 (wider codelets spilled, and ran
 * slower than their stages, docs/performance.md). */
#define HY_CPU_ONE_CODELET_MAX 8

/* One Stockham stage: radix, the product of the radices before it, and
 * its twiddles tw_re[(r-1)*ns + k], tw_im likewise (k < ns, 1 <= r < radix),
 * in the engine's precision. Generic odd radices also carry cos/sin of
 * 2*pi*p*k/radix for p, k in 1..(radix-1)/2. */
typedef struct hy_cpu_stage {
  int radix;
  int64_t ns;
  void *tw;     /* REAL[2 * (radix-1) * ns]: all re, then all im */
  void *consts; /* REAL[2 * h * h], h = (radix-1)/2: cos then sin; NULL if unused */
} hy_cpu_stage;

/* A contiguous lane-vector transform of length n (the kernel plan). */
typedef struct hy_cpu_kp {
  int64_t n;
  int sign;
  int nstages;
  hy_cpu_stage stages[HY_MAX_FACTORS];
} hy_cpu_kp;

/* w^p = exp(sign*2*pi*i*p/n) for 0 <= p < n as lo[p & mask] * hi[p >> shift]
 * (both from long double, multiplied in double): O(sqrt n) memory for the
 * four-step twiddles. */
typedef struct hy_cpu_twiddle {
  int64_t n; /* 0: no twiddle */
  int shift;
  int64_t mask;
  double *lo; /* interleaved complex, mask+1 entries */
  double *hi; /* interleaved complex, (n >> shift) + 1 entries */
  /* DIRECT nodes: lane[k*LANES + v] = re of w^(v*k) for k < node n, then
   * the im parts: the per-lane factor when lanes are consecutive indices. */
  double *lane;
} hy_cpu_twiddle;

typedef enum hy_cpu_node_kind {
  HY_CPU_DIRECT = 0,   /* gather LANES transforms, Stockham, scatter */
  HY_CPU_LARGE = 1,    /* n = n1*n2: two batched sub-nodes (four-step) */
  HY_CPU_BLUESTEIN = 2, /* chirp-z with a convolution of length m */
  HY_CPU_RADER = 3      /* prime n by Rader: a cyclic convolution of length m = n - 1 */
} hy_cpu_node_kind;

typedef struct hy_cpu_node {
  hy_cpu_node_kind kind;
  hyfft_precision precision;
  int sign;
  int64_t n;
  hy_cpu_kp kp; /* DIRECT: length n; BLUESTEIN, RADER: length m, forward; all in `precision` */
  /* DIRECT, n a multiple of LANES (past LANES itself): rows of unit
   * stride one at a time (hy_row_one): rkp transforms the LANES decimated sequences
   * x[LANES*j + v] of length n / LANES side by side, lane p holding
   * v = hy_cpu_row_lane(LANES, p), and rtw holds w_n^(v*k) at
   * [k*LANES + p] (k < n / LANES, zero past it up to
   * hy_cpu_row_tw_rows; re, then im that many rows later), in
   * `precision`. NULL where not built. */
  hy_cpu_kp rkp;
  void *rtw;
  /* Whether full lane groups take the row path too (n >= LANES^3 and a
   * multiple of LANES^2). The other rows that have tables take it only
   * in runs of fewer than LANES transforms, whose one lane group would be mostly
   * empty lanes: a single 256-point f32 transform gathered into a group
   * of eight does eight transforms' work. */
  int rows_batched;
  /* DIRECT: runs of transforms stored back to back take the straight-line
   * kernel of the kernel plan where there is one (hy_short_pick: one or
   * two codelet stages, up to 16 points and 64 out of place); 0 with HYFFT_CPU_SHORT=0, and
   * for the nodes of other kinds. */
  int fused;
  /* LARGE */
  int64_t n1, n2;
  struct hy_cpu_node *a, *b; /* a: n2 transforms of n1 (twiddled), b: n1 of n2 */
  /* LARGE: two copies of one transform fit the L2 cache, so transforms of
   * unit stride run on local copies (hy_large_range). */
  int local;
  /* DIRECT or LARGE past the L2 rule: 1 where the choice between them was
   * timed on this machine (hy_cpu_direct_pays), 0 where a rule made it. */
  int timed;
  /* DIRECT: the L2 cache of one core as the engine's rules take it
   * (hy_cpu_node_build). A run of columns whose rows span more bytes than
   * this goes through column blocks (hy_col_block_fits); one that spans
   * less is read in place, its lines still in the L2. */
  int64_t l2_bytes;
  /* BLUESTEIN: chirp c[j] = exp(sign*pi*i*j^2/n) (j < n) and the spectrum
   * of conj(c) wrapped to length m, divided by m. RADER: the spectrum of
   * the kernel b_q = exp(sign*2*pi*i*(g^-q mod n)/n), divided by m, and
   * no chirp. Both from long double, rounded once into `precision`,
   * split re then im. */
  int64_t m;
  struct hy_cpu_node *fft; /* forward length-m node in `precision` for one wide transform */
  /* BLUESTEIN, RADER with m past 4 * HY_CPU_DIRECT_MAX: 1 where batches
   * run one transform at a time through `fft` (it takes one transform on
   * all lanes: the row path; or lane groups of m would pass
   * HY_CPU_CONV_LANES_BYTES), 0 where they run in lane groups of m on
   * the kernel plan (hy_conv_range), as shorter convolutions do. */
  int conv_wide;
  void *chirp;
  void *spec;
  /* RADER: where the convolution reads (rd[q] = g^q mod n) and where its
   * output r lands (wr[r] = g^-r mod n), g the smallest primitive root. */
  int32_t *rd;
  int32_t *wr;
  /* The twiddle of the runs this node is used in (the pass's four-step
   * twiddle, or the internal one for the first half of a LARGE node). */
  hy_cpu_twiddle tw;
} hy_cpu_node;

/* One batched run: dst[k] = scale * tw * DFT(src)[k] for every transform
 * in the loop nest (loops outermost first; lanes come from the innermost). */
typedef struct hy_cpu_run {
  const void *src;
  void *dst;
  hyfft_dim axis;
  int nloops;
  hyfft_dim loops[HY_MAX_LOOPS];
  int twiddle_loop; /* index into loops, -1: none */
  double scale;
  /* The even-length step of a real transform along this axis, done by the
   * node instead of a pass of its own (with no twiddle loop; a DIRECT node
   * does it in its gather or scatter): with m = axis.n,
   *   HY_CPU_REAL_PRE   (C2R) each transform reads X_0..X_m and the node
   *                     transforms Z_j = P + i T_j Q, P = X_j + conj(X_m-j),
   *                     Q = X_j - conj(X_m-j) (imaginary parts of X_0 and
   *                     X_m taken as 0 for Z_0), as HY_PASS_C2R_PRE makes;
   *   HY_CPU_REAL_POST  (R2C) each transform stores X_0..X_m of
   *                     HY_PASS_R2C_POST made from its DFT Z, times scale.
   * real_tw: the step's T_k, k = 0..m, the m + 1 real parts and then the
   * m + 1 imaginary parts in double (hy_cpu_op_real_table).
   * A LARGE node, whose lane groups never hold both elements of a pair,
   * does the step per transform right before (C2R: from the input into
   * the transform's output, then its DFT in place there) or after (R2C:
   * in place on its output) that transform's DFT, whose data are then in
   * cache (hy_cpu_op_real_one), instead of as a pass over the batch.
   * The odd-length steps (HY_FUSE_R2C_ODD / HY_FUSE_C2R_ODD; a DIRECT
   * node's lane groups only, no real_tw), with n = axis.n (odd, or even
   * where the reals are not complex pairs in memory) and h = n/2 + 1:
   *   HY_CPU_REAL_ODD_IN   (R2C) src holds reals (src, its offsets and
   *                     in-strides count reals): each transform reads n
   *                     reals with imaginary parts 0 and stores outputs
   *                     k < h only;
   *   HY_CPU_REAL_ODD_OUT  (C2R) each transform reads X_0..X_h-1 as the
   *                     inputs e < h and conj(X_n-e) above and stores the
   *                     real part of each output, times scale, to dst in
   *                     reals (X_0's imaginary part adds only to the
   *                     imaginary parts: the reals are FFTW's). */
  int real_step;
  const double *real_tw;
  /* Out of place with more data than the threads' L2 caches hold: the
   * copies out of local buffers (short kernels' groups, the block
   * scatters, four-step transforms on local copies) write dst with
   * non-temporal stores
   * (hy_cpu_stream_copy), which skip reading each line before writing
   * it. */
  int stream_out;
  /* The row path (hy_row_one) streams only where the pass's data also
   * outgrow the last-level cache: within it the next pass, or the
   * caller, reads the lines back from that cache. */
  int stream_rows;
} hy_cpu_run;

/* Copy `bytes` from src to dst with non-temporal stores where the
 * machine has them (x86-64: the whole cache lines in the middle, plain
 * copies for the partial lines at the ends), memcpy elsewhere. hy_cpu_stream_fence orders
 * them before the results are handed to another thread. */
void hy_cpu_stream_copy(void *dst, const void *src, size_t bytes);
void hy_cpu_stream_fence(void);

enum {
  HY_CPU_REAL_NONE = 0,
  HY_CPU_REAL_PRE = 1,
  HY_CPU_REAL_POST = 2,
  HY_CPU_REAL_ODD_IN = 3,
  HY_CPU_REAL_ODD_OUT = 4
};

static inline int hy_cpu_real_odd(int real_step) {
  return real_step == HY_CPU_REAL_ODD_IN || real_step == HY_CPU_REAL_ODD_OUT;
}

/* Per-precision kernel plans (cpu_engine_stages.h via cpu_engine_impl.h;
 * hy_cpu_kp_free, precision-independent, in cpu_node.c). */
hy_status hy_cpu_kp_init_f32(hy_cpu_kp *kp, int64_t n, const int *factors, int nfactors, int sign);
hy_status hy_cpu_kp_init_f64(hy_cpu_kp *kp, int64_t n, const int *factors, int nfactors, int sign);
void hy_cpu_kp_free(hy_cpu_kp *kp);

/* The most bytes a run of a DIRECT node asks of its thread's scratch slot 0
 * (its lane arrays and a column block); 0 for other kinds, whose runs take
 * more slots. With slot 0 grown to this size first (hy_cpu_scratch_get),
 * such a run allocates nothing. */
size_t hy_cpu_node_scratch_f32(const hy_cpu_node *node);
size_t hy_cpu_node_scratch_f64(const hy_cpu_node *node);

/* The most bytes a run of the node (any kind, sub-nodes included) asks of
 * each scratch slot of the thread it runs on (cpu_scratch.h), raised into
 * bytes[]: reserved on the calling thread before an execution writes
 * anything (hy_cpu_scratch_reserve), those requests allocate nothing. */
void hy_cpu_node_reserve_f32(const hy_cpu_node *node, size_t bytes[]);
void hy_cpu_node_reserve_f64(const hy_cpu_node *node, size_t bytes[]);

/* Run a node (any kind) over a batch; multithreaded inside. */
hy_status hy_cpu_node_run_f32(const hy_cpu_node *node, const hy_cpu_run *run);
hy_status hy_cpu_node_run_f64(const hy_cpu_node *node, const hy_cpu_run *run);

/* Rows of LANES entries in each half of a row twiddle table
 * (hy_cpu_node.rtw) for rows of n = LANES * m points: m rounded up to a
 * multiple of LANES, as the last group of LANES outputs reads them. */
static inline int64_t hy_cpu_row_tw_rows(int lanes, int64_t m) {
  return (m + lanes - 1) / lanes * lanes;
}

/* The decimated sequence v that lane p of the row path holds (its loads
 * split re and im within each 128-bit half of a vector): 0 1 4 5 2 3 6 7
 * for 8 lanes, 0 2 1 3 for 4. The order is its own inverse. */
static inline int hy_cpu_row_lane(int lanes, int p) {
  return lanes == 8 ? (p & 1) | ((p & 2) << 1) | ((p & 4) >> 1) : (p & 1) << 1 | (p & 2) >> 1;
}

#endif /* HY_CPU_ENGINE_H */
