#!/usr/bin/env bash
# hdiff with a process's rows split among its ranks (blocks) by points
# instead of whole rows: the new build (hdiff, hdiff_mpi) against the
# commit before (*_before), at the seed's grid and the default one, at
# the rank geometries the split by rows left uneven. One H200. Round 1
# checks the small grid bitwise (its default); rounds 2 and 3 do not.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff split by points"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|dcuda|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|t1024|hdiff|$small --threads 1024"
  "small|t512|hdiff|$small --threads 512"
  "small|before t1024|hdiff_before|$small --threads 1024"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "small|mpi_before t512|hdiff_mpi_before|$small --threads 512"
  "small|mpi t512 r528|hdiff_mpi|$small --threads 512 --ranks 528"
  "small|mpi t256 r1056|hdiff_mpi|$small --threads 256 --ranks 1056"
  "small|mpi t128 r2112|hdiff_mpi|$small --threads 128 --ranks 2112"
  "big|dcuda|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|t512|hdiff|$big --threads 512"
  "big|mpi|hdiff_mpi|$big"
  "big|mpi_before|hdiff_mpi_before|$big"
)
for round in 1 2 3; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts $nc
  done
done
medians "$o" | tee "$o/medians.txt"
summary
