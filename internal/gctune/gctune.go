// Package gctune sets the garbage collector's heap goal from what a
// collection costs, not from the whole live heap.
//
// A collection's work is marking the scannable heap (objects holding
// pointers: graphs, dispatch records, maps); chunk data are large
// pointer-free buffers that cost nothing to mark. GOGC grows the heap in
// proportion to everything live, so with gigabytes of chunks held a
// GOGC fit for the graphs (400: a graph of a million ops makes garbage
// fast) lets the heap grow by several times the chunks' size, all of it
// resident memory. The tuner gives the heap a headroom in proportion to
// the scannable heap alone (the GC's CPU share stays what GOGC would
// give), with a floor, so held chunks no longer multiply memory.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Policy is the headroom the heap may grow by between collections:
// ScanFactor times the scannable heap, at least MinHeadroom bytes.
type Policy struct {
	ScanFactor  float64
	MinHeadroom uint64
	// MaxPercent bounds the GOGC set (the percent of the live heap).
	MaxPercent int
}

// Default is GOGC 400's headroom for the scannable heap, at least 256 MiB.
func Default() Policy { return Policy{ScanFactor: 4, MinHeadroom: 256 << 20, MaxPercent: 400} }

// Percent is the GOGC that gives a heap of live bytes, scan of them
// scannable, the policy's headroom: at least 1, at most MaxPercent.
func (p Policy) Percent(live, scan uint64) int {
	if live == 0 {
		return p.MaxPercent
	}
	h := max(uint64(p.ScanFactor*float64(scan)), p.MinHeadroom)
	pct := int(min(float64(h)*100/float64(live), float64(p.MaxPercent)))
	return max(pct, 1)
}

// Tuner re-sets GOGC after every collection.
type Tuner struct {
	p       Policy
	samples []metrics.Sample
	// onTune, when set (tests), is called with each percent set.
	onTune func(int)

	mu      sync.Mutex
	stopped bool
}

// Start sets GOGC from p after each collection until the returned stop is
// called; stop restores the GOGC there was before.
func Start(p Policy) (stop func()) { return start(p, nil) }

func start(p Policy, onTune func(int)) (stop func()) {
	t := &Tuner{p: p, onTune: onTune, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/heap:bytes"},
	}}
	orig := debug.SetGCPercent(p.MaxPercent)
	t.arm()
	return func() {
		t.mu.Lock()
		t.stopped = true
		t.mu.Unlock()
		debug.SetGCPercent(orig)
	}
}

// sentinel is garbage the moment it is made: its finalizer runs after the
// next collection, tunes and makes the next one.
type sentinel struct{ _ [16]byte }

func (t *Tuner) arm() {
	s := new(sentinel)
	runtime.SetFinalizer(s, func(*sentinel) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.stopped {
			return
		}
		t.tune()
		t.arm()
	})
}

// tune reads the heap's figures after a collection and sets GOGC.
func (t *Tuner) tune() {
	metrics.Read(t.samples)
	var live, scan uint64
	if v := t.samples[0].Value; v.Kind() == metrics.KindUint64 {
		live = v.Uint64()
	}
	if v := t.samples[1].Value; v.Kind() == metrics.KindUint64 {
		scan = v.Uint64()
	}
	pct := t.p.Percent(live, scan)
	debug.SetGCPercent(pct)
	if t.onTune != nil {
		t.onTune(pct)
	}
}
