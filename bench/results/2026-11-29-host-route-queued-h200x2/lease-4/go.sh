#!/usr/bin/env bash
# Host route A/B: placements queued on a stream (new), the same with 64 KiB bounce chunks, and HEAD (before); host packing beside.
set -uo pipefail
cd "$(dirname "$0")"
res=/tmp/hrab && rm -rf $res && mkdir -p $res
log=$res/log
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
DCUDA_COMMIT=$(head -1 COMMIT) && export DCUDA_COMMIT
{ echo "host route A/B, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; mpirun --version | head -1; } | tee $log
. ./gpu-lib.sh
nvcc -O2 -arch=sm_90 $(mpicc --showme:compile) baselines/host_packed_typed.cu -o /tmp/host_packed_typed $(mpicc --showme:link) >> $log 2>&1
M="mpirun --allow-run-as-root --bind-to none -np 2"
RUN_LIMIT=200 run "world_checks -np 2 as two nodes" env DCUDA_NODE=process $M examples/world_checks
RUN_LIMIT=200 run "world_checks -np 2 direct" $M examples/world_checks
for r in 1 2; do
  run "host packing $r" bash -c "$M /tmp/host_packed_typed 200 > $res/host-packed-$r.csv"
  for v in bench_typed bench_typed_multi bench_typed_before; do
    RUN_LIMIT=300 run "$v two nodes $r" bash -c "DCUDA_NODE=process $M bench/$v --out $res/$v-$r"
  done
done

xz -T0 $res/*.trace
summary
tar cJf $OUT/hrab.tar.xz -C /tmp hrab
