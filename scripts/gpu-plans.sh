#!/usr/bin/env bash
# The transfer plans between two GPUs (issue 18), in one job: plan_checks
# and moving_data, bench_plans with and without contexts on the peer GPU
# (DCUDA_PEER_CONTEXTS), and the copies by hand (plans_by_hand.cu: CUDA IPC
# from one process holding a context on each GPU, and NCCL). Bundle: the
# release binaries plan_checks, moving_data, bench_plans (DCUDA_ARCH=sm_90
# DCUDA_SASS=sm_90), bench/baselines/plans_by_hand.cu and *.cuh under
# baselines/, and COMMIT, beside this script; run with the device tool on
# nvidia-h200-x2. Results under $OUT/plans.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}; res=$out/plans; mkdir -p "$res"
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0
DCUDA_COMMIT=$(cat COMMIT 2>/dev/null || echo unknown); export DCUDA_COMMIT
nccl=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nccl"))')
nvcc -O2 -arch=sm_90 -I"$nccl/include" $(mpicc --showme:compile) baselines/plans_by_hand.cu -o /tmp/plans_by_hand \
  -L"$nccl/lib" -l:libnccl.so.2 $(mpicc --showme:link) -Xlinker -rpath -Xlinker "$nccl/lib" > $res/build.log 2>&1 &
M="mpirun --allow-run-as-root --bind-to none -np 2"
{
echo "commit $(cat COMMIT) $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
echo "--- plan_checks"; timeout 120 $M ./plan_checks 2>&1 | tail -3; echo "rc=$?"
echo "--- moving_data"; timeout 120 $M ./moving_data 2>&1 | tail -3; echo "rc=$?"
echo "--- bench_plans, DCUDA_PEER_CONTEXTS=0"; timeout 200 $M -x DCUDA_PEER_CONTEXTS=0 ./bench_plans --out $res/no-contexts 2>&1 | tail -12
echo "--- bench_plans (contexts on the peer GPU)"; timeout 200 $M ./bench_plans --out $res/contexts 2>&1 | tail -12
echo "--- bench_plans, one rank a process (a broadcast fills one part a GPU, as by hand)"; timeout 200 $M -x BENCH_PLANS_RANKS=1 ./bench_plans --out $res/one-rank 2>&1 | tail -12
wait
echo "--- plans by hand"; timeout 200 $M /tmp/plans_by_hand 5 1073741824 268435456 > $res/plans-by-hand.csv 2>$res/by-hand.err; echo "rc=$?"; cat $res/plans-by-hand.csv | head -20
} 2>&1 | tee $res/run.log
