#!/usr/bin/env bash
# Usage: loop-address-of.sh COMMIT [PATCH]: Aliev-Panfilov's rank kernel at
# COMMIT (with PATCH applied), compiled by ptxas at 64 registers as the
# application loads it, and its walk loops' addresses (loop_address.py).
# Needs .tools' ptxas and cuobjdump (the PyPI wheel nvidia-cuda-cuobjdump;
# CUOBJDUMP=path). No GPU. See bench/results/2026-11-29-cold-paths-h200/.
set -euo pipefail
rev=$1; patch=${2:-}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
ptxas=$repo/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas
cuobjdump=${CUOBJDUMP:?path of cuobjdump}
wt=$(mktemp -d)/wt
git -C "$repo" worktree add -f -q "$wt" "$rev"
trap 'git -C "$repo" worktree remove -f "$wt"' EXIT
cp -r "$repo/.tools" "$wt/"
[ -n "$patch" ] && git -C "$wt" apply "$(realpath "$patch")"
(cd "$wt" && env DCUDA_ARCH=sm_90 DCUDA_PTXAS="$ptxas" CARGO_INCREMENTAL=0 \
  CARGO_TARGET_DIR=${TARGET:-/tmp/target-loop-address} cargo build -q --release -p aliev_panfilov --lib)
ptx=$(ls -t "${TARGET:-/tmp/target-loop-address}"/release/build/aliev_panfilov-*/out/aliev_panfilov_kernels.sm_90.ptx | head -1)
out=$(mktemp -d)
"$ptxas" -arch=sm_90 --maxrregcount 64 "$ptx" -o "$out/k.cubin"
"$cuobjdump" -sass -fun aliev_panfilov "$out/k.cubin" > "$out/k.sass"
python3 "$repo/bench/experiments/loop_address.py" "$out/k.sass"
