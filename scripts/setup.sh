#!/usr/bin/env bash
# Installs what building and testing dcuda needs; skips what is there.
#   scripts/setup.sh            rustup components (enough to build and run)
#   scripts/setup.sh --full     also ptxas (PyPI wheel), mdbook and a one-node Slurm (apt), for the test suite
set -euo pipefail
cd "$(dirname "$0")/.."

full=0
[ "${1:-}" = "--full" ] && full=1

log() { echo "setup: $*" >&2; }

if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null || { log "cargo not found: install Rust with rustup first"; exit 1; }

# The nvptx kernel build: build-std needs rust-src; rustc links PTX with
# llvm-bitcode-linker, which needs llvm-tools.
installed=$(rustup component list --installed 2>/dev/null || true)
for c in rust-src llvm-tools llvm-bitcode-linker; do
  if ! grep -q "^$c" <<<"$installed"; then
    log "installing rustup component $c"
    rustup component add "$c"
  fi
done

# A C compiler for build scripts of dependencies.
if ! command -v cc >/dev/null 2>&1; then
  log "installing gcc"
  apt-get update -qq && apt-get install -y -qq gcc >/dev/null
fi

# MPI: the network manager links OpenMPI (mpi-sys, whose bindings need
# libclang), and the multi-process tests start mpirun.
if ! dpkg -s libopenmpi-dev openmpi-bin libclang-dev >/dev/null 2>&1; then
  log "installing OpenMPI and libclang (apt)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenmpi-dev openmpi-bin libclang-dev >/dev/null
fi

[ "$full" = 1 ] || exit 0

# A one-node Slurm, for the checks under srun (scripts/srun-checks.sh).
if ! dpkg -s slurm-wlm munge >/dev/null 2>&1; then
  log "installing Slurm and munge (apt)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# ptxas validates every PTX the build produces; it ships in NVIDIA's nvcc wheel.
PTXAS_DIR=.tools/cuda-nvcc
PTXAS="$PTXAS_DIR/nvidia/cu13/bin/ptxas"
if [ ! -x "$PTXAS" ]; then
  log "installing ptxas (nvidia-cuda-nvcc==13.0.88 from PyPI)"
  command -v python3 >/dev/null || { apt-get update -qq && apt-get install -y -qq python3 python3-pip >/dev/null; }
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$PTXAS_DIR" nvidia-cuda-nvcc==13.0.88
  chmod +x "$PTXAS_DIR"/nvidia/cu13/bin/* 2>/dev/null || true
fi
"$PTXAS" --version >/dev/null

# mdbook builds the guide.
if ! command -v mdbook >/dev/null 2>&1; then
  log "installing mdbook (cargo install, about 2 minutes)"
  cargo install mdbook --locked --version 0.4.52 --quiet
fi
