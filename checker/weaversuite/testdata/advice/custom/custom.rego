# The policy of Weaver's test_live_checker_loads_advice_data and
# test_live_checker_loads_advice_data_with_glob
# (crates/weaver_live_check/src/live_checker.rs at afa9700c), written to a
# temporary directory there: it fires only when data.user, loaded with
# --advice-data, says that user_id is a number.
package live_check_advice

import rego.v1

deny contains {
	"type": "advice",
	"advice_type": "custom_advice_finding",
	"advice_level": "violation",
	"advice_context": {"trigger": "test.custom_trigger"},
	"message": "Custom advisor rule triggered with data",
} if {
	input.sample.attribute
	input.sample.attribute.name == "test.custom_trigger"
	data.user.properties.user_id.type == "number"
}
