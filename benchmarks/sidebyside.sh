#!/usr/bin/env bash
# Side by side at full speed: whole-process collector CPU per span for our
# bare pipeline, ours with governance (default config, signal checks on;
# SIDEBYSIDE_GOVERNANCE_EXTRA adds a variant, e.g. the checks off), and the baseline
# distribution's bare pipeline, transform and attributes doing the same
# renames. One run, interleaved rounds (at least 7), several batch sizes.
# Each figure is the median of per-round paired differences to the bare
# pipeline of the same distribution; a second bare pipeline of ours is the
# noise floor. Writes $OUT/sidebyside.json and $OUT/sidebyside.md.
# Needs _build/otelcol-governance and _baseline/otelcol-baseline
# (`make build baseline`).
#
# Knobs (environment): SIDEBYSIDE_ROUNDS (7), SIDEBYSIDE_DURATION (5s),
# SIDEBYSIDE_BATCHES (10,100,512), TESTBENCH_POOL (24), OUT.
# Full size is 7 rounds x 2 workloads x 3 batch sizes x 6 configurations of
# about 8 s each: about 35 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${OUT:-$ROOT/benchmarks/results}
mkdir -p "$OUT/tmp"
for bin in _build/otelcol-governance _baseline/otelcol-baseline; do
  [ -x "$bin" ] || { echo "missing $bin: run make build baseline" >&2; exit 2; }
done
echo "== side by side -> $OUT/sidebyside.{json,md} (log: $OUT/tmp/sidebyside.log); load: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
TESTBENCH_RESULTS="$OUT" go test -count=1 -tags 'e2e loadtest' -timeout 3h -v -run '^TestSideBySide$' ./testbench/ \
  >"$OUT/tmp/sidebyside.log" 2>&1 || status=$?
grep -E '^(--- FAIL|ok|FAIL)' "$OUT/tmp/sidebyside.log" || true
[ -f "$OUT/sidebyside.md" ] && cat "$OUT/sidebyside.md"
exit "$status"
