#!/usr/bin/env bash
# Nsight Compute profile of hyfft's kernels, and cuFFT's for the same
# problem, on the GPU machine:
#   bash scripts/gpu-profile.sh TOKEN...
# For each problem, one `hyfft bench --vs cufft` run (one timed run, small
# accuracy check) under ncu: speed of light, compute and memory workload,
# occupancy, launch statistics, warp stall reasons and shared-memory
# wavefronts and bank conflicts of every kernel launched, as text in
# $OUT/profile-N.txt (N: the token's position), plus a one-line summary
# per kernel on stdout (duration; DRAM, L1/shared and issue-slot
# utilisation; the top stall reason). $PROFILE_KERNELS caps the kernels
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
    --section ComputeWorkloadAnalysis \
    --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum \
    "$hyfft" bench "$tok" --device cuda --vs cufft --runs 1 --warmup 0 --check-elems 4096 \
    >>"$f" 2>&1
  # One line per kernel: name, duration, DRAM / L1+shared / issue-slot
  # utilisation, shared-memory wavefronts and bank conflicts, occupancy,
  # registers, block, cycles per issued instruction, and the stall the
  # profiler names first.
  awk 'function flush() {
         if (name != "")
           printf "   %-40s %9s  dram %5s%%  l1 %5s%%  issue %5s%%  shm-wf %s conf %s  occ %5s%%  regs %4s  block %5s  cyc/issue %s  stall: %s\n",
                  substr(name,1,40), d, dram, l1, iss, wf, conf, occ, reg, blk, cyc, stall
         name = ""; stall = "-"
       }
       /^  [A-Za-z_].*\(.*\)x\(/ {flush(); name=substr($0,3)}
       /Duration/ {d=$NF" "$(NF-1)}
       /DRAM Throughput/ {dram=$NF}
       /L1\/TEX Cache Throughput/ {l1=$NF}
       /Issue Slots Busy/ {iss=$NF}
       /l1tex__data_pipe_lsu_wavefronts_mem_shared.sum/ {wf=$NF}
       /l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum/ {conf=$NF}
       /Achieved Occupancy/ {occ=$NF}
       /Registers Per Thread/ {reg=$NF}
       /Block Size/ {blk=$NF}
       /Warp Cycles Per Issued Instruction/ {cyc=$NF}
       /stalled waiting|stalled on|being stalled/ && stall == "-" {
         m = $0; sub(/.*being stalled /, "", m); sub(/\. This.*/, "", m); stall = substr(m, 1, 70) }
       END {flush()}' "$f"
done
