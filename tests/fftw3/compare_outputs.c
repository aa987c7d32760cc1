/* compare_outputs REF TEST: two outputs of one FFTW program, lines of
 * "TAG v1 [v2]" where TAG starts with d. (double), f. (single) or i.
 * (integers, compared exactly). Per tag, the relative RMS difference
 * ||test - ref|| / ||ref|| must stay under 1e-12 (d.) or 2e-6 (f.), the
 * level of two correct FFTs; the files must have the same lines and tags.
 * Exit 0 when they agree, 1 with the first disagreement printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAGS 64

typedef struct tag_sum {
  char name[32];
  double diff2, ref2;
} tag_sum;

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: compare_outputs REF TEST\n");
    return 2;
  }
  FILE *a = fopen(argv[1], "r"), *b = fopen(argv[2], "r");
  if (!a || !b) {
    fprintf(stderr, "cannot open %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  tag_sum tags[MAX_TAGS];
  int ntags = 0;
  long line = 0;
  char la[512], lb[512];
  for (;;) {
    char *ga = fgets(la, sizeof la, a), *gb = fgets(lb, sizeof lb, b);
    line++;
    if (!ga && !gb) break;
    if (!ga || !gb) {
      printf("line %ld: one output ends early\n", line);
      return 1;
    }
    char ta[32], tb[32];
    double va[2] = {0, 0}, vb[2] = {0, 0};
    int na = sscanf(la, "%31s %lf %lf", ta, &va[0], &va[1]);
    int nb = sscanf(lb, "%31s %lf %lf", tb, &vb[0], &vb[1]);
    if (na < 2 || na != nb || strcmp(ta, tb) != 0) {
      printf("line %ld: '%s' against '%s'\n", line, la, lb);
      return 1;
    }
    if (ta[0] == 'i') {
      if (va[0] != vb[0] || va[1] != vb[1]) {
        printf("line %ld: %s differs: %s against %s", line, ta, la, lb);
        return 1;
      }
      continue;
    }
    int t = 0;
    while (t < ntags && strcmp(tags[t].name, ta) != 0) t++;
    if (t == ntags) {
      if (ntags == MAX_TAGS) return 2;
      snprintf(tags[t].name, sizeof tags[t].name, "%s", ta);
      tags[t].diff2 = tags[t].ref2 = 0;
      ntags++;
    }
    for (int k = 0; k < na - 1; k++) {
      tags[t].diff2 += (vb[k] - va[k]) * (vb[k] - va[k]);
      tags[t].ref2 += va[k] * va[k];
    }
  }
  int bad = 0;
  for (int t = 0; t < ntags; t++) {
    double rel = tags[t].ref2 > 0 ? sqrt(tags[t].diff2 / tags[t].ref2) : sqrt(tags[t].diff2);
    double gate = tags[t].name[0] == 'd' ? 1e-12 : 2e-6;
    printf("%-12s rel RMS %.3e (gate %.0e) %s\n", tags[t].name, rel, gate, rel <= gate ? "ok" : "FAIL");
    bad |= !(rel <= gate);
  }
  return bad;
}
