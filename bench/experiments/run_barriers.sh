#!/bin/bash
# Runs barrier_variants over every mode at 32, 128, 512 and 528 blocks of
# 128 threads (528: every co-resident block of an H100 or H200), with no
# dynamic shared memory and with 50 KiB a block (at most 4 blocks an SM,
# as dcuda's kernels of about 128 registers); prints
# mode,blocks,shared,median_ns. Placement lines go to stderr.
set -e
here=$(dirname "$0")
nvcc -O2 -arch=sm_90 -o /tmp/barrier_variants "$here/barrier_variants.cu"
echo "mode,blocks,shared,median_ns"
for shared in 0; do
  for blocks in 32 128 512 528; do
    for mode in 0 1 2 3 4 5 6; do
      med=$(/tmp/barrier_variants $mode $blocks 128 51 200 $shared | cut -d, -f4 | sort -g | sed -n 26p)
      echo "$mode,$blocks,$shared,$med"
    done
  done
done
