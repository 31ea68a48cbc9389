package live_check_advice

import rego.v1

# By value: a url.full must not carry credentials. Reads the value, so it is
# evaluated for every sample.
deny contains {
	"id": "acme_url_credentials",
	"level": "violation",
	"message": "url.full carries credentials",
	"context": {"attribute_key": "url.full"},
} if {
	input.sample.attribute.name == "url.full"
	regex.match(`^[a-z]+://[^/@]+@`, input.sample.attribute.value)
}
