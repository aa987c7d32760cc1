#!/usr/bin/env bash
# The main job: build hyfft, list the devices it finds, then check accuracy
# and run a quick benchmark on the best device (CUDA, else an OpenCL GPU,
# else the CPU), against the peers that are installed (cuFFT, FFTW).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DHYFFT_BUILD_TESTS=OFF >/dev/null
ninja -C build/release -j"$(nproc)"
hyfft=build/release/tools/hyfft/hyfft
device=${HYFFT_DEVICE:-auto}
"$hyfft" info
echo
"$hyfft" verify --device "$device" --suite quick
echo
peers=fftw,copy
case "$("$hyfft" info --best 2>/dev/null || true)" in cuda*) peers=cufft,fftw,copy ;; esac
"$hyfft" bench quick --device "$device" --vs "$peers"
