#!/usr/bin/env python3
# Usage: python3 scripts/ncu-stalls.py SOURCE.csv[.xz] WARP_STEPS [TOP]
# (a source page from scripts/gpu-ncu-stalls.sh; WARP_STEPS = ranks x warps
# a rank x steps, the count of an instruction run once a step by every warp).
# Groups the warp-state samples by how often each instruction ran (a step's
# loop, once a step, once a call...) with their main stall reasons, then
# lists the TOP instructions (default 30) by samples.
import collections, csv, io, lzma, sys

path, unit = sys.argv[1], float(sys.argv[2])
top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
text = lzma.open(path, 'rt') if path.endswith('.xz') else open(path)
rows = list(csv.reader(text))
head, data = rows[1], rows[2:]
col = {n: i for i, n in enumerate(head)}
samples, runs = col['Warp Stall Sampling (All Samples)'], col['Instructions Executed']
reasons = [c for c in head if c.startswith('stall_') and 'Not Issued' not in c]
num = lambda r, c: int(r[col[c]] or 0) if c in col else int(r[c] or 0)
total = sum(num(r, samples) for r in data) or 1
groups, by_reason = collections.Counter(), collections.defaultdict(collections.Counter)
for r in data:
    n = num(r, runs) / unit
    key = 'never' if n == 0 else ('> 8 a step' if n > 8 else f'{n:.2f} a step')
    groups[key] += num(r, samples)
    for c in reasons:
        by_reason[key][c] += num(r, c)
print(f'{total} samples')
for key, s in groups.most_common(10):
    why = ', '.join(f'{c[6:]} {100 * v / total:.1f}%' for c, v in by_reason[key].most_common(3))
    print(f'  {key:>12}: {100 * s / total:5.1f}%  ({why})')
print(f'top {top} instructions: address, share, runs a step, main reason, SASS')
for r in sorted(data, key=lambda r: -num(r, samples))[:top]:
    s = num(r, samples)
    reason = max(reasons, key=lambda c: num(r, c))
    print(f'  {r[0][-5:]} {100 * s / total:5.1f}% {num(r, runs) / unit:7.2f} {reason[6:]:>8}  {r[1].strip()[:60]}')
