#!/usr/bin/env bash
# The walk across a band's rows, second form (hdiff: tasks stepped by
# additions, a task's row and point in 32 bits), and the first form again
# (hdiff_across1), against the walk down the rows (hdiff_before, 1bf8cbd)
# and the baseline. One H200. Round 1 checks the small grid; the big grid
# is checked at 6 iterations first, and at 1320 and 1188 rows.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff across rows 2"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for r in 1280 1320 1188; do
  run "check across 512x${r}x32, 6 iterations" examples/hdiff --nx 512 --ny $r --nz 32 --iters 6 --check
done
alternate 5 "big|across|hdiff|$big" "big|across1|hdiff_across1|$big" "big|down|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" \
  "small|across|hdiff|$small" "small|across1|hdiff_across1|$small" "small|down|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
