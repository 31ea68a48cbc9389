package live_check_advice

import rego.v1

# Never reports: it reads the key only (value-free), so it is memoized and
# the memo-hit series exists.
deny contains {"id": "acme_never", "level": "information", "message": "never"} if {
	input.sample.attribute
	input.sample.attribute.name == "acme.never.sent"
}
