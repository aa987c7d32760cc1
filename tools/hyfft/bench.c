/* hyfft bench: time hyfft and peer libraries on the same data in one
 * process; report time, GFLOP/s, GB/s, accuracy and the peer ratio. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "conv.h"
#include "peer.h"
#include "peer_cuda.h"

#define CLI_MAX_PEERS 4
#define CLI_BENCH_CHECK_ELEMS ((int64_t)1 << 22)
#define CLI_BENCH_CHECK_HARD ((int64_t)1 << 24)

typedef struct cli_bench_opts {
  const char *device;
  const char *wisdom; /* --wisdom FILE: imported before planning */
  const char *json, *plot;
  int warmup, runs, threads;
  int measure, peer_estimate, peer_patient, builtin;
  int host;   /* --host: GPU backends run on host data (staged), not device data */
  int pinned; /* --pinned: that host data page-locked (CUDA), as a user may have it */
  int progress; /* --progress: a progress line for every execution of hyfft */
  uint64_t seed;
  int64_t check_elems;
  int64_t ref_limit; /* --ref-limit: points of one transform the reference takes at most */
  int npeers;
  const cli_peer *peers[CLI_MAX_PEERS];
} cli_bench_opts;

static int cli_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void cli_row_init(cli_row *r, const char *token, const char *lib, const char *device) {
  memset(r, 0, sizeof *r);
  snprintf(r->token, sizeof r->token, "%s", token);
  snprintf(r->lib, sizeof r->lib, "%s", lib);
  snprintf(r->device, sizeof r->device, "%s", device);
  r->plan_ms = r->median_ms = r->min_ms = r->gflops = r->gbps = NAN;
  r->rel_rms = r->max_err = r->ratio = r->pct_copy = NAN;
}

static void cli_row_median(cli_row *r, const cli_layout *L, double med);

static void cli_row_times(cli_row *r, const cli_layout *L, double *t, int runs) {
  qsort(t, (size_t)runs, sizeof *t, cli_cmp_double);
  cli_row_median(r, L, runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]));
  r->min_ms = t[0] * 1e3;
}


static void cli_row_median(cli_row *r, const cli_layout *L, double med) {
  r->median_ms = med * 1e3;
  r->gflops = med > 0 ? cli_layout_flops(L) / med * 1e-9 : NAN;
  r->gbps = med > 0 ? cli_layout_bytes(L) / med * 1e-9 : NAN;
  r->ok = 1;
}

/* Beyond the reference, 1D C2C and R2C, and out-of-place C2C and R2C of
 * higher rank: the sampled check of hyfft's output (sampled.c) as the
 * row's max error, with a note. An in-place multi-dimensional problem
 * that large keeps no copy of its input (a 64 GiB host transform has no
 * room for one) and stays unchecked. */
static int cli_bench_sampled(const cli_layout *L) {
  return cli_sampled_supported(L) && (L->p.rank == 1 || !L->p.inplace);
}

static void cli_row_sampled(cli_row *r, const cli_case *c, uint64_t seed) {
  cli_sampled_result s;
  char err[256] = "";
  const void *in = c->pristine ? c->pristine : c->host_in;
  if (cli_sampled_check(&c->L, in, c->host_out, CLI_SAMPLED_BINS, seed, &s, err, sizeof err)) {
    snprintf(r->note, sizeof r->note, "accuracy not checked: %s", err);
    return;
  }
  r->sampled = 1;
  r->max_err = s.max_err;
  snprintf(r->note, sizeof r->note,
           "accuracy sampled: %d bins computed directly, max error %.2e of the output's RMS "
           "(gate %.2e)%s",
           s.bins, s.max_err, s.gate, s.pass ? "" : " FAIL");
}

static void cli_row_errors(cli_row *r, const cli_layout *L, const void *host_out, int64_t keep,
                           cli_ldc *out, const cli_ldc *ref) {
  if (!keep || !ref) return;
  cli_gather_output(L, host_out, keep, out);
  cli_errors(out, ref, keep * L->out_count, &r->rel_rms, &r->max_err);
}

/* Each timed sample lasts at least this long (repeating quick transforms),
 * so that the clock's resolution and call overheads do not dominate. */
#define CLI_MIN_SAMPLE 1e-3
#define CLI_MAX_REPS 100000

/* One library's executions on the case's buffers: hyfft (peer NULL) or a
 * peer on host copies or on the device buffers. */
typedef struct cli_runner {
  cli_case *c;
  const cli_peer *peer;
  void *state;
  int dev;    /* the library reads the device buffers */
  int refill; /* the input must be restored before every execution */
} cli_runner;

static int cli_runner_exec(cli_runner *r) {
  if (!r->peer) return cli_case_execute(r->c) == HYFFT_SUCCESS ? 0 : -1;
  cli_case *c = r->c;
  return r->peer->run(r->state, r->dev ? c->din : c->host_in, r->dev ? c->dout : c->host_out);
}

/* Restore the input from the pristine copy; poison the output. */
static int cli_runner_prepare(cli_runner *r, int poison) {
  cli_case *c = r->c;
  if (!r->peer || r->dev) return cli_case_upload(c, 1, poison) == HYFFT_SUCCESS ? 0 : -1;
  if (c->pristine) memcpy(c->host_in, c->pristine, c->L.buf_in_bytes);
  if (poison && !c->L.p.inplace) memset(c->host_out, 0xff, c->L.buf_out_bytes);
  return 0;
}

static int cli_runner_finish(cli_runner *r) {
  if (!r->peer || r->dev) return cli_case_download(r->c) == HYFFT_SUCCESS ? 0 : -1;
  return 0;
}

/* Times warm-up + runs executions and leaves the output of a run on fresh
 * input in host_out. Returns the number of samples in t (1 when a device
 * timer gave the median directly), or -1. */
static int cli_runner_time(cli_runner *r, const cli_bench_opts *o, double *t) {
  cli_case *c = r->c;
  int device_timer = r->peer ? r->peer->time != NULL : c->cuda_timed;
  if (device_timer) {
    double med = 0;
    if (cli_runner_prepare(r, 1)) return -1;
    void *in = r->dev ? c->din : c->host_in, *out = r->dev ? c->dout : c->host_out;
    int rc = r->peer ? r->peer->time(r->state, in, out, o->warmup, o->runs, &med)
                     : cli_cuda_time_plan(c->plan, in, out, o->warmup, o->runs, &med);
    if (rc == 0) {
      t[0] = med;
      /* The timed runs may have transformed their own output again: take
       * the result from one more run on fresh input. */
      if (cli_runner_prepare(r, 1) || cli_runner_exec(r) || cli_runner_finish(r)) return -1;
      return 1;
    }
    /* 1: a peer with no device timer on this backend (the copy floor off
     * CUDA) is timed on the host clock below, like hyfft there. */
    if (rc != 1 || !r->peer) return -1;
  }
  if (cli_runner_prepare(r, 1)) return -1;
  for (int i = 0; i < o->warmup; i++)
    if ((r->refill && i > 0 && cli_runner_prepare(r, 0)) || cli_runner_exec(r)) return -1;
  int reps = 1;
  if (!r->refill) {
    double t0 = cli_now();
    if (cli_runner_exec(r)) return -1;
    double dt = cli_now() - t0;
    if (dt < CLI_MIN_SAMPLE) reps = dt > CLI_MIN_SAMPLE / CLI_MAX_REPS ? (int)(CLI_MIN_SAMPLE / dt) + 1 : CLI_MAX_REPS;
  }
  /* Samples of several executions are short ones (under a millisecond
   * each): no progress line would show, and the callback is not timed. */
  const int pause = reps > 1 && !r->peer;
  if (pause) cli_progress_pause(r->c, 1);
  int failed = 0;
  for (int i = 0; i < o->runs && !failed; i++) {
    if (r->refill && cli_runner_prepare(r, 0)) failed = 1;
    double t0 = cli_now();
    for (int k = 0; k < reps && !failed; k++)
      if (cli_runner_exec(r)) failed = 1;
    t[i] = (cli_now() - t0) / reps;
  }
  if (pause) cli_progress_pause(r->c, 0);
  if (failed) return -1;
  if (cli_runner_finish(r)) return -1;
  return o->runs;
}

/* One problem: rows[0] is hyfft, rows[1..] the peers. Returns rows used. */
static int cli_bench_one(hyfft_context ctx, const hyfft_device_info *dev, const char *token,
                         hyfft_problem problem, const cli_bench_opts *o, cli_row *rows) {
  int nrows = 1 + o->npeers;
  cli_row_init(&rows[0], token, "hyfft", dev->spec);
  for (int k = 0; k < o->npeers; k++) cli_row_init(&rows[1 + k], token, o->peers[k]->name, dev->spec);
  /* GPU backends time device-resident data (no bus transfers in the
   * numbers) unless --host asks for host data, staged by hyfft. */
  if (dev->backend != HYFFT_BACKEND_CPU && !o->host) problem.memory = HYFFT_MEMORY_DEVICE;
  rows[0].precision = problem.precision;
  rows[0].kind = problem.kind;

  char err[512] = "";
  void *pinned[2] = {NULL, NULL}; /* host buffers bench page-locked (--pinned) */
  cli_case c;
  void *state[CLI_MAX_PEERS] = {0};
  double plan_ms[CLI_MAX_PEERS];
  double *t = malloc((size_t)o->runs * sizeof *t);
  cli_ldc *in = NULL, *out = NULL, *ref = NULL;
  int64_t keep = 0;
  /* C2R may use its input as scratch, as FFTW and cuFFT do by default. */
  int destroys = problem.kind == HYFFT_C2R && !problem.inplace;
  hyfft_status st = cli_case_setup(&c, ctx, token, &problem,
                                   (o->measure ? HYFFT_MEASURE : 0u) |
                                       (destroys ? HYFFT_DESTROY_INPUT : 0u),
                                   1, err, sizeof err);
  if (c.plan) rows[0].plan_ms = c.plan_seconds * 1e3;
  else snprintf(rows[0].note, sizeof rows[0].note, "%s: %s", hyfft_status_name(c.plan_status),
                c.plan_error);
  if (st != HYFFT_SUCCESS || !t) {
    for (int k = 0; k < nrows; k++)
      snprintf(rows[k].note, sizeof rows[k].note, "%s: %s",
               !t ? "out of memory" : hyfft_status_name(st),
               err[0] ? err : hyfft_last_error());
    goto done;
  }
  const cli_layout *L = &c.L;
  /* --pinned: the user's host buffers page-locked before anything runs. */
  if (o->pinned && !c.device) {
    void *bufs[2] = {c.host_in, c.host_out == c.host_in ? NULL : c.host_out};
    size_t sizes[2] = {L->buf_in_bytes, L->buf_out_bytes};
    for (int k = 0; k < 2; k++) {
      if (!bufs[k]) continue;
      if (cli_cuda_pin(bufs[k], sizes[k], err, sizeof err)) {
        for (int r = 0; r < nrows; r++) snprintf(rows[r].note, sizeof rows[r].note, "%s", err);
        goto done;
      }
      pinned[k] = bufs[k];
    }
  }
  int pow2 = 1;
  for (int d = 0; d < L->p.rank; d++) pow2 &= (L->p.dims[d].n & (L->p.dims[d].n - 1)) == 0;
  for (int k = 0; k < nrows; k++) {
    rows[k].n = L->n;
    rows[k].batch = L->batch;
    rows[k].rank = L->p.rank;
    rows[k].pow2 = pow2;
    rows[k].precision = L->p.precision;
    rows[k].kind = L->p.kind;
  }
  /* Peers plan before the data exist: measured planning overwrites buffers. */
  int save = L->p.inplace || destroys;
  for (int k = 0; k < o->npeers; k++) {
    const cli_peer *peer = o->peers[k];
    /* any_device peers take hyfft's own execution buffers (which are the
     * host buffers when the data are not in device memory). */
    int pdev = peer->any_device || peer->memory == HYFFT_MEMORY_DEVICE;
    if (pdev && !peer->any_device && (!c.device || dev->backend != peer->device_backend)) {
      snprintf(rows[1 + k].note, sizeof rows[1 + k].note, "%s needs a device of its own backend",
               peer->name);
      continue;
    }
    /* f16/bf16 data: the copy floor (bytes) and cuFFT's half-precision
     * plans (powers of two); the other peers compute and store f32/f64. */
    if ((L->p.precision == HYFFT_F16 || L->p.precision == HYFFT_BF16) &&
        strcmp(peer->name, "copy") != 0 && strcmp(peer->name, "cufft") != 0) {
      snprintf(rows[1 + k].note, sizeof rows[1 + k].note, "%s: no f16/bf16 storage here",
               peer->name);
      continue;
    }
    double t0 = cli_now();
    if (peer->plan(&L->p, dev->backend, pdev ? c.din : c.host_in, pdev ? c.dout : c.host_out,
                   o->threads, o->peer_estimate ? 0 : o->peer_patient ? 2 : 1, &state[k], rows[1 + k].note,
                   sizeof rows[1 + k].note)) {
      state[k] = NULL;
      continue;
    }
    plan_ms[k] = (cli_now() - t0) * 1e3;
    rows[1 + k].plan_ms = plan_ms[k];
    if (peer->destroys_input(&L->p)) save = 1;
  }
  keep = cli_check_count(L, o->check_elems, o->ref_limit);
  /* Beyond the reference with no sampled check nothing reads the input
   * again: the runs go on from what the one before left (in place, or
   * after a peer that destroys its input) rather than from a second host
   * copy of it, which a host transform of half the machine's memory does
   * not have room for. */
  if (save && !keep && !cli_bench_sampled(L)) save = 0;
  if (keep) {
    in = malloc((size_t)(keep * L->in_count) * sizeof *in);
    out = malloc((size_t)(keep * L->out_count) * sizeof *out);
    ref = malloc((size_t)(keep * L->out_count) * sizeof *ref);
    if (!in || !out || !ref) {
      free(in);
      free(out);
      free(ref);
      in = out = ref = NULL;
      keep = 0;
    }
  }
  if (cli_case_fill(&c, o->seed, keep, in, save)) {
    for (int k = 0; k < nrows; k++) snprintf(rows[k].note, sizeof rows[k].note, "out of memory");
    goto done;
  }
  if (keep && cli_reference(L, o->builtin, in, keep, ref, NULL, err, sizeof err)) {
    free(ref);
    ref = NULL;
  }
  const char *acc_note = !keep ? "accuracy not checked: transform beyond the reference limit"
                         : !ref ? "accuracy not checked: reference failed"
                                : "";

  c.cuda_timed = dev->backend == HYFFT_BACKEND_CUDA && c.device;
  if (c.plan) {
    cli_runner r = {&c, NULL, NULL, c.device, L->p.inplace || destroys};
    int ns = cli_runner_time(&r, o, t);
    if (ns < 0) {
      const char *why = hyfft_last_error();
      snprintf(rows[0].note, sizeof rows[0].note, "execution failed: %s",
               why && *why ? why : c.cuda_timed ? "CUDA event timing failed" : "unknown error");
    } else {
      cli_row_times(&rows[0], L, t, ns);
      cli_row_errors(&rows[0], L, c.host_out, keep, out, ref);
      snprintf(rows[0].note, sizeof rows[0].note, "%s", acc_note);
      if (!keep && cli_bench_sampled(L)) cli_row_sampled(&rows[0], &c, o->seed);
    }
  }
  for (int k = 0; k < o->npeers; k++) {
    cli_row *row = &rows[1 + k];
    const cli_peer *peer = o->peers[k];
    if (!state[k]) continue;
    int pdev = peer->any_device || peer->memory == HYFFT_MEMORY_DEVICE;
    cli_runner r = {&c, peer, state[k], pdev, peer->destroys_input(&L->p)};
    int ns = cli_runner_time(&r, o, t);
    if (ns < 0) {
      snprintf(row->note, sizeof row->note, "%s execution failed", peer->name);
      continue;
    }
    cli_row_times(row, L, t, ns);
    if (peer->moved_bytes) {
      double bytes = peer->moved_bytes(&L->p);
      row->gbps = row->median_ms > 0 && bytes > 0 ? bytes / row->median_ms * 1e-6 : NAN;
    }
    if (peer->no_accuracy) {
      /* A floor, not a transform: no answer to judge, no flops done. */
      row->gflops = NAN;
      if (peer->describe)
        peer->describe(state[k], row->note, sizeof row->note);
      else
        snprintf(row->note, sizeof row->note, "%s floor%s", peer->name,
                 L->p.inplace ? " (in place: half the buffer onto the other half)" : "");
    } else {
      cli_row_errors(row, L, c.host_out, keep, out, ref);
      snprintf(row->note, sizeof row->note, "%s", acc_note);
      if (!keep && cli_bench_sampled(L)) cli_row_sampled(row, &c, o->seed);
      if (rows[0].ok) row->ratio = row->median_ms / rows[0].median_ms;
    }
    /* Percent of the copy bandwidth as a ratio of bandwidths: copy time /
     * hyfft time when the copy moves the transform's bytes (out-of-place
     * complex), still fair when it moves fewer (in place, real, strided). */
    if (peer == &cli_peer_copy && rows[0].ok && isfinite(row->gbps) && row->gbps > 0)
      rows[0].pct_copy = rows[0].gbps / row->gbps * 100.0;
  }
done:
  for (int k = 0; k < o->npeers; k++)
    if (state[k]) o->peers[k]->destroy(state[k]);
  for (int k = 0; k < 2; k++)
    if (pinned[k]) cli_cuda_unpin(pinned[k]);
  free(t);
  free(in);
  free(out);
  free(ref);
  cli_case_free(&c);
  return nrows;
}

/* Whether hyfft's row is a failure for the exit status: a run that errored
 * or an answer outside the accuracy gates. Problems the backend cannot plan
 * yet (not supported, no solver, too big) are reported, not failed. */
static int cli_bench_failed(const cli_row *r) {
  if (!r->ok) {
    static const char *const benign[] = {"HYFFT_NOT_SUPPORTED", "HYFFT_NO_SOLVER",
                                         "HYFFT_OUT_OF_MEMORY", NULL};
    for (int i = 0; benign[i]; i++)
      if (strncmp(r->note, benign[i], strlen(benign[i])) == 0) return 0;
    return 1;
  }
  if (isnan(r->rel_rms) && isnan(r->max_err) && r->note[0]) return 0; /* not checked */
  double gate = cli_rms_gate(r->precision, r->n);
  if (r->sampled) return !(r->max_err <= 3.0 * gate);
  return !(r->rel_rms <= gate && r->max_err <= 10.0 * gate);
}

static int cli_bench_usage_value(const char *opt, const char *val) {
  cli_msg("bench", "bad value '%s' for %s", val ? val : "(missing)", opt);
  return CLI_EXIT_USAGE;
}

int cli_cmd_bench(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "--mpi") == 0) return cli_cmd_bench_mpi(argc, argv);
  cli_bench_opts o;
  memset(&o, 0, sizeof o);
  o.warmup = 2;
  o.runs = 10;
  o.check_elems = CLI_BENCH_CHECK_ELEMS;
  o.ref_limit = CLI_BENCH_CHECK_HARD;
  int have_seed = 0, dry = 0;
  char **args = malloc((size_t)(argc + 1) * sizeof *args);
  int nargs = 0;
  if (!args) return CLI_EXIT_FAIL;
  int rc = CLI_EXIT_USAGE;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int64_t v = 0;
    if (strcmp(a, "--measure") == 0) {
      o.measure = 1;
    } else if (strcmp(a, "--dry-run") == 0) {
      dry = 1;
    } else if (strcmp(a, "--peer-estimate") == 0) {
      o.peer_estimate = 1;
      if (o.peer_patient) {
        fprintf(stderr, "hyfft bench: --peer-estimate and --peer-patient exclude each other\n");
        goto out;
      }
    } else if (strcmp(a, "--peer-patient") == 0) {
      o.peer_patient = 1;
      if (o.peer_estimate) {
        fprintf(stderr, "hyfft bench: --peer-estimate and --peer-patient exclude each other\n");
        goto out;
      }
    } else if (strcmp(a, "--host") == 0) {
      o.host = 1;
    } else if (strcmp(a, "--progress") == 0) {
      o.progress = 1;
    } else if (strcmp(a, "--pinned") == 0) {
      o.host = 1;
      o.pinned = 1;
    } else if (strcmp(a, "--device") == 0 || strcmp(a, "--json") == 0 ||
               strcmp(a, "--plot") == 0 || strcmp(a, "--vs") == 0 ||
               strcmp(a, "--warmup") == 0 || strcmp(a, "--runs") == 0 ||
               strcmp(a, "--seed") == 0 || strcmp(a, "--threads") == 0 ||
               strcmp(a, "--check-elems") == 0 || strcmp(a, "--ref") == 0 ||
               strcmp(a, "--ref-limit") == 0 || strcmp(a, "--wisdom") == 0) {
      if (!val) {
        rc = cli_bench_usage_value(a, val);
        goto out;
      }
      i++;
      if (strcmp(a, "--device") == 0) {
        o.device = val;
      } else if (strcmp(a, "--wisdom") == 0) {
        o.wisdom = val;
      } else if (strcmp(a, "--json") == 0) {
        o.json = val;
      } else if (strcmp(a, "--plot") == 0) {
        o.plot = val;
      } else if (strcmp(a, "--ref") == 0) {
        if (strcmp(val, "builtin") == 0) o.builtin = 1;
        else if (strcmp(val, "fftwl") == 0 || strcmp(val, "auto") == 0) o.builtin = 0;
        else { rc = cli_bench_usage_value(a, val); goto out; }
      } else if (strcmp(a, "--seed") == 0) {
        if (cli_parse_u64(val, &o.seed)) { rc = cli_bench_usage_value(a, val); goto out; }
        have_seed = 1;
      } else if (strcmp(a, "--vs") == 0) {
        char list[256];
        snprintf(list, sizeof list, "%s", val);
        for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
          const cli_peer *p = cli_peer_find(name);
          if (!p) {
            cli_msg("bench", "unknown peer '%s' for --vs (built in: %s)", name, cli_peer_names());
            goto out;
          }
          int dup = 0;
          for (int k = 0; k < o.npeers; k++) dup |= o.peers[k] == p;
          if (dup) continue;
          if (o.npeers == CLI_MAX_PEERS) {
            cli_msg("bench", "too many peers in --vs '%s'", val);
            goto out;
          }
          o.peers[o.npeers++] = p;
        }
      } else {
        if (cli_parse_i64(val, &v) || v < (strcmp(a, "--warmup") == 0 ? 0 : 1) ||
            v > (int64_t)1 << 30) {
          rc = cli_bench_usage_value(a, val);
          goto out;
        }
        if (strcmp(a, "--warmup") == 0) o.warmup = (int)v;
        else if (strcmp(a, "--runs") == 0) o.runs = (int)v;
        else if (strcmp(a, "--threads") == 0) o.threads = (int)v;
        else if (strcmp(a, "--ref-limit") == 0) o.ref_limit = v;
        else o.check_elems = v;
      }
    } else if (strcmp(a, "--suite") == 0 && val) {
      args[nargs++] = argv[++i];
    } else if (a[0] == '-' && a[1] == '-') {
      cli_msg("bench", "unknown option '%s'", a);
      goto out;
    } else {
      args[nargs++] = argv[i];
    }
  }
  if (nargs == 0) {
    cli_msg("bench", "missing SUITE or TOKEN (e.g. hyfft bench quick)");
    goto out;
  }
  char **tokens = NULL;
  int ntokens = 0;
  if (cli_expand_tokens("bench", nargs, args, &tokens, &ntokens)) goto out;
  hyfft_problem *problems = calloc((size_t)ntokens + 1, sizeof *problems);
  cli_row *rows = calloc((size_t)ntokens * (size_t)(1 + o.npeers) + 1, sizeof *rows);
  if (!problems || !rows) {
    rc = CLI_EXIT_FAIL;
    goto out_tokens;
  }
  for (int i = 0; i < ntokens; i++) {
    int64_t filters;
    hyfft_window window;
    hyfft_status st = cli_is_conv_token(tokens[i])
                          ? hyfft_convolution_parse(tokens[i], &problems[i], &filters, &window)
                          : hyfft_problem_parse(tokens[i], &problems[i]);
    if (st != HYFFT_SUCCESS) {
      char what[512];
      snprintf(what, sizeof what, "bad token '%s'", tokens[i]);
      cli_status_msg("bench", what, st);
      goto out_tokens;
    }
  }
  if (dry) {
    /* Parse and size every problem without running anything. */
    printf("%-38s %12s %12s %12s\n", "problem", "N", "batch", "MiB in+out");
    for (int i = 0; i < ntokens; i++) {
      cli_layout L;
      char err[256];
      if (cli_layout_init(&L, &problems[i], err, sizeof err)) {
        cli_msg("bench", "'%s': %s", tokens[i], err);
        goto out_tokens;
      }
      double mib = (double)(L.buf_in_bytes + (L.p.inplace ? 0 : L.buf_out_bytes)) / 1048576.0;
      printf("%-38s %12lld %12lld %12.1f\n", tokens[i], (long long)L.n, (long long)L.batch, mib);
    }
    rc = CLI_EXIT_OK;
    goto out_tokens;
  }
  /* The library reads HYFFT_NUM_THREADS, so one option sets both sides. */
  if (o.threads > 0) {
    char num[32];
    snprintf(num, sizeof num, "%d", o.threads);
    setenv("HYFFT_NUM_THREADS", num, 1);
  }
  o.threads = cli_num_threads();
  for (int k = 0; k < o.npeers; k++) {
    char err[256] = "";
    if (o.peers[k]->load(err, sizeof err)) {
      cli_msg("bench", "peer %s cannot be loaded: %s", o.peers[k]->name, err);
      rc = CLI_EXIT_FAIL;
      goto out_tokens;
    }
  }
  if (!have_seed) o.seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
  cli_progress_init(o.progress);
  if (cli_check_output("bench", "--json", o.json) || cli_check_output("bench", "--plot", o.plot)) {
    rc = CLI_EXIT_USAGE;
    goto out_tokens;
  }
  hyfft_context ctx;
  hyfft_status st = hyfft_context_create(o.device, &ctx);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("bench", "creating the context", st);
    rc = CLI_CONTEXT_EXIT(st);
    goto out_tokens;
  }
  if (o.wisdom && (st = hyfft_wisdom_import_file(ctx, o.wisdom)) != HYFFT_SUCCESS) {
    cli_status_msg("bench", "importing wisdom", st);
    hyfft_context_destroy(ctx);
    rc = CLI_EXIT_FAIL;
    goto out_tokens;
  }
  hyfft_device_info dev;
  memset(&dev, 0, sizeof dev);
  hyfft_context_device(ctx, &dev);
  /* A multi-device context (a device list: its spec holds a comma) has no
   * device memory of its own: it times host data, and the peers run on
   * its first device (cli_cuda_ordinal reads the list's first index). */
  int multi = strchr(dev.spec, ',') != NULL;
  if (multi && dev.backend != HYFFT_BACKEND_CPU && !o.host) {
    printf("note: %s is a multi-device context: host data (--host)\n", dev.spec);
    o.host = 1;
  }
  if (multi && o.npeers > 0)
    printf("note: peers run on the first device of %s only\n", dev.spec);
  if (dev.backend == HYFFT_BACKEND_CUDA) {
    const char *colon = strchr(dev.spec, ':');
    cli_cuda_ordinal = colon ? atoi(colon + 1) : 0;
  }
  printf("device %s (%s), %d CPU thread%s, warm-up %d, median of %d runs, seed %llu%s\n", dev.spec,
         dev.name, o.threads, o.threads == 1 ? "" : "s", o.warmup, o.runs,
         (unsigned long long)o.seed,
         o.peer_estimate  ? ", peers plan by estimate"
         : o.peer_patient ? ", peers plan patiently (FFTW_PATIENT)"
                          : "");
  cli_report_header(stdout);
  int nrows = 0, failed = 0;
  for (int i = 0; i < ntokens; i++) {
    /* Convolutions print their own line (conv.c). */
    if (cli_is_conv_token(tokens[i])) {
      int vs_cufft = 0, vs_vkfft = 0, vs_copy = 0;
      for (int k = 0; k < o.npeers; k++) {
        if (strcmp(o.peers[k]->name, "cufft") == 0) vs_cufft = 1;
        else if (strcmp(o.peers[k]->name, "vkfft") == 0) vs_vkfft = 1;
        else if (strcmp(o.peers[k]->name, "copy") == 0) vs_copy = 1;
        else
          printf("%-40s %s not run: peer has no convolution mode (cufft, vkfft and copy do)\n",
                 tokens[i], o.peers[k]->name);
      }
      failed |= cli_conv_bench(ctx, &dev, tokens[i], o.seed, o.warmup, o.runs, o.host, vs_cufft,
                               vs_vkfft, vs_copy);
      fflush(stdout);
      continue;
    }
    int used = cli_bench_one(ctx, &dev, tokens[i], problems[i], &o, rows + nrows);
    for (int k = 0; k < used; k++) cli_report_row(stdout, &rows[nrows + k]);
    if (cli_bench_failed(&rows[nrows])) failed = 1;
    fflush(stdout);
    nrows += used;
  }
  hyfft_context_destroy(ctx);
  rc = failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
  char name[256];
  snprintf(name, sizeof name, "%s (%s)", dev.spec, dev.name);
  if (o.json && cli_report_json(o.json, name, rows, nrows, o.warmup, o.runs, o.seed)) {
    cli_msg("bench", "cannot write JSON to '%s'", o.json);
    rc = CLI_EXIT_FAIL;
  }
  if (o.plot && cli_report_svg(o.plot, name, rows, nrows)) {
    cli_msg("bench", "cannot write the plot to '%s'", o.plot);
    rc = CLI_EXIT_FAIL;
  }
out_tokens:
  free(problems);
  free(rows);
  cli_free_tokens(tokens, ntokens);
out:
  free(args);
  return rc;
}
