#!/usr/bin/env bash
# Fuzz the token parser, the guru-problem validator and the wisdom reader
# with clang's libFuzzer under ASan+UBSan, FUZZ_SECONDS each (default 20;
# CI runs the default, run longer on demand: FUZZ_SECONDS=3600 bash
# scripts/fuzz.sh). Starts from tests/fuzz/corpus/TARGET; new inputs land
# in build/fuzz/corpus-TARGET (add the ones worth keeping to the committed
# corpus, whose replay runs in every build). A crash leaves its input in
# build/fuzz and fails the script. Needs clang with libclang_rt.fuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
cc=${FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null; then
  echo "fuzz: $cc not found" >&2
  exit 2
fi
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
  -DHYFFT_FUZZ=ON -DHYFFT_BUILD_TOOLS=OFF >/dev/null
ninja -C build/fuzz -j"$(nproc)" fuzz_token fuzz_problem fuzz_wisdom
for t in token problem wisdom; do
  mkdir -p "build/fuzz/corpus-$t"
  echo "== fuzz_$t, ${seconds}s"
  (cd build/fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 \
    "./tests/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    "corpus-$t" "../../tests/fuzz/corpus/$t" 2>&1 | tail -4)
done
