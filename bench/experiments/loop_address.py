#!/usr/bin/env python3
# Usage: loop_address.py KERNEL.sass [OTHER.sass]
# KERNEL.sass: `cuobjdump -sass -fun aliev_panfilov CUBIN` of a cubin that
# ptxas made at the application's register cap (the driver's JIT gives the
# same code: bench/results/2026-11-29-cold-paths-h200/17-offline-cubin/).
# Lists the stencil walk's loops (backward branches whose bodies hold the
# f64 division's MUFU.RCP64H) with their start address, start mod 64 and
# 128, length and local loads and stores; with OTHER, also how many
# instructions of each loop differ (register names and constants aside).
import re, sys, difflib

def loops(path):
    ins = []
    for line in open(path):
        m = re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;?\s*(/\*.*)?$', line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2)))
    found = []
    for a, t in ins:
        m = re.search(r'BRA (?:\S+, )?0x([0-9a-f]+)', t)
        if m and int(m.group(1), 16) < a and a - int(m.group(1), 16) < 0x1200:
            body = [x for x in ins if int(m.group(1), 16) <= x[0] <= a]
            if any('MUFU.RCP64H' in x[1] for x in body):
                found.append((int(m.group(1), 16), body))
    return found

def norm(t):
    for pat, rep in [(r'\bU?R\d+\b', 'R'), (r'\bU?P\d\b', 'P'), (r'0x[0-9a-f]+', 'X'), (r'\bB\d+\b', 'B')]:
        t = re.sub(pat, rep, t)
    return t

mine = loops(sys.argv[1])
other = loops(sys.argv[2]) if len(sys.argv) > 2 else []
for i, (start, body) in enumerate(mine):
    ldl = sum('LDL' in t for _, t in body)
    stl = sum('STL' in t for _, t in body)
    line = f'loop {i}: start {start:#x} (mod 64 {start % 64:#x}, mod 128 {start % 128:#x}), {len(body)} instructions, {ldl} LDL, {stl} STL'
    if i < len(other):
        a = [norm(t) for _, t in body]
        b = [norm(t) for _, t in other[i][1]]
        diff = sum(1 for d in difflib.unified_diff(a, b, lineterm='', n=0)
                   if d[:1] in '+-' and not d.startswith(('+++', '---')))
        line += f'; {diff} lines differ from the other'
    print(line)
