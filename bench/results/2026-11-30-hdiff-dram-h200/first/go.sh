#!/usr/bin/env bash
# DRAM bytes and L2 hit rate: hdiff's rank kernel against the baseline's stage kernels (ede3a49)
cd "$(dirname "$0")"
o=${OUT:-/tmp}
. ./gpu-lib.sh
gpu_env
m=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum
big="--nx 512 --ny 1280 --nz 32 --iters 20 --no-check"
timeout 200 ncu --replay-mode application --kernel-name hdiff --launch-count 1 --metrics $m --csv examples/hdiff_before $big > $o/rank.csv 2> $o/rank.err; echo "rank exit $?"
timeout 200 ncu --replay-mode application --kernel-name regex:"hdiff_(stage|bands)" --launch-count 60 --metrics $m --csv examples/hdiff_mpi_before $big > $o/base.csv 2> $o/base.err; echo "base exit $?"
python3 - $o <<'PY'
import csv,sys,collections,io
for f in ['rank','base']:
    txt=open(f"{sys.argv[1]}/{f}.csv").read()
    i=txt.find('"ID"')
    rows=list(csv.DictReader(io.StringIO(txt[i:])))
    tot=collections.defaultdict(float); n=set()
    for r in rows:
        n.add(r['ID'])
        try: v=float(r['Metric Value'].replace(',',''))
        except: continue
        tot[(r['Metric Name'],r['Metric Unit'])]+=v
    print(f, len(n), 'launches')
    for k,v in sorted(tot.items()): print('  ',k, v if 'pct' not in k[0] else v/len(n))
PY
