#!/usr/bin/env bash
# The periodic wrap's halo rows on one process moved by both ends at
# once (the owner notifies, puts the first half, notified; the reader
# gets the second half), alone and with the block copy's eight vectors
# in flight, against 923cb0a (hdiff_before) and the baseline. One H200.
#   hdiff_split: the halves;
#   hdiff_up8: the block copy loads all of a thread's vectors before
#     storing any when it has at most eight (was two at a time);
#   hdiff: both.
# Round 1 checks the small grid; the big grid is checked at 6 iterations
# first. Then hdiff and hdiff_before traced.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff wrap halves"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
for p in hdiff hdiff_split hdiff_up8; do
  run "check $p 512x1280x32, 6 iterations" examples/$p $big --iters 6 --check
done
alternate 5 "small|both|hdiff|$small" "small|split|hdiff_split|$small" "small|up8|hdiff_up8|$small" \
  "small|before|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" \
  "big|both|hdiff|$big" "big|split|hdiff_split|$big" "big|up8|hdiff_up8|$big" \
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
