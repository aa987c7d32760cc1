/* Parallel loops over independent work. OpenMP's runtime is the thread
 * pool: it keeps its workers alive between calls and gives each calling
 * user thread its own team, so concurrent executions of one plan work. */
#include <stdlib.h>
#include <unistd.h>

#include "hy_util.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int hy_num_threads(void) {
  const char *v = hy_getenv("HYFFT_NUM_THREADS");
  if (v) {
    long n = strtol(v, NULL, 10);
    if (n >= 1 && n <= 4096) return (int)n;
  }
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
#endif
}

void hy_parallel_for(int64_t count, int64_t grain, hy_range_fn fn, void *arg) {
  if (count <= 0) return;
  if (grain < 1) grain = 1;
  int64_t chunks = (count + grain - 1) / grain;
  int threads = hy_num_threads();
  if (chunks < threads) threads = (int)chunks;
  if (threads <= 1) {
    fn(arg, 0, count, 0);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num();
    int nt = omp_get_num_threads();
    int64_t begin = count * t / nt, end = count * (t + 1) / nt;
    if (begin < end) fn(arg, begin, end, t);
  }
#else
  fn(arg, 0, count, 0);
#endif
}
