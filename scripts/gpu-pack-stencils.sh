#!/usr/bin/env bash
# Packs the stencil applications for gpu-stencils-ab.sh into
# .gpu-bundle/bundle.txz (sm_90): examples/{hdiff,aliev_panfilov,jacobi}
# and their _mpi baselines of the working tree, the same of an earlier
# commit (default HEAD, built in a worktree) as NAME_before, and any
# variant binaries already in .gpu-variants/ (copied as they are), with
# gpu-lib.sh, gpu-stencils-ab.sh and the scripts named in EXTRA.
#   scripts/gpu-pack-stencils.sh [COMMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90 DCUDA_PTXAS=$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas CARGO_INCREMENTAL=0
before=${1:-HEAD}
root=$PWD
apps=(hdiff aliev_panfilov jacobi)
build() { # cargo target folder
  for a in "${apps[@]}"; do
    CARGO_TARGET_DIR=$1 cargo build --release -p "$a" 2>&1 | tail -1
  done
}
tree=$(mktemp -d)
git worktree add -f "$tree" "$before" >/dev/null
(cd "$tree" && build "$root/target/before")
git worktree remove --force "$tree"
build "$root/target"
rm -rf .gpu-bundle && b=.gpu-bundle/stage && mkdir -p $b/examples
for a in "${apps[@]}"; do
  for x in "$a" "${a}_mpi"; do
    cp "target/release/$x" $b/examples/ && cp "target/before/release/$x" "$b/examples/${x}_before"
  done
done
[ -d .gpu-variants ] && cp .gpu-variants/* $b/examples/
cp scripts/gpu-lib.sh scripts/gpu-stencils-ab.sh $b/
for s in ${EXTRA:-}; do cp "$s" $b/; done
git rev-parse --short HEAD > $b/COMMIT
git rev-parse --short "$before" > $b/COMMIT_BEFORE
strip $b/examples/*
tar cf - -C $b . | xz -T0 -6 > .gpu-bundle/bundle.txz && rm -rf $b
du -sh .gpu-bundle/bundle.txz
