#!/usr/bin/env bash
# Aliev–Panfilov: the dcuda program and both baselines against the same
# programs of an earlier commit (`*_before`), alternated REPS times, on
# one GPU and across two where there are two; every row into
# /tmp/ap/*.csv, medians into /tmp/ap/log, all of it in $OUT/ap.tar.gz. Checks first: every variant
# against the CPU reference, bitwise, on a small grid.
#   SIZES: the square grids (default "4096 2048"); on two GPUs each is run
#   strong (N×N) and weak (N×2N).
#   TRACES=1: also a traced dcuda run of each one-GPU grid (the breakdown).
#   LAYOUTS="12 11 1": only traced one-GPU dcuda runs at each size with
#   these many ranks across (`--ranks-x`), the JSON kept (gzip); ITERS
#   steps if set. Raise DCUDA_TRACE_SPANS to keep every step.
# Bundle (here): target/release/{aliev_panfilov,aliev_panfilov_mpi}, the
# earlier commit's as *_before, this script and gpu-lib.sh; there:
# bash gpu-ap-ab.sh from the bundle's root.
set -uo pipefail
cd "$(dirname "$0")"
# Rows and logs in /tmp/ap, packed into $OUT/ap.tar.gz at the end (the
# device tool brings back a few files).
o=/tmp/ap
rm -rf "$o"
mkdir -p "$o"
log=$o/log
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
gpu_header "aliev_panfilov A/B, commit $(cat COMMIT)"
REPS=${REPS:-3}
SIZES=${SIZES:-4096 2048}
gpus=$(nvidia-smi -L | wc -l)

small=(--nx 301 --ny 203 --iters 50 --check)
for v in aliev_panfilov aliev_panfilov_mpi "aliev_panfilov_mpi --overlap"; do
  # shellcheck disable=SC2086
  run "check $v" ./$v "${small[@]}"
  # shellcheck disable=SC2086
  [ "$gpus" -ge 2 ] && run "check $v -np 2" mpirun --allow-run-as-root --bind-to none -np 2 ./$v "${small[@]}" --procs-x 1
  # shellcheck disable=SC2086
  [ "$gpus" -ge 2 ] && run "check $v -np 2 procs-x 2" mpirun --allow-run-as-root --bind-to none -np 2 ./$v "${small[@]}" --procs-x 2
done

if [ -n "${LAYOUTS:-}" ]; then
  for s in $SIZES; do
    for x in $LAYOUTS; do
      # shellcheck disable=SC2086
      DCUDA_TRACE=$o/layout-$s-x$x.json named_row "$o/layouts-$s.csv" "x$x" 1 ./aliev_panfilov --size "$s" --ranks-x "$x" --no-check ${ITERS:+--iters $ITERS}
      rm -f "$o/layout-$s-x$x.svg"
      gzip -f "$o/layout-$s-x$x.json"
    done
  done
  tar -czf "${OUT:-/tmp}/ap.tar.gz" -C /tmp ap
  summary
  exit
fi

# SUFFIXES: the builds to alternate, `now` this one, each other one the
# programs named with that suffix; `SUFFIX:dcuda` its dcuda program alone
# (a change that leaves the baselines as they were).
variants=()
for x in ${SUFFIXES:-now _before}; do
  only=${x#*:}
  x=${x%%:*}
  [ "$x" = now ] && x=
  variants+=("aliev_panfilov$x")
  [ "$only" = dcuda ] || variants+=("aliev_panfilov_mpi$x" "aliev_panfilov_mpi$x --overlap")
done
row_all() {
  local csv=$1 n=$2; shift 2
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    named_row "$csv" "${v// /}" "$n" ./$v "$@" --no-check
  done
}
for rep in $(seq "$REPS"); do
  for s in $SIZES; do
    row_all "$o/one-$s.csv" 1 --size "$s"
    if [ "$gpus" -ge 2 ]; then
      row_all "$o/two-$s.csv" 2 --size "$s" --procs-x 1
      row_all "$o/two-$s-weak.csv" 2 --nx "$s" --ny $((2 * s)) --procs-x 1
    fi
  done
done
if [ -n "${TRACES:-}" ]; then
  for s in $SIZES; do
    for v in "${variants[@]}"; do
      [[ $v = aliev_panfilov_mpi* ]] && continue
      traced_row "$v-$s" "$o/traced-$s.csv" "$v" 1 ./$v --size "$s" --no-check
    done
  done
fi
medians "$o" | tee -a "$log"
tar -czf "${OUT:-/tmp}/ap.tar.gz" -C /tmp ap
summary
