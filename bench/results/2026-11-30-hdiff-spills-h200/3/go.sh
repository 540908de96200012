#!/usr/bin/env bash
# Third lease: hdiff (the batch fixed at 1, the arguments read where used)
# at its default and at register caps 72 and 80 (the small grid's three
# ranks an SM still fit), the same asking two points ahead (hdiff_a2), the
# commit before and the baseline; then the baseline's stage kernels' own
# durations (Nsight Compute, clocks not locked) against the rank kernel's.
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff spills 3"
small="--nx 128 --ny 320 --nz 26"
big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|b1 fresh|hdiff|$small"
  "small|b1 fresh r80|hdiff|$small --max-registers 80"
  "small|b1 fresh r72|hdiff|$small --max-registers 72"
  "small|a2|hdiff_a2|$small"
  "small|before|hdiff_before|$small"
  "small|mpi t512|hdiff_mpi|$small --threads 512"
  "big|b1 fresh|hdiff|$big"
  "big|a2|hdiff_a2|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi|$big"
)
run "check a2 512x1280x32, 6 iterations" examples/hdiff_a2 $big --iters 6 --check
for round in 1 2 3 4 5; do
  nc=""; [ "$round" = 1 ] || nc=--no-check
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts $nc
  done
done
medians "$o" | tee "$o/medians.txt"
m="--clock-control none --metrics gpu__time_duration.sum --csv"
timeout 120 ncu $m -k regex:hdiff_stage --launch-skip 30 --launch-count 30 examples/hdiff_mpi $small --threads 512 --iters 20 --no-check > $o/base-small-durations.csv 2>$o/ncu.err
timeout 120 ncu $m -k regex:hdiff_stage --launch-skip 30 --launch-count 30 examples/hdiff_mpi $big --iters 20 --no-check > $o/base-big-durations.csv 2>>$o/ncu.err
timeout 120 ncu $m -k hdiff examples/hdiff $small --iters 200 --no-check > $o/rank-small-duration.csv 2>>$o/ncu.err
timeout 120 ncu $m -k hdiff examples/hdiff $big --iters 200 --no-check > $o/rank-big-duration.csv 2>>$o/ncu.err
timeout 120 ncu $m -k hdiff examples/hdiff_before $small --iters 200 --no-check > $o/before-small-duration.csv 2>>$o/ncu.err
summary
(cd "$o" && tar cf all.tar --exclude all.tar . && find . -maxdepth 1 -type f ! -name all.tar -delete)
