#!/usr/bin/env bash
# Trace cost of Jacobi on two GPUs, alternated: base and new builds.
export DCUDA_BACKEND=gpu
m() { mpirun --allow-run-as-root --bind-to none -np 2 -x DCUDA_BACKEND -x DCUDA_TRACE -x DCUDA_TRACE_SPANS "$@"; }
for r in 1 2 3; do
  for v in base new; do
    echo "jacobi-$v plain $(m ./jacobi-$v --size 4096 --no-check --csv 2>/dev/null | tail -1)"
    echo "jacobi-$v traced $(DCUDA_TRACE=/tmp/t2.json DCUDA_TRACE_SPANS=8192 m ./jacobi-$v --size 4096 --no-check --csv 2>/dev/null | tail -1)"
  done
done
