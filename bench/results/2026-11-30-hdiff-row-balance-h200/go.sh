#!/usr/bin/env bash
# Whether hdiff's rank program at 512x1280x32 pays for its rows' uneven
# split: 1280 rows over 132 ranks give 92 ranks ten rows and 40 nine
# (mean 9.70), and a stage lasts as long as the ranks with ten. The same
# programs (923cb0a) at 1188 and 1320 rows (9 and 10 rows a rank, even)
# against the baseline. One H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff row balance"
g() { echo "--nx 512 --ny $1 --nz 32"; }
alternate 5 "r1280|dcuda|hdiff_before|$(g 1280)" "r1280|mpi|hdiff_mpi|$(g 1280)" \
  "r1320|dcuda|hdiff_before|$(g 1320)" "r1320|mpi|hdiff_mpi|$(g 1320)" \
  "r1188|dcuda|hdiff_before|$(g 1188)" "r1188|mpi|hdiff_mpi|$(g 1188)"
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
