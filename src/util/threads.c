/* Parallel loops over independent work on hyfft's own pool of worker
 * threads (below), the thread counts that size them, and a clock. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hy_util.h"
#include "settings.h"

/* Set by hy_set_num_threads (the FFTW3 interface's plan_with_nthreads);
 * 0: not set. */
static _Atomic int hy_threads_override;

double hy_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Set by hy_set_thread_limit for the calling thread only; 0: none. */
static _Thread_local int hy_threads_local;

void hy_set_num_threads(int n) { hy_threads_override = n > 0 ? n : 0; }

int hy_set_thread_limit(int n) {
  int old = hy_threads_local;
  hy_threads_local = n > 0 ? n : 0;
  return old;
}

static int hy_num_threads_global(void) {
  int over = hy_threads_override;
  if (over > 0) return over;
  int n = hy_settings_get()->num_threads;
  if (n > 0) return n;
  /* The cores this process may run on (taskset, cgroups' cpusets). */
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (int)cores : 1;
}

int hy_num_threads(void) {
  int n = hy_num_threads_global();
  int local = hy_threads_local;
  return local > 0 && local < n ? local : n;
}

/* ---- the worker pool ------------------------------------------------------

 * One pool of worker threads serves every hy_parallel_for of the process.
 * A call posts a job (the range, the function, how many helpers it wants),
 * wakes that many idle workers and works on its own job too; workers take
 * pieces of the range from the job's shared counter. Pieces are about a
 * quarter of an even share rather than a static split: on a machine whose
 * cores are busy with other work a thread that is not scheduled for a
 * while would otherwise hold the whole job for its full share, while with
 * pieces the others take over what it has not claimed. The caller closes
 * its job when the range is handed out and waits for the helpers still in
 * it. Several user threads calling at once share the workers, so the
 * process never runs more threads than the callers plus the pool.
 *
 * Idle workers sleep on a condition variable; before sleeping they poll
 * for new work for a short while, yielding the core at each poll, so that
 * back-to-back loops (the passes of one transform) do not pay a wake-up
 * each, while a core another program needs is given up at once. */

#ifndef HY_POOL_MAX
#define HY_POOL_MAX 1024
#endif
/* Polls (each a sched_yield) an idle worker makes before it sleeps. */
#define HY_POOL_SPIN 200

typedef struct hy_job {
  hy_range_fn fn;
  void *arg;
  hy_parallel_ready ready; /* the caller's, asked by each helper first */
  int64_t count, piece;
  _Atomic int64_t next;   /* first index not yet handed out */
  int helpers_max;        /* workers it may take: threads - 1 */
  int helpers_joined;     /* under the pool lock */
  int helpers_active;     /* under the pool lock */
  int open;               /* listed, taking helpers (under the pool lock) */
  pthread_cond_t done;    /* helpers_active reached 0 after closing */
  struct hy_job *link;
} hy_job;

static struct {
  pthread_mutex_t lock;
  pthread_cond_t work;
  hy_job *jobs; /* open jobs, oldest first */
  int workers, idle;
  _Atomic unsigned long posted; /* jobs posted so far: what spinning workers watch */
} hy_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0};

/* Set while a thread runs a job's pieces: a nested loop then runs on the
 * calling thread (nested jobs would only oversubscribe the cores). */
static _Thread_local int hy_in_parallel;

/* The calling thread's hy_parallel_ready_set. */
static _Thread_local hy_parallel_ready hy_ready_local;

hy_parallel_ready hy_parallel_ready_set(hy_parallel_ready ready) {
  hy_parallel_ready old = hy_ready_local;
  hy_ready_local = ready;
  return old;
}

/* Pieces of the job until none is left; a helper (ask = 1) first asks
 * the caller's readiness check and takes none if it says no. */
static void hy_job_work(hy_job *j, int index, int ask) {
  if (ask && j->ready.fn && !j->ready.fn(j->ready.data)) return;
  for (;;) {
    int64_t begin = atomic_fetch_add_explicit(&j->next, j->piece, memory_order_relaxed);
    if (begin >= j->count) break;
    int64_t end = j->count - begin < j->piece ? j->count : begin + j->piece;
    j->fn(j->arg, begin, end, index);
  }
}

/* The first open job that wants another helper (pool lock held). */
static hy_job *hy_pool_find(void) {
  for (hy_job *j = hy_pool.jobs; j; j = j->link)
    if (j->helpers_joined < j->helpers_max) return j;
  return NULL;
}

static void *hy_pool_worker(void *unused) {
  (void)unused;
  hy_in_parallel = 1;
  pthread_mutex_lock(&hy_pool.lock);
  for (;;) {
    hy_job *j = hy_pool_find();
    if (!j) {
      unsigned long seen = atomic_load(&hy_pool.posted);
      pthread_mutex_unlock(&hy_pool.lock);
      int spins = 0;
      while (spins < HY_POOL_SPIN && atomic_load(&hy_pool.posted) == seen) {
        sched_yield();
        spins++;
      }
      pthread_mutex_lock(&hy_pool.lock);
      if (spins < HY_POOL_SPIN) continue;
      j = hy_pool_find();
      if (!j) {
        hy_pool.idle++;
        pthread_cond_wait(&hy_pool.work, &hy_pool.lock);
        hy_pool.idle--;
        continue;
      }
    }
    int index = ++j->helpers_joined;
    j->helpers_active++;
    pthread_mutex_unlock(&hy_pool.lock);
    hy_job_work(j, index, 1);
    pthread_mutex_lock(&hy_pool.lock);
    if (--j->helpers_active == 0 && !j->open) pthread_cond_signal(&j->done);
  }
  return NULL;
}

/* Start workers until there are `want` (pool lock held). A worker that
 * cannot be started leaves the job fewer helpers, never wrong results. */
static void hy_pool_grow(int want) {
  if (want > HY_POOL_MAX) want = HY_POOL_MAX;
  while (hy_pool.workers < want) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, hy_pool_worker, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) break;
    hy_pool.workers++;
  }
}

/* The caller's parallel loop (hy_set_parallel_loop), NULL for the pool.
 * `set` lets every parallel loop see "none" without taking the lock; the
 * lock keeps the function and its data a consistent pair. */
static struct {
  pthread_mutex_t lock;
  _Atomic int set;
  hy_parallel_loop_fn fn;
  void *data;
} hy_loop_hook = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, NULL};

void hy_set_parallel_loop(hy_parallel_loop_fn loop, void *data) {
  pthread_mutex_lock(&hy_loop_hook.lock);
  hy_loop_hook.fn = loop;
  hy_loop_hook.data = loop ? data : NULL;
  atomic_store(&hy_loop_hook.set, loop != NULL);
  pthread_mutex_unlock(&hy_loop_hook.lock);
}

/* One job of the caller's loop: a share of `job` as helper `index`. */
typedef struct hy_hook_job {
  hy_job *job;
  int index;
} hy_hook_job;

static void *hy_hook_work(char *p) {
  hy_hook_job *h = (hy_hook_job *)(void *)p;
  int nested = hy_in_parallel;
  hy_in_parallel = 1;
  hy_job_work(h->job, h->index, 1);
  hy_in_parallel = nested;
  return NULL;
}

/* The loop as `threads` jobs of the caller's parallel loop; 0 when there is
 * none set (or no memory for the job list: the pool runs it then). */
static int hy_parallel_hooked(hy_job *job, int threads) {
  if (!atomic_load_explicit(&hy_loop_hook.set, memory_order_relaxed)) return 0;
  pthread_mutex_lock(&hy_loop_hook.lock);
  hy_parallel_loop_fn loop = hy_loop_hook.fn;
  void *data = hy_loop_hook.data;
  pthread_mutex_unlock(&hy_loop_hook.lock);
  if (!loop) return 0;
  hy_hook_job *jobs = malloc((size_t)threads * sizeof *jobs);
  if (!jobs) return 0;
  for (int i = 0; i < threads; i++) jobs[i] = (hy_hook_job){job, i};
  loop(hy_hook_work, (char *)jobs, sizeof *jobs, threads, data);
  free(jobs);
  return 1;
}

void hy_parallel_for(int64_t count, int64_t grain, hy_range_fn fn, void *arg) {
  if (count <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = (count + grain - 1) / grain;
  int threads = hy_num_threads();
  if (chunks < threads) threads = (int)chunks;
  if (threads <= 1 || hy_in_parallel) {
    fn(arg, 0, count, 0);
    return;
  }
  int64_t piece = count / ((int64_t)threads * 4);
  if (piece < grain) piece = grain;
  hy_job job = {.fn = fn, .arg = arg, .ready = hy_ready_local, .count = count, .piece = piece,
                .helpers_max = threads - 1, .open = 1};
  atomic_init(&job.next, 0);
  /* Every job runs hy_job_work to the end of the range, so the range is
   * covered whichever jobs the caller's loop runs first; what jobs that
   * were not ready left, the calling thread runs after. */
  if (hy_parallel_hooked(&job, threads)) {
    hy_in_parallel = 1;
    hy_job_work(&job, 0, 0);
    hy_in_parallel = 0;
    return;
  }
  pthread_cond_init(&job.done, NULL);

  pthread_mutex_lock(&hy_pool.lock);
  hy_pool_grow(hy_num_threads_global() - 1 > threads - 1 ? hy_num_threads_global() - 1
                                                          : threads - 1);
  hy_job **tail = &hy_pool.jobs;
  while (*tail) tail = &(*tail)->link;
  *tail = &job;
  atomic_fetch_add(&hy_pool.posted, 1);
  int wake = hy_pool.idle < job.helpers_max ? hy_pool.idle : job.helpers_max;
  for (int i = 0; i < wake; i++) pthread_cond_signal(&hy_pool.work);
  pthread_mutex_unlock(&hy_pool.lock);

  hy_in_parallel = 1;
  hy_job_work(&job, 0, 0);
  hy_in_parallel = 0;

  pthread_mutex_lock(&hy_pool.lock);
  for (hy_job **p = &hy_pool.jobs; *p; p = &(*p)->link)
    if (*p == &job) {
      *p = job.link;
      break;
    }
  job.open = 0;
  while (job.helpers_active > 0) pthread_cond_wait(&job.done, &hy_pool.lock);
  pthread_mutex_unlock(&hy_pool.lock);
  pthread_cond_destroy(&job.done);
}
