#!/usr/bin/env bash
# Trace cost, alternated: base and new builds, untraced and traced.
export DCUDA_BACKEND=gpu
one() { # name args...
  local b=$1; shift
  for t in plain traced; do
    if [ $t = traced ]; then
      line=$(DCUDA_TRACE=/tmp/t.json DCUDA_TRACE_SPANS=16384 ./$b "$@" --no-check --csv 2>/dev/null | tail -1)
    else
      line=$(./$b "$@" --no-check --csv 2>/dev/null | tail -1)
    fi
    echo "$b $t $line"
  done
}
for r in 1 2 3; do
  for v in base new; do one jacobi-$v --size 4096; done
done
for r in 1 2; do
  for v in base new; do one hdiff-$v; one aliev_panfilov-$v --nx 4096 --ny 4096; done
done
