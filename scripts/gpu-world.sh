#!/usr/bin/env bash
# The many-GPU checks and benchmarks of issue 5, on a machine with two GPUs
# (device kind nvidia-h200-x2), from the packed bundle:
#   run(command="bash .gpu-bundle/gpu-world.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x2")
# Every program runs under mpirun -np 2 (one process per GPU), over the
# direct (NVLink) route and again with DCUDA_PEER_ACCESS=0 (the MPI network
# manager), then the raw baselines: NVSHMEM (built here with nvcc),
# cudaMemcpyPeer and MPI. The log goes to $OUT/gpu-world.log.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}
log=$out/gpu-world.log
export DCUDA_BACKEND=gpu
# Never use NVLink multicast on shared hosts.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
mpirun_=(mpirun --allow-run-as-root --bind-to none -np 2)

{
  echo "dcuda many-GPU run, commit $(cat COMMIT), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader
  nvidia-smi topo -m | head -4
  mpirun --version | head -1
  ompi_info --parsable --all 2>/dev/null | grep -m1 mpi_built_with_cuda_support || true
  echo
} 2>&1 | tee "$log"

RUN_LIMIT=180
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh

for route in direct network; do
  peer=1; [ $route = network ] && peer=0
  run "world_checks ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/world_checks
  # A failed job exits non-zero; its processes print what failed.
  run "world_checks abort ($route)" bash -c "! env DCUDA_PEER_ACCESS=$peer ${mpirun_[*]} examples/world_checks abort"
  run "distributed_sum ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/distributed_sum
  # The transfer plans between the two processes (tests/tests/plans.rs
  # runs them on the emulator; its binary starts this machine's build).
  run "plan_checks ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/plan_checks
  run "distributed_sum_mpi baseline ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/distributed_sum_mpi
  # Jacobi across the GPUs, checked against the CPU reference; then timed
  # (4096² and 16384², 1000 iterations) with both host-driven baselines.
  for v in jacobi jacobi_mpi "jacobi_mpi --overlap"; do
    run "$v check ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/$v --size 1026 --iters 100 --check
    for size in 4096 16384; do
      run "$v $size ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/$v --size $size --no-check
    done
  done
  # hdiff and Aliev–Panfilov across the GPUs (Aliev–Panfilov split in rows
  # and in columns): checked, then timed at the one-GPU grids.
  for v in hdiff hdiff_mpi "hdiff_mpi --overlap"; do
    run "$v check ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/$v --nx 67 --ny 300 --nz 5 --iters 20 --check
    for grid in "128 640 26" "512 2560 32"; do
      read -r nx ny nz <<< "$grid"
      run "$v $grid ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/$v --nx "$nx" --ny "$ny" --nz "$nz" --no-check
    done
  done
  for v in aliev_panfilov aliev_panfilov_mpi "aliev_panfilov_mpi --overlap"; do
    for split in 1 2; do
      run "$v check, procs-x $split ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/$v --nx 301 --ny 203 --iters 50 --procs-x $split --check
      run "$v 8192, procs-x $split ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/$v --size 8192 --procs-x $split --no-check
    done
  done
  run "stress, 10^6 messages ($route)" env DCUDA_PEER_ACCESS=$peer "${mpirun_[@]}" examples/stress --messages 1000000 --fanout 8 --seed "$(date +%s)"
  run "world_checks wait-on-failed ($route)" bash -c "! env DCUDA_PEER_ACCESS=$peer DCUDA_WATCHDOG_SECS=0 ${mpirun_[*]} examples/world_checks wait-on-failed"
  run "world_checks stop-peer ($route)" bash -c "! env DCUDA_PEER_ACCESS=$peer DCUDA_WATCHDOG_SECS=5 ${mpirun_[*]} examples/world_checks stop-peer"
  run "world_checks panic ($route)" bash -c "! env DCUDA_PEER_ACCESS=$peer ${mpirun_[*]} examples/world_checks panic"
done
# Two processes, one visible GPU: refused with a message naming the fix.
run "two processes one GPU refused" bash -c "out=\$(env CUDA_VISIBLE_DEVICES=0 ${mpirun_[*]} examples/world_checks 2>&1); echo \"\$out\"; grep -q 'run at most one process per GPU' <<<\"\$out\""
# Two processes sharing GPU 0 on purpose (DCUDA_DEVICE): record what happens;
# it must end (pass or a clear error), never hang.
run "two processes share GPU 0 (observed)" bash -c "timeout 120 env CUDA_VISIBLE_DEVICES=0 DCUDA_DEVICE=0 DCUDA_WATCHDOG_SECS=10 ${mpirun_[*]} examples/world_checks; rc=\$?; echo exit=\$rc; [ \$rc != 124 ]"
grep -h "world_checks: process\|distributed_sum:\|distributed_sum_mpi:\|stress: process\|^jacobi\|^hdiff\|^aliev_panfilov" "$log" | head -120

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  run "bench_world (direct)" env DCUDA_PEER_ACCESS=1 "${mpirun_[@]}" bench/bench_world --out "$out/bench"
  run "bench_world (network)" env DCUDA_PEER_ACCESS=0 "${mpirun_[@]}" bench/bench_world --out "$out/bench"
  if [ -x bench-before/bench_world ]; then
    before=$(cat bench-before/COMMIT)
    run "bench_world (direct, before $before)" env DCUDA_PEER_ACCESS=1 "${mpirun_[@]}" bench-before/bench_world --out "$out/bench-before"
    run "bench_world (network, before $before)" env DCUDA_PEER_ACCESS=0 "${mpirun_[@]}" bench-before/bench_world --out "$out/bench-before"
  fi
  nv=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nvshmem"))' 2>/dev/null)
  echo "--- NVSHMEM from $nv" | tee -a "$log"
  if nvcc -O2 -rdc=true -arch=sm_90 -I"$nv/include" $(mpicc --showme:compile) \
      baselines/nvshmem_peer.cu -o nvshmem_peer -L"$nv/lib" -l:libnvshmem_host.so.3 -lnvshmem_device \
      $(mpicc --showme:link) -Xlinker -rpath -Xlinker "$nv/lib" >>"$log" 2>&1; then
    run "nvshmem baseline" env NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo \
      "${mpirun_[@]}" ./nvshmem_peer
  else
    fail=$((fail + 1)); failed+=("nvshmem build"); echo "FAIL nvshmem build" | tee -a "$log"
  fi
  grep -E "^(auto|network|nvshmem|cudaMemcpyPeer)" "$log"
  # Collectives over every rank of both GPUs against NVSHMEM in one kernel.
  if [ "${SKIP_COLLECTIVES:-0}" != 1 ]; then
    run "bench_world_collectives" env DCUDA_PEER_ACCESS=1 "${mpirun_[@]}" bench/bench_world_collectives --out "$out/bench"
    max=$(grep -o "max ranks per GPU: [0-9]*" "$log" | tail -1 | grep -o "[0-9]*$")
    if nvcc -O2 -rdc=true -arch=sm_90 -I"$nv/include" $(mpicc --showme:compile) \
        baselines/nvshmem_collectives.cu -o nvshmem_collectives -L"$nv/lib" -l:libnvshmem_host.so.3 -lnvshmem_device \
        $(mpicc --showme:link) -Xlinker -rpath -Xlinker "$nv/lib" >>"$log" 2>&1; then
      run "nvshmem collectives baseline" bash -c "env NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo ${mpirun_[*]} ./nvshmem_collectives 100 200 1 8 32 132 ${max:-1320} > $out/bench/world-collectives-nvshmem.csv"
      run "world collectives table" bench/bench_world_collectives --join "$out/bench"
      sed -n '/^collective/,/^wrote/p' "$log" | tail -14
    else
      fail=$((fail + 1)); failed+=("nvshmem collectives build"); echo "FAIL nvshmem collectives build" | tee -a "$log"
    fi
  fi
  # Messages between the GPUs against notified puts (direct route).
  run "bench_messages" env DCUDA_PEER_ACCESS=1 "${mpirun_[@]}" bench/bench_messages --out "$out/bench"
  sed -n '/^dcuda bench_messages/,/^wrote/p' "$log"
  # A large allreduce of each GPU's buffer: dcuda's rails against NCCL.
  if [ "${SKIP_ALLREDUCE:-0}" != 1 ]; then
    run "bench_world_allreduce" env DCUDA_PEER_ACCESS=1 "${mpirun_[@]}" bench/bench_world_allreduce --out "$out/bench"
    sizes=$(grep -o "baseline sizes: .*" "$log" | tail -1 | cut -d: -f2)
    nccl=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nccl"))' 2>/dev/null)
    echo "--- NCCL from $nccl: $(ls "$nccl/lib" 2>/dev/null | tr '\n' ' ')" | tee -a "$log"
    if nvcc -O2 -arch=sm_90 -I"$nccl/include" $(mpicc --showme:compile) baselines/nccl_allreduce.cu \
        -o nccl_allreduce -L"$nccl/lib" -l:libnccl.so.2 $(mpicc --showme:link) \
        -Xlinker -rpath -Xlinker "$nccl/lib" >>"$log" 2>&1; then
      run "nccl allreduce baseline" bash -c "${mpirun_[*]} ./nccl_allreduce 20 5 $sizes > $out/bench/allreduce-nccl.csv"
      run "allreduce table" bench/bench_world_allreduce --join "$out/bench"
      sed -n '/^     bytes/,/^wrote/p' "$log" | tail -8
    else
      fail=$((fail + 1)); failed+=("nccl build"); echo "FAIL nccl build" | tee -a "$log"
    fi
  fi
fi

summary
