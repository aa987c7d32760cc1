/* Progress lines on stderr for long executions (hyfft_plan_set_progress).
 * The mode is set by verify and bench: with --progress every execution of
 * a plan reports; otherwise, when stderr is a terminal, an execution
 * reports once it has run for a second. On a terminal the line is
 * rewritten in place (carriage return) and ended when the execution ends;
 * elsewhere each report is a line of its own. Reports are at most five a
 * second, plus the final 100%; with --progress every report is shown,
 * its time in milliseconds, so that the lines time an execution's pieces
 * (the out-of-core sweeps report each piece as its download ends). */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

#define CLI_PROGRESS_AFTER 1.0   /* seconds before a terminal shows a line */
#define CLI_PROGRESS_EVERY 0.2   /* seconds between two reports */

static int cli_progress_mode; /* 0 off, 1 terminal after a second, 2 --progress */
static int cli_progress_tty;

void cli_progress_init(int forced) {
  cli_progress_tty = isatty(fileno(stderr));
  cli_progress_mode = forced ? 2 : cli_progress_tty ? 1 : 0;
}

static void cli_progress_report(void *user, double fraction) {
  cli_case *c = user;
  double now = cli_now(), elapsed = now - c->exec_start;
  int done = fraction >= 1.0;
  if (!c->progress_shown && cli_progress_mode == 1 && elapsed < CLI_PROGRESS_AFTER) return;
  if (!done && c->progress_shown && cli_progress_mode == 1 &&
      now - c->progress_at < CLI_PROGRESS_EVERY)
    return;
  if (cli_progress_mode == 2)
    fprintf(stderr, "%sprogress %s %5.1f%% (%.1f ms)%s", cli_progress_tty ? "\r" : "", c->token,
            fraction * 100.0, elapsed * 1e3, done || !cli_progress_tty ? "\n" : "");
  else
    fprintf(stderr, "%sprogress %s %3d%% (%.1f s)%s", cli_progress_tty ? "\r" : "", c->token,
            (int)(fraction * 100.0), elapsed, done || !cli_progress_tty ? "\n" : "");
  fflush(stderr);
  c->progress_shown = !done;
  c->progress_at = now;
}

void cli_progress_attach(cli_case *c) {
  if (cli_progress_mode && c->plan) hyfft_plan_set_progress(c->plan, cli_progress_report, c);
}

void cli_progress_start(cli_case *c) {
  /* With progress off nothing reads the start: no clock read per
   * execution, which bench's loops of short transforms would time. */
  if (!cli_progress_mode) return;
  c->exec_start = cli_now();
  c->progress_shown = 0;
}

void cli_progress_pause(cli_case *c, int paused) {
  if (cli_progress_mode != 1 || !c->plan) return;
  if (paused) hyfft_plan_set_progress(c->plan, NULL, NULL);
  else cli_progress_attach(c);
}
