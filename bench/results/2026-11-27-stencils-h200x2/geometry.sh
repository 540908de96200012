#!/usr/bin/env bash
# Rank geometry of the stencils on one and two GPUs (after gpu-multi.sh, in
# the unpacked bundle): threads a rank and the register cap, each row
# against the default of the same run. Writes CSV rows to $1.
out=$1
m() { n=$1; shift; if [ "$n" = 1 ]; then "$@"; else mpirun --allow-run-as-root --bind-to none -np "$n" "$@"; fi 2>/dev/null | tail -1; }
for rep in 1; do
  for n in 1 2; do
    for g in "" "--threads 128 --max-registers 64" "--threads 128 --max-registers 40" "--threads 256 --max-registers 64"; do
      # shellcheck disable=SC2086
      echo "hdiff small np $n [$g],$(m $n examples/hdiff --nx 128 --ny 320 --nz 26 --no-check --csv $g)" >> "$out"
      # shellcheck disable=SC2086
      echo "hdiff large np $n [$g],$(m $n examples/hdiff --nx 512 --ny 1280 --nz 32 --no-check --csv $g)" >> "$out"
    done
    for g in "" "--threads 512"; do
      # shellcheck disable=SC2086
      echo "jacobi 4096 np $n [$g],$(m $n examples/jacobi --size 4096 --no-check --csv $g)" >> "$out"
    done
  done
done
