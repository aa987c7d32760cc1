/* hyfft_callbacks: load and store callbacks (hyfft_callbacks) against FFTW
 * in long double. On the CPU the callbacks are C functions, on a GPU
 * backend source snippets compiled into the kernels; both do the same:
 *   load:  a window, value = w[index] * in[index], w a user array over the
 *          input buffer's offsets with entries 1/4, 1/2, 1, 2 (exact
 *          products, so the reference sees what the transform sees);
 *   store: a mask and a scale, out[index] = (index % 5 == 1 ? 0 : s) * value.
 * Every case runs load only, store only and both (C2R of two or more
 * dims the store only); the reference is the transform of w .* x, masked
 * and scaled. C2C, R2C (a real window on the reals) and C2R (a real mask
 * and scale on the reals). Then the named refusals, a
 * snippet that does not compile (HYFFT_COMPILE_ERROR naming the
 * snippet's line), and two plans of one problem whose store snippets
 * differ only in the scale: different kernel sources (so different cache
 * keys), each with its own answer.
 *
 *   hyfft_callbacks [--device SPEC] [--device-buffers] [--seed S] [TOKEN...] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"

static const char *const default_tokens[] = {
    "c2c:f32:fwd:64",
    "c2c:f64:bwd:60:b3",
    "c2c:f32:fwd:17:b2",
    "c2c:f64:fwd:127",
    "c2c:f32:fwd:32x24",
    "c2c:f64:bwd:16x12:b2",
    "c2c:f32:bwd:8x6x10",
    "c2c:f32:fwd:48:b4:is=2:idist=100:os=3:odist=150",
    "c2c:f64:fwd:128:b2:ip",
    "c2c:f32:bwd:24x20:ip",
    "c2c:f32:fwd:1000:b2",
    "c2c:f64:bwd:4096",
    "r2c:f32:64",
    "r2c:f64:60:b3",
    "r2c:f32:17",
    "r2c:f32:32x24",
    "r2c:f64:16x12:ip",
    "r2c:f32:12x10:b2:is=11,1:idist=140",
    "r2c:f32:1000:b2",
    "c2r:f32:64:b2",
    "c2r:f64:30:b3",
    "c2r:f32:17:ip",
    "c2r:f64:4096",
    "c2r:f32:24x20",
    "c2r:f64:16x12:ip",
};

static double window_value(int64_t o) {
  static const double w[4] = {0.25, 0.5, 1.0, 2.0};
  return w[o % 4];
}

/* ---- the CPU backend's functions ----------------------------------------- */

static void load_f32(void *value, const void *in, int64_t index, void *user) {
  const float *x = (const float *)in + 2 * index, *w = user;
  float *v = value;
  v[0] = x[0] * w[index];
  v[1] = x[1] * w[index];
}
static void load_f64(void *value, const void *in, int64_t index, void *user) {
  const double *x = (const double *)in + 2 * index, *w = user;
  double *v = value;
  v[0] = x[0] * w[index];
  v[1] = x[1] * w[index];
}
/* user: the scale, a double. */
static void store_f32(void *out, int64_t index, const void *value, void *user) {
  const float *v = value;
  float s = index % 5 == 1 ? 0.0f : (float)*(const double *)user;
  float *o = (float *)out + 2 * index;
  o[0] = v[0] * s;
  o[1] = v[1] * s;
}
static void store_f64(void *out, int64_t index, const void *value, void *user) {
  const double *v = value;
  double s = index % 5 == 1 ? 0.0 : *(const double *)user;
  double *o = (double *)out + 2 * index;
  o[0] = v[0] * s;
  o[1] = v[1] * s;
}

/* The real ends: R2C's input, C2R's output. */
static void load_r32(void *value, const void *in, int64_t index, void *user) {
  *(float *)value = ((const float *)in)[index] * ((const float *)user)[index];
}
static void load_r64(void *value, const void *in, int64_t index, void *user) {
  *(double *)value = ((const double *)in)[index] * ((const double *)user)[index];
}
static void store_r32(void *out, int64_t index, const void *value, void *user) {
  float s = index % 5 == 1 ? 0.0f : (float)*(const double *)user;
  ((float *)out)[index] = *(const float *)value * s;
}
static void store_r64(void *out, int64_t index, const void *value, void *user) {
  double s = index % 5 == 1 ? 0.0 : *(const double *)user;
  ((double *)out)[index] = *(const double *)value * s;
}

/* ---- the GPU snippets ------------------------------------------------------ */

static const char *load_source_real = "const HY_GLOBAL real *w = (const HY_GLOBAL real *)user;\n"
                                      "return in[index] * w[index];\n";

static void store_source_real(char *buf, size_t size, double scale) {
  snprintf(buf, size,
           "real s = index %% 5 == 1 ? (real)0 : (real)%.17g;\n"
           "out[index] = value * s;\n",
           scale);
}

static const char *load_source = "const HY_GLOBAL real *w = (const HY_GLOBAL real *)user;\n"
                                 "real2 v = in[index];\n"
                                 "return MK(v.x * w[index], v.y * w[index]);\n";

static void store_source(char *buf, size_t size, double scale) {
  snprintf(buf, size,
           "real s = index %% 5 == 1 ? (real)0 : (real)%.17g;\n"
           "out[index] = MK(value.x * s, value.y * s);\n",
           scale);
}

typedef struct cb_env {
  hyt_device *dev;
  int cpu;
  int64_t window_n; /* entries of the window buffers */
  float *w32;
  double *w64;
  void *dw32, *dw64; /* device copies (GPU) */
} cb_env;

static int env_window(cb_env *e, int64_t n) {
  if (n <= e->window_n) return 0;
  free(e->w32);
  free(e->w64);
  if (e->dw32) hyfft_buffer_free(e->dev->ctx, e->dw32);
  if (e->dw64) hyfft_buffer_free(e->dev->ctx, e->dw64);
  e->dw32 = e->dw64 = NULL;
  e->w32 = malloc((size_t)n * sizeof(float));
  e->w64 = malloc((size_t)n * sizeof(double));
  if (!e->w32 || !e->w64) return 1;
  for (int64_t i = 0; i < n; i++) e->w32[i] = (float)(e->w64[i] = window_value(i));
  if (!e->cpu) {
    if (hyfft_buffer_alloc(e->dev->ctx, (size_t)n * sizeof(float), &e->dw32) ||
        hyfft_buffer_alloc(e->dev->ctx, (size_t)n * sizeof(double), &e->dw64) ||
        hyfft_buffer_write(e->dev->ctx, e->dw32, 0, e->w32, (size_t)n * sizeof(float)) ||
        hyfft_buffer_write(e->dev->ctx, e->dw64, 0, e->w64, (size_t)n * sizeof(double)))
      return 1;
  }
  e->window_n = n;
  return 0;
}

/* The callbacks of one case: mode bit 0 load, bit 1 store. */
static void make_callbacks(cb_env *e, hyfft_kind kind, hyfft_precision p, int mode,
                           const double *scale, char *store_buf, size_t store_size,
                           hyfft_callbacks *cb) {
  memset(cb, 0, sizeof *cb);
  int f64 = p == HYFFT_F64;
  int real_in = kind == HYFFT_R2C, real_out = kind == HYFFT_C2R;
  if (mode & 1) {
    if (e->cpu) {
      cb->load_fn = real_in ? (f64 ? load_r64 : load_r32) : (f64 ? load_f64 : load_f32);
      cb->load_user = f64 ? (void *)e->w64 : (void *)e->w32;
    } else {
      cb->load_source = real_in ? load_source_real : load_source;
      cb->load_user = f64 ? e->dw64 : e->dw32;
    }
  }
  if (mode & 2) {
    if (e->cpu) {
      cb->store_fn = real_out ? (f64 ? store_r64 : store_r32) : (f64 ? store_f64 : store_f32);
      cb->store_user = (void *)scale;
    } else {
      if (real_out)
        store_source_real(store_buf, store_size, *scale);
      else
        store_source(store_buf, store_size, *scale);
      cb->store_source = store_buf;
    }
  }
}

/* One case: returns 0 when it ran (pass or fail counted). */
static void run_case(cb_env *e, const char *token, int mode, double scale, hyt_rng *rng) {
  static const char *const mode_name[4] = {"", "load", "store", "load+store"};
  hyfft_problem prob;
  if (hyfft_problem_parse(token, &prob) != HYFFT_SUCCESS) {
    hy_test_fail("%s: bad token: %s", token, hyfft_last_error());
    return;
  }
  if (e->dev->device_buffers) prob.memory = HYFFT_MEMORY_DEVICE;
  hyt_layout lay;
  char why[256];
  if (hyt_layout_make(&prob, &lay, why, sizeof why)) {
    hy_test_fail("%s: layout: %s", token, why);
    return;
  }
  hyt_cvec x = {0}, xw = {0}, ref = {0}, y = {0};
  hyt_buffers b;
  memset(&b, 0, sizeof b);
  hyfft_plan plan = NULL;
  char store_buf[256];
  hyfft_callbacks cb;
  /* hyt_random_input and hyt_reference allocate x and ref themselves. */
  if (env_window(e, lay.in_extent) || hyt_random_input(&lay, rng, &x) ||
      hyt_cvec_alloc(&xw, lay.count_in) || hyt_cvec_alloc(&y, lay.count_out)) {
    hy_test_fail("%s: setup failed", token);
    goto done;
  }
  for (int64_t i = 0; i < lay.count_in; i++) {
    long double w = (mode & 1) ? (long double)window_value(lay.in_off[i]) : 1.0L;
    xw.v[2 * i] = x.v[2 * i] * w;
    xw.v[2 * i + 1] = x.v[2 * i + 1] * w;
  }
  if (hyt_reference(&lay, &xw, &ref)) {
    hy_test_fail("%s: reference failed", token);
    goto done;
  }
  for (int64_t i = 0; i < lay.count_out && (mode & 2); i++) {
    long double s = lay.out_off[i] % 5 == 1 ? 0.0L : (long double)scale;
    ref.v[2 * i] *= s;
    ref.v[2 * i + 1] *= s;
  }
  make_callbacks(e, prob.kind, prob.precision, mode, &scale, store_buf, sizeof store_buf, &cb);
  hyfft_status st = hyfft_plan_create_with_callbacks(e->dev->ctx, &prob, HYFFT_ESTIMATE, &cb, &plan);
  if (st != HYFFT_SUCCESS) {
    hy_test_fail("%s %s: plan: %s: %s", token, mode_name[mode], hyfft_status_name(st),
                 hyfft_last_error());
    goto done;
  }
  hyt_run_result res;
  if (hyt_buffers_alloc(&lay, e->dev, &b) || hyt_run(plan, &b, &x, &y, &res)) {
    hy_test_fail("%s %s: run: %s: %s", token, mode_name[mode], hyfft_status_name(res.status),
                 res.message);
    goto done;
  }
  hyt_errors err = hyt_compare(&lay, &y, &ref);
  if (!err.pass || res.gaps_touched || res.input_changed)
    hy_test_fail("%s %s: rms %.3g (gate %.3g) max %.3g (gate %.3g), %lld gaps touched, %lld "
                 "inputs changed", token, mode_name[mode], err.rms, err.rms_gate, err.max,
                 err.max_gate, (long long)res.gaps_touched, (long long)res.input_changed);
  else
    hy_test_pass();
done:
  if (plan) hyfft_plan_destroy(plan);
  hyt_buffers_free(&b);
  hyt_cvec_free(&x);
  hyt_cvec_free(&xw);
  hyt_cvec_free(&ref);
  hyt_cvec_free(&y);
  hyt_layout_free(&lay);
}

static void check_refusals(cb_env *e) {
  hyfft_context ctx = e->dev->ctx;
  hyfft_problem prob;
  int64_t n = 64;
  CHECK_OK(hyfft_problem_init(&prob, HYFFT_C2C, HYFFT_F32, HYFFT_FORWARD, 1, &n));
  hyfft_plan plan = NULL;
  hyfft_callbacks cb;
  /* The other form of the callbacks. */
  memset(&cb, 0, sizeof cb);
  if (e->cpu)
    cb.load_source = load_source;
  else
    cb.load_fn = load_f32;
  CHECK_STATUS(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &plan), HYFFT_NOT_SUPPORTED);
  /* Both forms of one callback. */
  cb.load_source = load_source;
  cb.load_fn = load_f32;
  CHECK_STATUS(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &plan),
               HYFFT_INVALID_ARGUMENT);
  /* R2R and half storage. */
  memset(&cb, 0, sizeof cb);
  double one = 1.0;
  char buf[256];
  make_callbacks(e, HYFFT_C2C, HYFFT_F32, 2, &one, buf, sizeof buf, &cb);
  hyfft_problem r2r;
  hyfft_r2r_kind dct2 = HYFFT_REDFT10;
  CHECK_OK(hyfft_problem_init_r2r(&r2r, HYFFT_F32, 1, &n, &dct2));
  CHECK_STATUS(hyfft_plan_create_with_callbacks(ctx, &r2r, 0, &cb, &plan), HYFFT_NOT_SUPPORTED);
  hyfft_problem half = prob;
  half.precision = HYFFT_F16;
  hyfft_status st = hyfft_plan_create_with_callbacks(ctx, &half, 0, &cb, &plan);
  CHECK(st == HYFFT_NOT_SUPPORTED, "f16 with callbacks gave %s", hyfft_status_name(st));
  /* No callbacks at all: an ordinary plan. */
  memset(&cb, 0, sizeof cb);
  CHECK_OK(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &plan));
  if (plan) hyfft_plan_destroy(plan);
  plan = NULL;
  CHECK_OK(hyfft_plan_create_with_callbacks(ctx, &prob, 0, NULL, &plan));
  if (plan) hyfft_plan_destroy(plan);
  plan = NULL;
  /* hyfft_plan_describe (`hyfft plan`) says where the callbacks apply. */
  make_callbacks(e, HYFFT_C2C, HYFFT_F32, 3, &one, buf, sizeof buf, &cb);
  CHECK_OK(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &plan));
  if (plan) {
    char text[4096];
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "callbacks: load store") != NULL, "describe: %s", text);
    hyfft_plan_destroy(plan);
    plan = NULL;
  }
  if (e->cpu) {
    /* A multi-device context splits a batched host problem into sub-plans
     * over parts of the buffers: refused by name. */
    hyfft_context multi = NULL;
    if (hyfft_context_create("cpu,cpu", &multi) == HYFFT_SUCCESS) {
      hyfft_problem batched = prob;
      batched.batch_rank = 1;
      batched.batch[0] = (hyfft_dim){8, 64, 64};
      make_callbacks(e, HYFFT_C2C, HYFFT_F32, 1, &one, buf, sizeof buf, &cb);
      CHECK_STATUS(hyfft_plan_create_with_callbacks(multi, &batched, 0, &cb, &plan),
                   HYFFT_NOT_SUPPORTED);
      CHECK(strstr(hyfft_last_error(), "multi-device") != NULL, "message: %s", hyfft_last_error());
      hyfft_context_destroy(multi);
    }
    return;
  }

  /* A snippet that does not compile: the named status, and the log names
   * the snippet's second line. */
  memset(&cb, 0, sizeof cb);
  cb.load_source = "real2 v = in[index];\nreturn v +* ;\n";
  CHECK_STATUS(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &plan), HYFFT_COMPILE_ERROR);
  const char *log = hyfft_last_error();
  CHECK(strstr(log, "load_callback:2") != NULL, "the compiler log does not name load_callback:2: %s",
        log);
  memset(&cb, 0, sizeof cb);
  cb.store_source = "out[index] = value\n";
  CHECK_STATUS(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &plan), HYFFT_COMPILE_ERROR);
  log = hyfft_last_error();
  CHECK(strstr(log, "store_callback:1") != NULL || strstr(log, "store_callback:2") != NULL,
        "the compiler log does not name store_callback's line: %s", log);

  /* HYFFT_HYBRID on a batched host problem: the plan runs on the device
   * alone (no CPU share), and says so. */
  {
    hyfft_problem batched = prob;
    batched.batch_rank = 1;
    batched.batch[0] = (hyfft_dim){64, 64, 64};
    make_callbacks(e, HYFFT_C2C, HYFFT_F32, 2, &one, buf, sizeof buf, &cb);
    hyfft_plan hp = NULL;
    CHECK_OK(hyfft_plan_create_with_callbacks(ctx, &batched, HYFFT_HYBRID, &cb, &hp));
    if (hp) {
      char text[4096];
      CHECK_OK(hyfft_plan_describe(hp, text, sizeof text, NULL));
      CHECK(strstr(text, "hybrid") == NULL && strstr(text, "with no CPU share") != NULL,
            "HYFFT_HYBRID with callbacks: %s", text);
      hyfft_plan_destroy(hp);
    }
  }

  /* Two plans whose snippets differ: different sources (the cache key is
   * the source's hash), and each computes its own scale. */
  char src_a[256], src_b[256];
  hyfft_plan a = NULL, bplan = NULL;
  double sa = 0.5, sb = 0.25;
  make_callbacks(e, HYFFT_C2C, HYFFT_F32, 2, &sa, src_a, sizeof src_a, &cb);
  CHECK_OK(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &a));
  make_callbacks(e, HYFFT_C2C, HYFFT_F32, 2, &sb, src_b, sizeof src_b, &cb);
  CHECK_OK(hyfft_plan_create_with_callbacks(ctx, &prob, 0, &cb, &bplan));
  if (a && bplan) {
    size_t la = 0, lb = 0;
    hyfft_plan_source(a, NULL, 0, &la);
    hyfft_plan_source(bplan, NULL, 0, &lb);
    char *ta = malloc(la + 1), *tb = malloc(lb + 1);
    if (ta && tb) {
      CHECK_OK(hyfft_plan_source(a, ta, la + 1, NULL));
      CHECK_OK(hyfft_plan_source(bplan, tb, lb + 1, NULL));
      CHECK(strcmp(ta, tb) != 0, "two different store snippets gave the same kernel source");
      CHECK(strstr(ta, "hy_store_cb(dst, ") != NULL, "no hy_store_cb call in the kernel");
    }
    free(ta);
    free(tb);
    float host[128], res[128];
    for (int i = 0; i < 128; i++) host[i] = i % 2 ? 0.0f : 1.0f; /* x[j] = 1: X[0] = 64 */
    hyfft_plan both[2] = {a, bplan};
    double scales[2] = {sa, sb};
    for (int k = 0; k < 2; k++) {
      CHECK_OK(hyfft_execute(both[k], host, res));
      CHECK(res[0] == (float)(64 * scales[k]) && res[2] == 0.0f,
            "plan %d: X[0] = %g, expected %g", k, (double)res[0], 64 * scales[k]);
    }
  }
  if (a) hyfft_plan_destroy(a);
  if (bplan) hyfft_plan_destroy(bplan);
}

int main(int argc, char **argv) {
  hyt_options opt;
  if (hyt_parse_args(argc, argv, "", &opt)) return 2;
  hyt_device dev;
  if (hyt_device_open(&opt, &dev)) return 77;
  cb_env e;
  memset(&e, 0, sizeof e);
  e.dev = &dev;
  e.cpu = dev.info.backend == HYFFT_BACKEND_CPU;
  int ntok = opt.ntokens ? opt.ntokens : (int)(sizeof default_tokens / sizeof default_tokens[0]);
  for (int t = 0; t < ntok; t++) {
    const char *token = opt.ntokens ? opt.tokens[t] : default_tokens[t];
    /* A window on a multi-dimensional C2R input breaks its Hermitian
     * symmetry along the outer axes, where the result depends on how the
     * transform treats it: those run the store callback only. */
    int c2r_nd = strncmp(token, "c2r:", 4) == 0 && strchr(token, 'x') != NULL;
    for (int mode = c2r_nd ? 2 : 1; mode <= (c2r_nd ? 2 : 3); mode++) {
      hyt_rng rng;
      hyt_rng_seed_token(&rng, opt.seed, token);
      run_case(&e, token, mode, 0.5, &rng);
    }
  }
  if (!dev.device_buffers) check_refusals(&e);
  free(e.w32);
  free(e.w64);
  if (e.dw32) hyfft_buffer_free(dev.ctx, e.dw32);
  if (e.dw64) hyfft_buffer_free(dev.ctx, e.dw64);
  hyt_device_close(&dev);
  free(opt.tokens);
  return hy_test_summary();
}
