#!/usr/bin/env bash
# Out-of-core timings on the GPU machine (docs/performance.md, "Out of
# core"): host data in page-locked memory under a device budget
# (OOC_BUDGET, default 4G), each problem against the bus row measured in
# the same process (`--vs bus`: bytes each way over the pinned bandwidth,
# both directions at once). Every row is appended to $OUT/ooc.txt as it
# finishes, so a call cut off by its time limit still returns what ran.
# Usage: scripts/gpu-ooc.sh [TOKEN...]   (default: the issue's rows that
# fit this machine's host memory at 8 GiB each)
# OOC_RUNS (default 2) timed runs after one warm-up; OOC_ROWS="16K 32K 64K"
# times every token at each host row width of the blocks
# (HYFFT_OOC_BLOCK_ROW; default: the built-in width only).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export OUT=${OUT:-/tmp/hyfft-out}
mkdir -p "$OUT"
if [ -z "${hyfft:-}" ]; then source "$root/scripts/gpu-build.sh"; fi
budget=${OOC_BUDGET:-4G}
runs=${OOC_RUNS:-2}
tokens=("$@")
[ ${#tokens[@]} -eq 0 ] && tokens=(c2c:f32:fwd:1073741824 r2c:f32:2147483648 c2r:f32:2147483648
                                   c2c:f32:fwd:32768x32768 c2c:f32:fwd:1024x1024x1024)
log="$OUT/ooc.txt"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; } >>"$log"
read -r -a rows <<<"${OOC_ROWS:-default}"
for token in "${tokens[@]}"; do
  for row in "${rows[@]}"; do
    env=(HYFFT_DEVICE_MEMORY_LIMIT="$budget")
    [ "$row" != default ] && env+=(HYFFT_OOC_BLOCK_ROW="$row")
    echo "== $token (${env[*]})" >>"$log"
    env "${env[@]}" "$hyfft" plan "$token" --device cuda 2>&1 |
      grep -E "sweep [0-9]:|stage|four-step:" | cut -c1-160 >>"$log"
    env "${env[@]}" timeout 200 "$hyfft" bench "$token" --device cuda --host --pinned \
      --vs bus --runs "$runs" --warmup 1 --check-elems 16 2>&1 | grep -E "^(c2c|r2c|c2r)|rror|HYFFT" >>"$log"
  done
done
cat "$log"
