#!/usr/bin/env bash
# The rank kernels JIT-compiled with the global loads' default cache
# operator set to .cg (L2 only; CU_JIT_CACHE_MODE, an experiment's
# environment variable DCUDA_EXP_JIT_CACHE read by the *_cm builds) against
# the default (.ca), so that L1 keeps the stack; hdiff and Aliev-Panfilov,
# one H200, at HEAD.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "JIT cache mode: $(head -n 1 COMMIT)"
run "check hdiff cg" env DCUDA_EXP_JIT_CACHE=cg examples/hdiff_cm --nx 67 --ny 150 --nz 5 --check
run "check ap cg" env DCUDA_EXP_JIT_CACHE=cg examples/aliev_panfilov_cm --nx 301 --ny 203 --iters 50 --check
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|head|hdiff|$big"
  "big|cm none|hdiff_cm|$big"
  "big|cg|env DCUDA_EXP_JIT_CACHE=cg examples/hdiff_cm|$big"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "small|head|hdiff|$small"
  "small|cg|env DCUDA_EXP_JIT_CACHE=cg examples/hdiff_cm|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "ap2048|head|aliev_panfilov|--size 2048"
  "ap2048|cg|env DCUDA_EXP_JIT_CACHE=cg examples/aliev_panfilov_cm|--size 2048"
  "ap4096|head|aliev_panfilov|--size 4096"
  "ap4096|cg|env DCUDA_EXP_JIT_CACHE=cg examples/aliev_panfilov_cm|--size 4096"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    case $prog in env*) cmd=($prog) ;; *) cmd=("examples/$prog") ;; esac
    named_row "$o/$grid.csv" "$name" 1 "${cmd[@]}" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
