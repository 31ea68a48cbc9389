# A value rule on logs for the line rate's governance-policies variant
# (LINERATE_POLICIES): it reads a log's severity, a value, so it is
# value-dependent, but it can fire on logs only (policy.Set.FiresOn). On
# traces it must cost nothing: it is never evaluated on an attribute or a
# span, and the engine's shape memo stays on.
package live_check_advice

import rego.v1

deny contains {
	"id": "acme_debug_logs",
	"level": "improvement",
	"message": "a DEBUG log",
	"context": {},
} if {
	input.sample.log
	input.sample.log.severity_text == "DEBUG"
}
