#!/usr/bin/env python3
"""Medians of the pi, spmv and particle runs in a results directory (pi.csv,
spmv.csv from scripts/gpu-irregular.sh, particles.csv from
scripts/gpu-particles.sh; those present), and each dcuda median against the
faster baseline median of the same problem: a Markdown table on stdout."""
import os
import collections
import csv
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "."
runs = collections.defaultdict(list)
for name, key in (("pi.csv", lambda r: f"pi, {r['intervals']} intervals"),
                  ("spmv.csv", lambda r: f"{r['matrix']} {r['rows']} rows, {r['mode']}"),
                  ("particles.csv", lambda r: f"{r['particles']} particles, {r['steps']} steps")):
    if not os.path.exists(f"{d}/{name}"):
        continue
    for r in csv.DictReader(open(f"{d}/{name}")):
        config = f"{r['units']} x {r['threads']}"
        runs[(key(r), r["program"], config)].append(float(r["seconds"]) * 1e3)

print("| problem | program | units x threads | runs | median ms | dcuda / faster baseline |")
print("| --- | --- | --- | --- | --- | --- |")
problems = sorted({k[0] for k in runs})
for p in problems:
    mine = {k: v for k, v in runs.items() if k[0] == p}
    base = min((statistics.median(v) for k, v in mine.items() if "_mpi" in k[1]), default=None)
    for (prob, program, config), v in sorted(mine.items(), key=lambda kv: kv[0][1]):
        m = statistics.median(v)
        ratio = f"{m / base:.2f}" if base and "_mpi" not in program else ""
        print(f"| {prob} | {program} | {config} | {len(v)} | {m:.3f} | {ratio} |")
