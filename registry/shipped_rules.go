package registry

import (
	_ "embed"
)

// shippedRulesName names the embedded rules file in messages.
const shippedRulesName = "registry/rules/semconv.yaml"

//go:embed rules/semconv.yaml
var shippedRules []byte
