/* The kernel model: what the planner decides for each pass of a GPU plan
 * besides its algorithm and factors. It turns a one-pass prime Bluestein
 * pass into Rader where that pays, fills every pass's kernel spec (threads,
 * transforms per block, local-memory layout, twiddle source, stage
 * radices, register demand, block order), and sets the L2 chunk budget of
 * the tree. The generator then reads the tree and decides nothing. */
#ifndef HY_KERNEL_MODEL_H
#define HY_KERNEL_MODEL_H

#include "backend/backend.h"

/* Fill the specs of every pass of a solver's tree for a GPU device (the
 * variant in tree->kernel_spec applied on top of the model and
 * $HYFFT_KERNEL_SPEC), turn one-pass Bluestein passes into Rader where the
 * model or the switch rader=1 says so, and set tree->l2_chunk_bytes and
 * specs_ready. CPU trees are left as they are (specs_ready 0). */
hy_status hy_planner_finalize(const hy_problem *problem, const hy_device_caps *caps,
                              hy_plan_tree *tree);

/* The model's spec for one pass (Rader already decided); l2_chunks: the
 * plan's passes will run chunk by chunk of the batch (hy_plan_tree's
 * l2_chunk_bytes), so blocks should not straddle batch elements. */
hy_status hy_model_spec(const hy_problem *problem, const hy_pass *pass,
                        const hy_device_caps *caps, int l2_chunks, hy_kernel_spec *spec);

/* The stage radices of a one-pass Bluestein pass (factors of its
 * convolution length bluestein_m): sets spec's merge_odd and pow2_radix as
 * the model does for such a pass and returns the number of stages. Also
 * what hy_bluestein_gpu_length counts stages with. */
int hy_model_bluestein_radices(const hy_pass *pass, hy_kernel_spec *spec);

/* Whether the even-length step of a real transform may go into its
 * one-pass DFT of length m (HY_FUSE_R2C_POST / HY_FUSE_C2R_PRE): a GPU
 * whose local memory holds one transform as complex values. */
int hy_model_real_fuse_fits(const hy_device_caps *caps, hyfft_precision precision, int64_t m);

/* The same on the CPU, for any m: its engine takes the step into a
 * gathered transform's gather (C2R) or scatter (R2C), and next to each
 * transform's DFT, while that transform's data are in cache, where the
 * DFT is a four-step split whose lane groups never hold both elements of
 * a pair k, m - k (backend/cpu/cpu_engine.h, hy_cpu_run.real_step):
 * either way the step is no pass over the batch of its own. */
int hy_model_real_cpu_fuses(const hy_device_caps *caps, int64_t m);

/* Whether a pass of a four-step split of a real transform's half-length
 * DFT, with the split form of its real step set (fuse_loop >= 0,
 * planner/plan.h), gets a spec the generator can build: a work-group
 * that fits the device with complex local memory; for the R2C step also
 * an even number of transforms per work-group, its rows' loop the
 * fastest. */
int hy_model_real_split_fits(const hy_problem *problem, const hy_pass *pass,
                             const hy_device_caps *caps);

/* Whether a chain of passes should run as one persistent kernel by default:
 * on CUDA, when its intermediates go through a ring of work slots (more of
 * them than L2 holds) of at most 2 MB each. Read by the generator's
 * persistent-kernel builder and by the four-step solver's choice of fused
 * Rader, which pays only where its chain runs persistent. */
int hy_persist_pays(const hy_device_caps *caps, int uses_ring, int64_t slot_bytes);

#endif /* HY_KERNEL_MODEL_H */
