#!/usr/bin/env bash
# The ceiling of a one-process run without the periodic wrap's copies:
# hdiff_nowrap (cb48573's rank kernel with every halo a notification, the
# wrap's rows never copied) and hdiff_mpi_nowrap (the baseline without its
# halo copies on one process), against cb48573's programs. Both variants
# compute wrong results (not checked): a bound, not a program. One H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff wrap ceiling"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|dcuda|hdiff|$small"
  "small|dcuda nowrap|hdiff_nowrap|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "small|mpi t512 nowrap|hdiff_mpi_nowrap|$small --threads 512"
  "big|dcuda|hdiff|$big"
  "big|dcuda nowrap|hdiff_nowrap|$big"
  "big|mpi|hdiff_mpi|$big"
  "big|mpi nowrap|hdiff_mpi_nowrap|$big"
)
for round in 1 2 3 4 5; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
t=/tmp/traces; rm -rf $t; mkdir -p $t
for p in hdiff hdiff_nowrap; do
  DCUDA_TRACE_SPANS=16384 DCUDA_TRACE=$t/$p-small.json examples/$p $small --iters 200 --no-check > $o/traced-$p.out 2>&1
done
rm -f $t/*.svg; gzip -f $t/*.json
python3 trace-steps.py $t laplacian > $o/steps.txt
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
