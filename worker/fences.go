package worker

// fences is the highest token per scope (a session, or a graph),
// forgetting the one used least recently past its capacity: a scope still
// sending tasks is kept.
type fences[K comparable] struct {
	max   int
	token map[K]uint64
	order map[K]uint64 // when each was last raised or used
	clock uint64
}

// touch records that scope is in use.
func (f *fences[K]) touch(scope K) {
	if _, ok := f.order[scope]; ok {
		f.clock++
		f.order[scope] = f.clock
	}
}

func newFences[K comparable](n int) fences[K] {
	return fences[K]{max: n, token: make(map[K]uint64), order: make(map[K]uint64)}
}

func (f *fences[K]) get(scope K) (uint64, bool) {
	t, ok := f.token[scope]
	return t, ok
}

// raises reports whether token would raise scope's: it is higher than
// the scope's, or the scope is not known and the token is worth
// remembering. The zero token of a lone scheduler is not, unless keepZero
// (a named session's scope).
func (f *fences[K]) raises(scope K, token uint64, keepZero bool) bool {
	if cur, ok := f.get(scope); ok {
		return token > cur
	}
	return token > 0 || keepZero
}

func (f *fences[K]) raise(scope K, token uint64) {
	if _, ok := f.token[scope]; !ok && len(f.token) >= f.max {
		// Forget the least recently used one. A linear scan, but only
		// when a new one arrives at a full table.
		var oldest K
		first := true
		for s, at := range f.order {
			if first || at < f.order[oldest] {
				oldest, first = s, false
			}
		}
		delete(f.token, oldest)
		delete(f.order, oldest)
	}
	f.clock++
	f.token[scope] = token
	f.order[scope] = f.clock
}
