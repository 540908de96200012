#!/usr/bin/env bash
# hdiff's rank program caching its loads by the rows a rank walks (L1 and
# L2 for bands of several rows, L2 only for one) as hdiff, against 61e6187
# (always L2 only unless told) and the baseline. One H200. Round 1 checks.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff caching by rows"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|by rows|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|by rows|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
run "check by rows 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
for round in 1 2 3 4 5; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts $nc
  done
done
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
