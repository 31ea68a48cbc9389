#!/usr/bin/env python3
# ratios.py LINERATE_JSON NUM:NUM_BARE/DEN:DEN_BARE ...: per workload, the median over
# rounds of (NUM - NUM_BARE) / (DEN - DEN_BARE), each difference paired within
# its round, with the 95 % interval of that median by order statistics (as
# testbench.MedianCI95 gives the line rate's): e.g.
#   python3 ratios.py linerate.json attributes:bare-baseline/governance:bare
import json,sys,math,collections,statistics
def ci(xs):
    xs=sorted(xs); n=len(xs)
    if n<6: return (None,None)
    # largest k with P(X<=k-1) <= 0.025, X~Bin(n,.5)
    cdf=0; k=0
    for i in range(n+1):
        p=math.comb(n,i)/2**n
        if cdf+p>0.025: break
        cdf+=p; k=i+1
    return xs[k-1], xs[n-k]
d=json.load(open(sys.argv[1]))
runs=collections.defaultdict(dict)
for r in d['runs']:
    key=(r['round'],r['workload'])
    cpu=r.get('cpu_per_span_us') or r.get('cpu_us_per_span')
    if cpu is None:
        cpu=[v for k,v in r.items() if 'per_span' in k][0]
    runs[key][r['variant']]=cpu
pairs=[p.split('/') for p in sys.argv[2:]]  # num_variant:num_bare/den_variant:den_bare
byw=collections.defaultdict(lambda: collections.defaultdict(list))
for (rnd,w),v in runs.items():
    for spec in sys.argv[2:]:
        num,den=spec.split('/')
        nv,nb=num.split(':'); dv,db=den.split(':')
        if all(x in v for x in (nv,nb,dv,db)):
            dd=v[dv]-v[db]
            byw[w][spec].append((v[nv]-v[nb])/dd if dd>0 else float('inf'))
for w,m in byw.items():
    for spec,xs in m.items():
        lo,hi=ci(xs)
        print(f"{w:12s} {spec:45s} n={len(xs)} median {statistics.median(xs):.2f} CI [{lo:.2f}, {hi:.2f}]")
