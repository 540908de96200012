#!/usr/bin/env bash
# Jacobi: notifications within a process (jacobi) against 228fabd
# (jacobi_before), the baselines and the nvcc kernel beside, one GPU.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "jacobi notifications within a process against 228fabd"
nvcc -O3 -arch=sm_90 -o /tmp/jacobi_single jacobi_single.cu > $o/nvcc.log 2>&1 || echo "nvcc failed" >> $log
run "check 1026" ./jacobi --size 1026 --iters 100 --check
run "check 1026 2 ranks" ./jacobi --size 1026 --iters 100 --ranks 2 --check
run "check 1026 1 rank" ./jacobi --size 1026 --iters 20 --ranks 1 --check
run "check 333x517 37 ranks of 64" ./jacobi --nx 333 --ny 517 --iters 50 --ranks 37 --threads 64 --check
for r in $(seq ${ROUNDS:-3}); do
  for s in 4096 16384; do
    csv=$o/jacobi-$s.csv
    named_row "$csv" now 1 ./jacobi --size $s --no-check
    named_row "$csv" before 1 ./jacobi_before --size $s --no-check
    named_row "$csv" mpi 1 ./jacobi_mpi --size $s --no-check
    named_row "$csv" mpi_overlap 1 ./jacobi_mpi --size $s --overlap --no-check
    named_row "$o/nvcc-$s.csv" nvcc_1024 1 /tmp/jacobi_single --size $s --threads 1024
  done
done
medians "$o" | tee "$o/medians.txt"
summary
