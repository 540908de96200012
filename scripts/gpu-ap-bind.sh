#!/usr/bin/env bash
# Aliev-Panfilov on two GPUs: dcuda and the baselines with processes unbound
# (as gpu-multi.sh runs them) and bound to their NUMA node, alternated.
# Bundle: examples/aliev_panfilov_before (the dcuda build to time) and
# examples/aliev_panfilov_mpi, gpu-lib.sh and this script.
cd "$(dirname "$0")"
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
o=${OUT:-/tmp}; log=$o/log; . ./gpu-lib.sh
nvidia-smi topo -m > "$o/topo.txt" 2>&1
row() { local name=$1 bind=$2; shift 2
  if timeout 120 mpirun --allow-run-as-root --bind-to "$bind" -np 2 "$@" --csv > /tmp/r.csv 2>>"$o/err.log"; then
    [ -s "$csv" ] || head -n 1 /tmp/r.csv | sed 's|^|name,|' > "$csv"; tail -n 1 /tmp/r.csv | sed "s|^|$name,|" >> "$csv"; else echo "FAIL $name" >> "$log"; fi; }
for size in 2048 4096; do
  csv=$o/ap-$size.csv
  for r in 1 2 3; do
    row "dcuda none" none examples/aliev_panfilov_before --size $size --no-check
    row "dcuda numa" numa examples/aliev_panfilov_before --size $size --no-check
    for b in none numa; do
      row "mpi $b" $b examples/aliev_panfilov_mpi --size $size --no-check
      row "mpi --overlap $b" $b examples/aliev_panfilov_mpi --size $size --no-check --overlap
    done
  done
done
medians "$o" | tee "$o/medians.txt"
