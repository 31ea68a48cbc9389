// Package keyeq compares attribute keys as the engine's memo does; the
// engine and the floor of its benchmarks (enginetest.Floor) share it.
package keyeq // import "github.com/otelgov/otelcol-governance/engine/internal/keyeq"

import "unsafe"

// Equal reports whether two strings are equal, as a == b does, for the
// memo's key comparisons. For keys of 8 bytes or more it compares them 8
// bytes at a time inline, the last word overlapping the one before; Go
// calls runtime.memequal for a == b, and that call was about a third of a
// conforming attribute's cost on a memo hit. Shorter keys use a == b (no
// load may read past a string's end).
func Equal(a, b string) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	if n < 8 {
		return a == b
	}
	pa, pb := unsafe.Pointer(unsafe.StringData(a)), unsafe.Pointer(unsafe.StringData(b)) //nolint:gosec // reads within both strings
	for i := 0; i < n-8; i += 8 {
		if *(*uint64)(unsafe.Add(pa, i)) != *(*uint64)(unsafe.Add(pb, i)) { //nolint:gosec // i+8 <= n
			return false
		}
	}
	return *(*uint64)(unsafe.Add(pa, n-8)) == *(*uint64)(unsafe.Add(pb, n-8)) //nolint:gosec // n >= 8
}
