package live_check_advice

import rego.v1

# Never reports: it reads the sample as a whole (value-dependent, budgeted)
# and iterates 25 million times per sample, far past the 100 ms time-out. The
# :8888 scrape test (e2e/k8s_test.go) uses it so that the policy evaluation,
# error, time-out and budget-skip series exist. (It read input.resource,
# which is null for a resource sample, as in Weaver: the first evaluation of
# each batch then returned at once and spent the budget.)
deny contains {"id": "acme_slow", "level": "information", "message": "slow"} if {
	count(input.sample) > 0
	some i in numbers.range(1, 5000)
	some j in numbers.range(1, 5000)
	i * j == -1
}
