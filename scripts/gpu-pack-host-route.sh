#!/usr/bin/env bash
# Packs gpu-host-route.sh's bundle into .gpu-bundle/bundle.txz (sm_90):
# bench_typed and world_checks of the working tree, the host-packing
# baseline's source and, given a commit, its bench_typed as
# bench_typed_before (built in a worktree).
#   scripts/gpu-pack-host-route.sh [BEFORE]
set -euo pipefail
cd "$(dirname "$0")/.."
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS=$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas CARGO_INCREMENTAL=0
before=${1:-}
if [ -n "$before" ]; then
  root=$PWD tree=$(mktemp -d)
  git worktree add -f "$tree" "$before" >/dev/null
  (cd "$tree" && CARGO_TARGET_DIR=$root/target/before cargo build --release -p dcuda-bench --bin bench_typed 2>&1 | tail -1)
  git worktree remove --force "$tree"
fi
cargo build --release -p dcuda-bench --bin bench_typed 2>&1 | tail -1
cargo build --release -p dcuda-tests --bin world_checks 2>&1 | tail -1
rm -rf .gpu-bundle && b=.gpu-bundle/stage && mkdir -p $b/bench $b/baselines $b/examples
cp target/release/bench_typed $b/bench/ && cp target/release/world_checks $b/examples/
cp bench/baselines/host_packed_typed.cu bench/baselines/*.cuh $b/baselines/ && cp scripts/gpu-host-route.sh scripts/gpu-lib.sh $b/
[ -n "$before" ] && cp target/before/release/bench_typed $b/bench/bench_typed_before
{ git rev-parse --short HEAD; [ -n "$before" ] && git rev-parse --short "$before"; } > $b/COMMIT || true
strip $b/bench/* $b/examples/*
tar cf - -C $b . | xz -T0 -6 > .gpu-bundle/bundle.txz && rm -rf $b
du -sh .gpu-bundle/bundle.txz
