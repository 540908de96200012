#!/usr/bin/env bash
# Jacobi and Aliev-Panfilov: this build against X_before, alternated 3 times.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
cases=("aliev_panfilov|--size 2048" "aliev_panfilov|--size 4096" "jacobi|--size 4096" "jacobi|--size 16384")
for r in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r prog opts <<<"$c"
    for v in "" _before; do
      named_row "$o/$prog.csv" "$prog$v $opts np 1" 1 examples/$prog$v $opts --no-check
    done
  done
done
medians "$o" | tee "$o/medians.txt"
examples/aliev_panfilov --size 301 --iters 50 --check 2>&1 | tail -1
examples/jacobi --size 1026 --iters 100 --check 2>&1 | tail -1
