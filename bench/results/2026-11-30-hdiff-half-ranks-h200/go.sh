#!/usr/bin/env bash
# 923cb0a's rank program at 512x1280x32 with two ranks of 512 threads an
# SM (264 ranks of 4-5 rows at 64 registers) against its default, one
# rank of 1024 threads (132 ranks of 9-10 rows): Nsight Compute put 12.5%
# of the default's warp samples at the barriers ending a stage, the
# rank's tail, which a second rank on the SM could fill. And, once more,
# the wrap's puts first with the eight-vector copy (hdiff_order_up8) at
# 128x320x26. One H200. Round 1 checks the small grid; the big grid's
# new geometries are checked at 6 iterations first.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff half ranks"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
run "check 512 threads 512x1280x32, 6 iterations" examples/hdiff_before $big --threads 512 --iters 6 --check
run "check 512 threads chunk 2048 512x1280x32, 6 iterations" examples/hdiff_before $big --threads 512 --chunk 2048 --iters 6 --check
alternate 5 "big|t1024|hdiff_before|$big" "big|t512|hdiff_before|$big --threads 512" \
  "big|t512 c2048|hdiff_before|$big --threads 512 --chunk 2048" "big|mpi|hdiff_mpi|$big" \
  "small|order up8|hdiff_order_up8|$small" "small|before|hdiff_before|$small" \
  "small|mpi t512|hdiff_mpi|$small --threads 512"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
