/* The Bluestein spectrum memo (src/codegen/cg_kernel.c): a spectrum served
 * from the memo equals the one computed afresh, for every key, also after
 * more keys than the memo holds have pushed the first ones out, and from
 * several threads at once. Each reference is computed before the key is
 * ever seen, with a key whose entries differ (another sign), so a memo
 * that mixed keys up would fail. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "codegen/codegen.h"

typedef struct key {
  int64_t n, m;
  int sign;
  hyfft_precision p;
} key;

static const key hy_keys[] = {
    {17, 32, -1, HYFFT_F32},   {17, 32, 1, HYFFT_F32},    {257, 512, -1, HYFFT_F64},
    {257, 512, 1, HYFFT_F64},  {101, 200, -1, HYFFT_F32}, {101, 216, -1, HYFFT_F32},
    {1009, 2048, -1, HYFFT_F64}, {1009, 2048, -1, HYFFT_F32}, {97, 192, 1, HYFFT_F64},
    {641, 1280, -1, HYFFT_F32}, {4099, 8192, 1, HYFFT_F32}, {13, 24, -1, HYFFT_F64}};
#define NKEYS (int)(sizeof hy_keys / sizeof hy_keys[0])

static size_t bytes_of(const key *k) { return (size_t)k->m * (k->p == HYFFT_F64 ? 16 : 8); }

static void *reference[NKEYS];

static int same(const key *k, const void *got) { return memcmp(got, reference[k - hy_keys], bytes_of(k)) == 0; }

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg, bad = 0;
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < NKEYS; i++) {
      const key *k = &hy_keys[(i * 5 + id + round) % NKEYS];
      void *got = malloc(bytes_of(k));
      if (!got || hy_cg_bluestein_spectrum(k->n, k->m, k->sign, k->p, got) != HYFFT_SUCCESS ||
          !same(k, got))
        bad++;
      free(got);
    }
  return (void *)(intptr_t)bad;
}

int main(void) {
  /* References in order: every one computed before its key is in the memo
   * (the keys are distinct), and the later ones push the first out. */
  for (int i = 0; i < NKEYS; i++) {
    reference[i] = malloc(bytes_of(&hy_keys[i]));
    CHECK(reference[i] != NULL, "out of memory");
    if (!reference[i]) return hy_test_summary();
    CHECK_OK(hy_cg_bluestein_spectrum(hy_keys[i].n, hy_keys[i].m, hy_keys[i].sign, hy_keys[i].p,
                                      reference[i]));
  }
  /* Keys that differ only in the sign must give different spectra, or the
   * comparison below could not see a memo that confused them. */
  CHECK(memcmp(reference[0], reference[1], bytes_of(&hy_keys[0])) != 0,
        "the spectra of n=17 for both signs are identical");
  /* Again, one at a time: recent keys from the memo, early ones afresh. */
  for (int i = NKEYS - 1; i >= 0; i--) {
    void *got = malloc(bytes_of(&hy_keys[i]));
    CHECK_OK(hy_cg_bluestein_spectrum(hy_keys[i].n, hy_keys[i].m, hy_keys[i].sign, hy_keys[i].p, got));
    CHECK(same(&hy_keys[i], got), "n=%lld m=%lld sign %d: the second spectrum differs",
          (long long)hy_keys[i].n, (long long)hy_keys[i].m, hy_keys[i].sign);
    free(got);
  }
  /* Four threads at once. */
  pthread_t th[4];
  for (int t = 0; t < 4; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "thread");
  for (int t = 0; t < 4; t++) {
    void *bad = NULL;
    pthread_join(th[t], &bad);
    CHECK((intptr_t)bad == 0, "thread %d: %d spectra differed", t, (int)(intptr_t)bad);
  }
  for (int i = 0; i < NKEYS; i++) free(reference[i]);
  return hy_test_summary();
}
