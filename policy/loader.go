package policy

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/otelgov/otelcol-governance/registry"
)

// Loader reloads the policies of a set of directories on demand (the
// registry extension's poll) and keeps the last good Set: a policy that no
// longer compiles is reported and the previous set stays in use, as a bad
// registry keeps the previous registry. It is safe for concurrent use.
type Loader struct {
	dirs []string
	opts Options

	mu     sync.Mutex
	set    *Set            // guarded by mu: the last good set
	ix     *registry.Index // guarded by mu: the registry set was compiled against
	digest [32]byte        // guarded by mu: of the sources set was compiled from
}

// NewLoader returns a Loader of dirs; nothing is read before Load.
func NewLoader(opts Options, dirs ...string) *Loader {
	return &Loader{dirs: append([]string(nil), dirs...), opts: opts}
}

// Load reads the directories and compiles them against ix when the sources
// or the registry changed since the last good set, which it returns
// otherwise (changed false). On an error it returns the last good set (nil
// before the first) with the error naming the file and line.
func (l *Loader) Load(ix *registry.Index) (s *Set, changed bool, err error) {
	srcs, err := ReadDir(l.dirs...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		return l.set, false, err
	}
	d := digest(srcs)
	if l.set != nil && d == l.digest && ix == l.ix {
		return l.set, false, nil
	}
	s, err = Compile(ix, l.opts, srcs...)
	if err != nil {
		return l.set, false, fmt.Errorf("keeping the last good policies: %w", err)
	}
	l.set, l.ix, l.digest = s, ix, d
	return s, true, nil
}

func digest(srcs []Source) [32]byte {
	h := sha256.New()
	for _, s := range srcs {
		fmt.Fprintf(h, "%d:%s%d:%s", len(s.File), s.File, len(s.Text), s.Text)
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}
