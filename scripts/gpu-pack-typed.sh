#!/usr/bin/env bash
# Packs the typed-transfer comparison of gpu-typed-ab.sh into
# .gpu-bundle/bundle.txz (sm_90): bench_typed of the working tree and of
# an earlier commit (default HEAD, built in a worktree) as
# bench_typed_before, optionally a third commit as bench_typed_mid,
# NVSHMEM's typed baseline, and the typed tests and world_checks of the
# working tree for the checks on the GPU.
#   scripts/gpu-pack-typed.sh [COMMIT [MID]]
set -euo pipefail
cd "$(dirname "$0")/.."
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS=$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas CARGO_INCREMENTAL=0
before=${1:-HEAD}
mid=${2:-}
root=$PWD
build_at() { # commit, target folder
  local tree
  tree=$(mktemp -d)
  git worktree add -f "$tree" "$1" >/dev/null
  (cd "$tree" && CARGO_TARGET_DIR=$root/target/$2 cargo build --release -p dcuda-bench --bin bench_typed 2>&1 | tail -1)
  git worktree remove --force "$tree"
}
build_at "$before" before
[ -n "$mid" ] && build_at "$mid" mid
cargo build --release -p dcuda-bench --bin bench_typed 2>&1 | tail -1
cargo build --release -p dcuda-tests --bin world_checks 2>&1 | tail -1
tests=$(cargo test --release -p dcuda-tests --test typed --test typed_random --no-run 2>&1 | grep -o "target/release/deps/typed[_a-z]*-[0-9a-f]*")
rm -rf .gpu-bundle && b=.gpu-bundle/stage && mkdir -p $b/bench $b/examples $b/tests $b/baselines
cp target/release/bench_typed $b/bench/ && cp target/before/release/bench_typed $b/bench/bench_typed_before
[ -n "$mid" ] && cp target/mid/release/bench_typed $b/bench/bench_typed_mid
cp target/release/world_checks $b/examples/
for t in $tests; do n=$(basename "$t"); cp "$t" "$b/tests/${n%-*}"; done
cp bench/baselines/nvshmem_typed.cu bench/baselines/*.cuh $b/baselines/ && cp scripts/gpu-typed-ab.sh scripts/gpu-lib.sh $b/
{ git rev-parse --short HEAD; git rev-parse --short "$before"; [ -z "$mid" ] || git rev-parse --short "$mid"; } > $b/COMMIT
strip $b/bench/* $b/examples/* $b/tests/*
tar cf - -C $b . | xz -T0 -6 > .gpu-bundle/bundle.txz && rm -rf $b
du -sh .gpu-bundle/bundle.txz
