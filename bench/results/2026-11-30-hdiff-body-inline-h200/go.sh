#!/usr/bin/env bash
# hdiff's rank body compiled inside its kernel entry (#[inline(always)] on
# the closure #[rank] passes to Rank::run; ../../experiments/rank-body-inline.patch)
# as `hdiff`; the same with the walk's thread count from %ntid
# (../../experiments/hdiff-walk-threads-from-ntid.patch) as `hdiff_ntid`;
# the commit before as `hdiff_before`; and the baseline. One H200. Round 1
# checks the small grid bitwise (its default).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff body inline"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|inline|hdiff|$small"
  "small|inline+ntid|hdiff_ntid|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|inline|hdiff|$big"
  "big|inline+ntid|hdiff_ntid|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
run "check inline 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check inline+ntid 512x1280x32, 6 iterations" examples/hdiff_ntid $big --iters 6 --check
for round in 1 2 3 4 5; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts $nc
  done
done
medians "$o" | tee "$o/medians.txt"
summary
