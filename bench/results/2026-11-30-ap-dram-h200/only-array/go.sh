#!/usr/bin/env bash
# AP: only a shared array written before the loop (unused after), against HEAD
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
run "check" examples/aliev_panfilov --size 1000 --iters 300 --check
for round in 1 2 3; do
  named_row "$o/ap2048.csv" "new" 1 examples/aliev_panfilov --size 2048 --no-check
  named_row "$o/ap2048.csv" "before" 1 examples/aliev_panfilov_before --size 2048 --no-check
done
medians "$o" | tee "$o/medians.txt"
summary
