/* Bench output: an aligned text table, JSON rows, and an SVG plot of GB/s
 * against transform size written by hand (no dependencies). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *cli_fmt(char *buf, size_t len, const char *fmt, double v) {
  if (isnan(v))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, fmt, v);
  return buf;
}

void cli_report_header(FILE *f) {
  fprintf(f, "%-38s %-6s %10s %11s %9s %9s %6s %9s %9s %8s  %s\n", "problem", "lib", "plan ms",
          "median ms", "GFLOP/s", "GB/s", "%copy", "rel RMS", "max err", "peer/hy", "note");
}

void cli_report_row(FILE *f, const cli_row *r) {
  char a[32], b[32], c[32], d[32], p[32], e[32], g[32], h[32];
  fprintf(f, "%-38s %-6s %10s %11s %9s %9s %6s %9s %9s %8s  %s\n", r->token, r->lib,
          cli_fmt(a, sizeof a, "%.2f", r->plan_ms), cli_fmt(b, sizeof b, "%.4g", r->median_ms),
          cli_fmt(c, sizeof c, "%.2f", r->gflops), cli_fmt(d, sizeof d, "%.2f", r->gbps),
          cli_fmt(p, sizeof p, "%.1f", r->pct_copy), cli_fmt(e, sizeof e, "%.2e", r->rel_rms),
          cli_fmt(g, sizeof g, "%.2e", r->max_err), cli_fmt(h, sizeof h, "%.2fx", r->ratio),
          r->note);
}

/* ---- JSON ----------------------------------------------------------------------- */

static void cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static void cli_json_num(FILE *f, const char *key, double v) {
  fprintf(f, ", \"%s\": ", key);
  if (isfinite(v))
    fprintf(f, "%.6g", v);
  else
    fputs("null", f);
}

int cli_report_json(const char *path, const char *device, const cli_row *rows, int nrows,
                    int warmup, int runs, uint64_t seed) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "{\n  \"tool\": \"hyfft bench\", \"version\": ");
  cli_json_str(f, hyfft_version_string());
  fprintf(f, ",\n  \"device\": ");
  cli_json_str(f, device);
  fprintf(f, ",\n  \"warmup\": %d, \"runs\": %d, \"seed\": %llu,\n  \"rows\": [\n", warmup, runs,
          (unsigned long long)seed);
  for (int i = 0; i < nrows; i++) {
    const cli_row *r = &rows[i];
    fprintf(f, "    {\"problem\": ");
    cli_json_str(f, r->token);
    fprintf(f, ", \"lib\": ");
    cli_json_str(f, r->lib);
    fprintf(f, ", \"device\": ");
    cli_json_str(f, r->device);
    fprintf(f, ", \"ok\": %s, \"n\": %lld, \"batch\": %lld", r->ok ? "true" : "false",
            (long long)r->n, (long long)r->batch);
    cli_json_num(f, "plan_ms", r->plan_ms);
    cli_json_num(f, "median_ms", r->median_ms);
    cli_json_num(f, "min_ms", r->min_ms);
    cli_json_num(f, "gflops", r->gflops);
    cli_json_num(f, "gbps", r->gbps);
    cli_json_num(f, "pct_copy", r->pct_copy);
    cli_json_num(f, "rel_rms", r->rel_rms);
    cli_json_num(f, "max_err", r->max_err);
    cli_json_num(f, "ratio", r->ratio);
    fprintf(f, ", \"note\": ");
    cli_json_str(f, r->note);
    fprintf(f, "}%s\n", i + 1 < nrows ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  return fclose(f) ? -1 : 0;
}

/* ---- SVG ---------------------------------------------------------------------------- */

typedef struct cli_point {
  double x, y; /* log2 N, GB/s */
  int series;
  int family; /* rank for power-of-two sizes (joined by a line), -1 others */
} cli_point;

static int cli_cmp_point(const void *a, const void *b) {
  const cli_point *p = a, *q = b;
  if (p->series != q->series) return p->series - q->series;
  if (p->family != q->family) return p->family - q->family;
  if (p->x != q->x) return p->x < q->x ? -1 : 1;
  return (p->y > q->y) - (p->y < q->y);
}

static void cli_xml(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else if (*s == '"') fputs("&quot;", f);
    else fputc(*s, f);
  }
}

static double cli_nice_step(double range) {
  double raw = range / 6.0, mag = pow(10.0, floor(log10(raw))), r = raw / mag;
  return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

int cli_report_svg(const char *path, const char *device, const cli_row *rows, int nrows) {
  enum { W = 960, H = 540, ML = 80, MR = 200, MT = 50, MB = 70, MAXS = 16 };
  static const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                 "#8c564b", "#e377c2", "#7f7f7f"};
  /* Series: one per library, split by precision when both appear. */
  int both = 0, kinds = 0;
  static const char *const kind_names[3] = {" c2c", " r2c", " c2r"};
  for (int i = 0; i < nrows; i++) {
    if (rows[i].precision != rows[0].precision) both = 1;
    if (rows[i].kind != rows[0].kind) kinds = 1;
  }
  char names[MAXS][48];
  int nseries = 0, npts = 0;
  cli_point *pts = malloc((size_t)(nrows + 1) * sizeof *pts);
  if (!pts) return -1;
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  for (int i = 0; i < nrows; i++) {
    const cli_row *r = &rows[i];
    if (!r->ok || !isfinite(r->gbps) || r->n < 1) continue;
    char key[48];
    snprintf(key, sizeof key, "%s%s%s", r->lib,
             both ? (r->precision == HYFFT_F64 ? " f64" : " f32") : "",
             kinds && (unsigned)r->kind < 3 ? kind_names[r->kind] : "");
    int s = 0;
    while (s < nseries && strcmp(names[s], key) != 0) s++;
    if (s == nseries) {
      if (nseries == MAXS) continue;
      snprintf(names[nseries++], sizeof names[0], "%s", key);
    }
    cli_point p = {log2((double)r->n), r->gbps, s, r->pow2 ? r->rank : -1};
    pts[npts++] = p;
    if (p.x < xmin) xmin = p.x;
    if (p.x > xmax) xmax = p.x;
    if (p.y > ymax) ymax = p.y;
  }
  qsort(pts, (size_t)npts, sizeof *pts, cli_cmp_point);
  if (npts == 0) {
    xmin = 0;
    xmax = 1;
  }
  xmin = floor(xmin);
  xmax = ceil(xmax);
  if (xmax <= xmin) xmax = xmin + 1;
  if (ymax <= 0) ymax = 1;
  double ystep = cli_nice_step(ymax * 1.05);
  double ytop = ceil(ymax * 1.05 / ystep) * ystep;
  double pw = W - ML - MR, ph = H - MT - MB;
#define CLI_X(v) (ML + ((v) - xmin) / (xmax - xmin) * pw)
#define CLI_Y(v) (MT + ph - (v) / ytop * ph)

  FILE *f = fopen(path, "w");
  if (!f) {
    free(pts);
    return -1;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
          W, H, W, H);
  fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
  fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"16\">hyfft bench: GB/s against transform size on ",
          ML);
  cli_xml(f, device);
  fprintf(f, "</text>\n");
  /* Grid and axes. */
  for (double y = 0; y <= ytop + ystep * 0.01; y += ystep) {
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML,
            CLI_Y(y), ML + pw, CLI_Y(y));
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 8, CLI_Y(y) + 4,
            y);
  }
  int xstep = (int)ceil((xmax - xmin) / 16.0);
  if (xstep < 1) xstep = 1;
  for (double x = xmin; x <= xmax + 1e-9; x += xstep) {
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
            CLI_X(x), MT, CLI_X(x), MT + ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">2<tspan dy=\"-5\" "
               "font-size=\"9\">%d</tspan></text>\n",
            CLI_X(x), MT + ph + 18, (int)x);
  }
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
             "stroke=\"black\"/>\n",
          ML, MT, pw, ph);
  fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">transform size N (points per "
             "transform, log scale)</text>\n",
          ML + pw / 2, H - 22);
  fprintf(f, "<text transform=\"translate(22 %.1f) rotate(-90)\" text-anchor=\"middle\">GB/s "
             "(one read + one write of the data)</text>\n",
          MT + ph / 2);
  /* Lines join the power-of-two sizes of one dimensionality (a sweep);
   * other sizes are open circles, so odd and prime lengths do not zigzag
   * the lines. */
  for (int s = 0, i = 0; s < nseries; s++) {
    const char *col = colors[s % 8];
    int start = i;
    while (i < npts && pts[i].series == s) i++;
    for (int j = start; j < i;) {
      int k = j;
      while (k < i && pts[k].family == pts[j].family) k++;
      if (pts[j].family >= 0 && k - j > 1) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
        for (int m = j; m < k; m++) fprintf(f, "%.1f,%.1f ", CLI_X(pts[m].x), CLI_Y(pts[m].y));
        fprintf(f, "\"/>\n");
      }
      j = k;
    }
    for (int k = start; k < i; k++) {
      if (pts[k].family >= 0)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", CLI_X(pts[k].x),
                CLI_Y(pts[k].y), col);
      else
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"white\" stroke=\"%s\" "
                   "stroke-width=\"1.5\"/>\n",
                CLI_X(pts[k].x), CLI_Y(pts[k].y), col);
    }
    int ly = MT + 10 + 20 * s;
    fprintf(f, "<line x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"%s\" "
               "stroke-width=\"3\"/>\n",
            ML + pw + 15, ly, ML + pw + 40, ly, col);
    fprintf(f, "<text x=\"%.0f\" y=\"%d\">", ML + pw + 46, ly + 4);
    cli_xml(f, names[s]);
    fprintf(f, "</text>\n");
  }
  int ny = MT + 30 + 20 * nseries;
  fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"10\">lines: power-of-two sizes</text>\n",
          ML + pw + 15, ny);
  fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"10\">(1D, 2D, 3D apart)</text>\n",
          ML + pw + 15, ny + 13);
  fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"10\">open circles: other sizes</text>\n",
          ML + pw + 15, ny + 26);
#undef CLI_X
#undef CLI_Y
  fprintf(f, "</svg>\n");
  free(pts);
  return fclose(f) ? -1 : 0;
}
