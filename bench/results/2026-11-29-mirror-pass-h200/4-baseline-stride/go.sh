#!/usr/bin/env bash
# Aliev-Panfilov's baseline by stride with the mirror pass (mpi_new) against
# its stride walk that mirrors as it stores (mpi_old, 950c14a), dcuda 950c14a beside.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP baseline stride + mirror pass"
small=(--nx 301 --ny 203 --iters 50 --check)
for b in "" "--batch 2" "--overlap" "--batch 4 --overlap"; do
  run "check stride $b" ./mpi_new "${small[@]}" --walk stride $b
done
run "check stride 37x29 blocks 5" ./mpi_new --nx 37 --ny 29 --iters 20 --check --walk stride --ranks 5 --threads 64
for r in $(seq ${ROUNDS:-3}); do
  for s in ${SIZES:-1024 2048 4096 8192}; do
    csv=$o/ap-$s.csv
    named_row "$csv" stride_mirror_pass 1 ./mpi_new --size $s --no-check --walk stride
    named_row "$csv" stride 1 ./mpi_old --size $s --no-check --walk stride
    named_row "$csv" claims 1 ./mpi_old --size $s --no-check
    named_row "$csv" dcuda 1 ./aliev_panfilov --size $s --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
