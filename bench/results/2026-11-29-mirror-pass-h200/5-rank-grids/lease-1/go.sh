#!/usr/bin/env bash
# Aliev-Panfilov (950c14a): the rank grid's shape at 2048² and 4096² (--ranks-x), baseline beside.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP rank grids, 950c14a"
for r in 1 2; do
  for s in 2048 4096; do
    for x in 1 4 6 11 12 22 33 66; do
      named_row "$o/ap-$s.csv" "x$x" 1 ./aliev_panfilov --size $s --ranks-x $x --no-check
    done
    named_row "$o/ap-$s.csv" default 1 ./aliev_panfilov --size $s --no-check
    named_row "$o/ap-$s.csv" mpi_stride 1 ./aliev_panfilov_mpi --size $s --walk stride --no-check
    named_row "$o/ap-$s.csv" mpi_claims 1 ./aliev_panfilov_mpi --size $s --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
