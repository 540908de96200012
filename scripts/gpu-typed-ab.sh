#!/usr/bin/env bash
# The typed transfers of issue 16 on two GPUs, this commit against an
# earlier one, alternated in one lease (bundle: scripts/gpu-pack-typed.sh):
#   run(command="mkdir -p /tmp/tb && tar xJf .gpu-bundle/bundle.txz -C /tmp/tb && bash /tmp/tb/gpu-typed-ab.sh",
#       carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# Checks first (the typed tests on one GPU, world_checks over NVLink and
# as two nodes),
# then bench_typed and bench_typed_before (and bench_typed_mid where the
# bundle has it) over NVLink REPS times each, alternated, then NVSHMEM's
# typed baseline (ping-pong and streams of 16), then both benches as two
# nodes (through the hosts) once. Each binary's CSV rows name its own
# commit (COMMIT's lines: new, before, mid).
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}
res=/tmp/typed-ab && rm -rf "$res" && mkdir -p "$res"
log=$res/typed.log
REPS=${REPS:-2}
. ./gpu-lib.sh
gpu_env
DCUDA_COMMIT=$(sed -n 1p COMMIT) && export DCUDA_COMMIT
commit_before=$(sed -n 2p COMMIT) commit_mid=$(sed -n 3p COMMIT)
gpu_header "typed A/B: $(tr '\n' ' ' < COMMIT)(new, before, mid)"
build_nvshmem nvshmem_typed > "$res/build.log" 2>&1 &
if [ -z "${SKIP_CHECKS:-}" ]; then
  run "typed tests" tests/typed
  run "typed_random tests" tests/typed_random
  RUN_LIMIT=200 run "world_checks -np 2" mpirun --allow-run-as-root --bind-to none -np 2 examples/world_checks
  RUN_LIMIT=200 run "world_checks -np 2 as two nodes" env DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none -np 2 examples/world_checks
fi
for r in $(seq 1 "$REPS"); do
  run "new $r" mpirun --allow-run-as-root --bind-to none -np 2 bench/bench_typed --out "$res/new-$r"
  run "before $r" env DCUDA_COMMIT="$commit_before" mpirun --allow-run-as-root --bind-to none -np 2 bench/bench_typed_before --out "$res/before-$r"
  if [ -x bench/bench_typed_mid ]; then
    run "mid $r" env DCUDA_COMMIT="$commit_mid" mpirun --allow-run-as-root --bind-to none -np 2 bench/bench_typed_mid --out "$res/mid-$r"
  fi
done
wait
if [ -x /tmp/nvshmem_typed ]; then
  run "nvshmem typed" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nvshmem_typed 20 20 > $res/nvshmem.csv"
  run "nvshmem typed streams" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nvshmem_typed 20 4 16 > $res/nvshmem-stream.csv"
else
  cat "$res/build.log" >> "$log"
fi
run "new, two nodes" env DCUDA_NODE=process mpirun --allow-run-as-root --bind-to none -np 2 bench/bench_typed --out "$res/new-nodes"
run "before, two nodes" env DCUDA_NODE=process DCUDA_COMMIT="$commit_before" mpirun --allow-run-as-root --bind-to none -np 2 bench/bench_typed_before --out "$res/before-nodes"
summary
tar cJf "$out/typed-ab.tar.xz" -C /tmp typed-ab
cp "$log" "$out/"
