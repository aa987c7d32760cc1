#!/usr/bin/env bash
# The broad suite (bench/suites/broad.txt) against cuFFT and VkFFT on the
# GPU machine, one share of it per call so that a cold run fits the device
# tool's 10-minute limit:
#   BROAD_PART=1 BROAD_PARTS=2 bash scripts/gpu-broad.sh
# takes every BROAD_PARTS-th problem starting at BROAD_PART (interleaved, so
# each share holds every class). Kernels are compiled first on all cores
# (`hyfft cache warm`), then `hyfft bench --vs cufft,vkfft,copy` measures
# hyfft and its peers in one process. Output under ${OUT:-/tmp/gpu-broad}:
# broad-P.txt (the table as it is printed, row by row), broad-P.json and
# the build and warm-up logs. Environment: BROAD_RUNS (default 10),
# BROAD_WARMUP (3), BROAD_DEADLINE (seconds for the bench, default 420),
# BROAD_VS (default cufft,vkfft,copy), BROAD_FROM / BROAD_TO (the
# problems' numbers in file order, 1-based, before the share is taken:
# BROAD_FROM=147 starts at the first 2D problem).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
part=${BROAD_PART:-1}
parts=${BROAD_PARTS:-1}
out=${OUT:-/tmp/gpu-broad}
mkdir -p "$out"
start=$(date +%s)
# shellcheck source=scripts/gpu-build.sh
source "$root/scripts/gpu-build.sh" || exit 1
echo "gpu-broad: built in $(( $(date +%s) - start )) s"
export HYFFT_CACHE_DIR="${TMPDIR:-/tmp}/hyfft-gpu-broad-cache"
suite="$out/broad-$part.txt.suite"
grep -v '^[[:space:]]*#' "$root/bench/suites/broad.txt" | awk 'NF' |
  awk -v a="${BROAD_FROM:-1}" -v b="${BROAD_TO:-1000000}" 'NR >= a && NR <= b' |
  awk -v p="$part" -v k="$parts" '(NR - p) % k == 0 { print $1 }' >"$suite"
echo "gpu-broad: share $part of $parts: $(wc -l <"$suite") problems"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
t0=$(date +%s)
timeout 150 "$hyfft" cache warm "$suite" --device cuda >"$out/warm-$part.log" 2>&1
echo "gpu-broad: cache warm rc=$? in $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
timeout "${BROAD_DEADLINE:-420}" "$hyfft" bench "$suite" --device cuda --vs "${BROAD_VS:-cufft,vkfft,copy}" \
  --runs "${BROAD_RUNS:-10}" --warmup "${BROAD_WARMUP:-3}" --json "$out/broad-$part.json" \
  >"$out/broad-$part.txt" 2>&1
rc=$?
echo "gpu-broad: bench rc=$rc in $(( $(date +%s) - t0 )) s, $(grep -c ' hyfft ' "$out/broad-$part.txt") problems timed"
tail -5 "$out/broad-$part.txt"
exit $rc
