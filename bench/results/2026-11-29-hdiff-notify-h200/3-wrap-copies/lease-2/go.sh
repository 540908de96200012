#!/usr/bin/env bash
# hdiff: the periodic wrap's halo rows copied by the ranks themselves within
# one process (hdiff) against 1bf8472 (hdiff_a) and 228fabd (hdiff_before).
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff wrap copies (8 loads in flight; batch1: one) against 1bf8472 and 228fabd"
run "check default 67x150x5" ./hdiff --nx 67 --ny 150 --nz 5 --check
run "check 67x150x5 1 rank" ./hdiff --nx 67 --ny 150 --nz 5 --ranks 1 --check
run "check 67x150x5 2 ranks" ./hdiff --nx 67 --ny 150 --nz 5 --ranks 2 --threads 64 --check
run "check 67x150x5 7 ranks chunk 7 batch 2" ./hdiff --nx 67 --ny 150 --nz 5 --ranks 7 --threads 64 --chunk 7 --batch 2 --check
run "check 67x150x5 150 ranks batch 8" ./hdiff --nx 67 --ny 150 --nz 5 --ranks 150 --threads 128 --batch 8 --check
run "check 13x23x3 5 ranks of 32" ./hdiff --nx 13 --ny 23 --nz 3 --ranks 5 --threads 32 --check
run "check 128x320x26" ./hdiff --nx 128 --ny 320 --nz 26 --iters 50 --check
run "check 128x320x26 1024 threads" ./hdiff --nx 128 --ny 320 --nz 26 --iters 50 --threads 1024 --check
run "check 512x1280x32" ./hdiff --nx 512 --ny 1280 --nz 32 --iters 6 --check
for r in $(seq ${ROUNDS:-3}); do
  csv=$o/small.csv; g=(--nx 128 --ny 320 --nz 26)
  named_row "$csv" now 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" 1bf8472 1 ./hdiff_a "${g[@]}" --no-check
  named_row "$csv" batch1 1 ./hdiff_c1 "${g[@]}" --no-check
  named_row "$csv" before 1 ./hdiff_before "${g[@]}" --no-check
  named_row "$csv" mpi_512 1 ./hdiff_mpi_before "${g[@]}" --threads 512 --no-check
  csv=$o/big.csv; g=(--nx 512 --ny 1280 --nz 32)
  named_row "$csv" now 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" 1bf8472 1 ./hdiff_a "${g[@]}" --no-check
  named_row "$csv" batch1 1 ./hdiff_c1 "${g[@]}" --no-check
  named_row "$csv" before 1 ./hdiff_before "${g[@]}" --no-check
  named_row "$csv" mpi 1 ./hdiff_mpi_before "${g[@]}" --no-check
done
medians "$o" | tee "$o/medians.txt"
if [ "${TRACE:-1}" = 1 ]; then
  mkdir -p /tmp/tr && export DCUDA_TRACE_SPANS=16384
  DCUDA_TRACE=/tmp/tr/now.json ./hdiff --nx 128 --ny 320 --nz 26 --iters 100 --no-check > /dev/null 2>&1
  DCUDA_TRACE=/tmp/tr/1bf8472.json ./hdiff_a --nx 128 --ny 320 --nz 26 --iters 100 --no-check > /dev/null 2>&1
  rm -f /tmp/tr/*.svg; gzip -f /tmp/tr/*.json
  python3 trace-steps.py /tmp/tr laplacian > $o/steps.txt 2>&1
fi
summary
