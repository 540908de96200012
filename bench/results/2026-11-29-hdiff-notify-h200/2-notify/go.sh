#!/usr/bin/env bash
# hdiff: notifications instead of in-place puts within a process (A/B
# against 228fabd); Aliev–Panfilov c97d798 against 950c14a.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff notifications within a process against 228fabd; AP c97d798 against 950c14a"
run "check default 67x150x5" ./hdiff --nx 67 --ny 150 --nz 5 --check
run "check 67x150x5 1 rank" ./hdiff --nx 67 --ny 150 --nz 5 --ranks 1 --check
run "check 67x150x5 2 ranks" ./hdiff --nx 67 --ny 150 --nz 5 --ranks 2 --threads 64 --check
run "check 13x23x3 5 ranks of 32" ./hdiff --nx 13 --ny 23 --nz 3 --ranks 5 --threads 32 --check
run "check 128x320x26" ./hdiff --nx 128 --ny 320 --nz 26 --iters 50 --check
run "check 512x1280x32" ./hdiff --nx 512 --ny 1280 --nz 32 --iters 6 --check
run "check AP c97d798" ./ap_c97d798 --nx 301 --ny 203 --iters 50 --check
for r in $(seq ${ROUNDS:-3}); do
  csv=$o/small.csv; g=(--nx 128 --ny 320 --nz 26)
  named_row "$csv" now 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" before 1 ./hdiff_before "${g[@]}" --no-check
  named_row "$csv" mpi_512 1 ./hdiff_mpi_before "${g[@]}" --threads 512 --no-check
  csv=$o/big.csv; g=(--nx 512 --ny 1280 --nz 32)
  named_row "$csv" now 1 ./hdiff "${g[@]}" --no-check
  named_row "$csv" before 1 ./hdiff_before "${g[@]}" --no-check
  named_row "$csv" mpi 1 ./hdiff_mpi_before "${g[@]}" --no-check
  for s in 2048 4096; do
    named_row "$o/ap-$s.csv" c97d798 1 ./ap_c97d798 --size $s --no-check
    named_row "$o/ap-$s.csv" 950c14a 1 ./ap_950c14a --size $s --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
if [ "${TRACE:-1}" = 1 ]; then
  mkdir -p /tmp/tr && export DCUDA_TRACE_SPANS=16384
  DCUDA_TRACE=/tmp/tr/now.json ./hdiff --nx 128 --ny 320 --nz 26 --iters 100 --no-check > /dev/null 2>&1
  DCUDA_TRACE=/tmp/tr/before.json ./hdiff_before --nx 128 --ny 320 --nz 26 --iters 100 --no-check > /dev/null 2>&1
  rm -f /tmp/tr/*.svg; gzip -f /tmp/tr/*.json
  python3 trace-steps.py /tmp/tr laplacian > $o/steps.txt 2>&1
fi
summary
