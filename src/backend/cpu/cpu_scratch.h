/* Scratch memory of the CPU engine (cpu_scratch.c), used by the
 * per-precision engines (cpu_engine_impl.h) for lane buffers, four-step
 * intermediates and long Bluestein convolutions. */
#ifndef HY_CPU_SCRATCH_H
#define HY_CPU_SCRATCH_H

#include <stddef.h>

/* Scratch for whole arrays (four-step intermediates, long Bluestein
 * convolutions): 64-byte aligned, and from 8 MiB on 2 MiB aligned with
 * transparent huge pages requested, which saves most of the page faults
 * and TLB misses of the strided passes. Free with the same byte count. */
void *hy_cpu_big_alloc(size_t bytes);
void hy_cpu_big_free(void *p, size_t bytes);

/* Per-thread scratch kept from one execution to the next, so that batched
 * runs stop paying malloc and fresh-page faults on every call. Slot 0
 * holds a group's lane buffers, slot 1 a four-step intermediate, slot 2
 * a four-step node's local copy of its input. A slot already lent out on
 * this thread (re-entry) or a request above 64 MiB gets a plain
 * allocation instead; either way return it with hy_cpu_scratch_put (same
 * slot and size). NULL when out of memory. */
#define HY_CPU_SCRATCH_SLOTS 3
void *hy_cpu_scratch_get(int slot, size_t bytes);
void hy_cpu_scratch_put(int slot, void *p, size_t bytes);

#endif /* HY_CPU_SCRATCH_H */
