# The example of "Loading Additional Rego Data" in Weaver's
# crates/weaver_live_check/README.md (afa9700c): with --advice-data
# "schemas/**/*.json", schemas/user.json is data.user, and a user.id whose
# value is not in data.user.allowed_ids is a violation.
package live_check_advice

import rego.v1

deny contains {
	"type": "advice",
	"advice_type": "invalid_user_id",
	"advice_level": "violation",
	"advice_context": {
		"attribute_key": attr.name,
		"attribute_value": attr.value,
		"allowed_ids": data.user.allowed_ids,
	},
	"message": sprintf("User ID '%s' is not in the allowed list: %v", [attr.value, data.user.allowed_ids]),
} if {
	attr := input.sample.attribute
	attr.name == "user.id"
	not attr.value in data.user.allowed_ids
}
