#!/usr/bin/env bash
cd "$(dirname "$0")"
o=${OUT:-/tmp}
. ./gpu-lib.sh
nvcc -O3 -arch=sm_90 -o /tmp/signal_order signal_order.cu && /tmp/signal_order | tee $o/signal-order.csv
cuobjdump -sass /tmp/signal_order > $o/signal-order.sass 2>&1
build_nvshmem nvshmem_peer > $o/build.log 2>&1
cuobjdump -sass /tmp/nvshmem_peer > $o/nvshmem-peer.sass 2>&1
ls -la $o
