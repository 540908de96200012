#!/usr/bin/env bash
# Warp stalls of hdiff's rank kernel at 512x1280x32 (ede3a49), 20 iterations, and the baseline's stage kernel
cd "$(dirname "$0")"
o=${OUT:-/tmp}
. ./gpu-lib.sh
gpu_env
KERNEL=hdiff bash gpu-ncu-stalls.sh hdiff-big examples/hdiff_before --nx 512 --ny 1280 --nz 32 --iters 20 --no-check
KERNEL=regex:hdiff_stage_2 bash gpu-ncu-stalls.sh base-big examples/hdiff_mpi_before --nx 512 --ny 1280 --nz 32 --iters 20 --no-check
ls -la $o
