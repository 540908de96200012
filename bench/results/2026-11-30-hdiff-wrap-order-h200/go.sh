#!/usr/bin/env bash
# An edge rank's output rows put across the wrap before its notification
# to the neighbour in the process (hdiff; the last rank notified first
# before), with the block copy's eight vectors in flight as well
# (hdiff_order_up8), against 923cb0a (hdiff_before) and the baseline.
# Then 923cb0a's rank program at 128x320x26 with 256-thread ranks at
# register caps 56 to 128, checked: a variant (the wrap's halves with the
# eight-vector copy) failed with an illegal address at 80 registers only.
# One H200. Round 1 checks the small grid; the big grid is checked at 6
# iterations first.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff wrap order"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for p in hdiff hdiff_order_up8; do
  run "check $p 512x1280x32, 6 iterations" examples/$p $big --iters 6 --check
done
alternate 5 "small|order|hdiff|$small" "small|order up8|hdiff_order_up8|$small" \
  "small|before|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" \
  "big|order|hdiff|$big" "big|order up8|hdiff_order_up8|$big" \
  "big|before|hdiff_before|$big" "big|mpi|hdiff_mpi|$big"
medians "$o" | tee "$o/medians.txt"
for r in 56 64 72 80; do
  run "check hdiff_before 128x320x26, 320 ranks of 256 threads, $r registers" \
    examples/hdiff_before $small --threads 256 --ranks 320 --max-registers $r --iters 20 --check
done
for r in 88 96 112 128; do
  run "check hdiff_before 128x320x26, 264 ranks of 256 threads, $r registers" \
    examples/hdiff_before $small --threads 256 --ranks 264 --max-registers $r --iters 20 --check
done
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
