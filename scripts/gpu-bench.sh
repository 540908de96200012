#!/usr/bin/env bash
# The single-GPU benchmark suite (`bench`) with the record of where it ran:
# machine, driver, CUDA, NVSHMEM and NCCL versions, commit and date go to
# $OUT/bench/environment.txt beside the CSV, table and plots. Runs from the
# unpacked bundle on the GPU machine: scripts/gpu-bench.sh [--quick].
set -euo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}/bench
mkdir -p "$out"
export DCUDA_BACKEND=gpu DCUDA_COMMIT
DCUDA_COMMIT=$(cat COMMIT)
# Never use NVLink multicast on shared hosts.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null || true)
version() { ls "$site"/"$1"* -d 2>/dev/null | sed -n 's/.*-\([0-9.]*\)\.dist-info/\1/p' | head -1; }
bench/bench "$@" --out "$out" | tee "$out/table.txt"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  echo "CUDA: $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
  echo "NVSHMEM (python wheel): $(version nvidia_nvshmem)"
  echo "NCCL (python wheel): $(version nvidia_nccl)"
  echo "host: $(hostname), $(nproc) cores"
} >> "$out/environment.txt"
cat "$out/environment.txt"
