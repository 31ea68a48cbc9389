#!/usr/bin/env bash
# gccount.sh WORKLOAD SECONDS: how often a bare and a governance collector
# collect garbage under the same load, with Go's default GC pacing and with
# the pacing the line rate's LINERATE_COLLECTOR_ENV fixes (GOGC=off
# GOMEMLIMIT=64MiB). Each collector (bare.yaml: OTLP/gRPC -> nop;
# gov.yaml: OTLP/gRPC -> governance -> nop; GOMAXPROCS=1, pinned to CPU 0)
# takes the line rate's replayed request (benchmarks/otlpreplay, pinned to
# CPU 1) for 2 s, then SECONDS measured: the gctrace lines written in that
# window, per 1,000 accepted spans, the collector's utime+stime per span
# (10 ms ticks: coarse) and the last collection's heap sizes and goal.
# Needs `make build` and taskset.
set -euo pipefail
wl=$1; secs=$2
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
bin=$root/_build/otelcol-governance
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/replay" ./benchmarks/otlpreplay)
for pacing in default fixed; do
  env=(); [ "$pacing" = fixed ] && env=(GOGC=off GOMEMLIMIT=64MiB)
  for cfg in bare gov; do
    log=$tmp/$cfg-$pacing.log
    env "${env[@]}" GODEBUG=gctrace=1 GOMAXPROCS=1 taskset -c 0 "$bin" --config "$here/$cfg.yaml" >"$log" 2>&1 &
    pid=$!; sleep 1.5
    taskset -c 1 "$tmp/replay" -endpoint 127.0.0.1:34317 -workload "$wl" -duration 2s >/dev/null
    n0=$(grep -c '^gc ' "$log" || true); c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
    out=$(taskset -c 1 "$tmp/replay" -endpoint 127.0.0.1:34317 -workload "$wl" -duration "${secs}s")
    n1=$(grep -c '^gc ' "$log" || true); c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    spans=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["accepted_spans"])')
    last=$(grep '^gc ' "$log" | tail -1 | grep -o '[0-9]*->[0-9]*->[0-9]* MB, [0-9]* MB goal')
    echo "$wl pacing=$pacing $cfg: $((n1 - n0)) GCs in ${secs}s, $spans spans, $(python3 -c "print(round(($n1-$n0)*1000/$spans,3))") GCs per 1000 spans, CPU $(python3 -c "print(round(($c1-$c0)*1e7/$spans))") ns/span; last GC: $last"
  done
done
