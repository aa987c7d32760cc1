/* The library's environment, read in one place. Every variable the library
 * reads (HYFFT_* and the few system ones it honours) is captured into one
 * immutable snapshot the first time any code asks for it; docs/cli.md,
 * "Environment variables", lists them. Callers read fields of the snapshot
 * instead of calling getenv, so a value means the same in every layer.
 *
 * Raw strings follow hy_getenv's rule: NULL when the variable is unset or
 * empty. Parsed fields hold the value as the code that uses it interprets
 * the raw string. */
#ifndef HY_UTIL_SETTINGS_H
#define HY_UTIL_SETTINGS_H

#include <stdint.h>

#include "util/hy_util.h"

/* Seconds a HYFFT_MEASURE plan may spend timing variants by default. */
#define HY_SETTINGS_MEASURE_BUDGET_DEFAULT 10.0

typedef struct hy_settings {
  /* ---- api/: device selection and wisdom -------------------------------- */
  const char *device;            /* HYFFT_DEVICE: spec of hyfft_context_create(NULL) */
  const char *wisdom;            /* HYFFT_WISDOM: wisdom file imported at the first context */

  /* ---- exec/: measuring planner and host-data staging ------------------- */
  const char *measure_raw;       /* HYFFT_MEASURE */
  int measure;                   /* 1 when set and not "0": every plan measures */
  const char *measure_budget_raw; /* HYFFT_MEASURE_BUDGET */
  double measure_budget;         /* seconds (atof); HY_SETTINGS_MEASURE_BUDGET_DEFAULT unless > 0 */
  const char *staging;           /* HYFFT_STAGING */
  int staging_simple;            /* 1 when "simple": host data goes the per-call way */
  int staging_packed;            /* 1 when "packed": out of core packs pinned user data too */
  const char *device_memory_limit_raw; /* HYFFT_DEVICE_MEMORY_LIMIT */
  /* Bytes of device memory a plan may use (digits with an optional K, M or
   * G suffix, powers of 1024); 0 when unset, -1 when set but not a
   * positive byte count (plan creation then fails, naming the variable). */
  int64_t device_memory_limit;
  const char *ooc_block_row_raw; /* HYFFT_OOC_BLOCK_ROW */
  /* Host row width (bytes) out-of-core blocks grow to where the budget
   * allows (exec/out_of_core.c); 0 when unset (the built-in width), -1
   * when set but not a positive byte count. */
  int64_t ooc_block_row;
  const char *multi_exchange;    /* HYFFT_MULTI_EXCHANGE */
  /* 1 for "host": a multi-device slab plan exchanges through host memory
   * even where its devices can copy device to device (exec/multi_slab.c). */
  int multi_exchange_host;
  const char *cpu_share_raw;     /* HYFFT_CPU_SHARE */
  /* The CPU's share of a hybrid host-data plan on a GPU (exec/hybrid.c):
   * -1 off (unset or "off"), -2 "auto" (the calibrated model), else a
   * fraction in [0, 1]; -3 when set to anything else (context creation
   * then fails, naming the variable). */
  double cpu_share;

  /* ---- util/: threads and the disk cache -------------------------------- */
  const char *num_threads_raw;   /* HYFFT_NUM_THREADS */
  int num_threads;               /* 1..4096 (strtol), 0 otherwise: all cores */
  const char *cache_dir;         /* HYFFT_CACHE_DIR: directory, "off"/"none" disable */
  const char *xdg_cache_home;    /* XDG_CACHE_HOME: $XDG_CACHE_HOME/hyfft without the above */
  const char *home;              /* HOME: $HOME/.cache/hyfft without both */

  /* ---- codegen/: generator switches -------------------------------------- */
  const char *kernel_spec;       /* HYFFT_KERNEL_SPEC: switches applied to every pass */
  const char *rader_raw;         /* HYFFT_RADER */
  int rader;                     /* 1 for "1", 0 for "0", -1 otherwise (the rule decides) */
  const char *l2_chunk_raw;      /* HYFFT_L2_CHUNK */
  int l2_chunk_set;              /* 1 when set: chunked launches instead of persistence */
  int64_t l2_chunk;              /* bytes per chunk (strtoll); <= 0 turns chunking off */
  const char *reverse_raw;       /* HYFFT_REVERSE */
  int reverse;                   /* 0 for "0", else 1: odd passes run blocks backwards */

  /* ---- solvers/: plan shapes --------------------------------------------- */
  const char *planes_raw;        /* HYFFT_PLANES */
  const char *cpu_chunks_raw;    /* HYFFT_CPU_CHUNKS */
  int cpu_chunks_off;            /* 1 for "0": batched CPU plans run unchunked */
  int64_t cpu_chunk_bytes;       /* a byte count given: a chunk's budget; 0 the model's; -1 bad */
  const char *cpu_short_raw;     /* HYFFT_CPU_SHORT */
  int cpu_short_off;             /* 1 for "0": short back-to-back CPU transforms run through
                                    the lane arrays instead of straight-line kernels */
  const char *cpu_stream_raw;    /* HYFFT_CPU_STREAM */
  int cpu_stream;                /* -1 unset (by size), 0 for "0", 1 for "1": whether out-of-place
                                    CPU passes write their output with non-temporal stores */
  const char *cpu_rows_raw;      /* HYFFT_CPU_ROWS */
  int cpu_rows;                  /* -1 unset (measured per length), 0 for "0", 1 for "1":
                                    whether full lane groups of rows shorter than LANES^3
                                    take the row path */
  const char *cpu_local_raw;     /* HYFFT_CPU_LOCAL */
  int cpu_local_off;             /* 1 for "0": four-step CPU nodes never run local copies */
  int64_t cpu_local_bytes;       /* a byte count given: the L2 size the rule assumes; 0 the
                                    machine's; -1 bad */
  const char *cpu_direct_max_raw; /* HYFFT_CPU_DIRECT_MAX */
  int64_t cpu_direct_max;        /* points: the longest CPU transform run as one gathered lane
                                    group; 0 unset (from the L2 cache's size) */
  int planes;                    /* 0 for "0", else 1: plane passes allowed */
  const char *bluestein_unfused; /* HYFFT_BLUESTEIN_UNFUSED: set keeps the pointwise chain */
  const char *real_unfused;      /* HYFFT_REAL_UNFUSED: set keeps real and r2r steps as passes */
  const char *conv_unfused;      /* HYFFT_CONV_UNFUSED: set gives convolution plans a separate
                                    pointwise pass instead of the inverse's load callback */
  const char *four_step_passes_raw; /* HYFFT_FOUR_STEP_PASSES */
  int four_step_three;           /* 0 for "2", else 1: a split may take three passes */

  /* ---- backend/opencl ---------------------------------------------------- */
  const char *opencl_library;    /* HYFFT_OPENCL_LIBRARY: path of the ICD loader */
  const char *opencl_max_pass_raw; /* HYFFT_OPENCL_MAX_PASS */
  int64_t opencl_max_pass;       /* atoll; caps the pass length when >= 2 and below the limit */

  /* ---- backend/cuda ------------------------------------------------------ */
  const char *cuda_home;         /* CUDA_HOME: where NVRTC is looked for first */
  const char *cuda_path;         /* CUDA_PATH: then here, then /usr/local/cuda */
  const char *cuda_background_raw; /* HYFFT_CUDA_BACKGROUND */
  int cuda_background;           /* 0 for "0", else 1: quick tier while the final compiles */
  const char *cuda_lineinfo;     /* HYFFT_CUDA_LINEINFO: set adds -lineinfo */
  const char *nvrtc_options;     /* HYFFT_NVRTC_OPTIONS: more NVRTC options, space separated */
} hy_settings;

/* The current snapshot; never NULL. Thread-safe; the first call reads the
 * environment. A returned snapshot stays valid for the life of the process. */
const hy_settings *hy_settings_get(void);

/* Read the environment again and make that the current snapshot. For
 * tests and tools that change variables with setenv after the library has
 * read them; earlier snapshots stay valid for readers that hold them. */
void hy_settings_reload(void);

/* Whether every variable with a documented set of values holds one of
 * them: HYFFT_INVALID_ARGUMENT naming the variable and its value
 * otherwise. hyfft_context_create calls it, so that a bad value is an
 * error where the program starts instead of a silent default. */
hy_status hy_settings_check(void);

#endif /* HY_UTIL_SETTINGS_H */
