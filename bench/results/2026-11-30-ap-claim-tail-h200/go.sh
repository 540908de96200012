#!/usr/bin/env bash
# Aliev–Panfilov's claims with a tail of one-point claims
# (CLAIM_TAIL points a thread): the tree (2), _t1, _t4, _t8 and _before, each with its own
# baseline by claims; the stride baseline at 2048².
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
for v in "" _t1 _t4 _t8; do
  for c in "--size 1000 --iters 300" "--nx 517 --ny 263 --ranks 528 --threads 256 --iters 200" "--size 2048 --iters 40"; do
    if timeout 120 examples/aliev_panfilov$v $c --check >> $log 2>&1; then echo "PASS ap$v $c" | tee -a $log; else echo "FAIL ap$v $c" | tee -a $log; fi
  done
  if timeout 120 examples/aliev_panfilov_mpi$v --size 1000 --iters 300 --check >> $log 2>&1; then echo "PASS mpi$v" | tee -a $log; else echo "FAIL mpi$v" | tee -a $log; fi
done
for round in $(seq ${ROUNDS:-3}); do
  for s in 2048 4096; do
    for v in "" _before _t1 _t4 _t8; do
      named_row "$o/ap-$s.csv" "aliev_panfilov$v" 1 examples/aliev_panfilov$v --size $s --no-check
      named_row "$o/ap-$s.csv" "aliev_panfilov_mpi$v claims" 1 examples/aliev_panfilov_mpi$v --size $s --no-check
    done
    named_row "$o/ap-$s.csv" "aliev_panfilov_mpi stride" 1 examples/aliev_panfilov_mpi --size $s --walk stride --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
