#!/usr/bin/env bash
# hdiff's memory traffic now (loads in L2 only, one point ahead in L1)
# against its baseline, as ../2026-11-30-hdiff-dram-h200/ measured it
# before those: 20 iterations at 512x1280x32 and 128x320x26, the rank
# kernel's one launch against the baseline's 60 stage launches, with
# scripts/gpu-ncu-traffic.sh. One H200; the binaries are f298d39's hdiff
# (the `hdiff_before` of the bundle packed for ../2026-11-30-hdiff-body-inline-h200/).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff traffic"
big="--nx 512 --ny 1280 --nz 32 --iters 20 --no-check"
small="--nx 128 --ny 320 --nz 26 --iters 20 --no-check"
KERNEL=hdiff bash gpu-ncu-traffic.sh rank-big examples/hdiff_before $big | tee -a "$log"
KERNEL='regex:hdiff_(stage|bands)' COUNT=60 bash gpu-ncu-traffic.sh base-big examples/hdiff_mpi_before $big | tee -a "$log"
KERNEL=hdiff bash gpu-ncu-traffic.sh rank-small examples/hdiff_before $small | tee -a "$log"
KERNEL='regex:hdiff_(stage|bands)' COUNT=60 bash gpu-ncu-traffic.sh base-small examples/hdiff_mpi_before $small --threads 512 | tee -a "$log"
