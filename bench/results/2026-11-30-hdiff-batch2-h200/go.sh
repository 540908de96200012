#!/usr/bin/env bash
# The rank kernel's walk compiled for batches of 2 points (hdiff_b2; the
# loop no longer spills, and three ranks of 256 threads now run at 80
# registers) against 2049719's batch of 1 (hdiff) and the baseline. One
# H200. Round 1 checks the small grid.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff batch 2"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
run "check b2 512x1280x32, 6 iterations" examples/hdiff_b2 $big --iters 6 --check
alternate 5 "small|b2|hdiff_b2|$small" "small|b1|hdiff|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" \
  "big|b2|hdiff_b2|$big" "big|b1|hdiff|$big" "big|mpi|hdiff_mpi|$big"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
