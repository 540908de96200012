#!/usr/bin/env python3
"""Strong and weak scaling of the applications from gpu-multi.sh's CSVs.

For every application, problem and GPU count: the dcuda version's median
seconds, the faster host-driven baseline's (plain or overlapped) and their
ratio; strong-scaling efficiency (same problem, more GPUs) against the
dcuda version on one GPU (and against the nvcc kernel where the CSV has
one); weak-scaling efficiency where a problem on n GPUs is n times one
measured on one GPU (to 0.1%). Writes DIR/scaling.md and DIR/scaling.svg (speed-up
over the dcuda version on one GPU against GPUs, dcuda solid, the faster
baseline dashed).

  scripts/scaling-table.py DIR/apps/*.csv --out DIR
"""
import csv
import math
import os
import statistics
import sys
from collections import defaultdict

# The columns that say which problem a row solved, per application.
PROBLEM = {
    "jacobi": ("nx", "ny"),
    "hdiff": ("nx", "ny", "nz"),
    "aliev_panfilov": ("nx", "ny"),
    "particles": ("particles",),
    "spmv": ("matrix", "rows", "mode"),
    "pi": ("intervals",),
}


def size_of(problem):
    return math.prod(int(v) for v in problem if v.isdigit())


def twice(one, many, n):
    """`many` is `one` on `n` times the points, to 0.1% (2896² rows for
    twice 2048²), with the same other columns."""
    if len(one) != len(many) or [v for v in one if not v.isdigit()] != [v for v in many if not v.isdigit()]:
        return False
    return abs(size_of(one) * n - size_of(many)) <= 0.001 * size_of(many)


def load(path):
    app = os.path.basename(path)[: -len(".csv")]
    runs = defaultdict(list)
    threads = defaultdict(set)
    walks = defaultdict(set)
    for r in csv.DictReader(open(path)):
        threads[(app, r["program"])].add(r.get("threads"))
        walks[(app, r["program"])].add(r.get("walk"))
    for r in csv.DictReader(open(path)):
        problem = tuple(r[k] for k in PROBLEM[app] if k in r)
        program = r["program"]
        # Baselines (and the nvcc kernel) run at several geometries or
        # walks are variants of their own; the faster baseline is the
        # fastest of them.
        if program != app and len(threads[(app, program)]) > 1:
            program += f" {r['threads']} thr."
        if program != app and len(walks[(app, r["program"])]) > 1:
            program += f" {r['walk']} walk"
        runs[(problem, int(r["processes"]), program)].append(float(r["seconds"]))
    return app, {k: statistics.median(v) for k, v in runs.items()}


def main():
    args = sys.argv[1:]
    out = args[args.index("--out") + 1]
    paths = [a for a in args if a.endswith(".csv")]
    lines = ["| application | problem | GPUs | dcuda s | faster baseline s | baseline / dcuda | strong eff. | weak eff. |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    curves = []
    for path in paths:
        app, med = load(path)
        problems = sorted({(k[0], k[1]) for k in med}, key=lambda p: (size_of(p[0]), p[1]))
        for problem, n in problems:
            dcuda = med.get((problem, n, app))
            if dcuda is None:
                continue
            base = [(s, p) for (pr, m, p), s in med.items() if pr == problem and m == n and p.startswith(app + "_mpi")]
            best, who = min(base) if base else (None, "")
            one = med.get((problem, 1, app))
            strong = f"{one / (n * dcuda):.0%}" if one and n > 1 else ""
            nvccs = [v for (pr, m, p), v in med.items() if pr == problem and m == 1 and p.startswith(app + "_single")]
            nvcc = min(nvccs) if nvccs else None
            if nvcc and n > 1:
                strong += f" ({nvcc / (n * dcuda):.1%} of nvcc's fastest)"
            weak = ""
            if n > 1:
                for (pr, m, p), s in med.items():
                    if m == 1 and p == app and twice(pr, problem, n):
                        weak = f"{s / dcuda:.0%}"
            ratio = f"{best / dcuda:.2f} ({who[len(app) + 5:] or 'plain'})" if best else ""
            shown = f"{best:.4f}" if best else ""
            lines.append(f"| {app} | {'×'.join(problem)} | {n} | {dcuda:.4f} | {shown} | {ratio} | {strong} | {weak} |")
        for problem in sorted({k[0] for k in med}, key=size_of):
            counts = sorted(n for (pr, n, p) in med if pr == problem and p == app)
            one = med.get((problem, 1, app))
            if len(counts) < 2 or not one:
                continue
            label = f"{app} {'×'.join(problem)}"
            curves.append((label, [(n, one / med[(problem, n, app)]) for n in counts], False))
            bests = []
            for n in counts:
                b = [s for (pr, m, p), s in med.items() if pr == problem and m == n and p.startswith(app + "_mpi")]
                if b:
                    bests.append((n, one / min(b)))
            curves.append((label + " baseline", bests, True))
    os.makedirs(out, exist_ok=True)
    open(os.path.join(out, "scaling.md"), "w").write("\n".join(lines) + "\n")
    open(os.path.join(out, "scaling.svg"), "w").write(plot(curves))
    print("\n".join(lines))
    print(f"wrote {out}/scaling.md, scaling.svg")


def plot(curves):
    w, h, left, right, top, bottom = 760, 460, 60, 290, 30, 50
    gmax = max(n for _, pts, _ in curves for n, _ in pts)
    smax = max(max(s for _, pts, _ in curves for _, s in pts), gmax) * 1.05
    x = lambda n: left + (w - left - right) * (n - 1) / max(gmax - 1, 1)
    y = lambda s: h - bottom - (h - top - bottom) * s / smax
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"]
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="13">Speed-up over the dcuda version on one GPU (solid: dcuda, dashed: faster host-driven baseline)</text>',
           f'<line x1="{x(1)}" y1="{y(1)}" x2="{x(gmax)}" y2="{y(gmax)}" stroke="#aaa" stroke-dasharray="2,3"/>']
    for g in range(1, gmax + 1):
        svg.append(f'<text x="{x(g)}" y="{h - bottom + 16}" text-anchor="middle">{g}</text>')
    svg.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">GPUs</text>')
    step = 0.5 if smax < 5 else 1
    s = 0.0
    while s <= smax:
        svg.append(f'<line x1="{left}" y1="{y(s)}" x2="{w - right}" y2="{y(s)}" stroke="#eee"/>')
        svg.append(f'<text x="{left - 6}" y="{y(s) + 4}" text-anchor="end">{s:g}</text>')
        s += step
    k = -1
    for i, (label, pts, dashed) in enumerate(curves):
        if not dashed:
            k += 1
        c = colours[k % len(colours)]
        path = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in pts)
        dash = ' stroke-dasharray="6,4"' if dashed else ""
        svg.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
        for n, v in pts:
            svg.append(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="3" fill="{c}"/>')
        ly = top + 16 * i
        svg.append(f'<line x1="{w - right + 12}" y1="{ly}" x2="{w - right + 36}" y2="{ly}" stroke="{c}" stroke-width="2"{dash}/>')
        svg.append(f'<text x="{w - right + 40}" y="{ly + 4}">{label}</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


if __name__ == "__main__":
    main()
