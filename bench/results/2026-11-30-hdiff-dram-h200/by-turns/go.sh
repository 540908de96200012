#!/usr/bin/env bash
# hdiff: bands walked down and up by turns (this build) against HEAD (_before); DRAM bytes by ncu
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff bands by turns: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
run "check 7 ranks" examples/hdiff --nx 67 --ny 150 --nz 5 --ranks 7 --check
run "check 8 ranks 256" examples/hdiff --nx 67 --ny 150 --nz 5 --ranks 8 --threads 256 --check
run "check default" examples/hdiff --nx 67 --ny 150 --nz 5 --check
run "check t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --check
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"; big2="--nx 256 --ny 2560 --nz 32"
cases=(
  "big|new|hdiff|$big"
  "big|before|hdiff_before|$big"
  "big|mpi|hdiff_mpi_before|$big"
  "big2|new|hdiff|$big2"
  "big2|before|hdiff_before|$big2"
  "big2|mpi|hdiff_mpi_before|$big2"
  "small|new|hdiff|$small"
  "small|before|hdiff_before|$small"
  "small|mpi|hdiff_mpi_before|$small --threads 512"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
m=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum
timeout 200 ncu --replay-mode application --kernel-name hdiff --launch-count 1 --metrics $m --csv examples/hdiff $big --iters 20 --no-check > $o/ncu-new.csv 2> $o/ncu-new.err; echo "ncu exit $?"
grep -E "dram__bytes|hit_rate|duration" $o/ncu-new.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
summary
