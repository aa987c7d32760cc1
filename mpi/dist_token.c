/* Distributed problem tokens: a plain hyfft token of rank 2 or 3 (parsed by
 * hyfft_problem_parse) followed by ':mpi' and the distribution fields
 * ':slab', ':pencil', ':pencil=PxQ', ':tout', ':tin', ':howmany=N'. The core grammar
 * (src/problem/token.c) is unchanged: this library splits the token at
 * ':mpi' and reads the fields after it. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

/* A positive decimal int at s (up to end); -1 if malformed. */
static int hy_dist_parse_int(const char *s, const char *end) {
  if (s >= end || end - s > 9) return -1;
  int v = 0;
  for (; s < end; s++) {
    if (*s < '0' || *s > '9') return -1;
    v = v * 10 + (*s - '0');
  }
  return v > 0 ? v : -1;
}

static hyfft_status hy_dist_parse_field(const char *f, size_t len, size_t pos,
                                        hyfft_dist_problem *p, unsigned *seen) {
  enum { SEEN_DECOMP = 1, SEEN_TOUT = 2, SEEN_TIN = 4, SEEN_HOWMANY = 8 };
  if (len >= 8 && !strncmp(f, "howmany=", 8)) {
    if (*seen & SEEN_HOWMANY)
      return hy_dist_error(HYFFT_INVALID_TOKEN, "repeated field at position %zu", pos);
    *seen |= SEEN_HOWMANY;
    int h = hy_dist_parse_int(f + 8, f + len);
    if (h < 0)
      return hy_dist_error(HYFFT_INVALID_TOKEN,
                           "bad howmany at position %zu (expected howmany=N, N >= 1)", pos);
    p->howmany = h;
    return HYFFT_SUCCESS;
  }
  if ((len == 4 && !strncmp(f, "slab", 4)) || (len >= 6 && !strncmp(f, "pencil", 6))) {
    if (*seen & SEEN_DECOMP)
      return hy_dist_error(HYFFT_INVALID_TOKEN, "a second decomposition at position %zu", pos);
    *seen |= SEEN_DECOMP;
    if (f[0] == 's') {
      p->decomposition = HYFFT_DIST_SLAB;
      return HYFFT_SUCCESS;
    }
    p->decomposition = HYFFT_DIST_PENCIL;
    if (len == 6) return HYFFT_SUCCESS;
    const char *x = f[6] == '=' ? memchr(f + 7, 'x', len - 7) : NULL;
    int pp = x ? hy_dist_parse_int(f + 7, x) : -1;
    int qq = x ? hy_dist_parse_int(x + 1, f + len) : -1;
    if (pp < 0 || qq < 0)
      return hy_dist_error(HYFFT_INVALID_TOKEN,
                           "bad pencil grid at position %zu (expected pencil=PxQ)", pos);
    p->grid[0] = pp;
    p->grid[1] = qq;
    return HYFFT_SUCCESS;
  }
  if (len == 4 && !strncmp(f, "tout", 4)) {
    if (*seen & SEEN_TOUT)
      return hy_dist_error(HYFFT_INVALID_TOKEN, "repeated field at position %zu", pos);
    *seen |= SEEN_TOUT;
    p->layout |= HYFFT_DIST_TRANSPOSED_OUT;
    return HYFFT_SUCCESS;
  }
  if (len == 3 && !strncmp(f, "tin", 3)) {
    if (*seen & SEEN_TIN)
      return hy_dist_error(HYFFT_INVALID_TOKEN, "repeated field at position %zu", pos);
    *seen |= SEEN_TIN;
    p->layout |= HYFFT_DIST_TRANSPOSED_IN;
    return HYFFT_SUCCESS;
  }
  return hy_dist_error(HYFFT_INVALID_TOKEN, "unknown distribution field '%.*s' at position %zu",
                       (int)len, f, pos);
}

hyfft_status hyfft_dist_problem_parse(const char *token, hyfft_dist_problem *problem) {
  if (!token || !problem) return hy_dist_error(HYFFT_NULL_POINTER, "token or problem is NULL");
  /* The first part that is exactly "mpi" ends the plain token. */
  const char *mpi = NULL;
  for (const char *c = strchr(token, ':'); c; c = strchr(c + 1, ':'))
    if (!strncmp(c + 1, "mpi", 3) && (c[4] == ':' || c[4] == '\0')) {
      mpi = c;
      break;
    }
  if (!mpi) return hy_dist_error(HYFFT_INVALID_TOKEN, "a distributed token has a ':mpi' part");
  size_t head_len = (size_t)(mpi - token);
  char *head = malloc(head_len + 1);
  if (!head) return hy_dist_error(HYFFT_OUT_OF_MEMORY, "copying the token");
  memcpy(head, token, head_len);
  head[head_len] = '\0';
  hyfft_problem plain;
  hyfft_status s = hyfft_problem_parse(head, &plain);
  free(head);
  if (s != HYFFT_SUCCESS) return hy_dist_hyfft_error(s, "the token before ':mpi'");
  if (plain.rank != 2 && plain.rank != 3)
    return hy_dist_error(HYFFT_INVALID_TOKEN, "a distributed token has 2 or 3 lengths, not %d",
                         plain.rank);
  /* Only the plain shape (and where it lives): the distributed layout fixes the strides. */
  int64_t n[3];
  for (int a = 0; a < plain.rank; a++) n[a] = plain.dims[a].n;
  hyfft_problem ref;
  s = hyfft_problem_init(&ref, plain.kind, plain.precision, plain.sign, plain.rank, n);
  if (s != HYFFT_SUCCESS) return hy_dist_hyfft_error(s, "the token's shape");
  int plain_shape = plain.batch_rank == 0 && !plain.inplace && plain.scale == 0.0;
  for (int a = 0; a < plain.rank && plain_shape; a++)
    plain_shape = plain.dims[a].in_stride == ref.dims[a].in_stride &&
                  plain.dims[a].out_stride == ref.dims[a].out_stride;
  if (!plain_shape)
    return hy_dist_error(HYFFT_INVALID_TOKEN,
                         "a distributed token takes no batch, strides, ip or scale fields");
  hyfft_dist_problem p;
  s = hyfft_dist_problem_init(&p, plain.kind, plain.precision, plain.sign, plain.rank, n);
  if (s != HYFFT_SUCCESS) return s;
  p.memory = plain.memory;
  unsigned seen = 0;
  const char *f = mpi + 4;
  while (*f == ':') {
    const char *start = f + 1;
    const char *end = strchr(start, ':');
    if (!end) end = start + strlen(start);
    if (end == start)
      return hy_dist_error(HYFFT_INVALID_TOKEN, "empty part at position %zu",
                           (size_t)(start - token));
    s = hy_dist_parse_field(start, (size_t)(end - start), (size_t)(start - token), &p, &seen);
    if (s != HYFFT_SUCCESS) return s;
    f = end;
  }
  *problem = p;
  return HYFFT_SUCCESS;
}
