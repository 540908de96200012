#!/usr/bin/env bash
cd "$(dirname "$0")"
o=${OUT:-/tmp}
. ./gpu-lib.sh
gpu_env
for r in 1 2; do
  mpirun --allow-run-as-root --bind-to none -np 2 ./bench_world --quick --out $o/run-$r > $o/run-$r.log 2>&1
  grep PROBE $o/run-$r.log
done
grep -h "notified put 4 B\|^latency,notify" $o/run-*/world-auto.csv | cut -d, -f1-8
