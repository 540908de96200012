#!/usr/bin/env bash
# hdiff's rank kernel at the seed's grid with its plain loads in L2 only
# (6d259e2's default): the run-time geometries and batches measured with
# loads in L1 (../2026-11-29-hdiff-small-h200/), again. One H200; the
# bundle of ../2026-11-30-apps-6d259e2-h200x2/, run from it unpacked.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff small grid, loads in L2"
small="--nx 128 --ny 320 --nz 26"
cases=(
  "small|dcuda|hdiff|$small"
  "small|b2|hdiff|$small --batch 2"
  "small|b4|hdiff|$small --batch 4"
  "small|t128|hdiff|$small --threads 128"
  "small|t512|hdiff|$small --threads 512"
  "small|t1024|hdiff|$small --threads 1024"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
