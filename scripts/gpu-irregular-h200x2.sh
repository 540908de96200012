#!/usr/bin/env bash
# Issue 15 on two GPUs, all from one commit and one lease: particles, the
# sparse products (Poisson, random, power iteration) and pi on one and two
# GPUs (strong), the same at twice the problem on two (weak), dcuda at its
# defaults against every baseline variant (plain and overlapped; spmv's
# blocks of 512 and 1024 threads); then each on two GPUs traced, with the
# route models of bench/results/2026-11-27-model-h200x2 (DCUDA_MODEL):
# the breakdown and predicted beside measured. Pack first:
# scripts/gpu-pack-model.sh; then
#   run(command="bash scripts/gpu-irregular-h200x2.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# $OUT/irregular.tar.xz: apps/{particles,spmv,pi}.csv (each run's --csv
# row, named), traced/ (summaries, breakdown SVGs, logs), log.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
here=$repo/.gpu-bundle
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
cd "$here/unpacked"
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
REPS=${REPS:-2}  # TRACED=0 skips the traced runs
o=$OUT/irregular; mkdir -p "$o/apps" "$o/traced"
{ echo "commit $(cat COMMIT) $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; mpirun --version | head -1; } > "$o/log"
# shellcheck source=gpu-lib.sh
. "$repo/scripts/gpu-lib.sh"
row() { # APP NAME NP CMD...
  local app=$1; shift
  named_row "$o/apps/$app.csv" "$@"
}
power=(--power --tol 0 --iters 100)
spmv_problems() { # NP SCALE: the three sparse problems at SCALE times the rows
  local n=$1 poisson=2048 random=4194304
  [ "$2" = 2 ] && poisson=2896 random=8388608
  for p in "poisson --size $poisson" "random --matrix random --size $random" "power --matrix random --size $random ${power[*]}"; do
    read -r kind args <<< "$p"
    # shellcheck disable=SC2086
    row spmv "spmv $kind np $n x$2" "$n" examples/spmv $args --no-check
    # The baselines at the strong sizes only; overlapped only across GPUs.
    [ "$2" = 2 ] && continue
    variants=("spmv_mpi --threads 1024" "spmv_mpi --threads 512")
    [ "$n" = 2 ] && variants+=("spmv_mpi --overlap --threads 1024" "spmv_mpi --overlap --threads 512")
    for v in "${variants[@]}"; do
      # shellcheck disable=SC2086
      row spmv "$v $kind np $n x$2" "$n" examples/$v $args --no-check
    done
  done
}
for rep in $(seq "$REPS"); do
  for cfg in "1 1" "2 1" "2 2"; do
    read -r n scale <<< "$cfg"
    spmv_problems "$n" "$scale"
    for v in particles particles_mpi "particles_mpi --overlap"; do
      # shellcheck disable=SC2086
      row particles "$v np $n x$scale" "$n" examples/$v --size $((1048576 * scale)) --aspect "$scale" --no-check
    done
    [ "$scale" = 1 ] && for v in pi pi_mpi; do row pi "$v np $n" "$n" examples/$v; done
  done
done
models=$repo/bench/results/2026-11-27-model-h200x2
export DCUDA_MODEL=$models/bench/model-device.csv,$models/world/model-peer.csv
traced() { # NAME CMD...
  local name=$1; shift
  DCUDA_TRACE=$o/traced/$name.json timeout 120 mpirun --allow-run-as-root --bind-to none -np 2 -x DCUDA_TRACE=$o/traced/$name.json "$@" > "$o/traced/$name.log" 2>&1
  echo "traced $name rc=$?" >> "$o/log"
  rm -f "$o/traced/$name.json"
}
[ "${TRACED:-1}" = 1 ] || { cat "$o/log"; cd "$OUT" && tar cJf irregular.tar.xz irregular; exit 0; }
traced particles examples/particles --size 1048576 --no-check
traced spmv-poisson examples/spmv --size 2048 --no-check
traced spmv-random examples/spmv --matrix random --no-check
traced power examples/spmv --matrix random "${power[@]}" --no-check
traced pi examples/pi
unset DCUDA_MODEL
cat "$o/log"; tail -3 "$o/err.log" 2>/dev/null
grep -h "predicted" "$o"/traced/*.log | head -20
medians "$o/apps"
cd "$OUT" && tar cJf irregular.tar.xz irregular && rm -rf irregular
