package scheduler

// A run's counts of ops per state (Run.Counts, Run.TypeCounts) and the
// scheduler's count of ops done are read from any goroutine, so they are
// atomic. An op changes state three or four times on its way, each change
// two counters down and two up: the event loop counts the changes of a
// step in plain integers instead and adds them to the atomic counters
// once, when the step's actions are taken (core.take), before any run's
// Done is closed. A reader sees the counts as of the last step's end.

// touched notes that run r has changes its counters do not show yet.
func (r *Run) touched() {
	if r.dirty {
		return
	}
	// Withdrawn now, not at the step's end: a command or report that
	// returned before a read is never read past (result_snapshot.go).
	r.withdrawPlaces()
	if r.core == nil {
		// Not started on a core (tests that drive a run alone): no step
		// end will come, so the change shows at once.
		r.publishCounts()
		return
	}
	r.dirty = true
	r.core.dirty = append(r.core.dirty, r)
}

// publishCounts adds r's changes since the last call to its counters.
func (r *Run) publishCounts() {
	r.dirty = false
	for st, d := range r.stateDelta {
		if d != 0 {
			r.counts[st].Add(d)
			r.stateDelta[st] = 0
		}
	}
	for k := range r.typeDelta {
		td := &r.typeDelta[k]
		for st, d := range td {
			if d != 0 {
				r.typeCounts[k][st].Add(d)
				td[st] = 0
			}
		}
	}
	if r.doneDelta != 0 {
		if r.s != nil {
			r.s.opsDone.Add(r.doneDelta)
		}
		r.doneDelta = 0
	}
}

// publishCounts adds the changes of the step to the counters of every run
// it touched.
func (c *core) publishCounts() {
	for _, r := range c.dirty {
		r.publishCounts()
		c.publishResults(r)
	}
	clear(c.dirty)
	c.dirty = c.dirty[:0]
}
