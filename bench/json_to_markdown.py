#!/usr/bin/env python3
"""Turn `hyfft bench --json` output into the Markdown tables of
docs/performance.md: one row per problem with hyfft, each peer, the ratio
(peer time / hyfft time; above 1 means hyfft is faster), the percent of the
copy floor and the accuracy of each library, plus the geometric mean of the
ratios.

    json_to_markdown.py RUN.json...                 one table per run
    json_to_markdown.py --backends A.json B.json    hyfft on device A beside
                                                    device B (same problems)"""
import json
import math
import sys


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def table(path):
    data = json.load(open(path))
    rows = data["rows"]
    peers = []
    for r in rows:
        if r["lib"] not in ("hyfft", "copy") and r["lib"] not in peers:
            peers.append(r["lib"])
    by_problem = {}
    order = []
    for r in rows:
        if r["problem"] not in by_problem:
            by_problem[r["problem"]] = {}
            order.append(r["problem"])
        by_problem[r["problem"]][r["lib"]] = r
    head = ["problem", "hyfft ms", "GB/s", "% copy"]
    for p in peers:
        head += [p + " ms", p + "/hyfft"]
    head += ["hyfft rel RMS"] + [p + " rel RMS" for p in peers]
    out = ["device: %s; median of %d runs after %d warm-up; seed %s" %
           (data["device"], data["runs"], data["warmup"], data["seed"]), "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    logs = {p: [] for p in peers}
    for prob in order:
        libs = by_problem[prob]
        h = libs.get("hyfft", {})
        line = [prob, fmt(h.get("median_ms"), ".4g") if h.get("ok") else "fails: " + h.get("note", "")[:60],
                fmt(h.get("gbps"), ".0f"), fmt(h.get("pct_copy"), ".0f")]
        for p in peers:
            r = libs.get(p, {})
            ratio = r.get("ratio")
            line += [fmt(r.get("median_ms"), ".4g") if r.get("ok") else "-", fmt(ratio, ".2f")]
            if ratio:
                logs[p].append(math.log(ratio))
        line += [fmt(h.get("rel_rms"), ".2e")] + [fmt(libs.get(p, {}).get("rel_rms"), ".2e") for p in peers]
        out.append("| " + " | ".join(line) + " |")
    out.append("")
    for p in peers:
        if logs[p]:
            out.append("Geometric mean of %s time / hyfft time over %d problems: %.2f" %
                       (p, len(logs[p]), math.exp(sum(logs[p]) / len(logs[p]))))
    return "\n".join(out)


def backend_table(path_a, path_b):
    """hyfft on two devices (two bench runs, e.g. OpenCL and CUDA on one
    GPU): each problem of the first run beside the same problem in the
    second, and the ratio of their times (second / first; above 1 means
    the first device is faster)."""
    a, b = json.load(open(path_a)), json.load(open(path_b))
    def rows(data):
        return {r["problem"]: r for r in data["rows"] if r["lib"] == "hyfft" and r.get("ok")}
    ra, rb = rows(a), rows(b)
    copy_a = {r["problem"]: r for r in a["rows"] if r["lib"] == "copy" and r.get("ok")}
    out = ["%s against %s" % (a["device"], b["device"]), "",
           "| problem | %s ms | %% copy | %s ms | ratio |" % (a["device"].split(" ")[0], b["device"].split(" ")[0]),
           "|---|---|---|---|---|"]
    logs = []
    for prob, r in ra.items():
        if prob not in rb:
            continue
        ratio = rb[prob]["median_ms"] / r["median_ms"]
        logs.append(math.log(ratio))
        pct = r.get("pct_copy")
        if pct is None and prob in copy_a:
            pct = 100.0 * copy_a[prob]["median_ms"] / r["median_ms"]
        out.append("| %s | %.4g | %s | %.4g | %.2f |" % (prob, r["median_ms"], fmt(pct, ".0f"),
                                                        rb[prob]["median_ms"], ratio))
    if logs:
        out += ["", "Geometric mean of the ratio over %d problems: %.2f" %
                (len(logs), math.exp(sum(logs) / len(logs)))]
    return "\n".join(out)


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if args else 2)
    if len(args) == 3 and args[0] == "--backends":
        print(backend_table(args[1], args[2]))
        sys.exit(0)
    for path in args:
        print(table(path))
        print()
