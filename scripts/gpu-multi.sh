#!/usr/bin/env bash
# Everything that needs several GPUs, in one budgeted command, for a
# machine of 2 or 4 GPUs (device kinds nvidia-h200-x2, nvidia-h200-x4):
#   run(command="bash .gpu-bundle/unpack.sh gpu-multi.sh", carry=[".gpu-bundle"], kind="nvidia-h200-x4")
# In order of what the open issues need most: the applications' checks
# across GPUs and the multi-process checks as one job and as two nodes;
# Jacobi on 1, 2 (and 4) GPUs against its host-driven baselines and the
# nvcc kernel; a traced two-GPU Jacobi; the world collectives against
# NVSHMEM and NCCL; messages between GPUs; the other applications on 1 and
# 2 GPUs (strong and weak scaling); latency over NVLink against NVSHMEM;
# the transfer plans between two processes. A step that would start after
# BUDGET seconds is skipped (and named), so what ran always comes back:
# everything lands in $OUT/multi.tar.xz, the log also in $OUT/multi.log.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}
res=/tmp/multi
rm -rf "$res" && mkdir -p "$res/apps" "$res/bench" "$res/trace"
log=$out/multi.log
BUDGET=${BUDGET:-540}
# Which parts run (all by default), e.g. SECTIONS="latency sweep";
# "messages" (the message checks and benchmarks alone) only when named.
SECTIONS=${SECTIONS:-checks jacobi trace collectives apps latency plans typed nodes sweep}
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
REPS=${REPS:-3}
export DCUDA_BACKEND=gpu
DCUDA_COMMIT=$(cat COMMIT 2>/dev/null || echo unknown)
export DCUDA_COMMIT
# Never use NVLink multicast on shared hosts.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo
gpus=$(nvidia-smi -L | wc -l)
# `mpi N CMD...`: CMD alone (N = 1) or under mpirun -np N; a program, so
# that timeout and env can start it.
mkdir -p /tmp/multi-bin
cat > /tmp/multi-bin/mpi <<'MPI'
#!/usr/bin/env bash
n=$1; shift
if [ "$n" = 1 ]; then exec "$@"; else exec mpirun --allow-run-as-root --bind-to none -np "$n" "$@"; fi
MPI
chmod +x /tmp/multi-bin/mpi
export PATH=/tmp/multi-bin:$PATH

{
  echo "dcuda multi-GPU run, commit $DCUDA_COMMIT, $(date -u +%Y-%m-%dT%H:%M:%SZ), $gpus GPUs, budget ${BUDGET}s"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,pci.bus_id --format=csv,noheader
  nvidia-smi topo -m | head -$((gpus + 1))
  mpirun --version | head -1
  nvcc --version | tail -1
} 2>&1 | tee "$log"

RUN_LIMIT=120
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
skipped=()
# `step NAME CMD...`: `run`, unless the budget is spent.
step() {
  if [ "$SECONDS" -ge "$BUDGET" ]; then skipped+=("$1"); echo "SKIP $1 (budget)" | tee -a "$log"; return 0; fi
  run "$@"
}
# `row CSV NAME CMD...`: CMD --csv, its header once and its row into CSV.
row() {
  local csv=$1 name=$2; shift 2
  if [ "$SECONDS" -ge "$BUDGET" ]; then skipped+=("$name"); echo "SKIP $name (budget)" | tee -a "$log"; return 0; fi
  local tmp=/tmp/row.csv
  if timeout 60 "$@" --csv > "$tmp" 2>>"$log"; then
    [ -s "$csv" ] || head -n 1 "$tmp" > "$csv"
    tail -n 1 "$tmp" >> "$csv"; echo "$name: $(tail -n 1 "$tmp")" | tee -a "$log"
  else
    fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name" | tee -a "$log"
  fi
}

# The CUDA C baselines build beside the runs.
nv=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nvshmem"))' 2>/dev/null)
nccl=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nccl"))' 2>/dev/null)
echo "NVSHMEM $nv ($(ls "$nv/lib" | tr '\n' ' ')); NCCL $nccl ($(ls "$nccl/lib" | tr '\n' ' '))" | tee -a "$log"
(
  nvcc -O3 -arch=sm_90 -o /tmp/jacobi_single baselines/jacobi_single.cu > /tmp/build-jacobi.log 2>&1 &
  build_nvshmem nvshmem_collectives > /tmp/build-nvshmem-collectives.log 2>&1 &
  build_nvshmem nvshmem_peer > /tmp/build-nvshmem-peer.log 2>&1 &
  build_nvshmem nvshmem_typed > /tmp/build-nvshmem-typed.log 2>&1 &
  nvcc -O2 -arch=sm_90 -I"$nccl/include" $(mpicc --showme:compile) baselines/nccl_allreduce.cu -o /tmp/nccl_allreduce \
    -L"$nccl/lib" -l:libnccl.so.2 $(mpicc --showme:link) -Xlinker -rpath -Xlinker "$nccl/lib" > /tmp/build-nccl.log 2>&1 &
  nvcc -O2 -arch=sm_90 -I"$nccl/include" $(mpicc --showme:compile) baselines/plans_by_hand.cu -o /tmp/plans_by_hand \
    -L"$nccl/lib" -l:libnccl.so.2 $(mpicc --showme:link) -Xlinker -rpath -Xlinker "$nccl/lib" > /tmp/build-plans.log 2>&1 &
  wait
) &
builds=$!
# `ready`: waits for those builds, once, where a step first needs them.
ready() {
  [ -n "${built:-}" ] && return 0
  wait "$builds"; built=1
  tail -n 3 /tmp/build-*.log >> "$log" 2>&1
}

# 1. Correctness across two GPUs.
if want checks; then
  step "world_checks -np 2" mpi 2 examples/world_checks
  step "world_checks -np 2 as two nodes" env DCUDA_NODE=process mpi 2 examples/world_checks
  [ "$gpus" -ge 4 ] && step "world_checks -np 4" mpi 4 examples/world_checks
  for v in jacobi jacobi_mpi "jacobi_mpi --overlap"; do
    step "check $v -np 2" mpi 2 examples/$v --size 1026 --iters 100 --check
  done
  for v in hdiff hdiff_mpi "hdiff_mpi --overlap"; do
    step "check $v -np 2" mpi 2 examples/$v --nx 67 --ny 300 --nz 5 --iters 20 --check
  done
  for v in aliev_panfilov aliev_panfilov_mpi "aliev_panfilov_mpi --overlap"; do
    step "check $v -np 2 procs-x 2" mpi 2 examples/$v --nx 301 --ny 203 --iters 50 --procs-x 2 --check
  done
  for v in particles particles_mpi "particles_mpi --overlap"; do
    step "check $v -np 2" mpi 2 examples/$v --size 40000 --iters 40 --check
  done
  for v in spmv spmv_mpi "spmv_mpi --overlap"; do
    step "check $v -np 2" mpi 2 examples/$v --size 300 --iters 20 --check
    step "check $v -np 2 random power" mpi 2 examples/$v --matrix random --size 100003 --power --tol 1e-6 --iters 300 --check
  done
  for v in pi pi_mpi; do
    step "check $v -np 2" mpi 2 examples/$v --size 1000003 --iters 3 --check
  done
  step "distributed_sum -np 2" mpi 2 examples/distributed_sum
  step "plan_checks -np 2" mpi 2 examples/plan_checks
  step "plan_checks -np 2 as two nodes" env DCUDA_NODE=process mpi 2 examples/plan_checks
  step "check jacobi -np 2 as two nodes" env DCUDA_NODE=process mpi 2 examples/jacobi --size 1026 --iters 100 --check
  step "check spmv -np 2 as two nodes" env DCUDA_NODE=process mpi 2 examples/spmv --size 300 --iters 20 --check
fi

# 2. Jacobi: strong scaling at 4096² and 16384², 1000 iterations, on 1,
# 2 and (where there are four) 4 GPUs.
if want jacobi; then
  ready
  csv=$res/apps/jacobi.csv
  counts="1 2"; [ "$gpus" -ge 4 ] && counts="1 2 4"
  for size in 4096 16384; do
    for rep in $(seq "$REPS"); do
      for n in $counts; do
        row "$csv" "jacobi $size np $n" mpi $n examples/jacobi --size $size --no-check
        row "$csv" "jacobi_mpi $size np $n" mpi $n examples/jacobi_mpi --size $size --no-check
        row "$csv" "jacobi_mpi --overlap $size np $n" mpi $n examples/jacobi_mpi --overlap --size $size --no-check
      done
      # Both geometries: 1024 threads a block is the kernel's fastest on an
      # H200 at 16384², 512 its default; the table takes the faster.
      [ -x /tmp/jacobi_single ] && row "$csv" "jacobi_single $size" /tmp/jacobi_single --size $size
      [ -x /tmp/jacobi_single ] && row "$csv" "jacobi_single 1024 $size" /tmp/jacobi_single --size $size --threads 1024
    done
  done
fi

# 3. A traced two-GPU Jacobi: a timeline of 20 iterations, and 1000
# iterations for the breakdown beside an untraced run.
if want trace; then
  step "traced jacobi -np 2, 20 iterations" env DCUDA_TRACE="$res/trace/jacobi2.json" mpi 2 examples/jacobi --size 4096 --iters 20 --no-check
  for rep in 1 2; do
    row "$csv" "jacobi 4096 np 2 traced" env DCUDA_TRACE=/tmp/jacobi2-1000.json DCUDA_TRACE_SPANS=8192 mpi 2 examples/jacobi --size 4096 --no-check
    sed -i '$ s/^jacobi,/jacobi (traced),/' "$csv"
    row "$csv" "jacobi 4096 np 2 (beside traced)" mpi 2 examples/jacobi --size 4096 --no-check
  done
  cp /tmp/jacobi2-1000.txt /tmp/jacobi2-1000.breakdown.svg "$res/trace/" 2>/dev/null
fi

# 4. World collectives over every rank of both GPUs: against NVSHMEM in one
# kernel (8 B) and NCCL (large); messages between the GPUs.
if want collectives; then
  ready
  step "bench_world_collectives" mpi 2 bench/bench_world_collectives --out "$res/bench"
  max=$(grep -o "max ranks per GPU: [0-9]*" "$log" | tail -1 | grep -o "[0-9]*$")
  [ -x /tmp/nvshmem_collectives ] && step "nvshmem collectives baseline" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nvshmem_collectives 100 200 1 8 32 132 ${max:-1320} > $res/bench/world-collectives-nvshmem.csv"
  step "world collectives table" bench/bench_world_collectives --join "$res/bench"
  step "bench_world_allreduce" mpi 2 bench/bench_world_allreduce --out "$res/bench"
  sizes=$(grep -o "baseline sizes: .*" "$log" | tail -1 | cut -d: -f2)
  [ -x /tmp/nccl_allreduce ] && step "nccl allreduce baseline" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nccl_allreduce 20 5 $sizes > $res/bench/allreduce-nccl.csv"
  step "allreduce table" bench/bench_world_allreduce --join "$res/bench"
  step "bench_messages -np 2" mpi 2 bench/bench_messages --out "$res/bench/messages"
fi

# 4b. Messages alone: the checks across two GPUs (the peer logs), then
# send/recv against notified put between the GPUs and on one.
if want messages; then
  step "world_checks -np 2 (direct)" env WORLD_CHECKS_DIRECT=1 mpi 2 examples/world_checks
  step "bench_messages -np 2" mpi 2 bench/bench_messages --out "$res/bench/messages"
  step "bench_messages one GPU" bench/bench_messages --out "$res/bench/messages-one-gpu"
fi

# 4c. Where a large allreduce's time goes: 16 MiB over rails of 8 to 132
# ranks per GPU (opt-in, "allreduce-ranks").
if want allreduce-ranks; then
  for r in 8 33 66 132; do
    step "allreduce 16 MiB, $r ranks" env ALLREDUCE_RANKS=$r ALLREDUCE_BYTES=16777216 mpi 2 bench/bench_world_allreduce --quick --out /tmp/ar-$r
  done
fi

# 5. The other applications on 1 and 2 GPUs: strong scaling (same grid)
# and weak scaling (the split dimension doubled).
if want apps; then
  REPS2=${REPS2:-2}
  # Four GPUs, where there are: strong scaling at the one-GPU grids and
  # weak scaling at four times their width.
  four_hdiff=(); four_ap=()
  [ "$gpus" -ge 4 ] && four_hdiff=("4 128 320 26" "4 128 1280 26" "4 512 1280 32" "4 512 5120 32") \
    && four_ap=("4 4096 4096" "4 4096 16384")
  csv=$res/apps/hdiff.csv
  mkdir -p "$res/variants"
  for rep in $(seq "$REPS2"); do
    for cfg in "1 128 320 26" "2 128 320 26" "2 128 640 26" "1 512 1280 32" "2 512 2560 32" "${four_hdiff[@]}"; do
      read -r n nx ny nz <<< "$cfg"
      # The baselines at 512 threads too: their fastest on the small grids
      # of an H200 (../bench/results/2026-11-28-hdiff-chunks-h200x2/).
      for v in hdiff hdiff_mpi "hdiff_mpi --overlap" "hdiff_mpi --threads 512" "hdiff_mpi --overlap --threads 512"; do
        row "$csv" "$v $nx×$ny×$nz np $n" mpi $n examples/$v --nx $nx --ny $ny --nz $nz --no-check
      done
      # The rank kernel with its loads cached the other way than its
      # default chose (`rank_caching`, the dlcm column of its row):
      # beside the scaling table, not in it.
      chosen=$(grep "^hdiff,gpu,$n,[^,]*,[^,]*,$nx,$ny,$nz," "$csv" | tail -n 1 | awk -F, '{print $NF}')
      other=ca; [ "$chosen" = ca ] && other=cg
      row "$res/variants/hdiff.csv" "hdiff --dlcm $other $nx×$ny×$nz np $n" mpi $n examples/hdiff --nx $nx --ny $ny --nz $nz --dlcm $other --no-check
    done
  done
  csv=$res/apps/aliev_panfilov.csv
  for rep in $(seq "$REPS2"); do
    # 2048²: where the baseline communicates most of its time
    # (../bench/results/2026-11-28-ap-division-h200x2/).
    for cfg in "1 4096 4096" "2 4096 4096" "2 4096 8192" "1 2048 2048" "2 2048 2048" "2 2048 4096" "${four_ap[@]}"; do
      read -r n nx ny <<< "$cfg"
      # The baselines by both walks: claims (their default) is the faster
      # at 4096² on one H200, stride at 2048² (../bench/results/2026-11-29-claims-h200/).
      for v in aliev_panfilov aliev_panfilov_mpi "aliev_panfilov_mpi --overlap" "aliev_panfilov_mpi --walk stride" "aliev_panfilov_mpi --overlap --walk stride"; do
        row "$csv" "$v $nx×$ny np $n" mpi $n examples/$v --nx $nx --ny $ny --procs-x 1 --no-check
      done
    done
  done
  csv=$res/apps/particles.csv
  for rep in $(seq "$REPS2"); do
    # Weak scaling doubles the box's width with the particles (the
    # slabs split the width): each slab keeps its shape and particles.
    for cfg in "1 1048576 1" "2 1048576 1" "2 2097152 2"; do
      read -r n size aspect <<< "$cfg"
      for v in particles particles_mpi "particles_mpi --overlap"; do
        row "$csv" "$v $size aspect $aspect np $n" mpi $n examples/$v --size $size --aspect $aspect --no-check
      done
    done
  done
  csv=$res/apps/spmv.csv
  for rep in $(seq "$REPS2"); do
    for cfg in "1 --size 2048" "2 --size 2048" "1 --matrix random" "2 --matrix random"; do
      read -r n problem <<< "$cfg"
      for v in spmv spmv_mpi "spmv_mpi --overlap"; do
        # shellcheck disable=SC2086
        row "$csv" "$v $problem np $n" mpi $n examples/$v $problem --no-check
      done
    done
  done
  csv=$res/apps/pi.csv
  for rep in $(seq "$REPS2"); do
    for n in 1 2; do
      for v in pi pi_mpi; do row "$csv" "$v np $n" mpi $n examples/$v; done
    done
  done
fi

# 6. The plans between two GPUs: checked (peer copies where the GPUs map
# each other), then timed against copies by hand (CUDA IPC, NCCL).
if want plans; then
  step "plan_checks -np 2 (peer route)" mpi 2 examples/plan_checks
  step "moving_data -np 2" mpi 2 examples/moving_data
  step "bench_plans -np 2" mpi 2 bench/bench_plans --out "$res/bench"
  ready
  [ -x /tmp/plans_by_hand ] && step "plans by hand (IPC, NCCL)" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/plans_by_hand 5 1073741824 268435456 > $res/bench/plans-by-hand.csv"
fi
# Typed transfers between the GPUs (direct route over NVLink) against
# NVSHMEM's strided puts.
if want typed; then
  mkdir -p "$res/bench/typed"
  step "bench_typed -np 2" mpi 2 bench/bench_typed --out "$res/bench/typed"
  # Through the host route (each process a node): packed on the device
  # into the staging area in pieces, against packing by hand.
  step "bench_typed -np 2 as two nodes" env DCUDA_NODE=process mpi 2 bench/bench_typed --out "$res/bench/typed-two-nodes"
  ready
  [ -x /tmp/nvshmem_typed ] && step "nvshmem typed baseline" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nvshmem_typed 20 20 > $res/bench/typed/typed-nvshmem.csv"
  # Streams of 16, as bench_typed's stream measure.
  [ -x /tmp/nvshmem_typed ] && step "nvshmem typed baseline, streams" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nvshmem_typed 20 4 16 > $res/bench/typed/typed-nvshmem-stream.csv"
fi
# Latency and bandwidth over NVLink against NVSHMEM.
# The NVSHMEM baselines first, so that bench_world puts them in its CSV,
# table and plots beside its own rows (same job, same device clock).
if want latency; then
  ready
  base=()
  [ -x /tmp/nvshmem_peer ] && step "nvshmem peer baseline" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nvshmem_peer > $res/bench/world-nvshmem-peer.csv" \
    && [ -s "$res/bench/world-nvshmem-peer.csv" ] && base=(--baseline "$res/bench/world-nvshmem-peer.csv")
  step "bench_world (direct)" mpi 2 bench/bench_world --out "$res/bench" "${base[@]}"
  step "bench_world (network)" env DCUDA_PEER_ACCESS=0 mpi 2 bench/bench_world --out "$res/bench"
fi

# 7. Jacobi at 4096² on two GPUs in other rank geometries than the
# default (264 ranks of 256 threads a GPU).
if want sweep; then
  csv=$res/apps/jacobi-sweep.csv
  for rep in 1 2; do
    for cfg in "" "--threads 128" "--threads 512" "--threads 1024" "--ranks 132 --threads 256" "--ranks 132 --threads 512"; do
      # shellcheck disable=SC2086
      row "$csv" "jacobi 4096 np 2 $cfg" mpi 2 examples/jacobi --size 4096 --no-check $cfg
    done
  done
fi

# Every byte between the processes over the MPI transport.
want nodes && step "bench_world (two nodes)" env DCUDA_NODE=process mpi 2 bench/bench_world --out "$res/bench/two-nodes"

echo "skipped ${#skipped[@]}: ${skipped[*]:-}" | tee -a "$log"
echo "elapsed ${SECONDS}s" | tee -a "$log"
cp "$log" "$res/"
# Traces' JSON only where small; everything else as it is.
find "$res" -name '*.json' -size +12M -delete
tar cf - -C /tmp multi | xz -T0 -6 > "$out/multi.tar.xz"
ls -la "$out"
summary
