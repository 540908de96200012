# Usage: python3 scripts/trace-steps.py DIR [PHASE] (a folder of *.json.gz from
# DCUDA_TRACE runs with every span kept, e.g. scripts/gpu-ap-traced.sh; PHASE,
# default 'compute', is the phase that starts a step: hdiff's is 'laplacian');
# ranks 0, 1, 13, 60 shown.
# Per step medians from complete traces: compute (the phase), the gap to the
# first call, each call, and the period between compute starts. Steps are
# the phase named 'compute' (the applications' `rank.trace("compute", ..)`);
# each call's per-rank medians are also summarised over all ranks;
# a rank's first and last are left out, and ranks with fewer are skipped.
import gzip, json, glob, statistics as st, collections, sys
phase = sys.argv[2] if len(sys.argv) > 2 else 'compute'
for f in sorted(glob.glob(sys.argv[1] + '/*.json.gz')):
    ev = json.load(gzip.open(f))
    ev = ev['traceEvents'] if isinstance(ev, dict) else ev
    by = collections.defaultdict(list)
    for e in ev:
        if e.get('ph') == 'X':
            by[(e['pid'], e['tid'])].append((e['ts'], e['dur'], e['name']))
    print(f.split('/')[-1])
    allc, allp = [], []
    allcalls = collections.defaultdict(list)
    for key in sorted(by):
        s = sorted(by[key])
        comp = [i for i, x in enumerate(s) if x[2] == phase]
        if len(comp) < 3:
            continue
        c = [s[i][1] for i in comp[1:-1]]
        p = [s[b][0] - s[a][0] for a, b in zip(comp[1:-1], comp[2:])]
        calls = collections.defaultdict(list)
        gaps = []
        for a, b in zip(comp[1:-1], comp[2:]):
            end = s[a][0] + s[a][1]
            if a + 1 < b:
                gaps.append(s[a + 1][0] - end)
            for x in s[a + 1:b]:
                calls[x[2]].append(x[1])
        allc.append(st.median(c))
        allp.append(st.median(p))
        for k, v in calls.items():
            allcalls[k].append(st.median(v))
        if key[1] in (0, 1, 13, 60):
            cs = ', '.join(f'{k} {st.median(v):.1f} x{len(v) / len(c):.0f}' for k, v in calls.items())
            print(f'  rank {key[1]:3}: {phase} {st.median(c):.1f}, period {st.median(p):.1f}, gap {st.median(gaps) if gaps else 0:.1f}, {cs}')
    if not allc:
        print(f'  no rank has three {phase} phases')
        continue
    print(f'  all ranks: {phase} median {st.median(allc):.1f} max {max(allc):.1f} min {min(allc):.1f}; period median {st.median(allp):.1f}')
    for k, v in sorted(allcalls.items()):
        print(f'  all ranks: {k}: median of medians {st.median(v):.1f}, max {max(v):.1f}, min {min(v):.1f}')
