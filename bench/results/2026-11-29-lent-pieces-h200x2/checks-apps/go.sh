#!/usr/bin/env bash
# Host route with lent pieces, on two H200s as two nodes: world_checks and
# the stencils with halos of 64 KiB or more, checked against the CPU.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "lent pieces: apps as two nodes ($(cat COMMIT))" | tee -a "$log"
N="env DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none -np 2"
RUN_LIMIT=200
run "world_checks as two nodes" $N ./world_checks
run "hdiff as two nodes, rows of 128 KiB" $N ./hdiff --nx 512 --ny 64 --nz 32 --iters 20 --check
run "hdiff_mpi as two nodes, rows of 128 KiB" $N ./hdiff_mpi --nx 512 --ny 64 --nz 32 --iters 20 --check
run "aliev_panfilov procs-x 2 as two nodes, columns of 64 KiB" $N ./aliev_panfilov --nx 2048 --ny 8200 --iters 50 --procs-x 2 --check
run "jacobi as two nodes, rows of 64 KiB" $N ./jacobi --size 16386 --iters 20 --check
DCUDA_LOG=dcuda::route=trace,dcuda::laid=trace $N ./aliev_panfilov --nx 2048 --ny 8200 --iters 20 --procs-x 2 --no-check 2> $o/ap.trace > /dev/null
DCUDA_LOG=dcuda::route=trace $N ./hdiff --nx 512 --ny 64 --nz 32 --iters 20 --no-check 2> $o/hdiff.trace > /dev/null
echo "lent in AP's trace: $(grep -c 'lent=true' $o/ap.trace), not: $(grep -c 'lent=false' $o/ap.trace)" | tee -a "$log"
echo "lent in hdiff's trace: $(grep -c 'lent=true' $o/hdiff.trace), not: $(grep -c 'lent=false' $o/hdiff.trace)" | tee -a "$log"
xz -T0 $o/*.trace
summary
