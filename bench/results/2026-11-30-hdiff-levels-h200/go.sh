#!/usr/bin/env bash
# hdiff's ranks by level groups on one GPU (bundle: gpu-pack-stencils.sh
# with EXTRA=scripts/gpu-hdiff-levels.sh): first the new build with level
# groups against the CPU reference, then ROUNDS alternated rounds of each
# geometry below, the build before and both baselines beside it,
# device-clock seconds; rows to $OUT/hdiff-*.csv, medians to
# $OUT/medians.txt. AP="..." adds Aliev–Panfilov variants
# (examples/aliev_panfilov{,_before,SUFFIX...}) at 2048² and 4096².
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}
log=$o/log
ROUNDS=${ROUNDS:-3}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
mpi_program
gpu_header "hdiff level groups: $(cat COMMIT) against $(cat COMMIT_BEFORE)"
h=examples/hdiff
run "check groups 5" $h --nx 67 --ny 150 --nz 5 --level-groups 5 --iters 20 --check
run "check small 520x256 g13" $h --nx 128 --ny 320 --nz 26 --ranks 520 --threads 256 --level-groups 13 --iters 10 --check
run "check small 130x1024 g2" $h --nx 128 --ny 320 --nz 26 --ranks 130 --threads 1024 --level-groups 2 --iters 10 --check
run "check big 132x1024 g4" $h --nx 512 --ny 1280 --nz 32 --level-groups 4 --iters 4 --check
run "check bands of one row" $h --nx 13 --ny 23 --nz 3 --threads 32 --level-groups 3 --iters 7 --check
for v in ${AP:-}; do
  run "check aliev_panfilov$v" examples/aliev_panfilov$v --size 301 --iters 50 --check
done
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
# csv|name|program|options
cases=(
  "small|default|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|g13 520x256|hdiff|$small --level-groups 13 --ranks 520 --threads 256"
  "small|g13 390x256|hdiff|$small --level-groups 13 --ranks 390 --threads 256"
  "small|g2 130x1024|hdiff|$small --level-groups 2 --ranks 130 --threads 1024"
  "small|g2 320x256|hdiff|$small --level-groups 2 --ranks 320 --threads 256"
  "small|baseline 512|hdiff_mpi|$small --threads 512"
  "small|baseline_before 512|hdiff_mpi_before|$small --threads 512"
  "big|default|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|g4 132x1024|hdiff|$big --level-groups 4"
  "big|g2 132x1024|hdiff|$big --level-groups 2"
  "big|baseline|hdiff_mpi|$big"
  "big|baseline_before|hdiff_mpi_before|$big"
)
for round in $(seq "$ROUNDS"); do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    # shellcheck disable=SC2086
    named_row "$o/hdiff-$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
  for v in ${AP:-}; do
    for s in 2048 4096; do
      named_row "$o/ap-$s.csv" "aliev_panfilov$v" 1 "examples/aliev_panfilov$v" --size $s --no-check
    done
  done
  if [ -n "${AP:-}" ]; then
    named_row "$o/ap-2048.csv" "aliev_panfilov_mpi stride" 1 examples/aliev_panfilov_mpi --size 2048 --walk stride --no-check
    named_row "$o/ap-4096.csv" "aliev_panfilov_mpi" 1 examples/aliev_panfilov_mpi --size 4096 --no-check
  fi
done
medians "$o" | tee "$o/medians.txt"
summary
