import csv,sys
def load(p):
    rows=list(csv.reader(open(p)))
    hdr=rows[1]; data=rows[2:]
    ix={h:i for i,h in enumerate(hdr)}
    cols=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
    out=[]
    for r in data:
        if len(r)<len(hdr): continue
        try: s=int(r[ix['Warp Stall Sampling (All Samples)']] or 0)
        except: continue
        d={c:int(r[ix[c]] or 0) for c in cols}
        d['all']=s; d['src']=r[ix['Source']].strip(); d['addr']=int(r[ix['Address']],16)
        d['exec']=int(r[ix['Instructions Executed']] or 0)
        out.append(d)
    return out,cols
# usage: stalls.py source-untraced.csv source-traced.csv (ncu --page source --csv)
u,cols=load(sys.argv[1])
t,_=load(sys.argv[2])
for name,x in (('untraced',u),('traced',t)):
    tot=sum(d['all'] for d in x)
    print(name,'samples',tot,'instr executed',sum(d['exec'] for d in x), 'n instr', len(x))
    for c in cols:
        v=sum(d[c] for d in x)
        if v>tot*0.001: print('   %-24s %9d %5.1f%%'%(c,v,100*v/tot))
bu=u[0]['addr']; bt=t[0]['addr']
U={d['addr']-bu:d for d in u}; T={d['addr']-bt:d for d in t}
diff=[]
for a,d in T.items():
    e=U.get(a)
    if e is None: continue
    diff.append((d['all']-e['all'], a, d['src'][:70], e['all'], d['all'], d['exec']-e['exec'], {c:d[c]-e[c] for c in cols if abs(d[c]-e[c])>200}))
diff.sort(key=lambda x:-x[0])
print("largest increases")
for x in diff[:40]: print(x)
print("largest decreases")
for x in diff[-15:]: print(x)
