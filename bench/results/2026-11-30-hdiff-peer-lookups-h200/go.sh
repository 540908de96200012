#!/usr/bin/env bash
# hdiff on one H200: where the edge ranks' halo rows go, looked up once
# into shared memory (hdiff), or at each stage (hdiff_peer, the build
# measured in ../2026-11-30-hdiff-peer-stores-h200x2/), against f072da3
# (hdiff_before: the wrap's rows by a fixed offset) and the baseline;
# 7 alternated rounds.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff peer lookups"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
run "check 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check 67x150x5, 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
run "check 67x150x5, 1 rank" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 21 --ranks 1 --check
alternate 7 "small|shared|hdiff|$small" "small|each stage|hdiff_peer|$small" "small|f072da3|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" \
  "big|shared|hdiff|$big" "big|each stage|hdiff_peer|$big" "big|f072da3|hdiff_before|$big" "big|mpi|hdiff_mpi|$big"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
