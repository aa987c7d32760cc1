#!/usr/bin/env bash
# Install what building and testing hyfft needs on a Debian machine (run as
# root). Packages already present are skipped, so a second run is quick.
# The CUDA backend needs nothing at build time; its NVRTC compile test uses
# the CUDA toolkit under /usr/local/cuda when the machine has one.
set -euo pipefail
# python3-numpy/-pytest/-scipy: the Python package's tests (python/); scipy
# only for its scipy.fft backend tests, which skip without it. clang and its
# libFuzzer runtime: scripts/fuzz.sh. Open MPI and FFTW-MPI: libhyfft_mpi (mpi/),
# its tests and its benchmark. The aarch64 cross compiler and qemu-user: the
# 64-bit Arm build and its run under emulation (scripts/test-all.sh). ccache:
# test-all.sh's builds reuse what an earlier run compiled.
packages=(cmake ninja-build gcc pkg-config libfftw3-dev pocl-opencl-icd
          libopenmpi-dev openmpi-bin libfftw3-mpi-dev
          ocl-icd-opencl-dev opencl-headers clinfo
          python3-numpy python3-pytest python3-scipy clang libclang-rt-14-dev
          gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user ccache)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Wait up to 10 minutes for another apt or dpkg (an unattended upgrade)
  # to let go of its lock instead of failing at once.
  apt-get -o DPkg::Lock::Timeout=600 update -q
  apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
