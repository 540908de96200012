#!/usr/bin/env bash
# hdiff's rank kernel at 6d259e2 (the full bundle of
# ../2026-11-30-apps-6d259e2-h200x2/), one H200: register caps under 64
# that keep ranks of 1024 threads one an SM (no occupancy to gain; only
# ptxas's spill choices move), and 512 threads two an SM, now that the
# plain loads leave L1 alone. Run from the unpacked bundle.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff caps at 1024 threads"
run "check cap 56" examples/hdiff --nx 67 --ny 150 --nz 5 --max-registers 56 --check
run "check cap 60" examples/hdiff --nx 67 --ny 150 --nz 5 --max-registers 60 --check
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|dcuda|hdiff|$big"
  "big|cap 60|hdiff|$big --max-registers 60"
  "big|cap 56|hdiff|$big --max-registers 56"
  "big|t512|hdiff|$big --threads 512"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "small|dcuda|hdiff|$small"
  "small|cap 60|hdiff|$small --max-registers 60"
  "small|cap 56|hdiff|$small --max-registers 56"
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
