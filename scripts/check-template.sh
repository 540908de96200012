#!/usr/bin/env bash
# Builds and runs templates/hello as a user would: copied outside the
# dcuda workspace, with its paths pointing at this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
repo=$(pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp -r templates/hello "$dir/"
sed -i "s|\.\./\.\./|$repo/|g" "$dir/hello/Cargo.toml"
# The workspace's target directory: the project is still resolved and
# built as a user's (its own workspace and lock file), and the release
# builds of dcuda's crates that the README example left there are reused
# (three minutes of CI's two cores otherwise).
export CARGO_TARGET_DIR="$repo/target"
out=$(cd "$dir/hello" && DCUDA_BACKEND=${DCUDA_BACKEND:-emulator} cargo run --quiet --release -p hello 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -q "hello: .* ranks passed the ring around" <<<"$out"

# With SASS for sm_90 (ptxas from the nvcc wheel that setup.sh --full
# installs): the build embeds the cubin beside the PTX, and still runs.
ptxas="$repo/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas"
[ -x "$ptxas" ] || { echo "check-template: no ptxas at $ptxas (run scripts/setup.sh --full)" >&2; exit 1; }
out=$(cd "$dir/hello" && DCUDA_ARCH=sm_90 DCUDA_SASS=1 DCUDA_PTXAS="$ptxas" \
  DCUDA_BACKEND=${DCUDA_BACKEND:-emulator} cargo run --quiet --release -p hello 2>&1) || { echo "$out"; exit 1; }
grep -q "hello: .* ranks passed the ring around" <<<"$out"
index=$(grep -l "include_bytes!" "$CARGO_TARGET_DIR"/release/build/hello-*/out/*.ptx.rs | head -1)
[ -n "$index" ] && grep -q "\.sm_90\.cubin" "$index" \
  || { echo "check-template: DCUDA_SASS=1 embedded no sm_90 cubin" >&2; exit 1; }
echo "check-template: the SASS build embeds $(basename "$(grep -o '[^"]*\.cubin' "$index")")"
