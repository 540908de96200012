#!/usr/bin/env bash
# hdiff's --dlcm (where plain global loads are cached, compiled at load):
# the rank program's new default (cg, L2 only) against ca and against HEAD
# (_before, which loads with ca), and the baseline with both; one H200.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff --dlcm: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for d in ca cg; do
  run "check $d" examples/hdiff --nx 67 --ny 150 --nz 5 --dlcm $d --check
  run "check $d t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --dlcm $d --check
  run "check mpi $d" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --dlcm $d --check
  run "check mpi bands $d" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --ranks 7 --dlcm $d --check
done
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "big|dcuda|hdiff|$big"
  "big|dcuda ca|hdiff|$big --dlcm ca"
  "big|before|hdiff_before|$big"
  "big|dcuda c2048|hdiff|$big --chunk 2048"
  "big|dcuda c8192|hdiff|$big --chunk 8192"
  "big|dcuda b2|hdiff|$big --batch 2"
  "big|mpi t128|hdiff_mpi|$big --threads 128"
  "big|mpi t128 cg|hdiff_mpi|$big --threads 128 --dlcm cg"
  "big|mpi t128 before|hdiff_mpi_before|$big --threads 128"
  "big|mpi t256 cg|hdiff_mpi|$big --threads 256 --dlcm cg"
  "small|dcuda|hdiff|$small"
  "small|dcuda ca|hdiff|$small --dlcm ca"
  "small|before|hdiff_before|$small"
  "small|dcuda t512|hdiff|$small --threads 512"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "small|mpi t512 cg|hdiff_mpi|$small --threads 512 --dlcm cg"
  "small|mpi t256 cg|hdiff_mpi|$small --threads 256 --dlcm cg"
  "small|mpi t128 cg|hdiff_mpi|$small --threads 128 --dlcm cg"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
summary
