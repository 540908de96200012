#!/usr/bin/env bash
# Aliev-Panfilov on two GPUs: dcuda and the baselines with processes unbound
# (as gpu-multi.sh runs them) and bound to their NUMA node, alternated,
# three rounds; rows to $OUT/ap-SIZE.csv, medians to $OUT/medians.txt.
# Bundle: examples/aliev_panfilov_before (the dcuda build to time) and
# examples/aliev_panfilov_mpi, gpu-lib.sh and this script.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}
log=$o/log
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
gpu_header "Aliev-Panfilov, processes bound and unbound"
nvidia-smi topo -m > "$o/topo.txt" 2>&1
for size in 2048 4096; do
  csv=$o/ap-$size.csv
  for r in 1 2 3; do
    for b in none numa; do
      BIND=$b named_row "$csv" "dcuda $b" 2 examples/aliev_panfilov_before --size "$size" --no-check
    done
    for b in none numa; do
      BIND=$b named_row "$csv" "mpi $b" 2 examples/aliev_panfilov_mpi --size "$size" --no-check
      BIND=$b named_row "$csv" "mpi --overlap $b" 2 examples/aliev_panfilov_mpi --size "$size" --no-check --overlap
    done
  done
done
medians "$o" | tee "$o/medians.txt"
