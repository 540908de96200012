#!/usr/bin/env bash
# Runs every packed GPU test and example on the GPU (DCUDA_BACKEND=gpu) and
# prints a summary. Runs from the repository root on the GPU machine; the
# log goes to $OUT/gpu-run.log when $OUT is set.
set -uo pipefail
cd "$(dirname "$0")"
log=${OUT:-/tmp}/gpu-run.log
export DCUDA_BACKEND=gpu
# The commit every benchmark CSV row names.
DCUDA_COMMIT=$(cat COMMIT 2>/dev/null || echo unknown)
export DCUDA_COMMIT
# Never use NVLink multicast on shared hosts.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1

{
  echo "dcuda GPU run, commit $(cat COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo
} | tee "$log"

# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh

for t in tests/*; do
  # One test at a time: results stay readable and timings undisturbed.
  run "test $(basename "$t")" "$t" --test-threads=1
done
# Then as `cargo test` runs them, several at once: runs take turns on the
# GPU, and allocating or freeing during another test's run must wait for
# it, not hang it (bench/results/2026-11-29-idle-turns-h200).
if [ "${PARALLEL_TESTS:-1}" = 1 ]; then
  for t in tests/*; do
    run "test $(basename "$t"), parallel" "$t"
  done
fi
for e in examples/*; do
  # stress runs below with its options; jacobi_report summarises a CSV.
  case $(basename "$e") in stress|jacobi_report) continue ;; esac
  run "example $(basename "$e")" "$e"
done
# Co-residency: distributed_sum's 9 ranks of 128 threads per multiprocessor
# (issue 14: a runtime change once cut them unnoticed).
run "distributed_sum keeps 9 ranks per multiprocessor" bash -c 'examples/distributed_sum | tee /dev/stderr | grep -q "^distributed_sum: 9 ranks per multiprocessor"'
# A traced run of a real application: the timeline's JSON, SVG and summary.
run "traced distributed_sum" env DCUDA_TRACE="${OUT:-/tmp}/trace/distributed_sum.json" examples/distributed_sum
# The many-to-many stress test with a million messages over every
# co-resident rank.
run "stress, 10^6 messages" examples/stress --messages 1000000 --fanout 8 --seed "$(date +%s)"

if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x bench/bench ]; then
  run "bench" bench/bench --out "${OUT:-/tmp}/bench"
  sed -n '/^dcuda bench/,/^wrote/p' "$log"
  # The earlier commit's benchmark on the same machine, for comparison.
  if [ -x bench-before/bench ]; then
    run "bench (before, $(cat bench-before/COMMIT))" bench-before/bench --out "${OUT:-/tmp}/bench-before"
  fi
fi

# Collectives over every rank of the GPU, against cooperative groups'
# grid.sync() in a raw CUDA kernel built here with nvcc.
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x bench/bench_collectives ]; then
  if nvcc -O2 -arch=sm_90 baselines/grid_collectives.cu -o /tmp/grid_collectives >>"$log" 2>&1; then
    run "bench_collectives" bench/bench_collectives --baseline /tmp/grid_collectives --out "${OUT:-/tmp}/bench"
    sed -n '/^dcuda bench_collectives/,/^wrote/p' "$log"
  else
    fail=$((fail + 1)); failed+=("grid_collectives build"); echo "FAIL grid_collectives build" | tee -a "$log"
  fi
fi

# Allgather and all-to-all across chunk sizes, against the same copies
# between grid.sync()s in a raw CUDA kernel.
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x bench/bench_chunks ]; then
  if nvcc -O2 -arch=sm_90 baselines/grid_chunks.cu -o /tmp/grid_chunks >>"$log" 2>&1; then
    run "bench_chunks" bench/bench_chunks --baseline /tmp/grid_chunks --out "${OUT:-/tmp}/bench"
    sed -n '/^dcuda bench_chunks/,/^wrote/p' "$log"
  else
    fail=$((fail + 1)); failed+=("grid_chunks build"); echo "FAIL grid_chunks build" | tee -a "$log"
  fi
fi

# Two-sided messages against notified puts of the same sizes.
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x bench/bench_messages ]; then
  run "bench_messages" bench/bench_messages --out "${OUT:-/tmp}/bench"
  sed -n '/^dcuda bench_messages/,/^wrote/p' "$log"
fi

# Typed transfers against hand-written packing.
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -x bench/bench_typed ]; then
  run "bench_typed" bench/bench_typed --out "${OUT:-/tmp}/bench"
  sed -n '/^dcuda bench_typed/,/^wrote/p' "$log"
fi

grep -E '^test .* \.\.\. |test result:|dcuda: GPU backend|correct on|bitwise' "$log" | sort | uniq -c | sort -rn | head -70
echo
summary
