#!/usr/bin/env bash
# hdiff's rank kernel, one H200: asking for the rows ahead of the walk in
# L2 (hdiff = v1 + rows ahead), against HEAD (_before) and variants:
# v1 the L1 prefetch of the next point across a chunk's rows, v2 v1 with
# the L1 lists trimmed to the new lines, v4 the rows ahead with the L1
# prefetch of the new lines only.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff rows ahead: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for p in hdiff hdiff_v1 hdiff_v2 hdiff_v4; do
  run "check $p" examples/$p --nx 67 --ny 150 --nz 5 --check
  run "check $p t32" examples/$p --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --check
  run "check $p chunk 7" examples/$p --nx 13 --ny 23 --nz 3 --ranks 1 --threads 32 --chunk 7 --check
done
run "check mpi" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --ranks 7 --check
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|rows|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|v1|hdiff_v1|$big"
  "big|v2|hdiff_v2|$big"
  "big|v4|hdiff_v4|$big"
  "big|rows c8192|hdiff|$big --chunk 8192"
  "big|rows c2048|hdiff|$big --chunk 2048"
  "big|rows c0|hdiff|$big --chunk 0"
  "big|rows b2|hdiff|$big --batch 2"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "big|mpi t128 before|hdiff_mpi_before|$big --threads 128"
  "small|rows|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|v1|hdiff_v1|$small"
  "small|v4|hdiff_v4|$small"
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
