#!/usr/bin/env bash
# The multi-process checks under srun instead of mpirun, on a one-node
# Slurm started here (scripts/slurm-local.sh), on the emulator:
# the plans and the world checks with srun --mpi=pmix, and a launch
# whose MPI cannot reach srun (--mpi=none), which must fail, not run
# each task as a job of its own. Usage: scripts/srun-checks.sh TARGET_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug}
eval "$(scripts/slurm-local.sh start)"
trap 'scripts/slurm-local.sh stop' EXIT
export DCUDA_BACKEND=emulator DCUDA_EMULATOR_RANKS=8 DCUDA_WATCHDOG_SECS=60
out=$(mktemp)

expect_all() { # NAME TASKS: every task of the last run said it passed
  for p in $(seq 0 $(($2 - 1))); do
    grep -q "$1: process $p of $2" "$out" || { cat "$out"; echo "srun-checks: $1 process $p did not pass" >&2; exit 1; }
  done
}

echo "srun -n 3 --mpi=pmix plan_checks"
timeout 300 srun -O -n 3 --mpi=pmix "$bin/plan_checks" >"$out" 2>&1 || { cat "$out"; exit 1; }
expect_all plan_checks 3
echo "srun -n 3 --mpi=pmix world_checks"
timeout 300 srun -O -n 3 --mpi=pmix "$bin/world_checks" >"$out" 2>&1 || { cat "$out"; exit 1; }
expect_all world_checks 3
echo "srun -n 2 --mpi=pmix world_checks, each task a node (DCUDA_NODE=process)"
DCUDA_NODE=process timeout 300 srun -O -n 2 --mpi=pmix "$bin/world_checks" >"$out" 2>&1 || { cat "$out"; exit 1; }
expect_all world_checks 2
echo "srun -n 2 --mpi=none plan_checks (must fail)"
if timeout 300 srun -O -n 2 --mpi=none "$bin/plan_checks" >"$out" 2>&1; then
  cat "$out"; echo "srun-checks: a launch MPI could not join ran anyway" >&2; exit 1
fi
if grep -q "process 0 of 1" "$out"; then
  cat "$out"; echo "srun-checks: the tasks ran as jobs of one process each" >&2; exit 1
fi
rm -f "$out"
echo "srun-checks: 4 launches as expected"
