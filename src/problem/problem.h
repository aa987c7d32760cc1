/* The problem layer: validation, normalisation, hashing and tokens.
 *
 * A hy_problem is the canonical form every later layer sees:
 *   - validated (sizes, strides, overflow, kind/sign/precision, layout);
 *   - transform dims of length 1 dropped (a length-1 DFT is the identity);
 *     a problem whose transform dims are all 1 has rank 0 (copy and scale);
 *   - batch dims of length 1 dropped, batch dims that are contiguous with
 *     each other (outer.stride == inner.n * inner.stride, on both sides)
 *     merged, and the rest sorted by input stride, largest first;
 *   - 64-bit sizes, a hash of the canonical form, and the user's original
 *     description kept for printing and for hyfft_plan_problem.
 * Transform dims are never merged: that would change the transform. */
#ifndef HY_PROBLEM_H
#define HY_PROBLEM_H

#include "util/hy_util.h"

typedef struct hy_problem {
  hyfft_problem user; /* validated, as the user gave it */

  hyfft_kind kind;
  hyfft_precision precision; /* of the computation: F32 or F64 */
  /* Of the caller's data: the user's precision. F16/BF16 store halves and
   * compute in F32 (precision is then F32); the work buffers between
   * passes hold the compute precision. */
  hyfft_precision storage;
  int sign;
  int rank; /* 0..HYFFT_MAX_RANK after dropping length-1 dims */
  hyfft_dim dims[HYFFT_MAX_RANK];
  /* R2R: the transform along dims[d] (an R2R problem keeps its length-1
   * dims: most r2r kinds of length 1 are not the identity); 0 otherwise. */
  hyfft_r2r_kind r2r[HYFFT_MAX_RANK];
  int batch_rank;
  hyfft_dim batch[HYFFT_MAX_BATCH_RANK];
  int inplace;
  int destroy_input; /* out-of-place only: the plan may overwrite its input
                        (HYFFT_DESTROY_INPUT; set by the plan, not the token) */
  double scale; /* 1.0 when the user gave 0 */
  hyfft_memory memory;

  int64_t total_transform; /* product of the transform lengths */
  int64_t total_batch;     /* product of the batch lengths */
  /* One past the largest element index touched in the input / output
   * (elements of the input / output type), for aliasing checks and for
   * sizing device staging buffers. */
  int64_t in_extent;
  int64_t out_extent;
  uint64_t hash;
  /* Callback source texts of a GPU plan (hyfft_callbacks; owned by the
   * plan, NULL: none): the generator routes the first pass's reads of the
   * caller's input and the last pass's stores to its output through them
   * (codegen/cg_storage.c). Not in `hash`: the kernel caches key on the
   * program text, which holds them. */
  const char *load_cb, *store_cb;
} hy_problem;

/* Copy a caller's problem description the way every entry point that
 * reads or writes one does: the fields before r2r_kind always, r2r_kind
 * only when kind is R2R. Programs built before R2R existed have a shorter
 * hyfft_problem and never set that kind, so no C2C/R2C/C2R call reads or
 * writes a byte past `memory`. dst->r2r_kind is left as it was for the
 * other kinds. */
void hy_problem_copy_public(hyfft_problem *dst, const hyfft_problem *src);

/* Validate `user` and build the canonical problem. On error *out is left
 * untouched and the detail message names the bad field. */
hy_status hy_problem_make(const hyfft_problem *user, hy_problem *out);

/* The precision a public description of `p` names: the storage for
 * f16/bf16 data, else the compute precision (sub-problems built from a
 * canonical problem take this one). */
hyfft_precision hy_problem_public_precision(const hy_problem *p);

/* Bytes of one element on the input / output side (of the storage). */
size_t hy_problem_in_elem_size(const hy_problem *p);
size_t hy_problem_out_elem_size(const hy_problem *p);

/* Token grammar (docs/api.md): parse into a public problem description
 * (not yet validated beyond syntax), and print one. Printing then parsing
 * gives back the same description. */
hy_status hy_token_parse(const char *token, hyfft_problem *out);
/* The token name of an r2r kind ("dct2", ...), NULL for one out of range. */
const char *hy_r2r_kind_name(hyfft_r2r_kind kind);
void hy_token_print(const hyfft_problem *p, hy_strbuf *sb);

#endif /* HY_PROBLEM_H */
