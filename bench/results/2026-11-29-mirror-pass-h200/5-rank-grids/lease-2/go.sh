#!/usr/bin/env bash
# Aliev-Panfilov (950c14a): the rank grid's shape at 1024², 8192² and 2048×4096 (--ranks-x).
set -uo pipefail
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP rank grids (2), 950c14a"
for r in 1 2; do
  for g in "1024 1024" "8192 8192" "2048 4096" "4096 2048"; do
    set -- $g; csv=$o/ap-$1x$2.csv
    for x in 4 6 12 22; do
      named_row "$csv" "x$x" 1 ./aliev_panfilov --nx $1 --ny $2 --ranks-x $x --no-check
    done
    named_row "$csv" default 1 ./aliev_panfilov --nx $1 --ny $2 --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
