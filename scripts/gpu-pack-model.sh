#!/usr/bin/env bash
# Packs what scripts/gpu-model.sh runs into .gpu-bundle/bundle.txz (sm_90).
set -e
cd "$(dirname "$0")/.."
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS=$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas CARGO_INCREMENTAL=0
cargo build --release -p dcuda-bench --bin bench --bin bench_world 2>&1 | tail -1
for a in particles spmv pi aliev_panfilov; do cargo build --release --manifest-path apps/$a/Cargo.toml --bins 2>&1 | tail -1; done
rm -rf .gpu-bundle && b=.gpu-bundle/stage && mkdir -p $b/bench $b/examples $b/baselines
cp target/release/bench target/release/bench_world $b/bench/
for x in particles particles_mpi spmv spmv_mpi pi pi_mpi aliev_panfilov aliev_panfilov_mpi; do cp target/release/$x $b/examples/; done
cp bench/baselines/*.cu bench/baselines/*.cuh $b/baselines/ && cp scripts/gpu-*.sh $b/
git rev-parse --short HEAD > $b/COMMIT
strip $b/bench/* $b/examples/*
tar cf - -C $b . | xz -T0 -6 > .gpu-bundle/bundle.txz && rm -rf $b
du -sh .gpu-bundle/bundle.txz
