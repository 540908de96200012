#!/usr/bin/env bash
# Issue 16's typed checks and benchmarks on two GPUs. Pack first:
# scripts/gpu-pack-typed.sh; then
#   run(command="bash scripts/gpu-typed.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# The typed test, world_checks as one job and as two nodes, the
# strided-column experiment, gpu-multi.sh's typed section (bench_typed
# over NVLink and through the hosts, NVSHMEM's strided puts), and
# bench_typed on one GPU; everything in $OUT/typed.tar.xz.
here=$(cd "$(dirname "$0")/.." && pwd)/.gpu-bundle
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
cd "$here/unpacked"
export DCUDA_BACKEND=gpu NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo
DCUDA_COMMIT=$(cat COMMIT)
export DCUDA_COMMIT
o=$OUT/typed; mkdir -p "$o"
M="mpirun --allow-run-as-root --bind-to none -np 2"
(nvcc -O3 -arch=sm_90 -o /tmp/sc experiments/strided_column.cu && /tmp/sc > "$o/strided.csv") > "$o/strided.log" 2>&1 &
timeout 120 ./tests/typed > "$o/tests-typed.log" 2>&1; echo "tests/typed rc=$?" | tee -a "$o/log"
timeout 120 $M examples/world_checks > "$o/world-checks.log" 2>&1; echo "world_checks -np 2 rc=$?" | tee -a "$o/log"
timeout 120 env DCUDA_NODE=process $M examples/world_checks > "$o/world-checks-nodes.log" 2>&1; echo "world_checks two nodes rc=$?" | tee -a "$o/log"
wait
SECTIONS=typed BUDGET=300 bash gpu-multi.sh > "$o/multi-out.log" 2>&1; echo "gpu-multi typed rc=$?" | tee -a "$o/log"
mkdir -p "$o/one"; timeout 120 ./bench/bench_typed --out "$o/one" > "$o/one.log" 2>&1; echo "bench_typed one GPU rc=$?" | tee -a "$o/log"
cp -r /tmp/multi/bench/typed* "$o/" 2>/dev/null; cp "$OUT/multi.log" "$o/" 2>/dev/null
cat "$o/one.log" /tmp/multi/bench/typed*/typed.csv "$o/strided.csv"
cd "$OUT" && tar cJf typed.tar.xz typed && rm -rf typed multi.log multi.tar.xz 2>/dev/null
