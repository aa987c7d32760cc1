/* The process-wide wisdom table and its text form (planner/wisdom.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/kernel_spec.h"
#include "planner/planner.h"
#include "planner/wisdom.h"

/* The two kinds of entry: a plan's solver and variant, a hybrid share. */
enum { HY_WISDOM_PLAN = 0, HY_WISDOM_SHARE = 1 };

typedef struct hy_wisdom_entry {
  char *token;
  char *device;
  int kind;
  hy_wisdom_value value; /* HY_WISDOM_PLAN */
  double share;          /* HY_WISDOM_SHARE: for pageable host data */
  double pinned;         /* HY_WISDOM_SHARE: for page-locked host data, -1 none */
} hy_wisdom_entry;

static pthread_mutex_t hy_wisdom_lock = PTHREAD_MUTEX_INITIALIZER;
static hy_wisdom_entry *hy_wisdom_table;
static int hy_wisdom_n, hy_wisdom_cap;

static char *hy_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = hy_malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Caller holds the lock. */
static int hy_wisdom_find(const char *token, const char *device, int kind) {
  for (int i = 0; i < hy_wisdom_n; i++)
    if (hy_wisdom_table[i].kind == kind && strcmp(hy_wisdom_table[i].token, token) == 0 &&
        strcmp(hy_wisdom_table[i].device, device) == 0)
      return i;
  return -1;
}

/* Caller holds the lock. */
static hy_status hy_wisdom_put(const char *token, const char *device, int kind,
                               const hy_wisdom_value *v, double share, double pinned) {
  int i = hy_wisdom_find(token, device, kind);
  if (i >= 0) {
    if (v) hy_wisdom_table[i].value = *v;
    hy_wisdom_table[i].share = share;
    hy_wisdom_table[i].pinned = pinned;
    return HYFFT_SUCCESS;
  }
  if (hy_wisdom_n == hy_wisdom_cap) {
    int cap = hy_wisdom_cap ? 2 * hy_wisdom_cap : 16;
    hy_wisdom_entry *t = hy_realloc(hy_wisdom_table, (size_t)cap * sizeof *t);
    if (!t) return hy_error(HYFFT_OUT_OF_MEMORY, "wisdom: cannot grow the table");
    hy_wisdom_table = t;
    hy_wisdom_cap = cap;
  }
  hy_wisdom_entry e = {hy_strdup(token), hy_strdup(device), kind, {{0}, {0}}, share, pinned};
  if (v) e.value = *v;
  if (!e.token || !e.device) {
    free(e.token);
    free(e.device);
    return hy_error(HYFFT_OUT_OF_MEMORY, "wisdom: cannot store an entry");
  }
  hy_wisdom_table[hy_wisdom_n++] = e;
  return HYFFT_SUCCESS;
}

int hy_wisdom_lookup(const char *token, const char *device, hy_wisdom_value *out) {
  pthread_mutex_lock(&hy_wisdom_lock);
  int i = hy_wisdom_find(token, device, HY_WISDOM_PLAN);
  if (i >= 0) *out = hy_wisdom_table[i].value;
  pthread_mutex_unlock(&hy_wisdom_lock);
  return i >= 0;
}

hy_status hy_wisdom_store(const char *token, const char *device, const hy_wisdom_value *value) {
  pthread_mutex_lock(&hy_wisdom_lock);
  hy_status st = hy_wisdom_put(token, device, HY_WISDOM_PLAN, value, 0, -1);
  pthread_mutex_unlock(&hy_wisdom_lock);
  return st;
}

int hy_wisdom_lookup_share(const char *token, const char *device, double *share,
                           double *pinned) {
  pthread_mutex_lock(&hy_wisdom_lock);
  int i = hy_wisdom_find(token, device, HY_WISDOM_SHARE);
  if (i >= 0) {
    *share = hy_wisdom_table[i].share;
    if (pinned) *pinned = hy_wisdom_table[i].pinned;
  }
  pthread_mutex_unlock(&hy_wisdom_lock);
  return i >= 0;
}

hy_status hy_wisdom_store_share(const char *token, const char *device, double share,
                                double pinned) {
  pthread_mutex_lock(&hy_wisdom_lock);
  hy_status st = hy_wisdom_put(token, device, HY_WISDOM_SHARE, NULL, share, pinned < 0 ? -1 : pinned);
  pthread_mutex_unlock(&hy_wisdom_lock);
  return st;
}

void hy_wisdom_forget(void) {
  pthread_mutex_lock(&hy_wisdom_lock);
  for (int i = 0; i < hy_wisdom_n; i++) {
    free(hy_wisdom_table[i].token);
    free(hy_wisdom_table[i].device);
  }
  free(hy_wisdom_table);
  hy_wisdom_table = NULL;
  hy_wisdom_n = hy_wisdom_cap = 0;
  pthread_mutex_unlock(&hy_wisdom_lock);
}

int hy_wisdom_count(void) {
  pthread_mutex_lock(&hy_wisdom_lock);
  int n = hy_wisdom_n;
  pthread_mutex_unlock(&hy_wisdom_lock);
  return n;
}

hy_status hy_wisdom_export(hy_strbuf *sb) {
  pthread_mutex_lock(&hy_wisdom_lock);
  /* The oldest format that holds the table: 1 without shares, 2 with
   * pageable shares alone, 3 once a share for page-locked data is known. */
  int format = HY_WISDOM_FORMAT_MIN;
  for (int i = 0; i < hy_wisdom_n; i++) {
    const hy_wisdom_entry *e = &hy_wisdom_table[i];
    int need = e->kind != HY_WISDOM_SHARE ? 1 : e->pinned >= 0 ? 3 : 2;
    if (need > format) format = need;
  }
  hy_strbuf_appendf(sb, "hyfft-wisdom %d\n", format);
  for (int i = 0; i < hy_wisdom_n; i++) {
    const hy_wisdom_entry *e = &hy_wisdom_table[i];
    if (e->kind == HY_WISDOM_SHARE && format < 3)
      hy_strbuf_appendf(sb, "%d %s share %.17g %s\n", HY_CODEGEN_VERSION, e->token, e->share,
                        e->device);
    else if (e->kind == HY_WISDOM_SHARE && e->pinned < 0)
      hy_strbuf_appendf(sb, "%d %s share %.17g - %s\n", HY_CODEGEN_VERSION, e->token, e->share,
                        e->device);
    else if (e->kind == HY_WISDOM_SHARE)
      hy_strbuf_appendf(sb, "%d %s share %.17g %.17g %s\n", HY_CODEGEN_VERSION, e->token,
                        e->share, e->pinned, e->device);
    else
      hy_strbuf_appendf(sb, "%d %s %s %s %s\n", HY_CODEGEN_VERSION, e->token, e->value.solver,
                        e->value.spec[0] ? e->value.spec : "-", e->device);
  }
  pthread_mutex_unlock(&hy_wisdom_lock);
  return hy_strbuf_status(sb);
}

typedef struct hy_wisdom_parsed {
  char token[256];
  char device[256];
  int kind;
  hy_wisdom_value value;
  double share, pinned;
} hy_wisdom_parsed;

/* Next space-separated field of line (no leading spaces allowed: one
 * space between fields, so that a file has one spelling). */
static int hy_wisdom_field(const char **s, char *out, size_t size) {
  const char *p = *s;
  size_t n = 0;
  while (p[n] && p[n] != ' ') n++;
  if (n == 0 || n >= size) return 0;
  memcpy(out, p, n);
  out[n] = 0;
  *s = p[n] == ' ' ? p + n + 1 : p + n;
  return 1;
}

#define HY_BAD(...) hy_error(HYFFT_INVALID_WISDOM, __VA_ARGS__)

/* Parse one entry line (NUL-terminated, no newline). *skip = 1 when it is
 * for another generator version. */
static hy_status hy_wisdom_parse_line(const char *line, const char *origin, int lineno,
                                      int format, hy_wisdom_parsed *e, int *skip) {
  const char *s = line;
  char field[256];
  *skip = 0;
  if (!hy_wisdom_field(&s, field, sizeof field))
    return HY_BAD("%s:%d: expected a generator version", origin, lineno);
  char *end = NULL;
  long version = strtol(field, &end, 10);
  if (*end || version < 1)
    return HY_BAD("%s:%d: generator version '%s' is not a positive integer", origin, lineno, field);
  if (version != HY_CODEGEN_VERSION) {
    *skip = 1;
    return HYFFT_SUCCESS;
  }
  if (!hy_wisdom_field(&s, e->token, sizeof e->token))
    return HY_BAD("%s:%d: expected a problem token", origin, lineno);
  hyfft_problem problem;
  if (hy_token_parse(e->token, &problem) != HYFFT_SUCCESS) {
    /* Copied: hy_error formats into the buffer that holds the message. */
    char why[256];
    snprintf(why, sizeof why, "%s", hyfft_last_error());
    return HY_BAD("%s:%d: bad problem token '%s': %s", origin, lineno, e->token, why);
  }
  /* One spelling per problem, so that lookups by printed token match. */
  hy_strbuf sb;
  hy_strbuf_init(&sb);
  hy_token_print(&problem, &sb);
  int canonical = sb.data && strcmp(sb.data, e->token) == 0;
  hy_strbuf_free(&sb);
  if (!canonical) return HY_BAD("%s:%d: token '%s' is not in canonical form", origin, lineno, e->token);
  memset(&e->value, 0, sizeof e->value);
  e->kind = HY_WISDOM_PLAN;
  e->share = 0;
  e->pinned = -1;
  if (!hy_wisdom_field(&s, e->value.solver, sizeof e->value.solver))
    return HY_BAD("%s:%d: expected a known solver name", origin, lineno);
  if (strcmp(e->value.solver, "share") == 0) {
    /* A hybrid plan's CPU share: a number in [0, 1]. */
    if (format < 2)
      return HY_BAD("%s:%d: a share entry in a format 1 file (shares came with format 2)",
                    origin, lineno);
    if (!hy_wisdom_field(&s, field, sizeof field))
      return HY_BAD("%s:%d: expected a CPU share", origin, lineno);
    double share = strtod(field, &end);
    if (*end || !(share >= 0 && share <= 1))
      return HY_BAD("%s:%d: CPU share '%s' is not a number from 0 to 1", origin, lineno, field);
    e->kind = HY_WISDOM_SHARE;
    e->share = share;
    /* Format 3 adds the share for page-locked host data, or '-' where
     * the backend does not page-lock host memory. */
    if (format >= 3) {
      if (!hy_wisdom_field(&s, field, sizeof field))
        return HY_BAD("%s:%d: expected a CPU share for page-locked data (or -)", origin, lineno);
      if (strcmp(field, "-") != 0) {
        double pinned = strtod(field, &end);
        if (*end || !(pinned >= 0 && pinned <= 1))
          return HY_BAD("%s:%d: CPU share for page-locked data '%s' is not a number from 0 "
                        "to 1 (or -)", origin, lineno, field);
        e->pinned = pinned;
      }
    }
    e->value.solver[0] = 0;
  } else {
    if (!hy_planner_solver_known(e->value.solver))
      return HY_BAD("%s:%d: expected a known solver name", origin, lineno);
    if (!hy_wisdom_field(&s, field, sizeof field))
      return HY_BAD("%s:%d: expected a kernel variant (or -)", origin, lineno);
    if (strcmp(field, "-") == 0) field[0] = 0;
    if (strlen(field) >= sizeof e->value.spec || hy_kernel_spec_check(field) != HYFFT_SUCCESS)
      return HY_BAD("%s:%d: bad kernel variant '%s'", origin, lineno, field);
    snprintf(e->value.spec, sizeof e->value.spec, "%s", field);
  }
  size_t dn = strlen(s);
  if (dn == 0) return HY_BAD("%s:%d: expected a device name", origin, lineno);
  if (dn >= sizeof e->device) return HY_BAD("%s:%d: device name too long", origin, lineno);
  /* Control characters (a stray carriage return past the CRLF the reader
   * strips) would not survive export and import: refused. */
  for (size_t i = 0; i < dn; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      return HY_BAD("%s:%d: device name has a control character (byte %zu)", origin, lineno, i);
  memcpy(e->device, s, dn + 1);
  return HYFFT_SUCCESS;
}

hy_status hy_wisdom_import(const char *text, const char *origin) {
  if (!text) return hy_error(HYFFT_NULL_POINTER, "wisdom text is NULL");
  hy_wisdom_parsed *list = NULL;
  int n = 0, cap = 0, lineno = 0, header = 0, format = 0;
  hy_status st = HYFFT_SUCCESS;
  char line[1024];
  const char *p = text;
  while (*p && st == HYFFT_SUCCESS) {
    lineno++;
    size_t len = strcspn(p, "\n");
    if (len >= sizeof line) {
      st = HY_BAD("%s:%d: line longer than %zu characters", origin, lineno, sizeof line - 1);
      break;
    }
    memcpy(line, p, len);
    line[len] = 0;
    p += len + (p[len] == '\n');
    if (len && line[len - 1] == '\r') line[--len] = 0;
    if (!header) {
      int fmt = 0, used = 0;
      if (sscanf(line, "hyfft-wisdom %d%n", &fmt, &used) != 1 || line[used] != 0)
        st = HY_BAD("%s:%d: expected the header 'hyfft-wisdom %d'", origin, lineno, HY_WISDOM_FORMAT);
      else if (fmt < HY_WISDOM_FORMAT_MIN || fmt > HY_WISDOM_FORMAT)
        st = HY_BAD("%s:%d: wisdom format %d, this library reads %d to %d", origin, lineno, fmt,
                    HY_WISDOM_FORMAT_MIN, HY_WISDOM_FORMAT);
      format = fmt;
      header = 1;
      continue;
    }
    if (len == 0 || line[0] == '#') continue;
    if (n == cap) {
      int c = cap ? 2 * cap : 16;
      hy_wisdom_parsed *t = hy_realloc(list, (size_t)c * sizeof *t);
      if (!t) {
        st = hy_error(HYFFT_OUT_OF_MEMORY, "wisdom: cannot parse %s", origin);
        break;
      }
      list = t;
      cap = c;
    }
    int skip = 0;
    st = hy_wisdom_parse_line(line, origin, lineno, format, &list[n], &skip);
    if (st == HYFFT_SUCCESS && !skip) n++;
  }
  if (st == HYFFT_SUCCESS && !header) st = HY_BAD("%s:1: empty, expected the header 'hyfft-wisdom %d'", origin, HY_WISDOM_FORMAT);
  if (st == HYFFT_SUCCESS) {
    pthread_mutex_lock(&hy_wisdom_lock);
    for (int i = 0; i < n && st == HYFFT_SUCCESS; i++)
      st = hy_wisdom_put(list[i].token, list[i].device, list[i].kind, &list[i].value,
                         list[i].share, list[i].pinned);
    pthread_mutex_unlock(&hy_wisdom_lock);
  }
  free(list);
  return st;
}
