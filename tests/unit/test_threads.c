/* The worker pool's readiness check (util/threads.c,
 * hy_parallel_ready_set): a helper whose check says no takes no part of a
 * range, the parts go to the others and to the calling thread, and every
 * index runs exactly once; through the pool and through a caller's own
 * parallel loop whose jobs all run on threads of their own. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/hy_util.h"

enum { COUNT = 4000 };

typedef struct loop_data {
  pthread_t caller;
  _Atomic int runs[COUNT];
  _Atomic int off_caller; /* indices run on a thread other than the caller */
  _Atomic int asked;      /* readiness checks made */
  int nested;             /* each range also runs a nested loop */
} loop_data;

static void nested_range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  _Atomic int *sum = arg;
  atomic_fetch_add(sum, (int)(end - begin));
}

static void range(void *arg, int64_t begin, int64_t end, int thread_index) {
  (void)thread_index;
  loop_data *d = arg;
  for (int64_t i = begin; i < end; i++) {
    atomic_fetch_add(&d->runs[i], 1);
    if (!pthread_equal(pthread_self(), d->caller)) atomic_fetch_add(&d->off_caller, 1);
    /* A little work, so that the helpers wake while the range lasts. */
    volatile double x = 1;
    for (int k = 0; k < 200; k++) x = x * 1.0000001 + 1e-9;
    if (d->nested) {
      _Atomic int sum = 0;
      hy_parallel_for(16, 1, nested_range, &sum);
      if (atomic_load(&sum) != 16) atomic_fetch_add(&d->runs[i], 1000);
    }
  }
}

static int never_ready(const void *data) {
  loop_data *d = (loop_data *)data;
  atomic_fetch_add(&d->asked, 1);
  return 0;
}

static int always_ready(const void *data) {
  loop_data *d = (loop_data *)data;
  atomic_fetch_add(&d->asked, 1);
  return 1;
}

/* The first helper to ask is refused, the others are let in. */
static int first_refused(const void *data) {
  loop_data *d = (loop_data *)data;
  return atomic_fetch_add(&d->asked, 1) > 0;
}

static void run_loop(loop_data *d, int (*ready)(const void *), int nested) {
  memset(d, 0, sizeof *d);
  d->caller = pthread_self();
  d->nested = nested;
  hy_parallel_ready old = hy_parallel_ready_set((hy_parallel_ready){ready, d});
  hy_parallel_for(COUNT, 1, range, d);
  hy_parallel_ready back = hy_parallel_ready_set(old);
  CHECK(back.fn == ready && back.data == d, "hy_parallel_ready_set did not return the setting");
}

static int each_once(const loop_data *d) {
  for (int i = 0; i < COUNT; i++)
    if (atomic_load(&d->runs[i]) != 1) return 0;
  return 1;
}

/* A caller's parallel loop that runs every job on a thread of its own. */
typedef struct hook_arg {
  void *(*work)(char *);
  char *p;
} hook_arg;

static void *hook_thread(void *v) {
  hook_arg *a = v;
  return a->work(a->p);
}

static void own_threads_loop(void *(*work)(char *), char *jobdata, size_t elsize, int njobs,
                             void *data) {
  (void)data;
  pthread_t t[64];
  hook_arg a[64];
  int started = 0;
  for (int i = 0; i < njobs && i < 64; i++) {
    a[i] = (hook_arg){work, jobdata + (size_t)i * elsize};
    if (pthread_create(&t[i], NULL, hook_thread, &a[i]) == 0) started++;
    else work(a[i].p);
    if (started != i + 1) break;
  }
  for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
  for (int i = started; i < njobs; i++) work(jobdata + (size_t)i * elsize);
}

int main(void) {
  static loop_data d;
  hy_set_num_threads(4);

  run_loop(&d, never_ready, 0);
  CHECK(each_once(&d), "pool, helpers refused: an index ran other than once");
  CHECK(atomic_load(&d.off_caller) == 0, "pool, helpers refused: %d indices ran on a helper",
        atomic_load(&d.off_caller));

  run_loop(&d, always_ready, 0);
  CHECK(each_once(&d), "pool, helpers ready: an index ran other than once");

  run_loop(&d, first_refused, 0);
  CHECK(each_once(&d), "pool, one helper refused: an index ran other than once");

  run_loop(&d, never_ready, 1);
  CHECK(each_once(&d), "pool, helpers refused, nested loops: an index ran other than once");
  CHECK(atomic_load(&d.off_caller) == 0, "pool, nested loops: %d indices ran on a helper",
        atomic_load(&d.off_caller));

  /* The caller's own loop runs none of its jobs on the calling thread:
   * refused everywhere, the calling thread runs the whole range after. */
  hy_set_parallel_loop(own_threads_loop, NULL);
  run_loop(&d, never_ready, 0);
  CHECK(each_once(&d), "caller's loop, jobs refused: an index ran other than once");
  CHECK(atomic_load(&d.off_caller) == 0, "caller's loop, jobs refused: %d indices off the caller",
        atomic_load(&d.off_caller));
  CHECK(atomic_load(&d.asked) == 4, "caller's loop: %d readiness checks for 4 jobs",
        atomic_load(&d.asked));
  run_loop(&d, always_ready, 0);
  CHECK(each_once(&d), "caller's loop, jobs ready: an index ran other than once");
  CHECK(atomic_load(&d.off_caller) == COUNT, "caller's loop, jobs ready: %d indices off the caller",
        atomic_load(&d.off_caller));
  hy_set_parallel_loop(NULL, NULL);

  /* No setting: loops run as before. */
  memset(&d, 0, sizeof d);
  d.caller = pthread_self();
  hy_parallel_for(COUNT, 1, range, &d);
  CHECK(each_once(&d), "no readiness check: an index ran other than once");
  return hy_test_summary();
}
