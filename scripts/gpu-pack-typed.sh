#!/usr/bin/env bash
# Packs what scripts/gpu-typed.sh runs into .gpu-bundle/bundle.txz (sm_90).
set -e
cd "$(dirname "$0")/.."
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS=$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas CARGO_INCREMENTAL=0
cargo build --release -p dcuda-bench --bin bench_typed 2>&1 | tail -1
cargo build --release -p dcuda-tests --bin world_checks 2>&1 | tail -1
t=$(cargo test --release -p dcuda-tests --test typed --no-run 2>&1 | grep -o "target/release/deps/typed-[0-9a-f]*")
rm -rf .gpu-bundle && mkdir -p .gpu-bundle
b=.gpu-bundle/stage && mkdir -p $b/bench $b/examples $b/tests $b/baselines $b/experiments
cp target/release/bench_typed $b/bench/ && cp target/release/world_checks $b/examples/ && cp $t $b/tests/typed
cp bench/baselines/*.cu bench/baselines/*.cuh $b/baselines/ && cp apps/*/baselines/*.cu $b/baselines/ && cp bench/experiments/strided_column.cu $b/experiments/ && cp scripts/gpu-*.sh $b/
git rev-parse --short HEAD > $b/COMMIT
strip $b/bench/* $b/examples/* $b/tests/*
tar cf - -C $b . | xz -T0 -6 > .gpu-bundle/bundle.txz && rm -rf $b
du -sh .gpu-bundle/bundle.txz
