#!/usr/bin/env bash
# hdiff: the rank kernel's walk prefetching one point ahead always (no
# runtime choice), against HEAD (_before) and the baseline, one H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff prefetch compiled in: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
run "check" examples/hdiff --nx 67 --ny 150 --nz 5 --check
run "check t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --check
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|const p1|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|mpi t128|hdiff_mpi_before|$big --threads 128"
  "small|const p1|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi_before|$small --threads 512"
)
for round in 1 2 3 4; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
