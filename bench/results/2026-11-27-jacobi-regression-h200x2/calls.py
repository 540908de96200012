import json, sys, statistics as st, collections
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
by = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X":
        by[(e["pid"], e["name"])].append(e["dur"])
for (pid, name), v in sorted(by.items()):
    v.sort()
    print(f"pid {pid} {name:28s} n={len(v):7d} median={v[len(v)//2]:8.2f} p90={v[int(len(v)*0.9)]:8.2f} mean={sum(v)/len(v):8.2f} us")
