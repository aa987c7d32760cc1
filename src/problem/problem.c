/* Validation and normalisation of problems (problem.h). Every later layer
 * trusts what comes out of here, so every size, stride and extent is
 * checked for overflow before anything is computed from it. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "problem/problem.h"
#include "util/half.h"

/* Lengths of a transform dim on the input and output side: R2C/C2R keep
 * n/2+1 complex elements in the last dim. */
static int64_t hy_side_len(const hyfft_problem *p, int d, int output) {
  int64_t n = p->dims[d].n;
  if (d != p->rank - 1) return n;
  if (p->kind == HYFFT_R2C && output) return n / 2 + 1;
  if (p->kind == HYFFT_C2R && !output) return n / 2 + 1;
  return n;
}

/* The storage decides the bytes in memory; a problem built by hand (tests)
 * leaves storage 0 (F32) and is sized by its precision as before. */
static size_t hy_real_size(const hy_problem *p) {
  if (hy_precision_is_half(p->storage)) return 2;
  return p->precision == HYFFT_F64 ? sizeof(double) : sizeof(float);
}

hyfft_precision hy_problem_public_precision(const hy_problem *p) {
  return hy_precision_is_half(p->storage) ? p->storage : p->precision;
}

size_t hy_problem_in_elem_size(const hy_problem *p) {
  size_t r = hy_real_size(p);
  return p->kind == HYFFT_R2C || p->kind == HYFFT_R2R ? r : 2 * r;
}

size_t hy_problem_out_elem_size(const hy_problem *p) {
  size_t r = hy_real_size(p);
  return p->kind == HYFFT_C2R || p->kind == HYFFT_R2R ? r : 2 * r;
}

void hy_problem_copy_public(hyfft_problem *dst, const hyfft_problem *src) {
  memcpy(dst, src, offsetof(hyfft_problem, r2r_kind));
  if (src->kind == HYFFT_R2R) memcpy(dst->r2r_kind, src->r2r_kind, sizeof dst->r2r_kind);
}

/* R2R: ranks 1..3, a valid kind on every dim, and FFTW's sizes (n >= 2
 * for REDFT00, whose logical length is 2(n-1)). The other kinds never
 * read r2r_kind (hy_problem_copy_public). */
static hy_status hy_check_r2r(const hyfft_problem *p) {
  if (p->kind != HYFFT_R2R) return HYFFT_SUCCESS;
  if (p->rank < 1 || p->rank > HYFFT_MAX_RANK)
    return hy_error(HYFFT_INVALID_RANK, "rank = %d: R2R problems have ranks 1..%d", p->rank,
                    HYFFT_MAX_RANK);
  for (int d = 0; d < p->rank; d++) {
    if (p->r2r_kind[d] < HYFFT_REDFT00 || p->r2r_kind[d] > HYFFT_DHT)
      return hy_error(HYFFT_INVALID_KIND, "r2r_kind[%d] = %d is not an r2r kind (1..9)", d,
                      (int)p->r2r_kind[d]);
    if (p->r2r_kind[d] == HYFFT_REDFT00 && p->dims[d].n < 2)
      return hy_error(HYFFT_INVALID_SIZE, "dims[%d].n = %lld: REDFT00 (dct1) needs n >= 2", d,
                      (long long)p->dims[d].n);
  }
  return HYFFT_SUCCESS;
}

static hy_status hy_check_enums(const hyfft_problem *p) {
  if (p->kind != HYFFT_C2C && p->kind != HYFFT_R2C && p->kind != HYFFT_C2R &&
      p->kind != HYFFT_R2R)
    return hy_error(HYFFT_INVALID_KIND, "kind = %d is not C2C (0), R2C (1), C2R (2) or R2R (3)",
                    (int)p->kind);
  if (p->precision != HYFFT_F32 && p->precision != HYFFT_F64 && p->precision != HYFFT_F16 &&
      p->precision != HYFFT_BF16)
    return hy_error(HYFFT_INVALID_PRECISION,
                    "precision = %d is not F32 (0), F64 (1), F16 (2) or BF16 (3)",
                    (int)p->precision);
  /* Half-precision storage serves C2C, R2C and C2R transforms (docs/api.md,
   * "Half precision"). */
  if (hy_precision_is_half(p->precision) && p->kind == HYFFT_R2R)
    return hy_error(HYFFT_NOT_SUPPORTED,
                    "precision %s: half-precision storage serves C2C, R2C and C2R transforms; "
                    "R2R is not supported in f16/bf16 (use f32)",
                    p->precision == HYFFT_F16 ? "f16" : "bf16");
  /* The sign means nothing to an R2R transform and is not read. */
  if (p->kind != HYFFT_R2R && p->sign != HYFFT_FORWARD && p->sign != HYFFT_BACKWARD)
    return hy_error(HYFFT_INVALID_SIGN, "sign = %d is neither -1 (forward) nor +1 (backward)",
                    p->sign);
  if (p->kind == HYFFT_R2C && p->sign != HYFFT_FORWARD)
    return hy_error(HYFFT_INVALID_SIGN, "an R2C transform must be forward (sign = -1)");
  if (p->kind == HYFFT_C2R && p->sign != HYFFT_BACKWARD)
    return hy_error(HYFFT_INVALID_SIGN, "a C2R transform must be backward (sign = +1)");
  if (p->rank < 1 || p->rank > HYFFT_MAX_RANK)
    return hy_error(HYFFT_INVALID_RANK, "rank = %d is outside 1..%d", p->rank, HYFFT_MAX_RANK);
  if (p->batch_rank < 0 || p->batch_rank > HYFFT_MAX_BATCH_RANK)
    return hy_error(HYFFT_INVALID_RANK, "batch_rank = %d is outside 0..%d", p->batch_rank,
                    HYFFT_MAX_BATCH_RANK);
  if (p->inplace != 0 && p->inplace != 1)
    return hy_error(HYFFT_INVALID_ARGUMENT, "inplace = %d is neither 0 nor 1", p->inplace);
  if (p->memory != HYFFT_MEMORY_HOST && p->memory != HYFFT_MEMORY_DEVICE)
    return hy_error(HYFFT_INVALID_ARGUMENT, "memory = %d is neither HOST (0) nor DEVICE (1)",
                    (int)p->memory);
  if (!isfinite(p->scale))
    return hy_error(HYFFT_INVALID_ARGUMENT, "scale = %g is not finite", p->scale);
  return HYFFT_SUCCESS;
}

/* A dim in flat form for the layout checks: its length on one side and its
 * stride there, with the name used in messages. */
typedef struct {
  int64_t len;
  int64_t stride;
  int index;    /* dims[index] or batch[index] */
  int is_batch;
} hy_side_dim;

static int hy_collect_side(const hyfft_problem *p, int output, hy_side_dim *out) {
  int m = 0;
  for (int d = 0; d < p->rank; d++)
    out[m++] = (hy_side_dim){hy_side_len(p, d, output),
                             output ? p->dims[d].out_stride : p->dims[d].in_stride, d, 0};
  for (int b = 0; b < p->batch_rank; b++)
    out[m++] = (hy_side_dim){p->batch[b].n,
                             output ? p->batch[b].out_stride : p->batch[b].in_stride, b, 1};
  return m;
}

static hy_status hy_check_sizes_strides(const hyfft_problem *p) {
  for (int d = 0; d < p->rank; d++)
    if (p->dims[d].n < 1)
      return hy_error(HYFFT_INVALID_SIZE, "dims[%d].n = %lld is not positive", d,
                      (long long)p->dims[d].n);
  for (int b = 0; b < p->batch_rank; b++)
    if (p->batch[b].n < 1)
      return hy_error(HYFFT_INVALID_SIZE, "batch[%d].n = %lld is not positive", b,
                      (long long)p->batch[b].n);
  /* A stride is only ever multiplied by an index below its side's length,
   * so a side of length 1 may carry any stride. */
  for (int side = 0; side < 2; side++) {
    hy_side_dim dims[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
    int m = hy_collect_side(p, side, dims);
    for (int i = 0; i < m; i++) {
      if (dims[i].len > 1 && dims[i].stride < 1)
        return hy_error(HYFFT_INVALID_STRIDE, "%s[%d].%s = %lld is not positive",
                        dims[i].is_batch ? "batch" : "dims", dims[i].index,
                        side ? "out_stride" : "in_stride", (long long)dims[i].stride);
    }
  }
  return HYFFT_SUCCESS;
}

/* One past the largest element index of a side, overflow-checked, and
 * small enough that its byte size fits int64 (and so size_t). */
static hy_status hy_side_extent(const hyfft_problem *p, int output, size_t elem,
                                int64_t *extent) {
  hy_side_dim dims[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  int m = hy_collect_side(p, output, dims);
  int64_t e = 1;
  for (int i = 0; i < m; i++) {
    if (dims[i].len <= 1) continue;
    int64_t span;
    if (hy_mul_overflow_i64(dims[i].len - 1, dims[i].stride, &span) ||
        hy_add_overflow_i64(e, span, &e))
      return hy_error(HYFFT_SIZE_OVERFLOW,
                      "the %s extent overflows int64 at %s[%d] (n = %lld, stride = %lld)",
                      output ? "output" : "input", dims[i].is_batch ? "batch" : "dims",
                      dims[i].index, (long long)dims[i].len, (long long)dims[i].stride);
  }
  int64_t bytes;
  if (hy_mul_overflow_i64(e, (int64_t)elem, &bytes) || (uint64_t)bytes > (uint64_t)SIZE_MAX)
    return hy_error(HYFFT_SIZE_OVERFLOW, "the %s spans %lld elements of %zu bytes: too large",
                    output ? "output" : "input", (long long)e, elem);
  *extent = e;
  return HYFFT_SUCCESS;
}

/* Output elements must be distinct. Sorted by stride, each dim must step
 * past everything the smaller-stride dims reach; this is sufficient and
 * covers every layout FFTW and cuFFT users write (it rejects some exotic
 * interleavings that happen not to collide). */
static hy_status hy_check_output_overlap(const hyfft_problem *p) {
  hy_side_dim dims[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  int m = hy_collect_side(p, 1, dims), k = 0;
  for (int i = 0; i < m; i++)
    if (dims[i].len > 1) dims[k++] = dims[i];
  for (int i = 1; i < k; i++) {
    hy_side_dim v = dims[i];
    int j = i;
    while (j > 0 && dims[j - 1].stride > v.stride) {
      dims[j] = dims[j - 1];
      j--;
    }
    dims[j] = v;
  }
  int64_t reach = 1; /* extent covered by the dims seen so far; cannot overflow (checked) */
  for (int i = 0; i < k; i++) {
    if (dims[i].stride < reach)
      return hy_error(HYFFT_INVALID_STRIDE,
                      "output elements overlap: %s[%d].out_stride = %lld is smaller than %lld, "
                      "the extent of the dims with smaller strides",
                      dims[i].is_batch ? "batch" : "dims", dims[i].index,
                      (long long)dims[i].stride, (long long)reach);
    reach += (dims[i].len - 1) * dims[i].stride;
  }
  return HYFFT_SUCCESS;
}

/* In-place layouts. C2C: both sides identical. R2C/C2R (the real side
 * counted in reals, the complex side in complex elements): the last
 * transform dim has unit stride on both sides, so complex element k
 * overlays reals 2k and 2k+1; every other dim, transform or batch, has
 * real stride = 2 * complex stride, i.e. the same byte offset. This is
 * FFTW's padded layout generalised to any outer padding. */
static hy_status hy_check_inplace(const hyfft_problem *p) {
  if (!p->inplace) return HYFFT_SUCCESS;
  if (p->kind == HYFFT_C2C || p->kind == HYFFT_R2R) {
    for (int d = 0; d < p->rank; d++)
      if (p->dims[d].n > 1 && p->dims[d].in_stride != p->dims[d].out_stride)
        return hy_error(HYFFT_INPLACE_LAYOUT,
                        "in-place: dims[%d].in_stride = %lld differs from out_stride = %lld", d,
                        (long long)p->dims[d].in_stride, (long long)p->dims[d].out_stride);
    for (int b = 0; b < p->batch_rank; b++)
      if (p->batch[b].n > 1 && p->batch[b].in_stride != p->batch[b].out_stride)
        return hy_error(HYFFT_INPLACE_LAYOUT,
                        "in-place: batch[%d].in_stride = %lld differs from out_stride = %lld", b,
                        (long long)p->batch[b].in_stride, (long long)p->batch[b].out_stride);
    return HYFFT_SUCCESS;
  }
  int real_out = p->kind == HYFFT_C2R;
  for (int d = 0; d < p->rank; d++) {
    int64_t rs = real_out ? p->dims[d].out_stride : p->dims[d].in_stride;
    int64_t cs = real_out ? p->dims[d].in_stride : p->dims[d].out_stride;
    if (p->dims[d].n <= 1) continue;
    if (d == p->rank - 1) {
      if (rs != 1 || cs != 1)
        return hy_error(HYFFT_INPLACE_LAYOUT,
                        "in-place %s: the last dim needs unit strides on both sides "
                        "(dims[%d] has real stride %lld, complex stride %lld)",
                        real_out ? "C2R" : "R2C", d, (long long)rs, (long long)cs);
    } else if (cs > INT64_MAX / 2 || rs != 2 * cs) {
      return hy_error(HYFFT_INPLACE_LAYOUT,
                      "in-place %s: dims[%d] real stride %lld must be twice its complex stride "
                      "%lld (padded layout)",
                      real_out ? "C2R" : "R2C", d, (long long)rs, (long long)cs);
    }
  }
  for (int b = 0; b < p->batch_rank; b++) {
    int64_t rs = real_out ? p->batch[b].out_stride : p->batch[b].in_stride;
    int64_t cs = real_out ? p->batch[b].in_stride : p->batch[b].out_stride;
    if (p->batch[b].n <= 1) continue;
    if (cs > INT64_MAX / 2 || rs != 2 * cs)
      return hy_error(HYFFT_INPLACE_LAYOUT,
                      "in-place %s: batch[%d] real distance %lld must be twice its complex "
                      "distance %lld",
                      real_out ? "C2R" : "R2C", b, (long long)rs, (long long)cs);
  }
  return HYFFT_SUCCESS;
}

/* Batch dims: outermost (largest input stride) first. */
static int hy_batch_before(const hyfft_dim *a, const hyfft_dim *b) {
  if (a->in_stride != b->in_stride) return a->in_stride > b->in_stride;
  return a->out_stride > b->out_stride;
}

static void hy_normalise(const hyfft_problem *u, hy_problem *c) {
  c->rank = 0;
  for (int d = 0; d < u->rank; d++) {
    int keep_last = u->kind != HYFFT_C2C && d == u->rank - 1;
    if (u->dims[d].n > 1 || keep_last || u->kind == HYFFT_R2R) {
      if (u->kind == HYFFT_R2R) c->r2r[c->rank] = u->r2r_kind[d];
      c->dims[c->rank++] = u->dims[d];
    }
  }
  c->batch_rank = 0;
  for (int b = 0; b < u->batch_rank; b++)
    if (u->batch[b].n > 1) c->batch[c->batch_rank++] = u->batch[b];
  for (int i = 1; i < c->batch_rank; i++) {
    hyfft_dim v = c->batch[i];
    int j = i;
    while (j > 0 && hy_batch_before(&v, &c->batch[j - 1])) {
      c->batch[j] = c->batch[j - 1];
      j--;
    }
    c->batch[j] = v;
  }
  /* Products cannot overflow: a merged dim spans no more than the extent,
   * which was checked. */
  int merged = 1;
  while (merged) {
    merged = 0;
    for (int i = 0; i + 1 < c->batch_rank; i++) {
      hyfft_dim o = c->batch[i], in = c->batch[i + 1];
      if (o.in_stride == in.n * in.in_stride && o.out_stride == in.n * in.out_stride) {
        c->batch[i] = (hyfft_dim){o.n * in.n, in.in_stride, in.out_stride};
        for (int k = i + 1; k + 1 < c->batch_rank; k++) c->batch[k] = c->batch[k + 1];
        c->batch_rank--;
        merged = 1;
        break;
      }
    }
  }
  /* Unused strides are canonicalised so equivalent problems hash alike. */
  for (int b = c->batch_rank; b < HYFFT_MAX_BATCH_RANK; b++) c->batch[b] = (hyfft_dim){0, 0, 0};
  for (int d = c->rank; d < HYFFT_MAX_RANK; d++) {
    c->dims[d] = (hyfft_dim){0, 0, 0};
    c->r2r[d] = HYFFT_R2R_NONE;
  }
  for (int d = 0; d < c->rank; d++) {
    if (c->dims[d].n == 1) c->dims[d].in_stride = c->dims[d].out_stride = 1;
  }
}

static uint64_t hy_problem_hash(const hy_problem *c) {
  uint64_t h = hy_hash_str(HY_HASH_INIT, "hy_problem/1");
  h = hy_hash_u64(h, (uint64_t)c->kind);
  h = hy_hash_u64(h, (uint64_t)c->precision);
  /* Only half-precision storage hashes the storage: the hashes (and the
   * wisdom) of f32 and f64 problems stay what they were. */
  if (hy_precision_is_half(c->storage)) h = hy_hash_u64(h, 0x68616c66u + (uint64_t)c->storage);
  h = hy_hash_u64(h, (uint64_t)(int64_t)c->sign);
  h = hy_hash_u64(h, (uint64_t)c->inplace);
  h = hy_hash_u64(h, (uint64_t)c->memory);
  uint64_t scale_bits;
  memcpy(&scale_bits, &c->scale, sizeof scale_bits);
  h = hy_hash_u64(h, scale_bits);
  h = hy_hash_u64(h, (uint64_t)c->rank);
  for (int d = 0; d < c->rank; d++) {
    h = hy_hash_u64(h, (uint64_t)c->dims[d].n);
    h = hy_hash_u64(h, (uint64_t)c->dims[d].in_stride);
    h = hy_hash_u64(h, (uint64_t)c->dims[d].out_stride);
  }
  /* Only R2R problems hash their kinds: the other kinds' hashes (and their
   * wisdom) stay what they were. */
  if (c->kind == HYFFT_R2R)
    for (int d = 0; d < c->rank; d++) h = hy_hash_u64(h, (uint64_t)c->r2r[d]);
  h = hy_hash_u64(h, (uint64_t)c->batch_rank);
  for (int b = 0; b < c->batch_rank; b++) {
    h = hy_hash_u64(h, (uint64_t)c->batch[b].n);
    h = hy_hash_u64(h, (uint64_t)c->batch[b].in_stride);
    h = hy_hash_u64(h, (uint64_t)c->batch[b].out_stride);
  }
  return h;
}

hy_status hy_problem_make(const hyfft_problem *user, hy_problem *out) {
  if (!user) return hy_error(HYFFT_NULL_POINTER, "problem is NULL");
  if (!out) return hy_error(HYFFT_NULL_POINTER, "output problem is NULL");
  HY_TRY(hy_check_enums(user));
  HY_TRY(hy_check_sizes_strides(user));
  HY_TRY(hy_check_r2r(user));

  hy_problem c;
  memset(&c, 0, sizeof c);
  hy_problem_copy_public(&c.user, user);
  /* Entries past rank/batch_rank are not part of the description. */
  for (int d = user->rank; d < HYFFT_MAX_RANK; d++) {
    c.user.dims[d] = (hyfft_dim){0, 0, 0};
    c.user.r2r_kind[d] = HYFFT_R2R_NONE;
  }
  for (int b = user->batch_rank; b < HYFFT_MAX_BATCH_RANK; b++)
    c.user.batch[b] = (hyfft_dim){0, 0, 0};
  c.kind = user->kind;
  /* Half-precision data are stored in 16 bits and computed in f32: every
   * layer below plans and computes an f32 problem, and only what reads or
   * writes the caller's buffers looks at the storage. */
  c.storage = user->precision;
  c.precision = hy_precision_is_half(user->precision) ? HYFFT_F32 : user->precision;
  c.sign = user->kind == HYFFT_R2R ? HYFFT_FORWARD : user->sign; /* R2R: not read */
  c.inplace = user->inplace;
  c.memory = user->memory;
  c.scale = user->scale == 0.0 ? 1.0 : user->scale;

  HY_TRY(hy_side_extent(user, 0, hy_problem_in_elem_size(&c), &c.in_extent));
  HY_TRY(hy_side_extent(user, 1, hy_problem_out_elem_size(&c), &c.out_extent));

  /* Lengths are bounded by extents only when strides are >= 1, and a dim of
   * length n > 1 on one side may have length 1 on the other (R2C n = 1), so
   * totals get their own checks. */
  int64_t tt = 1, tb = 1, all;
  for (int d = 0; d < user->rank; d++)
    if (hy_mul_overflow_i64(tt, user->dims[d].n, &tt))
      return hy_error(HYFFT_SIZE_OVERFLOW, "the product of the transform lengths overflows int64 "
                                           "at dims[%d]", d);
  for (int b = 0; b < user->batch_rank; b++)
    if (hy_mul_overflow_i64(tb, user->batch[b].n, &tb))
      return hy_error(HYFFT_SIZE_OVERFLOW, "the product of the batch lengths overflows int64 "
                                           "at batch[%d]", b);
  int64_t all_bytes;
  if (hy_mul_overflow_i64(tt, tb, &all) || hy_mul_overflow_i64(all, 16, &all_bytes))
    return hy_error(HYFFT_SIZE_OVERFLOW, "transform size times batch overflows int64");

  HY_TRY(hy_check_output_overlap(user));
  HY_TRY(hy_check_inplace(user));

  hy_normalise(user, &c);
  c.total_transform = tt;
  c.total_batch = tb;
  c.hash = hy_problem_hash(&c);
  *out = c;
  return HYFFT_SUCCESS;
}
