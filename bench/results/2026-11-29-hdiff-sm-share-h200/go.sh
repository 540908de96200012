#!/usr/bin/env bash
# hdiff's small grid on one H200 by ranks and threads: how the ranks share
# the SMs (320 ranks of 256 threads put three on 56 SMs, two on the rest).
cd "$(dirname "$0")"
o=${OUT:-/tmp}; mkdir -p $o
. ./gpu-lib.sh
gpu_env
g="--nx 128 --ny 320 --nz 26"
for r in 1 2; do
  for v in "" "--ranks 264 --threads 256" "--ranks 132 --threads 256" "--ranks 160 --threads 512" "--ranks 264 --threads 128" "--ranks 320 --threads 128" "--ranks 320 --threads 384"; do
    ./hdiff $g $v --no-check --csv 2>>$o/err.log | tail -1 | sed "s|^|hdiff $v,|" >> $o/geo.csv
  done
  ./hdiff_mpi $g --threads 512 --no-check --csv 2>>$o/err.log | tail -1 | sed "s|^|hdiff_mpi 512,|" >> $o/geo.csv
done
./hdiff $g --ranks 264 --threads 256 --iters 20 --check >> $o/err.log 2>&1 && echo "check 264x256 ok" >> $o/geo.csv
cat $o/geo.csv
