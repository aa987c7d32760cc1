/* Kernel specs: the key table (parse, check, print) and the facts of a
 * pass under a spec that the model and the generator share. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/kernel_spec.h"

#define HY_SPEC_FIELD(f) offsetof(hy_kernel_spec, f)

const hy_spec_key hy_spec_keys[] = {
    {"split", HY_SPEC_FIELD(split_exchange), HY_SPEC_SET, 0, 1, 0,
     "exchange real then imaginary parts (half the local memory)"},
    {"pad", HY_SPEC_FIELD(lds_pad), HY_SPEC_SET, 0, 8, 0,
     "complex elements of local-memory padding per period"},
    {"padbits", HY_SPEC_FIELD(lds_pad_shift), HY_SPEC_SET, 2, 8, 0,
     "log2 of the padding period in elements"},
    {"rowadd", HY_SPEC_FIELD(lds_row_extra), HY_SPEC_SET, 0, 31, 0,
     "elements added to each transform's local-memory row"},
    {"threads", HY_SPEC_FIELD(threads_per_transform), HY_SPEC_SET, 1, 4096, 0,
     "threads cooperating on one transform"},
    {"transforms", HY_SPEC_FIELD(transforms_per_block), HY_SPEC_SET, 1, 4096, 0,
     "transforms one block handles"},
    {"fastest", HY_SPEC_FIELD(transform_fastest), HY_SPEC_SET, 0, 1, 0,
     "consecutive threads walk one transform (1) or neighbouring transforms (0)"},
    {"transposed", HY_SPEC_FIELD(store_transposed), HY_SPEC_SET, 0, 1, 0,
     "last stage stored across transforms through local memory"},
    {"stagein", HY_SPEC_FIELD(stage_load), HY_SPEC_SET, 0, 2, 0,
     "inputs copied to local memory by consecutive threads first (1); for a fused C2R step, "
     "2 reads each thread's own inputs straight into its registers"},
    {"stageout", HY_SPEC_FIELD(stage_store), HY_SPEC_SET, 0, 1, 0,
     "outputs stored from local memory by consecutive threads"},
    {"minblocks", HY_SPEC_FIELD(min_blocks), HY_SPEC_SET, 0, 32, 0,
     "CUDA: blocks per SM the register budget must allow (0: no demand)"},
    {"twstage", HY_SPEC_FIELD(stage_twiddles), HY_SPEC_SET, 0, 1, 0,
     "stage twiddles from per-stage tables (1) or one W_n table (0)"},
    {"ftwsin", HY_SPEC_FIELD(ftw_sincos), HY_SPEC_SET, 0, 2, 0,
     "four-step twiddles: 0 an N-entry table, 1 sincospi, 2 two short tables"},
    {"merge", HY_SPEC_FIELD(merge_odd), HY_SPEC_SET, 0, 2, 0,
     "pairs of radix-3/5 stages merged: 0 never, 1 powers of one prime, 2 everywhere"},
    {"tworadix", HY_SPEC_FIELD(pow2_radix), HY_SPEC_SET, 8, 64, 1,
     "powers of two regrouped into stages of this radix (0: the planner's factors)"},
    {"rader", HY_SPEC_FIELD(rader), HY_SPEC_SET, 0, 1, 0,
     "a one-pass prime Bluestein pass as Rader (1) or not (0)"},
    {"persist", HY_SPEC_FIELD(persist), HY_SPEC_SET, 0, 1, 0,
     "a chain of 2-4 passes as one persistent kernel (1) or not (0)"},
    {"ring", HY_SPEC_FIELD(persist_ring), HY_SPEC_SET, 2, 1 << 20, 0,
     "persistent kernel: work slots of its ring"},
    {"lag", HY_SPEC_FIELD(persist_lag), HY_SPEC_SET, 1, 1 << 20, 0,
     "persistent kernel: elements a pass runs behind the one before"},
    {"hints", HY_SPEC_FIELD(persist_hints), HY_SPEC_SET, 0, 1, 0,
     "persistent kernel: input and output streamed past L2"},
    {"reverse", HY_SPEC_FIELD(reverse_blocks), HY_SPEC_SET, 0, 1, 0,
     "blocks run from the launch's last to its first"},
    {"tmul", HY_SPEC_FIELD(threads_per_transform), HY_SPEC_MUL, 1, 16, 0,
     "multiply the threads per transform"},
    {"tdiv", HY_SPEC_FIELD(threads_per_transform), HY_SPEC_DIV, 1, 16, 0,
     "divide the threads per transform"},
    {"mmul", HY_SPEC_FIELD(transforms_per_block), HY_SPEC_MUL, 1, 16, 0,
     "multiply the transforms per block"},
    {"mdiv", HY_SPEC_FIELD(transforms_per_block), HY_SPEC_DIV, 1, 16, 0,
     "divide the transforms per block"},
    {NULL, 0, HY_SPEC_SET, 0, 0, 0, NULL}};

/* The variants the measuring planner tries on top of the model's choice
 * ("" first: the reference), each checked against the table above. */
const char *const hy_spec_tune_variants[] = {
    "",          "rader=1",  "rader=0",     "ftwsin=1",    "ftwsin=2",  "tmul=2",
    "tdiv=2",    "mmul=2",   "mdiv=2",      "minblocks=3", "pad=0",     "pad=1",
    "tworadix=32", "tworadix=16", "persist=1", "minblocks=0", "split=1", "split=0",
    "twstage=0", "tdiv=2,mmul=2", "merge=0", "merge=2",   "stagein=1", NULL};

static const hy_spec_key *hy_spec_key_find(const char *name) {
  for (int i = 0; hy_spec_keys[i].name; i++)
    if (strcmp(hy_spec_keys[i].name, name) == 0) return &hy_spec_keys[i];
  return NULL;
}

static int hy_spec_value_ok(const hy_spec_key *k, long v) {
  if (k->pow2_only && v == 0) return 1;
  if (v < k->min || v > k->max) return 0;
  return !k->pow2_only || (v & (v - 1)) == 0;
}

/* Apply one key to spec; 0 when the value or its result is out of range. */
static int hy_spec_key_apply(hy_kernel_spec *spec, const hy_spec_key *k, long v) {
  if (!hy_spec_value_ok(k, v)) return 0;
  int *field = (int *)((char *)spec + k->offset);
  if (k->op == HY_SPEC_SET) {
    *field = (int)v;
  } else if (k->op == HY_SPEC_MUL) {
    if ((long)*field * v > 4096) return 0;
    *field *= (int)v;
  } else {
    if (*field / v < 1) return 0;
    *field /= (int)v;
  }
  return 1;
}

void hy_kernel_spec_apply(hy_kernel_spec *spec, const char *text) {
  while (text && *text) {
    char key[32];
    long v = 0;
    int used = 0;
    if (sscanf(text, "%31[a-z]=%ld%n", key, &v, &used) != 2) break;
    const hy_spec_key *k = hy_spec_key_find(key);
    if (k) hy_spec_key_apply(spec, k, v);
    text += used;
    if (*text == ',') text++;
  }
}

hy_status hy_kernel_spec_check(const char *spec) {
  if (!spec) return HYFFT_SUCCESS;
  if (strlen(spec) >= HY_KERNEL_SPEC_LEN)
    return hy_error(HYFFT_INVALID_ARGUMENT, "kernel spec '%s' is longer than %d characters",
                    spec, HY_KERNEL_SPEC_LEN - 1);
  const char *s = spec;
  while (*s) {
    char key[32];
    long v = 0;
    int used = 0;
    if (sscanf(s, "%31[a-z]=%ld%n", key, &v, &used) != 2 || used == 0)
      return hy_error(HYFFT_INVALID_ARGUMENT, "kernel spec '%s': expected key=integer at '%s'",
                      spec, s);
    const hy_spec_key *k = hy_spec_key_find(key);
    if (!k) return hy_error(HYFFT_INVALID_ARGUMENT, "kernel spec '%s': unknown key '%s'", spec, key);
    if (!hy_spec_value_ok(k, v))
      return hy_error(HYFFT_INVALID_ARGUMENT, "kernel spec '%s': %s takes %s%d..%d (%s)", spec,
                      key, k->pow2_only ? "0 or a power of two in " : "", k->min, k->max, k->doc);
    s += used;
    if (*s == ',' && s[1]) s++;
    else if (*s)
      return hy_error(HYFFT_INVALID_ARGUMENT, "kernel spec '%s': expected ',' at '%s'", spec, s);
  }
  return HYFFT_SUCCESS;
}

void hy_kernel_spec_describe(const hy_kernel_spec *spec, hy_strbuf *sb) {
  int first = 1;
  for (int i = 0; hy_spec_keys[i].name; i++) {
    const hy_spec_key *k = &hy_spec_keys[i];
    if (k->op != HY_SPEC_SET) continue;
    hy_strbuf_appendf(sb, "%s%s=%d", first ? "" : " ", k->name,
                      *(const int *)((const char *)spec + k->offset));
    first = 0;
  }
}

int64_t hy_pass_computed_length(const hy_pass *pass) {
  return pass->algo != HY_ALGO_MIXED_RADIX ? pass->bluestein_m : pass->axis.n;
}

/* The four-step twiddles W_N^a of pass A as two short tables (ftwsin=2):
 * entries [0, s) hold W_N^j, j < s, and entries [s, s + ceil(N/s)) hold
 * W_N^(s*i), so W_N^a = [a % s] * [s + a / s], one product of two
 * correctly rounded values. s is the power of two at or above sqrt(N),
 * so the index split is a mask and a shift (2^18: 512 + 512 entries). */
int64_t hy_twiddle_split(int64_t n) {
  int64_t s = 1;
  while (s * s < n) s <<= 1;
  return s;
}

int64_t hy_twiddle_pair_count(int64_t n) {
  int64_t s = hy_twiddle_split(n);
  return s + (n + s - 1) / s;
}

/* The radices of the pass's stages: the planner's factors (shared with the
 * CPU engine) with pairs of 3s and 5s merged per spec->merge_odd, so 3^7
 * takes 4 stages (9*9*9*3) instead of 7: fewer exchanges through local
 * memory, and the composite codelet's inner twiddles are constants
 * (measured faster on the H100, see docs/notes-from-src.md). Merging
 * inside mixed lengths (1000 = 8*25*5, 100^3) makes the radix-8/4 stages
 * uneven over fewer threads and is slower, so the default merges only
 * powers of one prime; 27 = 3^3 is slower than 9, and 7s merged into 49
 * are slower than 7s. */
static int hy_spec_radices_of(const int *factors, int nfactors, int merge_odd, int pow2_radix,
                            int *out) {
  int n = 0, pure = 1, first = 0;
  int64_t twos = 1;
  for (int i = 0; i < nfactors; i++) {
    if (factors[i] == 1) continue;
    if (!first) first = factors[i];
    if (factors[i] != first) pure = 0;
  }
  for (int i = 0; i < nfactors; i++) {
    int f = factors[i];
    if (f == 1) continue;
    if (pow2_radix > 0 && (f & (f - 1)) == 0) {
      twos *= f;
      continue;
    }
    if ((merge_odd >= 2 || (merge_odd == 1 && pure)) && (f == 3 || f == 5)) {
      int run = 1;
      while (i + run < nfactors && factors[i + run] == f) run++;
      while (run > 0) {
        if (run >= 2) {
          out[n++] = f * f;
          run -= 2;
        } else {
          out[n++] = f;
          run -= 1;
        }
      }
      while (i + 1 < nfactors && factors[i + 1] == f) i++;
      continue;
    }
    out[n++] = f;
  }
  /* The powers of two regrouped: as many stages of pow2_radix as fit,
   * then the rest (2^14 with 32: 32 x 32 x 16, two exchanges, not three). */
  while (twos > 1) {
    int r = twos >= pow2_radix ? pow2_radix : (int)twos;
    out[n++] = r;
    twos /= r;
  }
  return n;
}

/* A plane pass merges within each axis's factors (B's, then A's), so that
 * no stage straddles the two axes. */
int hy_spec_radices(const hy_pass *pass, const hy_kernel_spec *spec, int *out) {
  int merge_odd = spec->merge_odd, pow2 = spec->pow2_radix;
  int split = pass->nfactors;
  if (pass->plane_inner > 0) {
    int64_t prod = 1;
    for (split = 0; split < pass->nfactors && prod < pass->plane_inner; split++)
      prod *= pass->factors[split];
  }
  int n = hy_spec_radices_of(pass->factors, split, merge_odd, pow2, out);
  return n + hy_spec_radices_of(pass->factors + split, pass->nfactors - split, merge_odd, pow2,
                              out + n);
}

int hy_spec_max_radix(const hy_pass *pass, const hy_kernel_spec *spec) {
  int radices[HY_MAX_FACTORS], r = 1;
  int n = hy_spec_radices(pass, spec, radices);
  for (int i = 0; i < n; i++)
    if (radices[i] > r) r = radices[i];
  return r;
}

/* Share of a pass's butterfly slots (stages x butterflies per thread x
 * threads) that threads spend idle, with T threads per transform, over
 * one transform (both halves of Bluestein alike). */
double hy_spec_idle_share(const hy_pass *pass, const hy_kernel_spec *spec, int T) {
  int radices[HY_MAX_FACTORS];
  int n = hy_spec_radices(pass, spec, radices);
  int64_t nc = hy_pass_computed_length(pass);
  double work = 0, slots = 0;
  for (int i = 0; i < n; i++) {
    int64_t nb = nc / radices[i];
    int64_t per = (nb + T - 1) / T;
    work += (double)nb;
    slots += (double)(per * T);
  }
  return slots > 0 ? 1.0 - work / slots : 0.0;
}

/* The most points a thread holds in one stage with T threads per
 * transform: its butterflies of that stage times the radix. */
int hy_spec_points_per_thread(const hy_pass *pass, const hy_kernel_spec *spec, int T) {
  int radices[HY_MAX_FACTORS];
  int n = hy_spec_radices(pass, spec, radices);
  int64_t nc = hy_pass_computed_length(pass);
  int64_t most = 0;
  for (int i = 0; i < n; i++) {
    int64_t per = (nc / radices[i] + T - 1) / T * radices[i];
    if (per > most) most = per;
  }
  return (int)most;
}

/* Local-memory row of one transform: lds_pad elements after every
 * 2^lds_pad_shift, odd so that threads reading the same element of
 * neighbouring transforms (the transposed store) hit different banks, then
 * lds_row_extra more (hy_model_bank_layout). */
int hy_spec_row(int nc, const hy_kernel_spec *spec) {
  int pad = spec->lds_pad;
  int row = nc + pad * (nc >> spec->lds_pad_shift) + pad;
  return (row % 2 ? row : row + 1) + spec->lds_row_extra;
}

int64_t hy_spec_local_bytes(const hy_pass *pass, const hy_kernel_spec *spec, int nc) {
  int64_t elem = (int64_t)hy_complex_bytes(pass->precision) / (spec->split_exchange ? 2 : 1);
  return (int64_t)spec->transforms_per_block * hy_spec_row(nc, spec) * elem;
}

int64_t hy_pass_side_length(const hy_pass *pass, int out) {
  /* An odd-length real step keeps n/2 + 1 complex values on its complex
   * side (R2C's output, C2R's input) and n reals on the other. */
  if ((pass->fuse == HY_FUSE_R2C_ODD && out) || (pass->fuse == HY_FUSE_C2R_ODD && !out))
    return pass->axis.n / 2 + 1;
  return pass->axis.n;
}

/* Whether the transforms of a pass lie back to back on one side (0: input,
 * 1: output): unit axis stride and one loop of stride L (the side's
 * elements per transform), so the M transforms of a work-group are one
 * contiguous run of M*L elements. */
int hy_pass_dense_run(const hy_pass *pass, int out) {
  if (pass->nloops != 1) return 0;
  int64_t as = out ? pass->axis.out_stride : pass->axis.in_stride;
  int64_t ls = out ? pass->loops[0].out_stride : pass->loops[0].in_stride;
  return as == 1 && ls == hy_pass_side_length(pass, out);
}

void hy_pass_loop_order(const hy_pass *pass, int by_out, int *order) {
  for (int l = 0; l < pass->nloops; l++) order[l] = l;
  for (int a = 1; a < pass->nloops; a++)
    for (int b = a; b > 0; b--) {
      const hyfft_dim *la = &pass->loops[order[b]], *lb = &pass->loops[order[b - 1]];
      int64_t sa = llabs(by_out ? la->out_stride : la->in_stride);
      int64_t sb = llabs(by_out ? lb->out_stride : lb->in_stride);
      if (sa >= sb) break;
      int tmp = order[b];
      order[b] = order[b - 1];
      order[b - 1] = tmp;
    }
}

int hy_pass_dense_output_ordered(const hy_pass *pass) {
  if (pass->axis.out_stride != 1 || pass->nloops < 1) return 0;
  int order[HY_MAX_LOOPS];
  hy_pass_loop_order(pass, 0, order);
  int64_t next = pass->axis.n;
  for (int a = 0; a < pass->nloops; a++) {
    const hyfft_dim *d = &pass->loops[order[a]];
    if (d->n == 1) continue;
    if (d->out_stride != next) return 0;
    next *= d->n;
  }
  return 1;
}

/* Whether the transforms of a pass, in the order their index takes its
 * loops (smallest input stride fastest), lie back to back on the input
 * side: unit axis stride and loops that tile one contiguous run (the
 * planes of a 3D batch, loops [B:64n 64:n]). */
int hy_pass_dense_input(const hy_pass *pass) {
  if (pass->axis.in_stride != 1) return 0;
  int64_t next = pass->axis.n;
  int used[HY_MAX_LOOPS] = {0};
  for (int done = 0; done < pass->nloops;) {
    int found = -1;
    for (int l = 0; l < pass->nloops && found < 0; l++)
      if (!used[l] && (pass->loops[l].n == 1 || pass->loops[l].in_stride == next)) found = l;
    if (found < 0) return 0;
    used[found] = 1;
    done++;
    if (pass->loops[found].n > 1) next *= pass->loops[found].n;
  }
  return 1;
}
