package policy

import (
	"sync"
	"sync/atomic"
)

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
//
// Every sample of a walk asks it (Advisor.Advise), concurrently: a get of a
// known key takes no lock. The keys are in two maps: read, published
// through an atomic pointer and never changed once published, and dirty,
// the keys put since, under mu. A get that finds its key in dirty counts a
// miss; once the misses reach dirty's size (at least an eighth of read's),
// read is republished with dirty's keys, so that the copy's cost is
// amortized over the locked gets it ends. A key not held at all takes the
// lock too, and is then evaluated: the lock is never the cost there.
type memo struct {
	limits MemoLimits
	read   atomic.Pointer[map[Key][]Finding]

	mu     sync.Mutex
	dirty  map[Key][]Finding // guarded by mu
	misses int               // guarded by mu: gets served from dirty since read was published
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
	m := &memo{limits: l, dirty: map[Key][]Finding{}}
	m.read.Store(&map[Key][]Finding{})
	return m
}

func (m *memo) get(k Key) ([]Finding, bool) {
	if fs, ok := (*m.read.Load())[k]; ok {
		return fs, true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	fs, ok := m.dirty[k]
	if ok {
		m.misses++
		if m.misses >= max(len(m.dirty), len(*m.read.Load())/8) {
			m.publish()
		}
	}
	return fs, ok
}

// publish makes read hold dirty's keys too, and empties dirty. Called with
// mu held.
func (m *memo) publish() {
	old := *m.read.Load()
	r := make(map[Key][]Finding, len(old)+len(m.dirty))
	for k, fs := range old {
		r[k] = fs
	}
	for k, fs := range m.dirty {
		r[k] = fs
	}
	m.read.Store(&r)
	clear(m.dirty)
	m.misses = 0
}

func (m *memo) put(k Key, fs []Finding) {
	n := keySize(&k)
	for i := range fs {
		n += len(fs[i].ID) + len(fs[i].Message) + len(fs[i].Context) + len(fs[i].SignalType) + len(fs[i].SignalName) + 32
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := (*m.read.Load())[k]; ok {
		return // put by a concurrent evaluation of the same key
	}
	if len(*m.read.Load())+len(m.dirty) >= m.limits.Entries || m.bytes+n > m.limits.Bytes {
		m.read.Store(&map[Key][]Finding{})
		clear(m.dirty)
		m.bytes, m.misses = 0, 0
		m.resets++
	}
	if _, ok := m.dirty[k]; !ok {
		m.bytes += n
	}
	m.dirty[k] = fs
}

func (m *memo) stats() (entries, bytes int, resets int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(*m.read.Load()) + len(m.dirty), m.bytes, m.resets
}
