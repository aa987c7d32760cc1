/* Generated programs: the source text of a plan's kernels, their tables
 * and launches, as the generator hands them to a backend (types and the
 * few operations on a finished program). */
#ifndef HY_CODEGEN_PROGRAM_H
#define HY_CODEGEN_PROGRAM_H

#include "backend/backend.h"

/* HY_CODEGEN_VERSION (planner/plan.h) keys the kernel caches and wisdom. */

#define HY_MAX_KERNELS 32
#define HY_MAX_TABLES 32
#define HY_MAX_LAUNCHES 64
#define HY_MAX_KERNEL_ARGS 24

typedef enum hy_dialect { HY_DIALECT_OPENCL = 0, HY_DIALECT_CUDA = 1 } hy_dialect;

typedef enum hy_arg_kind {
  HY_ARG_BUFFER = 0, /* index is a hy_buffer (in, out, work0, work1) */
  HY_ARG_TABLE = 1,  /* index is one of the program's constant tables */
  HY_ARG_BLOCK_OFFSET = 2 /* the launch's block_offset as a 64-bit integer (index unused):
                             every generated kernel takes it last, as hy_block0 */
} hy_arg_kind;

typedef struct hy_kernel_arg {
  hy_arg_kind kind;
  int index;
} hy_kernel_arg;

typedef struct hy_launch {
  int kernel;          /* index into names[] */
  int64_t grid;        /* number of blocks / work-groups (1D) */
  int block;           /* threads per block / work-group size */
  size_t shared_bytes; /* dynamic shared memory (CUDA); OpenCL kernels declare
                          their local arrays statically and report it here */
  int nargs;
  hy_kernel_arg args[HY_MAX_KERNEL_ARGS]; /* in order: pointers/cl_mem, then the block offset,
                                             then a callback plan's user pointers */
  /* Kernels number their blocks hy_block0 + the block index, so a launch
   * may run any contiguous part [block_offset, block_offset + grid) of its
   * pass's blocks (the L2 chunks of codegen.c). */
  int64_t block_offset;
  /* Blocks per element of the problem's outermost batch loop when every
   * block works inside one element and they come in element order (so a
   * run of whole elements is a run of blocks); 0 when not. */
  int64_t batch_blocks;
} hy_launch;

/* What a table's entries are. Kernels declare a complex table as real2
 * (the plan's precision) and an index table as int. */
typedef enum hy_table_type {
  HY_TABLE_COMPLEX_F32, /* float re, im */
  HY_TABLE_COMPLEX_F64, /* double re, im */
  HY_TABLE_INDEX,       /* 32-bit signed integers (Rader's g^q mod p) */
} hy_table_type;

typedef struct hy_table {
  int64_t count;      /* entries */
  hy_table_type type; /* what an entry is */
  void *data;         /* host copy; complex entries computed in higher precision then
                         rounded */
  uint64_t key;       /* what it was computed from (0: not recorded), see reuse below */
  int borrowed;       /* 1: data belongs to the program `reuse` points to, and is not
                         freed with this one (codegen.c hands it over) */
} hy_table;

/* Bytes of a table's data. */
size_t hy_table_bytes(const hy_table *t);

typedef struct hy_gpu_program {
  hy_dialect dialect;
  hy_strbuf source; /* all kernels of the plan in one translation unit */
  /* Where its pieces lie, so that a backend can also compile every kernel
   * as a translation unit of its own (prelude + that kernel's block), all
   * in parallel: source[prelude_begin, prelude_end) is what every kernel
   * uses (dialect macros, types, helper functions); source[kernel_begin[k],
   * kernel_end[k]) is kernel k's block (its comment and function), which
   * uses nothing else. The comments naming the plan (the header and one
   * before each block) lie outside, so identical kernels of different plans
   * give identical units. All 0 in a program not made by the generator. */
  size_t prelude_begin, prelude_end;
  size_t kernel_begin[HY_MAX_KERNELS], kernel_end[HY_MAX_KERNELS];
  int nkernels;
  char names[HY_MAX_KERNELS][64];
  int ntables;
  hy_table tables[HY_MAX_TABLES];
  /* While a program is generated from another one's passes (the
   * persistent kernel, cg_persist.c): the program whose tables it
   * borrows instead of computing them again (not owned). */
  const struct hy_gpu_program *reuse;
  int nlaunches;
  hy_launch launches[HY_MAX_LAUNCHES];
  uint64_t hash; /* of source text and HY_CODEGEN_VERSION */
  /* Complex elements of WORK0 the program touches when fewer than the
   * plan tree's (a persistent kernel's ring of work slots and its counters,
   * cg_persist.c); 0: the tree's work_elems. */
  int64_t work_elems;
} hy_gpu_program;

void hy_gpu_program_free(hy_gpu_program *program);
/* 1 when the program records a valid prelude and kernel blocks (in order,
 * inside the source, each holding its kernel's name), 0 otherwise. */
int hy_gpu_program_has_units(const hy_gpu_program *program);
/* Kernel k's own translation unit: the prelude, then its block. */
hy_status hy_gpu_program_unit(const hy_gpu_program *program, int k, hy_strbuf *out);


#endif /* HY_CODEGEN_PROGRAM_H */
