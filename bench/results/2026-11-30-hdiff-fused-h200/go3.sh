#!/usr/bin/env bash
# hdiff fused, the wavefront out of line with batch 1 (3rd build): checks,
# device-clock seconds of (G, C) against the staged walk and the baseline,
# and the fused walk's traffic (ncu, 20 iterations).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff fused out of line: $(head -n 1 COMMIT)"
big="--nx 512 --ny 1280 --nz 32"
run "check fused 3" examples/hdiff --nx 67 --ny 150 --nz 5 --ranks 16 --fuse 3 --chunk 64 --check
run "check fused 1" examples/hdiff --nx 301 --ny 97 --nz 7 --ranks 9 --fuse 1 --check
cases=(
  "big|staged|hdiff|$big"
  "big|g1 c4096|hdiff|$big --fuse 1"
  "big|g2 c4096|hdiff|$big --fuse 2"
  "big|g4 c4096|hdiff|$big --fuse 4"
  "big|g4 c2048|hdiff|$big --fuse 4 --chunk 2048"
  "big|g9 c2048|hdiff|$big --fuse 9 --chunk 2048"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
)
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians3.txt"
KERNEL=hdiff bash ./gpu-ncu-traffic.sh g4 examples/hdiff $big --iters 20 --no-check --fuse 4
summary
