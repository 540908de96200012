#!/usr/bin/env bash
# Register caps that keep the ranks an SM: hdiff's small grid (320 ranks of
# 256 threads, three an SM at most, fit up to 80 registers) and
# Aliev–Panfilov's geometries of two and four ranks an SM.
cd "$(dirname "$0")/unpacked"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
e=examples
s="--nx 128 --ny 320 --nz 26"
for c in "--max-registers 80" "--max-registers 72"; do
  if timeout 120 $e/hdiff $s $c --iters 20 --check >> $log 2>&1; then echo "PASS hdiff $c" | tee -a $log; else echo "FAIL hdiff $c" | tee -a $log; fi
done
for c in "--ranks 264 --threads 512" "--ranks 528 --threads 256"; do
  if timeout 120 $e/aliev_panfilov --size 1000 --iters 300 $c --check >> $log 2>&1; then echo "PASS ap $c" | tee -a $log; else echo "FAIL ap $c" | tee -a $log; fi
done
cases=(
  "hdiff-small|default|hdiff|$s"
  "hdiff-small|cap 72|hdiff|$s --max-registers 72"
  "hdiff-small|cap 80|hdiff|$s --max-registers 80"
  "hdiff-small|264x256 cap 96|hdiff|$s --ranks 264 --threads 256 --max-registers 96"
  "hdiff-small|baseline 512|hdiff_mpi|$s --threads 512"
  "ap2048|default|aliev_panfilov|--size 2048"
  "ap2048|264x512|aliev_panfilov|--size 2048 --ranks 264 --threads 512"
  "ap2048|528x256|aliev_panfilov|--size 2048 --ranks 528 --threads 256"
  "ap2048|baseline stride|aliev_panfilov_mpi|--size 2048 --walk stride"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "$e/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
grep -h FAIL $log $o/log 2>/dev/null | head
