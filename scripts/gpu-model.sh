#!/usr/bin/env bash
# Pack first: scripts/gpu-pack-model.sh; then
#   run(command="bash scripts/gpu-model.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# Issue 15: the route models from bench (one GPU) and bench_world (two
# GPUs, direct route), then the applications on two GPUs, traced with
# DCUDA_MODEL (predicted beside measured) and untraced.
here=$(cd "$(dirname "$0")/.." && pwd)/.gpu-bundle
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
cd "$here/unpacked"
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export DCUDA_COMMIT=$(cat COMMIT)
o=$OUT/model; mkdir -p $o/bench $o/world $o/apps
M="mpirun --allow-run-as-root --bind-to none -np 2"
{ echo "commit $DCUDA_COMMIT $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; } > $o/log
timeout 200 bench/bench --only size --out $o/bench > $o/bench.log 2>&1; echo "bench rc=$?" >> $o/log
timeout 200 $M bench/bench_world --out $o/world > $o/world.log 2>&1; echo "bench_world rc=$?" >> $o/log
# The two processes' route on one node is the direct route: peer. Two
# nodes would need the host route's model (bench_world with DCUDA_NODE=process).
MODEL=$o/bench/model-device.csv,$o/world/model-peer.csv
cat $o/bench/model-device.csv $o/world/model-peer.csv >> $o/log
app() {
  local name=$1; shift
  for traced in 0 1; do
    if [ $traced = 1 ]; then
      timeout 120 env DCUDA_TRACE=/tmp/$name.json DCUDA_MODEL=$MODEL $M "$@" > $o/apps/$name-traced.log 2>&1
    else
      timeout 120 $M "$@" > $o/apps/$name.log 2>&1
    fi
    echo "$name traced=$traced rc=$?" >> $o/log
  done
  grep -h "predicted\|s, \|: .* s" $o/apps/$name-traced.log $o/apps/$name.log | grep -v INFO.*backend >> $o/log
}
app particles examples/particles --size 1048576 --no-check
app spmv-poisson examples/spmv --size 2048 --no-check
app spmv-random examples/spmv --matrix random --no-check
app power examples/spmv --matrix random --power --no-check
app pi examples/pi
cat $o/log
cd $OUT && tar cJf model.tar.xz model && rm -rf model
