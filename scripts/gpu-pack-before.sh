#!/usr/bin/env bash
# Builds the benchmarks of an earlier commit (default: HEAD~1) into the
# git-ignored .gpu-before/, for gpu-pack.sh to bundle: the GPU scripts then
# run them beside the current ones, on the same machine, in the same run.
#   scripts/gpu-pack-before.sh [COMMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
commit=${1:-HEAD~1}
tree=$(mktemp -d)
git worktree add -f "$tree" "$commit" >/dev/null
(cd "$tree" && DCUDA_ARCH=${DCUDA_ARCH:-sm_70,sm_90} cargo build --release -p dcuda-bench)
rm -rf .gpu-before && mkdir -p .gpu-before
cp "$tree/target/release/bench" "$tree/target/release/bench_world" .gpu-before/
git rev-parse --short "$commit" > .gpu-before/COMMIT
git worktree remove --force "$tree"
ls .gpu-before
