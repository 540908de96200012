#!/usr/bin/env bash
# The host route of issue 16 on two GPUs (bundle: scripts/gpu-pack-host-route.sh):
#   run(command="mkdir -p /tmp/hr && tar xJf .gpu-bundle/bundle.txz -C /tmp/hr && bash /tmp/hr/gpu-host-route.sh",
#       carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# world_checks as two nodes (unless SKIP_CHECKS is set), the
# host-packing baseline and the host route's parts
# (host_packed_typed.cu), then bench_typed as two nodes (the typed pieces
# through the hosts), with the hosts' per-piece timings
# (DCUDA_LOG=dcuda::laid=trace) unless NO_TRACE is set, and
# bench_typed_before where the bundle has it, and bench_typed with each of
# VARIANTS (name:VAR=value, the variable set), and each build
# bench/bench_typed_x-NAME in the bundle (another constant); REPS times each, alternated,
# under each of MECHS (OpenMPI's shared-memory single-copy mechanisms,
# `btl_vader_single_copy_mechanism`; default "none cma", each run's
# results in a directory of that name). Results in $OUT/host-route.tar.xz.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}
res=/tmp/host-route && rm -rf "$res" && mkdir -p "$res"
log=$res/host-route.log
REPS=${REPS:-1}
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
DCUDA_COMMIT=$(head -1 COMMIT) && export DCUDA_COMMIT
{
  echo "host route: $(tr '\n' ' ' < COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvidia-smi topo -m | head -3
  mpirun --version | head -1
} 2>&1 | tee "$log"
. ./gpu-lib.sh
nvcc -O2 -arch=sm_90 $(mpicc --showme:compile) baselines/host_packed_typed.cu -o /tmp/host_packed_typed $(mpicc --showme:link) >> "$log" 2>&1
if [ -z "${SKIP_CHECKS:-}" ]; then
  for mech in ${MECHS:-none cma}; do
    RUN_LIMIT=200 run "world_checks -np 2 as two nodes, $mech" env DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none --mca btl_vader_single_copy_mechanism "$mech" -np 2 examples/world_checks
  done
fi
for r in $(seq 1 "$REPS"); do
  for mech in ${MECHS:-none cma}; do
    d=$res/$mech && mkdir -p "$d" && mca=(--mca btl_vader_single_copy_mechanism "$mech")
    run "host packing $mech $r" bash -c "mpirun --allow-run-as-root --bind-to none ${mca[*]} -np 2 /tmp/host_packed_typed 200 > $d/host-packed-$r.csv"
    trace=dcuda::laid=trace,dcuda::route=trace && [ -n "${NO_TRACE:-}" ] && trace=info
    RUN_LIMIT=300 run "bench_typed $mech, two nodes $r" bash -c "DCUDA_LOG=$trace DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none ${mca[*]} -np 2 bench/bench_typed --out $d/nodes-$r 2> $d/nodes-$r.trace"
    for v in ${VARIANTS:-}; do # name:VAR=value, bench_typed with VAR set
      RUN_LIMIT=300 run "bench_typed ${v%%:*} $mech, two nodes $r" bash -c "env ${v#*:} DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none -x ${v#*:} ${mca[*]} -np 2 bench/bench_typed --out $d/${v%%:*}-nodes-$r"
    done
    for b in bench/bench_typed_x-*; do # builds of other constants, named after the x-
      [ -x "$b" ] && RUN_LIMIT=300 run "${b#bench/bench_typed_} $mech, two nodes $r" bash -c "DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none ${mca[*]} -np 2 $b --out $d/${b#bench/bench_typed_}-nodes-$r"
    done
    [ -x bench/bench_typed_before ] && RUN_LIMIT=300 run "bench_typed_before $mech, two nodes $r" bash -c "DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none ${mca[*]} -np 2 bench/bench_typed_before --out $d/before-nodes-$r"
  done
done
summary
xz -T0 "$res"/*/*.trace 2>/dev/null
tar cJf "$out/host-route.tar.xz" -C /tmp host-route
cp "$log" "$out/"
