#!/usr/bin/env bash
cd "$(dirname "$0")"
o=${OUT:-/tmp}
export DCUDA_BACKEND=gpu NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
for r in 1 2; do for b in bench_world bench_world_before; do
  mpirun --allow-run-as-root --bind-to none -np 2 bin/$b --quick --out $o/$b-$r > $o/$b-$r.log 2>&1 || echo "FAIL $b"
  grep -h "notified put 4 B,\|^latency,notify," $o/$b-$r/world-auto.csv | cut -d, -f2,7 | sed "s|^|$b $r: |"
done; done
mkdir -p $o/stencils && OUT=$o/stencils ROUNDS=1 ONLY="hdiff aliev_panfilov jacobi" bash ./gpu-stencils-ab.sh 2>&1 | grep -E "median|FAIL|passed"
