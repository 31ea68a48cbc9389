package live_check_advice

import rego.v1

deny contains x if {
	x := nope(input)
}
