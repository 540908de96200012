#!/usr/bin/env bash
# hdiff at 512x1280x32 with its loads cached in L1 and L2 (7c30e8b's
# default there): chunks of 2048 to 8192 points and whole rows, against
# the baseline. One H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff chunks with ca"
big="--nx 512 --ny 1280 --nz 32"
run "check chunk 2048 512x1280x32, 6 iterations" examples/hdiff $big --iters 6 --chunk 2048 --check
for round in 1 2 3 4 5; do
  for c in 1024 2048 3072 4096 6144 0; do
    named_row "$o/big.csv" "chunk $c" 1 examples/hdiff $big --chunk $c --no-check
  done
  named_row "$o/big.csv" mpi 1 examples/hdiff_mpi $big --no-check
done
medians "$o" | tee "$o/medians.txt"
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
