#!/usr/bin/env bash
# Packs a before/after comparison of a runtime change for gpu-ab.sh into
# .gpu-bundle/bundle.txz (sm_90): bench_world, bench_typed and jacobi of
# the working tree and of an earlier commit (default HEAD, built in a
# worktree, named *_before), the NVSHMEM baselines of both benches,
# Jacobi's nvcc kernel, and
# world_checks and the typed tests of the working tree.
#   scripts/gpu-pack-ab.sh [COMMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS=$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas CARGO_INCREMENTAL=0
before=${1:-HEAD}
root=$PWD
build() { # cargo target folder
  CARGO_TARGET_DIR=$1 cargo build --release -p dcuda-bench --bin bench_world --bin bench_typed 2>&1 | tail -1
  CARGO_TARGET_DIR=$1 cargo build --release --manifest-path apps/jacobi/Cargo.toml --bin jacobi 2>&1 | tail -1
}
tree=$(mktemp -d)
git worktree add -f "$tree" "$before" >/dev/null
(cd "$tree" && build "$root/target/before")
git worktree remove --force "$tree"
build "$root/target"
cargo build --release -p dcuda-tests --bin world_checks 2>&1 | tail -1
tests=$(cargo test --release -p dcuda-tests --test typed --no-run 2>&1 | grep -o "target/release/deps/typed-[0-9a-f]*")
rm -rf .gpu-bundle && b=.gpu-bundle/stage && mkdir -p $b/bin $b/baselines
for x in bench_world bench_typed jacobi; do
  cp "target/release/$x" $b/bin/ && cp "target/before/release/$x" "$b/bin/${x}_before"
done
cp target/release/world_checks $b/bin/ && cp $tests $b/bin/typed_tests
cp bench/baselines/nvshmem_peer.cu bench/baselines/nvshmem_typed.cu bench/baselines/*.cuh apps/jacobi/baselines/jacobi_single.cu $b/baselines/
cp scripts/gpu-ab.sh scripts/gpu-lib.sh $b/
{ git rev-parse --short HEAD; git rev-parse --short "$before"; } > $b/COMMIT
strip $b/bin/*
tar cf - -C $b . | xz -T0 -6 > .gpu-bundle/bundle.txz && rm -rf $b
du -sh .gpu-bundle/bundle.txz
