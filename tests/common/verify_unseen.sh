#!/usr/bin/env bash
# Verify problems drawn by unit.plan_sweep's rules (kinds, precisions,
# ranks, size classes, batches, layouts) on one device against the
# long-double reference: the sizes nobody picked for a table.
#   verify_unseen.sh SWEEP_BINARY HYFFT_CLI DEVICE COUNT MAX_BITS SEED [VERIFY_ARG...]
# HYFFT_SWEEP_SEED in the environment replaces SEED ("time" for a fresh
# one); the seed is printed so that a failure can be replayed.
set -euo pipefail
sweep=$1 cli=$2 device=$3 count=$4 bits=$5 seed=${HYFFT_SWEEP_SEED:-$6}
shift 6
if [ "$seed" = time ]; then seed=$(date +%s); fi
echo "verify_unseen: $count problems on $device, 1D lengths up to 2^$bits, seed $seed"
tokens=$(HYFFT_SWEEP_SEED=$seed HYFFT_SWEEP_COUNT=$count HYFFT_SWEEP_MAX_BITS=$bits \
  HYFFT_SWEEP_VERBOSE=1 "$sweep" | grep -E '^(c2c|r2c|c2r|r2r):' || true)
if [ -z "$tokens" ]; then
  echo "verify_unseen: the sweep printed no problems" >&2
  exit 1
fi
# --strict: a refusal (HYFFT_NOT_SUPPORTED) fails too; every problem the
# sweep draws plans on every backend.
strict=(--strict)
# shellcheck disable=SC2086
exec "$cli" verify --device "$device" "${strict[@]}" "$@" $tokens
