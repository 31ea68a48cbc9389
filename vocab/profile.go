package vocab

// Profile says which findings the engine reports.
type Profile uint8

// The profiles.
const (
	// ProfileWeaver reports exactly the findings Weaver's live-check
	// reports for the same registry and input (the default).
	ProfileWeaver Profile = iota
	// ProfileExtended adds this engine's extensions: span definitions
	// selected by v1 span matchers (kind_mismatch, not_stable and the
	// requirement findings on spans), unexpected_attribute on v1 groups,
	// span events checked against event definitions, and the service
	// entity's required service.name on resources.
	ProfileExtended
	NumProfiles
)

var profileNames = [NumProfiles]string{
	ProfileWeaver:   "weaver",
	ProfileExtended: "extended",
}

// String returns "weaver" or "extended".
func (p Profile) String() string { return name(profileNames[:], p) }

// ParseProfile returns the profile named s.
func ParseProfile(s string) (Profile, bool) { return parse[Profile](profileNames[:], s) }
