/* hyfft: the command-line tool (info, plan, verify, bench, tune, cache). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conv.h"
#include "peer.h"

static const char cli_usage[] =
    "usage: hyfft COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  info [--best]             version, backends, devices and loadable peer libraries;\n"
    "                            --best prints only the spec of the device auto selects\n"
    "  plan TOKEN [--device SPEC] [--source] [--measure] [--hybrid] [--own-workspace]\n"
    "       [--load-callback FILE] [--store-callback FILE]\n"
    "            [--wisdom FILE]\n"
    "                            print the plan tree (and generated kernels) of a problem;\n"
    "                            a distributed token (:mpi) under mpirun: every rank's plan\n"
    "  verify TOKEN|SUITE... [--suite SUITE] [--device SPEC] [--seed S]\n"
    "                            [--ref auto|fftwl|builtin] [--check-elems N] [--strict]\n"
    "                            [--self-test] [--ref-limit N] [--progress]\n"
    "                            compare against a long-double reference (beyond it: bins\n"
    "                            computed directly for 1D C2C/R2C, else a reference-free\n"
    "                            self-test); exit 1 on failure\n"
    "  bench SUITE|TOKEN... [--suite SUITE] [--device SPEC] [--vs fftw,cufft,vkfft,copy,...]\n"
    "                            [--warmup N] [--runs N] [--json FILE] [--plot FILE.svg]\n"
    "                            [--seed S] [--threads N] [--measure] [--peer-estimate|--peer-patient] [--host] [--pinned]\n"
    "                            [--check-elems N] [--ref-limit N] [--ref auto|fftwl|builtin]\n"
    "                            [--dry-run] [--wisdom FILE] [--progress]\n"
    "                            time hyfft (and peers) and report GFLOP/s, GB/s, %copy\n"
    "                            (of the copy floor) and accuracy\n"
    "  bench --mpi TOKEN... [--runs N] [--device SPEC] [--measure] [--peer-estimate] [--rows]\n"
    "                            under mpirun: distributed tokens (c2c:f64:fwd:64x64x64:mpi)\n"
    "                            against FFTW-MPI with the phase breakdown; runs the\n"
    "                            program hyfft_mpi_bench (docs/mpi.md)\n"
    "  tune SUITE|TOKEN... [--device SPEC] [--wisdom FILE] [--hybrid]\n"
    "                            measure-plan each problem (solvers x kernel variants),\n"
    "                            report the choice and write it as wisdom\n"
    "  cache warm SUITE|TOKEN... [--device SPEC]\n"
    "                            plan each problem and wait for its kernels, so that\n"
    "                            the on-disk kernel cache holds them ahead of use\n"
    "  help [COMMAND]            this text\n"
    "\n"
    "A TOKEN names a problem, e.g. c2c:f32:fwd:1024x1024:b64 (docs/api.md); a SUITE\n"
    "is a file of tokens, by path or by name in bench/suites (quick, cpu, standard, real, broad).\n"
    "A device SPEC is auto, cpu, cuda[:N] or opencl[:P:D] (default $HYFFT_DEVICE or\n"
    "auto), or a list of one backend's devices (cuda:0,1, cuda:all, opencl:0:0,0:1):\n"
    "host problems then split their batch across the devices, or one 2D/3D C2C/R2C/C2R\n"
    "transform in slabs (each device's rows and columns: hyfft plan).\n"
    "Exit status: 0 success, 1 a check or run failed, 2 bad usage.\n"
    "See docs/cli.md for details.\n";

static void cli_print_usage(FILE *f) { fputs(cli_usage, f); }

/* ---- info -------------------------------------------------------------------- */

static const char *cli_backend_name(hyfft_backend_id id) {
  switch (id) {
    case HYFFT_BACKEND_CPU: return "cpu";
    case HYFFT_BACKEND_CUDA: return "cuda";
    case HYFFT_BACKEND_OPENCL: return "opencl";
  }
  return "?";
}

static void cli_bytes(char *buf, size_t len, int64_t b) {
  if (b <= 0)
    snprintf(buf, len, "unknown");
  else if (b >= ((int64_t)1 << 30))
    snprintf(buf, len, "%.1f GiB", (double)b / (double)((int64_t)1 << 30));
  else if (b >= ((int64_t)1 << 20))
    snprintf(buf, len, "%.1f MiB", (double)b / (double)((int64_t)1 << 20));
  else
    snprintf(buf, len, "%.1f KiB", (double)b / 1024.0);
}

/* Whether any of `names` loads, printing which. */
static void cli_probe(const char *label, const char *const *names) {
  const char *which = NULL;
  void *h = cli_dlopen_first(names, &which);
  if (h) {
    /* Left loaded: unloading a C++ library (cuFFT) strands its runtime's
     * allocations, which leak checkers then report. */
    printf("  %-22s yes (%s)\n", label, which);
    (void)h;
  } else {
    printf("  %-22s no (tried %s", label, names[0]);
    for (int i = 1; names[i]; i++) printf(", %s", names[i]);
    printf(")\n");
  }
}

/* The spec of the device that "auto" (or $HYFFT_DEVICE) selects, alone on
 * a line, for scripts. */
static int cli_info_best(void) {
  hyfft_context ctx;
  hyfft_status st = hyfft_context_create(NULL, &ctx);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("info", "creating the default context", st);
    return CLI_EXIT_FAIL;
  }
  hyfft_device_info d;
  st = hyfft_context_device(ctx, &d);
  if (st == HYFFT_SUCCESS) printf("%s\n", d.spec);
  else cli_status_msg("info", "reading the device", st);
  hyfft_context_destroy(ctx);
  return st == HYFFT_SUCCESS ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

static int cli_info(int argc, char **argv) {
  if (argc == 1 && strcmp(argv[0], "--best") == 0) return cli_info_best();
  if (argc > 0) {
    cli_msg("info", "unexpected argument '%s' (info takes only --best)", argv[0]);
    return CLI_EXIT_USAGE;
  }
  printf("hyfft %s\n", hyfft_version_string());
  int count = 0;
  hyfft_status st = hyfft_device_get(0, NULL, &count);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("info", "enumerating devices", st);
    return CLI_EXIT_FAIL;
  }
  static const hyfft_backend_id ids[3] = {HYFFT_BACKEND_CUDA, HYFFT_BACKEND_OPENCL,
                                          HYFFT_BACKEND_CPU};
  printf("\nbackends:\n");
  for (int b = 0; b < 3; b++) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      hyfft_device_info info;
      if (hyfft_device_get(i, &info, NULL) == HYFFT_SUCCESS && info.backend == ids[b]) n++;
    }
    printf("  %-7s %d device%s%s\n", cli_backend_name(ids[b]), n, n == 1 ? "" : "s",
           n ? "" : " (runtime not found, no device, or not built)");
  }
  printf("\ndevices (%d):\n", count);
  for (int i = 0; i < count; i++) {
    hyfft_device_info d;
    st = hyfft_device_get(i, &d, NULL);
    if (st != HYFFT_SUCCESS) {
      cli_status_msg("info", "reading a device", st);
      return CLI_EXIT_FAIL;
    }
    char mem[32], local[32], l2[32];
    cli_bytes(mem, sizeof mem, d.global_memory);
    cli_bytes(local, sizeof local, d.local_memory);
    cli_bytes(l2, sizeof l2, d.l2_cache);
    printf("  [%d] %s: %s%s%s%s\n", i, d.spec, d.name, d.platform[0] ? " (" : "", d.platform,
           d.platform[0] ? ")" : "");
    printf("      backend %s, %s, compute units %d, memory %s, local memory %s, L2 %s,\n",
           cli_backend_name(d.backend), d.is_gpu ? "GPU" : "not a GPU", d.compute_units, mem,
           d.backend == HYFFT_BACKEND_CPU ? "n/a" : local, l2);
    printf("      max work group %d, f64 %s\n", d.max_work_group, d.supports_f64 ? "yes" : "no");
  }
  printf("\npeers (loadable with dlopen):\n");
  static const char *const f32[] = {"libfftw3f.so.3", NULL};
  static const char *const f64[] = {"libfftw3.so.3", NULL};
  static const char *const f80[] = {"libfftw3l.so.3", NULL};
  static const char *const f32t[] = {"libfftw3f_threads.so.3", NULL};
  static const char *const f64t[] = {"libfftw3_threads.so.3", NULL};
  cli_probe("fftw f32", f32);
  cli_probe("fftw f32 threads", f32t);
  cli_probe("fftw f64", f64);
  cli_probe("fftw f64 threads", f64t);
  cli_probe("fftw long double (ref)", f80);
  const char *home = getenv("CUDA_HOME");
  if (!home || !*home) home = "/usr/local/cuda";
  char p1[1024], p2[1024], p3[1024];
  snprintf(p1, sizeof p1, "%s/lib64/libcufft.so.12", home);
  snprintf(p2, sizeof p2, "%s/lib64/libcufft.so", home);
  snprintf(p3, sizeof p3, "%s/lib/libcufft.so", home);
  const char *cufft[] = {"libcufft.so.12", "libcufft.so", p1, p2, p3, NULL};
  cli_probe("cufft", cufft);
  printf("  bench peers built in: %s\n", cli_peer_names());
  return CLI_EXIT_OK;
}

/* ---- plan -------------------------------------------------------------------- */

/* Fetch a text through the public two-call convention. */
static hyfft_status cli_text(hyfft_plan plan,
                             hyfft_status (*fn)(hyfft_plan, char *, size_t, size_t *),
                             char **out) {
  size_t need = 0;
  char probe[1];
  hyfft_status st = fn(plan, probe, sizeof probe, &need);
  if (st != HYFFT_SUCCESS && st != HYFFT_BUFFER_TOO_SMALL) return st;
  char *buf = malloc(need + 1);
  if (!buf) return HYFFT_OUT_OF_MEMORY;
  st = fn(plan, buf, need + 1, NULL);
  if (st != HYFFT_SUCCESS) {
    free(buf);
    return st;
  }
  *out = buf;
  return HYFFT_SUCCESS;
}

/* The whole of a text file (malloc'd, NUL terminated), or NULL. */
static char *cli_read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = 2 * cap + 4096 + 1;
      char *more = realloc(text, cap);
      if (!more) {
        free(text);
        fclose(f);
        return NULL;
      }
      text = more;
    }
    size_t got = fread(text + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(text);
    return NULL;
  }
  text[len] = '\0';
  return text;
}

static int cli_plan(int argc, char **argv) {
  const char *token = NULL, *device = NULL, *wisdom = NULL;
  const char *cb_file[2] = {NULL, NULL};
  char *cb_text[2] = {NULL, NULL};
  int source = 0;
  unsigned flags = HYFFT_ESTIMATE;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0) {
      if (++i == argc) {
        cli_msg("plan", "--device needs a SPEC (auto, cpu, cuda[:N], opencl[:P:D], "
                "or a list such as cuda:0,1)");
        return CLI_EXIT_USAGE;
      }
      device = argv[i];
    } else if (strcmp(argv[i], "--wisdom") == 0) {
      if (++i == argc) {
        cli_msg("plan", "--wisdom needs a FILE");
        return CLI_EXIT_USAGE;
      }
      wisdom = argv[i];
    } else if (strcmp(argv[i], "--load-callback") == 0 ||
               strcmp(argv[i], "--store-callback") == 0) {
      int k = argv[i][2] == 's';
      if (++i == argc) {
        cli_msg("plan", "%s needs a FILE (the callback's source)", argv[i - 1]);
        return CLI_EXIT_USAGE;
      }
      cb_file[k] = argv[i];
    } else if (strcmp(argv[i], "--source") == 0) {
      source = 1;
    } else if (strcmp(argv[i], "--measure") == 0) {
      flags |= HYFFT_MEASURE;
    } else if (strcmp(argv[i], "--hybrid") == 0) {
      flags |= HYFFT_HYBRID;
    } else if (strcmp(argv[i], "--own-workspace") == 0) {
      flags |= HYFFT_OWN_WORKSPACE;
    } else if (argv[i][0] == '-') {
      cli_msg("plan", "unknown option '%s'", argv[i]);
      return CLI_EXIT_USAGE;
    } else if (token) {
      cli_msg("plan", "one TOKEN expected, got '%s' and '%s'", token, argv[i]);
      return CLI_EXIT_USAGE;
    } else {
      token = argv[i];
    }
  }
  if (!token) {
    cli_msg("plan", "missing TOKEN (e.g. hyfft plan c2c:f32:fwd:1024)");
    return CLI_EXIT_USAGE;
  }
  /* A distributed token: its plan exists only under MPI, in the MPI
   * benchmark program (bench_mpi.c). */
  if (strstr(token, ":mpi")) {
    if (device || wisdom || source || cb_file[0] || cb_file[1] || (flags & ~HYFFT_MEASURE) != 0) {
      cli_msg("plan", "a distributed token takes only --measure (the local plans run on the CPU)");
      return CLI_EXIT_USAGE;
    }
    return cli_cmd_plan_mpi(token, (flags & HYFFT_MEASURE) != 0);
  }
  hyfft_problem problem;
  hyfft_status st;
  if (cli_is_conv_token(token)) {
    int64_t filters;
    hyfft_window window;
    st = hyfft_convolution_parse(token, &problem, &filters, &window);
  } else {
    st = hyfft_problem_parse(token, &problem);
  }
  if (st != HYFFT_SUCCESS) {
    char what[512];
    snprintf(what, sizeof what, "bad token '%s'", token);
    cli_status_msg("plan", what, st);
    return CLI_EXIT_USAGE;
  }
  /* Convolutions (conv.c): the plan of random spectra, described. */
  if (cli_is_conv_token(token)) {
    hyfft_context cctx;
    st = hyfft_context_create(device, &cctx);
    if (st != HYFFT_SUCCESS) {
      cli_status_msg("plan", "creating the context", st);
      return CLI_CONTEXT_EXIT(st);
    }
    int crc = cli_conv_plan(cctx, token, flags & (HYFFT_MEASURE | HYFFT_OWN_WORKSPACE),
                            source);
    hyfft_context_destroy(cctx);
    return crc;
  }
  hyfft_context ctx;
  st = hyfft_context_create(device, &ctx);
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("plan", "creating the context", st);
    return CLI_CONTEXT_EXIT(st);
  }
  int rc = CLI_EXIT_FAIL;
  hyfft_plan plan = NULL;
  char *text = NULL, *src = NULL;
  if (wisdom && (st = hyfft_wisdom_import_file(ctx, wisdom)) != HYFFT_SUCCESS) {
    cli_status_msg("plan", "importing wisdom", st);
    goto done;
  }
  /* Callbacks from files (docs/api.md, "Callbacks"): their user pointers
   * are NULL, so the plan is only built and shown, not run. */
  for (int k = 0; k < 2; k++) {
    if (!cb_file[k]) continue;
    cb_text[k] = cli_read_text(cb_file[k]);
    if (!cb_text[k]) {
      cli_msg("plan", "cannot read the callback file '%s'", cb_file[k]);
      goto done;
    }
  }
  hyfft_callbacks callbacks = {cb_text[0], cb_text[1], NULL, NULL, NULL, NULL};
  double t0 = cli_now();
  st = hyfft_plan_create_with_callbacks(ctx, &problem, flags, &callbacks, &plan);
  double ms = (cli_now() - t0) * 1e3;
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("plan", token, st);
    goto done;
  }
  /* Kernels still compiling in the background (a CUDA persistent kernel
   * not in the cache) are waited for, and their time reported apart. */
  st = hyfft_plan_wait(plan);
  double ready_ms = (cli_now() - t0) * 1e3;
  if (st != HYFFT_SUCCESS) {
    cli_status_msg("plan", "building the plan's final kernels", st);
    goto done;
  }
  if ((st = cli_text(plan, hyfft_plan_describe, &text)) != HYFFT_SUCCESS) {
    cli_status_msg("plan", "describing the plan", st);
    goto done;
  }
  fputs(text, stdout);
  if (text[0] && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
  size_t ws = 0;
  hyfft_device_info dev;
  if (hyfft_plan_workspace_size(plan, &ws) == HYFFT_SUCCESS &&
      hyfft_context_device(ctx, &dev) == HYFFT_SUCCESS)
    printf("workspace: %zu bytes%s\n", ws,
           ws == 0 ? ""
           : dev.backend == HYFFT_BACKEND_CPU || (flags & HYFFT_OWN_WORKSPACE)
               ? " (the plan's own)"
               : " (in the context's shared work area, allocated at the first execution)");
  hyfft_tune_info tune;
  memset(&tune, 0, sizeof tune);
  hyfft_last_tune_info(&tune);
  printf("plan created in %.3f ms%s\n", ms,
         tune.from_wisdom ? " (from wisdom)" : tune.measured ? " (measured)" : "");
  if (ready_ms - ms >= 1.0)
    printf("final kernels ready in %.3f ms (compiled in the background; the plan ran its plain "
           "kernels until then)\n", ready_ms);
  if (source) {
    if ((st = cli_text(plan, hyfft_plan_source, &src)) != HYFFT_SUCCESS) {
      cli_status_msg("plan", "reading the generated source", st);
      goto done;
    }
    if (src[0])
      printf("\n%s%s", src, src[strlen(src) - 1] == '\n' ? "" : "\n");
    else
      printf("\n(no generated kernel source: this backend runs built-in code)\n");
  }
  rc = CLI_EXIT_OK;
done:
  free(text);
  free(src);
  free(cb_text[0]);
  free(cb_text[1]);
  if (plan) hyfft_plan_destroy(plan);
  hyfft_context_destroy(ctx);
  return rc;
}

/* ---- dispatch ---------------------------------------------------------------- */

int cli_cmd_info(int argc, char **argv) { return cli_info(argc, argv); }
int cli_cmd_plan(int argc, char **argv) { return cli_plan(argc, argv); }

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_print_usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  int sub_argc = argc - 2;
  char **sub_argv = argv + 2;
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    cli_print_usage(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("hyfft %s\n", hyfft_version_string());
    return CLI_EXIT_OK;
  }
  for (int i = 0; i < sub_argc; i++)
    if (strcmp(sub_argv[i], "--help") == 0 || strcmp(sub_argv[i], "-h") == 0) {
      cli_print_usage(stdout);
      return CLI_EXIT_OK;
    }
  if (strcmp(cmd, "info") == 0) return cli_cmd_info(sub_argc, sub_argv);
  if (strcmp(cmd, "plan") == 0) return cli_cmd_plan(sub_argc, sub_argv);
  if (strcmp(cmd, "verify") == 0) return cli_cmd_verify(sub_argc, sub_argv);
  if (strcmp(cmd, "bench") == 0) return cli_cmd_bench(sub_argc, sub_argv);
  if (strcmp(cmd, "tune") == 0) return cli_cmd_tune(sub_argc, sub_argv);
  if (strcmp(cmd, "cache") == 0) return cli_cmd_cache(sub_argc, sub_argv);
  fprintf(stderr, "hyfft: unknown command '%s' (try 'hyfft help')\n", cmd);
  return CLI_EXIT_USAGE;
}
