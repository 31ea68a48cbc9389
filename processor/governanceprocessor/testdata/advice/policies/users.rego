# Reads the processor's advice data (data.user, from
# testdata/advice/data/user.json: Weaver's README "Loading Additional Rego
# Data" example) and its preprocessor's result (data.user_keys, from
# testdata/advice/user.jq).
package live_check_advice

import rego.v1

deny contains {"id": "invalid_user_id", "level": "violation", "message": "user.id is not allowed",
	"context": {"attribute_key": attr.name}} if {
	attr := input.sample.attribute
	attr.name == "user.id"
	not attr.value in data.user.allowed_ids
}

deny contains {"id": "unknown_user_key", "level": "improvement", "message": "not a registry user.* key",
	"context": {"attribute_key": attr.name}} if {
	attr := input.sample.attribute
	startswith(attr.name, "user.")
	not attr.name in data.user_keys
}
