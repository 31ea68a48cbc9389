package live_check_advice

import rego.v1

# By name: no attribute key may contain "test". Reads the key only, so it is
# evaluated once per distinct key and answered from the memo after that.
deny contains {
	"id": "acme_no_test_keys",
	"level": "violation",
	"message": sprintf("Attribute key '%s' must not contain 'test'", [input.sample.attribute.name]),
	"context": {"attribute_key": input.sample.attribute.name},
} if {
	input.sample.attribute
	contains(input.sample.attribute.name, "test")
}
