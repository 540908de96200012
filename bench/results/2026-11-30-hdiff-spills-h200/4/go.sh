#!/usr/bin/env bash
# Fourth lease: the tree to commit (the batch fixed at 1, the arguments
# read where used, and the register cap raised as far as the ranks fit)
# as hdiff, also forced to 64 registers; the commit before (02857a8) and
# the baseline. One H200. Round 1 checks both grids bitwise.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff spills 4"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|new|hdiff|$small"
  "small|new r64|hdiff|$small --max-registers 64"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|new|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
run "check new 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check new 128x320x26" examples/hdiff $small --check
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
