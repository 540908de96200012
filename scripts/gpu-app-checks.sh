#!/usr/bin/env bash
# The irregular applications and Aliev–Panfilov checked against their CPU
# references on the GPUs at their defaults, on one GPU and across two
# (and spmv as two nodes): the checks of gpu-multi.sh for these programs,
# from the bundle of scripts/gpu-pack-model.sh. Then
#   run(command="bash scripts/gpu-app-checks.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# Prints PASS or FAIL a check and the count; the log in $OUT/app-checks.log.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)/.gpu-bundle
mkdir -p "$here/unpacked" && tar xJf "$here/bundle.txz" -C "$here/unpacked"
cd "$here/unpacked"
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
log=$OUT/app-checks.log
echo "commit $(cat COMMIT) $(date -u +%FT%TZ)" > "$log"
pass=0 fail=0
check() { # NAME NP CMD...
  local name=$1 n=$2; shift 2
  local cmd=("$@")
  [ "$n" -gt 1 ] && cmd=(mpirun --allow-run-as-root --bind-to none -np "$n" "$@")
  if timeout 120 "${cmd[@]}" --check >> "$log" 2>&1; then
    pass=$((pass + 1)); echo "PASS $name" | tee -a "$log"
  else
    fail=$((fail + 1)); echo "FAIL $name" | tee -a "$log"
  fi
}
for n in 1 2; do
  for v in aliev_panfilov aliev_panfilov_mpi "aliev_panfilov_mpi --overlap"; do
    # shellcheck disable=SC2086
    check "$v -np $n" $n examples/$v --nx 301 --ny 203 --iters 50 --procs-x $n
  done
  for v in particles particles_mpi "particles_mpi --overlap"; do
    # shellcheck disable=SC2086
    check "$v -np $n" $n examples/$v --size 40000 --iters 40
  done
  for v in spmv spmv_mpi "spmv_mpi --overlap"; do
    # shellcheck disable=SC2086
    check "$v -np $n" $n examples/$v --size 300 --iters 20
    # shellcheck disable=SC2086
    check "$v -np $n random power" $n examples/$v --matrix random --size 100003 --power --tol 1e-6 --iters 300
  done
  for v in pi pi_mpi; do
    # shellcheck disable=SC2086
    check "$v -np $n" $n examples/$v --size 1000003 --iters 3
  done
done
export DCUDA_NODE=process
check "spmv -np 2 as two nodes" 2 examples/spmv --size 300 --iters 20
unset DCUDA_NODE
echo "$pass passed, $fail failed" | tee -a "$log"
