/* Scratch memory of the CPU engine (cpu_scratch.c), used by the
 * per-precision engines (cpu_engine_impl.h) for lane buffers, four-step
 * intermediates and long Bluestein convolutions. */
#ifndef HY_CPU_SCRATCH_H
#define HY_CPU_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

/* Scratch for whole arrays (four-step intermediates, long Bluestein
 * convolutions): 64-byte aligned, and from 8 MiB on 2 MiB aligned with
 * transparent huge pages requested, which saves most of the page faults
 * and TLB misses of the strided passes. Free with the same byte count. */
void *hy_cpu_big_alloc(size_t bytes);
void hy_cpu_big_free(void *p, size_t bytes);

/* Per-thread scratch kept from one execution to the next, so that batched
 * runs stop paying malloc and fresh-page faults on every call. Slot 0
 * holds a group's lane buffers, slot 1 a four-step intermediate, slot 2
 * a four-step node's local copy of its input, slot 3 a convolution's
 * buffers one transform at a time, slot 4 a pass's copy of an
 * overlapping input, slot 5 a fused Bluestein pass's dense side. A slot
 * already lent out on this thread (re-entry) or a request above 64 MiB
 * that the slot does not already hold (hy_cpu_scratch_reserve) gets a
 * plain allocation instead; either way return it with hy_cpu_scratch_put
 * (same slot and size). NULL when out of memory. */
#define HY_CPU_SCRATCH_SLOTS 6
enum {
  HY_SCRATCH_LANES = 0,
  HY_SCRATCH_FOUR_STEP = 1,
  HY_SCRATCH_LOCAL_COPY = 2,
  HY_SCRATCH_CONV = 3,
  HY_SCRATCH_OVERLAP = 4,
  HY_SCRATCH_CHIRP = 5
};
void *hy_cpu_scratch_get(int slot, size_t bytes);
void hy_cpu_scratch_put(int slot, void *p, size_t bytes);

/* Grows each of this thread's slots to at least bytes[slot] (past 64 MiB
 * too), so that the requests of up to that size that follow on this
 * thread allocate nothing: an execution reserves what its calling thread
 * will ask before it writes anything (a slot lent out on this thread
 * stays as it is). Returns HY_CPU_SCRATCH_SLOTS when done, else the slot
 * that could not be grown (out of memory), or -1 without thread storage.
 * hy_cpu_scratch_trim then frees the slots grown past 64 MiB. `key`
 * (nonzero) names a set of sizes that never changes (a plan's): asked
 * again on a thread whose slots still hold them, it returns at once. */
int hy_cpu_scratch_reserve(uint64_t key, const size_t bytes[HY_CPU_SCRATCH_SLOTS]);
void hy_cpu_scratch_trim(void);
/* The most bytes a slot keeps between executions without a reservation. */
#define HY_CPU_SCRATCH_KEEP ((size_t)64 << 20)

#endif /* HY_CPU_SCRATCH_H */
