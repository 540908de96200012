#!/usr/bin/env bash
# hdiff: ranks share a process's points, not its rows (A/B against 228fabd).
# The build is ../../../experiments/hdiff-point-shares.patch on c97d798.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff point shares against 228fabd"
run "check default 67x150x5" ./hdiff --nx 67 --ny 150 --nz 5 --check
run "check 1024 threads 67x150x5" ./hdiff --nx 67 --ny 150 --nz 5 --threads 1024 --check
run "check 13x23x3 5 ranks of 32" ./hdiff --nx 13 --ny 23 --nz 3 --ranks 5 --threads 32 --check
run "check 128x320x26 1024 threads" ./hdiff --nx 128 --ny 320 --nz 26 --threads 1024 --iters 50 --check
run "check 128x320x26 512 threads" ./hdiff --nx 128 --ny 320 --nz 26 --threads 512 --iters 50 --check
run "check baseline 67x150x5" ./hdiff_mpi --nx 67 --ny 150 --nz 5 --check
run "check baseline 67x150x5 ranks 7" ./hdiff_mpi --nx 67 --ny 150 --nz 5 --ranks 7 --check
for r in $(seq ${ROUNDS:-3}); do
  csv=$o/small.csv; g=(--nx 128 --ny 320 --nz 26)
  named_row "$csv" now 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" now_1024 1 ./hdiff "${g[@]}" --threads 1024 --no-check
  named_row "$csv" now_512 1 ./hdiff "${g[@]}" --threads 512 --no-check
  named_row "$csv" before 1 ./hdiff_before "${g[@]}" --no-check
  named_row "$csv" mpi_512 1 ./hdiff_mpi "${g[@]}" --threads 512 --no-check
  named_row "$csv" mpi_before_512 1 ./hdiff_mpi_before "${g[@]}" --threads 512 --no-check
  csv=$o/big.csv; g=(--nx 512 --ny 1280 --nz 32)
  named_row "$csv" now 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" now_512 1 ./hdiff "${g[@]}" --threads 512 --no-check
  named_row "$csv" before 1 ./hdiff_before "${g[@]}" --no-check
  named_row "$csv" mpi 1 ./hdiff_mpi "${g[@]}" --no-check
  named_row "$csv" mpi_before 1 ./hdiff_mpi_before "${g[@]}" --no-check
done
medians "$o" | tee "$o/medians.txt"
if [ "${TRACE:-1}" = 1 ]; then
  mkdir -p /tmp/tr && export DCUDA_TRACE_SPANS=16384
  DCUDA_TRACE=/tmp/tr/now_1024.json ./hdiff --nx 128 --ny 320 --nz 26 --threads 1024 --iters 100 --no-check > /dev/null 2>&1
  DCUDA_TRACE=/tmp/tr/before.json ./hdiff_before --nx 128 --ny 320 --nz 26 --iters 100 --no-check > /dev/null 2>&1
  rm -f /tmp/tr/*.svg; gzip -f /tmp/tr/*.json
  python3 trace-steps.py /tmp/tr laplacian > $o/steps.txt 2>&1
fi
summary
