package vocab

import "fmt"

// Kind is the telemetry kind of a batch, a pipeline or a record: traces,
// metrics or logs. The name is the collector's otel.signal label value and
// the pipeline type.
type Kind uint8

// The kinds. KindUnknown is the zero value: a kind not (yet) known, e.g. a
// binary protobuf record before detection.
const (
	KindUnknown Kind = iota
	KindTraces
	KindMetrics
	KindLogs
	NumKinds
)

var kindNames = [NumKinds]string{
	KindUnknown: "unknown",
	KindTraces:  "traces",
	KindMetrics: "metrics",
	KindLogs:    "logs",
}

// Kinds are the known kinds, in order.
var Kinds = [...]Kind{KindTraces, KindMetrics, KindLogs}

// String returns "traces", "metrics", "logs" or "unknown".
func (k Kind) String() string { return name(kindNames[:], k) }

// ParseKind returns the kind named s: "traces", "metrics" or "logs".
// "unknown" is not accepted.
func ParseKind(s string) (Kind, bool) {
	k, ok := parse[Kind](kindNames[:], s)
	if k == KindUnknown {
		return KindUnknown, false
	}
	return k, ok
}

// MarshalText encodes the kind by name, so that JSON and YAML documents
// carry "traces", "metrics" or "logs".
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind by name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, ok := ParseKind(string(b))
	if !ok {
		return fmt.Errorf("unknown signal %q: want traces, metrics or logs", b)
	}
	*k = v
	return nil
}
