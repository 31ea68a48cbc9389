#!/usr/bin/env bash
# gccount.sh SECONDS [CONFIG...]: how often a collector collects garbage per
# span, and its heap after each collection, on the extension's variants of
# the line rate (ext.yaml: governance on the registry extension; shadow.yaml:
# the same with a candidate, ../shared/semconv/next-384d661; sketch.yaml:
# with the inference sketch on), at the fixed pacing of the line rate
# (GOGC=off GOMEMLIMIT=64MiB), mixed workload. Each collector (GOMAXPROCS=1,
# pinned to CPU 0) takes benchmarks/otlpreplay's request (pinned to CPU 1)
# for 2 s, then SECONDS measured: the gctrace lines in that window per
# 1,000 accepted spans, RssAnon at the end, and the last five collections'
# heap sizes (start->end->live MB). Two rounds. Run from the repository's
# root; BIN overrides _build/otelcol-governance. Needs taskset.
set -euo pipefail
secs=$1; shift
cfgs=("$@"); [ ${#cfgs[@]} -gt 0 ] || cfgs=(ext shadow)
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
bin=${BIN:-$root/_build/otelcol-governance}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/replay" ./benchmarks/otlpreplay)
cd "$root"
for round in 1 2; do
  for cfg in "${cfgs[@]}"; do
    log=$tmp/$cfg.log
    GOGC=off GOMEMLIMIT=64MiB GODEBUG=gctrace=1 GOMAXPROCS=1 taskset -c 0 "$bin" --config "$here/$cfg.yaml" >"$log" 2>&1 &
    pid=$!; sleep 3
    taskset -c 1 "$tmp/replay" -endpoint 127.0.0.1:34317 -workload mixed -duration 2s >/dev/null
    n0=$(grep -c '^gc ' "$log" || true)
    out=$(taskset -c 1 "$tmp/replay" -endpoint 127.0.0.1:34317 -workload mixed -duration "${secs}s")
    n1=$(grep -c '^gc ' "$log" || true)
    rss=$(awk '/RssAnon/ {print $2}' "/proc/$pid/status")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    spans=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["accepted_spans"])')
    heaps=$(grep '^gc ' "$log" | tail -5 | grep -o '[0-9]*->[0-9]*->[0-9]* MB' | tr '\n' ' ')
    echo "$cfg: $((n1 - n0)) GCs, $spans spans, $(python3 -c "print(round(($n1-$n0)*1000/$spans,4))") GCs/1000 spans; RssAnon ${rss} kB; last heaps: $heaps"
  done
done
