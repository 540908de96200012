#!/usr/bin/env bash
# Again, apart and together, with more rounds at 512x1280x32: the wrap's
# output puts before the notification within the process (hdiff, the
# working tree), the block copy's eight vectors in flight (hdiff_up8),
# both (hdiff_order_up8), against 923cb0a (hdiff_before) and the
# baseline. One H200. Round 1 checks the small grid; the big grid is
# checked at 6 iterations first.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff order and copy"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for p in hdiff hdiff_up8 hdiff_order_up8; do
  run "check $p 512x1280x32, 6 iterations" examples/$p $big --iters 6 --check
done
alternate 7 "big|order|hdiff|$big" "big|up8|hdiff_up8|$big" "big|order up8|hdiff_order_up8|$big" \
  "big|before|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" \
  "small|order|hdiff|$small" "small|up8|hdiff_up8|$small" "small|order up8|hdiff_order_up8|$small" \
  "small|before|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
