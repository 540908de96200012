#!/usr/bin/env bash
# hdiff, the final form: the rank kernel always asks one point ahead; the
# baseline may (--prefetch D with batches 1 and 2). Against HEAD
# (_before), both programs, both grids, one H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff prefetch, final: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
run "check" examples/hdiff --nx 67 --ny 150 --nz 5 --check
run "check t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --check
run "check chunk 7" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 1 --threads 32 --chunk 7 --check
for p in "--batch 1 --prefetch 1" "--batch 1 --prefetch 2" "--prefetch 1" "--prefetch 2"; do
  run "check mpi $p" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 $p --check
  run "check mpi bands $p" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --ranks 7 $p --check
done
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|dcuda|hdiff|$big"
  "big|dcuda before|hdiff_before|$big"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "big|mpi t128 before|hdiff_mpi_before|$big --threads 128"
  "big|mpi t128 p1|hdiff_mpi|$big --threads 128 --prefetch 1"
  "big|mpi t128 p2|hdiff_mpi|$big --threads 128 --prefetch 2"
  "big|mpi t128 b1|hdiff_mpi|$big --threads 128 --batch 1"
  "big|mpi t128 b1 p1|hdiff_mpi|$big --threads 128 --batch 1 --prefetch 1"
  "big|mpi t512 p1|hdiff_mpi|$big --threads 512 --prefetch 1"
  "small|dcuda|hdiff|$small"
  "small|dcuda before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "small|mpi t512 before|hdiff_mpi_before|$small --threads 512"
  "small|mpi t512 p1|hdiff_mpi|$small --threads 512 --prefetch 1"
  "small|mpi t512 b1 p1|hdiff_mpi|$small --threads 512 --batch 1 --prefetch 1"
  "small|mpi t256 p1|hdiff_mpi|$small --threads 256 --prefetch 1"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
