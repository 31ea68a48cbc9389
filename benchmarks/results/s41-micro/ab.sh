#!/bin/bash
# ab2.sh BENCH ROUNDS BENCHTIME: alternate engine.old/new; median ns/span (or cpu-ns/span)
cd /work/main/engine
for r in $(seq ${2:-10}); do for b in old new; do
taskset -c 0 /tmp/engine.$b -test.run '^$' -test.bench "$1" -test.benchtime ${3:-5000x} -test.cpu 1 -test.count 1 2>&1 | awk -v b=$b '/^Bench/{v="";for(i=1;i<=NF;i++) if($i=="cpu-ns/span"||$i=="ns/span") v=$(i-1); print b, $1, v}'
done; done | python3 -c '
import sys,statistics as st,collections
d=collections.defaultdict(list)
for l in sys.stdin:
  b,n,v=l.split(); d[(n,b)].append(float(v))
for (n,b),v in sorted(d.items()):
  print(f"{b} {n} median {st.median(v):.1f} min {min(v):.1f} n={len(v)}")
'
