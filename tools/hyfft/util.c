/* Helpers of the command-line tool: messages, parsing, timing, random
 * numbers, dlopen, and suite files. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void cli_msg(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "hyfft %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cli_status_msg(const char *cmd, const char *what, hyfft_status st) {
  const char *detail = hyfft_last_error();
  fprintf(stderr, "hyfft %s: %s: %s: %s\n", cmd, what, hyfft_status_name(st),
          detail && *detail ? detail : hyfft_strerror(st));
}

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_parse_i64(const char *s, int64_t *out) {
  if (!s || !*s) return -1;
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int cli_parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-') return -1;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int cli_num_threads(void) {
  const char *e = getenv("HYFFT_NUM_THREADS");
  int64_t v;
  if (e && cli_parse_i64(e, &v) == 0 && v >= 1 && v <= 4096) return (int)v;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 ? (int)n : 1;
}

void *cli_alloc(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  return aligned_alloc(64, rounded);
}

void cli_free(void *p) { free(p); }

int cli_dlsym(void *handle, const char *name, void *slot) {
  void *f = dlsym(handle, name);
  memcpy(slot, &f, sizeof f);
  return f != NULL;
}

void *cli_dlopen_first(const char *const *names, const char **which) {
  for (int i = 0; names[i]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) {
      if (which) *which = names[i];
      return h;
    }
  }
  return NULL;
}

/* ---- random numbers ----------------------------------------------------------- */

static uint64_t cli_splitmix(uint64_t *x) {
  uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void cli_rng_seed(cli_rng *r, uint64_t seed, const char *token) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const char *c = token ? token : ""; *c; c++) h = (h ^ (unsigned char)*c) * UINT64_C(0x100000001b3);
  uint64_t x = seed ^ h;
  for (int i = 0; i < 4; i++) r->s[i] = cli_splitmix(&x);
}

static uint64_t cli_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

double cli_rng_uniform(cli_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = cli_rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = cli_rotl(s[3], 45);
  return (double)(result >> 11) * 0x1.0p-52 - 1.0;
}

/* ---- suites ---------------------------------------------------------------------- */

static int cli_push_token(char ***tokens, int *n, int *cap, const char *text, size_t len) {
  if (*n == *cap) {
    int ncap = *cap ? *cap * 2 : 32;
    char **t = realloc(*tokens, (size_t)ncap * sizeof *t);
    if (!t) return -1;
    *tokens = t;
    *cap = ncap;
  }
  char *copy = malloc(len + 1);
  if (!copy) return -1;
  memcpy(copy, text, len);
  copy[len] = '\0';
  (*tokens)[(*n)++] = copy;
  return 0;
}

/* Whether path names a regular file (or a link to one): a directory of
 * the same name as a suite, such as ./cpu, does not shadow the suite. */
static int cli_file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A suite by name: $HYFFT_SUITE_DIR, the source tree, the install tree. */
static int cli_find_suite(const char *name, char *path, size_t len) {
  const char *dirs[4] = {getenv("HYFFT_SUITE_DIR"), NULL, NULL, NULL};
#ifdef HYFFT_CLI_SOURCE_SUITES
  dirs[1] = HYFFT_CLI_SOURCE_SUITES;
#endif
#ifdef HYFFT_CLI_INSTALL_SUITES
  dirs[2] = HYFFT_CLI_INSTALL_SUITES;
#endif
  for (int d = 0; d < 3; d++) {
    if (!dirs[d] || !*dirs[d]) continue;
    snprintf(path, len, "%s/%s.txt", dirs[d], name);
    if (cli_file_exists(path)) return 1;
    snprintf(path, len, "%s/%s", dirs[d], name);
    if (cli_file_exists(path)) return 1;
  }
  return 0;
}

static int cli_read_suite(const char *cmd, const char *path, char ***tokens, int *n, int *cap) {
  FILE *f = fopen(path, "r");
  if (!f) {
    cli_msg(cmd, "cannot open suite '%s': %s", path, strerror(errno));
    return -1;
  }
  char line[4096];
  int lineno = 0, rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *p = line;
    while (rc == 0 && *p) {
      while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
      if (!*p) break;
      char *start = p;
      while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
      if (cli_push_token(tokens, n, cap, start, (size_t)(p - start))) {
        cli_msg(cmd, "out of memory reading suite '%s'", path);
        rc = -1;
      }
    }
  }
  if (rc == 0 && ferror(f)) {
    cli_msg(cmd, "error reading suite '%s' near line %d: %s", path, lineno, strerror(errno));
    rc = -1;
  }
  fclose(f);
  return rc;
}

int cli_expand_tokens(const char *cmd, int nargs, char **args, char ***tokens, int *ntokens) {
  char **t = NULL;
  int n = 0, cap = 0;
  for (int i = 0; i < nargs; i++) {
    const char *a = args[i];
    char path[4096];
    int rc;
    if (a[0] == '\0') {
      cli_msg(cmd, "an empty argument where a problem token or suite belongs");
      rc = -1;
    } else if (cli_file_exists(a)) {
      rc = cli_read_suite(cmd, a, &t, &n, &cap);
    } else if (strchr(a, ':')) {
      rc = cli_push_token(&t, &n, &cap, a, strlen(a));
      if (rc) cli_msg(cmd, "out of memory");
    } else if (cli_find_suite(a, path, sizeof path)) {
      rc = cli_read_suite(cmd, path, &t, &n, &cap);
    } else {
      cli_msg(cmd, "'%s' is neither a problem token (KIND:PREC:...) nor a suite file or name "
                   "(see bench/suites, or set HYFFT_SUITE_DIR)", a);
      rc = -1;
    }
    if (rc) {
      cli_free_tokens(t, n);
      return -1;
    }
  }
  *tokens = t;
  *ntokens = n;
  return 0;
}

int cli_check_output(const char *cmd, const char *option, const char *path) {
  if (!path) return 0;
  /* Append mode: an existing file is left as it is; one made here goes. */
  int existed = cli_file_exists(path);
  FILE *f = fopen(path, "a");
  if (!f) {
    cli_msg(cmd, "%s '%s' cannot be written: %s", option, path, strerror(errno));
    return -1;
  }
  fclose(f);
  if (!existed) remove(path);
  return 0;
}

void cli_free_tokens(char **tokens, int ntokens) {
  for (int i = 0; i < ntokens; i++) free(tokens[i]);
  free(tokens);
}
