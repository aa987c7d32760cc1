/* The layer where OpenCL C and CUDA C differ: qualifiers, barriers,
 * thread and block ids, the complex vector type and the 64-bit index type.
 * Kernels are written against the macros defined in the preamble; the
 * persistent kernel (cg_persist.c) and its steps (cg_kernel.c) test the
 * dialect themselves for cache hints, atomics and waits. */
#include "codegen/cg_internal.h"

void hy_cg_preamble(hy_strbuf *sb, hy_dialect dialect, hyfft_precision precision) {
  int f64 = precision == HYFFT_F64;
  if (dialect == HY_DIALECT_OPENCL) {
    if (f64) hy_strbuf_append(sb, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    hy_strbuf_append(sb,
                     "#define HY_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)\n"
                     "#define HY_LID ((int)get_local_id(0))\n"
                     "#define HY_BLOCK ((long)get_group_id(0))\n"
                     "#define HY_BLOCKS ((long)get_num_groups(0))\n"
                     "#define HY_GID hy_gid\n"
                     "#define HY_FN inline\n"
                     "typedef long hy_i64;\n");
    hy_strbuf_appendf(sb, "typedef %s real;\ntypedef %s2 real2;\n", f64 ? "double" : "float",
                      f64 ? "double" : "float");
    hy_strbuf_append(sb, "#define MK(a, b) ((real2)((a), (b)))\n"
                         "#define HY_SINCOSPI(x, s, c) ((s) = sinpi(x), (c) = cospi(x))\n");
  } else {
    hy_strbuf_append(sb,
                     "#define HY_BARRIER() __syncthreads()\n"
                     "#define HY_LID ((int)threadIdx.x)\n"
                     "#define HY_BLOCK ((long long)blockIdx.x)\n"
                     "#define HY_BLOCKS ((long long)gridDim.x)\n"
                     "#define HY_GID hy_gid\n"
                     "#define HY_FN __device__ __forceinline__\n"
                     "typedef long long hy_i64;\n");
    hy_strbuf_appendf(sb, "typedef %s real;\ntypedef %s2 real2;\n", f64 ? "double" : "float",
                      f64 ? "double" : "float");
    hy_strbuf_appendf(sb, "#define MK(a, b) make_%s2((a), (b))\n", f64 ? "double" : "float");
    hy_strbuf_appendf(sb, "#define HY_SINCOSPI(x, s, c) %s((x), &(s), &(c))\n",
                      f64 ? "sincospi" : "sincospif");
  }
  /* Complex products written out so both dialects share them; b is a
   * table entry, cmulc uses its conjugate (the inverse transform). */
  hy_strbuf_append(sb,
                   "HY_FN real2 cmul(real2 a, real2 b) {\n"
                   "  return MK(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);\n"
                   "}\n"
                   "HY_FN real2 cmulc(real2 a, real2 b) {\n"
                   "  return MK(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);\n"
                   "}\n"
                   "HY_FN real2 cscale(real2 a, real s) { return MK(a.x * s, a.y * s); }\n\n");
}

/* CUDA learns the launch block from __launch_bounds__, which makes ptxas
 * keep registers within 65536 / block per thread (spilling if it must)
 * instead of producing a kernel that fails with LAUNCH_OUT_OF_RESOURCES.
 * OpenCL compilers size registers per kernel at enqueue; nothing needed. */
void hy_cg_kernel_open(hy_strbuf *sb, hy_dialect dialect, const char *name, int block,
                       int min_blocks) {
  if (dialect == HY_DIALECT_OPENCL)
    hy_strbuf_appendf(sb, "__kernel void %s(", name);
  else if (min_blocks > 1)
    hy_strbuf_appendf(sb, "extern \"C\" __global__ void __launch_bounds__(%d, %d) %s(", block,
                      min_blocks, name);
  else
    hy_strbuf_appendf(sb, "extern \"C\" __global__ void __launch_bounds__(%d) %s(", block, name);
}

void hy_cg_emit_block_index(hy_strbuf *sb, int reversed) {
  if (reversed)
    hy_strbuf_append(sb, "  const hy_i64 hy_gid = hy_block0 + (HY_BLOCKS - 1 - HY_BLOCK);\n");
  else
    hy_strbuf_append(sb, "  const hy_i64 hy_gid = hy_block0 + HY_BLOCK;\n");
}

const char *hy_cg_global(hy_dialect dialect) {
  return dialect == HY_DIALECT_OPENCL ? "__global " : "";
}

const char *hy_cg_local(hy_dialect dialect) {
  return dialect == HY_DIALECT_OPENCL ? "__local " : "__shared__ ";
}
