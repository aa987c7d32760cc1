#!/usr/bin/env bash
# DCT and convolution problems against their peers on the GPU machine (issue
# 27), in one call of the device tool (under 8 minutes on an H100):
#   bash scripts/gpu-r2r-peers.sh
# Builds only what it runs (the hyfft tool, the VkFFT shim, the DCT route's
# test) with the configuration of scripts/gpu-build.sh, checks the cuFFT
# DCT route's kernels (test_cli_r2r_route: element functions against the
# direct DCTs, NVRTC compile), compiles hyfft's kernels on all cores
# (`hyfft cache warm`), then times in one process each:
#   r2r DCT-II (f32, f64) 1024x1024:b8, 4096x4096, 256^3, 128^3:b8 and
#   DCT-III 4096x4096 (f32), 256^3 (f64) --vs cufft,vkfft,copy: cufft is
#   Makhoul's route around one cuFFT R2C/C2R, vkfft VkFFT's performDCT;
#   the rows' rel RMS / max err columns are each library's accuracy
#   against the long-double reference;
#   conv tokens --vs cufft,vkfft,copy: cuFFT forward + multiply + inverse,
#   VkFFT's performConvolution, the copy floor; each peer's line gives its
#   difference from hyfft's result.
# (A multi-dimensional r2r token may name one kind per dim, dct2xdct2, or
# one kind for all, dct2.) Output under ${OUT:-/tmp/gpu-r2r-peers}: r2r.txt,
# r2r.json, conv.txt and the build, test and warm-up logs. Environment:
# R2R_RUNS (default 10), R2R_WARMUP (3), R2R_DEADLINE (seconds for the r2r
# bench, default 210), CONV_DEADLINE (the conv bench, default 90); with
# the build (about a minute on 16 cores) and the warm-up (at most 90 s)
# the whole stays under 8 minutes.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpu-r2r-peers}
mkdir -p "$out"
start=$(date +%s)
cuda_home=${CUDA_HOME:-/usr/local/cuda}
deps="$root/.deps/root"
deplib="$deps/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$deplib:$cuda_home/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$cuda_home/bin:$PATH"
build=${GPU_BUILD:-$root/build-gpu}
fftw_args=()
if [ -f "$deps/usr/include/fftw3.h" ]; then
  fftw_args=(-DCMAKE_PREFIX_PATH="$deps/usr" -DHYFFT_FFTW3_INCLUDE_DIR="$deps/usr/include"
             -DHYFFT_FFTW3L_LIBRARY="$deplib/libfftw3l.so")
else
  echo "gpu-r2r-peers: $deps lacks FFTW: the builtin long-double reference checks accuracy"
fi
vkfft_dir=""
vs=cufft,copy
targets=(hyfft_cli test_cli_r2r_route)
if [ -f "$root/.deps/vkfft/vkFFT/vkFFT.h" ]; then
  vkfft_dir="$root/.deps/vkfft/vkFFT"
  targets+=(hyfft_vkfft_peer)
  vs=cufft,vkfft,copy
else
  echo "gpu-r2r-peers: no .deps/vkfft/vkFFT/vkFFT.h (scripts/prepare-gpu-deps.sh): no vkfft peer"
fi
if ! { cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHYFFT_WERROR=OFF \
         "${fftw_args[@]}" "-DHYFFT_TEST_DEVICES=cuda" "-DHYFFT_VKFFT_DIR=$vkfft_dir" &&
       ninja -C "$build" -j"$(nproc)" "${targets[@]}"; } >"$out/build.log" 2>&1; then
  echo "gpu-r2r-peers: the build failed; see $out/build.log" >&2
  tail -30 "$out/build.log" >&2
  exit 1
fi
hyfft="$build/tools/hyfft/hyfft"
echo "gpu-r2r-peers: built in $(( $(date +%s) - start )) s"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
"$build/tools/hyfft/test_cli_r2r_route" >"$out/route-test.log" 2>&1
echo "gpu-r2r-peers: test_cli_r2r_route rc=$? ($(tail -1 "$out/route-test.log"))"
export HYFFT_CACHE_DIR="${TMPDIR:-/tmp}/hyfft-gpu-r2r-peers-cache"
r2r=()
for p in f32 f64; do
  r2r+=("r2r:$p:dct2xdct2:1024x1024:b8" "r2r:$p:dct2xdct2:4096x4096"
        "r2r:$p:dct2xdct2xdct2:256x256x256" "r2r:$p:dct2xdct2xdct2:128x128x128:b8")
done
r2r+=("r2r:f32:dct3xdct3:4096x4096" "r2r:f64:dct3xdct3xdct3:256x256x256")
# DCT-I (VkFFT's performDCT=1; no cuFFT route), DST-II and the DHT of even
# lengths: the other half-length forms.
r2r+=("r2r:f32:dct1:4097x4097" "r2r:f32:dst2:4096x4096" "r2r:f32:dht:4096:b4096")
conv=(conv:c2c:f32:1024x1024:b4:k3 conv:r2c:f32:256x256x256:k3 conv:c2c:f32:256x256x256:k1
      conv:r2c:f32:2048x2048:k1)
t0=$(date +%s)
timeout 90 "$hyfft" cache warm "${r2r[@]}" --device cuda >"$out/warm.log" 2>&1
echo "gpu-r2r-peers: cache warm rc=$? in $(( $(date +%s) - t0 )) s"
runs=${R2R_RUNS:-10}
warmup=${R2R_WARMUP:-3}
t0=$(date +%s)
timeout "${R2R_DEADLINE:-210}" "$hyfft" bench "${r2r[@]}" --device cuda --vs "$vs" \
  --runs "$runs" --warmup "$warmup" --json "$out/r2r.json" >"$out/r2r.txt" 2>&1
rc1=$?
echo "gpu-r2r-peers: r2r bench rc=$rc1 in $(( $(date +%s) - t0 )) s"
cat "$out/r2r.txt"
t0=$(date +%s)
timeout "${CONV_DEADLINE:-90}" "$hyfft" bench "${conv[@]}" --device cuda --vs "$vs" \
  --runs "$runs" --warmup "$warmup" >"$out/conv.txt" 2>&1
rc2=$?
echo "gpu-r2r-peers: conv bench rc=$rc2 in $(( $(date +%s) - t0 )) s"
cat "$out/conv.txt"
echo "gpu-r2r-peers: done in $(( $(date +%s) - start )) s"
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]
