#!/usr/bin/env bash
# The persistent kernel of 2-4 pass plans (switch persist=1, src/codegen/cg_persist.c)
# on a GPU, in one call: build; accuracy on --device cuda with the tightest
# ring and with the defaults; the variants against cuFFT side by side; the
# L2 microbenchmark's ticket scheme. Logs and tables under ${OUT:-/tmp/gpu-persist}.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/gpu-persist}
mkdir -p "$out"
OUT=$out source "$here/gpu-build.sh" || exit $?
acc="$build/tests/accuracy/hyfft_accuracy"
export HYFFT_CACHE_DIR=${HYFFT_CACHE_DIR:-/tmp/hyfft-persist-cache}
checks=(c2c:f32:fwd:65536:b64 c2c:f32:bwd:1048576:b8:ip c2c:f64:fwd:262144:b16
        c2c:f32:fwd:1000000:b8:scale=1/N c2c:f64:bwd:65536:b32:ip c2c:f32:fwd:1024x1024:b8
        c2c:f64:fwd:65537:b24 c2c:f32:bwd:65537:b20:ip c2c:f64:bwd:12289:b40:scale=1/N)
for spec in persist=1,ring=2,lag=1 persist=1; do
  echo "### accuracy, $spec" | tee -a "$out/summary.txt"
  HYFFT_KERNEL_SPEC=$spec timeout 120 "$acc" --device cuda "${checks[@]}" >"$out/acc-$spec.log" 2>&1
  echo "exit $?" >>"$out/acc-$spec.log"
  tail -2 "$out/acc-$spec.log" | tee -a "$out/summary.txt"
done
tokens=(${PERSIST_TOKENS:-c2c:f32:fwd:65536:b1024 c2c:f32:fwd:262144:b256 c2c:f32:fwd:1048576:b64
        c2c:f64:fwd:262144:b128 c2c:f64:fwd:65536:b512 c2c:f32:fwd:1000000:b67})
OUT=$out/variants VARIANT_RUNS=${VARIANT_RUNS:-20} bash "$here/gpu-variants.sh" \
  ${PERSIST_SPECS:-default persist=1 persist=1,lag=1 persist=1,ring=4,lag=2} -- "${tokens[@]}" \
  >"$out/variants.log" 2>&1
cp "$out/variants/variants.md" "$out/" 2>/dev/null
if [ "${PERSIST_MICRO:-1}" = 1 ]; then
  nvcc -O3 -arch=sm_90 -std=c++17 -o "$out/l2_reuse" "$here/../bench/micro/l2_reuse.cu" \
    >"$out/l2_reuse.log" 2>&1 && timeout 120 "$out/l2_reuse" >>"$out/l2_reuse.log" 2>&1
  rm -f "$out/l2_reuse"
fi
cat "$out/summary.txt" "$out/variants.md" 2>/dev/null
grep -E "two passes|one copy|tickets|grid.sync 24" "$out/l2_reuse.log" 2>/dev/null
