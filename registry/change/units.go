package change

import "strings"

// UnitFactor returns the factor that converts a value in unit from to unit
// to (ms -> s is 0.001), and whether one is known: both are the same UCUM
// base unit under a metric or binary prefix (s, By, bit, m, g, Hz, W, J,
// A, V, Cel never prefixed), or both are dimensionless (1 or a curly
// annotation such as {request}), whose factor is 1.
func UnitFactor(from, to string) (float64, bool) {
	if from == to {
		return 1, true
	}
	if dimensionless(from) && dimensionless(to) {
		return 1, true
	}
	fp, fb, ok1 := splitUnit(from)
	tp, tb, ok2 := splitUnit(to)
	if !ok1 || !ok2 || fb != tb {
		return 0, false
	}
	return fp / tp, true
}

func dimensionless(u string) bool {
	return u == "1" || (strings.HasPrefix(u, "{") && strings.HasSuffix(u, "}") && strings.Count(u, "{") == 1)
}

// baseUnits are the UCUM units that take a prefix.
var baseUnits = []string{"s", "By", "bit", "m", "g", "Hz", "W", "J", "A", "V"}

// prefixes are the UCUM metric and binary prefixes; "" is none.
var prefixes = map[string]float64{
	"": 1, "n": 1e-9, "u": 1e-6, "m": 1e-3, "c": 1e-2, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
}

// splitUnit splits a prefixed unit into its prefix's factor and its base.
// The base must be the whole rest of the unit (no "/s" rates: those
// compare equal only when written alike).
func splitUnit(u string) (float64, string, bool) {
	// Try the longest base first, so that "min" is not m + "in" and "ms"
	// is m + s, not the base "m" with junk.
	for _, b := range baseUnits {
		p, ok := strings.CutSuffix(u, b)
		if !ok {
			continue
		}
		if f, ok := prefixes[p]; ok {
			return f, b, true
		}
	}
	if i := strings.IndexByte(u, '/'); i > 0 {
		f, b, ok := splitUnit(u[:i])
		if ok {
			return f, b + u[i:], true
		}
	}
	return 0, "", false
}
