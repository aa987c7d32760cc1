/* Wisdom: what measuring chose, remembered per process and savable.
 *
 * An entry maps (problem token, device name, generator version) to the
 * solver and kernel variant that won. The table is process-wide and
 * guarded by a mutex, so plans made on any thread share it. Text form
 * (docs/api.md, "Tuning and wisdom"):
 *
 *   hyfft-wisdom 2
 *   <generator version> <token> <solver> <variant or -> <device name...>
 *   <generator version> <token> share <CPU share> <device name...>
 *
 * The second kind (format 2) is a hybrid plan's CPU share (exec/hybrid.c),
 * kept apart from the first: a problem may have both. Export writes
 * format 1 while the table holds no share, so that libraries reading only
 * format 1 still take such files; import reads both (format 1 without
 * share lines) and names the format it read in its error otherwise.
 * Blank lines and lines starting with '#' are skipped. Parsing is strict:
 * any other deviation is HYFFT_INVALID_WISDOM naming the line. Entries of
 * another generator version are skipped (their kernels no longer exist). */
#ifndef HY_WISDOM_H
#define HY_WISDOM_H

#include "planner/plan.h"

#define HY_WISDOM_FORMAT 2
/* The oldest format import still reads. */
#define HY_WISDOM_FORMAT_MIN 1

typedef struct hy_wisdom_value {
  char solver[32];
  char spec[HY_KERNEL_SPEC_LEN];
} hy_wisdom_value;

/* Look up / store the choice for a problem token on a device. */
int hy_wisdom_lookup(const char *token, const char *device, hy_wisdom_value *out);
hy_status hy_wisdom_store(const char *token, const char *device, const hy_wisdom_value *value);
/* Look up / store a hybrid plan's CPU share (0..1) for a problem token on
 * a device. */
int hy_wisdom_lookup_share(const char *token, const char *device, double *share);
hy_status hy_wisdom_store_share(const char *token, const char *device, double share);
/* Remove every entry (tests). */
void hy_wisdom_forget(void);
/* Number of entries. */
int hy_wisdom_count(void);

/* Append the whole table as text. */
hy_status hy_wisdom_export(hy_strbuf *sb);
/* Parse text and merge it (entries replace those with the same key). All
 * or nothing: on error the table is unchanged. `origin` names the source
 * in messages (a path, or "string"). */
hy_status hy_wisdom_import(const char *text, const char *origin);

#endif /* HY_WISDOM_H */
