#!/usr/bin/env bash
# hdiff: 32-bit walk indices (this build) against HEAD (_before), batches 1, 2, 4
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "hdiff stages apart, batch 1: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for b in 1; do
  run "check b$b" examples/hdiff --nx 67 --ny 150 --nz 5 --batch $b --check
  run "check b$b t32" examples/hdiff --nx 13 --ny 23 --nz 3 --ranks 3 --threads 32 --batch $b --check
  run "check mpi b$b" examples/hdiff_mpi --nx 67 --ny 150 --nz 5 --batch $b --check
done
small="--nx 128 --ny 320 --nz 26"; big="--nx 512 --ny 1280 --nz 32"
cases=(
  "small|new b1|hdiff|$small"
  "small|before b1|hdiff_before|$small"
  "small|mpi before|hdiff_mpi_before|$small --threads 512"
  "big|new b1|hdiff|$big"
  "big|before b1|hdiff_before|$big"
  "big|mpi before|hdiff_mpi_before|$big"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
m=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
timeout 200 ncu --replay-mode application --cache-control none --kernel-name hdiff --launch-count 1 --metrics $m --csv examples/hdiff $big --iters 20 --no-check > $o/ncu-new.csv 2> $o/ncu-new.err; echo "ncu exit $?"
grep -E "dram__bytes|local|miss|duration" $o/ncu-new.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}' 
summary
