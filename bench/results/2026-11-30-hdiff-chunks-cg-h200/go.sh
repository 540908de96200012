#!/usr/bin/env bash
# hdiff's rank kernel at 512x1280x32 with loads in L2 (its default since
# 070cde7) and one point ahead in L1: the chunk of a row walked down a
# rank's rows, and the batch, again (run-time options only). One H200;
# `hdiff_before` of the bundle packed for ../2026-11-30-hdiff-ntid-h200/,
# which is 9755904's hdiff.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff chunks with loads in L2"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "default (chunk 4096)|$big"
  "chunk 2048|$big --chunk 2048"
  "chunk 3072|$big --chunk 3072"
  "chunk 6144|$big --chunk 6144"
  "chunk 8192|$big --chunk 8192"
  "whole rows|$big --chunk 0"
  "batch 2|$big --batch 2"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r name opts <<<"$c"
    named_row "$o/big.csv" "$name" 1 examples/hdiff_before $opts
  done
  named_row "$o/big.csv" "baseline" 1 examples/hdiff_mpi_before $big
done
medians "$o" | tee "$o/medians.txt"
summary
