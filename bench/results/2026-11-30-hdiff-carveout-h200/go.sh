#!/usr/bin/env bash
# The L1/shared-memory split (the preferred shared-memory carveout, a
# kernel attribute) for hdiff's rank kernel and the baseline's kernels:
# *_cv builds set it from DCUDA_X_CARVEOUT before each launch (an
# experiment's build, not committed; percent of the most shared memory,
# 0 = the most L1) and print what the kernel holds. One H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff carveout"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cv() { echo "env DCUDA_X_CARVEOUT=$1"; }
cases=(
  "small|dcuda||hdiff|$small"
  "small|cv0|$(cv 0)|hdiff_cv|$small"
  "small|cv100|$(cv 100)|hdiff_cv|$small"
  "small|mpi t512||hdiff_mpi|$small --threads 512"
  "small|mpi t512 cv0|$(cv 0)|hdiff_mpi_cv|$small --threads 512"
  "big|dcuda||hdiff|$big"
  "big|cv0|$(cv 0)|hdiff_cv|$big"
  "big|cv100|$(cv 100)|hdiff_cv|$big"
  "big|mpi||hdiff_mpi|$big"
  "big|mpi cv0|$(cv 0)|hdiff_mpi_cv|$big"
)
for round in 1 2 3; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name pre prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 $pre "examples/$prog" $opts $nc
  done
done
grep -h carveout "$o/err.log" | sort | uniq -c | tee "$o/attributes.txt"
medians "$o" | tee "$o/medians.txt"
summary
