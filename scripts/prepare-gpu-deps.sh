#!/usr/bin/env bash
# Prepare the folder .deps/ that scripts/gpu-check.sh needs on the GPU
# machine, which has no FFTW and no network: the Debian packages of FFTW
# (headers, double/float/long double libraries, fftw-wisdom tools) and the
# OpenCL ICD loader, downloaded here with apt-get and unpacked into
# .deps/root. .deps/ is git-ignored; carry it to the GPU machine.
#
# usage: bash scripts/prepare-gpu-deps.sh   (needs apt-get and dpkg, no root)
set -euo pipefail
cd "$(dirname "$0")/.."
deps=.deps
pkgs=(libfftw3-dev libfftw3-double3 libfftw3-single3 libfftw3-long3 libfftw3-bin
      ocl-icd-libopencl1)
rm -rf "$deps/debs" "$deps/root"
mkdir -p "$deps/debs" "$deps/root"
(cd "$deps/debs" && apt-get download "${pkgs[@]}")
for deb in "$deps"/debs/*.deb; do dpkg -x "$deb" "$deps/root"; done
# FFTW's libraries link nothing beyond libc/libm, so they run on any glibc
# at least as new as this machine's build of them needs.
lib="$deps/root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"
ls "$lib"/libfftw3l.so "$lib"/libfftw3f.so.3 "$lib"/libfftw3.so.3 "$lib"/libOpenCL.so.1 >/dev/null
ls "$deps/root/usr/include/fftw3.h" >/dev/null
# VkFFT's headers for the `vkfft` peer of hyfft bench: they ship in
# pyvkfft's source distribution on PyPI (Debian's libvkfft-dev is older).
# Only the headers are kept; none of it is committed.
rm -rf "$deps/vkfft" "$deps/sdist"
mkdir -p "$deps/sdist" "$deps/vkfft"
if python3 -m pip download --no-deps --no-binary :all: -d "$deps/sdist" pyvkfft >/dev/null 2>&1; then
  tar xzf "$deps"/sdist/pyvkfft-*.tar.gz -C "$deps/sdist"
  cp -r "$deps"/sdist/pyvkfft-*/src/VkFFT/vkFFT "$deps/vkfft/"
  cp "$deps"/sdist/pyvkfft-*/src/VkFFT/LICENSE "$deps/vkfft/"
  echo "VkFFT headers from $(ls "$deps"/sdist/*.tar.gz) in $deps/vkfft/vkFFT"
else
  echo "pyvkfft's sdist could not be downloaded: no VkFFT peer on the GPU machine"
fi
rm -rf "$deps/sdist"
echo "prepared $deps/root: $(ls "$deps"/debs | tr '\n' ' ')"
du -sh "$deps"
