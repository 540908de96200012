#!/usr/bin/env python3
"""Summarises gpu-hdiff.sh's and gpu-aliev-panfilov.sh's CSVs: per program
and grid the median, fastest and slowest seconds over the repetitions, the
dcuda version against the faster host-driven baseline of the same run, a
Markdown table and an SVG bar plot (milliseconds per iteration).

  scripts/stencil-table.py DIR/hdiff.csv DIR/aliev_panfilov.csv --out DIR
"""
import csv
import statistics
import sys
from collections import defaultdict


def load(path):
    rows = list(csv.DictReader(open(path)))
    runs = defaultdict(list)
    for r in rows:
        grid = "x".join(r[k] for k in ("nx", "ny", "nz") if k in r)
        program = r["program"]
        if r.get("ranks_x") == "1" and program == "aliev_panfilov":
            program += " (bands)"
        if r.get("walk") == "stride" and program != "aliev_panfilov":
            program += " --walk stride"
        runs[(grid, program)].append(float(r["seconds"]))
    iters = {r["nx"] + r["ny"]: int(r["iters"]) for r in rows}
    return runs, int(rows[0]["iters"])


def main():
    args = sys.argv[1:]
    out = args[args.index("--out") + 1]
    paths = [a for a in args[: args.index("--out")]]
    table = []
    bars = []
    for path in paths:
        runs, iters = load(path)
        app = path.split("/")[-1].removesuffix(".csv")
        table += [f"\n### {app} ({iters} iterations)\n",
                  "| grid | program | runs | median s | min s | max s | ms per iteration |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        grids = sorted({g for g, _ in runs}, key=lambda g: [int(x) for x in g.split("x")])
        ratios = []
        for g in grids:
            med = {}
            for (grid, program), secs in sorted(runs.items()):
                if grid != g:
                    continue
                m = statistics.median(secs)
                med[program] = m
                table.append(f"| {g} | {program} | {len(secs)} | {m:.4f} | {min(secs):.4f} | {max(secs):.4f} | {1e3 * m / iters:.3f} |")
                bars.append((f"{app} {g}", program, 1e3 * m / iters))
            baselines = {p: v for p, v in med.items() if "_mpi" in p}
            if baselines and app in med:
                best = min(baselines, key=baselines.get)
                ratios.append(f"| {g} | {best} / {app} | {baselines[best] / med[app]:.3f} |")
        table += ["", "| grid | ratio (> 1: dcuda faster) | value |", "| --- | --- | --- |"] + ratios
    open(f"{out}/table.md", "w").write("\n".join(table).lstrip() + "\n")
    # A horizontal bar a (grid, program), grouped by grid.
    colours = {"hdiff": "#4e79a7", "aliev_panfilov": "#4e79a7", "aliev_panfilov (bands)": "#76b7b2"}
    width, bar, left = 900, 16, 330
    scale = max(v for _, _, v in bars)
    y, parts, last = 40, [], None
    for group, program, v in bars:
        if group != last:
            y += 12
            parts.append(f'<text x="4" y="{y + 12}" font-weight="bold">{group}</text>')
            y += 18
            last = group
        colour = colours.get(program, "#f28e2b" if "overlap" in program else "#e15759")
        w = (width - left - 90) * v / scale
        parts.append(f'<text x="20" y="{y + 12}">{program}</text>')
        parts.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar - 3}" fill="{colour}"/>')
        parts.append(f'<text x="{left + w + 4:.1f}" y="{y + 12}">{v:.3f} ms</text>')
        y += bar
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 20}" font-family="sans-serif" font-size="11">'
           f'<rect width="100%" height="100%" fill="white"/>'
           f'<text x="4" y="20" font-size="14">Milliseconds per iteration on one GPU (median; shorter is faster)</text>'
           + "".join(parts) + "</svg>\n")
    open(f"{out}/stencils.svg", "w").write(svg)


main()
