#!/usr/bin/env bash
# The Aliev–Panfilov model on one GPU: the dcuda version and the host-driven
# baselines (plain and overlapped), each REPS times per grid, every row into
# $OUT/aliev_panfilov/aliev_panfilov.csv; then a traced dcuda run for the breakdown (compute,
# communication, waiting) under $OUT/aliev_panfilov/trace. Correctness on the GPU: a
# small grid checked bitwise against the CPU reference by every variant
# first. Runs from the bundle's root on the GPU machine, after gpu-pack.sh.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}/aliev_panfilov
mkdir -p "$out"
log=$out/aliev_panfilov.log
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
REPS=${REPS:-5}
# Square grids, 1000 steps each.
SIZES=${SIZES:-4096 16384}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
{
  echo "dcuda aliev_panfilov, commit $(cat COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
} | tee "$log"

for v in "examples/aliev_panfilov" "examples/aliev_panfilov_mpi" "examples/aliev_panfilov_mpi --overlap" "examples/aliev_panfilov_mpi --walk stride"; do
  run "check $v" $v --nx 301 --ny 203 --iters 50 --check
done

csv=$out/aliev_panfilov.csv
echo "program,backend,processes,procs_x,units,ranks_x,threads,nx,ny,iters,seconds,check,batch,max_registers,walk" > "$csv"
for size in $SIZES; do
  for rep in $(seq "$REPS"); do
    measure "aliev_panfilov $size" examples/aliev_panfilov --size "$size" --no-check
    measure "aliev_panfilov_mpi $size" examples/aliev_panfilov_mpi --size "$size" --no-check
    measure "aliev_panfilov_mpi --overlap $size" examples/aliev_panfilov_mpi --overlap --size "$size" --no-check
    measure "aliev_panfilov_mpi --walk stride $size" examples/aliev_panfilov_mpi --walk stride --size "$size" --no-check
  done
done
# The dcuda ranks in bands of rows (one rank across), as the baseline's
# blocks: how much of the gap is the 2D tiles' shorter rows.
for rep in $(seq "$REPS"); do
  measure "aliev_panfilov --ranks-x 1" examples/aliev_panfilov --ranks-x 1 --size 4096 --no-check
done
# The breakdown: every span of 1000 steps at 4096² (a few an iteration a
# rank).
run "traced aliev_panfilov" env DCUDA_TRACE="$out/trace/aliev_panfilov.json" DCUDA_TRACE_SPANS=8192 examples/aliev_panfilov --size 4096 --no-check
summary
