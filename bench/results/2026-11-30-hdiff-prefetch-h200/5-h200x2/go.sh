#!/usr/bin/env bash
# hdiff, the final form, on two H200s: checks across the GPUs, then the
# two-GPU grids of issue 13 against HEAD (_before) and the baselines.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff prefetch on two GPUs: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
mpi2() { mpirun --allow-run-as-root --bind-to none -np 2 "$@"; }
run "check hdiff np 2" mpi2 examples/hdiff --nx 67 --ny 300 --nz 5 --iters 20 --check
run "check hdiff np 2 as two nodes" env DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none -np 2 examples/hdiff --nx 67 --ny 300 --nz 5 --iters 20 --check
run "check hdiff_mpi np 2 p1" mpi2 examples/hdiff_mpi --nx 67 --ny 300 --nz 5 --iters 20 --prefetch 1 --check
cases=(
  "128x320x26|dcuda|hdiff|--nx 128 --ny 320 --nz 26"
  "128x320x26|dcuda before|hdiff_before|--nx 128 --ny 320 --nz 26"
  "128x320x26|mpi overlap t512|hdiff_mpi|--nx 128 --ny 320 --nz 26 --overlap --threads 512"
  "128x640x26|dcuda|hdiff|--nx 128 --ny 640 --nz 26"
  "128x640x26|dcuda before|hdiff_before|--nx 128 --ny 640 --nz 26"
  "128x640x26|mpi t512|hdiff_mpi|--nx 128 --ny 640 --nz 26 --threads 512"
  "512x2560x32|dcuda|hdiff|--nx 512 --ny 2560 --nz 32"
  "512x2560x32|dcuda before|hdiff_before|--nx 512 --ny 2560 --nz 32"
  "512x2560x32|mpi t128|hdiff_mpi|--nx 512 --ny 2560 --nz 32 --threads 128"
  "512x2560x32|mpi overlap t128|hdiff_mpi|--nx 512 --ny 2560 --nz 32 --threads 128 --overlap"
)
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 2 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
