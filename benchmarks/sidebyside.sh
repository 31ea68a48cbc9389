#!/usr/bin/env bash
# Deprecated: the side by side is now the line-rate harness,
# benchmarks/linerate.sh (pinned collector, pre-marshalled replay client,
# three workloads, noise floor and CI). This name forwards to it for one
# release; SIDEBYSIDE_ROUNDS and SIDEBYSIDE_DURATION become LINERATE_ROUNDS and
# LINERATE_DURATION with a warning.
echo "benchmarks/sidebyside.sh is deprecated: use benchmarks/linerate.sh (LINERATE_ROUNDS, LINERATE_DURATION, ...)" >&2
for v in ROUNDS DURATION; do
  old=SIDEBYSIDE_$v new=LINERATE_$v
  if [ -n "${!old:-}" ]; then
    echo "$old is deprecated: use $new" >&2
    export "$new=${!new:-${!old}}"
  fi
done
for v in SIDEBYSIDE_BATCHES SIDEBYSIDE_GOVERNANCE_EXTRA; do
  if [ -n "${!v:-}" ]; then echo "$v has no equivalent (one request of 100 spans; variants are LINERATE_VARIANTS); not used" >&2; fi
done
exec "$(dirname "$0")/linerate.sh" "$@"
