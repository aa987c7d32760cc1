/* Execution nodes of the CPU engine (see cpu_engine.h for the types). */
#ifndef HY_CPU_NODE_H
#define HY_CPU_NODE_H

#include "backend/cpu/cpu_engine.h"

/* The longest transform of `prec` that runs as one gathered lane group
 * (the L2 cache's size decides; at least HY_CPU_DIRECT_MAX). */
int64_t hy_cpu_direct_max(hyfft_precision prec);

/* Build the node for a length-n DFT: Bluestein if algo says so, a
 * four-step split if n > hy_cpu_direct_max (but for the single long rows
 * of hy_cpu_long_row, and lengths that measured faster as one transform
 * on this machine: hy_cpu_direct_pays), else one gathered transform. twiddle_n > 0: the
 * runs it serves carry a four-step twiddle of that period. unit_runs > 0:
 * every run it serves is that many transforms of unit stride on both
 * sides with no chirp step; 0 where runs are other or unknown. */
hy_status hy_cpu_node_build(hyfft_precision prec, int sign, int64_t n, hy_dft_algo algo,
                            const int *factors, int nfactors, int64_t bluestein_m,
                            int64_t twiddle_n, int64_t unit_runs, hy_cpu_node **out);
void hy_cpu_node_free(hy_cpu_node *node);

/* What this process's timing decided for lane groups of (prec, n)
 * against the row path (cpu_node.c, hy_cpu_rows_pay): 1 the row path, 0
 * the lane groups, -1 not timed (no plan of that length yet, one that
 * did not need the timing, or HYFFT_CPU_ROWS set). For tests. */
int hy_cpu_rows_decided(hyfft_precision prec, int64_t n);

/* What the engine runs for a node, one line per node, sub-nodes indented
 * below it (`hyfft plan --source` on the CPU). */
void hy_cpu_node_describe(const hy_cpu_node *node, int indent, hy_strbuf *sb);

/* The L2 cache of one core in bytes (sysconf, read once), 0 when unknown
 * (cpu_backend.c). */
int64_t hy_cpu_l2_bytes(void);
/* One core's L1 data cache in bytes (32 KiB where the system does not say). */
int64_t hy_cpu_l1_bytes(void);

#endif /* HY_CPU_NODE_H */
