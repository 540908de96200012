#!/usr/bin/env bash
# The window entry read beside the peer search: gpu-ab.sh on both GPUs
# (bench_world, bench_typed, Jacobi, NVSHMEM's baselines), then the
# stencils on one GPU against the commit before.
cd "$(dirname "$0")"
o=${OUT:-/tmp}
REPS=2 bash ./gpu-ab.sh 2>&1 | tail -4
mkdir -p $o/stencils && OUT=$o/stencils ROUNDS=2 ONLY="hdiff aliev_panfilov" bash ./gpu-stencils-ab.sh 2>&1 | tail -12
