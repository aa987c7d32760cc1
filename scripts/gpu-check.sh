#!/usr/bin/env bash
# The whole check on a machine with an NVIDIA GPU:
#   bash scripts/gpu-check.sh            (logs in ${OUT:-/tmp/gpu-check}; on a
#     cold machine more than one 10-minute call: the standard accuracy level
#     alone, 4363 cases each compiled through NVRTC, takes 12-15 minutes
#     there, so its step stops at its limit; finish with a second call,
#     GPU_CHECK_QUICK=1 and GPU_CHECK_SKIP naming the steps that passed)
#   GPU_CHECK_QUICK=1 bash scripts/gpu-check.sh   (smaller levels; with the
#     verification steps skipped, the whole table fits one call)
#   GPU_CHECK_DEADLINE=SECONDS caps the whole run (default 530: under 9 minutes)
#   GPU_CHECK_TABLE=c2c|real|all: the rows of the standard table benchmarked
#     (default all, 88 rows; a cold machine's quick run fits one 10-minute
#     call with c2c or real, not with both)
#   GPU_CHECK_ONLY=plan_times: build, then only the plan-time step (cold and
#     warm plan creation of every table problem, about 3 minutes), with the
#     whole deadline to itself
#   GPU_CHECK_ONLY=large: build, then only the transforms above 2^31
#     elements (about 6 minutes; GPU_CHECK_DEADLINE=590)
#   GPU_CHECK_ONLY=verify: every correctness step and the sanitizers, no
#     benchmark table and no plan-time step
#   GPU_CHECK_SKIP="STEP STEP ...": steps (by their summary names) not run,
#     to finish a verification that an earlier call's deadline cut short
# Steps: configure and build; the CUDA backend tests; the accuracy and
# property suites on --device cuda and on NVIDIA's OpenCL; compute-sanitizer
# memcheck and racecheck on a few plans; the benchmark tables against cuFFT
# (CUDA) and for N = 8..4096 on OpenCL (512 MiB buffers, the same problems
# as the standard table's rows), printed last.
#
# The GPU machine has no FFTW and no network: FFTW (the tests' reference)
# and the OpenCL ICD loader come from .deps/root, prepared on a networked
# machine by scripts/prepare-gpu-deps.sh and carried along.
# Every step has its own time limit; a failing step is recorded and the
# script goes on, so one run shows everything. Exit status: 0 only if every
# step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
quick=${GPU_CHECK_QUICK:-0}
jobs=$(nproc)
cuda_home=${CUDA_HOME:-/usr/local/cuda}
build=${GPU_CHECK_BUILD:-$root/build-gpu}
start=$(date +%s)
summary="$out/summary.txt"
deadline=${GPU_CHECK_DEADLINE:-530}
: >"$summary"
failed=0

deps="$root/.deps/root"
arch_dir=x86_64-linux-gnu
deplib="$deps/usr/lib/$arch_dir"
export LD_LIBRARY_PATH="$deplib:$cuda_home/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$cuda_home/bin:$PATH"
# Kernels compile once per run into a private cache (the second and later
# suites exercise the warm path); line tables for compute-sanitizer.
export HYFFT_CACHE_DIR="${TMPDIR:-/tmp}/hyfft-gpu-check-cache"
export HYFFT_CUDA_LINEINFO=1
export HYFFT_TEST_SEED=${HYFFT_TEST_SEED:-20261123}

# run_step NAME LIMIT_SECONDS COMMAND...: log to $out/NAME.log, one line in
# the summary (PASS/FAIL/TIMEOUT/SKIP, seconds, last result line).
run_step() {
  local name=$1 limit=$2
  shift 2
  local t0=$(date +%s) rc
  case " ${GPU_CHECK_SKIP:-} " in *" $name "*)
    skip_step "$name" "GPU_CHECK_SKIP"; return 0;;
  esac
  # The whole script stays inside $deadline seconds: a step gets at most
  # what is left (less a margin for the report), and none once it is gone.
  local left=$((deadline - (t0 - start) - 15))
  if [ $left -lt 10 ]; then
    printf '%-28s %-9s %4ds  %s\n' "$name" TIMEOUT 0 "no time left in the ${deadline}s budget" >>"$summary"
    echo "== $name: no time left"
    failed=1
    return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  printf '== %-28s (limit %3ds, at %4ds) ... ' "$name" "$limit" $((t0 - start))
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.log" 2>&1
  rc=$?
  local dt=$(($(date +%s) - t0)) verdict=PASS
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then verdict=TIMEOUT; elif [ $rc -eq 77 ]; then verdict=SKIP;
  elif [ $rc -ne 0 ]; then verdict="FAIL($rc)"; fi
  [ "$verdict" = PASS ] || [ "$verdict" = SKIP ] || failed=1
  local last
  last=$(grep -E 'passed|failed|SKIP|error' "$out/$name.log" | tail -1 | cut -c1-110)
  printf '%s %ds\n' "$verdict" "$dt"
  printf '%-28s %-9s %4ds  %s\n' "$name" "$verdict" "$dt" "$last" >>"$summary"
  return 0
}

skip_step() {
  printf '%-28s %-9s %4ds  %s\n' "$1" SKIP 0 "$2" >>"$summary"
  echo "== $1: skipped ($2)"
}

# ---- what this machine has ---------------------------------------------------
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv 2>&1 || echo "nvidia-smi failed"
  "$cuda_home/bin/nvcc" --version 2>&1 | tail -2 || echo "no nvcc"
  cmake --version | head -1; ninja --version; cc --version | head -1
  ls "$cuda_home/lib64" 2>/dev/null | grep -E '^lib(nvrtc|cufft)\.so' | tr '\n' ' '; echo
  ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so* /usr/lib64/libnvidia-opencl.so* 2>/dev/null
  command -v compute-sanitizer || echo "no compute-sanitizer"
  ls "$deplib"/libfftw3l.so "$deplib"/libOpenCL.so.1 2>&1
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

if [ ! -f "$deps/usr/include/fftw3.h" ]; then
  echo "gpu-check: $deps lacks FFTW; run scripts/prepare-gpu-deps.sh first and carry .deps" >&2
  exit 2
fi

# ---- build -----------------------------------------------------------------------
run_step configure 120 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DHYFFT_WERROR=OFF -DCMAKE_PREFIX_PATH="$deps/usr" \
  -DHYFFT_FFTW3_INCLUDE_DIR="$deps/usr/include" -DHYFFT_FFTW3L_LIBRARY="$deplib/libfftw3l.so" \
  -DHYFFT_CPU_TEST_FFTW3_INCLUDE="$deps/usr/include" -DHYFFT_CPU_TEST_FFTW3L="$deplib/libfftw3l.so" \
  "-DHYFFT_TEST_DEVICES=cuda;opencl=quick"
run_step build 300 ninja -C "$build" -j"$jobs"
if [ ! -x "$build/tools/hyfft/hyfft" ]; then
  echo "gpu-check: the build failed; see $out/build.log" >&2
  tail -30 "$out/build.log"
  cat "$summary"
  exit 1
fi
"$build/tools/hyfft/hyfft" info >"$out/info.txt" 2>&1
cat "$out/info.txt"

# ---- plan creation, every table problem (the step itself runs last) -------------
# Cold (empty kernel cache, one process per problem, driver start
# included) then warm (the same cache, a new process), one problem at a
# time with nothing else running; device-memory plans, as the benchmark
# times them (a host-memory plan also allocates its pinned staging
# buffers).
# NVRTC keeps a cache of its own below hyfft's; CUDA_CACHE_DISABLE=1 turns
# it off, so that cold means compiled. A plan whose persistent kernel
# compiles in the background (cuda_backend.c, tiered plans) also reports
# when its final kernels were ready ("ready"; "-" for other plans).
# Without the line tables the rest of the check compiles with: plans are
# timed as users create them.
plan_times() {
  local cache="${TMPDIR:-/tmp}/hyfft-gpu-check-cold-$$"
  rm -rf "$cache"
  unset HYFFT_CUDA_LINEINFO
  grep -v '^#' bench/suites/standard.txt | awk 'NF {print $1}' | while read -r tok; do
    text=$(CUDA_CACHE_DISABLE=1 HYFFT_CACHE_DIR="$cache" "$build/tools/hyfft/hyfft" plan \
           "$tok:dev" --device cuda 2>&1)
    cold=$(sed -n 's/^plan created in \([0-9.]*\) ms$/\1/p' <<<"$text")
    ready=$(sed -n 's/^final kernels ready in \([0-9.]*\) ms.*/\1/p' <<<"$text")
    # Warm $PLAN_TIMES_WARM times (a new process each; 3 with
    # GPU_CHECK_ONLY=plan_times): the first is the column sorted on, the
    # others show how much one sample moves.
    warm=()
    for ((i = 0; i < ${PLAN_TIMES_WARM:-1}; i++)); do
      warm+=("$(CUDA_CACHE_DISABLE=1 HYFFT_CACHE_DIR="$cache" "$build/tools/hyfft/hyfft" plan \
                "$tok:dev" --device cuda 2>&1 | sed -n 's/^plan created in \([0-9.]*\) ms$/\1/p')")
    done
    printf '%-34s cold %9s ms  warm %8s ms  ready %9s ms' "$tok" "${cold:-?}" "${warm[0]:-?}" \
           "${ready:--}"
    [ ${#warm[@]} -gt 1 ] && printf '  warm again %s ms' "${warm[*]:1}"
    printf '\n'
  done
  rm -rf "$cache"
}
export -f plan_times
export build

report_plan_times() {
  if [ -f "$out/plan_times.log" ]; then
    echo "== plan creation per table problem (slowest cold, slowest warm)"
    sort -k3 -n -r "$out/plan_times.log" | head -3
    sort -k6 -n -r "$out/plan_times.log" | head -3
  fi
}
if [ "${GPU_CHECK_ONLY:-}" = plan_times ]; then
  export PLAN_TIMES_WARM=${PLAN_TIMES_WARM:-3}
  run_step plan_times $((deadline - 30)) bash -c plan_times
  cat "$out/plan_times.log"
  report_plan_times
  echo
  echo "== summary ($(($(date +%s) - start)) s; logs in $out)"
  cat "$summary"
  exit $failed
fi

# ---- above 2^31 elements (GPU_CHECK_ONLY=large) ----------------------------------
# The 64-bit index paths on the device: a C2C batch of 2^31 + 1024
# elements and an R2C batch of 2^31 + 2048 reals on device buffers, each
# checked against the long-double reference on its first and last
# transforms (the highest offsets), then a single 2D transform of
# 2^31 + 2^21 points in place, checked by the reference-free self-test
# (linearity, impulse, time shift). 16-34 GiB of device and up to 100 GiB
# of host memory; run apart from the rest (GPU_CHECK_DEADLINE=590).
if [ "${GPU_CHECK_ONLY:-}" = large ]; then
  run_step above_2g_batches 200 "$build/tools/hyfft/hyfft" verify --device cuda --check-elems 4096 \
    c2c:f32:fwd:1024:b2097153:dev r2c:f32:2048:b1048577:dev
  run_step above_2g_single 480 "$build/tools/hyfft/hyfft" verify --device cuda \
    c2c:f32:bwd:46080x46656:ip:dev
  cat "$out/above_2g_batches.log" "$out/above_2g_single.log"
  echo
  echo "== summary ($(($(date +%s) - start)) s; logs in $out)"
  cat "$summary"
  exit $failed
fi

acc="$build/tests/accuracy/hyfft_accuracy"
prop="$build/tests/properties/hyfft_properties"
level=standard
[ "$quick" = 1 ] && level=quick

# ---- CUDA ------------------------------------------------------------------------
# The backend test first: it also times the cold (compile) and warm (disk
# cache) plan creation.
rm -rf "$HYFFT_CACHE_DIR"
# NVRTC dominates a cold benchmark (0.1-12 s per plan). The GPU tests leave
# most CPU cores idle, so the benchmark's kernels are compiled into the disk
# cache in the background meanwhile (concurrent writers are safe: entries
# appear by atomic rename).
prewarm_pid=""
if [ -f bench/suites/standard.txt ] && [ "${GPU_CHECK_ONLY:-}" != verify ]; then
  grep -v '^#' bench/suites/standard.txt | awk 'NF {print $1}' |
    xargs -P $(( jobs > 4 ? jobs / 4 : 1 )) -I{} timeout 180 "$build/tools/hyfft/hyfft" plan {} \
      --device cuda >"$out/prewarm.log" 2>&1 &
  prewarm_pid=$!
fi
run_step cuda_backend 240 "$build/tests/backend/cuda/test_cuda_cuda_backend"
sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
if [ "$quick" = 1 ]; then
  run_step nvrtc_compile 120 "$build/tests/backend/cuda/test_cuda_nvrtc_compile" --arch "${sm:-90}" \
    c2c:f32:fwd:1024 c2c:f64:fwd:4096 c2c:f32:fwd:97 c2c:f32:fwd:4096x4096 c2c:f64:fwd:128x128x128
else
  run_step nvrtc_compile 180 "$build/tests/backend/cuda/test_cuda_nvrtc_compile" --arch "${sm:-90}"
fi
"$build/tools/hyfft/hyfft" plan c2c:f32:fwd:16384:b64 --device cuda >"$out/plan_cold_warm.txt" 2>&1
HYFFT_CACHE_DIR="$HYFFT_CACHE_DIR/cold-$$" \
  "$build/tools/hyfft/hyfft" plan c2c:f64:fwd:2048x2048 --device cuda >>"$out/plan_cold_warm.txt" 2>&1
HYFFT_CACHE_DIR="$HYFFT_CACHE_DIR/cold-$$" \
  "$build/tools/hyfft/hyfft" plan c2c:f64:fwd:2048x2048 --device cuda >>"$out/plan_cold_warm.txt" 2>&1

run_step accuracy_cuda 150 "$acc" --device cuda --level "$level"
run_step accuracy_cuda_devbuf 60 "$acc" --device cuda --level quick --device-buffers
run_step properties_cuda 120 "$prop" --device cuda --level "$level"
run_step properties_cuda_devbuf 60 "$prop" --device cuda --level quick --device-buffers
run_step reproducible_cuda 60 "$build/tests/properties/hyfft_reproducible" cuda
# L2 chunks on CUDA: multi-pass batches cut into chunks of one or two
# elements by a 1.1 MB budget (the ctest l2chunks problems), checked
# against the reference.
run_step l2chunks_cuda 60 env HYFFT_L2_CHUNK=1100000 "$acc" --device cuda \
  c2c:f32:fwd:65536:b3 c2c:f32:fwd:256x256:b5 c2c:f64:bwd:64x32x16:b3:ip c2c:f32:bwd:65537:b3
# Out of core on CUDA: host data over a 32 MiB budget (two sweeps of
# double-buffered pieces), checked against the long-double reference; C2C,
# then R2C and C2R (R2C/C2R slabs, blocks of the half spectrum; even and
# odd last axes, in place, a C2R through its host scratch), then 1D C2C by
# four-step (2^25 points, batched, in place through the host scratch, odd),
# then batches whose single transform fits (one sweep of whole entries:
# a prime, strided reals, 2D C2R in place), a 1D R2C of strided reals
# (through the n-point complex host buffer), primes by Bluestein's
# convolution through an out-of-core M-point plan, and R2R and half
# storage (batches of entries, 2D in the two sweeps, 1D through a
# symmetric extension or f32 host buffers).
# --progress logs each execution's per-piece progress (double-buffered).
run_step out_of_core_cuda 260 env HYFFT_DEVICE_MEMORY_LIMIT=32M "$build/tools/hyfft/hyfft" verify \
  c2c:f32:fwd:4096x4096 c2c:f64:bwd:2048x1536:ip c2c:f32:fwd:256x256x160:b2 c2c:f32:bwd:3000x2000 \
  r2c:f32:4096x4096 c2r:f64:2048x3000:ip r2c:f32:256x256x160:b2 c2r:f32:3000x2001 \
  r2c:f64:1500x2999:ip c2c:f32:fwd:33554432 c2c:f64:bwd:4194304:b4 c2c:f32:fwd:16777216:ip \
  c2c:f32:bwd:14348907 c2c:f32:fwd:1009:b10000 r2c:f32:2048:b8192:is=2:idist=4100:odist=1100 \
  c2r:f64:1001x999:b10:ip r2c:f32:16777216:is=2 c2c:f32:fwd:33554467 c2r:f64:4194319 \
  r2r:f64:dct2:4096:b4096 r2r:f32:dct2xdst3:4096x4096 c2c:bf16:fwd:4096:b16384 \
  c2c:f16:bwd:4096x8192 r2r:f32:dst4:4194304 c2c:f16:fwd:16777216 r2c:f32:8388608 \
  c2r:f32:8388608:ip c2c:f32:fwd:1024:b64x256:is=256:os=256:idist=262144,1:odist=262144,1 \
  c2c:f32:fwd:64x64x64x32 r2c:f64:32x32x64x64 c2r:f32:64x64x32x64 --device cuda --progress
# Half-precision storage (f16, bf16) on CUDA: every bit pattern through a
# scaled rank-0 plan compared bit for bit, then the ctest half suites
# (reference at the format's gates; device buffers), then host and device
# problems through four-step, Rader, Bluestein, plane, real and staged
# paths, checked against the reference (and the self-test beyond it).
run_step half_cuda 150 bash -c "'$build/tests/accuracy/hyfft_half_exact' --device cuda &&
  ctest --test-dir '$build' -R '^accuracy\.cuda\.half' --output-on-failure &&
  '$build/tools/hyfft/hyfft' verify --device cuda --self-test c2c:f16:fwd:4096:b64 \
    c2c:bf16:bwd:1024x1024 c2c:f16:fwd:65536:b64 c2c:bf16:fwd:16777216 c2c:f16:fwd:65537:b8 \
    c2c:bf16:fwd:97:b1000 c2c:f16:fwd:100x100:b64 c2c:bf16:bwd:256x256x256 r2c:f16:4096:b64 \
    c2r:bf16:512x512 r2c:f16:128x128x128:ip c2c:f16:fwd:1024:b262144 c2c:bf16:bwd:4096:b16384:ip"
# Half storage beside f32 on the same shapes (the f16 conversions are the
# hardware's on CUDA): median times, % copy of the halved bytes.
run_step half_bench_cuda 60 "$build/tools/hyfft/hyfft" bench c2c:f32:fwd:1024:b65536 \
  c2c:f16:fwd:1024:b65536 c2c:bf16:fwd:1024:b65536 r2c:f32:4096x4096:b4 r2c:f16:4096x4096:b4 \
  --device cuda --vs cufft,copy --runs 10 --warmup 3
# Convolution plans (the multiply fused into the inverse's first kernel,
# and as its own pass), zero padding and cropping, against the
# long-double reference.
run_step conv_cuda 120 bash -c "'$build/tools/hyfft/hyfft' verify --device cuda \
    conv:c2c:f32:1024x1024:b4:k3 conv:r2c:f32:256x256x256:k3 conv:c2c:f64:64x64x64:b2:k2 \
    conv:r2c:f32:4096:b64:k2 conv:r2c:f32:512x512:b4:k3:pad=300x300:crop=256x256@100x100 &&
  HYFFT_CONV_UNFUSED=1 '$build/tools/hyfft/hyfft' verify --device cuda \
    conv:c2c:f32:1024x1024:b4:k3 conv:r2c:f64:128x128:b2:k2"
# Real-to-real kinds on CUDA (their kernels have no other GPU test).
run_step r2r_cuda 120 "$build/tests/accuracy/hyfft_r2r_accuracy" --device cuda --quick
# Long and odd shapes with their own plan forms: odd real axes in one pass
# (mixed-radix or Bluestein),
# a long prime real axis as one fused Bluestein chain, an odd real DFT of
# three passes (f64 5^11), a prime whose Bluestein convolution takes three
# passes (alternating work buffers), a four-step length with a factor too
# long for a pass (248696 = 2^3 7 4441), multi-dimensional C2R whose long
# odd axis follows the others (the chain from WORK0; the half spectrum in
# WORK1), a long prime.
run_step long_paths_cuda 150 "$build/tools/hyfft/hyfft" verify c2r:f64:875:b38 c2r:f64:13:b10000 \
  r2c:f32:1048583 c2r:f32:1048583 r2c:f64:48828125 c2r:f64:48828125 c2c:f64:fwd:248696:b2 \
  c2c:f64:fwd:33600023 c2r:f64:31x1619:b8 r2c:f64:1699:b64 r2c:f32:4099:b4:ip c2r:f32:1009:b66 \
  c2r:f32:3x1048583 c2r:f64:2x9765625 --device cuda
# A long f32 prime (a three-pass Bluestein convolution of 2^27 points),
# apart: with the problems above it did not finish inside one step's
# limit, and the ones after it never ran.
run_step long_prime_cuda 150 "$build/tools/hyfft/hyfft" verify c2c:f32:bwd:47084837 --device cuda
# Problems nobody picked: unit.plan_sweep's rules (kinds, precisions,
# ranks, size classes, batches, layouts) from a fresh seed, printed in
# the log (GPU_CHECK_SWEEP_SEED repeats one), 1D lengths up to 2^22,
# verified on CUDA against FFTW in long double (tests/common/verify_unseen.sh).
run_step unseen_cuda 240 bash tests/common/verify_unseen.sh "$build/tests/unit/hyfft_unit_plan_sweep" \
  "$build/tools/hyfft/hyfft" cuda "${GPU_CHECK_SWEEP_COUNT:-40}" 22 "${GPU_CHECK_SWEEP_SEED:-time}" \
  --check-elems 8
# Host data staged through the device: chunked C2C, R2C, C2R and R2R, the
# whole-buffer path through the bounce buffers, and a hybrid CPU share.
run_step staging_cuda 90 "$build/tools/hyfft/hyfft" verify c2c:f32:fwd:4096:b8192 \
  r2c:f32:65536:b1024 c2r:f64:4096:b4096 r2r:f32:dct2:4096:b4096 c2c:f32:fwd:2048x2048 \
  r2c:f64:1024x1500 --device cuda
run_step hybrid_cuda 90 env HYFFT_CPU_SHARE=0.3 "$build/tools/hyfft/hyfft" verify \
  c2c:f32:fwd:4096:b4096 r2c:f64:1024:b8192 --device cuda
# Distributed transforms with CUDA ranks: tests/mpi/dist_check.c under
# mpirun on 2 ranks sharing the GPU (every case on host buffers, each
# local transform staged through the device, and the ':dev' cases on
# device buffers), and the same on NVIDIA's OpenCL; built where CMake
# finds MPI on the machine.
if [ -x "$build/tests/mpi/mpi_dist_check" ]; then
  run_step mpi_cuda 150 ctest --test-dir "$build" -R '^mpi[.]dist[.](cuda|opencl)[.]np2$' \
    --output-on-failure
else
  skip_step mpi_cuda "no MPI found by CMake"
fi
# The Python package's CuPy and PyTorch tests, where CuPy, NumPy and
# pytest import (test_torch.py skips itself without PyTorch).
if python3 -c "import cupy, numpy, pytest" 2>/dev/null; then
  run_step python_cupy 120 env HYFFT_LIBRARY="$build/libhyfft.so" python3 -m pytest -q -rs \
    python/tests/test_cupy.py python/tests/test_torch.py
else
  skip_step python_cupy "no cupy/numpy/pytest for python3"
fi

# ---- compute-sanitizer ----------------------------------------------------------------
san_tokens=(c2c:f32:fwd:1024:b8 c2c:f64:bwd:4096 c2c:f32:fwd:97:b3 c2c:f32:fwd:64x64
            c2c:f32:fwd:256:b16:ip r2c:f32:1000:b3 c2r:f32:64x48:b2 c2r:f64:875:b3
            r2c:f32:13:b5 r2c:f32:1048583 c2r:f32:1048583 c2r:f64:31x1619:b2 r2c:f32:97:b3
            c2r:f32:5x1031:b2 c2c:f32:fwd:1024:b64:is=64:idist=1 c2c:f32:fwd:32768:b8:is=8:idist=1
            c2r:f32:13:b1000 r2c:f64:27:b777 c2r:f32:13:b300:ip)
# One-pass Bluestein DFTs without local-memory padding (one and several
# transforms per block), under memcheck and racecheck both.
san_unpadded=(c2c:f32:fwd:1237:b5 c2c:f32:bwd:538:b9:is=9:os=9:idist=1:odist=1)
if command -v compute-sanitizer >/dev/null; then
  run_step memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$acc" --device cuda "${san_tokens[@]}" "${san_unpadded[@]}"
  # The r2r kernels (fused half-length DCT forms, strided steps) have their
  # own suite.
  run_step memcheck_r2r 90 compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$build/tests/accuracy/hyfft_r2r_accuracy" --device cuda r2r:f32:dct2:256x256 \
    r2r:f64:dst3:64x64x64:b2 r2r:f32:dct2:1000:b3 r2r:f32:dct3:18x300 r2r:f64:dst2:30x40x50 \
    r2r:f32:dct1:65x33 r2r:f64:dst1:31:b3 r2r:f32:dht:64x48
  run_step racecheck 120 compute-sanitizer --tool racecheck --error-exitcode 3 \
    "$acc" --device cuda "${san_tokens[@]:0:3}" c2r:f64:875:b3 "${san_tokens[@]: -5}" "${san_unpadded[@]}"
else
  skip_step memcheck "no compute-sanitizer"
  skip_step racecheck "no compute-sanitizer"
fi

# ---- NVIDIA OpenCL -----------------------------------------------------------------
ocl=""
for f in /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib64/libnvidia-opencl.so.1 \
         /usr/lib/libnvidia-opencl.so.1; do
  [ -e "$f" ] && ocl=$f && break
done
if [ -z "$ocl" ] && ldconfig -p 2>/dev/null | grep -q libnvidia-opencl.so.1; then
  ocl=libnvidia-opencl.so.1
fi
if [ -n "$ocl" ]; then
  icd=$(mktemp -d)
  echo "$ocl" >"$icd/nvidia.icd"
  export OCL_ICD_VENDORS="$icd"
  [ -e "$deplib/libOpenCL.so.1" ] && export HYFFT_OPENCL_LIBRARY="$deplib/libOpenCL.so.1"
  "$build/tools/hyfft/hyfft" info >"$out/info_opencl.txt" 2>&1
  run_step accuracy_opencl 120 "$acc" --device opencl --level quick
  run_step properties_opencl 90 "$prop" --device opencl --level quick
else
  skip_step accuracy_opencl "no libnvidia-opencl.so.1"
  skip_step properties_opencl "no libnvidia-opencl.so.1"
fi

# ---- benchmarks --------------------------------------------------------------------------
if [ "${GPU_CHECK_ONLY:-}" = verify ]; then
  skip_step bench_cuda "GPU_CHECK_ONLY=verify"
else
runs=50
[ "$quick" = 1 ] && runs=20
# The background compiles (if still going) keep filling the cache while the
# bench runs; whatever is not compiled yet compiles in the bench itself.
suite=(standard)
case "${GPU_CHECK_TABLE:-all}" in
  c2c) grep -v '^\(r2c\|c2r\):' bench/suites/standard.txt >"$out/table.txt"; suite=("$out/table.txt") ;;
  real) grep '^\(r2c\|c2r\):' bench/suites/standard.txt >"$out/table.txt"; suite=("$out/table.txt") ;;
esac
if [ ! -f bench/suites/standard.txt ]; then
  suite=(c2c:f32:fwd:64:b262144 c2c:f32:fwd:256:b65536 c2c:f32:fwd:1024:b16384
         c2c:f32:fwd:4096:b4096 c2c:f32:fwd:16384:b1024 c2c:f32:fwd:1048576:b16
         c2c:f64:fwd:1024:b8192 c2c:f64:fwd:4096:b2048 c2c:f32:fwd:1000:b16384
         c2c:f32:fwd:97:b65536 c2c:f32:fwd:1024x1024:b8 c2c:f32:fwd:256x256x256)
fi
# The table is what this script is for: its step may take up to 6 minutes
# (a slower machine took more than 300 s for the 69 problems), and the
# plan-time step after it gets what is left.
run_step bench_cuda 360 "$build/tools/hyfft/hyfft" bench "${suite[@]}" --device cuda --vs cufft,copy \
  --runs "$runs" --warmup 5 --check-elems 262144 --json "$out/bench_cuda.json" --plot "$out/bench_cuda.svg"
if [ -n "$ocl" ]; then
  tokens=()
  for n in 8 16 32 64 128 256 512 1024 2048 4096; do tokens+=("c2c:f32:fwd:$n:b$((67108864 / n))"); done
  run_step bench_opencl 150 "$build/tools/hyfft/hyfft" bench "${tokens[@]}" --device opencl --vs copy \
    --runs "$runs" --warmup 3 --json "$out/bench_opencl.json"
fi

fi

# ---- plan creation, every table problem -------------------------------------------------
# No new background compiles once the benchmarks are done.
[ -n "$prewarm_pid" ] && kill "$prewarm_pid" 2>/dev/null
[ -f bench/suites/standard.txt ] && [ "${GPU_CHECK_ONLY:-}" != verify ] &&
  run_step plan_times 110 bash -c plan_times

# ---- report --------------------------------------------------------------------------------
echo
echo "== plan creation, cold and warm"
grep -iE 'plan|time|ms' "$out/plan_cold_warm.txt" | head -12
report_plan_times
echo
echo "== summary ($(($(date +%s) - start)) s; logs in $out)"
cat "$summary"
for t in bench_cuda bench_opencl; do
  [ -f "$out/$t.log" ] || continue
  echo
  echo "== $t"
  cat "$out/$t.log"
done
# At most 8 files come back from the device machine: the logs travel as one
# archive beside the summary, the JSON tables and the plot.
logs=$(cd "$out" && find . -maxdepth 1 -type f ! -name '*.json' ! -name '*.svg' \
         ! -name summary.txt ! -name gpu-check-logs.tar.gz -printf '%f\n')
if [ -n "$logs" ] && tar czf "${TMPDIR:-/tmp}/gpu-check-logs.$$.tar.gz" -C "$out" $logs; then
  mv "${TMPDIR:-/tmp}/gpu-check-logs.$$.tar.gz" "$out/gpu-check-logs.tar.gz" &&
    (cd "$out" && rm -f $logs)
fi
exit $failed
