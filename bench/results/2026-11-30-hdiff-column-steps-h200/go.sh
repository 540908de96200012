#!/usr/bin/env bash
# The walk across a band's rows with each thread's column stepped by
# additions (hdiff) against the remainder a point (hdiff_before, 4cd38d7)
# and the baseline, as it is (hdiff_mpi: the same PTX as 4cd38d7's) and
# with its columns stepped too (hdiff_mpi_incx); 7 alternated rounds.
# One H200. Round 1 checks the small grid; the big grids and odd shapes
# are checked first.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff column steps"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for r in 1280 1320; do
  run "check 512x${r}x32, 6 iterations" examples/hdiff --nx 512 --ny $r --nz 32 --iters 6 --check
done
run "check 67x150x5, 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --iters 20 --ranks 7 --check
run "check 29x150x3, 5 ranks" examples/hdiff --nx 29 --ny 150 --nz 3 --iters 20 --ranks 5 --check
run "check 29x150x3, baseline incx" examples/hdiff_mpi_incx --nx 29 --ny 150 --nz 3 --iters 20 --check
run "check 512x1280x32, baseline incx" examples/hdiff_mpi_incx --nx 512 --ny 1280 --nz 32 --iters 6 --check
alternate 7 "big|steps|hdiff|$big" "big|remainder|hdiff_before|$big" "big|mpi|hdiff_mpi|$big" "big|mpi incx|hdiff_mpi_incx|$big" \
  "small|steps|hdiff|$small" "small|remainder|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" "small|mpi incx t512|hdiff_mpi_incx|$small --threads 512"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
