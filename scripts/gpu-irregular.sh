#!/usr/bin/env bash
# Pi and the sparse products (plain and power iteration) on one GPU: the
# dcuda versions and the host-driven baselines, each REPS times, every row
# into $OUT/irregular/{pi,spmv}.csv. Correctness on the GPU first: small
# problems checked against the CPU reference by every variant. Runs from
# the bundle's root on the GPU machine, after gpu-pack.sh.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}/irregular
mkdir -p "$out"
log=$out/irregular.log
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
REPS=${REPS:-5}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
{
  echo "dcuda pi and spmv, commit $(cat COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
} | tee "$log"

run "check pi" examples/pi --size 1000003 --iters 3 --check
run "check pi_mpi" examples/pi_mpi --size 1000003 --iters 3 --check
for v in "examples/spmv" "examples/spmv_mpi" "examples/spmv_mpi --overlap"; do
  run "check $v poisson" $v --size 300 --iters 20 --check
  run "check $v random power" $v --matrix random --size 100003 --power --tol 1e-6 --iters 300 --check
done

csv=$out/pi.csv
echo "program,backend,processes,units,threads,intervals,iters,seconds,pi,error,check" > "$csv"
# Each baseline twice: at its defaults, and with the dcuda version's
# geometry (as many blocks of as many threads as it has ranks), since the
# same compute runs at different speeds with more or fewer threads in flight.
geometry() { "$@" --csv --iters 1 --no-check 2>/dev/null | tail -n 1 | cut -d, -f4,5 | sed 's/^/--ranks /; s/,/ --threads /'; }
read -ra pi_same <<< "$(geometry examples/pi --size 1)"
read -ra spmv_same <<< "$(geometry examples/spmv --size 16)"
for rep in $(seq "$REPS"); do
  measure "pi" examples/pi
  measure "pi_mpi" examples/pi_mpi
  measure "pi_mpi same geometry" examples/pi_mpi "${pi_same[@]}"
done
csv=$out/spmv.csv
echo "program,backend,processes,units,threads,matrix,rows,mode,products,seconds,norm,check" > "$csv"
for problem in "--size 2048" "--size 512" "--matrix random" "--matrix random --power --tol 0"; do
  for rep in $(seq "$REPS"); do
    # shellcheck disable=SC2086
    measure "spmv $problem" examples/spmv $problem --no-check
    # shellcheck disable=SC2086
    measure "spmv_mpi $problem" examples/spmv_mpi $problem --no-check
    # shellcheck disable=SC2086
    measure "spmv_mpi same geometry $problem" examples/spmv_mpi $problem --no-check "${spmv_same[@]}"
  done
done
summary
