#!/usr/bin/env bash
# A/B of the stencil applications on one GPU (NPS="1"; "1 2" adds two
# processes, one GPU each): each program of this build (examples/NAME)
# against examples/NAME_before, alternated ROUNDS times with the faster
# baseline in every round, device-clock seconds; rows to $OUT/PROGRAM.csv,
# medians to $OUT/medians.txt. First every new build against its CPU
# reference on small grids. Bundle: examples/{hdiff,aliev_panfilov,jacobi}
# with their _before and _mpi, gpu-lib.sh and this script. ONLY="hdiff
# jacobi" keeps the named programs alone (default all three); VARIANTS
# lists the suffixes run beside this build (default "_before"; "_b
# _before" adds examples/NAME_b); BASELINES=0 leaves out the baselines,
# CHECKS=0 the checks.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}
log=$o/log
ROUNDS=${ROUNDS:-2}
NPS=${NPS:-1}
ONLY=${ONLY:-hdiff aliev_panfilov jacobi}
wanted() { [[ " $ONLY " == *" $1 "* ]]; }
VARIANTS=${VARIANTS:-_before}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
mpi_program
gpu_header "stencils A/B: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
[ "${CHECKS:-1}" = 1 ] && for n in $NPS; do
  wanted hdiff && run "check hdiff np $n" mpi "$n" examples/hdiff --nx 67 --ny 150 --nz 5 --check
  wanted aliev_panfilov && run "check aliev_panfilov np $n" mpi "$n" examples/aliev_panfilov --size 301 --iters 50 --check
  wanted jacobi && run "check jacobi np $n" mpi "$n" examples/jacobi --size 1026 --iters 100 --check
done
# name|options|baseline options
cases=(
  "hdiff|--nx 128 --ny 320 --nz 26|--threads 512"
  "hdiff|--nx 512 --ny 1280 --nz 32|"
  "aliev_panfilov|--size 2048|--walk stride"
  "aliev_panfilov|--size 4096|"
  "jacobi|--size 4096|--overlap"
  "jacobi|--size 16384|--overlap"
)
for round in $(seq "$ROUNDS"); do
  for c in "${cases[@]}"; do
    IFS='|' read -r prog opts base <<<"$c"
    wanted "$prog" || continue
    csv=$o/$prog.csv # one a program: their columns differ
    for n in $NPS; do
      # shellcheck disable=SC2086
      named_row "$csv" "$prog $opts np $n" "$n" "examples/$prog" $opts --no-check
      for v in $VARIANTS; do
        # shellcheck disable=SC2086
        named_row "$csv" "$prog$v $opts np $n" "$n" "examples/$prog$v" $opts --no-check
      done
      [ "${BASELINES:-1}" = 1 ] || continue
      # shellcheck disable=SC2086
      named_row "$csv" "${prog}_mpi $opts $base np $n" "$n" "examples/${prog}_mpi" $opts $base --no-check
    done
  done
done
medians "$o" | tee "$o/medians.txt"
summary
