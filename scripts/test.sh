#!/usr/bin/env bash
# The whole test suite, on a machine without a GPU (kernels run on the CPU
# emulator): formatting, build, clippy, rustdoc, tests, ptxas on every PTX,
# the book.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --full
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"

# Build PTX for the default architecture and for Hopper.
export DCUDA_ARCH=sm_70,sm_90
export DCUDA_BACKEND=${DCUDA_BACKEND:-auto}

# A fresh CI machine builds everything once: no incremental state to keep,
# and line tables are all the debug info a failing test's backtrace needs
# (together a few minutes less on CI's two cores).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}

step() { echo; echo "=== $* (at ${SECONDS}s)"; }
step "cargo fmt --check";           cargo fmt --all --check
step "cargo build";                 cargo build --workspace --all-targets
step "cargo clippy";                cargo clippy --workspace --all-targets -- -D warnings
step "cargo doc";                   RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
step "cargo test";                  cargo test --workspace
step "srun";                        scripts/srun-checks.sh target/debug
step "README example";             scripts/run-example.sh
# After the README example, whose release builds it reuses.
step "template project";           scripts/check-template.sh
step "ptxas";                       scripts/validate-ptx.sh target/debug
step "nvcc (CUDA baselines)";      scripts/check-cuda.sh
step "register budget";             scripts/register-budget.sh target/debug
step "mdbook build"
# mdbook reports a failed include as an error but still exits 0: fail here.
book_log=$(mdbook build book 2>&1) || { echo "$book_log"; exit 1; }
echo "$book_log"
if grep -q "\[ERROR\]" <<<"$book_log"; then
  echo "mdbook: an include or link of the book failed (above)" >&2
  exit 1
fi
echo
echo "test.sh: all steps passed in ${SECONDS}s"
