#!/usr/bin/env bash
# hdiff and AP with a register cap that fits two ranks of 1024 threads an SM
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
h=examples/hdiff
big="--nx 512 --ny 1280 --nz 32"
timeout 120 $h $big --max-registers 32 --threads 1024 --ranks 264 --level-groups 8 --iters 4 --check >> $log 2>&1 && echo "check cap32 g8 ok" | tee -a $log
timeout 120 examples/aliev_panfilov --size 1000 --iters 300 --max-registers 32 --ranks 264 --check >> $log 2>&1 && echo "check ap cap32 ok" | tee -a $log
cases=(
  "big|default|hdiff|$big"
  "big|g4|hdiff|$big --level-groups 4"
  "big|cap32 264x1024|hdiff|$big --max-registers 32 --threads 1024 --ranks 264"
  "big|cap32 264x1024 g8|hdiff|$big --max-registers 32 --threads 1024 --ranks 264 --level-groups 8"
  "big|cap32 528x512 g16|hdiff|$big --max-registers 32 --threads 512 --ranks 528 --level-groups 16"
  "big|cap40 396x512 g3|hdiff|$big --max-registers 40 --threads 512 --ranks 396 --level-groups 3"
  "big|cap32 264x1024 g8 b2|hdiff|$big --max-registers 32 --threads 1024 --ranks 264 --level-groups 8 --batch 2"
  "big|baseline_before|hdiff_mpi_before|$big"
  "ap2048|default|aliev_panfilov|--size 2048"
  "ap2048|cap32 264|aliev_panfilov|--size 2048 --max-registers 32 --ranks 264"
  "ap2048|cap40 396x512|aliev_panfilov|--size 2048 --max-registers 40 --ranks 396 --threads 512"
  "ap2048|baseline stride|aliev_panfilov_mpi|--size 2048 --walk stride"
  "ap4096|default|aliev_panfilov|--size 4096"
  "ap4096|cap32 264|aliev_panfilov|--size 4096 --max-registers 32 --ranks 264"
  "ap4096|baseline|aliev_panfilov_mpi|--size 4096"
)
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
grep -h "FAIL" $o/log | head; tail -5 $o/err.log
