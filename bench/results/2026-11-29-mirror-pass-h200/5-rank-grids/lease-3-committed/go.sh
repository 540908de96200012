#!/usr/bin/env bash
# Aliev-Panfilov with the new default rank grid (tiles about 4:1): checks,
# then the default against the old one (--ranks-x 12) and both baselines.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP default rank grid 4:1"
small=(--nx 301 --ny 203 --iters 50 --check)
run "check default" ./aliev_panfilov "${small[@]}"
run "check 1000x1000 300 steps" ./aliev_panfilov --size 1000 --iters 300 --check
run "check 517x263 528 ranks of 256" ./aliev_panfilov --nx 517 --ny 263 --iters 100 --threads 256 --ranks 528 --check
for r in $(seq ${ROUNDS:-3}); do
  for s in 2048 4096 8192; do
    csv=$o/ap-$s.csv
    named_row "$csv" default 1 ./aliev_panfilov --size $s --no-check
    named_row "$csv" x12 1 ./aliev_panfilov --size $s --ranks-x 12 --no-check
    named_row "$csv" mpi_stride 1 ./aliev_panfilov_mpi --size $s --walk stride --no-check
    named_row "$csv" mpi_claims 1 ./aliev_panfilov_mpi --size $s --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
