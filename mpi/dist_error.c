/* The thread-local detail message of libhyfft_mpi. hyfft's own message
 * (hyfft_last_error) belongs to libhyfft; this library keeps its own and
 * copies hyfft's into it when a local hyfft call fails. Also the clock of
 * the phase times. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "dist_internal.h"

#define HY_DIST_ERROR_SIZE 2048
static _Thread_local char hy_dist_error_detail[HY_DIST_ERROR_SIZE];

const char *hyfft_dist_last_error(void) { return hy_dist_error_detail; }

hyfft_status hy_dist_error(hyfft_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(hy_dist_error_detail, sizeof hy_dist_error_detail, fmt, ap);
  va_end(ap);
  return status;
}

hyfft_status hy_dist_mpi_error(int mpi_code, const char *what) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpi_code, text, &len) != MPI_SUCCESS) len = 0;
  text[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = '\0';
  return hy_dist_error(HYFFT_BACKEND_ERROR, "%s failed: %s", what, text);
}

hyfft_status hy_dist_hyfft_error(hyfft_status status, const char *what) {
  return hy_dist_error(status, "%s: %s (%s)", what, hyfft_status_name(status),
                       hyfft_last_error());
}

double hy_dist_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
