#!/usr/bin/env bash
# hdiff rank geometries at ede3a49 (hdiff_before) on one H200
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff geometries: $(cat COMMIT_BEFORE)"
h=examples/hdiff_before
run "check 128/40" $h --nx 67 --ny 150 --nz 5 --threads 128 --max-registers 40 --check
run "check 256/48" $h --nx 67 --ny 150 --nz 5 --threads 256 --max-registers 48 --check
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|default|hdiff_before|$big"
  "big|128/40|hdiff_before|$big --threads 128 --max-registers 40"
  "big|128/48|hdiff_before|$big --threads 128 --max-registers 48"
  "big|256/48|hdiff_before|$big --threads 256 --max-registers 48"
  "big|256/40|hdiff_before|$big --threads 256 --max-registers 40"
  "big|128/48 b2|hdiff_before|$big --threads 128 --max-registers 48 --batch 2"
  "big|mpi|hdiff_mpi_before|$big"
  "small|default|hdiff_before|$small"
  "small|128/40|hdiff_before|$small --threads 128 --max-registers 40"
  "small|256/48|hdiff_before|$small --threads 256 --max-registers 48"
  "small|mpi|hdiff_mpi_before|$small --threads 512"
)
for round in 1 2; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
