/* Kernel specs: the generator's switches for one GPU pass, as data.
 *
 * The planner fills one hy_kernel_spec per DFT pass of a GPU plan tree
 * (planner/kernel_model.c: the model's defaults, then $HYFFT_KERNEL_SPEC,
 * then the plan's variant from the tuner or wisdom); the generator reads it
 * and decides nothing more. Every switch that can be named in text has one
 * row in the key table below, which parsing, checking, printing and the
 * tuner's variants all read, so a new switch is added in one place.
 *
 * The second half holds the facts of a pass under a spec that both the
 * model and the generator need: the radices of its stages, the threads
 * that idle, the local memory a block takes. */
#ifndef HY_KERNEL_SPEC_H
#define HY_KERNEL_SPEC_H

#include "planner/plan.h"

/* Complex elements one kernel block needs are counted in bytes of this. */
static inline size_t hy_complex_bytes(hyfft_precision p) { return p == HYFFT_F64 ? 16 : 8; }

/* Banks of local memory (32 four-byte words on every GPU hyfft targets). */
#define HY_LOCAL_BANKS 32

/* What a key does to its field: sets it, or multiplies or divides it (the
 * relative keys, which mean the same for every pass of a multi-pass plan). */
typedef enum hy_spec_key_op { HY_SPEC_SET = 0, HY_SPEC_MUL = 1, HY_SPEC_DIV = 2 } hy_spec_key_op;

typedef struct hy_spec_key {
  const char *name;   /* as written in text: "threads", "tmul", ... */
  size_t offset;      /* of the int field in hy_kernel_spec */
  hy_spec_key_op op;
  int min, max;       /* accepted values (SET) or factors (MUL, DIV) */
  int pow2_only;      /* values must be 0 or a power of two (tworadix) */
  const char *doc;    /* one line for docs and error messages */
} hy_spec_key;

/* The key table, terminated by a row whose name is NULL. */
extern const hy_spec_key hy_spec_keys[];

/* The variants the measuring planner tries on top of the model's choice,
 * "" first (the reference), NULL terminated. */
extern const char *const hy_spec_tune_variants[];

/* Apply "key=value[,key=value...]" to spec, in order. A key outside the
 * table, a value outside its range or a relative key whose result would
 * leave [1, 4096] is skipped (text from the environment is not an error;
 * wisdom and the API check it with hy_kernel_spec_check first). */
void hy_kernel_spec_apply(hy_kernel_spec *spec, const char *text);

/* Whether spec is "key=integer[,key=integer...]" with keys of the table and
 * values in their ranges (empty is fine). On failure the detail message
 * names the bad part. */
hy_status hy_kernel_spec_check(const char *spec);

/* Append every switch of the table as "key=value", space separated. */
void hy_kernel_spec_describe(const hy_kernel_spec *spec, hy_strbuf *sb);

/* ---- facts of a pass under a spec ---- */

/* Computed length of a DFT pass: axis.n, or the convolution length of
 * Bluestein and Rader. */
int64_t hy_pass_computed_length(const hy_pass *pass);
/* The radices of the pass's stages in order (factors with pairs of 3s and
 * 5s merged per merge_odd, powers of two regrouped per pow2_radix); a
 * plane pass merges within each axis's factors. Returns their count. */
int hy_spec_radices(const hy_pass *pass, const hy_kernel_spec *spec, int *out);
int hy_spec_max_radix(const hy_pass *pass, const hy_kernel_spec *spec);
/* Share of the butterfly slots of one transform that threads spend idle
 * with T threads per transform. */
double hy_spec_idle_share(const hy_pass *pass, const hy_kernel_spec *spec, int T);
/* The most points a thread holds in one stage with T threads per transform. */
int hy_spec_points_per_thread(const hy_pass *pass, const hy_kernel_spec *spec, int T);
/* Local-memory row of one transform of nc points: lds_pad elements after
 * every 2^lds_pad_shift, rounded up to odd, then lds_row_extra more. */
int hy_spec_row(int nc, const hy_kernel_spec *spec);
/* Bytes of local memory a block of the pass takes (nc points a transform). */
int64_t hy_spec_local_bytes(const hy_pass *pass, const hy_kernel_spec *spec, int nc);
/* Elements of one transform on one side (0: input, 1: output): n, or
 * n/2 + 1 complex values on the complex side of an odd real step. */
int64_t hy_pass_side_length(const hy_pass *pass, int out);
/* Whether the transforms lie back to back on one side (0: input, 1:
 * output): unit axis stride and one loop whose stride is the side's
 * length. */
int hy_pass_dense_run(const hy_pass *pass, int out);
/* Whether the transforms, in the order their index takes the loops, tile
 * one contiguous run of the input (the planes of a 3D batch). */
int hy_pass_dense_input(const hy_pass *pass);
/* The order in which a kernel takes a pass's loops apart from its
 * transform index, fastest first: smallest input stride first, or with
 * by_out (the transposed store) smallest output stride first; ties keep
 * the loops' own order. */
void hy_pass_loop_order(const hy_pass *pass, int by_out, int *order);
/* Whether transform t of the pass, its loops taken in that order (by
 * input), writes its n outputs at t * n and on: unit output stride and
 * the loops' output strides n, n * L0, n * L0 * L1, ... (loops of length
 * 1 aside), so that a work-group's M transforms write one dense run. */
int hy_pass_dense_output_ordered(const hy_pass *pass);
/* The two short tables of four-step twiddles of length n (ftwsin=2):
 * the split s (power of two at or above sqrt(n)) and their entries. */
int64_t hy_twiddle_split(int64_t n);
int64_t hy_twiddle_pair_count(int64_t n);

#endif /* HY_KERNEL_SPEC_H */
