#!/usr/bin/env bash
# hdiff's rank kernel, one H200: the L1 prefetch of the next point asking
# only for the lines the stencil a row before did not read, across a
# chunk's rows (hdiff, "v2" of call 1), against HEAD (_before); v5 the
# same within a row only, v6 two points ahead.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff fresh lines: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for p in hdiff hdiff_v5 hdiff_v6; do
  run "check $p" examples/$p --nx 67 --ny 150 --nz 5 --check
  run "check $p t32" examples/$p --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --check
  run "check $p chunk 7" examples/$p --nx 13 --ny 23 --nz 3 --ranks 1 --threads 32 --chunk 7 --check
done
for p in "--batch 1 --prefetch 1" "--prefetch 2"; do
  run "check mpi $p" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 $p --check
  run "check mpi bands $p" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --ranks 7 $p --check
done
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|fresh|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|v5|hdiff_v5|$big"
  "big|v6|hdiff_v6|$big"
  "big|fresh c2048|hdiff|$big --chunk 2048"
  "big|fresh c8192|hdiff|$big --chunk 8192"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "small|fresh|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|v5|hdiff_v5|$small"
  "small|v6|hdiff_v6|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
