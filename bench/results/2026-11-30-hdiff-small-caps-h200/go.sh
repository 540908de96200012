#!/usr/bin/env bash
# hdiff at the seed's grid: batches of 2 and 4 points with the register
# cap that three ranks of 256 threads an SM allow (85), options only.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff small caps: $(head -n 1 COMMIT)"
small="--nx 128 --ny 320 --nz 26"
run "check b2 r80" examples/hdiff --nx 67 --ny 150 --nz 5 --batch 2 --max-registers 80 --check
cases=(
  "small|default|hdiff|$small"
  "small|b1 r80|hdiff|$small --max-registers 80"
  "small|b2 r80|hdiff|$small --batch 2 --max-registers 80"
  "small|b2 r72|hdiff|$small --batch 2 --max-registers 72"
  "small|b4 r80|hdiff|$small --batch 4 --max-registers 80"
  "small|t512 r40|hdiff|$small --threads 512 --max-registers 40"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
grep -h "ranks of" "$o"/log | head -3
summary
