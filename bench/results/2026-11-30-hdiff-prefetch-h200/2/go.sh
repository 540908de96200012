#!/usr/bin/env bash
# hdiff: each thread asks for the lines of its point D points ahead in L1
# (--prefetch D), the rank kernel and the baseline (its _p kernels), against
# D = 0 and HEAD (_before), one H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff prefetch distances: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for p in 0 1 4; do
  run "check p$p" examples/hdiff --nx 67 --ny 150 --nz 5 --prefetch $p --check
  run "check p$p t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --prefetch $p --check
  run "check mpi p$p" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --prefetch $p --check
  run "check mpi p$p bands" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --ranks 7 --prefetch $p --check
done
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|p0|hdiff|$big"
  "big|p1|hdiff|$big --prefetch 1"
  "big|p2|hdiff|$big --prefetch 2"
  "big|p4|hdiff|$big --prefetch 4"
  "big|before|hdiff_before|$big"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "big|mpi t128 p1|hdiff_mpi|$big --threads 128 --prefetch 1"
  "big|mpi t128 p2|hdiff_mpi|$big --threads 128 --prefetch 2"
  "big|mpi t128 before|hdiff_mpi_before|$big --threads 128"
  "small|p0|hdiff|$small"
  "small|p1|hdiff|$small --prefetch 1"
  "small|p2|hdiff|$small --prefetch 2"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "small|mpi t512 p1|hdiff_mpi|$small --threads 512 --prefetch 1"
  "small|mpi t512 before|hdiff_mpi_before|$small --threads 512"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
