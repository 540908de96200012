#!/usr/bin/env python3
# Usage: sass_control.py KERNEL.sass START END   (hex addresses)
# Prints each instruction of `cuobjdump -sass` output between START and END
# with its control bits decoded from the encoding's high word (sm_70 and
# later): stall cycles (S), yield (Y), the scoreboard it sets on write (W)
# and read (R), and the scoreboards it waits for (wait, bit 0 = board 0).
# Used to compare the walk loops of fast and slow AP builds
# (bench/results/2026-11-29-cold-paths-h200/19-loop-address/).
import re, sys

def parse(path):
    lines = open(path).read().split('\n')
    out, i = [], 0
    while i < len(lines) - 1:
        m = re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]+) \*/', lines[i])
        hi = re.search(r'/\* (0x[0-9a-f]+) \*/', lines[i + 1]) if m else None
        if m and hi:
            out.append((int(m.group(1), 16), m.group(2), int(hi.group(1), 16)))
            i += 2
        else:
            i += 1
    return out

def control(h):
    stall, yld, wr, rd, wait = (h >> 41) & 15, (h >> 45) & 1, (h >> 46) & 7, (h >> 49) & 7, (h >> 52) & 63
    board = lambda b: '-' if b == 7 else str(b)
    return f"S{stall:02d}{'Y' if yld else '-'} W{board(wr)} R{board(rd)} wait{wait:06b}"

lo, hi = int(sys.argv[2], 16), int(sys.argv[3], 16)
for addr, text, high in parse(sys.argv[1]):
    if lo <= addr <= hi:
        print(f'{addr:05x} {control(high)}  {text}')
