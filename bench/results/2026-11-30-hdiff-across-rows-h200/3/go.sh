#!/usr/bin/env bash
# The walk across a band's rows, third form (hdiff: a task's offset in
# the band in 32 bits), against the second (hdiff_v2), the walk down by
# chunks (hdiff_before, 1bf8cbd) and the baseline; 7 alternated rounds.
# One H200. Round 1 checks the small grid; the big grids are checked at
# 6 iterations first.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff across rows 3"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for r in 1280 1320; do
  run "check across 512x${r}x32, 6 iterations" examples/hdiff --nx 512 --ny $r --nz 32 --iters 6 --check
done
run "check across 67x150x5, 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
alternate 7 "big|across|hdiff|$big" "big|across v2|hdiff_v2|$big" "big|down|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" \
  "small|across|hdiff|$small" "small|across v2|hdiff_v2|$small" "small|down|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
