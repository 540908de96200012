#!/usr/bin/env bash
# The host-packing baseline again under none (its build had failed), then
# the whole comparison under cma once.
cd "$(dirname "$0")"
o=${OUT:-/tmp}
mkdir -p $o/none
nvcc -O2 -arch=sm_90 $(mpicc --showme:compile) baselines/host_packed_typed.cu -o /tmp/host_packed_typed $(mpicc --showme:link) || exit 1
for r in 1 2; do
  mpirun --allow-run-as-root --bind-to none --mca btl_vader_single_copy_mechanism none -np 2 /tmp/host_packed_typed 200 > $o/none/host-packed-$r.csv
done
SKIP_CHECKS=1 REPS=1 NO_TRACE=1 MECHS="cma" bash ./gpu-host-route.sh 2>&1 | tail -8
