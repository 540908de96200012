#!/usr/bin/env bash
# hdiff fused by groups of rows (--fuse G) and windows (--chunk C): DRAM
# traffic of the staged and the fused walk (ncu, 20 iterations), then
# device-clock seconds of each (G, C) against the staged walk.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff fused groups: $(head -n 1 COMMIT)"
big="--nx 512 --ny 1280 --nz 32"
run "check fused 3" examples/hdiff --nx 67 --ny 150 --nz 5 --ranks 16 --fuse 3 --chunk 64 --check
run "check fused 9" examples/hdiff --nx 301 --ny 97 --nz 7 --ranks 9 --fuse 9 --chunk 512 --check
KERNEL=hdiff bash ./gpu-ncu-traffic.sh staged examples/hdiff $big --iters 20 --no-check
KERNEL=hdiff bash ./gpu-ncu-traffic.sh fused1 examples/hdiff $big --iters 20 --no-check --fuse 1
KERNEL=hdiff bash ./gpu-ncu-traffic.sh fused9c1024 examples/hdiff $big --iters 20 --no-check --fuse 9 --chunk 1024
cases=(
  "big|staged|hdiff|$big"
  "big|g1 c4096|hdiff|$big --fuse 1"
  "big|g2 c2048|hdiff|$big --fuse 2 --chunk 2048"
  "big|g2 c4096|hdiff|$big --fuse 2 --chunk 4096"
  "big|g3 c2048|hdiff|$big --fuse 3 --chunk 2048"
  "big|g4 c1024|hdiff|$big --fuse 4 --chunk 1024"
  "big|g4 c4096|hdiff|$big --fuse 4 --chunk 4096"
  "big|g9 c512|hdiff|$big --fuse 9 --chunk 512"
  "big|g9 c1024|hdiff|$big --fuse 9 --chunk 1024"
  "big|g9 c2048|hdiff|$big --fuse 9 --chunk 2048"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
)
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians2.txt"
summary
