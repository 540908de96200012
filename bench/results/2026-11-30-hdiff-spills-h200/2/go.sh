#!/usr/bin/env bash
# Second lease: the batch fixed at 1 with the arguments read where used
# (hdiff, as in ../), the arguments read where used alone (hdiff_fresh),
# and on top of hdiff the rank's set-up (rows, neighbours, put targets) in
# a shared-memory plan read where used, the world communicator fetched at
# each use (hdiff_plan_b1); the commit before and the baseline. One H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff spills 2"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|b1 fresh|hdiff|$small"
  "small|fresh|hdiff_fresh|$small"
  "small|plan b1|hdiff_plan_b1|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|b1 fresh|hdiff|$big"
  "big|fresh|hdiff_fresh|$big"
  "big|plan b1|hdiff_plan_b1|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
for p in hdiff_fresh hdiff_plan_b1; do
  run "check $p 512x1280x32, 6 iterations" examples/$p $big --iters 6 --check
done
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
