#!/usr/bin/env python3
"""The host route's comparison from a results directory of
scripts/gpu-host-route.sh: every way's median of its runs' medians and of their 99th percentiles
(µs), for each shape and measure, as summary.csv, a Markdown table on standard
output and bars in summary.svg (no matplotlib on these machines).
Ways: dcuda's bench_typed as two nodes (`nodes-*`), the same of an
earlier commit (`before-nodes-*`), and the MPI+CUDA host packing of
host_packed_typed.cu (`host-packed-*`, latency only).
    scripts/host-route-table.py DIR"""
import collections
import csv
import glob
import html
import statistics
import sys

src = sys.argv[1]
SHAPES = {
    "0": "column of 4096x4096 f32",
    "1": "64^3 block of 512^3 f32",
    "2": "128^3 block of 512^3 f32",
}
runs = collections.defaultdict(list)  # (shape, measure, way) -> run medians
p99s = collections.defaultdict(list)  # the same -> run 99th percentiles


def p99(v):
    v = sorted(v)
    return v[min(len(v) - 1, int(0.99 * len(v)))]


for f in sorted(glob.glob(f"{src}/host-packed-*.csv")):
    per = collections.defaultdict(list)
    for r in csv.reader(open(f)):
        # "host clock: host packing": the same batches on the host clock.
        if len(r) == 5 and "host packing" in r[0]:
            per[(SHAPES[r[1]], "latency", "MPI+CUDA " + r[0])].append(float(r[4]))
    for k, v in per.items():
        runs[k].append(statistics.median(v))
        p99s[k].append(p99(v))
kinds = [("nodes", "dcuda"), ("before-nodes", "dcuda before")]
for d in sorted(glob.glob(f"{src}/*-nodes-*/")):
    name = d.rstrip("/").rsplit("/", 1)[1].rsplit("-nodes-", 1)[0]
    if name != "before" and (name + "-nodes", f"dcuda {name}") not in kinds:
        kinds.append((name + "-nodes", f"dcuda {name}"))
for kind, tag in kinds:
    for f in sorted(glob.glob(f"{src}/{kind}-[0-9]*/typed.csv")):
        for r in csv.DictReader(open(f)):
            k = (r["shape"], r["measure"], f"{tag}: {r['way']}")
            runs[k].append(float(r["median_us"]))
            p99s[k].append(float(r["p99_us"]))

with open(f"{src}/summary.csv", "w", newline="") as out:
    w = csv.writer(out)
    w.writerow(["shape", "measure", "way", "median_us", "p99_us", "runs", "run_medians_us"])
    for k, v in sorted(runs.items()):
        p = statistics.median(p99s[k])
        w.writerow([*k, f"{statistics.median(v):.1f}", f"{p:.1f}", len(v), " ".join(f"{x:.1f}" for x in v)])

print("| shape | measure | way | median µs (runs) | p99 µs |\n| --- | --- | --- | --- | --- |")
for k, v in sorted(runs.items()):
    print(f"| {' | '.join(k)} | {statistics.median(v):.1f} ({len(v)}) | {statistics.median(p99s[k]):.1f} |")

bar, gap, left, width = 16, 3, 420, 380
rows = sorted(runs.items())
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 110}" height="{50 + len(rows) * (bar + gap)}" font-family="sans-serif" font-size="11">',
       f'<text x="10" y="20" font-size="13">{html.escape(src)}: median µs of the runs\' medians (each group to its own scale)</text>']
top = collections.defaultdict(float)
for (shape, measure, _), v in rows:
    top[(shape, measure)] = max(top[(shape, measure)], statistics.median(v))
y = 40
for (shape, measure, way), v in rows:
    m = statistics.median(v)
    wd = width * m / top[(shape, measure)]
    fill = "#b5584a" if way.startswith("MPI") else "#4a7ab5"
    svg.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">{html.escape(f"{shape[:10]} {measure} {way}")}</text>')
    svg.append(f'<rect x="{left}" y="{y}" width="{wd:.1f}" height="{bar}" fill="{fill}"/>')
    svg.append(f'<text x="{left + wd + 4:.1f}" y="{y + 12}">{m:.1f}</text>')
    y += bar + gap
svg.append("</svg>")
open(f"{src}/summary.svg", "w").write("\n".join(svg))
