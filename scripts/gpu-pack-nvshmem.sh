#!/usr/bin/env bash
# Packs the NVSHMEM transport's GPU check and measurement into
# .gpu-bundle/bundle.txz (git-ignored): world_checks and bench_world with
# their kernels linked with NVSHMEM's device bitcode (DCUDA_NVSHMEM_BC),
# built in target/nvshmem, and scripts/gpu-nvshmem.sh. Then:
#   run(command="bash .gpu-bundle/unpack.sh gpu-nvshmem.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# The bitcode must be NVSHMEM's version on the GPU machines (3.4.5): the
# wheel of that version is fetched into .tools/nvshmem once.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
NVSHMEM_VERSION=${NVSHMEM_VERSION:-3.4.5}
bc=.tools/nvshmem/$NVSHMEM_VERSION/libnvshmem_device.bc
if [ ! -s "$bc" ]; then
  tmp=$(mktemp -d)
  pip download --no-deps -d "$tmp" "nvidia-nvshmem-cu13==$NVSHMEM_VERSION"
  mkdir -p "$(dirname "$bc")"
  unzip -p "$tmp"/nvidia_nvshmem_cu13-*.whl nvidia/nvshmem/lib/libnvshmem_device.bc > "$bc"
  rm -rf "$tmp"
fi
export DCUDA_NVSHMEM_BC=$PWD/$bc
export DCUDA_ARCH=sm_90 DCUDA_SASS=sm_90
export DCUDA_PTXAS=${DCUDA_PTXAS:-$PWD/.tools/cuda-nvcc/nvidia/cu13/bin/ptxas}
export CARGO_TARGET_DIR=target/nvshmem
cargo build --release -p dcuda-tests --bin world_checks
cargo build --release -p dcuda-bench --bin bench_world

bundle=.gpu-bundle
rm -rf "$bundle" && mkdir -p "$bundle/pack/baselines"
cp target/nvshmem/release/world_checks target/nvshmem/release/bench_world "$bundle/pack/"
strip "$bundle"/pack/world_checks "$bundle"/pack/bench_world
cp scripts/gpu-nvshmem.sh scripts/gpu-lib.sh "$bundle/pack/"
cp bench/baselines/nvshmem_peer.cu bench/baselines/*.cuh "$bundle/pack/baselines/"
git rev-parse --short HEAD > "$bundle/pack/COMMIT" 2>/dev/null || echo unknown > "$bundle/pack/COMMIT"
echo "$NVSHMEM_VERSION" > "$bundle/pack/NVSHMEM_BITCODE"
tar cf - -C "$bundle/pack" . | xz -T0 -6 > "$bundle/bundle.txz"
rm -rf "$bundle/pack"
cat > "$bundle/unpack.sh" <<'UNPACK'
#!/usr/bin/env bash
# Unpacks bundle.txz next to it and runs one of its scripts with the rest
# of the arguments: bash .gpu-bundle/unpack.sh gpu-nvshmem.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
script=$1; shift
exec bash "$here/unpacked/$script" "$@"
UNPACK
du -sh "$bundle"
