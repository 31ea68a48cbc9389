package live_check_advice

import rego.v1

# Never reports: it reads the key and the registry's definition only
# (value-free), so it is memoized and the memo-hit series exists. The
# second rule fires on resource samples (Set.FiresOn), the first sample of
# every batch: the set's memo is shared by the processor's three pipelines,
# so the first pipeline's evaluation is a memo hit in the other two, each
# of which then spends its budget on slow.rego.
deny contains {"id": "acme_never", "level": "information", "message": "never"} if {
	input.sample.attribute
	input.sample.attribute.name == "acme.never.sent"
}

deny contains {"id": "acme_never_resource", "level": "information", "message": "never"} if {
	input.sample.resource
	input.registry_group.id == "acme.never"
}
