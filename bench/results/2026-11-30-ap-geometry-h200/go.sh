#!/usr/bin/env bash
# Aliev–Panfilov's rank geometry on one H200: threads per rank, the
# register cap and the batch, against the default and the faster baseline
# in every round (device-clock seconds of 1000 steps).
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}/apsweep && mkdir -p "$o"
log=$o/log
. ./gpu-lib.sh
gpu_env
mpi_program
gpu_header "AP geometry sweep: $(cat COMMIT)"
run "check default" examples/aliev_panfilov --size 301 --iters 50 --check
run "check 512x128" examples/aliev_panfilov --size 301 --iters 50 --check --threads 512 --max-registers 128
run "check 512x128 batch 2" examples/aliev_panfilov --size 301 --iters 50 --check --threads 512 --max-registers 128 --batch 2
run "check 1024 batch 2" examples/aliev_panfilov --size 301 --iters 50 --check --batch 2
configs=(
  "default|"
  "t512 r128|--threads 512 --max-registers 128"
  "t512 r128 b2|--threads 512 --max-registers 128 --batch 2"
  "t512 r96|--threads 512 --max-registers 96"
  "t1024 b2|--batch 2"
  "t256 r255|--threads 256 --max-registers 255"
)
for round in 1 2 3; do
  for size in 2048 4096; do
    base=""; [ $size = 2048 ] && base="--walk stride"
    for c in "${configs[@]}"; do
      IFS='|' read -r name opts <<<"$c"
      # shellcheck disable=SC2086
      named_row "$o/ap.csv" "dcuda $name $size" 1 examples/aliev_panfilov --size $size $opts --no-check
    done
    # shellcheck disable=SC2086
    named_row "$o/ap.csv" "baseline $size" 1 examples/aliev_panfilov_mpi --size $size $base --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
