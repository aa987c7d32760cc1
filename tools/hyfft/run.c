/* Running one problem through hyfft on host or device buffers. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

hyfft_status cli_case_setup(cli_case *c, hyfft_context ctx, const char *token,
                            const hyfft_problem *problem, unsigned flags, int keep_going,
                            char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  c->token = token;
  c->ctx = ctx;
  double t0 = cli_now();
  hyfft_status st = hyfft_plan_create(ctx, problem, flags, &c->plan);
  c->plan_seconds = cli_now() - t0;
  /* Runs and timings are of the plan's final kernels: wait for any the
   * plan still compiles in the background (a build failure is the plan's
   * failure here). */
  if (st == HYFFT_SUCCESS) st = hyfft_plan_wait(c->plan);
  c->ready_seconds = cli_now() - t0;
  if (st == HYFFT_SUCCESS) cli_progress_attach(c);
  hyfft_problem v = *problem;
  if (st != HYFFT_SUCCESS) {
    snprintf(c->plan_error, sizeof c->plan_error, "%s", hyfft_last_error());
    if (c->plan) hyfft_plan_destroy(c->plan);
    c->plan = NULL;
    c->plan_status = st;
    if (!keep_going) return st;
  } else if ((st = hyfft_plan_problem(c->plan, &v)) != HYFFT_SUCCESS) {
    return st;
  }
  if (cli_layout_init(&c->L, &v, err, errlen)) return HYFFT_INTERNAL;
  c->device = v.memory == HYFFT_MEMORY_DEVICE;
  c->host_in = cli_alloc(c->L.buf_in_bytes);
  c->host_out = v.inplace ? c->host_in : cli_alloc(c->L.buf_out_bytes);
  if (!c->host_in || !c->host_out) {
    snprintf(err, errlen, "cannot allocate %zu + %zu bytes of host buffers", c->L.buf_in_bytes,
             v.inplace ? 0 : c->L.buf_out_bytes);
    return HYFFT_OUT_OF_MEMORY;
  }
  /* Gaps between strided elements must hold defined values. */
  memset(c->host_in, 0, c->L.buf_in_bytes);
  if (!v.inplace) memset(c->host_out, 0, c->L.buf_out_bytes);
  if (c->device) {
    st = hyfft_buffer_alloc(ctx, c->L.buf_in_bytes, &c->din);
    if (st != HYFFT_SUCCESS) return st;
    if (v.inplace) {
      c->dout = c->din;
    } else {
      st = hyfft_buffer_alloc(ctx, c->L.buf_out_bytes, &c->dout);
      if (st != HYFFT_SUCCESS) return st;
    }
  } else {
    c->din = c->host_in;
    c->dout = c->host_out;
  }
  return HYFFT_SUCCESS;
}

int cli_case_fill(cli_case *c, uint64_t seed, int64_t keep, cli_ldc *logical, int save) {
  cli_rng rng;
  cli_rng_seed(&rng, seed, c->token);
  if (cli_fill_input(&c->L, &rng, c->host_in, keep, logical)) return -1;
  if (save) {
    if (!c->pristine) c->pristine = cli_alloc(c->L.buf_in_bytes);
    if (!c->pristine) return -1;
    memcpy(c->pristine, c->host_in, c->L.buf_in_bytes);
  }
  return 0;
}

hyfft_status cli_case_upload(cli_case *c, int from_pristine, int poison) {
  const void *src = from_pristine && c->pristine ? c->pristine : c->host_in;
  int inplace = c->L.p.inplace;
  /* All ones bytes are NaN in f32 and f64: unwritten outputs fail. */
  if (poison && !inplace) memset(c->host_out, 0xff, c->L.buf_out_bytes);
  if (!c->device) {
    if (src != c->host_in) memcpy(c->host_in, src, c->L.buf_in_bytes);
    return HYFFT_SUCCESS;
  }
  hyfft_status st = hyfft_buffer_write(c->ctx, c->din, 0, src, c->L.buf_in_bytes);
  if (st == HYFFT_SUCCESS && poison && !inplace)
    st = hyfft_buffer_write(c->ctx, c->dout, 0, c->host_out, c->L.buf_out_bytes);
  return st;
}

hyfft_status cli_case_execute(cli_case *c) {
  cli_progress_start(c);
  hyfft_status st = hyfft_execute(c->plan, c->din, c->dout);
  if (st == HYFFT_SUCCESS && c->device) st = hyfft_context_synchronize(c->ctx);
  return st;
}

hyfft_status cli_case_download(cli_case *c) {
  if (!c->device) return HYFFT_SUCCESS;
  return hyfft_buffer_read(c->ctx, c->dout, 0, c->host_out, c->L.buf_out_bytes);
}

void cli_case_free(cli_case *c) {
  if (c->device) {
    if (c->dout && c->dout != c->din) hyfft_buffer_free(c->ctx, c->dout);
    if (c->din) hyfft_buffer_free(c->ctx, c->din);
  }
  if (c->host_out && c->host_out != c->host_in) cli_free(c->host_out);
  cli_free(c->host_in);
  cli_free(c->pristine);
  if (c->plan) hyfft_plan_destroy(c->plan);
  memset(c, 0, sizeof *c);
}
