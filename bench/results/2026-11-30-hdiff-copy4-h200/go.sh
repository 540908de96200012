#!/usr/bin/env bash
# The block copy with four 16-byte vectors in flight a thread (two before)
# as hdiff, against cb48573 (hdiff_before) and the baseline; the wrap's
# row puts pace the ring at 128x320x26. One H200. Round 1 checks.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff copy4"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|copy4|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|copy4|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
run "check copy4 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
for round in 1 2 3 4 5; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts $nc
  done
done
medians "$o" | tee "$o/medians.txt"
t=/tmp/traces; rm -rf $t; mkdir -p $t
DCUDA_TRACE_SPANS=16384 DCUDA_TRACE=$t/hdiff-small.json examples/hdiff $small --iters 200 --no-check > $o/traced.out 2>&1
rm -f $t/*.svg; gzip -f $t/*.json
python3 trace-steps.py $t laplacian > $o/steps.txt
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
