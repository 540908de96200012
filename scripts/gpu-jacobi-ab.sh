#!/usr/bin/env bash
# Jacobi A/B on two GPUs: this build's `examples/jacobi` against
# `examples/jacobi_before` (an earlier commit's, COMMIT_BEFORE), with the
# nvcc kernel and the faster host-driven baseline in the same rounds, every
# program alternated ROUNDS times, sizes SIZES, process counts NPS ("2 1";
# "1" on one GPU). First the checks: the
# split-phase tests (tests/split_phase, one GPU), world_checks on two GPUs
# (direct and as two nodes) and Jacobi against its CPU reference on one
# and two GPUs. Rows go to $OUT/jacobi-ab.csv, medians to $OUT/medians.txt;
# TRACED adds traced runs (below). Bundle: the binaries, gpu-lib.sh,
# trace-steps.py and this script.
# Runs from the bundle's root on an nvidia-h200-x2 machine.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}
log=$o/log
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-4096 16384}
NPS=${NPS:-2 1}
two() { [[ " $NPS " == *" 2 "* ]]; } # whether NPS has two processes
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
mpi_program
gpu_header "jacobi A/B: $(cat COMMIT) against $(cat COMMIT_BEFORE 2>/dev/null)"
{ nvcc --version | tail -1; mpirun --version | head -1; } | tee -a "$log"
nvcc -O3 -arch=sm_90 -o /tmp/jacobi_single baselines/jacobi_single.cu >>"$log" 2>&1 &
nvcc_job=$!

if [ "${CHECKS:-1}" = 1 ]; then
  run "split-phase tests, one GPU" tests/split_phase --test-threads 1
  if two; then
    run "world_checks -np 2" mpi 2 examples/world_checks
    run "world_checks -np 2 as two nodes" env DCUDA_NODE=process mpi 2 examples/world_checks
  fi
  for n in $NPS; do
    run "check jacobi -np $n" mpi $n examples/jacobi --size 1026 --iters 100 --check
  done
  two && run "check jacobi -np 2 as two nodes" env DCUDA_NODE=process mpi 2 examples/jacobi --size 1026 --iters 100 --check
fi
wait "$nvcc_job"

csv=$o/jacobi-ab.csv
for round in $(seq "$ROUNDS"); do
  for size in $SIZES; do
    for n in $NPS; do
      named_row "$csv" "jacobi $size np $n" "$n" examples/jacobi --size "$size" --no-check
      named_row "$csv" "jacobi_before $size np $n" "$n" examples/jacobi_before --size "$size" --no-check
    done
    two && named_row "$csv" "jacobi_mpi --overlap $size np 2" 2 examples/jacobi_mpi --overlap --size "$size" --no-check
    [ -x /tmp/jacobi_single ] && named_row "$csv" "jacobi_single 1024 $size" 1 /tmp/jacobi_single --size "$size" --threads 1024
  done
done
medians "$o" | tee "$o/medians.txt"

# Traced runs (TRACED="BUILD:SIZE:NP ..."; 300 iterations, every span
# kept): per-step medians of trace-steps.py in $o/steps.txt.
t=/tmp/traces
rm -rf "$t" && mkdir -p "$t"
for spec in ${TRACED:-}; do
  IFS=: read -r b size n <<<"$spec"
  DCUDA_TRACE_SPANS=16384 DCUDA_TRACE="$t/$b-$size-np$n.json" mpi "$n" "examples/$b" --size "$size" --iters 300 --no-check >>"$log" 2>&1
  rm -f "$t/$b-$size-np$n.svg"
  gzip -f "$t/$b-$size-np$n.json"
done
[ -n "${TRACED:-}" ] && python3 trace-steps.py "$t" | tee "$o/steps.txt"
summary
