#!/usr/bin/env bash
# Where hdiff's rank kernel's extra memory traffic comes from: local memory and L2 by operation (ede3a49).
# The same script with the default --cache-control (all: L2 flushed before each profiled kernel) gave ../flushed/.
cd "$(dirname "$0")"
o=${OUT:-/tmp}
. ./gpu-lib.sh
gpu_env
m=dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum
for g in "big|--nx 512 --ny 1280 --nz 32" "small|--nx 128 --ny 320 --nz 26"; do
  IFS='|' read -r name opts <<<"$g"
  timeout 200 ncu --replay-mode application --cache-control none --kernel-name hdiff --launch-count 1 --metrics $m --csv examples/hdiff_before $opts --iters 20 --no-check > $o/rank-$name.csv 2> $o/rank-$name.err; echo "rank $name exit $?"
  extra=""; [ $name = small ] && extra="--threads 512"
  timeout 200 ncu --replay-mode application --cache-control none --kernel-name regex:"hdiff_(stage|bands)" --launch-count 60 --metrics $m --csv examples/hdiff_mpi_before $opts $extra --iters 20 --no-check > $o/base-$name.csv 2> $o/base-$name.err; echo "base $name exit $?"
done
python3 - $o <<'PY'
import csv,sys,collections,io,glob
for f in sorted(glob.glob(sys.argv[1]+'/*-*.csv')):
    txt=open(f).read(); i=txt.find('"ID"')
    rows=list(csv.DictReader(io.StringIO(txt[i:])))
    tot=collections.defaultdict(float); n=set()
    for r in rows:
        n.add(r['ID'])
        try: v=float(r['Metric Value'].replace(',',''))
        except: continue
        tot[r['Metric Name']]+=v
    print(f.split('/')[-1], len(n), 'launches')
    for k,v in sorted(tot.items()): print('  ',k, round(v/len(n),2) if 'pct' in k else int(v))
PY
