/* Several user threads executing CPU plans at once, each allowed 2 worker
 * threads (HYFFT_NUM_THREADS=2): every execution must give the bits of a
 * lone execution, and all must finish (CTest's timeout catches a hang or
 * a collapse into seconds per call, as spinning thread teams once gave).
 * How long the concurrent runs took against one alone is printed, not
 * gated: on a shared 2-core CI machine 4 x 2 threads cannot keep one
 * execution's pace; two plans also run from 8 user threads at once. Also
 * plans created, run and destroyed from several
 * threads on one shared context, and a nested case: a plan executed from
 * inside another hyfft parallel loop's callback must not deadlock. Then
 * the same concurrent runs through a caller's own parallel loop
 * (hy_set_parallel_loop, as fftw_threads_set_callback sets it) that
 * starts a thread per job. The ThreadSanitizer step of the README's test
 * command runs this test. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hyfft.h"
#include "util/hy_util.h"

#define USERS 4
#define MAX_USERS 8
#define REPS 4

typedef struct user {
  hyfft_plan plan;
  const float *in;
  const float *want;
  size_t in_floats, out_floats;
  int bad;
} user;

static void *user_thread(void *v) {
  user *u = v;
  float *in = malloc(u->in_floats * sizeof *in), *out = malloc(u->out_floats * sizeof *out);
  for (int r = 0; r < REPS && in && out; r++) {
    memcpy(in, u->in, u->in_floats * sizeof *in);
    memset(out, 0xff, u->out_floats * sizeof *out);
    if (hyfft_execute(u->plan, in, out) != HYFFT_SUCCESS ||
        memcmp(out, u->want, u->out_floats * sizeof *out) != 0)
      u->bad++;
  }
  if (!in || !out) u->bad++;
  free(in);
  free(out);
  return NULL;
}

static void concurrent(hyfft_context ctx, const char *token, size_t in_floats,
                       size_t out_floats, int nusers) {
  hyfft_plan plan = NULL;
  CHECK_OK(hyfft_plan_token(ctx, token, 0, &plan));
  if (!plan) return;
  float *in = malloc(in_floats * sizeof *in), *want = malloc(out_floats * sizeof *want);
  float *scratch = malloc(in_floats * sizeof *scratch);
  unsigned seed = 17;
  for (size_t i = 0; i < in_floats; i++) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  memcpy(scratch, in, in_floats * sizeof *in);
  CHECK_OK(hyfft_execute(plan, scratch, want));
  double t0 = hy_now();
  for (int r = 0; r < REPS; r++) {
    memcpy(scratch, in, in_floats * sizeof *in);
    CHECK_OK(hyfft_execute(plan, scratch, want));
  }
  double alone = (hy_now() - t0) / REPS;
  user users[MAX_USERS];
  pthread_t t[MAX_USERS];
  t0 = hy_now();
  for (int i = 0; i < nusers; i++) {
    users[i] = (user){plan, in, want, in_floats, out_floats, 0};
    pthread_create(&t[i], NULL, user_thread, &users[i]);
  }
  for (int i = 0; i < nusers; i++) {
    pthread_join(t[i], NULL);
    CHECK(users[i].bad == 0, "%s: user thread %d: %d executions differ from a lone one", token,
          i, users[i].bad);
  }
  double together = (hy_now() - t0) / REPS;
  printf("%-28s one alone %8.3f ms, %d users at once %8.3f ms per round (%.2fx)\n", token,
         alone * 1e3, nusers, together * 1e3, together / alone);
  free(in);
  free(want);
  free(scratch);
  CHECK_OK(hyfft_plan_destroy(plan));
}

/* Plans created, executed and destroyed from several threads on one shared
 * context (different problems per thread, so planning and the caches see
 * concurrent work). */
typedef struct churn {
  hyfft_context ctx;
  int id, bad;
} churn;

static void *churn_thread(void *v) {
  churn *c = v;
  static const char *const tokens[] = {"c2c:f32:fwd:96:b8", "r2c:f64:60:b4", "c2c:f64:bwd:17x6",
                                       "c2r:f32:32:b3", "c2c:f32:fwd:1009"};
  float in[2 * 1009 * 8], out[2 * 1009 * 8];
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) in[i] = (float)((i * 5 + 1) % 11);
  for (int r = 0; r < 6; r++) {
    hyfft_plan plan = NULL;
    const char *t = tokens[(c->id + r) % 5];
    if (hyfft_plan_token(c->ctx, t, 0, &plan) != HYFFT_SUCCESS) {
      c->bad++;
      continue;
    }
    if (hyfft_execute(plan, in, out) != HYFFT_SUCCESS) c->bad++;
    if (hyfft_plan_destroy(plan) != HYFFT_SUCCESS) c->bad++;
  }
  return NULL;
}

/* A hyfft loop whose callback executes a plan: the inner loops run on the
 * calling worker, so this finishes. */
typedef struct nested {
  hyfft_plan plan;
  int bad;
} nested;

static void nested_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  nested *n = arg;
  float in[2 * 256], out[2 * 256];
  for (int64_t i = begin; i < end; i++) {
    for (int k = 0; k < 2 * 256; k++) in[k] = (float)((k * 7 + i) % 13);
    if (hyfft_execute(n->plan, in, out) != HYFFT_SUCCESS) __atomic_fetch_add(&n->bad, 1, __ATOMIC_RELAXED);
  }
}

/* A caller's parallel loop: a thread per job but the last, which runs on
 * the calling thread; every job joined before returning. */
typedef struct loop_job {
  void *(*work)(char *);
  char *arg;
} loop_job;

static void *loop_job_run(void *v) {
  loop_job *j = v;
  return j->work(j->arg);
}

static int loop_calls;

static void thread_loop(void *(*work)(char *), char *jobdata, size_t elsize, int njobs,
                        void *data) {
  (void)data;
  __atomic_fetch_add(&loop_calls, 1, __ATOMIC_RELAXED);
  pthread_t t[16];
  loop_job j[16];
  int started = 0;
  for (int i = 0; i < njobs - 1 && i < 16; i++) {
    j[i] = (loop_job){work, jobdata + elsize * (size_t)i};
    if (pthread_create(&t[i], NULL, loop_job_run, &j[i]) != 0) break;
    started++;
  }
  for (int i = started; i < njobs; i++) work(jobdata + elsize * (size_t)i);
  for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
}

int main(void) {
  setenv("HYFFT_NUM_THREADS", "2", 1);
  hyfft_context ctx = NULL;
  CHECK_OK(hyfft_context_create("cpu", &ctx));
  if (!ctx) return hy_test_summary();
  concurrent(ctx, "c2c:f32:fwd:4096:b256", 2 * 4096 * 256, 2 * 4096 * 256, USERS);
  /* One plan from 8 threads at once: a small one, and a batch the CPU
   * runs chunk by chunk (its sub-plans shared by all eight). */
  concurrent(ctx, "c2c:f32:fwd:128:b64", 2 * 128 * 64, 2 * 128 * 64, MAX_USERS);
  concurrent(ctx, "r2c:f32:256:b8192", 256 * 8192, 2 * 129 * 8192, MAX_USERS);
  concurrent(ctx, "c2c:f32:fwd:64:b4096", 2 * 64 * 4096, 2 * 64 * 4096, USERS);
  concurrent(ctx, "r2c:f32:1000:b300", 1000 * 300, 2 * 501 * 300, USERS);
  concurrent(ctx, "c2c:f32:fwd:10007:b64", 2 * 10007 * 64, 2 * 10007 * 64, USERS); /* Bluestein */
  {
    churn c[USERS];
    pthread_t t[USERS];
    for (int i = 0; i < USERS; i++) {
      c[i] = (churn){ctx, i, 0};
      pthread_create(&t[i], NULL, churn_thread, &c[i]);
    }
    for (int i = 0; i < USERS; i++) {
      pthread_join(t[i], NULL);
      CHECK(c[i].bad == 0, "churn thread %d: %d failed calls", i, c[i].bad);
    }
  }
  nested n = {NULL, 0};
  CHECK_OK(hyfft_plan_token(ctx, "c2c:f32:fwd:256:b1", 0, &n.plan));
  if (n.plan) {
    hy_parallel_for(64, 1, nested_range, &n);
    CHECK(n.bad == 0, "%d nested executions failed", n.bad);
    CHECK_OK(hyfft_plan_destroy(n.plan));
  }
  /* The caller's loop: the same bits from several user threads at once. */
  hy_set_parallel_loop(thread_loop, NULL);
  concurrent(ctx, "c2c:f32:fwd:4096:b256", 2 * 4096 * 256, 2 * 4096 * 256, USERS);
  concurrent(ctx, "r2c:f32:1000:b300", 1000 * 300, 2 * 501 * 300, USERS);
  hy_set_parallel_loop(NULL, NULL);
  CHECK(loop_calls > 0, "the caller's parallel loop was never called");
  CHECK_OK(hyfft_context_destroy(ctx));
  return hy_test_summary();
}
