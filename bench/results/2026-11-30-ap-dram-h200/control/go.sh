#!/usr/bin/env bash
# AP: control: the same commit built in the tree (new) and in a worktree (_before)
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
cmp examples/aliev_panfilov examples/aliev_panfilov_before && echo "binaries identical" || echo "binaries differ"
for round in 1 2 3; do
  named_row "$o/hd.csv" "new" 1 examples/hdiff --nx 128 --ny 320 --nz 26 --no-check
  named_row "$o/hd.csv" "before" 1 examples/hdiff_before --nx 128 --ny 320 --nz 26 --no-check
done
medians "$o" | tee "$o/medians.txt"
