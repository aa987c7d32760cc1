#!/usr/bin/env bash
# Nsight Compute profile of hyfft's kernels, and cuFFT's for the same
# problem, on the GPU machine:
#   bash scripts/gpu-profile.sh TOKEN...
# For each problem, one `hyfft bench --vs cufft` run (one timed run, small
# accuracy check) under ncu: speed of light, memory workload, occupancy,
# launch statistics and warp stall reasons of every kernel launched, as
# text in $OUT/profile-N.txt (N: the token's position), plus a one-line
# summary per kernel on stdout. $PROFILE_KERNELS caps the kernels
# profiled per problem (default 10). Setting HYFFT_KERNEL_SPEC profiles a
# generator variant.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/gpu-build.sh" || exit $?
out=${OUT:-/tmp/gpu-profile}
mkdir -p "$out"
export HYFFT_CACHE_DIR=${HYFFT_CACHE_DIR:-/tmp/hyfft-profile-cache}
export HYFFT_CUDA_LINEINFO=1
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu_bin" ] || { echo "gpu-profile: no ncu" >&2; exit 2; }
i=0
for tok in "$@"; do
  i=$((i + 1))
  f="$out/profile-$i.txt"
  echo "== $tok (${HYFFT_KERNEL_SPEC:-default spec})" | tee "$f"
  # Compile first, outside the profiler.
  "$hyfft" plan "$tok" --device cuda >>"$f" 2>&1
  timeout 240 "$ncu_bin" --clock-control none --launch-count "${PROFILE_KERNELS:-10}" \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats --section SchedulerStats \
    "$hyfft" bench "$tok" --device cuda --vs cufft --runs 1 --warmup 0 --check-elems 4096 \
    >>"$f" 2>&1
  # One line per kernel: name, duration, DRAM throughput, occupancy, registers.
  awk '/^  [A-Za-z_].*\(.*\)x\(/ {name=substr($0,3)}
       /Duration/ {d=$NF" "$(NF-1)}
       /DRAM Throughput/ {dram=$NF}
       /Achieved Occupancy/ {occ=$NF}
       /Registers Per Thread/ {reg=$NF}
       /Block Size/ {blk=$NF}
       /Dynamic Shared Memory Per Block/ {shm=$NF}
       /Warp Cycles Per Issued Instruction/ {
         printf "   %-46s %10s  dram %5s%%  occ %5s%%  regs %4s  block %5s  cyc/issue %s\n",
                substr(name,1,46), d, dram, occ, reg, blk, $NF }' "$f"
done
