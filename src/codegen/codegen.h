/* The kernel generator: turns the passes of a plan tree into GPU kernel
 * source for a dialect (OpenCL C or CUDA C) plus the launches that run
 * them. It only produces text and numbers; backends compile and launch.
 *
 * Every stride, length and offset of a pass is baked into its kernel as a
 * compile-time constant (like VkFFT), so kernels take only buffer and table
 * arguments, and index arithmetic folds into constants. A program's source
 * is deterministic: the same plan on the same device gives the same bytes,
 * so its hash (with the device and HY_CODEGEN_VERSION) keys the kernel
 * caches. */
#ifndef HY_CODEGEN_H
#define HY_CODEGEN_H

#include "backend/backend.h"

#include "codegen/program.h"

/* Generate the program for a plan tree on a device. On failure the
 * program is freed and the detail message says why.
 *
 * A multi-pass plan over a batch whose per-element data fit in part of the
 * device's L2 cache may run chunk by chunk: every pass over the first few
 * batch elements, then every pass over the next ones, so each pass reads
 * what the one before it wrote while it is still in L2, when the planner
 * gives the plan a chunk budget (none by default, kernel_model.c;
 * $HYFFT_L2_CHUNK sets the bytes a chunk may use for any plan, 0: one
 * chunk, the plain pass order).
 *
 * A batched two-pass plan may instead become one persistent kernel that
 * runs both passes element by element (cg_persist.c; by default for CUDA
 * plans whose elements take at most 2 MB): then the program is a kernel
 * that zeroes its counters and the persistent kernel. */
hy_status hy_codegen_plan(const hy_problem *problem, const hy_plan_tree *tree,
                          const hy_device_caps *caps, hy_dialect dialect, hy_gpu_program *out);
/* The same, and when the program is a persistent kernel also the plain
 * program of one kernel per pass it was made from, in *plain (its own
 * tables, the launches it would have had): a backend may run that one
 * while the persistent kernel, one long compile, is built in the
 * background. *plain is left zeroed (no source) when the program is not
 * persistent, or when plain is NULL (then this is hy_codegen_plan). */
hy_status hy_codegen_plan_tiers(const hy_problem *problem, const hy_plan_tree *tree,
                                const hy_device_caps *caps, hy_dialect dialect,
                                hy_gpu_program *out, hy_gpu_program *plain);

/* The CPU engine's generated codelets (cg_cpu.c): the text of
 * src/backend/cpu/cpu_codelets_gen.h, straight-line DFTs of every radix
 * from 2 to 16 in both directions on lane vectors, from the same radix
 * generator as the GPU kernels' butterflies (the engine's butterflies
 * for every stage of radix 2 to 16). The header is committed; the
 * unit test unit.cpu_codelets regenerates it and fails on any difference
 * (`hyfft_unit_cpu_codelets --write FILE` writes it anew). */
hy_status hy_codegen_cpu_codelets(hy_strbuf *sb);

#endif /* HY_CODEGEN_H */
