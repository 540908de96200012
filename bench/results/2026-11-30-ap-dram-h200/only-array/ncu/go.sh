#!/usr/bin/env bash
# AP 2048^2: where the shared-array build loses its time: local L1 hits, L2 misses, DRAM (this build = only-array.patch, _before = HEAD)
cd "$(dirname "$0")"
o=${OUT:-/tmp}
. ./gpu-lib.sh
gpu_env
m=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
for b in aliev_panfilov aliev_panfilov_before; do
  timeout 200 ncu --replay-mode application --cache-control none --kernel-name aliev_panfilov --launch-count 1 --metrics $m --csv examples/$b --size 2048 --iters 100 --no-check > $o/ncu-$b.csv 2> $o/ncu-$b.err; echo "ncu $b exit $?"
  grep -E "dram__bytes|local|global|miss|duration" $o/ncu-$b.csv | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
done
