package live_check_advice

import rego.v1

deny contains {
	"id": "acme_no_test_keys",
	"level": "violation",
	"message": sprintf("Attribute key '%s' must not contain 'test'", [input.sample.attribute.name]),
} if {
	input.sample.attribute
	contains(input.sample.attribute.name, "test")
}
