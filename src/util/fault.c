/* Fault injection for tests (hy_util.h): every allocation, file operation
 * and kernel compile of the library passes a fault point; a test arms the
 * hook to fail the k-th point passed from then on, for every k along a
 * plan's life, and checks that each failure gives a status, leaks nothing
 * and leaves the output alone. Off (one relaxed atomic load per point)
 * unless armed. */
#include <stdatomic.h>

#include "hy_util.h"

static _Atomic long hy_fault_left; /* points until the failing one; 0: off */
static _Atomic long hy_fault_seen; /* points passed since arming */

void hy_fault_arm(long k) {
  atomic_store(&hy_fault_seen, 0);
  atomic_store(&hy_fault_left, k > 0 ? k : 0);
}

long hy_fault_disarm(void) {
  atomic_store(&hy_fault_left, 0);
  return atomic_load(&hy_fault_seen);
}

int hy_fault_point(void) {
  if (atomic_load_explicit(&hy_fault_left, memory_order_relaxed) <= 0) return 0;
  atomic_fetch_add(&hy_fault_seen, 1);
  /* The point that takes the count from 1 to 0 fails; later ones pass. */
  long left = atomic_fetch_sub(&hy_fault_left, 1);
  if (left <= 0) atomic_fetch_add(&hy_fault_left, 1); /* raced past zero: undo */
  return left == 1;
}
