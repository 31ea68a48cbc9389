package registry

// Migration is the resolved value migration of one key. Exactly one of the
// groups is set: Values and/or Convert (applied when the key is renamed, or
// in place for Values on a key that is not renamed), Split, Merge or Move.
// Treat it as read-only.
type Migration struct {
	// Values maps a string value to its new value; IntValues an int value.
	// The new values are registry constants, so applying one allocates
	// nothing.
	Values    map[string]string
	IntValues map[int64]string
	// Convert is the type the value is converted to on rename; TypeUnknown
	// for none. Only lossless conversions load.
	Convert Type
	// ConvertTo is the key a deprecated key that is not renamed is moved to
	// with its value converted (convert: {to, type}); it may name a key
	// under a template, such as http.request.header.content-length.
	ConvertTo string
	Split     *Split
	Merge     *Merge
	Move      Field
	// Where is the rule's file:line.
	Where string
}

// Split turns one string value into several attributes: cut at the first
// Separator into Into[0] and Into[1] (the second only when the separator
// occurs), or, with Cases, look the whole value up; values without a case
// are kept.
type Split struct {
	Separator string
	Into      []string
	Cases     map[string][]Assign
}

// Merge fills To from a template over several string attributes; it applies
// only when every key of the template is present.
type Merge struct {
	To    string
	Parts []MergePart
	// Keys are the attributes the template reads, in template order; the
	// rule's own key is one of them. All are removed after the merge.
	Keys []string
}

// MergePart is a literal or the value of Key.
type MergePart struct {
	Key     string
	Literal string
}
