package registry

// groupKindNames is keyed by GroupKind, so a reordered or inserted constant
// cannot shift a name (the other enums' tables are in
// internal/registry/def/names.go); TestNameTables checks every kind has one.
var groupKindNames = [...]string{
	GroupMetric: "metric",
	GroupEvent:  "event",
	GroupSpan:   "span",
	GroupEntity: "entity",
}

// String returns "metric", "event", "span" or "entity".
func (k GroupKind) String() string {
	if int(k) < len(groupKindNames) {
		return groupKindNames[k]
	}
	return "unknown"
}
