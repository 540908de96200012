#!/usr/bin/env bash
# A runtime change against the commit before it, alternated in one lease
# on two GPUs (bundle: scripts/gpu-pack-ab.sh):
#   run(command="mkdir -p /tmp/ab && tar xJf .gpu-bundle/bundle.txz -C /tmp/ab && bash /tmp/ab/gpu-ab.sh",
#       carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# Checks first (the typed tests on one GPU, world_checks over NVLink and as
# two nodes), then REPS rounds of new and before: bench_world --quick
# (latency and bandwidth between the GPUs), bench_typed, Jacobi at 4096²
# and 16384² on both GPUs; then NVSHMEM's baselines of both benches and
# Jacobi's nvcc kernel on one GPU, in the same lease. Each binary's CSV
# rows name its own commit (COMMIT's lines: new, before). Results in
# $OUT/ab.tar.xz.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}
res=/tmp/ab-res && rm -rf "$res" && mkdir -p "$res"
log=$res/ab.log
REPS=${REPS:-2}
. ./gpu-lib.sh
gpu_env
DCUDA_COMMIT=$(sed -n 1p COMMIT) && export DCUDA_COMMIT
commit_before=$(sed -n 2p COMMIT)
mpi=(mpirun --allow-run-as-root --bind-to none -np 2)
gpu_header "A/B: $(tr '\n' ' ' < COMMIT)(new, before)"
for b in nvshmem_peer nvshmem_typed; do
  build_nvshmem $b > "$res/build-$b.log" 2>&1 &
done
(nvcc -O3 -arch=sm_90 -o /tmp/jacobi_single baselines/jacobi_single.cu > "$res/build-jacobi.log" 2>&1) &
if [ -z "${SKIP_CHECKS:-}" ]; then
  run "typed tests" bin/typed_tests
  RUN_LIMIT=200 run "world_checks -np 2" "${mpi[@]}" bin/world_checks
  RUN_LIMIT=200 run "world_checks -np 2 as two nodes" env DCUDA_NODE=process "${mpi[@]}" bin/world_checks
  run "jacobi check" "${mpi[@]}" bin/jacobi --size 1026 --iters 100 --check
fi
jac() { # binary, label, commit
  for size in 4096 16384; do
    local t0=$SECONDS
    if DCUDA_COMMIT=$3 timeout 120 "${mpi[@]}" "bin/$1" --size $size --no-check --csv > /tmp/row.csv 2>>"$log"; then
      tail -n 1 /tmp/row.csv | sed "s|^|$2,|" >> "$res/jacobi.csv"
    else
      echo "FAIL $2 jacobi $size" | tee -a "$log"
    fi
    echo "$2 jacobi $size: $((SECONDS - t0)) s" >> "$log"
  done
}
for r in $(seq 1 "$REPS"); do
  for side in new before; do
    sfx=; c=$DCUDA_COMMIT
    [ $side = before ] && sfx=_before c=$commit_before
    t0=$SECONDS
    run "$side $r bench_world" env DCUDA_COMMIT="$c" "${mpi[@]}" "bin/bench_world$sfx" --quick --out "$res/$side-$r"
    run "$side $r bench_typed" env DCUDA_COMMIT="$c" "${mpi[@]}" "bin/bench_typed$sfx" --out "$res/$side-$r"
    jac "jacobi$sfx" "$side" "$c"
    echo "$side $r: $((SECONDS - t0)) s" | tee -a "$log"
  done
done
wait
[ -x /tmp/nvshmem_peer ] && run "nvshmem peer" bash -c "${mpi[*]} /tmp/nvshmem_peer > $res/nvshmem-peer.csv"
if [ -x /tmp/nvshmem_typed ]; then
  run "nvshmem typed" bash -c "${mpi[*]} /tmp/nvshmem_typed 20 20 > $res/nvshmem-typed.csv"
  run "nvshmem typed streams" bash -c "${mpi[*]} /tmp/nvshmem_typed 20 4 16 > $res/nvshmem-typed-stream.csv"
fi
if [ -x /tmp/jacobi_single ]; then
  for threads in 512 1024; do
    for size in 4096 16384; do
      /tmp/jacobi_single --size $size --threads $threads --csv > /tmp/row.csv 2>>"$log" \
        && tail -n 1 /tmp/row.csv | sed "s|^|nvcc $threads,|" >> "$res/jacobi-single.csv"
    done
  done
fi
cat "$res"/build-*.log >> "$log"
summary
tar cJf "$out/ab.tar.xz" -C /tmp ab-res
cp "$log" "$out/"
