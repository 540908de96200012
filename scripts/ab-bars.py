#!/usr/bin/env python3
"""Bars of every run name's median seconds in the CSVs of a results
directory (the `name,...,seconds` rows of the GPU scripts), one group per
CSV, as an SVG: a plot without matplotlib, which these machines lack.
    scripts/ab-bars.py DIR OUT.svg [TITLE]"""
import collections
import csv
import glob
import html
import statistics
import sys

src, out = sys.argv[1], sys.argv[2]
title = sys.argv[3] if len(sys.argv) > 3 else src
rows = []
for f in sorted(glob.glob(f"{src}/*.csv")):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(f)):
        runs[r["name"]].append(float(r["seconds"]))
    for name, v in runs.items():
        rows.append((f.split("/")[-1][:-4], name, statistics.median(v), len(v)))
bar, gap, left, width = 18, 4, 330, 420
height = 40 + len(rows) * (bar + gap) + 20
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 120}" height="{height}" font-family="sans-serif" font-size="11">',
       f'<text x="10" y="20" font-size="13">{html.escape(title)}: median seconds (runs), device clock</text>']
# Each group (CSV) scaled to its own largest median: groups differ in size.
tops = collections.defaultdict(float)
for group, _, s, _ in rows:
    tops[group] = max(tops[group], s)
y = 40
for group, name, s, n in rows:
    w = width * s / tops[group]
    svg.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{html.escape(name)}</text>')
    svg.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar}" fill="#4a7ab5"/>')
    svg.append(f'<text x="{left + w + 4:.1f}" y="{y + 13}">{s:.4f} ({n})</text>')
    y += bar + gap
svg.append("</svg>")
open(out, "w").write("\n".join(svg))
