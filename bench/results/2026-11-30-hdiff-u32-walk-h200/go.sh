#!/usr/bin/env bash
# hdiff: 32-bit walk indices (this build) against HEAD (_before), batches 1, 2, 4
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff u32 walk: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for b in 1 2 4; do
  run "check b$b" examples/hdiff --nx 67 --ny 150 --nz 5 --batch $b --check
  run "check b$b t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --batch $b --check
  run "check mpi b$b" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --batch $b --check
done
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|new b1|hdiff|$small"
  "small|new b2|hdiff|$small --batch 2"
  "small|new b4|hdiff|$small --batch 4"
  "small|before b1|hdiff_before|$small"
  "small|before b2|hdiff_before|$small --batch 2"
  "small|mpi new|hdiff_mpi|$small --threads 512"
  "small|mpi before|hdiff_mpi_before|$small --threads 512"
  "big|new b1|hdiff|$big"
  "big|new b2|hdiff|$big --batch 2"
  "big|new b4|hdiff|$big --batch 4"
  "big|before b1|hdiff_before|$big"
  "big|before b2|hdiff_before|$big --batch 2"
  "big|mpi new|hdiff_mpi|$big"
  "big|mpi before|hdiff_mpi_before|$big"
  "big|mpi new b4|hdiff_mpi|$big --batch 4"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
