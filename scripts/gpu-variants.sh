#!/usr/bin/env bash
# Time generator variants side by side with cuFFT on the GPU machine:
#   bash scripts/gpu-variants.sh SPEC... -- TOKEN...
# Each SPEC is a HYFFT_KERNEL_SPEC string ("default" for none), e.g.
# "ftwsin=1" or "threads=256,minblocks=2"; every variant runs every token in
# its own `hyfft bench --vs cufft` (same process as its cuFFT row), and the
# tables go to stdout and $OUT/variants.md. $VARIANT_RUNS sets --runs
# (default 20).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/gpu-build.sh" || exit $?
out=${OUT:-/tmp/gpu-variants}
mkdir -p "$out"
export HYFFT_CACHE_DIR=${HYFFT_CACHE_DIR:-/tmp/hyfft-variants-cache}
specs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do specs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#specs[@]} -gt 0 ] && [ $# -gt 0 ] || { echo "usage: gpu-variants.sh SPEC... -- TOKEN..." >&2; exit 2; }
: >"$out/variants.md"
i=0
for spec in "${specs[@]}"; do
  i=$((i + 1))
  s=$spec
  [ "$s" = default ] && s=""
  echo "### variant: $spec" | tee -a "$out/variants.md"
  HYFFT_KERNEL_SPEC="$s" timeout "${VARIANT_TIMEOUT:-200}" "$hyfft" bench "$@" --device cuda \
    --vs cufft --runs "${VARIANT_RUNS:-20}" --warmup 3 --check-elems 65536 \
    --json "$out/variant-$i.json" >"$out/variant-$i.log" 2>&1
  echo "exit $?" >>"$out/variant-$i.log"
  python3 "$here/../bench/json_to_markdown.py" "$out/variant-$i.json" 2>/dev/null |
    tee -a "$out/variants.md" || tail -5 "$out/variant-$i.log"
done
