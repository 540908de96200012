#!/usr/bin/env bash
# Horizontal diffusion on one GPU: the dcuda version and the host-driven
# baselines (plain and overlapped), each REPS times per grid, every row into
# $OUT/hdiff/hdiff.csv; then a traced dcuda run for the breakdown (compute,
# communication, waiting) under $OUT/hdiff/trace. Correctness on the GPU: a
# small grid checked bitwise against the CPU reference by every variant
# first. Runs from the bundle's root on the GPU machine, after gpu-pack.sh.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}/hdiff
mkdir -p "$out"
log=$out/hdiff.log
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
REPS=${REPS:-5}
# nx:ny:nz — the seed's grid a GPU, and it scaled for an H100/H200 (4 × 4 ×
# 1.25, the default) and once more (2 × 2).
GRIDS=${GRIDS:-128:320:26 512:1280:32 1024:2560:32}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
{
  echo "dcuda hdiff, commit $(cat COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
} | tee "$log"

for v in "examples/hdiff" "examples/hdiff_mpi" "examples/hdiff_mpi --overlap"; do
  run "check $v" $v --nx 67 --ny 150 --nz 5 --iters 20 --check
done

csv=$out/hdiff.csv
echo "program,backend,processes,units,threads,nx,ny,nz,iters,seconds,check,batch,max_registers,chunk" > "$csv"
for grid in $GRIDS; do
  IFS=: read -r nx ny nz <<< "$grid"
  size=(--nx "$nx" --ny "$ny" --nz "$nz" --no-check)
  for rep in $(seq "$REPS"); do
    measure "hdiff $grid" examples/hdiff "${size[@]}"
    measure "hdiff_mpi $grid" examples/hdiff_mpi "${size[@]}"
    measure "hdiff_mpi --overlap $grid" examples/hdiff_mpi --overlap "${size[@]}"
  done
done
# The breakdown: every span of the default grid's 200 iterations (nine an
# iteration a rank).
run "traced hdiff" env DCUDA_TRACE="$out/trace/hdiff.json" DCUDA_TRACE_SPANS=4096 examples/hdiff --no-check
summary
