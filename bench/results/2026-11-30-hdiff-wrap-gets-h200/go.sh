#!/usr/bin/env bash
# On one process, the periodic wrap's halo rows read by their reader
# after a notification (gets) instead of put by their owner (hdiff, the
# working tree on 923cb0a) against 923cb0a (hdiff_before) and the
# baseline. One H200. Round 1 checks the small grid; the big grid is
# checked at 6 iterations first. Then both rank programs traced.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff wrap gets"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
run "check gets 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --check
alternate 5 "small|gets|hdiff|$small" "small|puts|hdiff_before|$small" "small|mpi t512|hdiff_mpi|$small --threads 512" \
  "big|gets|hdiff|$big" "big|puts|hdiff_before|$big" "big|mpi|hdiff_mpi|$big"
medians "$o" | tee "$o/medians.txt"
t=/tmp/traces; rm -rf $t; mkdir -p $t
for p in hdiff hdiff_before; do
  DCUDA_TRACE_SPANS=16384 DCUDA_TRACE=$t/$p-small.json examples/$p $small --iters 200 --no-check > $o/traced-$p.out 2>&1
done
rm -f $t/*.svg; gzip -f $t/*.json
python3 trace-steps.py $t laplacian > $o/steps.txt
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
