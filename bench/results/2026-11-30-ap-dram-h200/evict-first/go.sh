#!/usr/bin/env bash
# Aliev-Panfilov: field loads and stores with an L2 evict-first policy (this build) against HEAD (_before)
cd "$(dirname "$0")"
o=${OUT:-/tmp}; log=$o/log
. ./gpu-lib.sh
gpu_env
gpu_header "AP evict-first fields: $(head -n 1 COMMIT) against $(cat COMMIT_BEFORE)"
for c in "--size 1000 --iters 300" "--nx 517 --ny 263 --ranks 528 --threads 256 --iters 200" "--size 301 --iters 101 --ranks-x 1" "--size 2048 --iters 40"; do
  run "check $c" examples/aliev_panfilov $c --check
done
run "check mpi stride" examples/aliev_panfilov_mpi --size 1000 --iters 300 --walk stride --check
run "check mpi claims" examples/aliev_panfilov_mpi --size 1000 --iters 300 --check
cases=(
  "ap2048|new|aliev_panfilov|--size 2048"
  "ap2048|before|aliev_panfilov_before|--size 2048"
  "ap2048|mpi stride new|aliev_panfilov_mpi|--size 2048 --walk stride"
  "ap2048|mpi stride before|aliev_panfilov_mpi_before|--size 2048 --walk stride"
  "ap4096|new|aliev_panfilov|--size 4096"
  "ap4096|before|aliev_panfilov_before|--size 4096"
  "ap4096|mpi new|aliev_panfilov_mpi|--size 4096"
  "ap4096|mpi before|aliev_panfilov_mpi_before|--size 4096"
)
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r grid name prog opts <<<"$c"
    named_row "$o/$grid.csv" "$name" 1 "examples/$prog" $opts --no-check
  done
done
medians "$o" | tee "$o/medians.txt"
m=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
for b in aliev_panfilov aliev_panfilov_before; do
  timeout 200 ncu --replay-mode application --cache-control none --kernel-name aliev_panfilov --launch-count 1 --metrics $m --csv examples/$b --size 2048 --iters 100 --no-check > $o/ncu-$b.csv 2> $o/ncu-$b.err; echo "ncu $b exit $?"
  grep -E "dram__bytes|local|miss|duration" $o/ncu-$b.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
done
summary
