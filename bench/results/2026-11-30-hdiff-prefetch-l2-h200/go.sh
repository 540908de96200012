#!/usr/bin/env bash
# hdiff's rank kernel asking for its next point's lines in L2
# (`prefetch.L2`) instead of L1: with its plain loads cached in L2 only
# they never hit L1 (../2026-11-30-hdiff-traffic-h200/), so the L1 copies
# only crowd out the stack. `hdiff_pf2` is f298d39's hdiff with the one
# instruction changed (its SASS differs from hdiff's in that opcode alone);
# `hdiff` is f298d39's. One H200. Round 1 checks the small grid bitwise.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff prefetch.L2"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|L1 (f298d39)|hdiff|$small"
  "small|L2|hdiff_pf2|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|L1 (f298d39)|hdiff|$big"
  "big|L2|hdiff_pf2|$big"
  "big|L2 dlcm ca|hdiff_pf2|$big --dlcm ca"
  "big|mpi|hdiff_mpi|$big"
)
run "check L2 512x1280x32, 6 iterations" examples/hdiff_pf2 $big --iters 6 --check
for round in 1 2 3 4 5; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts $nc
  done
done
medians "$o" | tee "$o/medians.txt"
summary
