#!/usr/bin/env python3
# Usage: shift-walk.py IN.ptx OUT.ptx FUNCTION N
# Inserts N `nanosleep.u32 0;` at the start of FUNCTION's body: ptxas keeps
# them, so the function's code (its loops included) moves by N x 16 bytes
# in the SASS and nothing else changes (checked with cuobjdump: the loops'
# SASS is identical). Used to test whether a stencil walk's speed follows
# the address of its loop (bench/results/2026-11-29-cold-paths-h200/).
import re, sys
src, dst, name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
s = open(src).read()
defs = [m for m in re.finditer(r'\.func[^\n]*\b' + re.escape(name) + r'\b', s)
        if s[m.end():s.find('{', m.end())].count(';') == 0]
if not defs:
    sys.exit(f'{name}: no definition in {src}')
body = s.find('{', defs[0].end()) + 1
lines = s[body:].split('\n')
first = next(i for i, l in enumerate(lines)
             if l.strip() and not l.strip().startswith(('.reg', '.local', '.param', '//', '.shared')))
lines[first:first] = ['\tnanosleep.u32 0;'] * n
open(dst, 'w').write(s[:body] + '\n'.join(lines))
