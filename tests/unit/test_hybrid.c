/* Unit tests of hybrid CPU + GPU execution (src/exec/hybrid.c) without a
 * GPU: the "GPU" is the CPU backend's table under a GPU id (host data then
 * goes through its per-call staging path), so the split, the offsets of the
 * CPU side, the thread that runs it, the share's sources (HYFFT_CPU_SHARE
 * as a fraction, "auto" and the HYFFT_HYBRID flag through the calibrated
 * model), the cases that must not split, and a bad HYFFT_CPU_SHARE are
 * all checked against a plain CPU plan of the same problem; the search
 * around the model stores its share in wisdom, and later plans of the
 * problem (also after an export and import) take it without calibrating. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/exec.h"
#include "exec/hybrid.h"
#include "planner/wisdom.h"
#include "util/settings.h"

static hy_backend fake;

static void fill(void *buf, size_t bytes, unsigned seed) {
  float *f = buf;
  for (size_t i = 0; i < bytes / sizeof(float); i++) {
    seed = seed * 1664525u + 1013904223u;
    f[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

static void set_share(const char *value) {
  if (value) setenv("HYFFT_CPU_SHARE", value, 1);
  else unsetenv("HYFFT_CPU_SHARE");
  hy_settings_reload();
}

/* Plan `token` on the fake GPU with `flags`, check that it is hybrid
 * (share in [lo, hi]) or not (lo < 0), and compare its output, gaps
 * included, with a CPU plan's. */
static void hybrid_case(hyfft_context cpu, hyfft_context gpu, const char *token, unsigned flags,
                        double lo, double hi) {
  hyfft_problem u;
  CHECK_OK(hyfft_problem_parse(token, &u));
  hyfft_plan ref = NULL, plan = NULL;
  CHECK_OK(hyfft_plan_create(cpu, &u, HYFFT_ESTIMATE, &ref));
  CHECK_OK(hyfft_plan_create(gpu, &u, flags, &plan));
  if (!ref || !plan) return;
  if (lo < 0) {
    CHECK(plan->hybrid == NULL, "%s: split though it must not be", token);
  } else {
    double share = hy_hybrid_share(plan);
    CHECK(plan->hybrid != NULL && share >= lo && share <= hi, "%s: share %.4f outside [%g, %g]",
          token, share, lo, hi);
    char text[4096];
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "hybrid: outer batch dim") != NULL, "%s: describe lacks the split:\n%s",
          token, text);
  }
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  int f64 = p->precision == HYFFT_F64;
  void *in = malloc(in_bytes), *in2 = malloc(in_bytes);
  void *want = malloc(out_bytes), *got = malloc(out_bytes);
  fill(in, in_bytes, 4242);
  memcpy(in2, in, in_bytes);
  fill(want, out_bytes, 99);
  memcpy(got, want, out_bytes);
  if (p->inplace) {
    void *a = malloc(in_bytes);
    memcpy(a, in, in_bytes);
    CHECK_OK(hyfft_execute(ref, a, a));
    memcpy(want, a, out_bytes);
    CHECK_OK(hyfft_execute(plan, in2, in2));
    memcpy(got, in2, out_bytes);
    free(a);
  } else {
    CHECK_OK(hyfft_execute(ref, in, want));
    CHECK_OK(hyfft_execute(plan, in2, got));
    CHECK(memcmp(in, in2, in_bytes) == 0, "%s: input changed", token);
  }
  double num = 0, den = 0;
  size_t n = out_bytes / (f64 ? 8 : 4);
  for (size_t i = 0; i < n; i++) {
    double x = f64 ? ((double *)got)[i] : ((float *)got)[i];
    double y = f64 ? ((double *)want)[i] : ((float *)want)[i];
    if (!(fabs(x - y) <= num)) num = fabs(x - y);
    if (fabs(y) > den) den = fabs(y);
  }
  CHECK(num <= (f64 ? 1e-13 : 1e-5) * den, "%s: hybrid differs from CPU by %.3g (of %.3g)", token,
        num, den);
  free(in);
  free(in2);
  free(want);
  free(got);
  CHECK_OK(hyfft_plan_destroy(ref));
  CHECK_OK(hyfft_plan_destroy(plan));
}

int main(void) {
  hyfft_context cpu = NULL, gpu = NULL;
  CHECK_OK(hyfft_context_create("cpu", &cpu));
  CHECK_OK(hyfft_context_create("cpu", &gpu));
  if (!cpu || !gpu) return hy_test_summary();
  fake = *gpu->backend;
  fake.id = HYFFT_BACKEND_CUDA;
  gpu->backend = &fake;

  /* A fixed share: the CPU side starts at entry n - round(share * n). */
  set_share("0.25");
  hybrid_case(cpu, gpu, "c2c:f32:fwd:1024:b100", 0, 0.25, 0.25);
  hybrid_case(cpu, gpu, "c2c:f64:bwd:1024:b37:idist=1100", 0, 0.24, 0.25); /* padded entries */
  hybrid_case(cpu, gpu, "c2c:f32:fwd:64x48:b9:ip", 0, 0.22, 0.23);
  hybrid_case(cpu, gpu, "r2c:f32:1000:b33", 0, 0.24, 0.25);
  hybrid_case(cpu, gpu, "c2r:f64:30x32:b7", 0, 0.28, 0.29);
  hybrid_case(cpu, gpu, "r2r:f64:dct2:100:b20", 0, 0.25, 0.25);
  hybrid_case(cpu, gpu, "r2r:f32:dst1xdht:12x10:b8", 0, 0.25, 0.25);
  hybrid_case(cpu, gpu, "c2c:f32:fwd:256:b6x5", 0, 0.26, 0.27); /* merged into one of 30 */
  /* Either side alone. */
  set_share("0");
  hybrid_case(cpu, gpu, "c2c:f32:fwd:512:b10", 0, 0, 0);
  set_share("1");
  hybrid_case(cpu, gpu, "c2c:f32:fwd:512:b10", 0, 1, 1);
  /* Nothing to split: no batch, one entry, or entries that interleave. */
  set_share("0.5");
  hybrid_case(cpu, gpu, "c2c:f32:fwd:64x64", 0, -1, -1);
  hybrid_case(cpu, gpu, "c2c:f32:fwd:256:b1", 0, -1, -1);
  hybrid_case(cpu, gpu, "c2c:f32:fwd:64:b8:is=8:idist=1:os=8:odist=1", 0, -1, -1);
  /* Device data is the user's business: never split. */
  hybrid_case(cpu, gpu, "c2c:f32:fwd:256:b8:dev", 0, -1, -1);

  /* The calibrated model, through "auto" and through the flag: some share
   * in [0, 1], and the same answer. */
  set_share("auto");
  hybrid_case(cpu, gpu, "c2c:f32:fwd:4096:b64", 0, 0, 1);
  set_share(NULL);
  hybrid_case(cpu, gpu, "c2c:f32:fwd:4096:b64", HYFFT_HYBRID, 0, 1);
  /* Off by default, and on a CPU context whatever is asked. */
  hybrid_case(cpu, gpu, "c2c:f32:fwd:4096:b64", 0, -1, -1);
  set_share("0.5");
  {
    hyfft_plan plan = NULL;
    CHECK_OK(hyfft_plan_token(cpu, "c2c:f32:fwd:256:b8", HYFFT_HYBRID, &plan));
    CHECK(plan && plan->hybrid == NULL, "a CPU plan split");
    if (plan) CHECK_OK(hyfft_plan_destroy(plan));
  }

  /* The search and its wisdom: the first plan calibrates, searches and
   * stores its share; the next one of the problem takes it from wisdom
   * without calibrating, also after an export and import. */
  set_share(NULL);
  hyfft_wisdom_forget();
  {
    const char *token = "c2c:f32:fwd:2048:b48";
    char text[4096];
    hyfft_plan plan = NULL;
    long calibrations = hy_hybrid_calibrations();
    CHECK_OK(hyfft_plan_token(gpu, token, HYFFT_HYBRID, &plan));
    double first = plan ? hy_hybrid_share(plan) : -1;
    CHECK(hy_hybrid_calibrations() == calibrations + 1, "the first plan did not calibrate");
    if (plan) {
      CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
      CHECK(strstr(text, "search on 48 entries: share") && strstr(text, "by the search") == NULL
                ? strstr(text, "from the search around the calibrated model") != NULL
                : strstr(text, "confirmed by the search") != NULL,
            "describe lacks the search:\n%s", text);
      CHECK_OK(hyfft_plan_destroy(plan));
    }
    double stored = -1;
    CHECK(hy_wisdom_lookup_share(token, gpu->info.name, &stored) && stored == first,
          "wisdom holds %g, the plan used %g", stored, first);
    for (int round = 0; round < 2; round++) {
      if (round == 1) {
        /* Export, forget, import: the same share comes back. */
        size_t need = 0;
        hyfft_wisdom_export_string(NULL, 0, &need);
        char *w = malloc(need + 1);
        CHECK_OK(hyfft_wisdom_export_string(w, need + 1, NULL));
        CHECK(strstr(w, "hyfft-wisdom 2\n") == w && strstr(w, " share "), "export:\n%s", w);
        hyfft_wisdom_forget();
        CHECK_OK(hyfft_wisdom_import_string(w));
        free(w);
      }
      plan = NULL;
      CHECK_OK(hyfft_plan_token(gpu, token, HYFFT_HYBRID, &plan));
      CHECK(hy_hybrid_calibrations() == calibrations + 1, "round %d calibrated again", round);
      if (!plan) continue;
      CHECK(hy_hybrid_share(plan) == first, "round %d: share %g, not %g", round,
            hy_hybrid_share(plan), first);
      CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
      CHECK(strstr(text, "from wisdom)") && !strstr(text, "calibration"),
            "round %d: describe:\n%s", round, text);
      CHECK_OK(hyfft_plan_destroy(plan));
    }
    /* A fixed HYFFT_CPU_SHARE still wins over wisdom. */
    set_share("0.5");
    CHECK_OK(hyfft_plan_token(gpu, token, 0, &plan));
    if (plan) {
      CHECK(hy_hybrid_share(plan) == 0.5, "HYFFT_CPU_SHARE lost to wisdom");
      CHECK_OK(hyfft_plan_destroy(plan));
    }
    set_share(NULL);
    /* The whole plan, from wisdom, still computes the transform. */
    hybrid_case(cpu, gpu, token, HYFFT_HYBRID, 0, 1);
    hyfft_wisdom_forget();
  }

  /* A bad value fails context creation, naming the variable. */
  set_share("1.5");
  hyfft_context bad = NULL;
  CHECK_STATUS(hyfft_context_create("cpu", &bad), HYFFT_INVALID_ARGUMENT);
  CHECK(strstr(hyfft_last_error(), "HYFFT_CPU_SHARE") != NULL, "message: %s", hyfft_last_error());
  set_share(NULL);

  gpu->backend = &hy_backend_cpu;
  CHECK_OK(hyfft_context_destroy(gpu));
  CHECK_OK(hyfft_context_destroy(cpu));
  return hy_test_summary();
}
