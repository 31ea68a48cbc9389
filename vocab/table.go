package vocab

// invalid is the name of a value outside its table.
const invalid = "invalid"

// name returns the entry of v in a keyed name table, or "invalid".
func name[T ~uint8 | ~uint16](table []string, v T) string {
	if int(v) < len(table) {
		return table[v]
	}
	return invalid
}

// parse returns the value whose table entry is s.
func parse[T ~uint8 | ~uint16](table []string, s string) (T, bool) {
	for i, n := range table {
		if n == s && n != "" {
			return T(i), true
		}
	}
	return 0, false
}
