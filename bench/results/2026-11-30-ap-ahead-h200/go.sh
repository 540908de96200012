#!/usr/bin/env bash
# Aliev-Panfilov: the claims walk asking for each next chunk's lines in L1
# (the rank kernel always; the baseline with --ahead), against HEAD
# (_before) and the baseline's walks, one H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP ahead: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
run "check" examples/aliev_panfilov --size 301 --iters 50 --check
run "check t32" examples/aliev_panfilov --nx 37 --ny 29 --threads 32 --iters 20 --check
run "check mpi ahead" examples/aliev_panfilov_mpi --size 301 --iters 50 --ahead --check
cases=(
  "2048|dcuda|aliev_panfilov|--size 2048"
  "2048|dcuda before|aliev_panfilov_before|--size 2048"
  "2048|mpi stride|aliev_panfilov_mpi|--size 2048 --walk stride"
  "2048|mpi claims|aliev_panfilov_mpi|--size 2048"
  "2048|mpi claims ahead|aliev_panfilov_mpi|--size 2048 --ahead"
  "4096|dcuda|aliev_panfilov|--size 4096"
  "4096|dcuda before|aliev_panfilov_before|--size 4096"
  "4096|mpi stride|aliev_panfilov_mpi|--size 4096 --walk stride"
  "4096|mpi claims|aliev_panfilov_mpi|--size 4096"
  "4096|mpi claims ahead|aliev_panfilov_mpi|--size 4096 --ahead"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
