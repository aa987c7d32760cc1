/* Fuzz target: the guru-problem validator. The input's bytes become a
 * hyfft_problem (every field, any value: ranks, lengths, strides, kinds,
 * scale NaN or infinite); hy_problem_make must accept or refuse it with a
 * status and never crash, overflow or read outside the struct. An accepted
 * problem must have extents that fit its strides. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "problem/problem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hyfft_problem user;
  memset(&user, 0, sizeof user);
  memcpy(&user, data, size < sizeof user ? size : sizeof user);
  hy_problem p;
  hy_status st = hy_problem_make(&user, &p);
  if (st == HYFFT_SUCCESS && (p.in_extent < 1 || p.out_extent < 1 || p.rank < 0 ||
                              p.rank > HYFFT_MAX_RANK || p.total_transform < 1))
    abort();
  return 0;
}
