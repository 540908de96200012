#!/usr/bin/env bash
# hdiff: the three stages fused into one walk down a rank's rows (--fuse,
# this build) against the stages one after another (this build and HEAD,
# _before) and the host-driven baseline, one H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff fused: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
run "check staged" examples/hdiff --nx 67 --ny 150 --nz 5 --check
for f in "" "--chunk 64" "--chunk 0" "--batch 2" "--batch 4" "--threads 512"; do
  run "check fused $f" examples/hdiff --nx 67 --ny 150 --nz 5 --ranks 16 --fuse $f --check
done
run "check fused t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --fuse --chunk 40 --check
run "check fused 301" examples/hdiff --nx 301 --ny 97 --nz 7 --fuse --check
run "check fused np2" mpirun --allow-run-as-root -np 2 --bind-to none examples/hdiff --nx 67 --ny 150 --nz 5 --ranks 8 --fuse --check
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|staged|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|fused|hdiff|$big --fuse"
  "big|fused c2048|hdiff|$big --fuse --chunk 2048"
  "big|fused c8192|hdiff|$big --fuse --chunk 8192"
  "big|fused b2|hdiff|$big --fuse --batch 2"
  "big|fused b4|hdiff|$big --fuse --batch 4"
  "big|fused t512|hdiff|$big --fuse --threads 512"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "small|staged|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|fused|hdiff|$small --fuse"
  "small|fused r160 t512|hdiff|$small --fuse --ranks 160 --threads 512"
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
