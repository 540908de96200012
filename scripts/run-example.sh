#!/usr/bin/env bash
# Runs the main example, the distributed sum: on the GPU if there is one, else on the CPU emulator.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
exec cargo run --release -p distributed-sum --bin distributed_sum
