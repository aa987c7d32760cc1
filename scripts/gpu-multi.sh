#!/usr/bin/env bash
# Multi-device execution on a machine with several NVIDIA GPUs (issue 28;
# docs/api.md, "Multi-device execution"), in one run:
#   1. at least 2 GPUs (nvidia-smi -L), else exit 77;
#   2. configure and build (scripts/gpu-build.sh);
#   3. hyfft plan of one problem on the device list (the split), and
#      hyfft verify of a few host problems on it (C2C, R2C, C2R, f32/f64,
#      batches not divisible by the device count, batch 1, in place)
#      against the long-double reference;
#   4. hyfft bench --host of large batched host problems on cuda:0 alone
#      and on the list, pageable and --pinned, one process each, one after
#      the other on the same machine and data (seed 1), then a table of the
#      four medians and the list's speed-up over cuda:0;
#   5. one transform split in slabs across the devices (exec/multi_slab.c):
#      the raw copy bandwidth device to device and over the bus
#      (hyfft_peer_bw), hyfft plan of the decomposition, hyfft verify of
#      unbatched 2D/3D C2C, R2C and C2R host problems (uneven splits, in
#      place), and
#      hyfft bench --host --pinned of SLAB_TOKENS (default
#      c2c:f32:fwd:1024x1024x1024 and c2c:f32:fwd:16384x16384) on cuda:0
#      and on the list, with a table of the medians and the speed-up.
# Usage: bash scripts/gpu-multi.sh [TOKEN...]
# MULTI_SLAB_ONLY=1 runs step 5 alone (after the build): a few minutes
# (an 8 GiB and a 2 GiB problem, pinned, on each side; SLAB_TOKENS
# replaces them, SLAB_VERIFY_BIG=0 skips verifying them, SLAB_HOST_EXCHANGE=1
# also times the list with the exchange through host memory).
# Environment: MULTI_DEVICE (the list, default cuda:all), MULTI_ONE (the
# single device it is compared with, default cuda:0), MULTI_RUNS
# (timed runs per problem, default 5), OUT (logs and JSON, default
# /tmp/hyfft-multi). Every step has a time limit; the whole run stays
# under about 7 minutes on a warm machine (the build is most of a cold
# one). Exit status: 0 when verify passed and every bench ran.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export OUT=${OUT:-/tmp/hyfft-multi}
mkdir -p "$OUT"
start=$(date +%s)
step() { printf '\n== %s (%ds)\n' "$*" $(( $(date +%s) - start )); }

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "${gpus:-0}" -lt 2 ]; then
  echo "gpu-multi: this machine has ${gpus:-0} GPU(s) (nvidia-smi -L); multi-device needs at least 2" >&2
  exit 77
fi
step "$gpus GPUs"
nvidia-smi -L
nvidia-smi topo -m 2>/dev/null | head -12 || true

step "build"
if [ -z "${hyfft:-}" ]; then source "$root/scripts/gpu-build.sh"; fi
device=${MULTI_DEVICE:-cuda:all}
one=${MULTI_ONE:-cuda:0}
runs=${MULTI_RUNS:-5}
# 1 GiB of input each: large enough that the bus, not launch overhead,
# sets the time (tens of ms per direction even on four GPUs), small enough
# that filling the inputs and the reference check keep each bench process
# well under its time limit.
if [ $# -gt 0 ]; then tokens=("$@"); else
  tokens=(c2c:f32:fwd:4096:b32768 r2c:f32:4096x4096:b16 c2c:f32:fwd:1024x1024:b128)
fi
rc=0

if [ "${MULTI_SLAB_ONLY:-0}" != 1 ]; then
step "hyfft plan on $device"
timeout 120 "$hyfft" plan "${tokens[0]}" --device "$device" 2>&1 | grep -vE '^ +(pass|kernel|solver)' \
  | tee "$OUT/multi-plan.txt"

step "hyfft verify on $device"
if ! timeout 180 "$hyfft" verify --device "$device" --seed 1 \
    c2c:f32:fwd:1024:b1001 c2c:f64:bwd:256x256:b7:ip r2c:f32:4096:b333 c2r:f64:512x512:b5 \
    c2r:f32:1000:b9 c2c:f32:fwd:65536:b1 r2c:f64:128x128x128:b3 2>&1 | tee "$OUT/multi-verify.txt"; then
  echo "gpu-multi: verify failed" >&2
  rc=1
fi

step "hyfft bench --host: $one and $device, pageable and pinned"
for pin in 0 1; do
  for dev in "$one" "$device"; do
    tag="$([ "$dev" = "$one" ] && echo one || echo multi)-$([ $pin = 1 ] && echo pinned || echo pageable)"
    extra=()
    [ $pin = 1 ] && extra=(--pinned)
    echo "-- $tag ($dev${extra[*]:+ ${extra[*]}})"
    if ! timeout 150 "$hyfft" bench "${tokens[@]}" --device "$dev" --host "${extra[@]}" \
        --runs "$runs" --warmup 1 --seed 1 --json "$OUT/multi-$tag.json" \
        >"$OUT/multi-$tag.txt" 2>&1; then
      echo "gpu-multi: bench $tag failed or timed out; see $OUT/multi-$tag.txt" >&2
      rc=1
    fi
    grep -E "hyfft|note|device" "$OUT/multi-$tag.txt" | head -12
  done
done

step "table"
python3 - "$OUT" "$one" "$device" "$gpus" "${tokens[@]}" <<'EOF' | tee "$OUT/multi.md"
import json, sys
out, one, device, gpus, tokens = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
def load(tag):
    try:
        rows = json.load(open(f"{out}/multi-{tag}.json"))["rows"]
    except Exception:
        return {}
    return {r["problem"]: r for r in rows if r.get("lib") == "hyfft"}
runs = {t: load(t) for t in ("one-pageable", "multi-pageable", "one-pinned", "multi-pinned")}
def ms(tag, tok):
    v = runs[tag].get(tok, {}).get("median_ms")
    return v if isinstance(v, (int, float)) and v > 0 else None
def f(v, fmt="%.2f"):
    return fmt % v if v is not None else "-"
def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b is not None else "-"
print(f"hyfft bench --host, medians in ms; {device} on a machine of {gpus} GPUs; "
      f"speed-up = {one} / {device}\n")
print(f"| problem | {one} | {device} | speed-up | {one} pinned | {device} pinned | speed-up pinned |")
print("|---|---:|---:|---:|---:|---:|---:|")
for tok in tokens:
    a, b = ms("one-pageable", tok), ms("multi-pageable", tok)
    c, d = ms("one-pinned", tok), ms("multi-pinned", tok)
    print(f"| {tok} | {f(a)} | {f(b)} | {ratio(a, b)} | {f(c)} | {f(d)} | {ratio(c, d)} |")
EOF
fi  # MULTI_SLAB_ONLY

step "slab split of one transform: raw copies (hyfft_peer_bw)"
peer_bw="${build:-$(dirname "$hyfft")/../..}/tests/unit/hyfft_peer_bw"
if [ -x "$peer_bw" ]; then
  timeout 120 "$peer_bw" "$device" 1024 10 2>&1 | tee "$OUT/slab-peer-bw.txt"
else
  echo "gpu-multi: $peer_bw was not built" >&2
fi
read -r -a slab_tokens <<<"${SLAB_TOKENS:-c2c:f32:fwd:1024x1024x1024 c2c:f32:fwd:16384x16384}"

step "slab split: hyfft plan on $device"
for tok in "${slab_tokens[@]}"; do
  timeout 120 "$hyfft" plan "$tok" --device "$device" 2>&1 | grep -vE '^ +(pass|kernel|solver)' \
    | tee -a "$OUT/slab-plan.txt"
done

step "slab split: hyfft verify on $device"
if ! timeout 300 "$hyfft" verify --device "$device" --seed 1 \
    c2c:f32:fwd:4096x4096 c2c:f64:bwd:1000x999:ip c2c:f32:fwd:257x129x65 c2c:f64:fwd:3x5x4096 \
    c2c:f32:bwd:512x512x512:ip r2c:f32:4096x4096 c2r:f64:1000x999:ip r2c:f64:257x129x66:ip \
    c2r:f32:256x256x256 2>&1 | tee "$OUT/slab-verify.txt"; then
  echo "gpu-multi: slab verify failed" >&2
  rc=1
fi
# The benched problems themselves (past the long-double reference's limit:
# the reference-free self-test); SLAB_VERIFY_BIG=0 skips them.
if [ "${SLAB_VERIFY_BIG:-1}" = 1 ] && ! timeout 300 "$hyfft" verify --device "$device" --seed 1 \
    "${slab_tokens[@]}" 2>&1 | tee -a "$OUT/slab-verify.txt"; then
  echo "gpu-multi: slab verify of ${slab_tokens[*]} failed or timed out" >&2
  rc=1
fi

step "slab split: hyfft bench --host --pinned, $one and $device"
slab_runs=("$one" "$device")
# SLAB_HOST_EXCHANGE=1: the list once more with the exchange through host
# memory (HYFFT_MULTI_EXCHANGE=host), against device to device.
[ "${SLAB_HOST_EXCHANGE:-0}" = 1 ] && slab_runs+=("host-exchange")
for dev in "${slab_runs[@]}"; do
  env=()
  if [ "$dev" = "host-exchange" ]; then tag=slab-multi-host; dev=$device; env=(HYFFT_MULTI_EXCHANGE=host)
  else tag="slab-$([ "$dev" = "$one" ] && echo one || echo multi)"; fi
  echo "-- $tag ($dev --pinned${env[*]:+ ${env[*]}})"
  if ! env "${env[@]}" timeout 300 "$hyfft" bench "${slab_tokens[@]}" --device "$dev" --host --pinned \
      --runs "$runs" --warmup 1 --seed 1 --json "$OUT/$tag.json" >"$OUT/$tag.txt" 2>&1; then
    echo "gpu-multi: bench $tag failed or timed out; see $OUT/$tag.txt" >&2
    rc=1
  fi
  grep -E "hyfft|note|device" "$OUT/$tag.txt" | head -12
done
python3 - "$OUT" "$one" "$device" "${slab_tokens[@]}" <<'EOF2' | tee "$OUT/slab.md"
import json, sys
out, one, device, tokens = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def load(tag):
    try:
        rows = json.load(open(f"{out}/{tag}.json"))["rows"]
    except Exception:
        return {}
    return {r["problem"]: r for r in rows if r.get("lib") == "hyfft"}
a_rows, b_rows, h_rows = load("slab-one"), load("slab-multi"), load("slab-multi-host")
def ms(rows, tok):
    v = rows.get(tok, {}).get("median_ms")
    return v if isinstance(v, (int, float)) and v > 0 else None
print(f"\nslab split, hyfft bench --host --pinned, medians in ms; speed-up = {one} / {device}\n")
print(f"| problem | {one} | {device} | speed-up | {device}, exchange through the host |")
print("|---|---:|---:|---:|---:|")
for tok in tokens:
    a, b, h = ms(a_rows, tok), ms(b_rows, tok), ms(h_rows, tok)
    r = f"{a / b:.2f}x" if a and b else "-"
    fa, fb, fh = (f"{v:.2f}" if v else "-" for v in (a, b, h))
    print(f"| {tok} | {fa} | {fb} | {r} | {fh} |")
EOF2

step "done (exit $rc); logs and JSON in $OUT"
exit $rc
