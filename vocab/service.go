package vocab

import "unicode/utf8"

// The reserved service entries of the per-service tallies: the processor's
// service.name label on :8888 and the conformance report's services.
const (
	// ServiceOther holds the services beyond a limit (the processor's
	// service_limit, the report's max_services).
	ServiceOther = "_other"
	// ServiceMissing holds the resources without a string service.name.
	ServiceMissing = "_missing"
)

// MaxKeyLength bounds, in bytes, every client-controlled string that
// becomes a label value, a report key or a log field (see Bound).
const MaxKeyLength = 256

// Bound makes a string an untrusted client sent safe to publish, as a report
// key or service name, a metric label value, or a log field: at most
// MaxKeyLength bytes, cut on a rune boundary, and valid UTF-8, every invalid
// byte replaced by U+FFFD. changed reports whether s was altered. A valid
// string within the bound is returned as is, and a too-long valid one as a
// prefix of s, without allocating; only invalid UTF-8 costs a new string of
// at most MaxKeyLength bytes. It reads at most about MaxKeyLength bytes of s.
func Bound(s string) (b string, changed bool) {
	if len(s) <= MaxKeyLength && utf8.ValidString(s) {
		return s, false
	}
	n := min(len(s), MaxKeyLength)
	i := 0
	for i < n {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return repair(s), true
		}
		if i+size > n {
			break
		}
		i += size
	}
	return s[:i], true
}

// repair copies the longest prefix of s that fits MaxKeyLength bytes once
// every invalid byte is replaced by U+FFFD.
func repair(s string) string {
	var buf [MaxKeyLength]byte
	out := buf[:0]
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		enc := s[i : i+size]
		if r == utf8.RuneError && size == 1 {
			enc = "\uFFFD"
		}
		if len(out)+len(enc) > MaxKeyLength {
			break
		}
		out = append(out, enc...)
		i += size
	}
	return string(out)
}
