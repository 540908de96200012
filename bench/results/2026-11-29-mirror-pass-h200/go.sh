#!/usr/bin/env bash
# Mirror pass A/B: checks, then ROUNDS alternated rounds, then traces.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP mirror pass against $(cat COMMIT_BEFORE)"
small=(--nx 301 --ny 203 --iters 50 --check)
run "check dcuda" ./aliev_panfilov "${small[@]}"
run "check dcuda ranks-x 1" ./aliev_panfilov "${small[@]}" --ranks-x 1 --ranks 60
run "check dcuda 37x29 threads 64" ./aliev_panfilov --nx 37 --ny 29 --iters 20 --check --threads 64
run "check baseline" ./aliev_panfilov_mpi "${small[@]}"
run "check baseline overlap" ./aliev_panfilov_mpi "${small[@]}" --overlap
run "check baseline stride" ./aliev_panfilov_mpi "${small[@]}" --walk stride
run "check baseline np2" mpirun --allow-run-as-root --bind-to none -np 2 ./aliev_panfilov_mpi "${small[@]}" --procs-x 2
for r in $(seq ${ROUNDS:-3}); do
  for s in ${SIZES:-2048 4096}; do
    csv=$o/ap-$s.csv
    named_row "$csv" now 1 ./aliev_panfilov --size $s --no-check
    named_row "$csv" before 1 ./aliev_panfilov_before --size $s --no-check
    named_row "$csv" mpi_now 1 ./aliev_panfilov_mpi --size $s --no-check
    named_row "$csv" mpi_before 1 ./aliev_panfilov_mpi_before --size $s --no-check
    named_row "$csv" mpi_stride 1 ./aliev_panfilov_mpi --size $s --no-check --walk stride
  done
done
medians "$o" | tee "$o/medians.txt"
if [ "${TRACE:-1}" = 1 ]; then
  mkdir -p /tmp/tr && export DCUDA_TRACE_SPANS=16384
  for v in aliev_panfilov aliev_panfilov_before; do
    DCUDA_TRACE=/tmp/tr/$v.json ./$v --size 2048 --iters 300 --no-check > /tmp/tr/$v.out 2>&1
    rm -f /tmp/tr/$v.svg; gzip -f /tmp/tr/$v.json
  done
  python3 trace-steps.py /tmp/tr > $o/steps.txt 2>&1
  python3 trace-skew.py /tmp/tr > $o/skew.txt 2>&1
fi
summary
