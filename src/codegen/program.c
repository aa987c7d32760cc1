/* Operations on a finished program (program.h): freeing it, its table
 * sizes, and cutting it into one translation unit per kernel. */
#include <limits.h>
#include <string.h>

#include "codegen/program.h"

size_t hy_table_bytes(const hy_table *t) {
  size_t entry = t->type == HY_TABLE_COMPLEX_F64   ? 2 * sizeof(double)
                 : t->type == HY_TABLE_COMPLEX_F32 ? 2 * sizeof(float)
                                                   : sizeof(int32_t);
  return (size_t)t->count * entry;
}

void hy_gpu_program_free(hy_gpu_program *program) {
  if (!program) return;
  hy_strbuf_free(&program->source);
  for (int i = 0; i < program->ntables; i++)
    if (!program->tables[i].borrowed) hy_free(program->tables[i].data);
  memset(program, 0, sizeof *program);
}

int hy_gpu_program_has_units(const hy_gpu_program *p) {
  if (!p || !p->source.data || p->nkernels < 1 || p->nkernels > HY_MAX_KERNELS) return 0;
  if (p->prelude_end <= p->prelude_begin) return 0;
  size_t at = p->prelude_end;
  for (int k = 0; k < p->nkernels; k++) {
    size_t b = p->kernel_begin[k], e = p->kernel_end[k];
    if (b < at || e <= b || e > p->source.len) return 0;
    /* The name check catches a layout that does not match the text. */
    size_t nl = strlen(p->names[k]);
    int found = 0;
    for (size_t i = b; !found && i + nl <= e; i++)
      found = memcmp(p->source.data + i, p->names[k], nl) == 0;
    if (!found) return 0;
    at = e;
  }
  return 1;
}

hy_status hy_gpu_program_unit(const hy_gpu_program *p, int k, hy_strbuf *out) {
  if (!hy_gpu_program_has_units(p) || k < 0 || k >= p->nkernels)
    return hy_error(HYFFT_INTERNAL, "program has no kernel unit %d", k);
  const char *s = p->source.data;
  if (p->prelude_end - p->prelude_begin > INT_MAX || p->kernel_end[k] - p->kernel_begin[k] > INT_MAX)
    return hy_error(HYFFT_SIZE_OVERFLOW, "kernel %s: source of more than 2 GB", p->names[k]);
  hy_strbuf_appendf(out, "%.*s", (int)(p->prelude_end - p->prelude_begin), s + p->prelude_begin);
  hy_strbuf_appendf(out, "%.*s", (int)(p->kernel_end[k] - p->kernel_begin[k]),
                    s + p->kernel_begin[k]);
  return hy_strbuf_status(out);
}
