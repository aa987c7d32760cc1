/* Wisdom: what measuring chose, remembered per process and savable.
 *
 * An entry maps (problem token, device name, generator version) to the
 * solver and kernel variant that won. The table is process-wide and
 * guarded by a mutex, so plans made on any thread share it. Text form
 * (docs/api.md, "Tuning and wisdom"):
 *
 *   hyfft-wisdom 3
 *   <generator version> <token> <solver> <variant or -> <device name...>
 *   <generator version> <token> share <CPU share> <pinned share or -> <device name...>
 *
 * The second kind is a hybrid plan's CPU shares (exec/hybrid.c), kept
 * apart from the first: a problem may have both. Format 2 brought share
 * lines with one share, for pageable host data; format 3 adds the share
 * for page-locked host data ('-' where the backend does not page-lock host
 * memory). Export writes the oldest format that holds the table (1
 * without shares, 2 while no page-locked share is known), so that older
 * libraries still take such files; import reads formats 1 to 3 (format 1
 * without share lines, format 2's share lines with the pageable share
 * alone) and names the format it read in its error otherwise.
 * Blank lines and lines starting with '#' are skipped. Parsing is strict:
 * any other deviation is HYFFT_INVALID_WISDOM naming the line. Entries of
 * another generator version are skipped (their kernels no longer exist). */
#ifndef HY_WISDOM_H
#define HY_WISDOM_H

#include "planner/plan.h"

#define HY_WISDOM_FORMAT 3
/* The oldest format import still reads. */
#define HY_WISDOM_FORMAT_MIN 1

typedef struct hy_wisdom_value {
  char solver[32];
  char spec[HY_KERNEL_SPEC_LEN];
} hy_wisdom_value;

/* Look up / store the choice for a problem token on a device. */
int hy_wisdom_lookup(const char *token, const char *device, hy_wisdom_value *out);
hy_status hy_wisdom_store(const char *token, const char *device, const hy_wisdom_value *value);
/* Look up / store a hybrid plan's CPU shares (0..1) for a problem token on
 * a device: for pageable host data, and for page-locked host data (-1:
 * none, from a format 2 entry or a backend that does not page-lock host
 * memory; `pinned` may be NULL on lookup). */
int hy_wisdom_lookup_share(const char *token, const char *device, double *share,
                           double *pinned);
hy_status hy_wisdom_store_share(const char *token, const char *device, double share,
                                double pinned);
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
