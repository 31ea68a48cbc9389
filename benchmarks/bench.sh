#!/usr/bin/env bash
# Runs the hot-path microbenchmarks, the testbench's measured scenarios
# (fixed-rate comparison against the baseline distribution, logs, maximum
# throughput, start-up and idle footprint of distribution/config.yaml) and
# the line rate (benchmarks/linerate.sh: collector CPU per span, pinned,
# against the noise floor), then renders benchmarks/results/results.md
# and cpu_per_item.png. Needs _build/otelcol-governance and
# _baseline/otelcol-baseline (`make build baseline`).
#
# Knobs (environment): BENCH_COUNT (6), BENCH_TIME (1s), and the testbench's
# TESTBENCH_ROUNDS (5), TESTBENCH_DURATION (8s), TESTBENCH_RATES
# (10000,50000), TESTBENCH_POOL (24), and linerate.sh's LINERATE_* knobs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${OUT:-$ROOT/benchmarks/results}
mkdir -p "$OUT" "$OUT/tmp"

echo "== microbenchmarks -> $OUT/micro.txt"
micro=0
go test -run '^$' -bench . -benchmem -count "${BENCH_COUNT:-6}" -benchtime "${BENCH_TIME:-1s}" \
  ./processor/governanceprocessor/ ./registry/ >"$OUT/micro.txt" 2>&1 || micro=$?
grep -E '^(ok|FAIL|---)' "$OUT/micro.txt" || true

echo "== a conforming memo hit against the floor of pdata's API (benchmarks/floorguard.sh, bound 3x)"
./benchmarks/floorguard.sh || micro=$?

echo "== testbench scenarios -> $OUT/*.json (log: $OUT/tmp/loadtest.log)"
status=0
TESTBENCH_RESULTS="$OUT" \
TESTBENCH_ROUNDS="${TESTBENCH_ROUNDS:-5}" \
TESTBENCH_DURATION="${TESTBENCH_DURATION:-8s}" \
  go test -count=1 -tags 'e2e loadtest' -timeout 90m -v \
    -run 'TestLoadCompare|TestLoadLogs|TestLoadMaxThroughput|TestLoadProfile|TestStartupAndIdle|TestPrometheusRemoteWrite|TestMemoryLimiterOverload' ./testbench/ \
  >"$OUT/tmp/loadtest.log" 2>&1 || status=$?
grep -E '^(--- |ok|FAIL)|rate +[0-9]+:|sustained|start-up' "$OUT/tmp/loadtest.log" || true

echo "== line rate (benchmarks/linerate.sh) -> $OUT/linerate.{md,json}"
OUT="$OUT" LINERATE_COMMAND="${LINERATE_COMMAND:-make bench}" ./benchmarks/linerate.sh >/dev/null || status=$?
grep -E '^\| (conforming|deprecated|mixed):' "$OUT/linerate.md" 2>/dev/null || true

if [ -f "$OUT/governance_keep.pprof" ]; then
  go tool pprof -top -cum -nodecount=400 "$OUT/governance_keep.pprof" >"$OUT/profile.txt" 2>/dev/null || true
fi

# Render what was measured even when a scenario failed, then report the failure.
echo "== report -> $OUT/results.md, $OUT/cpu_per_item.png"
(cd benchmarks/report && go run . -results "$OUT")
if [ "$micro" -ne 0 ]; then
  echo "microbenchmarks failed (exit $micro); see $OUT/micro.txt" >&2
  status=$micro
fi
if [ "$status" -ne 0 ]; then
  echo "failed (exit $status); scenarios: $OUT/tmp/loadtest.log" >&2
fi
exit "$status"
