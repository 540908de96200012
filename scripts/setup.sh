#!/usr/bin/env bash
# Installs what building and testing dcuda needs; skips what is there.
#   scripts/setup.sh            rustup components (enough to build and run)
#   scripts/setup.sh --full     also nvcc and ptxas (PyPI wheels), mdbook and a one-node Slurm (apt), for the test suite
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

# nvcc compiles the CUDA baselines (-c, no GPU needed: scripts/check-cuda.sh)
# and its ptxas validates every PTX the build produces. The nvcc wheel
# alone lacks cicc (nvvm), the runtime's headers and CCCL's (cooperative
# groups include them); the wheels go into one folder in one install, so
# that their shared nvidia/cu13 tree is merged.
NVCC_DIR=.tools/cuda-compile
if [ ! -e "$NVCC_DIR/nvidia/cu13/include/nv/target" ]; then
  log "installing nvcc, ptxas, nvvm, the CUDA runtime and CCCL headers (PyPI wheels, about 100 MB)"
  command -v python3 >/dev/null || { apt-get update -qq && apt-get install -y -qq python3 python3-pip >/dev/null; }
  command -v g++ >/dev/null || { apt-get update -qq && apt-get install -y -qq g++ >/dev/null; }
  rm -rf "$NVCC_DIR"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$NVCC_DIR" \
    nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85
  chmod +x "$NVCC_DIR"/nvidia/cu13/bin/* "$NVCC_DIR"/nvidia/cu13/nvvm/bin/* 2>/dev/null || true
fi
# The scripts and the guide name ptxas at .tools/cuda-nvcc, where it once
# had a wheel of its own: that name is now the same install.
PTXAS_DIR=.tools/cuda-nvcc
[ -e "$PTXAS_DIR" ] || ln -s cuda-compile "$PTXAS_DIR"
PTXAS="$PTXAS_DIR/nvidia/cu13/bin/ptxas"
"$PTXAS" --version >/dev/null

# NVSHMEM's and NCCL's headers, for the baselines that use them (their
# wheels hold the libraries too: only the headers are kept).
HEADERS_DIR=.tools/cuda-headers
for pkg in nvshmem:nvidia-nvshmem-cu13==3.8.0 nccl:nvidia-nccl-cu13==2.32.3; do
  name=${pkg%%:*}
  if [ ! -d "$HEADERS_DIR/$name" ]; then
    log "installing the $name headers (${pkg#*:} from PyPI)"
    wheels=$(mktemp -d)
    python3 -m pip download -q --disable-pip-version-check --no-deps -d "$wheels" "${pkg#*:}"
    python3 - "$wheels" "nvidia/$name/include/" <<'PY'
import glob, sys, zipfile
folder, prefix = sys.argv[1], sys.argv[2]
for wheel in glob.glob(f"{folder}/*.whl"):
    with zipfile.ZipFile(wheel) as z:
        z.extractall(folder, [n for n in z.namelist() if n.startswith(prefix)])
PY
    mkdir -p "$HEADERS_DIR" && mv "$wheels/nvidia/$name/include" "$HEADERS_DIR/$name"
    rm -rf "$wheels"
  fi
done

# mdbook builds the guide.
if ! command -v mdbook >/dev/null 2>&1; then
  log "installing mdbook (cargo install, about 2 minutes)"
  cargo install mdbook --locked --version 0.4.52 --quiet
fi
