#!/usr/bin/env bash
# hdiff's rank kernel with the walk's thread count read from %ntid inside
# the per-thread region (Thread::threads_per_rank) instead of captured from
# uniform code: the new build (hdiff) against the commit before
# (hdiff_before), and the baseline, at the seed's grid and the default
# one. One H200. Round 1 checks the small grid bitwise (its default).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff ntid"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|dcuda|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|dcuda|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
run "check 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
for round in 1 2 3 4 5; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts $nc
  done
done
medians "$o" | tee "$o/medians.txt"
summary
