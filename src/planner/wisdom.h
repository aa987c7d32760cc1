/* Wisdom: what measuring chose, remembered per process and savable.
 *
 * An entry maps (problem token, device name, generator version) to the
 * solver and kernel variant that won. The table is process-wide and
 * guarded by a mutex, so plans made on any thread share it. Text form
 * (docs/api.md, "Tuning and wisdom"):
 *
 *   hyfft-wisdom 1
 *   <generator version> <token> <solver> <variant or -> <device name...>
 *
 * Blank lines and lines starting with '#' are skipped. Parsing is strict:
 * any other deviation is HYFFT_INVALID_WISDOM naming the line. Entries of
 * another generator version are skipped (their kernels no longer exist). */
#ifndef HY_WISDOM_H
#define HY_WISDOM_H

#include "planner/plan.h"

#define HY_WISDOM_FORMAT 1

typedef struct hy_wisdom_value {
  char solver[32];
  char spec[HY_KERNEL_SPEC_LEN];
} hy_wisdom_value;

/* Look up / store the choice for a problem token on a device. */
int hy_wisdom_lookup(const char *token, const char *device, hy_wisdom_value *out);
hy_status hy_wisdom_store(const char *token, const char *device, const hy_wisdom_value *value);
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
