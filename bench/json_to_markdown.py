#!/usr/bin/env python3
"""Turn `hyfft bench --json` output into the Markdown tables of
docs/performance.md: one row per problem with hyfft, each peer, the ratio
(peer time / hyfft time; above 1 means hyfft is faster), the percent of the
copy floor and the accuracy of each library, plus the geometric mean of the
ratios."""
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


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(table(path))
        print()
