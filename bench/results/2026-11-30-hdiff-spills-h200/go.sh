#!/usr/bin/env bash
# hdiff's rank kernel with fewer values spilled by every thread: the walk's
# batch fixed at 1 in the rank kernel (hdiff_b1) and, on top, the staged
# arguments re-read from shared memory where they are used (hdiff), against
# the commit before (hdiff_before) and the baseline. One H200. Then warp
# stalls and local traffic of hdiff at 128x320x26, and a traced run.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff spills"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|b1 fresh|hdiff|$small"
  "small|b1|hdiff_b1|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|b1 fresh|hdiff|$big"
  "big|b1|hdiff_b1|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
run "check b1 fresh 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
run "check b1 512x1280x32, 6 iterations" examples/hdiff_b1 $big --iters 6 --check
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
KERNEL=hdiff LIMIT=150 bash gpu-ncu-stalls.sh hdiff-small examples/hdiff $small --iters 20 --no-check
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
