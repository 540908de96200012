#!/usr/bin/env bash
# hdiff and jacobi on one GPU: this build (examples/X), a second variant
# (examples/X_b) and examples/X_before,
# alternated ROUNDS times (default 3), device-clock seconds; rows to
# $OUT/PROGRAM.csv, medians to $OUT/medians.txt. Bundle: those programs,
# gpu-lib.sh and this script.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
ROUNDS=${ROUNDS:-3}
cases=("hdiff|--nx 128 --ny 320 --nz 26" "hdiff|--nx 512 --ny 1280 --nz 32" "jacobi|--size 4096" "jacobi|--size 16384")
for r in $(seq $ROUNDS); do
  for c in "${cases[@]}"; do
    IFS='|' read -r prog opts <<<"$c"
    for v in "" _b _before; do
      named_row "$o/$prog.csv" "$prog$v $opts np 1" 1 examples/$prog$v $opts --no-check
    done
  done
done
medians "$o" | tee "$o/medians.txt"
