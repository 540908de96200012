#!/usr/bin/env bash
# Aliev-Panfilov at 2048^2 (HEAD): memory traffic of the rank kernel against the baseline's step kernels, and the rank kernel's warp stalls
cd "$(dirname "$0")"
o=${OUT:-/tmp}
. ./gpu-lib.sh
gpu_env
for round in 1 2; do
  named_row "$o/ap2048.csv" "dcuda" 1 examples/aliev_panfilov --size 2048 --no-check
  named_row "$o/ap2048.csv" "baseline stride" 1 examples/aliev_panfilov_mpi --size 2048 --walk stride --no-check
done
medians "$o" | tee "$o/medians.txt"
m=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum,smsp__inst_executed.sum
timeout 200 ncu --replay-mode application --cache-control none --kernel-name aliev_panfilov --launch-count 1 --metrics $m --csv examples/aliev_panfilov --size 2048 --iters 100 --no-check > $o/rank.csv 2> $o/rank.err; echo "rank exit $?"
timeout 200 ncu --replay-mode application --cache-control none --kernel-name regex:"panfilov_(step|claimed|column)" --launch-count 100 --metrics $m --csv examples/aliev_panfilov_mpi --size 2048 --walk stride --iters 100 --no-check > $o/base.csv 2> $o/base.err; echo "base exit $?"
python3 - $o <<'PY'
import csv,sys,collections,io
for f in ['rank','base']:
    txt=open(f"{sys.argv[1]}/{f}.csv").read(); i=txt.find('"ID"')
    rows=list(csv.DictReader(io.StringIO(txt[i:])))
    tot=collections.defaultdict(float); n=set(); names=collections.Counter()
    for r in rows:
        n.add(r['ID']); names[r['Kernel Name']]+=1
        try: v=float(r['Metric Value'].replace(',',''))
        except: continue
        tot[r['Metric Name']]+=v
    print(f, len(n), 'launches', dict(names))
    for k,v in sorted(tot.items()): print('  ',k, int(v))
PY
KERNEL=aliev_panfilov bash gpu-ncu-stalls.sh ap-2048 examples/aliev_panfilov --size 2048 --iters 100 --no-check
