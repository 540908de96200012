#!/usr/bin/env bash
# A kernel's memory traffic over COUNT launches (GPU machine): DRAM bytes,
# global and local (stack) sectors at L1 with their hits, L2 read misses
# and the kernels' time, summed, into $OUT/NAME.csv and on stdout. Run it
# on a rank kernel (one launch) and on its baseline's kernels (a launch
# per step) over the same steps: the stencils' global sectors should
# match, and the rank kernel's local sectors are its stack, which a step
# streaming more than L2 holds sends to memory
# (bench/results/2026-11-30-ap-dram-h200/). L2 is not flushed between
# kernels (--cache-control none), so a baseline's stages keep what the
# last one left, as they do unprofiled. The commands of that folder's
# scripts, made one.
#   KERNEL=aliev_panfilov [COUNT=1] bash gpu-ncu-traffic.sh NAME CMD...
#   KERNEL='regex:panfilov_step' COUNT=100 bash gpu-ncu-traffic.sh base CMD...
set -uo pipefail
o=${OUT:-/tmp}
name=$1; shift
m=dram__bytes_read.sum,dram__bytes_write.sum
m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
m=$m,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum
m=$m,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
m=$m,gpu__time_duration.sum
timeout "${LIMIT:-250}" ncu --replay-mode application --cache-control none \
  --kernel-name "${KERNEL:?which kernel}" --launch-count "${COUNT:-1}" \
  --metrics "$m" --csv "$@" >"$o/$name.csv" 2>"$o/$name.log"
echo "ncu $name: exit $?"
python3 - "$o/$name.csv" <<'PY'
import collections, csv, io, sys
text = open(sys.argv[1]).read()
start = text.find('"ID"')
if start < 0:
    sys.exit(f"no ncu rows in {sys.argv[1]}")
sums, launches = collections.defaultdict(float), set()
for r in csv.DictReader(io.StringIO(text[start:])):
    launches.add(r["ID"])
    sums[(r["Metric Name"], r["Metric Unit"])] += float(r["Metric Value"].replace(",", ""))
print(f"  {len(launches)} launches")
for (metric, unit), v in sorted(sums.items()):
    print(f"  {metric}: {v:,.0f} {unit}")
PY
