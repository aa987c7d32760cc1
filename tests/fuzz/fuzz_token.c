/* Fuzz target: the problem-token parser and printer. Any byte string is
 * parsed; a token that parses must print, and the printed text must parse
 * back to a problem that prints the same (the grammar's round trip). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "problem/problem.h"
#include "util/hy_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *token = malloc(size + 1);
  if (!token) return 0;
  memcpy(token, data, size);
  token[size] = '\0';
  hyfft_problem p;
  if (hy_token_parse(token, &p) == HYFFT_SUCCESS) {
    hy_strbuf a, b;
    hy_strbuf_init(&a);
    hy_strbuf_init(&b);
    hyfft_problem q;
    hy_token_print(&p, &a);
    if (hy_strbuf_status(&a) != HYFFT_SUCCESS || hy_token_parse(a.data, &q) != HYFFT_SUCCESS)
      abort();
    hy_token_print(&q, &b);
    if (hy_strbuf_status(&b) != HYFFT_SUCCESS || strcmp(a.data, b.data) != 0) abort();
    hy_strbuf_free(&a);
    hy_strbuf_free(&b);
  }
  free(token);
  return 0;
}
