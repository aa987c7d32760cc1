/* Multi-device execution (docs/design.md section 5): a batched host-data
 * plan on a multi-device context (a device list such as "cuda:0,1",
 * parsed by api/context.c) whose outermost batch dim is split into one
 * contiguous range of entries per device, each range a host-data plan of
 * its own on that device's sub-context (staged through the device, or out
 * of core, as any host plan), all run at once: one thread per device, the
 * calling thread driving the first.
 *
 * The shares: devices of the same name, compute units and memory are
 * taken as equally fast and get equal shares; otherwise each device's
 * share is proportional to its compute units (a model, not a
 * measurement). Entries are handed out in the list's order, the remainder
 * of the division to the devices with the largest fractional parts
 * (ties to the earlier device); a batch with fewer entries than devices
 * leaves the last devices idle. A problem whose outer batch dim cannot
 * be split (no batch, one entry, or entries that interleave) is one
 * transform split in slabs across the devices where exec/multi_slab.h
 * takes it (unbatched contiguous C2C/R2C/C2R of 2 dims or more), else
 * runs whole on the first device. Device-resident data and the hybrid CPU share are
 * refused (HYFFT_NOT_SUPPORTED); $HYFFT_CPU_SHARE is ignored. */
#ifndef HY_EXEC_MULTI_DEVICE_H
#define HY_EXEC_MULTI_DEVICE_H

#include "util/hy_util.h"

struct hyfft_plan_s;

/* The most devices one multi-device context lists. */
#define HY_MULTI_MAX_DEVICES 16

/* Plan hook, after plan->context and plan->problem are set: on a
 * multi-device context builds the device sub-plans into plan->multi (or
 * refuses the problem), elsewhere leaves plan->multi NULL. On failure
 * nothing is left allocated. */
hy_status hy_multi_create(struct hyfft_plan_s *plan, unsigned flags);
void hy_multi_destroy(struct hyfft_plan_s *plan);

/* Run every device's range at once on host data; returns when all are
 * done. `queue` must be NULL (a queue belongs to one device). */
hy_status hy_multi_run(struct hyfft_plan_s *plan, const void *in, void *out, void *queue);
hy_status hy_multi_wait(struct hyfft_plan_s *plan);

/* The split (devices and entries) and each device's tree, for
 * hyfft_plan_describe. */
void hy_multi_describe(const struct hyfft_plan_s *plan, hy_strbuf *sb);
/* The first device's generated sources, for hyfft_plan_source. */
hy_status hy_multi_source(const struct hyfft_plan_s *plan, hy_strbuf *sb);

/* Entries of the outer batch dim that device `i` of the context runs (0
 * for an idle device or a plan that is not multi-device; tests). */
int64_t hy_multi_entries(const struct hyfft_plan_s *plan, int i);

/* The slab split of one transform across the devices (exec/multi_slab.h),
 * NULL when the plan does not split so (tests). */
struct hy_slab;
const struct hy_slab *hy_multi_slab(const struct hyfft_plan_s *plan);

#endif /* HY_EXEC_MULTI_DEVICE_H */
