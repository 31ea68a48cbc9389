# One organisation name rule for the line rate's governance-policies
# variant (LINERATE_POLICIES), loaded next to Weaver's otel.rego: it reads
# the attribute key only, so the policy memo answers it after the first
# sighting of each key.
package live_check_advice

import rego.v1

deny contains {
	"id": "acme_no_tmp_keys",
	"level": "improvement",
	"message": sprintf("Attribute key '%s' is temporary: 'tmp.' keys must not ship", [input.sample.attribute.name]),
	"context": {"attribute_key": input.sample.attribute.name},
} if {
	input.sample.attribute
	startswith(input.sample.attribute.name, "tmp.")
}
