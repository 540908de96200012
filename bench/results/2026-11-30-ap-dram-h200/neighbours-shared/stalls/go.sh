#!/usr/bin/env bash
cd "$(dirname "$0")"
. ./gpu-lib.sh
gpu_env
KERNEL=aliev_panfilov bash gpu-ncu-stalls.sh ap-2048-near examples/aliev_panfilov --size 2048 --iters 100 --no-check
KERNEL=aliev_panfilov bash gpu-ncu-stalls.sh ap-2048-head examples/aliev_panfilov_before --size 2048 --iters 100 --no-check
