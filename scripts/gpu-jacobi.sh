#!/usr/bin/env bash
# Jacobi 2D on one GPU: the dcuda version, the host-driven baselines (plain
# and overlapped) and the nvcc single-GPU kernel, each REPS times per size,
# every row into $OUT/jacobi/jacobi.csv; then a traced dcuda run (its
# timeline and summary under $OUT/jacobi/trace) and as many untraced ones
# beside it for the cost of tracing. Correctness on the GPU: a small grid
# checked against the CPU reference by every variant first.
# Runs from the bundle's root on the GPU machine, after gpu-pack.sh.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}/jacobi
mkdir -p "$out"
log=$out/jacobi.log
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
REPS=${REPS:-5}
SIZES=${SIZES:-4096 16384}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
{
  echo "dcuda jacobi, commit $(cat COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
} | tee "$log"

run "build jacobi_single (nvcc)" nvcc -O3 -arch=sm_90 -o /tmp/jacobi_single baselines/jacobi_single.cu
for v in "examples/jacobi" "examples/jacobi_mpi" "examples/jacobi_mpi --overlap"; do
  run "check $v" $v --size 1026 --iters 100 --check
done

csv=$out/jacobi.csv
echo "program,backend,processes,units,threads,nx,ny,iters,seconds,norm,check" > "$csv"
for size in $SIZES; do
  for rep in $(seq "$REPS"); do
    measure "jacobi $size" examples/jacobi --size "$size" --no-check
    measure "jacobi_mpi $size" examples/jacobi_mpi --size "$size" --no-check
    measure "jacobi_mpi --overlap $size" examples/jacobi_mpi --overlap --size "$size" --no-check
    [ -x /tmp/jacobi_single ] && measure "jacobi_single $size" /tmp/jacobi_single --size "$size"
  done
done
# Tracing's cost: traced and untraced runs alternated (five spans an
# iteration: the buffers hold all 1000 iterations').
for rep in $(seq "$REPS"); do
  measure "jacobi 4096 traced" env DCUDA_TRACE=/tmp/jacobi-trace.json DCUDA_TRACE_SPANS=8192 examples/jacobi --size 4096 --no-check
  sed -i '$ s/^jacobi,/jacobi (traced),/' "$csv"
  measure "jacobi 4096" examples/jacobi --size 4096 --no-check
done
# A timeline to look at: 20 iterations, every span kept.
run "traced jacobi, 20 iterations" env DCUDA_TRACE="$out/trace/jacobi.json" examples/jacobi --size 4096 --iters 20 --no-check
summary
