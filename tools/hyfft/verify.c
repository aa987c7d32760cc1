/* hyfft verify: each problem on fresh seeded input against a long-double
 * reference, gated as in DESIGN section 7. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "conv.h"

/* Defaults for the reference's size: checking stops after this many
 * elements of batch, and a single transform beyond the hard limit is not
 * checked (its long-double copies alone would take gigabytes). */
#define CLI_CHECK_ELEMS ((int64_t)1 << 22)
#define CLI_CHECK_HARD ((int64_t)1 << 25)

typedef struct cli_verify_opts {
  const char *device;
  uint64_t seed;
  int builtin;
  int64_t check_elems;
  int strict;    /* HYFFT_NOT_SUPPORTED counts as a failure */
  int self_test; /* --self-test: the reference-free check for every problem too */
  int64_t ref_limit; /* --ref-limit: points of one transform the reference takes at most */
  int progress;      /* --progress: a progress line for every execution */
} cli_verify_opts;

/* The reference-free check of a planned case: one line, 0 PASS, 1 FAIL or
 * ERROR. Gates: linearity and shift at 3x the RMS gate (they combine three
 * and two transforms' errors), the impulse at 10x. */
static int cli_verify_self(cli_case *c, const char *token, uint64_t seed) {
  cli_self_result r;
  char err[512] = "";
  if (cli_self_test(c, seed, &r, err, sizeof err)) {
    printf("%-40s ERROR self-test: %s\n", token, err);
    return 1;
  }
  double gate = cli_rms_gate(c->L.p.precision, c->L.n);
  int pass = r.linearity <= 3 * gate && r.impulse <= 10 * gate &&
             (isnan(r.shift) || r.shift <= 3 * gate);
  char shift[32] = "-";
  if (!isnan(r.shift)) snprintf(shift, sizeof shift, "%.3e", r.shift);
  printf("%-40s %10lld self-test linearity %.3e impulse %.3e shift %s gate %.3e %s\n", token,
         (long long)c->L.n, r.linearity, r.impulse, shift, gate, pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

/* The sampled check of a case beyond the reference (1D C2C and R2C): one
 * line, 0 PASS, 1 FAIL or ERROR. The input is the pristine copy where the
 * transform overwrote its own. */
static int cli_verify_sampled(cli_case *c, const char *token, uint64_t seed) {
  cli_sampled_result r;
  char err[512] = "";
  const void *in = c->pristine ? c->pristine : c->host_in;
  if (cli_sampled_check(&c->L, in, c->host_out, CLI_SAMPLED_BINS, seed, &r, err, sizeof err)) {
    printf("%-40s ERROR sampled check: %s\n", token, err);
    return 1;
  }
  char checked[48];
  snprintf(checked, sizeof checked, "%d bins", r.bins);
  printf("%-40s %10lld %11s %10s %10.3e %10.3e  %-7s %s\n", token, (long long)c->L.n, checked,
         "-", r.max_err, r.gate, "sampled", r.pass ? "PASS" : "FAIL");
  return r.pass ? 0 : 1;
}

/* One problem; returns 0 PASS, 1 FAIL/ERROR, 2 not checked, 3 not supported. */
static int cli_verify_one(hyfft_context ctx, const char *token, const hyfft_problem *problem,
                          const cli_verify_opts *o) {
  char err[512] = "";
  cli_case c;
  cli_ldc *in = NULL, *out = NULL, *ref = NULL;
  int result = 1;
  hyfft_status st = cli_case_setup(&c, ctx, token, problem, HYFFT_ESTIMATE, 0, err, sizeof err);
  if (st != HYFFT_SUCCESS) {
    /* "Not implemented yet" is reported apart from wrong answers. */
    int unsupported = st == HYFFT_NOT_SUPPORTED && !c.plan && !o->strict;
    printf("%-40s %s %s: %s\n", token, unsupported ? "UNSUPPORTED" : "ERROR",
           hyfft_status_name(st),
           err[0] ? err : c.plan_error[0] ? c.plan_error : hyfft_last_error());
    if (unsupported) result = 3;
    goto done;
  }
  const cli_layout *L = &c.L;
  int64_t keep = cli_check_count(L, o->check_elems, o->ref_limit);
  if (keep) {
    in = malloc((size_t)(keep * L->in_count) * sizeof *in);
    out = malloc((size_t)(keep * L->out_count) * sizeof *out);
    ref = malloc((size_t)(keep * L->out_count) * sizeof *ref);
    if (!in || !out || !ref) {
      printf("%-40s ERROR out of memory for the reference\n", token);
      goto done;
    }
  }
  /* Beyond the reference, 1D C2C and R2C take the sampled check, which
   * reads the input after the transform: in place, from a copy (the
   * buffer then holds the output, so still two buffers in all). Other
   * ranks take the self-test below, which checks every output element. */
  int sampled = !keep && L->p.rank == 1 && cli_sampled_supported(L);
  if (cli_case_fill(&c, o->seed, keep, in, sampled && L->p.inplace)) {
    printf("%-40s ERROR out of memory generating input\n", token);
    goto done;
  }
  if ((st = cli_case_upload(&c, 0, 1)) != HYFFT_SUCCESS ||
      (st = cli_case_execute(&c)) != HYFFT_SUCCESS ||
      (st = cli_case_download(&c)) != HYFFT_SUCCESS) {
    printf("%-40s ERROR %s: %s\n", token, hyfft_status_name(st), hyfft_last_error());
    goto done;
  }
  if (sampled) {
    result = cli_verify_sampled(&c, token, o->seed);
    if (o->self_test && cli_verify_self(&c, token, o->seed)) result = 1;
    goto done;
  }
  if (!keep) {
    /* Beyond the long-double reference: the reference-free check. */
    result = c.L.p.kind == HYFFT_R2R ? 2 : cli_verify_self(&c, token, o->seed);
    if (result == 2)
      printf("%-40s SKIP one transform has %lld points, beyond the reference limit %lld\n",
             token, (long long)L->n, (long long)o->ref_limit);
    goto done;
  }
  const char *ref_name = "";
  if (cli_reference(L, o->builtin, in, keep, ref, &ref_name, err, sizeof err)) {
    printf("%-40s ERROR reference: %s\n", token, err);
    goto done;
  }
  cli_gather_output(L, c.host_out, keep, out);
  double rms, maxe;
  cli_errors(out, ref, keep * L->out_count, &rms, &maxe);
  double gate = cli_rms_gate(L->p.precision, L->n);
  int pass = rms <= gate && maxe <= 10.0 * gate;
  char checked[48];
  snprintf(checked, sizeof checked, "%lld/%lld", (long long)keep, (long long)L->batch);
  printf("%-40s %10lld %11s %10.3e %10.3e %10.3e  %-7s %s\n", token, (long long)L->n, checked,
         rms, maxe, gate, ref_name, pass ? "PASS" : "FAIL");
  result = pass ? 0 : 1;
  if (o->self_test && c.L.p.kind != HYFFT_R2R && cli_verify_self(&c, token, o->seed)) result = 1;
done:
  free(in);
  free(out);
  free(ref);
  cli_case_free(&c);
  return result;
}

int cli_cmd_verify(int argc, char **argv) {
  cli_verify_opts o = {NULL, 0, 0, CLI_CHECK_ELEMS, 0, 0, CLI_CHECK_HARD, 0};
  int have_seed = 0;
  char **args = malloc((size_t)(argc + 1) * sizeof *args);
  int nargs = 0;
  if (!args) return CLI_EXIT_FAIL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--strict") == 0) {
      o.strict = 1;
    } else if (strcmp(a, "--self-test") == 0) {
      o.self_test = 1;
    } else if (strcmp(a, "--progress") == 0) {
      o.progress = 1;
    } else if (strcmp(a, "--device") == 0 || strcmp(a, "--seed") == 0 || strcmp(a, "--ref") == 0 ||
        strcmp(a, "--check-elems") == 0 || strcmp(a, "--ref-limit") == 0) {
      if (!val) {
        cli_msg("verify", "%s needs a value", a);
        free(args);
        return CLI_EXIT_USAGE;
      }
      i++;
      int bad = 0;
      int64_t v = 0;
      if (strcmp(a, "--device") == 0) {
        o.device = val;
      } else if (strcmp(a, "--seed") == 0) {
        bad = cli_parse_u64(val, &o.seed) != 0;
        have_seed = 1;
      } else if (strcmp(a, "--ref") == 0) {
        if (strcmp(val, "builtin") == 0) o.builtin = 1;
        else if (strcmp(val, "fftwl") == 0 || strcmp(val, "auto") == 0) o.builtin = 0;
        else bad = 1;
      } else {
        bad = cli_parse_i64(val, &v) != 0 || v < 1;
        if (strcmp(a, "--ref-limit") == 0) o.ref_limit = v;
        else o.check_elems = v;
      }
      if (bad) {
        cli_msg("verify", "bad value '%s' for %s", val, a);
        free(args);
        return CLI_EXIT_USAGE;
      }
    } else if (strcmp(a, "--suite") == 0 && val) {
      args[nargs++] = argv[++i];
    } else if (a[0] == '-' && a[1] == '-') {
      cli_msg("verify", "unknown option '%s'", a);
      free(args);
      return CLI_EXIT_USAGE;
    } else {
      args[nargs++] = argv[i];
    }
  }
  if (nargs == 0) {
    cli_msg("verify", "missing TOKEN (e.g. hyfft verify c2c:f32:fwd:1024)");
    free(args);
    return CLI_EXIT_USAGE;
  }
  char **tokens = NULL;
  int ntokens = 0;
  int rc = cli_expand_tokens("verify", nargs, args, &tokens, &ntokens);
  free(args);
  if (rc) return CLI_EXIT_USAGE;
  /* Every token is parsed before anything runs: a typo is a usage error. */
  hyfft_problem *problems = calloc((size_t)ntokens + 1, sizeof *problems);
  if (!problems) {
    cli_free_tokens(tokens, ntokens);
    return CLI_EXIT_FAIL;
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
      cli_status_msg("verify", what, st);
      free(problems);
      cli_free_tokens(tokens, ntokens);
      return CLI_EXIT_USAGE;
    }
  }
  if (!have_seed) o.seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
  cli_progress_init(o.progress);
  hyfft_context ctx;
  hyfft_status st = hyfft_context_create(o.device, &ctx);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("verify", "creating the context", st);
    free(problems);
    cli_free_tokens(tokens, ntokens);
    return CLI_CONTEXT_EXIT(st);
  }
  hyfft_device_info dev;
  if (hyfft_context_device(ctx, &dev) == HYFFT_SUCCESS)
    printf("device %s (%s)\n", dev.spec, dev.name);
  printf("seed %llu (replay with --seed %llu)\n", (unsigned long long)o.seed,
         (unsigned long long)o.seed);
  printf("%-40s %10s %11s %10s %10s %10s  %-7s %s\n", "problem", "N", "checked", "rel RMS",
         "max err", "RMS gate", "ref", "result");
  int pass = 0, fail = 0, skip = 0, unsupported = 0;
  for (int i = 0; i < ntokens; i++) {
    int r = cli_is_conv_token(tokens[i])
                ? cli_conv_verify(ctx, tokens[i], o.seed, o.builtin, o.check_elems)
                : cli_verify_one(ctx, tokens[i], &problems[i], &o);
    if (r == 0) pass++;
    else if (r == 1) fail++;
    else if (r == 3) unsupported++;
    else skip++;
    fflush(stdout);
  }
  printf("%d passed, %d failed, %d not supported by this backend, %d not checked\n", pass, fail,
         unsupported, skip);
  hyfft_context_destroy(ctx);
  free(problems);
  cli_free_tokens(tokens, ntokens);
  return fail ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
