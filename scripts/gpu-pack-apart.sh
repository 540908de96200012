#!/usr/bin/env bash
# Packs the comparisons of gpu-apart.sh into .gpu-bundle/bundle.txz
# (sm_90): the applications APPS (default: pi spmv aliev_panfilov) with
# their baselines, and the same programs of an earlier commit (default
# HEAD~1, built in a worktree) as *_before and *_mpi_before, run
# alternated with them; Jacobi and its baseline as they are now, and
# Jacobi's nvcc kernel (baselines/) of both commits, built there. Also
# any variant binaries in .gpu-variants/ (git-ignored, copied as they
# are), gpu-lib.sh and gpu-stencils-ab.sh, and the scripts named in
# EXTRA: APPS="hdiff aliev_panfilov jacobi" packs the stencils for
# gpu-stencils-ab.sh.
#   [APPS="jacobi"] [EXTRA="path/to/go.sh"] scripts/gpu-pack-apart.sh [COMMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS=$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas CARGO_INCREMENTAL=0
read -r -a apps <<< "${APPS:-pi spmv aliev_panfilov}"
before=${1:-HEAD~1}
root=$PWD
tree=$(mktemp -d)
git worktree add -f "$tree" "$before" >/dev/null
for a in "${apps[@]}"; do
  (cd "$tree" && CARGO_TARGET_DIR=$root/target/before cargo build --release --manifest-path apps/$a/Cargo.toml --bins 2>&1 | tail -1)
done
for a in "${apps[@]}" jacobi; do cargo build --release --manifest-path apps/$a/Cargo.toml --bins 2>&1 | tail -1; done
rm -rf .gpu-bundle && b=.gpu-bundle/stage && mkdir -p $b/examples
for a in "${apps[@]}"; do
  cp target/release/$a target/release/${a}_mpi $b/examples/
  cp target/before/release/$a $b/examples/${a}_before
  cp target/before/release/${a}_mpi $b/examples/${a}_mpi_before
done
mkdir -p $b/baselines
cp apps/jacobi/baselines/jacobi_single.cu $b/baselines/
cp "$tree/apps/jacobi/baselines/jacobi_single.cu" $b/baselines/jacobi_single_before.cu
git worktree remove --force "$tree"
cp target/release/jacobi target/release/jacobi_mpi $b/examples/
# An empty or missing folder packs nothing (a glob would fail on it).
if [ -d .gpu-variants ]; then find .gpu-variants -maxdepth 1 -type f -exec cp -t "$b/examples/" {} + ; fi
cp scripts/gpu-apart.sh scripts/gpu-lib.sh scripts/gpu-stencils-ab.sh $b/
for s in ${EXTRA:-}; do cp "$s" $b/; done
{ git rev-parse --short HEAD; git rev-parse --short "$before"; } > $b/COMMIT
git rev-parse --short "$before" > $b/COMMIT_BEFORE
strip $b/examples/*
tar cf - -C $b . | xz -T0 -6 > .gpu-bundle/bundle.txz && rm -rf $b
du -sh .gpu-bundle/bundle.txz
