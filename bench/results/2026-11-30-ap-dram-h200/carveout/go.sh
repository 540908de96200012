#!/usr/bin/env bash
# The rank kernels' L1/shared carveout: the driver's default against DCUDA_CARVEOUT=0 (most L1), this build (HEAD + the experiment's variable)
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "carveout: $(head -n 1 COMMIT)"
for c in "" 0 100; do
  ncu --metrics launch__shared_mem_config_size,launch__shared_mem_per_block_static --kernel-name regex:"^(aliev_panfilov|hdiff)$" --launch-count 1 env ${c:+DCUDA_CARVEOUT=$c} examples/aliev_panfilov --size 1000 --iters 10 --no-check 2>&1 | grep -E "shared_mem" | sed "s/^/carveout '$c': /" | tee -a $log
done
cases=(
  "ap2048|default|aliev_panfilov|--size 2048"
  "ap2048|carve0|aliev_panfilov|--size 2048|0"
  "ap2048|mpi stride|aliev_panfilov_mpi|--size 2048 --walk stride"
  "ap4096|default|aliev_panfilov|--size 4096"
  "ap4096|carve0|aliev_panfilov|--size 4096|0"
  "ap4096|mpi|aliev_panfilov_mpi|--size 4096"
  "hd-big|default|hdiff|--nx 512 --ny 1280 --nz 32"
  "hd-big|carve0|hdiff|--nx 512 --ny 1280 --nz 32|0"
  "hd-big|mpi|hdiff_mpi|--nx 512 --ny 1280 --nz 32"
  "hd-small|default|hdiff|--nx 128 --ny 320 --nz 26"
  "hd-small|carve0|hdiff|--nx 128 --ny 320 --nz 26|0"
  "hd-small|mpi|hdiff_mpi|--nx 128 --ny 320 --nz 26 --threads 512"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts carve <<<"$c"
    if [ -n "$carve" ]; then export DCUDA_CARVEOUT=$carve; else unset DCUDA_CARVEOUT; fi
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
unset DCUDA_CARVEOUT
medians "$o" | tee "$o/medians.txt"
