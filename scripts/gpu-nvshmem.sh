#!/usr/bin/env bash
# The NVSHMEM transport on two GPUs of one machine run as two nodes
# (DCUDA_NODE=process), packed by scripts/gpu-pack-nvshmem.sh:
#   1. world_checks nvshmem: the ring's notified puts and the neighbours'
#      notified gets through NVSHMEM, none carried by the hosts;
#   2. every check of world_checks with DCUDA_TRANSPORT=nvshmem (window
#      accesses through NVSHMEM, everything else through MPI);
#   3. bench_world on the same binary: the direct route (one node), the
#      MPI route (two nodes) and the NVSHMEM route (two nodes), through
#      NVSHMEM's mapping and with NVSHMEM's calls (DCUDA_NVSHMEM_CALLS=1:
#      the path to peers across InfiniBand), with raw NVSHMEM
#      (bench/baselines/nvshmem_peer.cu) in the same job.
# Results in $OUT/nvshmem.tar.xz and $OUT/nvshmem.log.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp}
res=/tmp/nvshmem-run
rm -rf "$res" && mkdir -p "$res"
log=$out/nvshmem.log
export DCUDA_BACKEND=gpu
DCUDA_COMMIT=$(cat COMMIT 2>/dev/null || echo unknown); export DCUDA_COMMIT
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo
nv=$(python3 -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "nvshmem"))' 2>/dev/null)
export DCUDA_NVSHMEM_LIB=$nv/lib/libnvshmem_host.so.3
export LD_LIBRARY_PATH=$nv/lib:${LD_LIBRARY_PATH:-}
{
  echo "dcuda NVSHMEM run, commit $(cat COMMIT), bitcode $(cat NVSHMEM_BITCODE), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader
  echo "NVSHMEM host library: $DCUDA_NVSHMEM_LIB ($(ls "$nv/lib" | tr '\n' ' '))"
  pip list 2>/dev/null | grep -i nvshmem
} 2>&1 | tee "$log"
RUN_LIMIT=${RUN_LIMIT:-150}
# shellcheck source=gpu-lib.sh
. ./gpu-lib.sh
# A program, not a function, so that timeout can start it.
mkdir -p /tmp/nvshmem-bin
printf '#!/usr/bin/env bash\nexec mpirun --allow-run-as-root --bind-to none -np 2 "$@"\n' > /tmp/nvshmem-bin/mpi
chmod +x /tmp/nvshmem-bin/mpi
export PATH=/tmp/nvshmem-bin:$PATH
nvcc -O2 -rdc=true -arch=sm_90 -I"$nv/include" $(mpicc --showme:compile) baselines/nvshmem_peer.cu -o /tmp/nvshmem_peer \
  -L"$nv/lib" -l:libnvshmem_host.so.3 -lnvshmem_device $(mpicc --showme:link) -Xlinker -rpath -Xlinker "$nv/lib" > /tmp/build-peer.log 2>&1 &
builder=$!

run "world_checks nvshmem (two nodes)" mpi -x DCUDA_TRANSPORT=nvshmem -x DCUDA_NODE=process -x DCUDA_LOG=debug ./world_checks nvshmem
run "world_checks nvshmem, NVSHMEM's calls (two nodes)" mpi -x DCUDA_TRANSPORT=nvshmem -x DCUDA_NODE=process -x DCUDA_NVSHMEM_CALLS=1 ./world_checks nvshmem
run "world_checks, all, DCUDA_TRANSPORT=nvshmem (two nodes)" mpi -x DCUDA_TRANSPORT=nvshmem -x DCUDA_NODE=process ./world_checks
run "world_checks, all, MPI (two nodes)" mpi -x DCUDA_NODE=process ./world_checks

wait "$builder"; tail -n 3 /tmp/build-peer.log >> "$log"
base=()
[ -x /tmp/nvshmem_peer ] && run "nvshmem peer baseline" bash -c "mpirun --allow-run-as-root --bind-to none -np 2 /tmp/nvshmem_peer > $res/world-nvshmem-peer.csv" \
  && [ -s "$res/world-nvshmem-peer.csv" ] && base=(--baseline "$res/world-nvshmem-peer.csv")
QUICK=${QUICK:---quick}
run "bench_world (direct)" mpi ./bench_world $QUICK --out "$res/direct" "${base[@]}"
run "bench_world (NVSHMEM, two nodes)" mpi -x DCUDA_TRANSPORT=nvshmem -x DCUDA_NODE=process ./bench_world $QUICK --out "$res/nvshmem" "${base[@]}"
run "bench_world (NVSHMEM's calls, two nodes)" mpi -x DCUDA_TRANSPORT=nvshmem -x DCUDA_NODE=process -x DCUDA_NVSHMEM_CALLS=1 ./bench_world $QUICK --out "$res/nvshmem-calls" "${base[@]}"
run "bench_world (MPI, two nodes)" mpi -x DCUDA_NODE=process ./bench_world $QUICK --out "$res/nodes"

echo "elapsed ${SECONDS}s" | tee -a "$log"
cp "$log" "$res/"
tar cf - -C /tmp nvshmem-run | xz -T0 -6 > "$out/nvshmem.tar.xz"
summary
