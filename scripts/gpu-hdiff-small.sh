#!/usr/bin/env bash
# hdiff at the seed's grid a GPU (GRID, default 128 320 26) on one GPU:
# each dcuda geometry of CONFIGS (';'-separated options; "" the default)
# and the baseline (plain, 512 threads a block: its fastest there) ROUNDS
# times alternated, rows to $OUT/small.csv, medians to $OUT/medians.txt;
# then one traced dcuda run per TRACED config index (default 0; empty:
# none), every
# span kept, its per-step medians (trace-steps.py, steps from 'laplacian')
# in $OUT/steps.txt. Bundle: examples/hdiff, examples/hdiff_mpi,
# gpu-lib.sh, trace-steps.py and this script. SUB: a subfolder of $OUT.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}${SUB:+/$SUB}
mkdir -p "$o"
log=$o/log
ROUNDS=${ROUNDS:-2}
read -r nx ny nz <<<"${GRID:-128 320 26}"
CONFIGS=${CONFIGS:-}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff small grid: $(cat COMMIT), ${nx}x${ny}x${nz}"
grid=(--nx "$nx" --ny "$ny" --nz "$nz")
IFS=';' read -r -a configs <<<"$CONFIGS"
[ "${#configs[@]}" -gt 0 ] || configs=("")
# shellcheck disable=SC2086
examples/hdiff "${grid[@]}" --iters 10 ${configs[0]} >>"$log" 2>&1
csv=$o/small.csv
for round in $(seq "$ROUNDS"); do
  for cfg in "${configs[@]}"; do
    # shellcheck disable=SC2086
    named_row "$csv" "hdiff ${cfg:-default}" 1 examples/hdiff "${grid[@]}" --no-check $cfg
  done
  named_row "$csv" "hdiff_mpi --threads 512" 1 examples/hdiff_mpi "${grid[@]}" --no-check --threads 512
done
medians "$o" | tee "$o/medians.txt"
t=/tmp/traces
rm -rf "$t" && mkdir -p "$t"
for i in ${TRACED-0}; do
  # shellcheck disable=SC2086
  DCUDA_TRACE_SPANS=16384 DCUDA_TRACE="$t/hdiff-$i.json" examples/hdiff "${grid[@]}" --iters 100 --no-check ${configs[$i]} >>"$log" 2>&1
  rm -f "$t/hdiff-$i.svg"
  gzip -f "$t/hdiff-$i.json"
done
[ -n "${TRACED-0}" ] && python3 trace-steps.py "$t" laplacian | tee "$o/steps.txt"
