#!/usr/bin/env bash
# Two changes to the puts across the periodic wrap, alone and together,
# against 923cb0a (hdiff_before) and the baseline. One H200.
#   hdiff_comb: an edge rank's output rows put unnotified (put_to), then
#     one notify_each to both sides (was put_notify_to, then notify);
#   hdiff_up8: the block copy loads all of a thread's vectors before
#     storing any when it has at most eight (was two at a time);
#   hdiff: both.
# Round 1 checks the small grid; the big grid is checked at 6 iterations
# first. Then hdiff and hdiff_before traced.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff edge puts"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for p in hdiff hdiff_comb hdiff_up8; do
  run "check $p 512x1280x32, 6 iterations" examples/$p $big --iters 6 --check
done
alternate 5 "small|both|hdiff|$small" "small|comb|hdiff_comb|$small" "small|up8|hdiff_up8|$small" \
  "small|before|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" \
  "big|both|hdiff|$big" "big|comb|hdiff_comb|$big" "big|up8|hdiff_up8|$big" \
  "big|before|hdiff_before|$big" "big|mpi|hdiff_mpi|$big"
medians "$o" | tee "$o/medians.txt"
t=/tmp/traces; rm -rf $t; mkdir -p $t
for p in hdiff hdiff_before; do
  DCUDA_TRACE_SPANS=16384 DCUDA_TRACE=$t/$p-small.json examples/$p $small --iters 200 --no-check > $o/traced-$p.out 2>&1
done
rm -f $t/*.svg; gzip -f $t/*.json
python3 trace-steps.py $t laplacian > $o/steps.txt
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
