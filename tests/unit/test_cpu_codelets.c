/* The CPU engine's generated codelets are the generator's current output:
 * src/backend/cpu/cpu_codelets_gen.h is regenerated (codegen/cg_cpu.c) and
 * compared byte for byte with the committed file, so a change to the radix
 * generator cannot leave the CPU on stale codelets (nor an edit by hand go
 * unnoticed). `--write FILE` writes the text instead. Whether the codelets
 * compute DFTs is the CPU accuracy suites' job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "util/hy_util.h"

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "--check") != 0 && strcmp(argv[1], "--write") != 0)) {
    fprintf(stderr, "usage: %s --check|--write FILE\n", argv[0]);
    return 2;
  }
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  if (hy_codegen_cpu_codelets(&sb) != HYFFT_SUCCESS) {
    fprintf(stderr, "FAIL: the generator: %s\n", hyfft_last_error());
    return 1;
  }
  if (strcmp(argv[1], "--write") == 0) {
    FILE *f = fopen(argv[2], "wb");
    int ok = f && fwrite(sb.data, 1, sb.len, f) == sb.len;
    if (f && fclose(f) != 0) ok = 0;
    hy_strbuf_free(&sb);
    if (!ok) {
      fprintf(stderr, "FAIL: cannot write %s\n", argv[2]);
      return 1;
    }
    printf("wrote %s\n", argv[2]);
    return 0;
  }
  FILE *f = fopen(argv[2], "rb");
  if (!f) {
    fprintf(stderr, "FAIL: cannot read %s\n", argv[2]);
    hy_strbuf_free(&sb);
    return 1;
  }
  char *have = malloc(sb.len + 2);
  size_t got = have ? fread(have, 1, sb.len + 1, f) : 0;
  fclose(f);
  int same = have && got == sb.len && memcmp(have, sb.data, sb.len) == 0;
  if (!same) {
    size_t at = 0;
    while (have && at < got && at < sb.len && have[at] == sb.data[at]) at++;
    fprintf(stderr,
            "FAIL: %s differs from the generator's output (%zu bytes, generated %zu; first "
            "difference at byte %zu); regenerate it with --write\n",
            argv[2], got, sb.len, at);
  } else {
    printf("%s: %zu bytes, as generated\n", argv[2], sb.len);
  }
  free(have);
  hy_strbuf_free(&sb);
  return same ? 0 : 1;
}
