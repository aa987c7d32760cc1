/* Unit tests of the problem layer: token round trips and canonical
 * printing, normalisation (dropped, sorted and merged dims, extents,
 * hashes), and the buffer rules of hyfft_problem_print. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "problem/problem.h"

static int dims_equal(const hyfft_dim *a, const hyfft_dim *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].n != b[i].n || a[i].in_stride != b[i].in_stride || a[i].out_stride != b[i].out_stride)
      return 0;
  return 1;
}

static int problems_equal(const hyfft_problem *a, const hyfft_problem *b) {
  return a->kind == b->kind && a->precision == b->precision && a->sign == b->sign &&
         a->rank == b->rank && dims_equal(a->dims, b->dims, a->rank) &&
         a->batch_rank == b->batch_rank && dims_equal(a->batch, b->batch, a->batch_rank) &&
         a->inplace == b->inplace && memcmp(&a->scale, &b->scale, sizeof a->scale) == 0 &&
         a->memory == b->memory &&
         (a->kind != HYFFT_R2R ||
          memcmp(a->r2r_kind, b->r2r_kind, sizeof a->r2r_kind[0] * (size_t)a->rank) == 0);
}

/* Print through the public API into a fresh heap string. */
static char *print_token(const hyfft_problem *p) {
  size_t needed = 0;
  if (hyfft_problem_print(p, NULL, 0, &needed) != HYFFT_SUCCESS) return NULL;
  char *s = malloc(needed + 1);
  if (s && hyfft_problem_print(p, s, needed + 1, NULL) != HYFFT_SUCCESS) {
    free(s);
    return NULL;
  }
  return s;
}

/* Canonical tokens: print(parse(t)) == t and parse(print(p)) == p. */
static const char *const canonical[] = {
    "c2c:f32:fwd:1",
    "c2c:f32:fwd:8",
    "c2c:f64:bwd:1024",
    "c2c:f32:fwd:1024x1024:b64",
    "c2c:f16:fwd:1024:b8",
    "c2c:bf16:bwd:64x48:b3:ip",
    "r2c:f16:1024:b8",
    "c2r:bf16:64x48:ip",
    "c2c:f32:bwd:4096:b1024:ip",
    "c2c:f64:fwd:17x31",
    "c2c:f64:bwd:7x9x11",
    "c2c:f32:fwd:2x3x4x5x6x7x8x9",
    "c2c:f64:fwd:1x1x1x1x1x1x1x2",
    "c2c:f32:fwd:64:b2x3x4x5x6x7x8x9",
    "c2c:f32:fwd:3125:b3",
    "c2c:f32:fwd:65537",
    "c2c:f32:fwd:9223372036854775807",
    "c2c:f32:fwd:16:b4:is=2",
    "c2c:f32:fwd:16:b4:os=3",
    "c2c:f32:fwd:16:b4:is=2:os=3",
    "c2c:f32:fwd:16:b4:idist=40",
    "c2c:f32:fwd:16:b4:odist=17",
    "c2c:f32:fwd:16:b4:is=4:os=4:idist=1:odist=1",
    "c2c:f64:fwd:100x100:is=128,1:os=1,100",
    "c2c:f64:fwd:8x8:b3x2:idist=1000,100:odist=1,3",
    "c2c:f32:fwd:8:ip:is=2:os=2",
    "c2c:f32:fwd:8:is=-1",
    "c2c:f32:fwd:8:is=0",
    "c2c:f64:fwd:16:scale=1/N",
    "c2c:f64:bwd:16x16:scale=1/N",
    "c2c:f32:fwd:8:scale=0.5",
    "c2c:f32:fwd:8:scale=0.1",
    "c2c:f32:fwd:8:scale=-2",
    "c2c:f32:fwd:8:scale=1e-300",
    "c2c:f32:fwd:8:scale=1",
    "c2c:f32:fwd:8:dev",
    "c2c:f32:fwd:8:b2:ip:scale=3:dev",
    "r2c:f32:8",
    "r2c:f64:512x512x512",
    "r2c:f32:8:ip",
    "r2c:f32:7x9:b5:ip",
    "c2r:f32:8",
    "c2r:f64:8x6:b3x2:ip",
    "c2r:f32:1",
    "r2c:f32:16:b4:is=2:idist=64:odist=10",
    "c2c:f64:bwd:1x1:b5",
    "r2r:f64:dct2:1024:b64",
    "r2r:f32:dct2xdst1:64x100",
    "r2r:f64:dct1xdct3xdct4:2x3x4",
    "r2r:f32:dst2xdst3xdst4:5x6x7:b2:ip",
    "r2r:f64:dht:7:b3:is=2:os=3:idist=20:odist=30:scale=0.5",
};

/* Non-canonical but valid tokens and their canonical forms. */
static const char *const noncanonical[][2] = {
    {"r2c:f32:fwd:8", "r2c:f32:8"},
    {"c2r:f64:bwd:8", "c2r:f64:8"},
    {"c2c:f32:fwd:8:dev:ip", "c2c:f32:fwd:8:ip:dev"},
    {"c2c:f32:fwd:8:b2:idist=8", "c2c:f32:fwd:8:b2"},
    {"c2c:f32:fwd:8x4:is=4,1:os=4,1", "c2c:f32:fwd:8x4"},
    {"c2c:f32:fwd:8:scale=0.50", "c2c:f32:fwd:8:scale=0.5"},
    {"c2c:f32:fwd:8:scale=.25", "c2c:f32:fwd:8:scale=0.25"},
    {"c2c:f32:fwd:8:scale=0.125", "c2c:f32:fwd:8:scale=1/N"},
    {"c2c:f32:fwd:8:scale=0", "c2c:f32:fwd:8"},
    {"c2c:f32:fwd:8:scale=+2E0", "c2c:f32:fwd:8:scale=2"},
    {"c2c:f32:fwd:1:scale=1/N", "c2c:f32:fwd:1:scale=1"},
    {"c2c:f32:fwd:008", "c2c:f32:fwd:8"},
    {"c2c:f32:fwd:8:is=+2", "c2c:f32:fwd:8:is=2"},
    {"c2c:f32:fwd:16:os=2:b4", "c2c:f32:fwd:16:b4:os=2"},
    {"r2c:f32:8:ip:is=1:os=1", "r2c:f32:8:ip"},
    {"r2r:f64:dct2:8x8", "r2r:f64:dct2xdct2:8x8"},
};

/* Malformed r2r tokens: each refused, its message naming the bad part. */
static void test_r2r_errors(void) {
  static const char *const bad[][2] = {
      {"r2r:f64:1024", "expected r2r:PREC:KINDS:SHAPE"},
      {"r2r:f64:fwd:dct2:8", "r2r takes no direction"},
      {"r2r:f64:dct5:8", "unknown r2r kind 'dct5'"},
      {"r2r:f64:dct2x:8x8", "unknown r2r kind ''"},
      {"r2r:f64:DCT2:8", "unknown r2r kind 'DCT2'"},
      {"r2r:f64:dct2xdst1:8", "2 r2r kinds for 1 transform dims"},
      {"r2r:f64:dct2xdst1:8x8x8", "2 r2r kinds for 3 transform dims"},
      {"r2r:f64:dct2:8:bwd", "unknown field"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hyfft_problem p;
    hyfft_status st = hyfft_problem_parse(bad[i][0], &p);
    CHECK(st == HYFFT_INVALID_TOKEN && strstr(hyfft_last_error(), bad[i][1]),
          "parse '%s': %s '%s', expected INVALID_TOKEN naming '%s'", bad[i][0],
          hyfft_status_name(st), hyfft_last_error(), bad[i][1]);
  }
}

static void test_round_trips(void) {
  for (size_t i = 0; i < sizeof canonical / sizeof canonical[0]; i++) {
    hyfft_problem p, q;
    hyfft_status st = hyfft_problem_parse(canonical[i], &p);
    CHECK(st == HYFFT_SUCCESS, "parse '%s': %s %s", canonical[i], hyfft_status_name(st),
          hyfft_last_error());
    if (st != HYFFT_SUCCESS) continue;
    char *s = print_token(&p);
    CHECK(s && strcmp(s, canonical[i]) == 0, "print(parse('%s')) = '%s'", canonical[i],
          s ? s : "(null)");
    if (s) {
      CHECK_OK(hyfft_problem_parse(s, &q));
      CHECK(problems_equal(&p, &q), "parse(print(p)) differs from p for '%s'", canonical[i]);
    }
    free(s);
  }
  for (size_t i = 0; i < sizeof noncanonical / sizeof noncanonical[0]; i++) {
    hyfft_problem p, q;
    hyfft_status st = hyfft_problem_parse(noncanonical[i][0], &p);
    CHECK(st == HYFFT_SUCCESS, "parse '%s': %s %s", noncanonical[i][0], hyfft_status_name(st),
          hyfft_last_error());
    if (st != HYFFT_SUCCESS) continue;
    char *s = print_token(&p);
    CHECK(s && strcmp(s, noncanonical[i][1]) == 0, "print(parse('%s')) = '%s', expected '%s'",
          noncanonical[i][0], s ? s : "(null)", noncanonical[i][1]);
    if (s) {
      CHECK_OK(hyfft_problem_parse(s, &q));
      CHECK(problems_equal(&p, &q), "parse(print(p)) differs from p for '%s'",
            noncanonical[i][0]);
    }
    free(s);
  }
}

/* Problems built field by field print and parse back exactly. */
static void test_struct_round_trip(void) {
  hyfft_problem p;
  int64_t n[3] = {5, 6, 7};
  CHECK_OK(hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F64, HYFFT_BACKWARD, 3, n));
  p.dims[0].in_stride = 1000;
  p.dims[2].out_stride = 3;
  p.dims[1].out_stride = 21;
  p.dims[0].out_stride = 126;
  p.batch_rank = 2;
  p.batch[0] = (hyfft_dim){3, 5000, 2000};
  p.batch[1] = (hyfft_dim){2, 1, 1000};
  p.scale = 0.3;
  p.memory = HYFFT_MEMORY_DEVICE;
  char *s = print_token(&p);
  CHECK(s != NULL, "print failed");
  if (!s) return;
  hyfft_problem q;
  CHECK_OK(hyfft_problem_parse(s, &q));
  CHECK(problems_equal(&p, &q), "parse(print(p)) differs for '%s'", s);
  free(s);

  /* hyfft_problem_init and the token describe the same problems. */
  const struct {
    hyfft_kind kind;
    int sign;
    int rank;
    int64_t n[3];
    const char *token;
  } same[] = {
      {HYFFT_C2C, HYFFT_FORWARD, 1, {1024}, "c2c:f32:fwd:1024"},
      {HYFFT_C2C, HYFFT_BACKWARD, 3, {4, 5, 6}, "c2c:f32:bwd:4x5x6"},
      {HYFFT_R2C, HYFFT_FORWARD, 2, {6, 9}, "r2c:f32:6x9"},
      {HYFFT_C2R, HYFFT_BACKWARD, 2, {6, 10}, "c2r:f32:6x10"},
  };
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    hyfft_problem a, b;
    CHECK_OK(hyfft_problem_init(&a, same[i].kind, HYFFT_F32, same[i].sign, same[i].rank,
                                same[i].n));
    CHECK_OK(hyfft_problem_parse(same[i].token, &b));
    CHECK(problems_equal(&a, &b), "hyfft_problem_init differs from '%s'", same[i].token);
  }
}

static hy_status make(const char *token, hy_problem *c) {
  hyfft_problem p;
  hy_status st = hy_token_parse(token, &p);
  if (st != HYFFT_SUCCESS) return st;
  return hy_problem_make(&p, c);
}

static void test_normalisation(void) {
  hy_problem c;
  /* Length-1 transform and batch dims are dropped; transform dims are
   * never merged even when contiguous. */
  CHECK_OK(make("c2c:f32:fwd:1x8x1x4:b1x5x1", &c));
  CHECK(c.rank == 2 && c.dims[0].n == 8 && c.dims[1].n == 4, "rank %d dims %lld,%lld", c.rank,
        (long long)c.dims[0].n, (long long)c.dims[1].n);
  CHECK(c.dims[0].in_stride == 4 && c.dims[1].in_stride == 1, "strides %lld,%lld",
        (long long)c.dims[0].in_stride, (long long)c.dims[1].in_stride);
  CHECK(c.batch_rank == 1 && c.batch[0].n == 5 && c.batch[0].in_stride == 32,
        "batch_rank %d", c.batch_rank);
  CHECK(c.total_transform == 32 && c.total_batch == 5, "totals %lld %lld",
        (long long)c.total_transform, (long long)c.total_batch);
  CHECK(c.in_extent == 160 && c.out_extent == 160, "extents %lld %lld", (long long)c.in_extent,
        (long long)c.out_extent);
  CHECK(c.user.rank == 4 && c.user.batch_rank == 3, "the user description is kept");

  /* All transform dims 1: rank 0 (a scaled copy). */
  CHECK_OK(make("c2c:f64:fwd:1x1:b5", &c));
  CHECK(c.rank == 0 && c.batch_rank == 1 && c.batch[0].n == 5, "rank %d", c.rank);
  CHECK(c.scale == 1.0, "scale 0 means 1, got %g", c.scale);

  /* R2C/C2R keep the last transform dim even at length 1. */
  CHECK_OK(make("r2c:f32:1", &c));
  CHECK(c.rank == 1 && c.in_extent == 1 && c.out_extent == 1, "r2c:f32:1 rank %d", c.rank);
  CHECK_OK(make("c2r:f32:1x3", &c));
  CHECK(c.rank == 1 && c.dims[0].n == 3, "c2r:f32:1x3 rank %d", c.rank);

  /* Contiguous batch dims merge; non-contiguous ones are sorted outermost
   * first. */
  CHECK_OK(make("c2c:f32:fwd:8:b4x3", &c));
  CHECK(c.batch_rank == 1 && c.batch[0].n == 12 && c.batch[0].in_stride == 8, "merge b4x3");
  CHECK_OK(make("c2c:f32:fwd:8:b4x3:idist=8,32", &c));
  CHECK(c.batch_rank == 2 && c.batch[0].n == 3 && c.batch[0].in_stride == 32 &&
            c.batch[1].n == 4 && c.batch[1].in_stride == 8,
        "sorted batch: %lld/%lld, %lld/%lld", (long long)c.batch[0].n,
        (long long)c.batch[0].in_stride, (long long)c.batch[1].n, (long long)c.batch[1].in_stride);
  /* Inputs merge but outputs do not: no merge. */
  CHECK_OK(make("c2c:f32:fwd:8:b4x3:odist=100,8", &c));
  CHECK(c.batch_rank == 2, "batch dims contiguous on one side only must not merge");

  /* Extents for real transforms: n/2+1 on the complex side; in-place real
   * side padded. */
  CHECK_OK(make("r2c:f32:8x6", &c));
  CHECK(c.in_extent == 48 && c.out_extent == 32, "r2c 8x6 extents %lld %lld",
        (long long)c.in_extent, (long long)c.out_extent);
  CHECK_OK(make("c2r:f64:8x6:b3x2:ip", &c));
  CHECK(c.in_extent == 192 && c.out_extent == 382, "c2r ip extents %lld %lld",
        (long long)c.in_extent, (long long)c.out_extent);
  CHECK(hy_problem_in_elem_size(&c) == 16 && hy_problem_out_elem_size(&c) == 8, "c2r f64 sizes");
  CHECK_OK(make("r2c:f32:8", &c));
  CHECK(hy_problem_in_elem_size(&c) == 4 && hy_problem_out_elem_size(&c) == 8, "r2c f32 sizes");
  CHECK_OK(make("c2c:f32:fwd:8:is=3", &c));
  CHECK(c.in_extent == 22 && c.out_extent == 8, "strided extents %lld %lld",
        (long long)c.in_extent, (long long)c.out_extent);

  /* Hashes: equal for equivalent problems, different otherwise. */
  const char *const same[][2] = {
      {"c2c:f32:fwd:8:b12", "c2c:f32:fwd:8:b4x3"},
      {"c2c:f32:fwd:8:b12", "c2c:f32:fwd:1x8:b3x1x4"},
      {"c2c:f32:fwd:8:b4x3:idist=8,32", "c2c:f32:fwd:8:b3x4:idist=32,8:odist=8,24"},
      {"c2c:f32:fwd:8", "c2c:f32:fwd:8:scale=1"},
      {"c2c:f32:fwd:1x8", "c2c:f32:fwd:8x1"},
  };
  for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
    hy_problem a, b;
    CHECK_OK(make(same[i][0], &a));
    CHECK_OK(make(same[i][1], &b));
    CHECK(a.hash == b.hash, "hash('%s') != hash('%s')", same[i][0], same[i][1]);
  }
  const char *const differ[] = {
      "c2c:f32:fwd:8:b12", "c2c:f32:bwd:8:b12",     "c2c:f64:fwd:8:b12",
      "c2c:f32:fwd:8:b12:ip", "c2c:f32:fwd:8:b12:dev", "c2c:f32:fwd:8:b12:scale=2",
      "c2c:f32:fwd:8:b11", "c2c:f32:fwd:12:b8",     "c2c:f32:fwd:8:b12:is=2",
      "c2c:f32:fwd:8:b12:os=2", "c2c:f32:fwd:4x2:b12", "r2c:f32:8:b12",
      "c2r:f32:8:b12",     "c2c:f32:fwd:8:b12:idist=9", "c2c:f16:fwd:8:b12",
      "c2c:bf16:fwd:8:b12",
  };
  size_t nd = sizeof differ / sizeof differ[0];
  uint64_t hashes[sizeof differ / sizeof differ[0]];
  for (size_t i = 0; i < nd; i++) {
    hy_problem a;
    hashes[i] = 0;
    CHECK_OK(make(differ[i], &a));
    hashes[i] = a.hash;
    for (size_t j = 0; j < i; j++)
      CHECK(hashes[i] != hashes[j], "hash('%s') == hash('%s')", differ[i], differ[j]);
  }
}

static void test_print_buffers(void) {
  hyfft_problem p;
  CHECK_OK(hyfft_problem_parse("c2c:f32:fwd:1024x1024:b64", &p));
  size_t needed = 0;
  CHECK_OK(hyfft_problem_print(&p, NULL, 0, &needed));
  CHECK(needed == strlen("c2c:f32:fwd:1024x1024:b64"), "needed = %zu", needed);
  char buf[64];
  memset(buf, 'Z', sizeof buf);
  CHECK_STATUS(hyfft_problem_print(&p, buf, needed, NULL), HYFFT_BUFFER_TOO_SMALL);
  CHECK(buf[0] == 'Z', "the buffer was written on BUFFER_TOO_SMALL");
  CHECK_STATUS(hyfft_problem_print(&p, buf, 0, NULL), HYFFT_BUFFER_TOO_SMALL);
  CHECK_STATUS(hyfft_problem_print(&p, NULL, 0, NULL), HYFFT_NULL_POINTER);
  CHECK_STATUS(hyfft_problem_print(NULL, buf, sizeof buf, NULL), HYFFT_NULL_POINTER);
  needed = 0;
  CHECK_OK(hyfft_problem_print(&p, buf, strlen("c2c:f32:fwd:1024x1024:b64") + 1, &needed));
  CHECK(strcmp(buf, "c2c:f32:fwd:1024x1024:b64") == 0, "exact fit printed '%s'", buf);
  CHECK_OK(hyfft_problem_print(&p, buf, sizeof buf, NULL));
}

/* A small deterministic generator (splitmix64) so failures replay. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t rng_next(void) {
  uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}
static int64_t rng_range(int64_t lo, int64_t hi) {
  return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* Random problems (valid or not) print and parse back exactly; the
 * canonical problem's hash does not depend on the order the batch dims
 * are listed in. */
static void test_random_round_trips(void) {
  for (int iter = 0; iter < 3000; iter++) {
    hyfft_problem p;
    memset(&p, 0, sizeof p);
    p.kind = (hyfft_kind)rng_range(0, 2);
    p.precision = (hyfft_precision)rng_range(0, 1);
    p.sign = p.kind == HYFFT_R2C ? -1 : p.kind == HYFFT_C2R ? 1 : (rng_range(0, 1) ? 1 : -1);
    p.rank = (int)rng_range(1, HYFFT_MAX_RANK);
    p.batch_rank = (int)rng_range(0, HYFFT_MAX_BATCH_RANK);
    for (int d = 0; d < p.rank; d++)
      p.dims[d] = (hyfft_dim){rng_range(1, 5), rng_range(-3, 1000), rng_range(0, 1000)};
    for (int b = 0; b < p.batch_rank; b++)
      p.batch[b] = (hyfft_dim){rng_range(1, 4), rng_range(1, 100000), rng_range(1, 100000)};
    p.inplace = (int)rng_range(0, 1);
    p.memory = (hyfft_memory)rng_range(0, 1);
    const double scales[] = {0.0, 1.0, 0.5, 0.1, -3.25, 1e-300, 123456789.125};
    p.scale = scales[rng_range(0, 6)];
    char *s = print_token(&p);
    CHECK(s != NULL, "print failed");
    if (!s) continue;
    hyfft_problem q;
    hyfft_status st = hyfft_problem_parse(s, &q);
    CHECK(st == HYFFT_SUCCESS && problems_equal(&p, &q), "random problem %d: '%s' -> %s %s",
          iter, s, hyfft_status_name(st), hyfft_last_error());
    free(s);

    /* Reverse the batch dims: same canonical problem, same hash. */
    hy_problem a, b;
    if (hy_problem_make(&p, &a) != HYFFT_SUCCESS) continue;
    hyfft_problem r = p;
    for (int i = 0; i < p.batch_rank; i++) r.batch[i] = p.batch[p.batch_rank - 1 - i];
    CHECK_OK(hy_problem_make(&r, &b));
    CHECK(a.hash == b.hash && a.batch_rank == b.batch_rank, "batch order changed the hash");
  }
}

/* Random and mutated strings never crash the parser, and whatever parses
 * prints back to something that parses to the same problem. */
static void test_parse_fuzz(void) {
  const char alphabet[] = "c2rf3264:fwdbwx0123456789ip=s,.oe-+/Nv";
  const char *const seeds[] = {"c2c:f32:fwd:16x8:b4x3:ip:is=8,1:os=8,1:idist=200,16:scale=0.5:dev",
                               "r2c:f64:9x10:b3:odist=100:scale=1/N", "c2r:f32:bwd:7:b2:ip"};
  char buf[128];
  int parsed = 0;
  for (int iter = 0; iter < 20000; iter++) {
    size_t len;
    if (iter % 2) {
      len = (size_t)rng_range(0, 40);
      for (size_t i = 0; i < len; i++) buf[i] = alphabet[rng_range(0, sizeof alphabet - 2)];
    } else {
      const char *seed = seeds[rng_range(0, 2)];
      len = strlen(seed);
      memcpy(buf, seed, len);
      for (int m = (int)rng_range(1, 3); m > 0; m--) {
        size_t at = (size_t)rng_range(0, (int64_t)len - 1);
        buf[at] = alphabet[rng_range(0, sizeof alphabet - 2)];
      }
    }
    buf[len] = '\0';
    hyfft_problem p, q;
    if (hyfft_problem_parse(buf, &p) != HYFFT_SUCCESS) {
      CHECK(hyfft_last_error()[0] != '\0', "parse '%s' failed without a message", buf);
      continue;
    }
    parsed++;
    char *s = print_token(&p);
    CHECK(s && hyfft_problem_parse(s, &q) == HYFFT_SUCCESS && problems_equal(&p, &q),
          "'%s' printed as '%s' which does not parse back", buf, s ? s : "(null)");
    free(s);
  }
  CHECK(parsed > 100, "the fuzz parsed only %d strings", parsed);
}

int main(void) {
  test_round_trips();
  test_r2r_errors();
  test_random_round_trips();
  test_parse_fuzz();
  test_struct_round_trip();
  test_normalisation();
  test_print_buffers();
  return hy_test_summary();
}
