#!/usr/bin/env bash
# Line rate: whole-process collector CPU per span (testbench TestLineRate).
# Each run is a fresh collector (GOMAXPROCS=1, pinned to one CPU with
# taskset) with OTLP/gRPC -> processor -> nop; the client, pinned to the
# other CPU, replays one pre-marshalled request of 100 spans. Variants: bare,
# bare2 (the noise floor), governance (default config, checks on), governance
# with the checks off, the floor collector's bare and floor (the least a memo
# hit must do through pdata's API; the table's governance / floor), and the
# baseline distribution's bare, attributes and transform doing the same
# renames and schema (contrib's schema processor, schema_url 1.20.0 -> 1.44.0,
# schema files served on loopback); workloads conforming, deprecated, mixed,
# old-values.
# Figures are medians over interleaved rounds of per-round paired differences
# to the bare pipeline of the same binary, with a 95% CI and the floor.
# TestLineRateSameRenames first checks that governance, attributes and
# transform produce the same attributes. Writes $OUT/linerate.{md,json}. Needs _build/otelcol-governance,
# _baseline/otelcol-baseline and testbench/_build/otelcol-floor (`make build
# baseline floor`), ../shared/semconv/v1.44.0/schemas (TESTBENCH_SCHEMAS) and
# taskset (util-linux).
#
# Knobs (environment), see testbench/linerate_test.go: LINERATE_ROUNDS (9),
# LINERATE_DURATION (15s), LINERATE_WARMUP (3s), LINERATE_WORKERS (4),
# LINERATE_RATE (0 = full speed), LINERATE_WORKLOADS, LINERATE_VARIANTS,
# LINERATE_COLLECTOR_CPU (0), LINERATE_CLIENT_CPU (1), OUT; LINERATE_BEFORE_BIN (an earlier
# governance binary: adds bare-before and governance-before, the before and
# after of a change in one interleaved run), LINERATE_POLICIES (policy
# directories: adds governance-policies, what advice policies cost),
# LINERATE_SHADOW (a semantic-conventions checkout, e.g.
# ../shared/semconv/next-384d661: adds governance-extension and
# governance-shadow, what the shadow registry costs at its default sample),
# LINERATE_SLICE (500ms here; 0 runs the variants one after the other: a
# round's variants run side by side and the client alternates between them
# in slices this long, so that a disturbance of the host lasting seconds
# falls on every variant of the round alike; on this shared machine it
# narrowed the floor from +-5-14% to +-1.4-4.3% of bare),
# LINERATE_COLLECTOR_ENV (NAME=value settings for every collector, e.g.
# "GOGC=off GOMEMLIMIT=64MiB": a GC pacing that no variant's live heap moves).
# Full size: 9 rounds x 4 workloads x 10 variants x about 19.5 s = about 117
# minutes. Run it on a quiet machine: whatever else runs on the collector's
# CPU shows in the runqueue wait the table reports.
set -euo pipefail
cd "$(dirname "$0")/.."
export LINERATE_SLICE="${LINERATE_SLICE:-500ms}"
ROOT=$(pwd)
OUT=${OUT:-$ROOT/benchmarks/results}
mkdir -p "$OUT/tmp"
OUT=$(cd "$OUT" && pwd) # the test runs in testbench/: a relative OUT would land there
for bin in _build/otelcol-governance _baseline/otelcol-baseline testbench/_build/otelcol-floor; do
  [ -x "$bin" ] || { echo "missing $bin: run make build baseline floor" >&2; exit 2; }
done
command -v taskset >/dev/null || { echo "taskset missing (apt-get install util-linux)" >&2; exit 2; }
echo "== line rate -> $OUT/linerate.{json,md} (log: $OUT/tmp/linerate.log); load: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
LINERATE_COMMAND="${LINERATE_COMMAND:-./benchmarks/linerate.sh}" TESTBENCH_RESULTS="$OUT" \
  go test -count=1 -tags e2e -timeout 6h -v -run '^TestLineRate(SameRenames)?$' ./testbench/ \
  >"$OUT/tmp/linerate.log" 2>&1 || status=$?
grep -E '^(--- FAIL|ok|FAIL)' "$OUT/tmp/linerate.log" || true
[ -f "$OUT/linerate.md" ] && cat "$OUT/linerate.md"
exit "$status"
