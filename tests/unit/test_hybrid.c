/* Unit tests of hybrid CPU + GPU execution (src/exec/hybrid.c) without a
 * GPU: the "GPU" is the CPU backend's table under a GPU id (host data then
 * goes through its per-call staging path), so the split, the offsets of the
 * CPU side, the thread that runs it, the share's sources (HYFFT_CPU_SHARE
 * as a fraction, "auto" and the HYFFT_HYBRID flag through the calibrated
 * model), the cases that must not split, and a bad HYFFT_CPU_SHARE are
 * all checked against a plain CPU plan of the same problem; the search
 * around the model stores its share in wisdom, and later plans of the
 * problem (also after an export and import) take it without calibrating.
 *
 * A second fake also page-locks host memory (host_alloc, host_pinned over
 * a list of its allocations): its plans hold a split for each kind of host
 * memory, calibrated each on probe buffers of that kind, and each
 * execution runs the split of the memory passed (page-locked only when
 * input and output both are); wisdom keeps both shares (format 3), an old
 * format 2 entry with one share leaves the page-locked split to calibrate,
 * and on a backend that does not page-lock one share serves both. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/exec.h"
#include "exec/hybrid.h"
#include "planner/wisdom.h"
#include "util/settings.h"

static hy_backend fake, fake_pin;

/* The page-locking fake's allocations: host_pinned says yes for a range
 * inside one of them. */
#define PINNED_MAX 64
static struct {
  char *ptr;
  size_t bytes;
} pinned_list[PINNED_MAX];
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long pinned_allocs;

static hy_status fake_host_alloc(void *device, size_t bytes, void **host) {
  (void)device;
  char *p = malloc(bytes ? bytes : 1);
  if (!p) return HYFFT_OUT_OF_MEMORY;
  pthread_mutex_lock(&pinned_lock);
  int i = 0;
  while (i < PINNED_MAX && pinned_list[i].ptr) i++;
  if (i < PINNED_MAX) {
    pinned_list[i].ptr = p;
    pinned_list[i].bytes = bytes;
  }
  pthread_mutex_unlock(&pinned_lock);
  if (i == PINNED_MAX) {
    free(p);
    return HYFFT_OUT_OF_MEMORY;
  }
  atomic_fetch_add(&pinned_allocs, 1);
  *host = p;
  return HYFFT_SUCCESS;
}

static void fake_host_release(void *device, void *host) {
  (void)device;
  pthread_mutex_lock(&pinned_lock);
  for (int i = 0; i < PINNED_MAX; i++)
    if (pinned_list[i].ptr == host) pinned_list[i].ptr = NULL;
  pthread_mutex_unlock(&pinned_lock);
  free(host);
}

/* Bytes the page-locking fake's GPU side uploaded: the entries the split
 * that ran gave the GPU. */
static atomic_long uploaded;
static hy_status fake_write(void *device, void *queue, void *buffer, size_t offset,
                            const void *host, size_t bytes, int blocking) {
  atomic_fetch_add(&uploaded, (long)bytes);
  return hy_backend_cpu.write(device, queue, buffer, offset, host, bytes, blocking);
}

static int fake_host_pinned(void *device, const void *ptr, size_t bytes) {
  (void)device;
  const char *c = ptr;
  int yes = 0;
  pthread_mutex_lock(&pinned_lock);
  for (int i = 0; i < PINNED_MAX && !yes; i++)
    yes = pinned_list[i].ptr && c >= pinned_list[i].ptr &&
          c + bytes <= pinned_list[i].ptr + pinned_list[i].bytes;
  pthread_mutex_unlock(&pinned_lock);
  return yes;
}

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

/* Execute the hybrid `plan` of `token` with input and output of the given
 * kinds (1: from the page-locking fake, 0: malloc; in place uses the
 * input's), check the output against a CPU plan's, and return the kind of
 * split the execution ran. */
static int run_kinds(hyfft_context cpu, hyfft_plan plan, const char *token, int pin_in,
                     int pin_out) {
  hyfft_problem u;
  CHECK_OK(hyfft_problem_parse(token, &u));
  hyfft_plan ref = NULL;
  CHECK_OK(hyfft_plan_create(cpu, &u, HYFFT_ESTIMATE, &ref));
  if (!ref) return -2;
  const hy_problem *p = &plan->problem;
  size_t in_bytes = (size_t)p->in_extent * hy_problem_in_elem_size(p);
  size_t out_bytes = (size_t)p->out_extent * hy_problem_out_elem_size(p);
  if (p->inplace && out_bytes > in_bytes) in_bytes = out_bytes;
  void *in = NULL, *out = NULL, *a = malloc(in_bytes), *want = malloc(out_bytes);
  if (pin_in) CHECK_OK(fake_host_alloc(NULL, in_bytes, &in));
  else in = malloc(in_bytes);
  if (p->inplace) out = in;
  else if (pin_out) CHECK_OK(fake_host_alloc(NULL, out_bytes, &out));
  else out = malloc(out_bytes);
  fill(in, in_bytes, 777);
  memcpy(a, in, in_bytes);
  if (!p->inplace) {
    fill(out, out_bytes, 5);
    memcpy(want, out, out_bytes);
  }
  CHECK_OK(hyfft_execute(ref, a, p->inplace ? a : want));
  if (p->inplace) memcpy(want, a, out_bytes);
  CHECK_OK(hyfft_execute(plan, in, out));
  int kind = hy_hybrid_last_kind(plan);
  double num = 0, den = 0;
  for (size_t i = 0; i < out_bytes / sizeof(float); i++) {
    double x = ((float *)out)[i], y = ((float *)want)[i];
    if (!(fabs(x - y) <= num)) num = fabs(x - y);
    if (fabs(y) > den) den = fabs(y);
  }
  CHECK(num <= 1e-5 * den, "%s (in %s, out %s): hybrid differs from CPU by %.3g (of %.3g)",
        token, pin_in ? "page-locked" : "pageable", pin_out ? "page-locked" : "pageable", num,
        den);
  if (pin_in) fake_host_release(NULL, in);
  else free(in);
  if (out != in) {
    if (pin_out) fake_host_release(NULL, out);
    else free(out);
  }
  free(a);
  free(want);
  CHECK_OK(hyfft_plan_destroy(ref));
  return kind;
}

/* Wisdom text of one share line (format 2: `pinned` NULL) for `token` on
 * device `name`, imported after forgetting the table. */
static void import_share(const char *token, const char *name, const char *share,
                         const char *pinned) {
  char text[512];
  snprintf(text, sizeof text, "hyfft-wisdom %d\n%d %s share %s%s%s %s\n", pinned ? 3 : 2,
           HY_CODEGEN_VERSION, token, share, pinned ? " " : "", pinned ? pinned : "", name);
  hyfft_wisdom_forget();
  CHECK_OK(hyfft_wisdom_import_string(text));
}

static char *export_wisdom(void) {
  size_t need = 0;
  hyfft_wisdom_export_string(NULL, 0, &need);
  char *w = malloc(need + 1);
  if (w) CHECK_OK(hyfft_wisdom_export_string(w, need + 1, NULL));
  return w;
}

/* Plans on the page-locking fake `gpin` (and the plain fake `gpu`). */
static void pinned_cases(hyfft_context cpu, hyfft_context gpu, hyfft_context gpin) {
  char text[16384];
  hyfft_plan plan = NULL;
  const char *token = "c2c:f32:fwd:1024:b40";

  /* Two shares from wisdom: each execution runs the split of the memory
   * it is given, and computes the transform either way. */
  set_share(NULL);
  import_share(token, gpin->info.name, "0.25", "0.5");
  long calibrations = hy_hybrid_calibrations();
  CHECK_OK(hyfft_plan_token(gpin, token, HYFFT_HYBRID, &plan));
  CHECK(hy_hybrid_calibrations() == calibrations, "a plan with both shares in wisdom calibrated");
  if (plan) {
    CHECK(hy_hybrid_pinnable(plan), "the page-locking fake is not pinnable");
    CHECK(hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE) == 0.25 &&
              hy_hybrid_share_for(plan, HY_HYBRID_PINNED) == 0.5,
          "shares %g and %g, not 0.25 and 0.5", hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE),
          hy_hybrid_share_for(plan, HY_HYBRID_PINNED));
    CHECK(hy_hybrid_last_kind(plan) == -1, "a kind before any execution");
    /* The GPU side uploads its entries (8 KiB each, input and output on
     * the fake's simple staging path): 30 of 40 on pageable memory, 20 on
     * page-locked. */
    atomic_store(&uploaded, 0);
    CHECK(run_kinds(cpu, plan, token, 0, 0) == HY_HYBRID_PAGEABLE, "pageable memory ran the "
          "page-locked split");
    CHECK(atomic_load(&uploaded) == 2 * 30 * 8192, "pageable: the GPU uploaded %ld bytes",
          atomic_load(&uploaded));
    atomic_store(&uploaded, 0);
    CHECK(run_kinds(cpu, plan, token, 1, 1) == HY_HYBRID_PINNED, "page-locked memory ran the "
          "pageable split");
    CHECK(atomic_load(&uploaded) == 2 * 20 * 8192, "page-locked: the GPU uploaded %ld bytes",
          atomic_load(&uploaded));
    CHECK(run_kinds(cpu, plan, token, 1, 0) == HY_HYBRID_PAGEABLE, "a pageable output ran the "
          "page-locked split");
    CHECK(run_kinds(cpu, plan, token, 0, 1) == HY_HYBRID_PAGEABLE, "a pageable input ran the "
          "page-locked split");
    CHECK(run_kinds(cpu, plan, token, 1, 1) == HY_HYBRID_PINNED, "page-locked memory, again");
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "GPU 30, CPU 10 (CPU share 0.2500, from wisdom) for pageable host data") &&
              strstr(text, "GPU 20, CPU 20 (CPU share 0.5000, from wisdom) for page-locked "
                           "input and output") &&
              strstr(text, "page-locked GPU side") && strstr(text, "page-locked CPU side"),
          "describe:\n%s", text);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  /* In place, and a share the same for both kinds (the sides shared). */
  const char *ip = "c2c:f32:fwd:64x48:b9:ip";
  import_share(ip, gpin->info.name, "0.5", "0");
  plan = NULL;
  CHECK_OK(hyfft_plan_token(gpin, ip, HYFFT_HYBRID, &plan));
  if (plan) {
    CHECK(run_kinds(cpu, plan, ip, 1, 1) == HY_HYBRID_PINNED, "in place page-locked");
    CHECK(run_kinds(cpu, plan, ip, 0, 0) == HY_HYBRID_PAGEABLE, "in place pageable");
    CHECK(hy_hybrid_share_for(plan, HY_HYBRID_PINNED) == 0, "in place pinned share %g",
          hy_hybrid_share_for(plan, HY_HYBRID_PINNED));
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  set_share("0.25");
  plan = NULL;
  CHECK_OK(hyfft_plan_token(gpin, token, 0, &plan));
  if (plan) {
    CHECK(hy_hybrid_share_for(plan, HY_HYBRID_PINNED) == 0.25, "a fixed share, page-locked %g",
          hy_hybrid_share_for(plan, HY_HYBRID_PINNED));
    CHECK(run_kinds(cpu, plan, token, 1, 1) == HY_HYBRID_PINNED, "fixed share, page-locked");
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "page-locked sides: the pageable split's"), "describe:\n%s", text);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  set_share(NULL);

  /* Calibration of both splits, the page-locked one on page-locked probe
   * buffers; wisdom then holds both shares (format 3) and a second plan,
   * also after an export and import, calibrates nothing. */
  hyfft_wisdom_forget();
  calibrations = hy_hybrid_calibrations();
  long allocs = atomic_load(&pinned_allocs);
  plan = NULL;
  CHECK_OK(hyfft_plan_token(gpin, token, HYFFT_HYBRID, &plan));
  CHECK(hy_hybrid_calibrations() == calibrations + 2, "%ld calibrations, not one per kind",
        hy_hybrid_calibrations() - calibrations);
  CHECK(atomic_load(&pinned_allocs) > allocs + 1, "no page-locked probe buffers");
  double first[2] = {-1, -1};
  if (plan) {
    first[0] = hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE);
    first[1] = hy_hybrid_share_for(plan, HY_HYBRID_PINNED);
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "pageable calibration (batch entries/s)") &&
              strstr(text, "page-locked calibration (batch entries/s)") &&
              strstr(text, "page-locked search on 40 entries: share") &&
              strstr(text, "for page-locked input and output"),
          "describe:\n%s", text);
    CHECK(run_kinds(cpu, plan, token, 1, 1) == HY_HYBRID_PINNED, "calibrated, page-locked");
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  double stored = -1, stored_pin = -1;
  CHECK(hy_wisdom_lookup_share(token, gpin->info.name, &stored, &stored_pin) &&
            stored == first[0] && stored_pin == first[1],
        "wisdom holds %g and %g, the plan used %g and %g", stored, stored_pin, first[0], first[1]);
  for (int round = 0; round < 2; round++) {
    if (round == 1) {
      char *w = export_wisdom();
      CHECK(w && strstr(w, "hyfft-wisdom 3\n") == w, "export:\n%s", w ? w : "(none)");
      hyfft_wisdom_forget();
      if (w) CHECK_OK(hyfft_wisdom_import_string(w));
      free(w);
    }
    plan = NULL;
    CHECK_OK(hyfft_plan_token(gpin, token, HYFFT_HYBRID, &plan));
    CHECK(hy_hybrid_calibrations() == calibrations + 2, "round %d calibrated again", round);
    if (!plan) continue;
    CHECK(hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE) == first[0] &&
              hy_hybrid_share_for(plan, HY_HYBRID_PINNED) == first[1],
          "round %d: shares %g and %g", round, hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE),
          hy_hybrid_share_for(plan, HY_HYBRID_PINNED));
    CHECK_OK(hyfft_plan_destroy(plan));
  }

  /* An old (format 2) entry holds the pageable share alone: the plan takes
   * it and calibrates only the page-locked split, then stores both. */
  import_share(token, gpin->info.name, "0.25", NULL);
  calibrations = hy_hybrid_calibrations();
  plan = NULL;
  CHECK_OK(hyfft_plan_token(gpin, token, HYFFT_HYBRID, &plan));
  CHECK(hy_hybrid_calibrations() == calibrations + 1, "an old entry: %ld calibrations, not 1",
        hy_hybrid_calibrations() - calibrations);
  if (plan) {
    CHECK(hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE) == 0.25, "old entry's share lost: %g",
          hy_hybrid_share_for(plan, HY_HYBRID_PAGEABLE));
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "(CPU share 0.2500, from wisdom) for pageable host data") &&
              strstr(text, "page-locked calibration") && !strstr(text, "pageable calibration"),
          "describe:\n%s", text);
    stored_pin = -1;
    CHECK(hy_wisdom_lookup_share(token, gpin->info.name, &stored, &stored_pin) &&
              stored == 0.25 && stored_pin == hy_hybrid_share_for(plan, HY_HYBRID_PINNED),
          "after an old entry wisdom holds %g and %g", stored, stored_pin);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  /* The same old entry on a backend that does not page-lock: one share
   * serves both kinds, nothing calibrates, and wisdom keeps format 2. */
  import_share(token, gpu->info.name, "0.25", NULL);
  calibrations = hy_hybrid_calibrations();
  plan = NULL;
  CHECK_OK(hyfft_plan_token(gpu, token, HYFFT_HYBRID, &plan));
  CHECK(hy_hybrid_calibrations() == calibrations, "an old entry on the plain fake calibrated");
  if (plan) {
    CHECK(!hy_hybrid_pinnable(plan) && hy_hybrid_share_for(plan, HY_HYBRID_PINNED) == 0.25,
          "plain fake: pinnable %d, page-locked share %g", hy_hybrid_pinnable(plan),
          hy_hybrid_share_for(plan, HY_HYBRID_PINNED));
    CHECK(run_kinds(cpu, plan, token, 0, 0) == HY_HYBRID_PAGEABLE, "plain fake");
    CHECK_OK(hyfft_plan_describe(plan, text, sizeof text, NULL));
    CHECK(strstr(text, "the same split for page-locked host data"), "describe:\n%s", text);
    CHECK_OK(hyfft_plan_destroy(plan));
  }
  char *w = export_wisdom();
  CHECK(w && strstr(w, "hyfft-wisdom 2\n") == w, "one share exports as format 2:\n%s",
        w ? w : "(none)");
  free(w);
  hyfft_wisdom_forget();
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
    CHECK(hy_wisdom_lookup_share(token, gpu->info.name, &stored, NULL) && stored == first,
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

  /* A fake that page-locks host memory: a context of its own, so that
   * wisdom keys it apart from the plain fake. */
  hyfft_context gpin = NULL;
  CHECK_OK(hyfft_context_create("cpu", &gpin));
  if (gpin) {
    fake_pin = fake;
    fake_pin.host_alloc = fake_host_alloc;
    fake_pin.host_release = fake_host_release;
    fake_pin.host_pinned = fake_host_pinned;
    fake_pin.write = fake_write;
    gpin->backend = &fake_pin;
    snprintf(gpin->info.name, sizeof gpin->info.name, "page-locking fake");
    pinned_cases(cpu, gpu, gpin);
    gpin->backend = &hy_backend_cpu;
    CHECK_OK(hyfft_context_destroy(gpin));
  }

  gpu->backend = &hy_backend_cpu;
  CHECK_OK(hyfft_context_destroy(gpu));
  CHECK_OK(hyfft_context_destroy(cpu));
  return hy_test_summary();
}
