#!/usr/bin/env bash
# hdiff's walks (issue 13): the dcuda program (its ranks walk across
# their rows; the chunks are the baseline's) and its baseline against
# the same programs before a change (`*_before`),
# alternated REPS times, on one GPU and across two where there are two;
# every row into $OUT/chunk/*.csv, medians into $OUT/chunk/log. Checks
# first: variants against the CPU reference on a small grid.
#   GEOMETRY=1: also threads, register caps and batches of both programs.
#   TRACES=1: also a traced dcuda run of each one-GPU grid (the breakdown).
# Bundle (here): target/release/{hdiff,hdiff_mpi}, an earlier commit's as
# hdiff_before and hdiff_mpi_before, this script and gpu-lib.sh; there:
# bash gpu-hdiff-chunk.sh from the bundle's root.
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}/chunk
mkdir -p "$o"
log=$o/log
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff chunks, commit $(cat COMMIT)"
REPS=${REPS:-2}
gpus=$(nvidia-smi -L | wc -l)

small=(--nx 67 --ny 150 --nz 5 --iters 20 --check)
run "check hdiff 7 ranks walked across" ./hdiff "${small[@]}" --ranks 7
run "check hdiff 150 ranks of one row" ./hdiff "${small[@]}" --threads 256 --ranks 150
run "check hdiff_mpi 20 blocks chunk 100" ./hdiff_mpi "${small[@]}" --ranks 20 --chunk 100
[ "$gpus" -ge 2 ] && run "check hdiff -np 2, 7 ranks" mpirun --allow-run-as-root --bind-to none -np 2 ./hdiff "${small[@]}" --ranks 7

for rep in $(seq "$REPS"); do
  for grid in "512 1280 32" "128 320 26"; do
    read -r nx ny nz <<< "$grid"
    g=(--nx "$nx" --ny "$ny" --nz "$nz" --no-check)
    csv=$o/one-$nx.csv
    named_row "$csv" before 1 ./hdiff_before "${g[@]}"
    named_row "$csv" new 1 ./hdiff "${g[@]}"
    named_row "$csv" baseline-before 1 ./hdiff_mpi_before "${g[@]}"
    named_row "$csv" baseline 1 ./hdiff_mpi "${g[@]}"
    named_row "$csv" baseline-t512 1 ./hdiff_mpi "${g[@]}" --threads 512
    if [ -n "${GEOMETRY:-}" ]; then
      for geo in "512 64" "512 40" "256 64" "256 40" "128 40"; do
        read -r t r <<< "$geo"
        named_row "$csv" "new-t$t-r$r" 1 ./hdiff "${g[@]}" --threads "$t" --max-registers "$r"
      done
      for t in 256 1024; do
        for b in 1 2; do
          named_row "$csv" "baseline-t$t-b$b" 1 ./hdiff_mpi "${g[@]}" --threads "$t" --batch "$b"
        done
      done
    fi
  done
  if [ "$gpus" -ge 2 ]; then
    for grid in "512 2560 32" "128 640 26" "128 320 26"; do
      read -r nx ny nz <<< "$grid"
      g=(--nx "$nx" --ny "$ny" --nz "$nz" --no-check)
      csv=$o/two-$nx-$ny.csv
      named_row "$csv" before 2 ./hdiff_before "${g[@]}"
      named_row "$csv" new 2 ./hdiff "${g[@]}"
      named_row "$csv" baseline 2 ./hdiff_mpi "${g[@]}"
      named_row "$csv" baseline-t512 2 ./hdiff_mpi "${g[@]}" --threads 512
      named_row "$csv" baseline-overlap 2 ./hdiff_mpi "${g[@]}" --overlap
      named_row "$csv" baseline-overlap-t512 2 ./hdiff_mpi "${g[@]}" --overlap --threads 512
    done
  fi
done
if [ -n "${TRACES:-}" ]; then
  # Where a rank's time goes (compute, calls, waits), one GPU.
  export DCUDA_TRACE_SPANS=4096
  for grid in "512 1280 32" "128 320 26"; do
    read -r nx ny nz <<< "$grid"
    traced_row "trace-$nx" "$o/traced.csv" "traced-$nx" 1 ./hdiff --nx "$nx" --ny "$ny" --nz "$nz" --no-check
  done
fi
medians "$o" | tee -a "$log"
summary
