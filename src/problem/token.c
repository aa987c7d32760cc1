/* Problem tokens (docs/api.md):
 *
 *   token := KIND ':' PREC [':' DIR] ':' SHAPE { ':' FIELD }
 *          | 'r2r' ':' PREC ':' R2RKINDS ':' SHAPE { ':' FIELD }
 *   R2RKINDS := R2RKIND { 'x' R2RKIND }, one per transform dim
 *   R2RKIND := dct1 | dct2 | dct3 | dct4 | dst1 | dst2 | dst3 | dst4 | dht
 *
 * Parsing is strict and never guesses: every error names the bad part and
 * its position. Defaults for strides and distances come from one function
 * (hy_token_defaults) shared by the parser and the printer, so printing
 * omits exactly what parsing would fill in again. */
#include <errno.h>
#include <stdio.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problem/problem.h"

/* The longest number text we accept (an int64 has 19 digits; a scale like
 * 1.2345678901234567e-300 is 23 characters). */
#define HY_TOKEN_NUM_MAX 64

typedef struct {
  const char *token;
  size_t pos; /* start of the part being parsed */
} hy_token_ctx;

static hy_status hy_token_fail(const hy_token_ctx *t, const char *what, const char *part,
                               size_t part_len) {
  return hy_error(HYFFT_INVALID_TOKEN, "token '%s': %s ('%.*s' at position %zu)", t->token, what,
                  (int)(part_len > 200 ? 200 : part_len), part, t->pos);
}

/* Layout lengths of a transform dim: the length a default stride steps
 * over. The complex side of R2C/C2R keeps n/2+1 elements; for in-place
 * R2C/C2R the real side is padded to 2*(n/2+1) reals (FFTW's layout). */
static int64_t hy_token_alloc_len(const hyfft_problem *p, int d, int output) {
  int64_t n = p->dims[d].n;
  if (d != p->rank - 1 || p->kind == HYFFT_C2C || p->kind == HYFFT_R2R) return n;
  int complex_side = (p->kind == HYFFT_R2C) == (output != 0);
  if (complex_side) return n / 2 + 1;
  return p->inplace ? 2 * (n / 2 + 1) : n;
}

/* Saturating product: the defaults of an absurd token must not overflow;
 * validation rejects it later. */
static int64_t hy_token_mul(int64_t a, int64_t b) {
  int64_t r;
  return hy_mul_overflow_i64(a, b, &r) ? INT64_MAX : r;
}

/* Default strides (contiguous row-major over the layout lengths). */
static void hy_token_default_strides(const hyfft_problem *p, int output, int64_t *strides) {
  int64_t s = 1;
  for (int d = p->rank - 1; d >= 0; d--) {
    strides[d] = s;
    s = hy_token_mul(s, hy_token_alloc_len(p, d, output));
  }
}

/* Default distances, given the strides in effect: the innermost batch dim
 * steps over one transform's box (the largest layout length times stride,
 * padding included), outer ones nest contiguously. */
static void hy_token_default_dists(const hyfft_problem *p, int output, int64_t *dists) {
  int64_t box = 1;
  for (int d = 0; d < p->rank; d++) {
    int64_t stride = output ? p->dims[d].out_stride : p->dims[d].in_stride;
    int64_t span = hy_token_mul(hy_token_alloc_len(p, d, output), stride);
    if (span > box) box = span;
  }
  for (int b = p->batch_rank - 1; b >= 0; b--) {
    dists[b] = box;
    box = hy_token_mul(box, p->batch[b].n);
  }
}

/* ---- numbers ------------------------------------------------------------ */

/* A decimal integer, optionally signed; must fit int64. */
static int hy_token_int(const char *s, size_t len, int allow_sign, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  if (allow_sign && i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i == len) return 0;
  uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  uint64_t v = 0;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    unsigned digit = (unsigned)(s[i] - '0');
    if (v > (limit - digit) / 10) return 0;
    v = v * 10 + digit;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 1;
}

/* strtod and printf follow LC_NUMERIC; tokens always use '.', so swap the
 * locale's decimal point in and out. */
static char hy_token_locale_point(void) {
  const char *dp = localeconv()->decimal_point;
  return dp && dp[0] && !dp[1] ? dp[0] : '.';
}

/* A finite decimal: [+-] digits [. digits] [(e|E) [+-] digits], or digits
 * after the point only ('.5'). */
static int hy_token_real(const char *s, size_t len, double *out) {
  if (len == 0 || len >= HY_TOKEN_NUM_MAX) return 0;
  size_t i = 0, digits = 0;
  if (s[i] == '-' || s[i] == '+') i++;
  while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
  if (i < len && s[i] == '.') {
    i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
  }
  if (!digits) return 0;
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < len && (s[i] == '-' || s[i] == '+')) i++;
    size_t exp_digits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, exp_digits++;
    if (!exp_digits) return 0;
  }
  if (i != len) return 0;
  char buf[HY_TOKEN_NUM_MAX];
  memcpy(buf, s, len);
  buf[len] = '\0';
  char point = hy_token_locale_point();
  for (size_t k = 0; k < len; k++)
    if (buf[k] == '.') buf[k] = point;
  errno = 0;
  char *end = NULL;
  double v = strtod(buf, &end);
  if (end != buf + len || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

/* Shortest %.*g text that reads back as the same double, with '.' as the
 * decimal point. */
static void hy_token_format_real(double v, char *buf, size_t size) {
  char point = hy_token_locale_point();
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    for (char *c = buf; *c; c++)
      if (*c == point) *c = '.';
    double back;
    if (hy_token_real(buf, strlen(buf), &back) && back == v) return;
  }
}

/* ---- lists -------------------------------------------------------------- */

/* Parse "A<sep>B<sep>C" into at most max values; *count receives how many.
 * Lengths (allow_sign = 0) must be >= 1. */
static hy_status hy_token_list(const hy_token_ctx *t, const char *s, size_t len, char sep,
                               int allow_sign, int max, const char *what, int64_t *vals,
                               int *count) {
  int k = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && s[i] != sep) continue;
    const char *item = s + start;
    size_t item_len = i - start;
    if (k == max) {
      char msg[128];
      snprintf(msg, sizeof msg, "more than %d %ss", max, what);
      return hy_token_fail(t, msg, s, len);
    }
    int64_t v;
    if (!hy_token_int(item, item_len, allow_sign, &v)) {
      char msg[160];
      snprintf(msg, sizeof msg, "%s '%.*s' is not a%s decimal integer that fits int64", what,
               (int)(item_len > 40 ? 40 : item_len), item, allow_sign ? "" : "n unsigned");
      return hy_token_fail(t, msg, s, len);
    }
    if (!allow_sign && v < 1) {
      char msg[160];
      snprintf(msg, sizeof msg, "%s %lld is not positive", what, (long long)v);
      return hy_token_fail(t, msg, s, len);
    }
    vals[k++] = v;
    start = i + 1;
  }
  *count = k;
  return HYFFT_SUCCESS;
}

/* ---- r2r kinds ---------------------------------------------------------- */

static int hy_token_is(const char *s, size_t len, const char *word) {
  return strlen(word) == len && memcmp(s, word, len) == 0;
}


static const char *const hy_r2r_names[10] = {NULL,   "dct1", "dct2", "dct3", "dct4",
                                             "dst1", "dst2", "dst3", "dst4", "dht"};

const char *hy_r2r_kind_name(hyfft_r2r_kind kind) {
  return kind >= HYFFT_REDFT00 && kind <= HYFFT_DHT ? hy_r2r_names[kind] : NULL;
}

/* "dct2xdst1": one kind per transform dim, at most HYFFT_MAX_RANK. */
static hy_status hy_token_r2r_kinds(const hy_token_ctx *t, const char *s, size_t len,
                                    hyfft_r2r_kind *kinds, int *count) {
  int k = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && s[i] != 'x') continue;
    if (k == HYFFT_MAX_RANK) return hy_token_fail(t, "more than 8 r2r kinds", s, len);
    hyfft_r2r_kind found = HYFFT_R2R_NONE;
    for (int c = HYFFT_REDFT00; c <= HYFFT_DHT; c++)
      if (hy_token_is(s + start, i - start, hy_r2r_names[c])) found = (hyfft_r2r_kind)c;
    if (found == HYFFT_R2R_NONE) {
      char msg[160];
      snprintf(msg, sizeof msg,
               "unknown r2r kind '%.*s' (expected dct1..dct4, dst1..dst4 or dht, one per "
               "dim, joined by x)",
               (int)(i - start > 40 ? 40 : i - start), s + start);
      return hy_token_fail(t, msg, s, len);
    }
    kinds[k++] = found;
    start = i + 1;
  }
  *count = k;
  return HYFFT_SUCCESS;
}

/* ---- parse -------------------------------------------------------------- */

enum {
  HY_F_BATCH = 1 << 0,
  HY_F_IP = 1 << 1,
  HY_F_IS = 1 << 2,
  HY_F_OS = 1 << 3,
  HY_F_IDIST = 1 << 4,
  HY_F_ODIST = 1 << 5,
  HY_F_SCALE = 1 << 6,
  HY_F_DEV = 1 << 7
};

static int hy_token_has_prefix(const char *s, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && memcmp(s, prefix, n) == 0;
}

hy_status hy_token_parse(const char *token, hyfft_problem *out) {
  if (!token) return hy_error(HYFFT_NULL_POINTER, "token is NULL");
  hy_token_ctx t = {token, 0};
  size_t total = strlen(token);
  if (total == 0) return hy_error(HYFFT_INVALID_TOKEN, "the token is empty");
  for (size_t i = 0; i < total; i++) {
    unsigned char c = (unsigned char)token[i];
    if (c <= ' ' || c >= 127) {
      t.pos = i;
      return hy_token_fail(&t, "whitespace or a non-printable character", token + i, 1);
    }
  }

  /* Split into parts once, remembering their positions. */
  enum { MAX_PARTS = 16 };
  const char *part[MAX_PARTS];
  size_t plen[MAX_PARTS], ppos[MAX_PARTS];
  int nparts = 0;
  size_t start = 0;
  for (size_t i = 0; i <= total; i++) {
    if (i < total && token[i] != ':') continue;
    t.pos = start;
    if (i == start) return hy_token_fail(&t, "empty part", token + start, 0);
    if (nparts == MAX_PARTS) return hy_token_fail(&t, "too many parts", token + start, total - start);
    part[nparts] = token + start;
    plen[nparts] = i - start;
    ppos[nparts] = start;
    nparts++;
    start = i + 1;
  }

  hyfft_problem p;
  memset(&p, 0, sizeof p);
  int k = 0;
  t.pos = 0;
  if (nparts < 3) return hy_token_fail(&t, "expected KIND:PREC[:DIR]:SHAPE", token, total);

  if (hy_token_is(part[k], plen[k], "c2c")) p.kind = HYFFT_C2C;
  else if (hy_token_is(part[k], plen[k], "r2c")) p.kind = HYFFT_R2C;
  else if (hy_token_is(part[k], plen[k], "c2r")) p.kind = HYFFT_C2R;
  else if (hy_token_is(part[k], plen[k], "r2r")) p.kind = HYFFT_R2R;
  else return hy_token_fail(&t, "unknown kind (expected c2c, r2c, c2r or r2r)", part[k], plen[k]);
  k++;

  t.pos = ppos[k];
  if (hy_token_is(part[k], plen[k], "f32")) p.precision = HYFFT_F32;
  else if (hy_token_is(part[k], plen[k], "f64")) p.precision = HYFFT_F64;
  else if (hy_token_is(part[k], plen[k], "f16")) p.precision = HYFFT_F16;
  else if (hy_token_is(part[k], plen[k], "bf16")) p.precision = HYFFT_BF16;
  else return hy_token_fail(&t, "unknown precision (expected f32, f64, f16 or bf16)", part[k], plen[k]);
  k++;

  t.pos = ppos[k];
  int have_dir = 0, r2r_count = 0;
  hyfft_r2r_kind r2r_kinds[HYFFT_MAX_RANK];
  size_t r2r_pos = 0;
  if (p.kind == HYFFT_R2R) {
    if (hy_token_is(part[k], plen[k], "fwd") || hy_token_is(part[k], plen[k], "bwd"))
      return hy_token_fail(&t, "r2r takes no direction (r2r:PREC:KINDS:SHAPE)", part[k], plen[k]);
    if (k + 1 >= nparts)
      return hy_token_fail(&t, "expected r2r:PREC:KINDS:SHAPE", token, total);
    HY_TRY(hy_token_r2r_kinds(&t, part[k], plen[k], r2r_kinds, &r2r_count));
    r2r_pos = ppos[k];
    p.sign = HYFFT_FORWARD;
    k++;
  } else if (hy_token_is(part[k], plen[k], "fwd")) {
    p.sign = HYFFT_FORWARD;
    have_dir = 1;
  } else if (hy_token_is(part[k], plen[k], "bwd")) {
    p.sign = HYFFT_BACKWARD;
    have_dir = 1;
  }
  if (have_dir) {
    if (p.kind == HYFFT_R2C && p.sign != HYFFT_FORWARD)
      return hy_token_fail(&t, "r2c is always forward", part[k], plen[k]);
    if (p.kind == HYFFT_C2R && p.sign != HYFFT_BACKWARD)
      return hy_token_fail(&t, "c2r is always backward", part[k], plen[k]);
    k++;
  } else if (p.kind == HYFFT_C2C) {
    return hy_token_fail(&t, "c2c needs a direction (fwd or bwd)", part[k], plen[k]);
  } else {
    p.sign = p.kind == HYFFT_R2C ? HYFFT_FORWARD : HYFFT_BACKWARD;
  }

  if (k >= nparts) {
    t.pos = total;
    return hy_token_fail(&t, "missing shape", token + total, 0);
  }
  t.pos = ppos[k];
  int64_t vals[HYFFT_MAX_RANK > HYFFT_MAX_BATCH_RANK ? HYFFT_MAX_RANK : HYFFT_MAX_BATCH_RANK];
  HY_TRY(hy_token_list(&t, part[k], plen[k], 'x', 0, HYFFT_MAX_RANK, "transform length", vals,
                       &p.rank));
  for (int d = 0; d < p.rank; d++) p.dims[d].n = vals[d];
  if (p.kind == HYFFT_R2R) {
    /* One kind names every dim (r2r:f32:dct2:64x64); else one per dim. */
    if (r2r_count == 1)
      for (int d = 1; d < p.rank; d++) r2r_kinds[d] = r2r_kinds[0];
    else if (r2r_count != p.rank) {
      char msg[96];
      snprintf(msg, sizeof msg, "%d r2r kinds for %d transform dims", r2r_count, p.rank);
      t.pos = r2r_pos;
      return hy_token_fail(&t, msg, token + r2r_pos, strcspn(token + r2r_pos, ":"));
    }
    for (int d = 0; d < p.rank; d++) p.r2r_kind[d] = r2r_kinds[d];
  }
  k++;

  unsigned seen = 0;
  int64_t is[HYFFT_MAX_RANK], os[HYFFT_MAX_RANK], idist[HYFFT_MAX_BATCH_RANK],
      odist[HYFFT_MAX_BATCH_RANK];
  size_t dist_pos[2] = {0, 0};
  int dist_count[2] = {0, 0};
  int scale_is_1n = 0;
  for (; k < nparts; k++) {
    const char *s = part[k];
    size_t len = plen[k];
    t.pos = ppos[k];
    unsigned flag;
    const char *val = NULL;
    size_t vlen = 0;
    if (s[0] == 'b' && len > 1 && s[1] >= '0' && s[1] <= '9') {
      flag = HY_F_BATCH;
      val = s + 1;
      vlen = len - 1;
    } else if (hy_token_is(s, len, "ip")) {
      flag = HY_F_IP;
    } else if (hy_token_is(s, len, "dev")) {
      flag = HY_F_DEV;
    } else if (hy_token_has_prefix(s, len, "is=")) {
      flag = HY_F_IS;
      val = s + 3;
    } else if (hy_token_has_prefix(s, len, "os=")) {
      flag = HY_F_OS;
      val = s + 3;
    } else if (hy_token_has_prefix(s, len, "idist=")) {
      flag = HY_F_IDIST;
      val = s + 6;
    } else if (hy_token_has_prefix(s, len, "odist=")) {
      flag = HY_F_ODIST;
      val = s + 6;
    } else if (hy_token_has_prefix(s, len, "scale=")) {
      flag = HY_F_SCALE;
      val = s + 6;
    } else {
      return hy_token_fail(&t, "unknown field (expected bB{xB}, ip, is=, os=, idist=, odist=, "
                               "scale= or dev)", s, len);
    }
    if (val && flag != HY_F_BATCH) vlen = len - (size_t)(val - s);
    if (seen & flag) return hy_token_fail(&t, "field given twice", s, len);
    seen |= flag;
    if (val && vlen == 0) return hy_token_fail(&t, "field without a value", s, len);
    int count = 0;
    switch (flag) {
      case HY_F_BATCH:
        HY_TRY(hy_token_list(&t, val, vlen, 'x', 0, HYFFT_MAX_BATCH_RANK, "batch length", vals,
                             &p.batch_rank));
        for (int b = 0; b < p.batch_rank; b++) p.batch[b].n = vals[b];
        break;
      case HY_F_IP:
        p.inplace = 1;
        break;
      case HY_F_DEV:
        p.memory = HYFFT_MEMORY_DEVICE;
        break;
      case HY_F_IS:
      case HY_F_OS:
        HY_TRY(hy_token_list(&t, val, vlen, ',', 1, HYFFT_MAX_RANK, "stride",
                             flag == HY_F_IS ? is : os, &count));
        if (count != p.rank) {
          char msg[96];
          snprintf(msg, sizeof msg, "%d strides for %d transform dims", count, p.rank);
          return hy_token_fail(&t, msg, s, len);
        }
        break;
      case HY_F_IDIST:
      case HY_F_ODIST:
        HY_TRY(hy_token_list(&t, val, vlen, ',', 1, HYFFT_MAX_BATCH_RANK, "distance",
                             flag == HY_F_IDIST ? idist : odist, &count));
        /* The batch field may come later; counts are checked after the loop. */
        dist_pos[flag == HY_F_ODIST] = ppos[k];
        dist_count[flag == HY_F_ODIST] = count;
        break;
      case HY_F_SCALE:
        if (hy_token_is(val, vlen, "1/N")) {
          scale_is_1n = 1;
        } else if (!hy_token_real(val, vlen, &p.scale)) {
          return hy_token_fail(&t, "scale is not a finite decimal number or 1/N", s, len);
        }
        break;
    }
  }
  for (int side = 0; side < 2; side++) {
    if (!(seen & (side ? HY_F_ODIST : HY_F_IDIST))) continue;
    t.pos = dist_pos[side];
    if (dist_count[side] != p.batch_rank) {
      char msg[96];
      snprintf(msg, sizeof msg, "%d distances for %d batch dims", dist_count[side], p.batch_rank);
      return hy_token_fail(&t, msg, token + t.pos, strcspn(token + t.pos, ":"));
    }
  }

  int64_t def[HYFFT_MAX_RANK];
  hy_token_default_strides(&p, 0, def);
  for (int d = 0; d < p.rank; d++) p.dims[d].in_stride = (seen & HY_F_IS) ? is[d] : def[d];
  hy_token_default_strides(&p, 1, def);
  for (int d = 0; d < p.rank; d++) p.dims[d].out_stride = (seen & HY_F_OS) ? os[d] : def[d];
  int64_t ddef[HYFFT_MAX_BATCH_RANK];
  hy_token_default_dists(&p, 0, ddef);
  for (int b = 0; b < p.batch_rank; b++)
    p.batch[b].in_stride = (seen & HY_F_IDIST) ? idist[b] : ddef[b];
  hy_token_default_dists(&p, 1, ddef);
  for (int b = 0; b < p.batch_rank; b++)
    p.batch[b].out_stride = (seen & HY_F_ODIST) ? odist[b] : ddef[b];

  if (scale_is_1n) {
    int64_t n = 1;
    for (int d = 0; d < p.rank; d++)
      if (hy_mul_overflow_i64(n, p.dims[d].n, &n)) {
        t.pos = 0;
        return hy_token_fail(&t, "scale=1/N with a transform size that overflows int64", token,
                             total);
      }
    p.scale = 1.0 / (double)n;
  }
  *out = p;
  return HYFFT_SUCCESS;
}

/* ---- print -------------------------------------------------------------- */

static void hy_token_print_list(hy_strbuf *sb, const char *prefix, const int64_t *v, int n,
                                const char *sep) {
  hy_strbuf_append(sb, prefix);
  for (int i = 0; i < n; i++) hy_strbuf_appendf(sb, "%s%lld", i ? sep : "", (long long)v[i]);
}

void hy_token_print(const hyfft_problem *p, hy_strbuf *sb) {
  switch (p->kind) {
    case HYFFT_C2C: hy_strbuf_append(sb, "c2c"); break;
    case HYFFT_R2C: hy_strbuf_append(sb, "r2c"); break;
    case HYFFT_C2R: hy_strbuf_append(sb, "c2r"); break;
    case HYFFT_R2R: hy_strbuf_append(sb, "r2r"); break;
    default: hy_strbuf_appendf(sb, "kind(%d)", (int)p->kind); break;
  }
  if (p->precision == HYFFT_F32) hy_strbuf_append(sb, ":f32");
  else if (p->precision == HYFFT_F64) hy_strbuf_append(sb, ":f64");
  else if (p->precision == HYFFT_F16) hy_strbuf_append(sb, ":f16");
  else if (p->precision == HYFFT_BF16) hy_strbuf_append(sb, ":bf16");
  else hy_strbuf_appendf(sb, ":precision(%d)", (int)p->precision);
  /* r2c/c2r imply their direction; a sign that contradicts it is shown so
   * the printed token fails to parse instead of hiding the error. */
  int implied = (p->kind == HYFFT_R2C && p->sign == HYFFT_FORWARD) ||
                (p->kind == HYFFT_C2R && p->sign == HYFFT_BACKWARD) || p->kind == HYFFT_R2R;
  if (!implied) {
    if (p->sign == HYFFT_FORWARD) hy_strbuf_append(sb, ":fwd");
    else if (p->sign == HYFFT_BACKWARD) hy_strbuf_append(sb, ":bwd");
    else hy_strbuf_appendf(sb, ":sign(%d)", p->sign);
  }
  int rank = p->rank < 0 ? 0 : p->rank > HYFFT_MAX_RANK ? HYFFT_MAX_RANK : p->rank;
  int brank = p->batch_rank < 0 ? 0
              : p->batch_rank > HYFFT_MAX_BATCH_RANK ? HYFFT_MAX_BATCH_RANK
                                                     : p->batch_rank;
  /* r2r: the kinds, one per dim (a kind out of range shown so that the
   * printed token fails to parse). */
  if (p->kind == HYFFT_R2R)
    for (int d = 0; d < rank; d++) {
      const char *name = hy_r2r_kind_name(p->r2r_kind[d]);
      hy_strbuf_append(sb, d ? "x" : ":");
      if (name) hy_strbuf_append(sb, name);
      else hy_strbuf_appendf(sb, "r2rkind(%d)", (int)p->r2r_kind[d]);
    }
  int64_t v[HYFFT_MAX_RANK > HYFFT_MAX_BATCH_RANK ? HYFFT_MAX_RANK : HYFFT_MAX_BATCH_RANK];
  for (int d = 0; d < rank; d++) v[d] = p->dims[d].n;
  hy_token_print_list(sb, ":", v, rank, "x");
  if (brank > 0) {
    for (int b = 0; b < brank; b++) v[b] = p->batch[b].n;
    hy_token_print_list(sb, ":b", v, brank, "x");
  }
  if (p->inplace) hy_strbuf_append(sb, ":ip");

  /* Defaults are computed on a copy clamped to the printed ranks. */
  hyfft_problem q;
  memset(&q, 0, sizeof q);
  hy_problem_copy_public(&q, p);
  q.rank = rank;
  q.batch_rank = brank;
  q.inplace = p->inplace ? 1 : 0;
  int64_t def[HYFFT_MAX_RANK] = {0};
  for (int side = 0; side < 2; side++) {
    hy_token_default_strides(&q, side, def);
    int differs = 0;
    for (int d = 0; d < rank; d++) {
      v[d] = side ? p->dims[d].out_stride : p->dims[d].in_stride;
      differs |= v[d] != def[d];
    }
    if (differs) hy_token_print_list(sb, side ? ":os=" : ":is=", v, rank, ",");
  }
  for (int side = 0; side < 2; side++) {
    hy_token_default_dists(&q, side, def);
    int differs = 0;
    for (int b = 0; b < brank; b++) {
      v[b] = side ? p->batch[b].out_stride : p->batch[b].in_stride;
      differs |= v[b] != def[b];
    }
    if (differs) hy_token_print_list(sb, side ? ":odist=" : ":idist=", v, brank, ",");
  }

  /* 0 is the default (meaning 1); anything else is printed, 1/N in that
   * form when it is exactly what parsing "1/N" gives. */
  if (p->scale != 0.0) {
    int64_t n = 1;
    int overflow = 0;
    for (int d = 0; d < rank; d++) overflow |= hy_mul_overflow_i64(n, p->dims[d].n, &n);
    if (!overflow && n > 1 && p->scale == 1.0 / (double)n) {
      hy_strbuf_append(sb, ":scale=1/N");
    } else if (isfinite(p->scale)) {
      char num[HY_TOKEN_NUM_MAX];
      hy_token_format_real(p->scale, num, sizeof num);
      hy_strbuf_appendf(sb, ":scale=%s", num);
    } else {
      hy_strbuf_appendf(sb, ":scale=%s", isnan(p->scale) ? "nan" : "inf");
    }
  }
  if (p->memory == HYFFT_MEMORY_DEVICE) hy_strbuf_append(sb, ":dev");
  else if (p->memory != HYFFT_MEMORY_HOST) hy_strbuf_appendf(sb, ":memory(%d)", (int)p->memory);
}
