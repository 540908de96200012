#!/usr/bin/env bash
# hdiff with `Walk::mirror` an `Option<Mirror>` (review mend; the loops'
# SASS is the same) against a501843 (a sentinel row) and the baseline;
# 7 alternated rounds on one H200, checks first.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff mirror option"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
run "check 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check 67x150x5, 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
run "check 67x150x5, 1 rank" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 21 --ranks 1 --check
alternate 7 "small|option|hdiff|$small" "small|a501843|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" \
  "big|option|hdiff|$big" "big|a501843|hdiff_before|$big" "big|mpi|hdiff_mpi|$big"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
