#!/usr/bin/env python3
# Usage: python3 scripts/trace-skew.py DIR [RANKS_X] (a folder of *.json.gz
# from DCUDA_TRACE runs with every span kept, e.g. scripts/gpu-ap-traced.sh;
# RANKS_X, default 6, the tiles along x of the default one-process layout of
# 132 ranks since 2026-11-29; 12 before).
# How synchronised the ranks' compute phases are, over steps 50-250: per
# step, the spread of compute starts across ranks; how many ranks compute at
# once (20000 samples); each rank's median compute, by its tile's place
# (inside, side, corner) and the slowest ten.
import gzip, json, glob, statistics as st, collections, sys, bisect
for f in sorted(glob.glob(sys.argv[1] + '/*.json.gz')):
    ev = json.load(gzip.open(f))
    ev = ev['traceEvents'] if isinstance(ev, dict) else ev
    by = collections.defaultdict(list)
    for e in ev:
        if e.get('ph') == 'X' and e['name'] == 'compute':
            by[e['tid']].append((e['ts'], e['dur']))
    ranks = sorted(by)
    for r in ranks: by[r].sort()
    n = min(len(by[r]) for r in ranks)
    spreads = []
    for s in range(50, min(n, 250)):
        starts = [by[r][s][0] for r in ranks]
        spreads.append(max(starts) - min(starts))
    t0 = max(by[r][50][0] for r in ranks); t1 = min(by[r][min(n, 250) - 1][0] for r in ranks)
    conc = []
    t = t0
    while t < t1:
        c = 0
        for r in ranks:
            lst = by[r]
            i = bisect.bisect_right(lst, (t, float('inf'))) - 1
            if i >= 0 and lst[i][0] <= t < lst[i][0] + lst[i][1]:
                c += 1
        conc.append(c)
        t += (t1 - t0) / 20000
    conc.sort()
    print(f.split('/')[-1], f'ranks {len(ranks)} steps {n}: start spread median {st.median(spreads):.1f} us p90 {sorted(spreads)[int(0.9*len(spreads))]:.1f}; computing at once: mean {st.mean(conc):.1f} p10 {conc[len(conc)//10]} p50 {conc[len(conc)//2]} p90 {conc[9*len(conc)//10]}; full {sum(1 for c in conc if c >= 0.95*len(ranks))/len(conc):.2f}')
    # Per rank: compute median; the slowest, and by place on the grid of tiles.
    med = {r: st.median(d for _, d in by[r][50:250]) for r in ranks}
    wx = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    wy = len(ranks) // wx
    def place(r):
        gx, gy = r % wx, r // wx
        side = (gx in (0, wx - 1)) + (gy in (0, wy - 1))
        return ['inside', 'side', 'corner'][side]
    cls = collections.defaultdict(list)
    for r in ranks: cls[place(r)].append(med[r])
    print('   by place: ' + ', '.join(f'{k} {st.median(v):.1f} (max {max(v):.1f}, n {len(v)})' for k, v in sorted(cls.items())))
    print('   slowest: ' + ', '.join(f'{r}({r % wx},{r // wx}) {med[r]:.1f}' for r in sorted(ranks, key=lambda r: -med[r])[:10]))
