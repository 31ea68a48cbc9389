package policy

import "sync"

// Defaults of MemoLimits.
const (
	DefaultMemoEntries = 16384
	DefaultMemoBytes   = 8 << 20
)

// MemoLimits bound the memo of value-free policies' findings.
type MemoLimits struct {
	// Entries bounds the distinct keys held; zero means DefaultMemoEntries.
	Entries int
	// Bytes bounds the keys' and findings' strings held, roughly; zero
	// means DefaultMemoBytes.
	Bytes int
}

// memo holds the findings of the value-free policies per Key. When a bound
// is reached it starts over empty: a key space larger than the bound (names
// of unbounded cardinality) costs evaluations, never memory.
type memo struct {
	limits MemoLimits
	mu     sync.RWMutex
	m      map[Key][]Finding // guarded by mu
	bytes  int               // guarded by mu
	resets int64             // guarded by mu
}

func newMemo(l MemoLimits) *memo {
	if l.Entries <= 0 {
		l.Entries = DefaultMemoEntries
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultMemoBytes
	}
	return &memo{limits: l, m: map[Key][]Finding{}}
}

func (m *memo) get(k Key) ([]Finding, bool) {
	m.mu.RLock()
	fs, ok := m.m[k]
	m.mu.RUnlock()
	return fs, ok
}

func (m *memo) put(k Key, fs []Finding) {
	n := k.size()
	for i := range fs {
		n += len(fs[i].ID) + len(fs[i].Message) + len(fs[i].Context) + len(fs[i].SignalType) + len(fs[i].SignalName) + 32
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.m) >= m.limits.Entries || m.bytes+n > m.limits.Bytes {
		clear(m.m)
		m.bytes = 0
		m.resets++
	}
	m.m[k] = fs
	m.bytes += n
}

func (m *memo) stats() (entries, bytes int, resets int64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.m), m.bytes, m.resets
}
