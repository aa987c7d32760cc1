/* hyfft cache warm: plan every problem of a suite or token list on a
 * device and wait for its kernels, so that the on-disk kernel cache
 * ($HYFFT_CACHE_DIR) holds them before a program first plans them (install
 * scripts, container builds). Cold plan creation is mostly compiling; a
 * warm cache makes it milliseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int cli_cache_usage(const char *msg, const char *arg) {
  cli_msg("cache", "%s%s%s", msg, arg ? " " : "", arg ? arg : "");
  return CLI_EXIT_USAGE;
}

static int cli_cache_warm(int argc, char **argv) {
  const char *device = NULL;
  char **args = malloc((size_t)(argc + 1) * sizeof *args);
  int nargs = 0;
  if (!args) return CLI_EXIT_FAIL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0) {
      if (i + 1 == argc) {
        free(args);
        return cli_cache_usage("missing value for", argv[i]);
      }
      device = argv[++i];
    } else if (argv[i][0] == '-') {
      free(args);
      return cli_cache_usage("unknown option", argv[i]);
    } else {
      args[nargs++] = argv[i];
    }
  }
  if (nargs == 0) {
    free(args);
    return cli_cache_usage("missing SUITE or TOKEN (e.g. hyfft cache warm standard --device cuda)",
                           NULL);
  }
  char **tokens = NULL;
  int ntokens = 0;
  int bad = cli_expand_tokens("cache", nargs, args, &tokens, &ntokens);
  free(args);
  if (bad) return CLI_EXIT_USAGE;
  /* Every token parses before anything is compiled. */
  for (int i = 0; i < ntokens; i++) {
    hyfft_problem p;
    hyfft_status st = hyfft_problem_parse(tokens[i], &p);
    if (st != HYFFT_SUCCESS) {
      char what[512];
      snprintf(what, sizeof what, "bad token '%s'", tokens[i]);
      cli_status_msg("cache", what, st);
      cli_free_tokens(tokens, ntokens);
      return CLI_EXIT_USAGE;
    }
  }
  const char *dir = getenv("HYFFT_CACHE_DIR");
  if (dir && (strcmp(dir, "off") == 0 || strcmp(dir, "none") == 0)) {
    cli_msg("cache", "the kernel cache is off (HYFFT_CACHE_DIR=%s): nothing to warm", dir);
    cli_free_tokens(tokens, ntokens);
    return CLI_EXIT_USAGE;
  }
  hyfft_context ctx;
  hyfft_status st = hyfft_context_create(device, &ctx);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("cache", "creating the context", st);
    cli_free_tokens(tokens, ntokens);
    return CLI_CONTEXT_EXIT(st);
  }
  /* An unusable cache directory is a warning at context creation: here it
   * makes the command pointless. */
  const char *warning = hyfft_last_error();
  if (warning && strstr(warning, "disk cache is off")) {
    cli_msg("cache", "%s", warning);
    hyfft_context_destroy(ctx);
    cli_free_tokens(tokens, ntokens);
    return CLI_EXIT_FAIL;
  }
  hyfft_device_info dev;
  memset(&dev, 0, sizeof dev);
  hyfft_context_device(ctx, &dev);
  printf("warming the kernel cache for %s (%s): %d problem%s\n", dev.spec, dev.name, ntokens,
         ntokens == 1 ? "" : "s");
  if (dev.backend == HYFFT_BACKEND_CPU)
    printf("(the CPU backend runs built-in code: planning it caches nothing)\n");
  int failed = 0, skipped = 0;
  double t_all = cli_now();
  for (int i = 0; i < ntokens; i++) {
    double t0 = cli_now();
    hyfft_plan plan = NULL;
    st = hyfft_plan_token(ctx, tokens[i], 0, &plan);
    if (st == HYFFT_SUCCESS) st = hyfft_plan_wait(plan);
    double ms = (cli_now() - t0) * 1e3;
    if (st == HYFFT_SUCCESS) {
      printf("  %-44s %9.1f ms\n", tokens[i], ms);
    } else if (st == HYFFT_NOT_SUPPORTED || st == HYFFT_NO_SOLVER || st == HYFFT_OUT_OF_MEMORY) {
      printf("  %-44s skipped: %s: %s\n", tokens[i], hyfft_status_name(st), hyfft_last_error());
      skipped++;
    } else {
      printf("  %-44s FAILED: %s: %s\n", tokens[i], hyfft_status_name(st), hyfft_last_error());
      failed++;
    }
    if (plan) hyfft_plan_destroy(plan);
    fflush(stdout);
  }
  printf("%d planned, %d skipped, %d failed in %.1f s\n", ntokens - skipped - failed, skipped,
         failed, cli_now() - t_all);
  hyfft_context_destroy(ctx);
  cli_free_tokens(tokens, ntokens);
  return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

int cli_cmd_cache(int argc, char **argv) {
  if (argc < 1) return cli_cache_usage("missing subcommand (warm)", NULL);
  if (strcmp(argv[0], "warm") == 0) return cli_cache_warm(argc - 1, argv + 1);
  return cli_cache_usage("unknown subcommand", argv[0]);
}
