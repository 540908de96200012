#!/usr/bin/env bash
# Aliev-Panfilov asking ahead, on two H200s: checks across the GPUs, then
# issue 13's two-GPU grids against HEAD (_before) and the baselines.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP ahead on two GPUs: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for s in "" "--procs-x 2"; do
  run "check np 2 $s" mpirun --allow-run-as-root --bind-to none -np 2 examples/aliev_panfilov --nx 301 --ny 203 --iters 50 $s --check
  run "check mpi ahead np 2 $s" mpirun --allow-run-as-root --bind-to none -np 2 examples/aliev_panfilov_mpi --nx 301 --ny 203 --iters 50 --ahead $s --check
done
run "check np 2 as two nodes" env DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none -np 2 examples/aliev_panfilov --nx 301 --ny 203 --iters 50 --check
cases=(
  "2048|dcuda|aliev_panfilov|--size 2048"
  "2048|dcuda before|aliev_panfilov_before|--size 2048"
  "2048|mpi claims|aliev_panfilov_mpi|--size 2048"
  "2048|mpi claims overlap|aliev_panfilov_mpi|--size 2048 --overlap"
  "2048|mpi claims ahead overlap|aliev_panfilov_mpi|--size 2048 --overlap --ahead"
  "4096|dcuda|aliev_panfilov|--size 4096"
  "4096|dcuda before|aliev_panfilov_before|--size 4096"
  "4096|mpi claims|aliev_panfilov_mpi|--size 4096"
  "4096|mpi claims overlap|aliev_panfilov_mpi|--size 4096 --overlap"
  "4096|mpi claims ahead overlap|aliev_panfilov_mpi|--size 4096 --overlap --ahead"
)
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 2 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
