/* FFTW as a peer: libfftw3f (f32) and libfftw3 (f64) through dlopen, the
 * guru64 interface on hyfft's own strides, and as many threads as hyfft
 * uses when the threads library loads. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "peer.h"

typedef struct cli_fftw_iodim64 {
  ptrdiff_t n, is, os;
} cli_fftw_iodim64;

typedef void *(*cli_fftw_dft_fn)(int, const cli_fftw_iodim64 *, int, const cli_fftw_iodim64 *,
                                 void *, void *, int, unsigned);
typedef void *(*cli_fftw_real_fn)(int, const cli_fftw_iodim64 *, int, const cli_fftw_iodim64 *,
                                  void *, void *, unsigned);
typedef void *(*cli_fftw_r2r_fn)(int, const cli_fftw_iodim64 *, int, const cli_fftw_iodim64 *,
                                 void *, void *, const int *, unsigned);
typedef void (*cli_fftw_exec_fn)(void *, void *, void *);
typedef void (*cli_fftw_destroy_fn)(void *);
typedef int (*cli_fftw_init_threads_fn)(void);
typedef void (*cli_fftw_nthreads_fn)(int);

/* One precision's library. */
typedef struct cli_fftw_lib {
  const char *prefix;
  void *lib, *threads_lib;
  cli_fftw_dft_fn plan_dft;
  cli_fftw_real_fn plan_r2c, plan_c2r;
  cli_fftw_r2r_fn plan_r2r; /* NULL: no r2r in this library */
  cli_fftw_exec_fn exec_dft, exec_r2c, exec_c2r, exec_r2r;
  cli_fftw_destroy_fn destroy;
  cli_fftw_nthreads_fn nthreads; /* NULL: single-threaded only */
} cli_fftw_lib;

static cli_fftw_lib cli_fftw_libs[2] = {{.prefix = "fftwf_"}, {.prefix = "fftw_"}};

static void *cli_fftw_sym(void *h, const char *prefix, const char *name) {
  char full[64];
  snprintf(full, sizeof full, "%s%s", prefix, name);
  return dlsym(h, full);
}

static int cli_fftw_load_one(cli_fftw_lib *L, const char *const *names,
                             const char *const *thread_names) {
  void *h = cli_dlopen_first(names, NULL);
  if (!h) return -1;
  *(void **)&L->plan_dft = cli_fftw_sym(h, L->prefix, "plan_guru64_dft");
  *(void **)&L->plan_r2c = cli_fftw_sym(h, L->prefix, "plan_guru64_dft_r2c");
  *(void **)&L->plan_c2r = cli_fftw_sym(h, L->prefix, "plan_guru64_dft_c2r");
  *(void **)&L->exec_dft = cli_fftw_sym(h, L->prefix, "execute_dft");
  *(void **)&L->exec_r2c = cli_fftw_sym(h, L->prefix, "execute_dft_r2c");
  *(void **)&L->exec_c2r = cli_fftw_sym(h, L->prefix, "execute_dft_c2r");
  *(void **)&L->destroy = cli_fftw_sym(h, L->prefix, "destroy_plan");
  *(void **)&L->plan_r2r = cli_fftw_sym(h, L->prefix, "plan_guru64_r2r");
  *(void **)&L->exec_r2r = cli_fftw_sym(h, L->prefix, "execute_r2r");
  if (!L->plan_r2r || !L->exec_r2r) L->plan_r2r = NULL;
  if (!L->plan_dft || !L->plan_r2c || !L->plan_c2r || !L->exec_dft || !L->exec_r2c ||
      !L->exec_c2r || !L->destroy) {
    dlclose(h);
    return -1;
  }
  L->lib = h;
  /* The threads library needs its main library's symbols, which it links
   * itself; init_threads must run before any plan. */
  void *t = cli_dlopen_first(thread_names, NULL);
  if (t) {
    cli_fftw_init_threads_fn init = (cli_fftw_init_threads_fn)cli_fftw_sym(t, L->prefix, "init_threads");
    cli_fftw_nthreads_fn nth = (cli_fftw_nthreads_fn)cli_fftw_sym(t, L->prefix, "plan_with_nthreads");
    if (init && nth && init()) {
      L->threads_lib = t;
      L->nthreads = nth;
    } else {
      dlclose(t);
    }
  }
  return 0;
}

static int cli_fftw_load(char *err, size_t errlen) {
  static const char *const f32[] = {"libfftw3f.so.3", "libfftw3f.so", NULL};
  static const char *const f32t[] = {"libfftw3f_threads.so.3", "libfftw3f_threads.so", NULL};
  static const char *const f64[] = {"libfftw3.so.3", "libfftw3.so", NULL};
  static const char *const f64t[] = {"libfftw3_threads.so.3", "libfftw3_threads.so", NULL};
  int a = cli_fftw_load_one(&cli_fftw_libs[0], f32, f32t);
  int b = cli_fftw_load_one(&cli_fftw_libs[1], f64, f64t);
  if (a && b) {
    snprintf(err, errlen, "neither libfftw3f.so.3 nor libfftw3.so.3 could be loaded");
    return -1;
  }
  return 0;
}

typedef struct cli_fftw_state {
  cli_fftw_lib *lib;
  hyfft_kind kind;
  void *plan;
} cli_fftw_state;

static int cli_fftw_plan(const hyfft_problem *p, hyfft_backend_id backend, void *in, void *out,
                         int threads, int rigor, void **state, char *err, size_t errlen) {
  (void)backend; /* host copies of the data, whatever the backend */
  cli_fftw_lib *L = &cli_fftw_libs[p->precision == HYFFT_F64 ? 1 : 0];
  if (!L->lib) {
    snprintf(err, errlen, "%s library not loaded", p->precision == HYFFT_F64 ? "libfftw3" : "libfftw3f");
    return -1;
  }
  if (p->scale != 0.0 && p->scale != 1.0) {
    snprintf(err, errlen, "FFTW has no output scaling (scale=%g)", p->scale);
    return -1;
  }
  cli_fftw_iodim64 dims[HYFFT_MAX_RANK], how[HYFFT_MAX_BATCH_RANK];
  for (int d = 0; d < p->rank; d++) {
    dims[d].n = (ptrdiff_t)p->dims[d].n;
    dims[d].is = (ptrdiff_t)p->dims[d].in_stride;
    dims[d].os = (ptrdiff_t)p->dims[d].out_stride;
  }
  for (int d = 0; d < p->batch_rank; d++) {
    how[d].n = (ptrdiff_t)p->batch[d].n;
    how[d].is = (ptrdiff_t)p->batch[d].in_stride;
    how[d].os = (ptrdiff_t)p->batch[d].out_stride;
  }
  if (L->nthreads) L->nthreads(threads);
  /* FFTW_ESTIMATE 1 << 6, FFTW_MEASURE 0, FFTW_PATIENT 1 << 5 (fftw3.h). */
  unsigned flags = rigor == 0 ? (1u << 6) : rigor >= 2 ? (1u << 5) : 0u;
  void *plan;
  if (p->kind == HYFFT_C2C)
    plan = L->plan_dft(p->rank, dims, p->batch_rank, how, in, out, p->sign, flags);
  else if (p->kind == HYFFT_R2C)
    plan = L->plan_r2c(p->rank, dims, p->batch_rank, how, in, out, flags);
  else if (p->kind == HYFFT_C2R)
    plan = L->plan_c2r(p->rank, dims, p->batch_rank, how, in, out, flags);
  else {
    /* fftw_r2r_kind: REDFT00 3, REDFT01 4, REDFT10 5, REDFT11 6, RODFT00 7,
     * RODFT01 8, RODFT10 9, RODFT11 10, DHT 2 (fftw3.h), by hyfft kind. */
    static const int fftw_kind[10] = {-1, 3, 5, 4, 6, 7, 9, 8, 10, 2};
    int kinds[HYFFT_MAX_RANK];
    for (int d = 0; d < p->rank; d++) kinds[d] = fftw_kind[p->r2r_kind[d]];
    if (!L->plan_r2r) {
      snprintf(err, errlen, "%splan_guru64_r2r not found", L->prefix);
      return -1;
    }
    plan = L->plan_r2r(p->rank, dims, p->batch_rank, how, in, out, kinds, flags);
  }
  if (!plan) {
    snprintf(err, errlen, "%splan_guru64 returned no plan for this layout", L->prefix);
    return -1;
  }
  cli_fftw_state *s = malloc(sizeof *s);
  if (!s) {
    L->destroy(plan);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  s->lib = L;
  s->kind = p->kind;
  s->plan = plan;
  *state = s;
  return 0;
}

static int cli_fftw_run(void *state, void *in, void *out) {
  cli_fftw_state *s = state;
  if (s->kind == HYFFT_C2C)
    s->lib->exec_dft(s->plan, in, out);
  else if (s->kind == HYFFT_R2C)
    s->lib->exec_r2c(s->plan, in, out);
  else if (s->kind == HYFFT_C2R)
    s->lib->exec_c2r(s->plan, in, out);
  else
    s->lib->exec_r2r(s->plan, in, out);
  return 0;
}

static int cli_fftw_destroys_input(const hyfft_problem *p) {
  /* Multi-dimensional c2r always may, and in-place trivially does. */
  return p->inplace || p->kind == HYFFT_C2R;
}

static void cli_fftw_destroy(void *state) {
  cli_fftw_state *s = state;
  if (!s) return;
  s->lib->destroy(s->plan);
  free(s);
}

const cli_peer cli_peer_fftw = {
    .name = "fftw",
    .memory = HYFFT_MEMORY_HOST,
    .device_backend = HYFFT_BACKEND_CPU,
    .load = cli_fftw_load,
    .plan = cli_fftw_plan,
    .run = cli_fftw_run,
    .destroys_input = cli_fftw_destroys_input,
    .destroy = cli_fftw_destroy,
};
