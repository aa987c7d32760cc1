/* Real-to-real transforms (R2R) against two references: a direct O(n^2)
 * sum in long double of FFTW's definitions (each angle reduced exactly in
 * integer arithmetic first), and FFTW's own r2r in long double (fftwl
 * guru64) on the same logical data. Every case: fresh random input rounded
 * to the precision, the output poisoned with NaN before execute, and the
 * relative RMS and max errors gated at FFTW's level (a few u log2 N).
 * Also: invalid problems (REDFT00 of length 1, bad kinds) are refused with
 * the right status, and DCT-III(DCT-II(x)) = 2n x.
 *
 *   hyfft_r2r_accuracy [--device SPEC] [--seed S] [--quick] [-v] [TOKEN...]
 *
 * --quick (the default on devices other than the CPU, whose kernels take
 * PoCL a second or two each to compile) runs every kind at two sizes per
 * precision and a few layouts instead of the whole matrix.
 */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyfft.h"

static int verbose = 0;
static int on_gpu = 0; /* NOT_SUPPORTED (a long prime DFT, docs/api.md) is reported, not failed */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double uniform(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* ---- the direct reference ---------------------------------------------- */

/* cos or sin of pi * num / den, num reduced mod 2 den exactly. */
static long double trig_pi(int64_t num, int64_t den, int want_sin) {
  int64_t r = num % (2 * den);
  if (r < 0) r += 2 * den;
  long double a = 3.141592653589793238462643383279502884L * (long double)r / (long double)den;
  return want_sin ? sinl(a) : cosl(a);
}

/* One row of n values (long double, stride 1) through kind k. */
static void direct_1d(hyfft_r2r_kind k, int64_t n, const long double *x, long double *y) {
  for (int64_t o = 0; o < n; o++) {
    long double s = 0;
    for (int64_t j = 0; j < n; j++) {
      long double w = 2, c;
      switch (k) {
        case HYFFT_REDFT00:
          if (j == 0 || j == n - 1) w = 1;
          c = trig_pi(j * o, n - 1, 0);
          break;
        case HYFFT_REDFT10: c = trig_pi((2 * j + 1) * o, 2 * n, 0); break;
        case HYFFT_REDFT01:
          if (j == 0) w = 1;
          c = trig_pi(j * (2 * o + 1), 2 * n, 0);
          break;
        case HYFFT_REDFT11: c = trig_pi((2 * j + 1) * (2 * o + 1), 4 * n, 0); break;
        case HYFFT_RODFT00: c = trig_pi((j + 1) * (o + 1), n + 1, 1); break;
        case HYFFT_RODFT10: c = trig_pi((2 * j + 1) * (o + 1), 2 * n, 1); break;
        case HYFFT_RODFT01:
          if (j == n - 1) w = 1;
          c = trig_pi((j + 1) * (2 * o + 1), 2 * n, 1);
          break;
        case HYFFT_RODFT11: c = trig_pi((2 * j + 1) * (2 * o + 1), 4 * n, 1); break;
        default:
          w = 1;
          c = trig_pi(2 * j * o, n, 0) + trig_pi(2 * j * o, n, 1);
          break;
      }
      s += w * c * x[j];
    }
    y[o] = s;
  }
}

/* Logical data: batch dims then transform dims, row major, in long double. */
typedef struct {
  hyfft_problem p;
  int64_t count, ntrans;
  int64_t *in_off, *out_off;
  int64_t in_extent, out_extent;
} layout;

static int layout_make(const hyfft_problem *p, layout *L) {
  memset(L, 0, sizeof *L);
  L->p = *p;
  int r = p->batch_rank + p->rank;
  hyfft_dim d[HYFFT_MAX_RANK + HYFFT_MAX_BATCH_RANK];
  for (int b = 0; b < p->batch_rank; b++) d[b] = p->batch[b];
  for (int i = 0; i < p->rank; i++) d[p->batch_rank + i] = p->dims[i];
  L->count = 1;
  L->ntrans = 1;
  for (int i = 0; i < r; i++) L->count *= d[i].n;
  for (int i = 0; i < p->rank; i++) L->ntrans *= p->dims[i].n;
  L->in_off = malloc(sizeof(int64_t) * (size_t)L->count);
  L->out_off = malloc(sizeof(int64_t) * (size_t)L->count);
  if (!L->in_off || !L->out_off) return 0;
  for (int64_t e = 0; e < L->count; e++) {
    int64_t rem = e, io = 0, oo = 0;
    for (int i = r - 1; i >= 0; i--) {
      int64_t idx = rem % d[i].n;
      rem /= d[i].n;
      io += idx * d[i].in_stride;
      oo += idx * d[i].out_stride;
    }
    L->in_off[e] = io;
    L->out_off[e] = oo;
    if (io + 1 > L->in_extent) L->in_extent = io + 1;
    if (oo + 1 > L->out_extent) L->out_extent = oo + 1;
  }
  return 1;
}

static void layout_free(layout *L) {
  free(L->in_off);
  free(L->out_off);
}

/* The separable transform of the logical array x (in place), every axis. */
static int direct_nd(const hyfft_problem *p, long double *x) {
  int64_t inner = 1;
  for (int a = p->rank - 1; a >= 0; a--) {
    int64_t n = p->dims[a].n, total = 1;
    for (int b = 0; b < p->batch_rank; b++) total *= p->batch[b].n;
    for (int i = 0; i < p->rank; i++) total *= p->dims[i].n;
    long double *row = malloc(sizeof(long double) * 2 * (size_t)n);
    if (!row) return 0;
    for (int64_t outer = 0; outer < total / (n * inner); outer++)
      for (int64_t in = 0; in < inner; in++) {
        long double *base = x + outer * n * inner + in;
        for (int64_t j = 0; j < n; j++) row[j] = base[j * inner];
        direct_1d(p->r2r_kind[a], n, row, row + n);
        for (int64_t j = 0; j < n; j++) base[j * inner] = row[n + j];
      }
    free(row);
    inner *= n;
  }
  return 1;
}

/* FFTW's own r2r in long double over the logical (contiguous) array. */
static int fftwl_nd(const hyfft_problem *p, const long double *x, long double *y) {
  static const fftwl_r2r_kind map[10] = {0,           FFTW_REDFT00, FFTW_REDFT10, FFTW_REDFT01,
                                         FFTW_REDFT11, FFTW_RODFT00, FFTW_RODFT10, FFTW_RODFT01,
                                         FFTW_RODFT11, FFTW_DHT};
  fftwl_iodim64 dims[HYFFT_MAX_RANK], how[1];
  fftwl_r2r_kind kinds[HYFFT_MAX_RANK];
  int64_t s = 1, batch = 1;
  for (int a = p->rank - 1; a >= 0; a--) {
    dims[a].n = p->dims[a].n;
    dims[a].is = dims[a].os = s;
    kinds[a] = map[p->r2r_kind[a]];
    s *= p->dims[a].n;
  }
  for (int b = 0; b < p->batch_rank; b++) batch *= p->batch[b].n;
  how[0].n = batch;
  how[0].is = how[0].os = s;
  size_t bytes = sizeof(long double) * (size_t)(s * batch);
  long double *in = fftwl_malloc(bytes), *out = fftwl_malloc(bytes);
  int ok = 0;
  if (in && out) {
    fftwl_plan plan = fftwl_plan_guru64_r2r(p->rank, dims, 1, how, in, out, kinds, FFTW_ESTIMATE);
    if (plan) {
      memcpy(in, x, bytes);
      fftwl_execute(plan);
      memcpy(y, out, bytes);
      fftwl_destroy_plan(plan);
      ok = 1;
    }
  }
  fftwl_free(in);
  fftwl_free(out);
  return ok;
}

static double errors(const long double *y, const long double *ref, int64_t count, double *max) {
  long double se = 0, sr = 0, me = 0, mr = 0;
  for (int64_t i = 0; i < count; i++) {
    long double e = fabsl(y[i] - ref[i]), r = fabsl(ref[i]);
    if (isnan((double)y[i])) e = INFINITY;
    se += e * e;
    sr += r * r;
    if (e > me || isnan((double)e)) me = e;
    if (r > mr) mr = r;
  }
  *max = (double)(mr > 0 ? me / mr : me);
  return (double)(sr > 0 ? sqrtl(se / sr) : sqrtl(se));
}

/* One case: plan, run, compare against the direct sum (n <= direct_max
 * along every axis) and against fftwl. Returns 1 on pass. */
static int run_case(hyfft_context ctx, const char *token) {
  hyfft_problem p;
  if (hyfft_problem_parse(token, &p) != HYFFT_SUCCESS) {
    printf("FAIL %s: does not parse: %s\n", token, hyfft_last_error());
    return 0;
  }
  layout L;
  if (!layout_make(&p, &L)) {
    printf("FAIL %s: out of memory\n", token);
    return 0;
  }
  int f64 = p.precision == HYFFT_F64, ok = 0;
  size_t es = f64 ? 8 : 4;
  int64_t in_ext = p.inplace && L.out_extent > L.in_extent ? L.out_extent : L.in_extent;
  void *in = calloc((size_t)in_ext, es), *out = p.inplace ? in : calloc((size_t)L.out_extent, es);
  long double *x = malloc(sizeof(long double) * (size_t)L.count);
  long double *y = malloc(sizeof(long double) * (size_t)L.count);
  long double *ref = malloc(sizeof(long double) * (size_t)L.count);
  long double *ref2 = malloc(sizeof(long double) * (size_t)L.count);
  hyfft_plan plan = NULL;
  if (!in || !out || !x || !y || !ref || !ref2) {
    printf("FAIL %s: out of memory\n", token);
    goto done;
  }
  if (!p.inplace)
    for (int64_t i = 0; i < L.out_extent; i++) {
      if (f64) ((double *)out)[i] = NAN;
      else ((float *)out)[i] = NAN;
    }
  for (int64_t e = 0; e < L.count; e++) {
    double v = uniform();
    if (f64) {
      ((double *)in)[L.in_off[e]] = v;
      x[e] = v;
    } else {
      ((float *)in)[L.in_off[e]] = (float)v;
      x[e] = (float)v;
    }
  }
  hyfft_status st = hyfft_plan_create(ctx, &p, HYFFT_ESTIMATE, &plan);
  if (st == HYFFT_NOT_SUPPORTED && on_gpu) {
    printf("skip %s: %s\n", token, hyfft_last_error());
    ok = 1;
    goto done;
  }
  if (st != HYFFT_SUCCESS) {
    printf("FAIL %s: plan: %s: %s\n", token, hyfft_status_name(st), hyfft_last_error());
    goto done;
  }
  st = hyfft_execute(plan, in, out);
  if (st != HYFFT_SUCCESS) {
    printf("FAIL %s: execute: %s: %s\n", token, hyfft_status_name(st), hyfft_last_error());
    goto done;
  }
  double scale = p.scale == 0 ? 1.0 : p.scale;
  for (int64_t e = 0; e < L.count; e++)
    y[e] = f64 ? ((double *)out)[L.out_off[e]] : ((float *)out)[L.out_off[e]];
  int direct = L.ntrans <= 5000;
  double u = f64 ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
  double logn = log2((double)(L.ntrans > 2 ? L.ntrans : 2));
  double rms_gate = 4 * u * logn, max_gate = 20 * u * logn;
  ok = 1;
  if (direct) {
    memcpy(ref, x, sizeof(long double) * (size_t)L.count);
    if (!direct_nd(&p, ref)) {
      printf("FAIL %s: out of memory\n", token);
      ok = 0;
      goto done;
    }
  }
  if (!fftwl_nd(&p, x, ref2)) {
    printf("FAIL %s: fftwl could not plan it\n", token);
    ok = 0;
    goto done;
  }
  for (int64_t e = 0; e < L.count; e++) {
    ref[e] *= scale;
    ref2[e] *= scale;
  }
  double max1 = 0, max2 = 0, rms1 = direct ? errors(y, ref, L.count, &max1) : 0;
  double rms2 = errors(y, ref2, L.count, &max2);
  /* The two references agree to long double, so both gate alike. */
  if (!(rms1 <= rms_gate && max1 <= max_gate && rms2 <= rms_gate && max2 <= max_gate)) ok = 0;
  if (!ok || verbose)
    printf("%s %s: rms %.3g max %.3g (direct%s), rms %.3g max %.3g (fftwl); gates %.3g %.3g\n",
           ok ? "ok  " : "FAIL", token, rms1, max1, direct ? "" : " skipped", rms2, max2,
           rms_gate, max_gate);
done:
  if (plan) hyfft_plan_destroy(plan);
  free(in);
  if (!p.inplace) free(out);
  free(x);
  free(y);
  free(ref);
  free(ref2);
  layout_free(&L);
  return ok;
}

/* Refusals: REDFT00 needs n >= 2, a kind out of range, an R2R rank above
 * HYFFT_MAX_RANK; and r2r_kind is ignored on a C2C problem (callers built
 * before R2R never set it). */
static int check_refusals(hyfft_context ctx) {
  int ok = 1;
  hyfft_problem p;
  hyfft_plan plan = NULL;
  int64_t n1 = 1, n4[4] = {2, 2, 2, 2};
  hyfft_r2r_kind dct1 = HYFFT_REDFT00, bad = (hyfft_r2r_kind)10, k4[4] = {2, 2, 2, 2};
  struct {
    const char *what;
    hyfft_status want;
  } cases[4] = {{"dct1 n=1", HYFFT_INVALID_SIZE},
                {"kind 10", HYFFT_INVALID_KIND},
                {"c2c with an r2r kind (ignored)", HYFFT_SUCCESS},
                {"rank HYFFT_MAX_RANK + 1", HYFFT_INVALID_RANK}};
  for (int c = 0; c < 4; c++) {
    hyfft_status st = HYFFT_SUCCESS;
    if (c == 0) st = hyfft_problem_init_r2r(&p, HYFFT_F64, 1, &n1, &dct1);
    if (c == 1) {
      st = hyfft_problem_init_r2r(&p, HYFFT_F64, 1, &n1, &k4[0]);
      p.r2r_kind[0] = bad;
    }
    if (c == 2) {
      st = hyfft_problem_init(&p, HYFFT_C2C, HYFFT_F64, HYFFT_FORWARD, 1, n4);
      p.r2r_kind[0] = (hyfft_r2r_kind)-12345;
    }
    if (c == 3) {
      st = hyfft_problem_init_r2r(&p, HYFFT_F64, 3, n4, k4);
      /* The public struct holds HYFFT_MAX_RANK dims: the rank alone is
       * out of range. */
      p.rank = HYFFT_MAX_RANK + 1;
    }
    if (st != HYFFT_SUCCESS) {
      printf("FAIL refusal %s: the problem could not be built: %s\n", cases[c].what,
             hyfft_last_error());
      ok = 0;
      continue;
    }
    st = hyfft_plan_create(ctx, &p, 0, &plan);
    if (st != cases[c].want) {
      printf("FAIL refusal %s: got %s, expected %s\n", cases[c].what, hyfft_status_name(st),
             hyfft_status_name(cases[c].want));
      ok = 0;
    }
    if (st == HYFFT_SUCCESS) hyfft_plan_destroy(plan);
    plan = NULL;
  }
  if (hyfft_problem_init_r2r(&p, HYFFT_F64, 1, n4, &bad) != HYFFT_INVALID_KIND) {
    printf("FAIL refusal: hyfft_problem_init_r2r took kind 10\n");
    ok = 0;
  }
  return ok;
}

/* DCT-III(DCT-II(x)) = 2n x, and DST-III(DST-II(x)) likewise. */
static int check_roundtrip(hyfft_context ctx) {
  int ok = 1;
  const int64_t n = 60;
  for (int pair = 0; pair < 2; pair++) {
    hyfft_r2r_kind fwd = pair ? HYFFT_RODFT10 : HYFFT_REDFT10;
    hyfft_r2r_kind bwd = pair ? HYFFT_RODFT01 : HYFFT_REDFT01;
    hyfft_problem pf, pb;
    hyfft_plan a = NULL, b = NULL;
    double x[60], y[60], z[60];
    for (int i = 0; i < n; i++) x[i] = uniform();
    if (hyfft_problem_init_r2r(&pf, HYFFT_F64, 1, &n, &fwd) != HYFFT_SUCCESS ||
        hyfft_problem_init_r2r(&pb, HYFFT_F64, 1, &n, &bwd) != HYFFT_SUCCESS ||
        hyfft_plan_create(ctx, &pf, 0, &a) != HYFFT_SUCCESS ||
        hyfft_plan_create(ctx, &pb, 0, &b) != HYFFT_SUCCESS ||
        hyfft_execute(a, x, y) != HYFFT_SUCCESS || hyfft_execute(b, y, z) != HYFFT_SUCCESS) {
      printf("FAIL roundtrip: %s\n", hyfft_last_error());
      ok = 0;
    } else {
      double e = 0;
      for (int i = 0; i < n; i++) e = fmax(e, fabs(z[i] / (2.0 * n) - x[i]));
      if (!(e < 1e-14)) {
        printf("FAIL roundtrip %s: max error %.3g\n", pair ? "dst" : "dct", e);
        ok = 0;
      } else if (verbose) {
        printf("ok   roundtrip %s: max error %.3g\n", pair ? "dst" : "dct", e);
      }
    }
    if (a) hyfft_plan_destroy(a);
    if (b) hyfft_plan_destroy(b);
  }
  return ok;
}

/* Linearity: T(a x + b y) = a T(x) + b T(y) for a two-axis plan of mixed
 * kinds, to rounding. */
static int check_linearity(hyfft_context ctx) {
  enum { N0 = 9, N1 = 14, N = N0 * N1 };
  const int64_t n[2] = {N0, N1};
  const hyfft_r2r_kind kinds[2] = {HYFFT_REDFT11, HYFFT_RODFT01};
  const double a = 0.7, b = -1.3;
  double x[N], y[N], z[N], tx[N], ty[N], tz[N];
  for (int i = 0; i < N; i++) {
    x[i] = uniform();
    y[i] = uniform();
    z[i] = a * x[i] + b * y[i];
  }
  hyfft_problem p;
  hyfft_plan plan = NULL;
  int ok = hyfft_problem_init_r2r(&p, HYFFT_F64, 2, n, kinds) == HYFFT_SUCCESS &&
           hyfft_plan_create(ctx, &p, 0, &plan) == HYFFT_SUCCESS &&
           hyfft_execute(plan, x, tx) == HYFFT_SUCCESS &&
           hyfft_execute(plan, y, ty) == HYFFT_SUCCESS && hyfft_execute(plan, z, tz) == HYFFT_SUCCESS;
  if (!ok) {
    printf("FAIL linearity: %s\n", hyfft_last_error());
  } else {
    double e = 0, m = 0;
    for (int i = 0; i < N; i++) {
      e = fmax(e, fabs(tz[i] - (a * tx[i] + b * ty[i])));
      m = fmax(m, fabs(tz[i]));
    }
    ok = e <= 1e-14 * m;
    if (!ok || verbose) printf("%s linearity: max error %.3g of %.3g\n", ok ? "ok  " : "FAIL", e, m);
  }
  if (plan) hyfft_plan_destroy(plan);
  return ok;
}

int main(int argc, char **argv) {
  const char *device = getenv("HYFFT_TEST_DEVICE");
  if (!device) device = "cpu";
  int ntok = 0, quick = -1;
  const char **tokens = calloc((size_t)argc, sizeof *tokens);
  if (!tokens) return 2;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = argv[++i];
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      rng_state = strtoull(argv[++i], NULL, 0) | 1;
    else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) verbose = 1;
    else if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else if (strcmp(argv[i], "--full") == 0) quick = 0;
    else tokens[ntok++] = argv[i];
  }
  on_gpu = strcmp(device, "cpu") != 0;
  if (quick < 0) quick = on_gpu;
  printf("r2r accuracy on %s, seed %llu%s\n", device, (unsigned long long)rng_state,
         quick ? ", quick" : "");
  hyfft_context ctx;
  if (hyfft_context_create(device, &ctx) != HYFFT_SUCCESS) {
    printf("FAIL: context %s: %s\n", device, hyfft_last_error());
    free(tokens);
    return 1;
  }
  int pass = 0, total = 0;
  if (ntok > 0) {
    for (int i = 0; i < ntok; i++, total++) pass += run_case(ctx, tokens[i]);
  } else {
    static const char *const kinds[9] = {"dct1", "dct2", "dct3", "dct4", "dst1",
                                         "dst2", "dst3", "dst4", "dht"};
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 64, 97, 100, 128, 243, 1000, 1024};
    /* Quick: two sizes per precision (odd and even, prime and smooth). */
    static const int64_t quick_sizes[2][2] = {{17, 64}, {12, 97}};
    char tok[160];
    for (int k = 0; k < 9; k++)
      for (int prec = 0; prec < 2; prec++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
          if (k == 0 && sizes[s] < 2) continue;
          if (quick && sizes[s] != quick_sizes[prec][0] && sizes[s] != quick_sizes[prec][1])
            continue;
          snprintf(tok, sizeof tok, "r2r:%s:%s:%lld%s", prec ? "f64" : "f32", kinds[k],
                   (long long)sizes[s], sizes[s] < 200 ? ":b3" : "");
          pass += run_case(ctx, tok), total++;
        }
    /* Longer ones against fftwl only, batched, strided, in place, scaled,
     * and several axes of mixed kinds. */
    static const char *const more[] = {
        "r2r:f64:dct2:4096", "r2r:f64:dct4:10007", "r2r:f32:dst1:5000", "r2r:f64:dht:65536",
        "r2r:f64:dct1:8193", "r2r:f64:dst3:6000", "r2r:f64:dst2:3000:b2", "r2r:f64:dct3:4096",
        "r2r:f64:dst4:2048",
        "r2r:f64:dct2:64:b5:is=2:idist=130:os=3:odist=200",
        "r2r:f32:dst4:33:b4x3:is=3:os=2:idist=400,100:odist=300,70",
        "r2r:f64:dct4:100:b4:ip", "r2r:f32:dst1:31:b2:ip", "r2r:f64:dht:60:b2:ip:scale=0.25",
        "r2r:f64:dct2:32:scale=1/N", "r2r:f32:dct2xdst1:16x10", "r2r:f32:dct2xdst1:64x100",
        "r2r:f64:dct1xdst4xdht:6x5x7:b2", "r2r:f64:dct3xdst2:9x8:ip",
        "r2r:f64:dst3xdct4:12x11:b3:is=30,2:os=12,1:idist=400:odist=150",
        "r2r:f32:dhtxdct1xdst3:4x3x5:ip", "r2r:f64:dct2xdct2:1x1", "r2r:f64:dct4xdst1:1x1:b2",
        "r2r:f32:dct2xdst1xdct3xdht:16x9x12x10", "r2r:f64:dct1xdst4xdct2xdst2:5x8x6x7:b3",
        "r2r:f64:dct3xdct3xdct3xdct3:8x8x8x8:ip", "r2r:f32:dht:4x5x6x7x8"};
    static const char *const more_quick[] = {
        "r2r:f64:dct2:4096", "r2r:f32:dst1:5000",
        "r2r:f32:dst4:33:b4x3:is=3:os=2:idist=400,100:odist=300,70",
        "r2r:f64:dct4:100:b4:ip", "r2r:f64:dht:60:b2:ip:scale=0.25", "r2r:f32:dct2xdst1:16x10",
        "r2r:f64:dct1xdst4xdht:6x5x7:b2", "r2r:f32:dhtxdct1xdst3:4x3x5:ip",
        "r2r:f64:dct4xdst1:1x1:b2", "r2r:f64:dct1xdst4xdct2xdst2:5x8x6x7:b3"};
    if (quick)
      for (size_t i = 0; i < sizeof more_quick / sizeof more_quick[0]; i++, total++)
        pass += run_case(ctx, more_quick[i]);
    else
      for (size_t i = 0; i < sizeof more / sizeof more[0]; i++, total++)
        pass += run_case(ctx, more[i]);
    pass += check_refusals(ctx), total++;
    pass += check_roundtrip(ctx), total++;
    pass += check_linearity(ctx), total++;
  }
  hyfft_context_destroy(ctx);
  free(tokens);
  printf("%d of %d r2r cases pass\n", pass, total);
  return pass == total ? 0 : 1;
}
