#!/usr/bin/env bash
# hdiff: the rank kernel's three stages out of line (hdiff) against 1bf8472 (hdiff_a).
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff stages out of line against 1bf8472"
run "check default 67x150x5" ./hdiff --nx 67 --ny 150 --nz 5 --check
run "check 128x320x26" ./hdiff --nx 128 --ny 320 --nz 26 --iters 50 --check
for r in $(seq ${ROUNDS:-3}); do
  csv=$o/small.csv; g=(--nx 128 --ny 320 --nz 26)
  named_row "$csv" apart 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" 1bf8472 1 ./hdiff_a "${g[@]}" --no-check
  named_row "$csv" mpi_512 1 ./hdiff_mpi_before "${g[@]}" --threads 512 --no-check
  csv=$o/big.csv; g=(--nx 512 --ny 1280 --nz 32)
  named_row "$csv" apart 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" 1bf8472 1 ./hdiff_a "${g[@]}" --no-check
  named_row "$csv" mpi 1 ./hdiff_mpi_before "${g[@]}" --no-check
done
medians "$o" | tee "$o/medians.txt"
summary
