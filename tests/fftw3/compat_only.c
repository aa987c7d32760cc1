/* What hyfft's FFTW3 library does differently from FFTW, checked against
 * itself (linked with libhyfft_fftw3 only): halfcomplex r2r whose
 * per-axis plans would need more than 8 howmany dims returns NULL with
 * hyfft_last_error() saying why, rank-4 r2r and split arrays plan; bad ranks
 * give NULL; FFTW_WISDOM_ONLY plans only problems wisdom knows; a plan
 * made after wisdom for it was imported is one; fftw_cleanup with no live
 * plan and planning again work; a caller's parallel loop
 * (fftw_threads_set_callback) that runs the jobs on threads of its own
 * gives the bits of hyfft's own workers. */
#define _POSIX_C_SOURCE 200809L
#include <fftw3.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "hyfft.h"

static int failures;

#define EXPECT(cond, ...)                \
  do {                                   \
    if (!(cond)) {                       \
      printf("FAIL line %d: ", __LINE__); \
      printf(__VA_ARGS__);               \
      printf("\n");                      \
      failures++;                        \
    }                                    \
  } while (0)

/* FFTW's read_char_func over a string: *data points at the next char. */
static int read_text(void *data) {
  const char **p = data;
  return **p ? (unsigned char)*(*p)++ : EOF;
}

/* A caller's parallel loop on threads of its own: one thread per job
 * (the last job on the calling thread), all joined before returning. */
typedef struct job_thread {
  void *(*work)(char *);
  char *arg;
} job_thread;

static void *job_thread_run(void *v) {
  job_thread *j = v;
  return j->work(j->arg);
}

static int thread_loop_calls;

static void thread_loop(void *(*work)(char *), char *jobdata, size_t elsize, int njobs,
                        void *data) {
  (void)data;
  thread_loop_calls++;
  pthread_t t[64];
  job_thread j[64];
  int started = 0;
  for (int i = 0; i < njobs - 1 && i < 64; i++) {
    j[i] = (job_thread){work, jobdata + elsize * (size_t)i};
    if (pthread_create(&t[i], NULL, job_thread_run, &j[i]) != 0) break;
    started++;
  }
  for (int i = started; i < njobs; i++) work(jobdata + elsize * (size_t)i);
  for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
}

/* The same 2-thread plan run by hyfft's workers and by thread_loop. */
static void callback_threads(void) {
  const int n0 = 128, n1 = 384;
  fftw_complex *in = fftw_alloc_complex((size_t)n0 * n1), *a = fftw_alloc_complex((size_t)n0 * n1),
               *b = fftw_alloc_complex((size_t)n0 * n1);
  EXPECT(in && a && b, "no memory");
  if (!in || !a || !b) return;
  for (int i = 0; i < n0 * n1; i++) {
    in[i][0] = (double)((i * 37) % 101) / 101.0 - 0.5;
    in[i][1] = (double)((i * 53) % 89) / 89.0 - 0.5;
  }
  fftw_plan_with_nthreads(2);
  fftw_plan p = fftw_plan_dft_2d(n0, n1, in, a, FFTW_FORWARD, FFTW_ESTIMATE);
  EXPECT(p != NULL, "2D plan with 2 threads: %s", hyfft_last_error());
  if (p) {
    fftw_execute(p);
    fftw_threads_set_callback(thread_loop, NULL);
    for (int r = 0; r < 3; r++) fftw_execute_dft(p, in, b);
    fftw_threads_set_callback(NULL, NULL);
    EXPECT(thread_loop_calls > 0, "the caller's parallel loop was never called");
    EXPECT(memcmp(a, b, sizeof(fftw_complex) * (size_t)(n0 * n1)) == 0,
           "the caller's parallel loop gave other bits than hyfft's workers");
    fftw_destroy_plan(p);
  }
  fftw_plan_with_nthreads(1);
  fftw_free(in);
  fftw_free(a);
  fftw_free(b);
}

int main(void) {
  double *r = fftw_alloc_real(64);
  fftw_complex *c = fftw_alloc_complex(64);
  if (!r || !c) return 1;
  /* r2r: the DCT/DST/DHT kinds plan, rank 4 included, and the
   * halfcomplex kinds (manual_r2r compares them with FFTW). */
  fftw_plan p = fftw_plan_r2r_1d(64, r, r, FFTW_REDFT10, FFTW_ESTIMATE);
  EXPECT(p != NULL, "no DCT-II plan: %s", hyfft_last_error());
  if (p) fftw_destroy_plan(p);
  /* Halfcomplex kinds in 8 dims with 1 howmany dim: 7 + 1 howmany dims
   * per axis plan fit; with 2 howmany dims they do not, said by name. */
  fftw_r2r_kind hc8[8] = {FFTW_R2HC, FFTW_R2HC, FFTW_R2HC, FFTW_R2HC,
                          FFTW_R2HC, FFTW_R2HC, FFTW_R2HC, FFTW_R2HC};
  fftw_iodim d8[8], h2[2] = {{2, 256, 256}, {2, 512, 512}};
  for (int i = 0; i < 8; i++) d8[i] = (fftw_iodim){2, 1 << (7 - i), 1 << (7 - i)};
  p = fftw_plan_guru_r2r(8, d8, 2, h2, r, r, hc8, FFTW_ESTIMATE);
  EXPECT(p == NULL && strstr(hyfft_last_error(), "halfcomplex") != NULL,
         "8D R2HC plan with 2 howmany dims, or its message: %s", hyfft_last_error());
  int n4[4] = {2, 2, 2, 2};
  fftw_r2r_kind k4[4] = {FFTW_REDFT10, FFTW_REDFT10, FFTW_REDFT10, FFTW_REDFT10};
  p = fftw_plan_r2r(4, n4, r, r, k4, FFTW_ESTIMATE);
  EXPECT(p != NULL, "rank-4 r2r: %s", hyfft_last_error());
  if (p) fftw_destroy_plan(p);
  /* Split arrays plan (manual_dft compares them with FFTW); a split
   * execute on a plan of interleaved arrays says why it does nothing. */
  fftw_iodim d = {32, 1, 1};
  p = fftw_plan_guru_split_dft(1, &d, 0, NULL, r, r + 32, r, r + 32, FFTW_ESTIMATE);
  EXPECT(p != NULL, "split plan: %s", hyfft_last_error());
  if (p) fftw_destroy_plan(p);
  p = fftw_plan_dft_1d(16, c, c, FFTW_FORWARD, FFTW_ESTIMATE);
  if (p) {
    fftw_execute_split_dft(p, r, r + 16, r, r + 16);
    EXPECT(strstr(hyfft_last_error(), "split") != NULL, "split execute of a plain plan: %s",
           hyfft_last_error());
    fftw_destroy_plan(p);
  }
  int n[1] = {-4};
  p = fftw_plan_dft(1, n, c, c, FFTW_FORWARD, FFTW_ESTIMATE);
  EXPECT(p == NULL, "a plan for length -4");
  int big[12] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
  p = fftw_plan_dft(12, big, c, c, FFTW_FORWARD, FFTW_ESTIMATE);
  EXPECT(p == NULL && hyfft_last_error()[0], "rank 12: a plan, or no message");
  /* WISDOM_ONLY: nothing known yet, then known after measuring. */
  fftw_forget_wisdom();
  p = fftw_plan_dft_1d(48, c, c, FFTW_FORWARD, FFTW_WISDOM_ONLY);
  EXPECT(p == NULL, "FFTW_WISDOM_ONLY planned a problem without wisdom");
  fftw_plan m = fftw_plan_dft_1d(48, c, c, FFTW_FORWARD, FFTW_MEASURE);
  EXPECT(m != NULL, "measured plan: %s", hyfft_last_error());
  if (m) fftw_destroy_plan(m);
  /* Wisdom through a file and through a read_char function. */
  char path[] = "/tmp/hyfft-fftw3-wisdom-XXXXXX";
  int fd = mkstemp(path);
  EXPECT(fd >= 0, "mkstemp");
  if (fd >= 0) {
    close(fd);
    EXPECT(fftw_export_wisdom_to_filename(path) == 1, "export to %s", path);
    EXPECT(fftw_import_wisdom_from_filename(path) == 1, "import from %s: %s", path,
           hyfft_last_error());
    remove(path);
  }
  EXPECT(fftw_import_wisdom_from_filename("/nonexistent/w") == 0, "import from a missing file");
  const char *text = "hyfft-wisdom 1\n";
  EXPECT(fftw_import_wisdom(read_text, &text) == 1, "import_wisdom: %s", hyfft_last_error());
  const char *bad = "not wisdom\n";
  EXPECT(fftw_import_wisdom(read_text, &bad) == 0, "import_wisdom took malformed text");
  fftw_cleanup();
  p = fftw_plan_dft_1d(16, c, c, FFTW_FORWARD, FFTW_ESTIMATE);
  EXPECT(p != NULL, "planning after fftw_cleanup: %s", hyfft_last_error());
  if (p) fftw_destroy_plan(p);
  /* Unlike FFTW, a multi-dimensional C2R can preserve its input. */
  fftw_complex *h = fftw_alloc_complex(8 * 5), *h_copy = fftw_alloc_complex(8 * 5);
  double *o = fftw_alloc_real(64);
  if (!h || !h_copy || !o) return 1;
  for (int i = 0; i < 40; i++) h[i][0] = h[i][1] = 0.01 * i;
  memcpy(h_copy, h, sizeof(fftw_complex) * 40);
  p = fftw_plan_dft_c2r_2d(8, 8, h, o, FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  EXPECT(p != NULL, "2D C2R with FFTW_PRESERVE_INPUT: %s", hyfft_last_error());
  if (p) {
    fftw_execute(p);
    EXPECT(memcmp(h, h_copy, sizeof(fftw_complex) * 40) == 0, "the preserved input changed");
    fftw_destroy_plan(p);
  }
  fftw_free(h);
  fftw_free(h_copy);
  fftw_free(o);
  fftw_free(r);
  fftw_free(c);
  callback_threads();
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
