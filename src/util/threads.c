/* Parallel loops over independent work. OpenMP's runtime is the thread
 * pool: it keeps its workers alive between calls and gives each calling
 * user thread its own team, so concurrent executions of one plan work. */
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include "hy_util.h"
#include "settings.h"

#ifdef _OPENMP
#include <omp.h>
#endif

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
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (int)cores : 1;
#endif
}

int hy_num_threads(void) {
  int n = hy_num_threads_global();
  int local = hy_threads_local;
  return local > 0 && local < n ? local : n;
}

/* Ranges are handed out from a shared counter in pieces of about a
 * quarter of an even share rather than split statically: on a machine
 * whose cores are also busy with other processes a thread that is not
 * scheduled for a while would otherwise hold the whole team at the
 * closing barrier for its full share, while with pieces the others take
 * over the ones it has not claimed.
 * Inside a parallel region (a caller's own, or an outer loop of ours)
 * the loop runs on the calling thread: nested teams only oversubscribe
 * the cores. */
void hy_parallel_for(int64_t count, int64_t grain, hy_range_fn fn, void *arg) {
  if (count <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = (count + grain - 1) / grain;
  int threads = hy_num_threads();
  if (chunks < threads) threads = (int)chunks;
#ifdef _OPENMP
  if (threads > 1 && omp_in_parallel()) threads = 1;
#endif
  if (threads <= 1) {
    fn(arg, 0, count, 0);
    return;
  }
#ifdef _OPENMP
  int64_t piece = count / ((int64_t)threads * 4);
  if (piece < grain) piece = grain;
  int64_t next = 0;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    for (;;) {
      int64_t begin = __atomic_fetch_add(&next, piece, __ATOMIC_RELAXED);
      if (begin >= count) break;
      int64_t end = count - begin < piece ? count : begin + piece;
      fn(arg, begin, end, t);
    }
  }
#else
  fn(arg, 0, count, 0);
#endif
}
