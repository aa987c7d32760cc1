#!/usr/bin/env bash
# Build hyfft and run every test suite: the CPU backend, OpenCL on PoCL,
# the CUDA kernels compiled through NVRTC (no GPU needed), the bad-input
# tests under AddressSanitizer/UndefinedBehaviorSanitizer, a 64-bit Arm
# cross build verified under qemu, a bounded libFuzzer run
# (scripts/fuzz.sh), and an install
# consumed through find_package and pkg-config. This is the README's test
# command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc)
start=$(date +%s)
step() { printf '\n== %s (%ds)\n' "$*" $(( $(date +%s) - start )); }

step "dependencies"
bash scripts/install-deps.sh

# Compiles go through ccache when it is there (install-deps.sh installs
# it): a clean clone rebuilds only the files that differ from what an
# earlier run compiled. The four builds below take most of six minutes on
# two cores without it, the CPU engine's two files most of that. The
# clone's own path is left out of the key (CCACHE_BASEDIR, NOHASHDIR), so
# clones in different folders share the entries.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}"
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
  ccache --zero-stats >/dev/null
fi

step "release build (warnings are errors)"
cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=Release -DHYFFT_WERROR=ON "${launcher[@]}" >/dev/null
ninja -C build/ci -j"$jobs"

# PoCL compiles every kernel twice by default: a generic work-group
# function (which hyfft's program cache asks for with the binary) and one
# specialised to the launch's work-group size. Launching the generic one
# halves what the OpenCL suites spend compiling, with the same kernels and
# results; the suites check hyfft's kernels, not PoCL's specialisation.
export POCL_WORK_GROUP_SPECIALIZATION=0
# The NVRTC compile tests keep each CUBIN under a key of its exact source
# text and NVRTC (docs/cuda.md, "Tests"), as PoCL keeps its kernels: a run
# compiles only the kernels a change touched, and checks every image.
export HYFFT_TEST_NVRTC_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/hyfft-test-nvrtc"
mkdir -p "$HYFFT_TEST_NVRTC_CACHE"

step "all suites"
ctest --test-dir build/ci --output-on-failure -j"$jobs" --timeout 1200

step "sanitizer build: bad input, units, CPU properties and NVRTC units (background compiles) under ASan+UBSan"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHYFFT_SANITIZE=ON \
  -DHYFFT_WERROR=ON -DHYFFT_TEST_DEVICES=cpu "${launcher[@]}" >/dev/null
ninja -C build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs" --timeout 1200 \
  -R '^(unit\.|errors\.|properties\.cpu$|backend\.cpu\.|cli_bad|cuda\.units$|fuzz\.)'

step "thread sanitizer: concurrent executions, plan churn on a shared context, hybrid and multi-device plans (CPU and PoCL), shared work areas, out-of-core plans from two threads, the real step's helper thread and the pool's readiness check"
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHYFFT_TSAN=ON \
  -DHYFFT_WERROR=ON -DHYFFT_TEST_DEVICES=cpu -DHYFFT_MPI=OFF "${launcher[@]}" >/dev/null
ninja -C build/tsan -j"$jobs" hyfft_test_cpu_concurrency hyfft_unit_hybrid hyfft_unit_multi_device \
  hyfft_unit_workspace hyfft_unit_ooc_real hyfft_unit_out_of_core hyfft_unit_threads
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build/tsan --output-on-failure -j"$jobs" --timeout 600 \
  -R '^(backend\.cpu\.concurrency|unit\.hybrid|unit\.multi_device|opencl\.multi_device|unit\.workspace|unit\.ooc_real|unit\.out_of_core|unit\.threads)$'

step "64-bit Arm: cross build (warnings are errors), the CPU backend verified under qemu-aarch64"
cmake -S . -B build/aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release -DHYFFT_WERROR=ON \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake -DHYFFT_MPI=OFF \
  -DHYFFT_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null
ninja -C build/aarch64 -j"$jobs" >/dev/null
# Powers of two, four-step, short batches in place, Rader and Bluestein
# primes, real even and odd (in place), 2D and 3D, strided, r2r, half
# storage, at 1 and 2 threads, against the CLI's built-in long-double
# reference (FFTW is not there for this architecture), each also through
# the reference-free self-test (linearity, impulse, shift). Long double is
# software quad precision on aarch64, so under qemu the reference of one
# transform of 65536 points takes 10 s and of 65537 a minute: the
# transforms above 16384 points are checked on sampled bins computed
# directly (1D) and by the self-test, which reads every output element.
arm_tokens=(c2c:f32:fwd:1024:b64 c2c:f64:bwd:65536:b2 c2c:f32:fwd:262144 c2c:f32:fwd:12:b1000
  c2c:f64:fwd:7:b777:ip c2c:f32:bwd:1009:b8 c2c:f64:fwd:65537 c2c:f32:fwd:4099:b3
  r2c:f32:1000:b16 c2r:f64:1024:b9 r2c:f64:65536:b2 c2r:f32:999:b5:ip c2c:f32:fwd:64x64x64
  r2c:f64:30x40x50 c2r:f32:128x130:b2 c2c:f64:fwd:256:b64:is=64:os=64:idist=1:odist=1
  r2r:f64:dct2:100:b7 r2r:f32:dst3:64x48 c2c:f16:fwd:256:b8 r2c:bf16:100:b4)
for threads in 1 2; do
  HYFFT_NUM_THREADS=$threads QEMU_LD_PREFIX=/usr/aarch64-linux-gnu \
    qemu-aarch64 build/aarch64/tools/hyfft/hyfft verify --device cpu --ref-limit 16384 --self-test \
    "${arm_tokens[@]}" | tail -1
done

step "fuzzing: token parser, problem validator, wisdom reader (libFuzzer, 10 s each)"
if command -v clang >/dev/null; then
  FUZZ_SECONDS=10 bash scripts/fuzz.sh
else
  echo "clang not found: fuzzing skipped (the corpus replay above still ran)"
fi

step "install and use from another project"
rm -rf build/install build/consumer
cmake --install build/ci --prefix build/install >/dev/null
mkdir -p build/consumer
cat > build/consumer/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(hyfft REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer hyfft::hyfft)
CMAKE
cat > build/consumer/main.c <<'C'
#include <hyfft.h>
#include <stdio.h>
int main(void) {
  hyfft_context ctx; hyfft_plan plan;
  float data[16] = {1};
  if (hyfft_context_create("cpu", &ctx)) return 1;
  if (hyfft_plan_1d(ctx, 8, HYFFT_C2C, HYFFT_F32, HYFFT_FORWARD, 1, &plan)) return 1;
  float out[16];
  if (hyfft_execute(plan, data, out)) return 1;
  hyfft_plan_destroy(plan); hyfft_context_destroy(ctx);
  for (int i = 0; i < 8; i++) if (out[2*i] != 1.0f || out[2*i+1] != 0.0f) return 1;
  printf("consumer: impulse -> all ones, ok\n");
  return 0;
}
C
cmake -S build/consumer -B build/consumer/build -G Ninja -DCMAKE_PREFIX_PATH="$root/build/install" >/dev/null
ninja -C build/consumer/build >/dev/null
LD_LIBRARY_PATH="$root/build/install/lib" build/consumer/build/consumer
PKG_CONFIG_PATH="$root/build/install/lib/pkgconfig" \
  cc build/consumer/main.c $(PKG_CONFIG_PATH="$root/build/install/lib/pkgconfig" pkg-config --cflags --libs hyfft) \
  -o build/consumer/pc_consumer
LD_LIBRARY_PATH="$root/build/install/lib" build/consumer/pc_consumer

if [ ${#launcher[@]} -gt 0 ]; then
  ccache --show-stats 2>/dev/null | grep -Ei '^ *(hits|misses)|cacheable' | head -4 || true
fi
step "done"
