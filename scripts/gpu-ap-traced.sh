#!/usr/bin/env bash
# Traced one-GPU Aliev-Panfilov runs of each build named in BUILDS (300
# steps, every span kept; SIZES default "4096 2048"), for trace-steps.py;
# the JSON gzipped under /tmp/traces and packed into $OUT/traces.tar.gz
# (too large for the device tool to bring back: run trace-steps.py there).
# Bundle: the builds, gpu-lib.sh and this script.
set -uo pipefail
cd "$(dirname "$0")"
. ./gpu-lib.sh
gpu_env
o=/tmp/traces; rm -rf $o; mkdir -p $o
export DCUDA_TRACE_SPANS=16384
for s in ${SIZES:-4096 2048}; do
  for v in ${BUILDS}; do
    DCUDA_TRACE=$o/$v-$s.json ./$v --size $s --iters 300 --no-check > $o/$v-$s.out 2>&1
    tail -3 $o/$v-$s.out
    rm -f $o/$v-$s.svg; gzip -f $o/$v-$s.json
  done
done
tar -czf "${OUT:-/tmp}/traces.tar.gz" -C /tmp traces
ls -la $o
