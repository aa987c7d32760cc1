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

/* --hybrid: plan the problem on host data with HYFFT_HYBRID, which
 * calibrates, searches and leaves the CPU shares in wisdom, and print the
 * description's split lines. */
static void cli_tune_hybrid(hyfft_context ctx, const char *token, hyfft_problem *problem,
                            int *failures) {
  problem->memory = HYFFT_MEMORY_HOST;
  hyfft_plan plan = NULL;
  hyfft_status st = hyfft_plan_create(ctx, problem, HYFFT_HYBRID, &plan);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("tune", token, st);
    (*failures)++;
    return;
  }
  size_t need = 0;
  char *text = NULL;
  if (hyfft_plan_describe(plan, NULL, 0, &need) == HYFFT_SUCCESS && (text = malloc(need + 1)) &&
      hyfft_plan_describe(plan, text, need + 1, NULL) == HYFFT_SUCCESS) {
    /* The split lines: one per kind of host memory (pageable, and
     * page-locked where the backend page-locks host memory). */
    const char *line = strstr(text, "  hybrid: ");
    if (!line) printf("  hybrid: not split (no outer batch dim the CPU can share)\n");
    while (line && strncmp(line, "  hybrid: ", 10) == 0) {
      int len = (int)strcspn(line + 2, "\n");
      printf("  %.*s\n", len, line + 2);
      line += 2 + len + (line[2 + len] == '\n');
    }
  }
  free(text);
  fflush(stdout);
  hyfft_plan_destroy(plan);
}

int cli_cmd_tune(int argc, char **argv) {
  const char *device = NULL, *wisdom = "hyfft.wisdom";
  int hybrid = 0;
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
    } else if (strcmp(argv[i], "--hybrid") == 0) {
      hybrid = 1;
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
    if (hybrid && dev.backend != HYFFT_BACKEND_CPU) cli_tune_hybrid(ctx, tokens[t], &problem, &failures);
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
