#!/usr/bin/env bash
# AP: the walk's unchanging arguments in shared memory (this build) against HEAD (_before)
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
for c in "--size 1000 --iters 300" "--nx 517 --ny 263 --ranks 528 --threads 256 --iters 200" "--size 301 --iters 101 --ranks-x 1" "--size 2048 --iters 40"; do
  run "check $c" examples/aliev_panfilov $c --check
done
cases=(
  "ap2048|new|aliev_panfilov|--size 2048"
  "ap2048|before|aliev_panfilov_before|--size 2048"
  "ap2048|mpi stride|aliev_panfilov_mpi_before|--size 2048 --walk stride"
  "ap4096|new|aliev_panfilov|--size 4096"
  "ap4096|before|aliev_panfilov_before|--size 4096"
  "ap4096|mpi|aliev_panfilov_mpi_before|--size 4096"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
