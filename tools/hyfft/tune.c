/* hyfft tune: measure-plan each problem of a suite, report what the search
 * found, and save it as wisdom (docs/cli.md). The library measures; this
 * command only drives it and prints (the library never prints). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int cli_tune_usage(const char *msg, const char *arg) {
  cli_msg("tune", "%s%s%s", msg, arg ? " " : "", arg ? arg : "");
  return CLI_EXIT_USAGE;
}

int cli_cmd_tune(int argc, char **argv) {
  const char *device = NULL, *wisdom = "hyfft.wisdom";
  char **args = malloc((size_t)(argc + 1) * sizeof *args);
  int nargs = 0;
  if (!args) return CLI_EXIT_FAIL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 || strcmp(argv[i], "--wisdom") == 0) {
      if (i + 1 == argc) {
        free(args);
        return cli_tune_usage("missing value for", argv[i]);
      }
      if (argv[i][2] == 'd') device = argv[++i];
      else wisdom = argv[++i];
    } else if (argv[i][0] == '-') {
      free(args);
      return cli_tune_usage("unknown option", argv[i]);
    } else {
      args[nargs++] = argv[i];
    }
  }
  if (nargs == 0) {
    free(args);
    return cli_tune_usage("missing SUITE or TOKEN (e.g. hyfft tune quick --device opencl)", NULL);
  }
  char **tokens = NULL;
  int ntokens = 0;
  if (cli_expand_tokens("tune", nargs, args, &tokens, &ntokens)) {
    free(args);
    return CLI_EXIT_USAGE;
  }
  free(args);
  if (cli_check_output("tune", "--wisdom", wisdom)) {
    cli_free_tokens(tokens, ntokens);
    return CLI_EXIT_USAGE;
  }
  hyfft_context ctx;
  hyfft_status st = hyfft_context_create(device, &ctx);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("tune", "creating the context", st);
    cli_free_tokens(tokens, ntokens);
    return CLI_CONTEXT_EXIT(st);
  }
  hyfft_device_info dev;
  memset(&dev, 0, sizeof dev);
  hyfft_context_device(ctx, &dev);
  if (dev.backend == HYFFT_BACKEND_CPU)
    printf("note: the CPU backend has no kernel variants; its plans come from the model\n");
  /* Start from an empty table: the file written holds this run's choices,
   * not older ones that $HYFFT_WISDOM may have brought in. */
  hyfft_wisdom_forget();
  printf("tuning %d problem%s on %s (%s)\n", ntokens, ntokens == 1 ? "" : "s", dev.spec, dev.name);
  printf("%-32s %12s %12s %7s %6s %8s  %s\n", "problem", "default ms", "best ms", "speedup",
         "tried", "rejected", "choice");
  int failures = 0;
  for (int t = 0; t < ntokens; t++) {
    hyfft_plan plan = NULL;
    double t0 = cli_now();
    /* On a GPU the problem is tuned with its data in device memory, as
     * `bench` times it: a host-memory plan would be staged in chunks,
     * each a sub-plan measured on its own, and the line below would
     * describe the last of those. Wisdom keys drop the memory field, so
     * the choice serves host-memory plans of the problem too. */
    hyfft_problem problem;
    st = hyfft_problem_parse(tokens[t], &problem);
    if (st == HYFFT_SUCCESS) {
      if (dev.backend != HYFFT_BACKEND_CPU) problem.memory = HYFFT_MEMORY_DEVICE;
      st = hyfft_plan_create(ctx, &problem, HYFFT_MEASURE, &plan);
    }
    double secs = cli_now() - t0;
    if (st != HYFFT_SUCCESS) {
      cli_status_msg("tune", tokens[t], st);
      failures++;
      continue;
    }
    hyfft_tune_info info;
    memset(&info, 0, sizeof info);
    hyfft_last_tune_info(&info);
    if (info.measured)
      printf("%-32s %12.4f %12.4f %6.2fx %6d %8d  %s %s (%.1f s)\n", tokens[t],
             info.default_seconds * 1e3, info.best_seconds * 1e3,
             info.best_seconds > 0 ? info.default_seconds / info.best_seconds : 1.0,
             info.variants_tried, info.variants_rejected, info.solver,
             info.variant[0] ? info.variant : "(model)", secs);
    else
      printf("%-32s %12s %12s %7s %6s %8s  %s (model, not measured)\n", tokens[t], "-", "-", "-",
             "-", "-", info.solver);
    fflush(stdout);
    hyfft_plan_destroy(plan);
  }
  st = hyfft_wisdom_export_file(ctx, wisdom);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("tune", "writing the wisdom file", st);
    failures++;
  } else {
    printf("wisdom written to %s\n", wisdom);
  }
  hyfft_context_destroy(ctx);
  cli_free_tokens(tokens, ntokens);
  return failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
