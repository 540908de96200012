#!/usr/bin/env bash
# Compiles every CUDA source of the repository (the baselines, the
# experiments, the probes) with nvcc -c for sm_90, so that a baseline that
# no longer builds is found here and not on a GPU lease. Sources that
# include NVSHMEM's or NCCL's headers are compiled when those headers are
# found (NVSHMEM_INCLUDE, NCCL_INCLUDE: folders holding nvshmem.h, nccl.h;
# by default where scripts/setup.sh --full puts them) and skipped, by
# name, otherwise. Objects go to a temporary folder.
#   scripts/check-cuda.sh
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-.tools/cuda-compile/nvidia/cu13/bin/nvcc}
headers=.tools/cuda-headers
[ -d "$headers/nvshmem" ] && : "${NVSHMEM_INCLUDE:=$headers/nvshmem}"
[ -d "$headers/nccl" ] && : "${NCCL_INCLUDE:=$headers/nccl}"
[ -x "$NVCC" ] || { echo "check-cuda: no nvcc at $NVCC (scripts/setup.sh --full installs it)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpi=$(mpicc --showme:compile)
jobs=()
skipped=()
while IFS= read -r f; do
  flags=(-arch=sm_90 -O2 -c -Ibench/baselines)
  # The headers a source reaches, its own includes and the shared ones'.
  text=$(cat "$f"; grep -ho '"[a-z_]*\.cuh"' "$f" | tr -d '"' | sed 's|^|bench/baselines/|' | xargs -r cat 2>/dev/null || true)
  grep -q '<mpi.h>' <<<"$text" && flags+=($mpi)
  if grep -q '<nvshmem' <<<"$text"; then
    [ -n "${NVSHMEM_INCLUDE:-}" ] || { skipped+=("$f (NVSHMEM headers)"); continue; }
    flags+=(-rdc=true -I"$NVSHMEM_INCLUDE")
  fi
  if grep -q '<nccl.h>' <<<"$text"; then
    [ -n "${NCCL_INCLUDE:-}" ] || { skipped+=("$f (NCCL headers)"); continue; }
    flags+=(-I"$NCCL_INCLUDE")
  fi
  jobs+=("$f" "${flags[*]}")
done < <(git ls-files '*.cu')
compile() { # source, flags
  local obj
  obj=$out/$(tr '/' '_' <<<"$1").o
  # shellcheck disable=SC2086 # the flags are words
  if "$NVCC" $2 "$1" -o "$obj" 2>"$obj.log"; then
    echo "ok $1"
  else
    echo "FAILED $1:" && cat "$obj.log" && return 1
  fi
}
export -f compile
export NVCC out
printf '%s\0%s\0' "${jobs[@]}" | xargs -0 -n 2 -P "$(nproc)" bash -c 'compile "$0" "$1"'
for s in "${skipped[@]}"; do echo "skipped $s"; done
echo "check-cuda: $(( ${#jobs[@]} / 2 )) sources compiled, ${#skipped[@]} skipped"
