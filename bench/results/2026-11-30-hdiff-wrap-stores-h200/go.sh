#!/usr/bin/env bash
# hdiff on one process: the wrap's edge rows stored across the wrap in
# the stage, then a notification, instead of a put after it, with each
# stencil's prefetches named once (hdiff); the prefetches alone
# (hdiff_pf); 5edd338 (hdiff_before); the baseline. 7 alternated rounds.
# One H200. The big grids and odd shapes are checked first, round 1 of
# the small grid too.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff wrap stores"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for p in hdiff hdiff_pf; do
  for r in 1280 1320; do
    run "check $p 512x${r}x32, 6 iterations" examples/$p --nx 512 --ny $r --nz 32 --iters 6 --check
  done
done
run "check 67x150x5, 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
run "check 29x150x3, 5 ranks" examples/hdiff --nx 29 --ny 150 --nz 3 --iters 20 --ranks 5 --check
run "check 67x150x5, one rank" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 1 --check
run "check 67x150x5, two ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 21 --ranks 2 --check
alternate 7 "big|wrap stores|hdiff|$big" "big|prefetch once|hdiff_pf|$big" "big|5edd338|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" \
  "small|wrap stores|hdiff|$small" "small|prefetch once|hdiff_pf|$small" "small|5edd338|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
