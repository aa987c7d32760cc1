#!/usr/bin/env bash
# Configure and build hyfft on the GPU machine (sourced by the gpu-*.sh
# scripts): FFTW and the OpenCL ICD loader come from the carried .deps/root
# (scripts/prepare-gpu-deps.sh). Sets $build and $hyfft; exits on failure.
# Environment: GPU_BUILD (build folder, default build-gpu), OUT (logs).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cuda_home=${CUDA_HOME:-/usr/local/cuda}
deps="$root/.deps/root"
deplib="$deps/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$deplib:$cuda_home/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$cuda_home/bin:/opt/nvidia/nsight-compute/bin:$PATH"
build=${GPU_BUILD:-$root/build-gpu}
mkdir -p "${OUT:-/tmp}"
log=${OUT:-/tmp}/gpu-build.log
if [ ! -f "$deps/usr/include/fftw3.h" ]; then
  echo "gpu-build: $deps lacks FFTW; run scripts/prepare-gpu-deps.sh and carry .deps" >&2
  exit 2
fi
if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHYFFT_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$deps/usr" -DHYFFT_FFTW3_INCLUDE_DIR="$deps/usr/include" \
         -DHYFFT_FFTW3L_LIBRARY="$deplib/libfftw3l.so" \
         -DHYFFT_CPU_TEST_FFTW3_INCLUDE="$deps/usr/include" \
         -DHYFFT_CPU_TEST_FFTW3L="$deplib/libfftw3l.so" "-DHYFFT_TEST_DEVICES=cuda" \
         "-DHYFFT_VKFFT_DIR=$([ -f "$root/.deps/vkfft/vkFFT/vkFFT.h" ] && echo "$root/.deps/vkfft/vkFFT")" &&
       ninja -C "$build" -j"$(nproc)"; } >"$log" 2>&1; then
  echo "gpu-build: the build failed; see $log" >&2
  tail -30 "$log" >&2
  exit 1
fi
hyfft="$build/tools/hyfft/hyfft"
