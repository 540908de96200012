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
# A target directory of its own, kept between runs.
export CARGO_TARGET_DIR="$repo/target/template"
out=$(cd "$dir/hello" && DCUDA_BACKEND=${DCUDA_BACKEND:-emulator} cargo run --quiet --release -p hello 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -q "hello: .* ranks passed the ring around" <<<"$out"
