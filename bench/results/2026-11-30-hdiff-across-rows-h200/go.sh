#!/usr/bin/env bash
# The rank kernel's stencils walked across a band's rows (hdiff, the
# working tree on 1bf8cbd: a warp's tasks are 32 points of a row,
# numbered across the rows first) against the chunked walk down the rows
# (hdiff_before, 1bf8cbd) and the baseline. One H200. Round 1 checks the
# small grid; the big grid is checked at 6 iterations first, and at
# 1320 rows.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff across rows"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
run "check across 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check across 512x1320x32, 6 iterations" examples/hdiff --nx 512 --ny 1320 --nz 32 --iters 6 --check
alternate 5 "big|across|hdiff|$big" "big|down|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" \
  "small|across|hdiff|$small" "small|down|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
