#!/usr/bin/env bash
# The particle simulation on one GPU: the dcuda version and the
# host-driven baselines, each REPS times, every row into
# $OUT/particles/particles.csv. Correctness on the GPU first: a small box
# checked against the CPU reference by every variant, and the rank
# kernel's abort path. Runs from the bundle's root on the GPU machine,
# after gpu-pack.sh.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}/particles
mkdir -p "$out"
log=$out/particles.log
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
REPS=${REPS:-5}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
{
  echo "dcuda particles, commit $(cat COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
} | tee "$log"

for v in "examples/particles" "examples/particles_mpi" "examples/particles_mpi --overlap"; do
  run "check $v" $v --size 40000 --iters 40 --check
  run "check $v on 7 units" $v --size 40000 --iters 40 --ranks 7 --check
done
if examples/particles --size 40000 --iters 3 --dt 40 >>"$log" 2>&1; then
  fail=$((fail + 1)); failed+=("abort"); echo "FAIL abort: a stray particle went unreported" | tee -a "$log"
elif grep -q "aborted the run with code 3" "$log"; then
  pass=$((pass + 1)); echo "PASS abort" | tee -a "$log"
else
  fail=$((fail + 1)); failed+=("abort"); echo "FAIL abort: no abort code 3" | tee -a "$log"
fi

csv=$out/particles.csv
echo "program,backend,processes,units,threads,particles,steps,seconds,drift,check" > "$csv"
# The dcuda version's threads and register cap (SWEEP_SIZES="" skips it), then each baseline at
# its defaults and in the dcuda version's geometry.
for size in ${SWEEP_SIZES-1048576 262144 4194304}; do
  for cfg in "--threads 128" "--threads 256" "--threads 512" "--threads 256 --max-registers 64"; do
    # shellcheck disable=SC2086
    measure "sweep particles --size $size $cfg" examples/particles --size $size $cfg --no-check
  done
done
geometry() { "$@" --csv --iters 1 --no-check 2>/dev/null | tail -n 1 | cut -d, -f4,5 | sed 's/^/--ranks /; s/,/ --threads /'; }
for size in 1048576 262144 4194304; do
  read -ra same <<< "$(geometry examples/particles --size "$size")"
  for rep in $(seq "$REPS"); do
    measure "particles $size" examples/particles --size "$size" --no-check
    measure "particles_mpi $size" examples/particles_mpi --size "$size" --no-check
    measure "particles_mpi same geometry $size" examples/particles_mpi --size "$size" --no-check "${same[@]}"
  done
done
summary
