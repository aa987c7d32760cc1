/* `hyfft bench --mpi TOKEN...`: distributed benchmarks, and `hyfft plan
 * TOKEN` for a distributed token (every rank's plan described). The tool itself
 * does not link MPI (nor FFTW-MPI); the distributed benchmark is the
 * program bench/mpi/hyfft_mpi_bench, which this command replaces itself
 * with (execv) so that `mpirun -np 4 hyfft bench --mpi TOKEN` runs it on
 * every rank before any rank initialises MPI. The program is found through
 * $HYFFT_MPI_BENCH, the build tree's path (compiled in where the program
 * is built), or beside the running hyfft (an install). Options the MPI
 * program does not take are refused by name. docs/cli.md, docs/mpi.md. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The MPI benchmark's path into buf, or 0 when none is found. */
static int cli_mpi_bench_path(char *buf, size_t size) {
  const char *env = getenv("HYFFT_MPI_BENCH");
  if (env && *env) {
    snprintf(buf, size, "%s", env);
    return access(buf, X_OK) == 0;
  }
#ifdef HYFFT_CLI_MPI_BENCH
  if (access(HYFFT_CLI_MPI_BENCH, X_OK) == 0) {
    snprintf(buf, size, "%s", HYFFT_CLI_MPI_BENCH);
    return 1;
  }
#endif
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 0;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (!slash) return 0;
  *slash = '\0';
  snprintf(buf, size, "%s/hyfft_mpi_bench", self);
  return access(buf, X_OK) == 0;
}

int cli_cmd_bench_mpi(int argc, char **argv) {
  char **args = calloc((size_t)argc + 2, sizeof *args);
  if (!args) return CLI_EXIT_FAIL;
  char path[PATH_MAX + 32];
  int nargs = 1, ntokens = 0, rc = CLI_EXIT_USAGE;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--mpi") == 0) continue;
    if (strcmp(a, "--runs") == 0) {
      if (i + 1 >= argc || atoi(argv[i + 1]) < 1) {
        cli_msg("bench", "bad value '%s' for --runs", i + 1 < argc ? argv[i + 1] : "(missing)");
        goto out;
      }
      args[nargs++] = argv[i];
      args[nargs++] = argv[++i];
    } else if (strcmp(a, "--device") == 0) {
      if (i + 1 >= argc || !argv[i + 1][0]) {
        cli_msg("bench", "--device needs a device spec (cpu, cuda:0, opencl:0:0)");
        goto out;
      }
      args[nargs++] = argv[i];
      args[nargs++] = argv[++i];
    } else if (strcmp(a, "--measure") == 0 || strcmp(a, "--rows") == 0) {
      args[nargs++] = argv[i];
    } else if (strcmp(a, "--peer-estimate") == 0) {
      args[nargs++] = "--estimate"; /* FFTW-MPI plans with FFTW_ESTIMATE */
    } else if (a[0] == '-') {
      cli_msg("bench", "'%s' is not an option of 'bench --mpi' (it takes --runs N, --device "
                       "SPEC, --measure, --peer-estimate, --rows and distributed tokens)", a);
      goto out;
    } else {
      args[nargs++] = argv[i];
      ntokens++;
    }
  }
  if (ntokens == 0) {
    cli_msg("bench", "--mpi needs distributed tokens (e.g. c2c:f64:fwd:64x64x64:mpi)");
    goto out;
  }
  if (!cli_mpi_bench_path(path, sizeof path)) {
    cli_msg("bench", "--mpi runs the distributed benchmark hyfft_mpi_bench (bench/mpi), which is "
                     "not found: build hyfft with MPI and FFTW-MPI (libopenmpi-dev, "
                     "libfftw3-mpi-dev) or set HYFFT_MPI_BENCH to its path; run it as "
                     "'mpirun -np N hyfft bench --mpi TOKEN...' (docs/mpi.md)");
    rc = CLI_EXIT_FAIL;
    goto out;
  }
  args[0] = path;
  args[nargs] = NULL;
  fflush(stdout);
  execv(path, args);
  cli_msg("bench", "cannot run %s", path);
  rc = CLI_EXIT_FAIL;
out:
  free(args);
  return rc;
}

int cli_cmd_plan_mpi(const char *token, int measure) {
  char path[PATH_MAX + 32];
  if (!cli_mpi_bench_path(path, sizeof path)) {
    cli_msg("plan", "'%s' is a distributed token: its plan is described by the distributed "
                    "benchmark hyfft_mpi_bench (bench/mpi), which is not found: build hyfft with "
                    "MPI and FFTW-MPI (libopenmpi-dev, libfftw3-mpi-dev) or set HYFFT_MPI_BENCH "
                    "to its path; run it as 'mpirun -np N hyfft plan TOKEN' (docs/mpi.md)",
            token);
    return CLI_EXIT_FAIL;
  }
  char *args[5];
  int n = 0;
  args[n++] = path;
  args[n++] = "--describe";
  if (measure) args[n++] = "--measure";
  args[n++] = (char *)token;
  args[n] = NULL;
  fflush(stdout);
  execv(path, args);
  cli_msg("plan", "cannot run %s", path);
  return CLI_EXIT_FAIL;
}
