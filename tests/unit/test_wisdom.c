/* Wisdom and the measuring planner.
 *
 *   hyfft_unit_wisdom            the text format (round trip, strict errors
 *                                with line numbers, other generator versions
 *                                skipped, all-or-nothing import), files, and
 *                                an ESTIMATE plan on the CPU picking it up;
 *   hyfft_unit_wisdom --opencl   a HYFFT_MEASURE plan on OpenCL (exit 77
 *                                without a device): it measures, passes the
 *                                accuracy check against a direct DFT, and
 *                                leaves wisdom that the next plan uses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"
#include "planner/wisdom.h"

static char *export_text(void) {
  size_t need = 0;
  hyfft_wisdom_export_string(NULL, 0, &need);
  char *buf = malloc(need + 1);
  CHECK_OK(hyfft_wisdom_export_string(buf, need + 1, NULL));
  return buf;
}

/* Import must fail with INVALID_WISDOM, name line `line`, and leave the
 * table as it was. */
static void expect_bad(const char *text, int line, const char *what) {
  int before = hy_wisdom_count();
  CHECK_STATUS(hyfft_wisdom_import_string(text), HYFFT_INVALID_WISDOM);
  char tag[32];
  snprintf(tag, sizeof tag, "string:%d:", line);
  CHECK(strstr(hyfft_last_error(), tag) != NULL, "%s: message '%s' lacks '%s'", what,
        hyfft_last_error(), tag);
  CHECK(hy_wisdom_count() == before, "%s: a failed import changed the table", what);
}

static void test_text(void) {
  hyfft_wisdom_forget();
  char good[1024];
  snprintf(good, sizeof good,
           "hyfft-wisdom 1\n"
           "# comment\n"
           "\n"
           "%d c2c:f32:fwd:64:b4 axis-passes tdiv=2 Some Device 9000\n"
           "%d c2c:f64:bwd:16x8 axis-passes - Some Device 9000\n"
           "%d c2c:f32:fwd:128 axis-passes tmul=2 Some Device 9000\n"
           "999 whatever goes here in a future format\n",
           HY_CODEGEN_VERSION, HY_CODEGEN_VERSION, HY_CODEGEN_VERSION - 1);
  CHECK_OK(hyfft_wisdom_import_string(good));
  CHECK(hy_wisdom_count() == 2, "other generator versions are skipped: %d entries", hy_wisdom_count());
  hy_wisdom_value v;
  CHECK(hy_wisdom_lookup("c2c:f32:fwd:64:b4", "Some Device 9000", &v) &&
            strcmp(v.spec, "tdiv=2") == 0 && strcmp(v.solver, "axis-passes") == 0,
        "entry 1 read back");
  CHECK(hy_wisdom_lookup("c2c:f64:bwd:16x8", "Some Device 9000", &v) && v.spec[0] == 0,
        "'-' is the model's variant");
  CHECK(!hy_wisdom_lookup("c2c:f32:fwd:64:b4", "Other Device", &v), "keyed by device");

  /* Round trip: export, forget, import, export again: same text. */
  char *a = export_text();
  hyfft_wisdom_forget();
  CHECK(hy_wisdom_count() == 0, "forget empties the table");
  CHECK_OK(hyfft_wisdom_import_string(a));
  char *b = export_text();
  CHECK(strcmp(a, b) == 0, "round trip:\n%s---\n%s", a, b);
  free(b);

  /* Importing again replaces entries of the same key, adds none. */
  CHECK_OK(hyfft_wisdom_import_string(a));
  CHECK(hy_wisdom_count() == 2, "re-import keeps 2 entries, has %d", hy_wisdom_count());
  free(a);

  char bad[512];
  expect_bad("", 1, "empty");
  expect_bad("hyfft-wisdom\n", 1, "header without format");
  expect_bad("hyfft-wisdom 4\n", 1, "unknown format");
  expect_bad("fftw-wisdom 1\n", 1, "wrong header");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f33:fwd:64 axis-passes - D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "bad token");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n#\n%d c2c:f32:fwd:64 no-such-solver - D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 3, "unknown solver");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 axis-passes bogus=1 D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "unknown variant key");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 axis-passes pad=1,,split=1 D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "empty variant field");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 axis-passes -\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "no device");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 axis-passes - D\nx c2c:f32:fwd:64 axis-passes - D\n",
           HY_CODEGEN_VERSION);
  expect_bad(bad, 3, "bad version field (and the good line 2 not kept)");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d  c2c:f32:fwd:64 axis-passes - D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "double space");
  /* A device name of control characters (here a second carriage return
   * past the CRLF's, found by fuzz_wisdom: it exported as a line that did
   * not import again). */
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 axis-passes tdiv=2,mmul=2 \r\r\n",
           HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a carriage return as the device name");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 axis-passes - D\tX\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a tab in the device name");
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\r\n%d c2c:f32:fwd:64 axis-passes - Dev 1\r\n", HY_CODEGEN_VERSION);
  CHECK_OK(hyfft_wisdom_import_string(bad)); /* CRLF lines, a space inside the name */
  hyfft_wisdom_forget();
  CHECK_STATUS(hyfft_wisdom_import_string(NULL), HYFFT_NULL_POINTER);

  /* Format 2 adds hybrid shares; a table without shares still exports as
   * format 1 (readable by libraries that know only it), and a share line
   * in a format 1 text is refused with the reason. */
  hyfft_wisdom_forget();
  snprintf(good, sizeof good, "hyfft-wisdom 1\n%d c2c:f32:fwd:64:b4 axis-passes - D\n",
           HY_CODEGEN_VERSION);
  CHECK_OK(hyfft_wisdom_import_string(good));
  char *one = export_text();
  CHECK(one && strncmp(one, "hyfft-wisdom 1\n", 15) == 0, "no shares, format 1:\n%s",
        one ? one : "(none)");
  free(one);
  snprintf(good, sizeof good, "hyfft-wisdom 2\n%d c2c:f32:fwd:64:b4 share 0.25 Some Device\n"
           "%d c2c:f32:fwd:64:b4 axis-passes - Some Device\n", HY_CODEGEN_VERSION, HY_CODEGEN_VERSION);
  CHECK_OK(hyfft_wisdom_import_string(good));
  double share = -1;
  CHECK(hy_wisdom_lookup_share("c2c:f32:fwd:64:b4", "Some Device", &share, NULL) && share == 0.25,
        "share read back: %g", share);
  CHECK(hy_wisdom_lookup("c2c:f32:fwd:64:b4", "Some Device", &v) && strcmp(v.solver, "axis-passes") == 0,
        "a share and a plan entry of one problem live side by side");
  CHECK(!hy_wisdom_lookup_share("c2c:f32:fwd:64:b4", "D", &share, NULL), "share keyed by device");
  char *two = export_text();
  CHECK(two && strncmp(two, "hyfft-wisdom 2\n", 15) == 0 && strstr(two, " share 0.25 Some Device\n"),
        "shares export as format 2:\n%s", two ? two : "(none)");
  hyfft_wisdom_forget();
  if (two) CHECK_OK(hyfft_wisdom_import_string(two));
  CHECK(hy_wisdom_count() == 3, "round trip with shares: %d entries", hy_wisdom_count());
  free(two);
  snprintf(bad, sizeof bad, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 share 0.5 D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a share in format 1");
  CHECK(strstr(hyfft_last_error(), "format 2") != NULL, "message: %s", hyfft_last_error());
  snprintf(bad, sizeof bad, "hyfft-wisdom 2\n%d c2c:f32:fwd:64 share 1.5 D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a share above 1");
  snprintf(bad, sizeof bad, "hyfft-wisdom 2\n%d c2c:f32:fwd:64 share x D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a share that is no number");
  snprintf(bad, sizeof bad, "hyfft-wisdom 2\n%d c2c:f32:fwd:64 share 0.5\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a share without a device");

  /* Format 3 adds a share for page-locked host data ('-': none); a format 2
   * share line reads as the pageable share with none for page-locked data,
   * and export writes format 3 only once a page-locked share is known. */
  hyfft_wisdom_forget();
  double pinned = 7;
  snprintf(good, sizeof good, "hyfft-wisdom 2\n%d c2c:f32:fwd:64:b4 share 0.25 Some Device\n",
           HY_CODEGEN_VERSION);
  CHECK_OK(hyfft_wisdom_import_string(good));
  CHECK(hy_wisdom_lookup_share("c2c:f32:fwd:64:b4", "Some Device", &share, &pinned) &&
            share == 0.25 && pinned == -1,
        "format 2 share read as %g and %g", share, pinned);
  snprintf(good, sizeof good, "hyfft-wisdom 3\n%d c2c:f32:fwd:64:b4 share 0.5 0.125 Some Device\n"
           "%d c2c:f32:fwd:64:b8 share 0.75 - Other Device\n", HY_CODEGEN_VERSION,
           HY_CODEGEN_VERSION);
  CHECK_OK(hyfft_wisdom_import_string(good));
  CHECK(hy_wisdom_lookup_share("c2c:f32:fwd:64:b4", "Some Device", &share, &pinned) &&
            share == 0.5 && pinned == 0.125,
        "format 3 replaces the entry: %g and %g", share, pinned);
  CHECK(hy_wisdom_lookup_share("c2c:f32:fwd:64:b8", "Other Device", &share, &pinned) &&
            share == 0.75 && pinned == -1,
        "format 3 '-': %g and %g", share, pinned);
  char *three = export_text();
  CHECK(three && strncmp(three, "hyfft-wisdom 3\n", 15) == 0 &&
            strstr(three, " share 0.5 0.125 Some Device\n") &&
            strstr(three, " share 0.75 - Other Device\n"),
        "both shares export as format 3:\n%s", three ? three : "(none)");
  hyfft_wisdom_forget();
  if (three) CHECK_OK(hyfft_wisdom_import_string(three));
  CHECK(hy_wisdom_lookup_share("c2c:f32:fwd:64:b4", "Some Device", &share, &pinned) &&
            share == 0.5 && pinned == 0.125 && hy_wisdom_count() == 2,
        "format 3 round trip: %g and %g, %d entries", share, pinned, hy_wisdom_count());
  free(three);
  /* Without a page-locked share the table still exports as format 2. */
  hyfft_wisdom_forget();
  CHECK_OK(hy_wisdom_store_share("c2c:f32:fwd:64:b4", "D", 0.5, -1));
  char *two_again = export_text();
  CHECK(two_again && strncmp(two_again, "hyfft-wisdom 2\n", 15) == 0 &&
            strstr(two_again, " share 0.5 D\n"),
        "no page-locked share, format 2:\n%s", two_again ? two_again : "(none)");
  free(two_again);
  snprintf(bad, sizeof bad, "hyfft-wisdom 3\n%d c2c:f32:fwd:64 share 0.5 x D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a page-locked share that is no number");
  CHECK(strstr(hyfft_last_error(), "page-locked") != NULL, "message: %s", hyfft_last_error());
  snprintf(bad, sizeof bad, "hyfft-wisdom 3\n%d c2c:f32:fwd:64 share 0.5 1.5 D\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "a page-locked share above 1");
  snprintf(bad, sizeof bad, "hyfft-wisdom 3\n%d c2c:f32:fwd:64 share 0.5 0.5\n", HY_CODEGEN_VERSION);
  expect_bad(bad, 2, "format 3 shares without a device");
  hyfft_wisdom_forget();
}

/* Relative RMS error of out against a long-double DFT (forward) of in:
 * `batch` interleaved complex transforms of n points, back to back. */
static double dft_rel_rms(const double *in, const double *out, int n, int batch) {
  double num = 0, den = 0;
  for (int b = 0; b < batch; b++)
    for (int k = 0; k < n; k++) {
      long double re = 0, im = 0;
      for (int j = 0; j < n; j++) {
        long double ang = -2.0L * 3.14159265358979323846264338327950288L * j * k / n;
        long double xr = in[2 * (b * n + j)], xi = in[2 * (b * n + j) + 1];
        re += xr * cosl(ang) - xi * sinl(ang);
        im += xr * sinl(ang) + xi * cosl(ang);
      }
      double dr = out[2 * (b * n + k)] - (double)re, di = out[2 * (b * n + k) + 1] - (double)im;
      num += dr * dr + di * di;
      den += (double)(re * re + im * im);
    }
  return sqrt(num / den);
}

/* Files, and an ESTIMATE plan whose problem has wisdom. */
static void test_cpu(void) {
  hyfft_context ctx;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  hyfft_device_info dev;
  CHECK_OK(hyfft_context_device(ctx, &dev));
  hyfft_wisdom_forget();
  char text[512];
  snprintf(text, sizeof text, "hyfft-wisdom 1\n%d c2c:f32:fwd:64 axis-passes pad=0 %s\n",
           HY_CODEGEN_VERSION, dev.name);
  CHECK_OK(hyfft_wisdom_import_string(text));
  const char *path = "test_wisdom.tmp";
  CHECK_OK(hyfft_wisdom_export_file(ctx, path));
  hyfft_wisdom_forget();
  CHECK_OK(hyfft_wisdom_import_file(ctx, path));
  CHECK(hy_wisdom_count() == 1, "file round trip: %d entries", hy_wisdom_count());
  remove(path);
  CHECK_STATUS(hyfft_wisdom_import_file(ctx, "/nonexistent/dir/w"), HYFFT_IO_ERROR);

  hyfft_plan plan;
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:64", HYFFT_ESTIMATE, &plan));
  hyfft_tune_info info;
  CHECK_OK(hyfft_last_tune_info(&info));
  CHECK(info.from_wisdom && strcmp(info.variant, "pad=0") == 0, "plan used wisdom (%d, '%s')",
        info.from_wisdom, info.variant);
  char desc[4096];
  CHECK_OK(hyfft_plan_describe(plan, desc, sizeof desc, NULL));
  CHECK(strstr(desc, "kernel variant pad=0") != NULL, "describe shows the variant:\n%s", desc);
  hyfft_plan_destroy(plan);
  /* MEASURE on the CPU: where no candidate differs from the model's plan
   * (a power of two: Rader or not is the same plan) nothing is timed... */
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:32", HYFFT_MEASURE, &plan));
  CHECK_OK(hyfft_last_tune_info(&info));
  CHECK(!info.measured && !info.from_wisdom, "CPU MEASURE of 32 points times nothing");
  hyfft_plan_destroy(plan);
  /* ... a prime times Rader against Bluestein, keeps the faster, gives
   * the right transform and leaves wisdom that the next plan uses. */
  const int n = 97, batch = 3;
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f64:fwd:97:b3", HYFFT_MEASURE, &plan));
  CHECK_OK(hyfft_last_tune_info(&info));
  CHECK(info.measured && info.variants_tried >= 2 && info.variants_rejected == 0 &&
            info.best_seconds > 0 && info.best_seconds <= info.default_seconds,
        "CPU MEASURE of a prime: measured %d, tried %d, rejected %d, %g <= %g s", info.measured,
        info.variants_tried, info.variants_rejected, info.best_seconds, info.default_seconds);
  double in[2 * 97 * 3], out[2 * 97 * 3];
  for (int i = 0; i < 2 * n * batch; i++) in[i] = sin(0.37 * i + 0.1 * (i % 7));
  CHECK_OK(hyfft_execute(plan, in, out));
  double err = dft_rel_rms(in, out, n, batch);
  CHECK(err < 1e-14, "CPU MEASURE plan of 97 points: rel RMS %g", err);
  hyfft_plan_destroy(plan);
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f64:fwd:97:b3", HYFFT_ESTIMATE, &plan));
  CHECK_OK(hyfft_last_tune_info(&info));
  CHECK(info.from_wisdom, "the measured choice is wisdom for the next plan");
  hyfft_plan_destroy(plan);
  hyfft_context_destroy(ctx);
  hyfft_wisdom_forget();
}

static int test_opencl(void) {
  hyfft_context ctx;
  if (hyfft_context_create("opencl", &ctx) != HYFFT_SUCCESS) {
    printf("no OpenCL device: skipped\n");
    return 77;
  }
  hyfft_wisdom_forget();
  const char *token = "c2c:f32:fwd:32:b2";
  const int n = 32, batch = 2;
  hyfft_plan plan;
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_MEASURE, &plan));
  hyfft_tune_info info;
  CHECK_OK(hyfft_last_tune_info(&info));
  CHECK(info.measured && info.variants_tried >= 2 && info.best_seconds > 0 &&
            info.best_seconds <= info.default_seconds,
        "measured: tried %d, rejected %d, %g <= %g s", info.variants_tried,
        info.variants_rejected, info.best_seconds, info.default_seconds);
  printf("measure %s: variant '%s', tried %d, rejected %d, default %.4g ms, best %.4g ms\n",
         token, info.variant, info.variants_tried, info.variants_rejected,
         info.default_seconds * 1e3, info.best_seconds * 1e3);
  float in[2 * 32 * 2], out[2 * 32 * 2];
  for (int i = 0; i < 2 * n * batch; i++) in[i] = (float)sin(0.37 * i + 0.1 * (i % 7));
  CHECK_OK(hyfft_execute(plan, in, out));
  double din[2 * 32 * 2], dout[2 * 32 * 2];
  for (int i = 0; i < 2 * n * batch; i++) {
    din[i] = in[i];
    dout[i] = out[i];
  }
  double err = dft_rel_rms(din, dout, n, batch), tol = 5.0 * ldexp(1.0, -24) * sqrt(log2(n));
  CHECK(err <= tol, "measured plan accuracy %.3g > %.3g", err, tol);
  hyfft_plan_destroy(plan);
  /* The choice is wisdom now: the next ESTIMATE plan takes it. */
  CHECK(hy_wisdom_count() == 1, "one wisdom entry, have %d", hy_wisdom_count());
  CHECK_OK(hyfft_plan_token(ctx, token, HYFFT_ESTIMATE, &plan));
  hyfft_tune_info again;
  CHECK_OK(hyfft_last_tune_info(&again));
  CHECK(again.from_wisdom && strcmp(again.variant, info.variant) == 0, "wisdom reused");
  hyfft_plan_destroy(plan);
  hyfft_context_destroy(ctx);
  return 0;
}

int main(int argc, char **argv) {
  int rc = 0;
  if (argc > 1 && strcmp(argv[1], "--opencl") == 0) {
    rc = test_opencl();
    if (rc == 77) return 77;
  } else {
    test_text();
    test_cpu();
  }
  return hy_test_summary();
}
