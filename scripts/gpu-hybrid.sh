#!/usr/bin/env bash
# The hybrid CPU + GPU sweep on the GPU machine (docs/performance.md,
# "Hybrid"): for each TOKEN (host data), the calibrated model's rates and
# choice refined by the search around it (HYFFT_CPU_SHARE=auto, hyfft plan;
# the "search on" line gives the shares it timed), then hyfft bench --host
# at CPU shares 0, 0.1, ..., 1 and at the chosen share (the "model:" row): each share a process of
# its own (the share is a plan-time setting), one after the other on the
# same machine and data.
# Writes $OUT/hybrid-<n>.md (table: share, measured ms, model ms) and
# $OUT/hybrid-<n>.svg.
# Usage: scripts/gpu-hybrid.sh TOKEN...   (after scripts/gpu-build.sh)
# HYBRID_PINNED=1 times page-locked host buffers (bench --pinned): the GPU
# side then copies over the bus directly and leaves the CPU cores idle, and
# the plan's split for page-locked input and output runs (its share, its
# calibration and its search are the ones read from the plan; the
# fixed-share rows are the same either way).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export OUT=${OUT:-/tmp/hyfft-out}
if [ -z "${hyfft:-}" ]; then source "$root/scripts/gpu-build.sh"; fi
device=${HYBRID_DEVICE:-cuda}
mkdir -p "$OUT"
runs=${HYBRID_RUNS:-5}
pinned=()
[ "${HYBRID_PINNED:-0}" = 1 ] && pinned=(--pinned)
i=0
for token in "$@"; do
  i=$((i + 1))
  plan="$OUT/hybrid-$i-plan.txt"
  HYFFT_CPU_SHARE=auto "$hyfft" plan "$token" --device "$device" >"$plan" 2>&1
  grep -E "hybrid:|cores|calibration|model:|search on" "$plan"
  rows="$OUT/hybrid-$i-rows.txt"
  : >"$rows"
  for share in 0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1 auto; do
    json="$OUT/hybrid-$i-$share.json"
    HYFFT_CPU_SHARE=$share "$hyfft" bench "$token" --device "$device" --host "${pinned[@]}" --runs "$runs" \
      --warmup 1 --seed 1 --json "$json" >/dev/null 2>&1
    ms=$(python3 -c "import json,sys; r=json.load(open('$json'))['rows'][0]; print(r['median_ms'] if r['median_ms'] is not None else 'nan')" 2>/dev/null || echo nan)
    echo "$share $ms" >>"$rows"
    echo "share $share: $ms ms"
  done
  python3 - "$token" "$plan" "$rows" "$OUT/hybrid-$i.md" "$OUT/hybrid-$i.svg" "${HYBRID_PINNED:-0}" <<'EOF'
import re, sys
token, plan, rows, md, svg, pinned = sys.argv[1:]
text = open(plan).read()
# The split that runs on the memory benched: the page-locked one (its own
# line and "page-locked calibration") when the plan has two and the sweep
# is on page-locked buffers, else the first (pageable) one.
kind = "page-locked " if pinned == "1" and "for page-locked input and output" in text else ""
m = re.search(r"outer batch dim of (\d+) entries: GPU (\d+), CPU (\d+) \(CPU share ([0-9.]+)[^\n]*"
              + ("for page-locked input and output" if kind else ""), text)
c = re.search(kind + r"calibration \(batch entries/s\): GPU side ([0-9.e+]+) .*?; ([0-9.e+]+) with all cores\), CPU side ([0-9.e+]+) \(([0-9.e+]+) with all cores", text)
n = int(m.group(1)); chosen = float(m.group(4))
rg, rga, rc, rca = (float(c.group(k)) for k in range(1, 5))
def model(s):
    # hy_hybrid_model: a side alone has all the cores, two sides split them.
    ncpu = int(s * n + 0.5)
    if ncpu <= 0: return 1e3 * n / rga
    if ncpu >= n: return 1e3 * n / rca
    return 1e3 * max((n - ncpu) / rg, ncpu / rc)
data = []
for line in open(rows):
    s, ms = line.split()
    data.append((s, float(ms)))
fixed = [(float(s), ms) for s, ms in data if s != "auto"]
auto = [ms for s, ms in data if s == "auto"]
best = min(fixed, key=lambda x: x[1])
with open(md, "w") as f:
    f.write(f"`{token}`: {n} batch entries ({'page-locked' if pinned == '1' else 'pageable'} buffers); {kind}calibration (entries/s) GPU side {rg:.4g} "
            f"({rga:.4g} alone), CPU side {rc:.4g} ({rca:.4g} alone); model's share {chosen:.4f}\n\n")
    f.write("| CPU share | measured ms | model ms | measured / best |\n|---:|---:|---:|---:|\n")
    for s, ms in fixed:
        f.write(f"| {s:.1f} | {ms:.2f} | {model(s):.2f} | {ms / best[1]:.3f} |\n")
    if auto:
        f.write(f"| model: {chosen:.4f} | {auto[0]:.2f} | {model(chosen):.2f} | {auto[0] / best[1]:.3f} |\n")
W, H, L, B = 560, 320, 60, 40
ymax = max([ms for _, ms in fixed] + [model(s) for s, _ in fixed]) * 1.1
X = lambda s: L + s * (W - L - 20)
Y = lambda v: H - B - v / ymax * (H - B - 20)
def line(pts, colour, dash=""):
    d = " ".join(f"{X(s):.1f},{Y(v):.1f}" for s, v in pts)
    return f'<polyline fill="none" stroke="{colour}" stroke-width="2" {dash} points="{d}"/>'
parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<text x="{L}" y="14">{token}: time against the CPU share</text>',
         f'<line x1="{L}" y1="{H-B}" x2="{W-20}" y2="{H-B}" stroke="black"/>',
         f'<line x1="{L}" y1="20" x2="{L}" y2="{H-B}" stroke="black"/>']
for k in range(0, 11, 2):
    parts.append(f'<text x="{X(k/10)-8:.1f}" y="{H-B+16}">{k/10:.1f}</text>')
for k in range(5):
    v = ymax * k / 4
    parts.append(f'<text x="4" y="{Y(v)+4:.1f}">{v:.0f} ms</text>')
parts.append(line(fixed, "#1f77b4"))
parts.append(line([(s, model(s)) for s, _ in fixed], "#ff7f0e", 'stroke-dasharray="6,4"'))
if auto:
    parts.append(f'<circle cx="{X(chosen):.1f}" cy="{Y(auto[0]):.1f}" r="5" fill="#2ca02c"/>')
parts.append(f'<text x="{W-200}" y="40" fill="#1f77b4">measured</text>')
parts.append(f'<text x="{W-200}" y="56" fill="#ff7f0e">model</text>')
parts.append(f'<text x="{W-200}" y="72" fill="#2ca02c">model\'s choice, measured</text>')
parts.append("</svg>")
open(svg, "w").write("\n".join(parts))
print(open(md).read())
EOF
done
