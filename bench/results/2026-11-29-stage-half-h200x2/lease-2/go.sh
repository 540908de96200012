#!/usr/bin/env bash
# Staging halves of a MiB: the apps as two nodes against their CPU
# references, then gpu-host-route.sh (world_checks as two nodes, the host
# route against c4ea6b1's bench_typed, under none and cma).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
echo "stage halves of a MiB: $(tr '\n' ' ' < COMMIT) $(date -u +%FT%TZ)" | tee -a "$log"
N="env DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none -np 2"
RUN_LIMIT=200
run "hdiff as two nodes, rows of 128 KiB" $N examples/hdiff --nx 512 --ny 64 --nz 32 --iters 20 --check
run "aliev_panfilov procs-x 2 as two nodes, columns of 64 KiB" $N examples/aliev_panfilov --nx 2048 --ny 8200 --iters 50 --procs-x 2 --check
run "jacobi as two nodes, rows of 64 KiB" $N examples/jacobi --size 16386 --iters 20 --check
run "hdiff one GPU, 320 ranks" examples/hdiff --nx 128 --ny 320 --nz 26 --iters 20 --check
summary
REPS=2 NO_TRACE=1 MECHS="none cma" bash ./gpu-host-route.sh 2>&1 | tail -3
