#!/usr/bin/env bash
# Aliev–Panfilov's border after the inside: checks, then the A/B.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/checks.log
. ./gpu-lib.sh
gpu_env
a=examples/aliev_panfilov
for c in "--size 1000 --iters 300" "--nx 517 --ny 263 --ranks 528 --threads 256 --iters 200" "--size 301 --iters 101 --ranks-x 1" "--nx 37 --ny 29 --ranks 1 --threads 64 --iters 50" "--size 2048 --iters 40"; do
  if timeout 120 $a $c --check >> $log 2>&1; then echo "PASS $c" | tee -a $log; else echo "FAIL $c" | tee -a $log; fi
done
OUT=$o ONLY=aliev_panfilov ROUNDS=${ROUNDS:-3} bash ./gpu-stencils-ab.sh 2>&1 | tail -8
