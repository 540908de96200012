#!/usr/bin/env bash
# Jacobi's rank geometries at one size on one and two GPUs: for each
# CONFIGS entry (options of examples/jacobi, ';'-separated; "" is the
# default), ROUNDS alternated runs on NPS processes, with the nvcc kernel
# at 1024 threads in every round. Rows go to $OUT/geometry.csv, medians to
# $OUT/medians.txt. Bundle: examples/jacobi, baselines/jacobi_single.cu,
# gpu-lib.sh and this script; runs from the bundle's root.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}
log=$o/log
ROUNDS=${ROUNDS:-2}
SIZE=${SIZE:-16384}
NPS=${NPS:-2 1}
CONFIGS=${CONFIGS:-;--threads 512 --max-registers 64;--threads 256;--threads 256 --max-registers 64;--threads 1024 --max-registers 64}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
gpu_header "jacobi geometries: $(cat COMMIT), size $SIZE"
nvcc -O3 -arch=sm_90 -o /tmp/jacobi_single baselines/jacobi_single.cu >>"$log" 2>&1
csv=$o/geometry.csv
IFS=';' read -r -a configs <<<"$CONFIGS"
for round in $(seq "$ROUNDS"); do
  for cfg in "${configs[@]}"; do
    for n in $NPS; do
      # shellcheck disable=SC2086
      named_row "$csv" "jacobi $SIZE np $n ${cfg:-default}" "$n" examples/jacobi --size "$SIZE" --no-check $cfg
    done
  done
  named_row "$csv" "jacobi_single 1024 $SIZE" 1 /tmp/jacobi_single --size "$SIZE" --threads 1024
done
medians "$o" | tee "$o/medians.txt"
