#!/usr/bin/env bash
# Where hdiff's time goes at 128x320x26 on one GPU (02857a8): a traced run
# of the rank kernel (per-stage medians from device timestamps), warp
# stalls of the rank kernel (20 iterations) and of the baseline's three
# stage kernels (one launch each, 512 threads), and a timed pair.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff small stalls"
small="--nx 128 --ny 320 --nz 26"
run "check 128x320x26" examples/hdiff $small --iters 6 --check
for r in 1 2 3; do
  named_row "$o/small.csv" dcuda 1 examples/hdiff $small --no-check
  named_row "$o/small.csv" "mpi t512" 1 examples/hdiff_mpi $small --threads 512 --no-check
done
t=/tmp/traces; rm -rf $t; mkdir -p $t
DCUDA_TRACE_SPANS=16384 DCUDA_TRACE=$t/hdiff-small.json examples/hdiff $small --iters 200 --no-check > $o/traced.out 2>&1
rm -f $t/*.svg; gzip -f $t/*.json
python3 trace-steps.py $t laplacian | tee $o/steps.txt
KERNEL=hdiff LIMIT=150 bash gpu-ncu-stalls.sh hdiff-small examples/hdiff $small --iters 20 --no-check
for s in 3 4 5; do
  rep=$o/base-small-$s
  timeout 100 ncu --section WarpStateStats --section SourceCounters --kernel-name regex:hdiff_stage \
    --launch-skip $s --launch-count 1 -o $rep examples/hdiff_mpi $small --threads 512 --iters 20 --no-check > $rep.log 2>&1
  echo "ncu base $s: exit $?"
  ncu -i $rep.ncu-rep --page source --csv --print-source sass > $rep.source.csv; xz -9f $rep.source.csv; rm -f $rep.ncu-rep
done
medians "$o" | tee "$o/medians.txt"
summary
# The device tool brings back few files: everything in one archive.
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
