/* Plans: what the planner produces and every backend executes.
 *
 * A plan tree is a short sequence of passes. Each pass is one kernel launch
 * on a GPU or one parallel loop on the CPU: a batched 1D DFT along one axis
 * (or, for rank-0 problems, a scaled copy), or a pointwise step (Bluestein's
 * chirps, the pre- and post-processing of real transforms). Passes move
 * data between four logical buffers: the caller's input and output and two
 * workspaces.
 *
 * In R2C and C2R plans one end of the problem holds reals. A pointwise real
 * step (HY_PASS_WIDEN ...) counts that end in reals; a DFT or copy pass
 * that names that buffer views it as complex: complex element j is the
 * reals 2j and 2j+1 (the planner only does so where the real axis has unit
 * stride and every other real stride is even). */
#ifndef HY_PLAN_H
#define HY_PLAN_H

#include "problem/problem.h"

/* The version of what a plan tree generates: bump whenever generated
 * source changes for the same input, so that stale on-disk cache entries
 * and wisdom are never used. */
#define HY_CODEGEN_VERSION 7

#define HY_MAX_LOOPS (HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK + 2)
#define HY_MAX_FACTORS 48
#define HY_MAX_PASSES 32
/* Bytes of a kernel-spec string, terminator included. */
#define HY_KERNEL_SPEC_LEN 96

typedef enum hy_buffer {
  HY_BUF_IN = 0,
  HY_BUF_OUT = 1,
  HY_BUF_WORK0 = 2,
  HY_BUF_WORK1 = 3,
  /* The user pointers of a plan's load and store callbacks (NULL when not
   * given): kernel arguments only, never a pass's src or dst. */
  HY_BUF_LOAD_USER = 4,
  HY_BUF_STORE_USER = 5,
  HY_BUF_COUNT = 6
} hy_buffer;

typedef enum hy_pass_op {
  HY_PASS_COPY = 0,  /* dst = scale * src over the loops (axis.n == 1) */
  HY_PASS_DFT = 1,   /* batched 1D DFT along axis */
  HY_PASS_CHIRP = 2, /* pointwise step of a multi-pass Bluestein along axis (chirp_step) */
  /* The pointwise steps of real transforms (R2C and C2R plans on every backend;
   * solvers/real.c). Each runs over the loops like the others and
   * multiplies what it stores by scale. Where one end of a pass holds
   * reals (the input of R2C, the output of C2R), the strides and the
   * offset of that end count real elements; every other end counts
   * complex ones. */
  HY_PASS_WIDEN = 3,      /* real -> complex along axis, axis.n complex outputs:
                             real_pairs 0: dst_e = (src_e, 0);
                             real_pairs 1: dst_e = (src_2e, src_2e+1), the
                             reals at 2e*in_stride and (2e+1)*in_stride */
  HY_PASS_NARROW = 4,     /* complex -> real along axis, axis.n complex inputs:
                             real_pairs 0: dst_e = Re src_e;
                             real_pairs 1: dst_2e = Re src_e, dst_2e+1 = Im src_e
                             (at 2e*out_stride and (2e+1)*out_stride) */
  HY_PASS_R2C_POST = 5,   /* even n = 2m, axis.n = m + 1: from Z = DFT_m(z),
                             z_j = x_2j + i x_2j+1 (elements 0..m-1 of src,
                             Z_m read as Z_0), the first m + 1 outputs of
                             DFT_n(x): with P = Z_k + conj(Z_m-k),
                             Q = Z_k - conj(Z_m-k), T_k = exp(-2 pi i k/n),
                             dst_k = (P - i T_k Q) / 2, k = 0..m (imaginary
                             parts of k = 0 and k = m exactly 0). sign -1 */
  HY_PASS_C2R_PRE = 6,    /* even n = 2m, axis.n = m + 1 (inputs X_0..X_m of a
                             Hermitian spectrum; the imaginary parts of X_0
                             and X_m are taken as 0): with P = X_k + conj(X_m-k),
                             Q = X_k - conj(X_m-k), T_k = exp(+2 pi i k/n),
                             dst_k = P + i T_k Q for k = 0..m-1 (m outputs),
                             so that DFT_m with sign +1 of dst gives
                             x_2j + i x_2j+1 of the unnormalised C2R. sign +1 */
  HY_PASS_C2R_EXTEND = 7, /* any n, axis.n = n outputs from the n/2 + 1 inputs
                             of a half spectrum: dst_e = src_e for e <= n/2,
                             conj(src_n-e) for e > n/2, with the imaginary
                             parts of src_0 (and src_n/2, n even) taken as 0 */
  /* The pointwise steps of real-to-real transforms (R2R plans;
   * solvers/r2r.c) around a complex DFT of length N = r2r_len along one
   * axis of n = axis.n reals, for the kind r2r_kind. PRE reads the n reals
   * (src in reals) and writes all N complex elements of a row
   * (dst_e at e * axis.out_stride, e = 0..N-1); POST reads the N complex
   * values (src at e * axis.in_stride) and writes the n reals (dst in
   * reals), times scale. What each kind computes is in solvers/r2r.c. */
  HY_PASS_R2R_PRE = 8,
  HY_PASS_R2R_POST = 9,
  /* The twiddle step of a four-step split done in pieces (the 1D
   * out-of-core sweeps, exec/out_of_core.c; hy_planner_append_twiddle):
   * over one loop (nloops 1, twiddle_loop 0), element e along the axis of
   * transform m is multiplied by exp(sign * 2*pi*i * e * j / twiddle_n),
   * j = (m + base) mod (twiddle_n / axis.n), times scale. base is the
   * 64-bit integer in the first 8 bytes of complex element aux_offset of
   * HY_BUF_IN (the piece's first column, written there before each
   * execution), or 0 when aux_offset < 0. May run in place (src == dst,
   * same layout). */
  HY_PASS_TWIDDLE = 10
} hy_pass_op;
/* R2C_POST, C2R_PRE and C2R_EXTEND may run in place (src and dst the same
 * memory with the same layout in bytes): R2C_POST and C2R_PRE read both
 * elements of each pair k, m-k before they write either, and EXTEND's
 * mirrored reads (1 <= n-e < n/2) see values it leaves unchanged. WIDEN
 * and NARROW may run in place where each complex element covers the bytes
 * of the reals it is made of (real_pairs 1, or axis.n == 1). */

/* The pointwise steps of Bluestein when its convolution (length M =
 * bluestein_m) is too long for one pass: PRE, a forward DFT of length M
 * (sign -1), SPECTRUM, an inverse DFT of length M (sign +1), POST. With
 * N = chirp_n, c_e = exp(sign*pi*i*e^2/N) (sign of the pass) and element e
 * along the axis:
 *   PRE:      axis.n = M; dst_e = e < N ? c_e * src_e : 0 (src read for e < N only)
 *   SPECTRUM: axis.n = M; dst_e = B_e * src_e, B = DFT_{-1}(b)/M with
 *             b_e = conj(c_e) for e < N, b_{M-e} = conj(c_e) for 0 < e < N, else 0
 *   POST:     axis.n = N; dst_e = scale * c_e * src_e
 * All three may run in place (src == dst, same layout). */
typedef enum hy_chirp_step {
  HY_CHIRP_PRE = 0,
  HY_CHIRP_SPECTRUM = 1,
  HY_CHIRP_POST = 2
} hy_chirp_step;

/* Bluestein steps fused into the four-step passes of its convolution
 * (GPU only; HY_PASS_DFT with algo MIXED_RADIX). With N = chirp_n,
 * c_e = exp(sign*pi*i*e^2/N) for the problem's sign fuse_sign, S =
 * fuse_split and j the index of loops[fuse_loop]:
 *   CHIRP_IN      element e of the transform is read as c_i * src where
 *                 i = j + S*e, and as 0 (nothing read) when i >= N;
 *   SPECTRUM_OUT  output e is multiplied by B_k, k = S*e + j (B as in
 *                 HY_CHIRP_SPECTRUM, M = bluestein_m entries);
 *   CHIRP_OUT     output e is multiplied by c_k, k = S*e + j, and stored
 *                 only when k < N. */
typedef enum hy_fuse {
  HY_FUSE_NONE = 0,
  HY_FUSE_CHIRP_IN = 1,
  HY_FUSE_SPECTRUM_OUT = 2,
  HY_FUSE_CHIRP_OUT = 3,
  /* Rader's steps fused into the four-step passes of its convolution of
   * length L = bluestein_m = N - 1 (N = chirp_n prime, g its smallest
   * primitive root), with S, j, k as above and T the transform's index
   * over the loops other than fuse_loop, row-major:
   *   RADER_IN            element e is read as x at g^i mod N, i = j + S*e;
   *                       also aux[aux_offset + 2T] = x_0;
   *   RADER_SPECTRUM_OUT  output e is multiplied by the spectrum of Rader's
   *                       kernel (DFT_{-1}(b)/L, b_m = W_N^(g^-m mod N));
   *                       also aux[aux_offset + 2T + 1] = output 0 before
   *                       the multiply (the sum of the x_n, n > 0);
   *   RADER_OUT           output e (convolution index k) plus x_0 is
   *                       stored at g^-k mod N, and X_0 = x_0 + that sum
   *                       at 0, both times scale.
   * aux is WORK0. */
  HY_FUSE_RADER_IN = 4,
  HY_FUSE_RADER_SPECTRUM_OUT = 5,
  HY_FUSE_RADER_OUT = 6,
  /* The even-length steps of real transforms fused into the one-pass DFT
   * of length m = axis.n along a real axis of length N = chirp_n = 2m
   * (HY_PASS_DFT with algo MIXED_RADIX, no four-step twiddle, no plane;
   * fuse_loop -1; on the CPU in the engine's gather or scatter):
   *   R2C_POST  the pass stores, for each transform, the m + 1 outputs of
   *             HY_PASS_R2C_POST computed from its DFT Z (times scale) at
   *             dst[ob + k * axis.out_stride], k = 0..m;
   *   C2R_PRE   the pass reads the m + 1 inputs X_0..X_m at
   *             src[ib + k * axis.in_stride] and transforms the m values
   *             HY_PASS_C2R_PRE makes of them.
   * On a GPU both go through local memory: the whole DFT of a transform
   * is there when the step pairs element k with m - k.
   * Split form (fuse_loop >= 0, GPU only): the steps of a half-length DFT of
   * length m = L * axis.n split by the four-step solver into two passes, R2C_POST
   * in the last (pass B) and C2R_PRE in the first (pass A, with its
   * four-step twiddle). With L = loops[fuse_loop].n, element e of the
   * transform of row j (the index of that loop) is index k = j + L*e of
   * the length-m sequence, and k's partner m - k lies in row L - j at
   * element axis.n - 1 - e (row L/2 pairs with itself; row 0's partner
   * of e is element (axis.n - e) mod axis.n, and k = m is row 0's
   * element axis.n). For R2C_POST L is even and the transforms of a
   * work-group take their rows by pairs: the loop's index s is read as
   * row s/2 for even s and as row L/2 (s = 1) or L - (s-1)/2 (odd s > 1),
   * so rows j and L - j are neighbouring transforms of one work-group
   * (the loop is the fastest in the transform index, and the
   * work-group's transform count is even). C2R_PRE keeps the rows in
   * order and reads each pair's two inputs itself.
   *   R2C_POST  the pass stores the outputs k (times scale) at
   *             dst[ob + e * axis.out_stride] for e < axis.n, and row 0
   *             also output m at e = axis.n;
   *   C2R_PRE   the pass reads X_k and X_m-k at src[ib + e *
   *             axis.in_stride] of their rows (X_m at row 0's element
   *             axis.n) and transforms the values HY_PASS_C2R_PRE makes. */
  HY_FUSE_R2C_POST = 7,
  HY_FUSE_C2R_PRE = 8,
  /* The steps of a real-to-real axis fused into its one-pass DFT of
   * length N = axis.n = r2r_len (GPU only; HY_PASS_DFT with algo
   * MIXED_RADIX, no four-step twiddle, no plane; fuse_loop -1), through
   * local memory like the real steps; r2r_fuse says which:
   *   bit 1  the pass reads the r2r_n reals of each row at
   *          src[ib + j * axis.in_stride] (src, its offset and loop
   *          strides in reals) and transforms the N values of
   *          HY_PASS_R2R_PRE;
   *   bit 2  the pass stores the r2r_n reals of HY_PASS_R2R_POST (times
   *          scale) at dst[ob + o * axis.out_stride] (dst in reals). */
  HY_FUSE_R2R = 9,
  /* The odd-length real steps fused into the one-pass DFT of length
   * N = axis.n along the real axis (on the CPU also an even N whose reals
   * are not complex pairs in memory, solvers/real.c) (HY_PASS_DFT with algo MIXED_RADIX or,
   * on a GPU, BLUESTEIN; no four-step twiddle, no plane; fuse_loop -1).
   * Each element is read or written once, straight between global memory
   * and registers (no staged load or store) on a GPU, and in the gather
   * and scatter of the CPU engine's lane groups:
   *   R2C_ODD  the pass reads element e as the real src[ib + e *
   *            axis.in_stride] with imaginary part 0 (src in reals) and
   *            stores only outputs k < N/2 + 1;
   *   C2R_ODD  the pass reads element e as X_e for e < N/2 + 1 and as
   *            conj(X_(N-e)) above (X_0's imaginary part read as 0, as
   *            FFTW does) and stores the real part of each output (dst
   *            in reals). */
  HY_FUSE_R2C_ODD = 10,
  HY_FUSE_C2R_ODD = 11
} hy_fuse;

/* Whether a fused step is one of Rader's (they share a stash in WORK0). */
static inline int hy_fuse_is_rader(hy_fuse f) {
  return f == HY_FUSE_RADER_IN || f == HY_FUSE_RADER_SPECTRUM_OUT || f == HY_FUSE_RADER_OUT;
}

/* Whether a fused step is one of the even-length real transforms' (no
 * loop of its own, through local memory). */
static inline int hy_fuse_is_real(hy_fuse f) {
  return f == HY_FUSE_R2C_POST || f == HY_FUSE_C2R_PRE;
}

/* Whether a fused step is one of the odd-length real transforms' (no loop
 * of its own, straight from and to global memory). */
static inline int hy_fuse_is_real_odd(hy_fuse f) {
  return f == HY_FUSE_R2C_ODD || f == HY_FUSE_C2R_ODD;
}

typedef enum hy_dft_algo {
  HY_ALGO_MIXED_RADIX = 0, /* Stockham over factors[] (product = axis.n) */
  HY_ALGO_BLUESTEIN = 1,   /* chirp-z via a convolution of length bluestein_m,
                              whose own radices are factors[] */
  HY_ALGO_RADER = 2        /* prime n by Rader: a cyclic convolution of length
                              bluestein_m = n - 1 with radices factors[]. The
                              planner turns a one-pass Bluestein pass into it
                              where the model or the switch rader=1 says so
                              (kernel_model.c; on the CPU wherever n - 1
                              factors into the engine's radices) */
} hy_dft_algo;

/* The generator's switches for one DFT pass of a GPU plan (DESIGN rule 9),
 * chosen by the planner (planner/kernel_model.c: the model's defaults,
 * then $HYFFT_KERNEL_SPEC, then the plan's variant); their names in text
 * are the key table of planner/kernel_spec.c. */
typedef struct hy_kernel_spec {
  int threads_per_transform; /* T: threads cooperating on one transform */
  int transforms_per_block;  /* M: transforms one work-group handles */
  int lds_pad;               /* complex elements of padding after every 2^lds_pad_shift */
  int lds_pad_shift;         /* log2 of the padding period in elements (5: every 32) */
  int lds_row_extra;         /* elements added to each transform's row after the padding
                                (its residue modulo the banks decides whether threads on
                                neighbouring transforms collide) */
  int split_exchange;        /* 1: exchange real then imaginary parts (half the local memory) */
  int transform_fastest;     /* 1: consecutive threads walk one transform (contiguous axis);
                                0: consecutive threads walk neighbouring transforms (strided axis) */
  int store_transposed;      /* 1: the last stage goes through local memory and is stored with
                                consecutive threads on neighbouring transforms (outputs whose
                                loop stride is smaller than the axis stride: four-step pass B) */
  int stage_load;            /* 1: the block's inputs (one dense run of M transforms) are copied
                                to local memory by consecutive threads first, so a warp spanning
                                several short transforms still reads whole segments */
  int stage_store;           /* 1: the same for the outputs, through local memory */
  int stage_twiddles;        /* 1: twiddles from per-stage tables laid out [r-1][k], so the
                                threads of a warp (consecutive k) read consecutive entries;
                                0: one table of W_n indexed r*k*step (scattered reads) */
  int ftw_sincos;            /* four-step twiddles: 0 reads of an N-entry table (a warp's 32
                                reads hit 32 sectors), 1 sincospi on the fly, 2 the product
                                of two short tables (hy_cg_twiddle_pair_table) */
  int min_blocks;            /* CUDA: blocks per SM the register budget must allow
                                (__launch_bounds__'s second argument); 0 or 1: no demand */
  int reverse_blocks;        /* 1: the blocks run from the launch's last to its first
                                (the planner sets it for every second pass of a plan) */
  int merge_odd;             /* pairs of stages of 3 or 5 merged into one of 9 or 25:
                                0 never, 1 when the length is a power of that prime,
                                2 wherever two of them follow each other */
  int pow2_radix;            /* 0: the planner's power-of-two factors (16s, then the rest);
                                16/32/64: regrouped into stages of that radix */
  int rader;                 /* a one-pass prime Bluestein pass as Rader (the planner
                                then makes the pass HY_ALGO_RADER) */
  int persist;               /* a chain of 2-4 passes as one persistent kernel (cg_persist.c,
                                read from its first pass): 1 asked for, 0 refused, -1 the
                                default */
  int persist_ring;          /* its work slots per ring; 0: the rings take about half of L2
                                (three quarters for chains of more than two passes) */
  int persist_lag;           /* elements each pass runs behind the one before; 0: from the
                                ring budget (half the ring for two passes) */
  int persist_hints;         /* 1: input and output streamed past L2 (CUDA cache hints);
                                0: plain loads and stores; -1: the default (cg_persist.c) */
  int body;                  /* 0: a kernel of its own; 1, 2 or 3: the function for the
                                first, the last or a middle pass of a persistent kernel
                                (cg_persist.c), which takes the block index and local
                                memory from its caller */
} hy_kernel_spec;

typedef struct hy_pass {
  hy_pass_op op;
  hy_buffer src, dst;
  int64_t src_offset, dst_offset; /* elements of the pass's data type */
  hyfft_dim axis;                 /* transform length and its strides */
  int nloops;                     /* the batch this pass repeats over */
  hyfft_dim loops[HY_MAX_LOOPS];  /* outermost first */
  hyfft_precision precision;
  int sign;
  double scale; /* multiplies the output; exactly 1.0 means none */
  /* Four-step twiddle: when twiddle_loop >= 0, output element k of the
   * transform at index m of loops[twiddle_loop] is multiplied by
   * exp(sign * 2*pi*i * m * k / twiddle_n) before scaling. */
  int twiddle_loop;
  int64_t twiddle_n;
  /* Plane pass (GPU generator; 0 for an ordinary one): the transform is a
   * 2D DFT of an A x B plane, B = plane_inner and A = axis.n / B, whose
   * element (a, b) lies at (a*B + b) * axis stride on either side: the two
   * innermost axes of a multi-dimensional problem done in one pass over
   * the data instead of two. factors[] are B's then A's (mixed radix
   * both). No four-step twiddle or fused step. */
  int64_t plane_inner;
  hy_dft_algo algo;
  int nfactors;
  int factors[HY_MAX_FACTORS];
  int64_t bluestein_m;
  /* HY_PASS_CHIRP only: which step, and the Bluestein length N (also
   * HY_PASS_DFT with a fused step, below). */
  hy_chirp_step chirp_step;
  int64_t chirp_n;
  /* A Bluestein step fused into this DFT pass (hy_fuse), its loop, split
   * and the problem's sign. */
  hy_fuse fuse;
  int fuse_loop;
  int64_t fuse_split;
  int fuse_sign;
  int64_t aux_offset; /* Rader's fused steps: where their stash starts in WORK0 */
  /* HY_PASS_WIDEN / HY_PASS_NARROW: 1 when each complex element holds two
   * neighbouring reals of the real axis, 0 when it holds one real and an
   * imaginary part 0. */
  int real_pairs;
  /* HY_PASS_R2R_PRE / HY_PASS_R2R_POST: the r2r kind (hyfft_r2r_kind) and
   * the length N of the complex DFT between them. */
  int r2r_kind;
  int64_t r2r_len;
  /* HY_FUSE_R2R: the steps fused (bit 1 PRE, bit 2 POST) and the reals
   * along the axis. */
  int r2r_fuse;
  /* HY_FUSE_R2R with both steps, DCT-II/III and DST-II/III of even
   * r2r_n = n, DCT-I and DST-I: 1 when the DFT is the half-length complex
   * one of a real DFT (N = n/2 for the first four). DCT-II/DST-II: PRE packs Makhoul's v as
   * z_j = v_2j + i v_2j+1, POST splits Z into X_k = DFT_n(v)_k,
   * k = 0..n/2 (as the R2C step does) and writes Y_k and Y_n-k from X_k
   * (X_n-k = conj X_k). DCT-III/DST-III: PRE forms the Hermitian PRE
   * values V_k, V_n/2-k and pairs them as the C2R step does, POST reads
   * v_q from the real or imaginary part of element q/2. DCT-I/DST-I
   * (any n; N = n - 1 / n + 1): PRE packs the even or odd extension's
   * reals in pairs, POST splits Z and writes Re X_k / -Im X_k+1. The DHT
   * of even n (N = n/2): PRE packs x in pairs, POST writes Re X_k -/+
   * Im X_k at k and n-k. Half the arithmetic and local memory of the
   * length-N form. */
  int r2r_half;
  /* The ends of a real transform's fused Bluestein chain (the pass with
   * HY_FUSE_CHIRP_IN and the one with HY_FUSE_CHIRP_OUT; 0 elsewhere), N =
   * chirp_n odd, h = N/2 + 1: 1 for R2C (the first pass reads reals,
   * imaginary parts 0; the last stores outputs k < h only), 2 for C2R (the
   * first reads the Hermitian extension of h inputs, X_0's imaginary part
   * as 0; the last stores real parts, dst in reals). The same on the
   * HY_CHIRP_PRE and HY_CHIRP_POST passes of the unfused chain, whose
   * R2C POST pass is h long. */
  int real_end;
  int64_t r2r_n;
  /* The variant of the generator switches the tuner or wisdom chose for
   * the plan ("key=value,..."; relative keys tmul/tdiv/mmul/mdiv scale
   * the model's threads/transforms); "" keeps the model's choice. */
  char kernel_spec[HY_KERNEL_SPEC_LEN];
  /* Every switch of the kernel that runs this pass (GPU DFT passes, once
   * the planner finalised the tree): the model's defaults with
   * $HYFFT_KERNEL_SPEC and kernel_spec applied. */
  hy_kernel_spec spec;
} hy_pass;

typedef struct hy_plan_tree {
  const char *solver; /* static name of the solver that produced it */
  int npasses;
  hy_pass passes[HY_MAX_PASSES];
  int64_t work_elems[2]; /* complex elements of WORK0 and WORK1 */
  /* Counters a persistent GPU kernel of 2-4 passes synchronises its blocks with
   * (src/codegen/cg_persist.c): sync_ints 32-bit integers at complex
   * element sync_offset of WORK0, behind the passes' data; 0 when the
   * tree has no room for them. */
  int64_t sync_offset, sync_ints;
  double cost;           /* model cost in seconds (estimated) */
  char kernel_spec[HY_KERNEL_SPEC_LEN]; /* the variant every DFT pass got ("" = model) */
  /* GPU plans: 1 once the planner filled every pass's spec (the generator
   * refuses a tree without them); the bytes of L2 one chunk of the batch
   * may take when the passes run chunk by chunk (0: the plain pass order). */
  int specs_ready;
  int64_t l2_chunk_bytes;
} hy_plan_tree;


/* Reserve the counters of a persistent kernel at the end of WORK0
 * (sync_offset, sync_ints) when the tree is 2-4 DFT passes over a batch of
 * two or more elements: one ticket counter and one per pass and element.
 * A few bytes per element, so GPU plans reserve them whether or not the
 * generator fuses the passes. */
void hy_plan_tree_reserve_sync(hy_plan_tree *tree);

/* Initialise a pass with neutral values (no twiddle, scale 1). */
void hy_pass_init(hy_pass *pass, hy_pass_op op, hyfft_precision precision, int sign);

/* Append the description of a plan tree, one line per pass, indented. */
void hy_plan_tree_describe(const hy_plan_tree *tree, hy_strbuf *sb);

/* The offsets (input and output side, in the pass's elements, offsets of
 * the pass itself not included) of transform t of a pass, its loops
 * taken innermost fastest. */
void hy_pass_loop_offsets(const hy_pass *pass, int64_t t, int64_t *in, int64_t *out);

/* Total number of transforms a pass performs (product of loop lengths). */
int64_t hy_pass_count(const hy_pass *pass);

/* Whether a pass of the tree transforms whole 2D planes (plane_inner). */
int hy_plan_tree_has_plane(const hy_plan_tree *tree);

/* Whether an out-of-place tree may run with its input and output in the
 * same memory: no pass writes the input, and every pass that reads it
 * comes before the first that writes the output (a chain through the work
 * buffers; never one pass from the input to the output). The input's
 * bytes past the output's extent stay as they were. Only for trees whose
 * passes run one after the other over all the data: no L2 chunks
 * (l2_chunk_bytes 0) and no persistent chain (sync_ints 0), as
 * hy_planner_append_twiddle leaves them; 0 for any other. */
int hy_plan_tree_in_out_may_alias(const hy_plan_tree *tree);

#endif /* HY_PLAN_H */
