#!/usr/bin/env bash
# Traced one-GPU Aliev-Panfilov runs of each build named in BUILDS (300
# steps, every span kept; SIZES default "4096 2048"): the JSON gzipped
# under /tmp/traces (tens of MB, more than the device tool brings back),
# the per-step medians of trace-steps.py in $OUT/steps.txt.
# Bundle: the builds, gpu-lib.sh, trace-steps.py and this script.
set -uo pipefail
cd "$(dirname "$0")"
. ./gpu-lib.sh
gpu_env
o=/tmp/traces
rm -rf "$o" && mkdir -p "$o"
export DCUDA_TRACE_SPANS=16384
for s in ${SIZES:-4096 2048}; do
  for v in ${BUILDS:?name the builds to trace}; do
    DCUDA_TRACE="$o/$v-$s.json" "./$v" --size "$s" --iters 300 --no-check > "$o/$v-$s.out" 2>&1
    tail -3 "$o/$v-$s.out"
    rm -f "$o/$v-$s.svg"
    gzip -f "$o/$v-$s.json"
  done
done
python3 trace-steps.py "$o" | tee "${OUT:-/tmp}/steps.txt"
