/* The host steps that turn a 1D real transform of even length n = 2m into
 * a complex one of length m, for out-of-core plans (exec/out_of_core.c):
 * the R2C step after the m-point DFT of the reals viewed as complex (in
 * place on the output's m + 1 bins), and the C2R step before the
 * m-point inverse DFT (from the m + 1 input bins to m complex values,
 * in place or into another buffer). One pass over the data on the host,
 * threads over the pairs of bins (k, m - k). */
#ifndef HY_EXEC_OOC_REAL_H
#define HY_EXEC_OOC_REAL_H

#include <stdint.h>

#include "util/hy_util.h"

/* exp(sign 2 pi i k / n) for k = 0..n/4 as the product of two tables. */
typedef struct hy_ooc_real_tables {
  double *lo, *hi; /* interleaved complex: lo[k % split], hi[k / split] */
  int64_t split, n;
} hy_ooc_real_tables;

hy_status hy_ooc_real_tables_make(hy_ooc_real_tables *t, int64_t n, int sign);
void hy_ooc_real_tables_free(hy_ooc_real_tables *t);

/* One step over `batch` transforms: complex elements (f32 or f64 pairs)
 * at src + b * src_batch + k * src_stride, likewise dst. R2C: src holds
 * Z_0..Z_m-1 and may be dst, which gets X_0..X_m. C2R: src holds
 * X_0..X_m, dst gets Z_0..Z_m-1 (dst == src allowed). */
typedef struct hy_ooc_real_step {
  const hy_ooc_real_tables *tables;
  int r2c, f64;
  const char *src;
  int64_t src_stride, src_batch;
  char *dst;
  int64_t dst_stride, dst_batch;
} hy_ooc_real_step;

void hy_ooc_real_run(const hy_ooc_real_step *step, int64_t batch);

#endif /* HY_EXEC_OOC_REAL_H */
