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
// give), with a floor, so held chunks no longer multiply memory. A heap
// made mostly of pointers (a graph of a million chunk ops) would still get
// four times itself; there the headroom is bounded by a fraction of the
// live heap.
//
// The package is also the one owner of the process's Go memory limit
// (debug.SetMemoryLimit): the limits held for workers' budgets
// (HoldMemoryLimit), the user's GOMEMLIMIT and, with a Policy that has a
// Slack, the heap goal plus that slack (over the limit the runtime returns
// freed pages at once and collects early; Default has none, see Slack).
package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Policy is the headroom the heap may grow by between collections:
// ScanFactor times the scannable heap, but no more than LiveFraction of
// the live heap, and at least MinHeadroom bytes.
type Policy struct {
	ScanFactor  float64
	MinHeadroom uint64
	// LiveFraction bounds the headroom of a heap that is mostly pointers
	// (0: no bound): its resident memory stays near (1+LiveFraction)
	// times the live heap.
	LiveFraction float64
	// GCShare is the share of the CPU the collector may take (assists,
	// dedicated workers and pauses, not idle workers) before the tuner
	// widens LiveFraction's bound, up to ScanFactor times the scannable
	// heap: a small heap goal costs a collection per few hundred MB
	// allocated, and marking a graph of a million ops is not free. 0:
	// the bound is fixed.
	GCShare float64
	// MaxPercent bounds the GOGC set (the percent of the live heap).
	MaxPercent int
	// HeldFraction lowers MinHeadroom to this fraction of the memory limit
	// held for workers' budgets (HoldMemoryLimit), when that is less: a
	// floor fit for a machine's default budget would otherwise be a
	// quarter of a 1 GiB one, memory the heap fills with garbage above
	// what the store holds. 0: the floor stays.
	HeldFraction float64
	// Slack is what the memory limit the tuner sets allows beyond the
	// heap goal: stacks, the runtime's own metadata, allocation during a
	// collection. 0: the tuner sets no memory limit. Default sets none: a
	// limit close above the goal makes the runtime return pages it then
	// faults in again, and assist collections, which slowed a large sort
	// far more than it saved in resident memory.
	Slack uint64
}

// Default is GOGC 400's headroom for the scannable heap, at most half the
// live heap and at least 256 MiB, or a sixteenth of a held budget's limit
// if less, with no memory limit of the tuner's own.
//
// The sixteenth keeps the headroom under a held budget in proportion to
// it, so resident memory stays near what the store holds rather than at
// the limit. The half is fixed (no GCShare): widening it to hold the
// collector's share of the CPU down let a graph of ten million chunk ops
// grow its heap by twice its live size between two collections, and every
// page of that growth is a page fault the first time it is touched. On a
// virtual machine whose host backs memory lazily, first touches cost far
// more than the collections saved (docs/interactive.md, "Round 6, the
// collector's headroom and first touches").
func Default() Policy {
	return Policy{ScanFactor: 4, MinHeadroom: 256 << 20, LiveFraction: 0.5, MaxPercent: 400, HeldFraction: 1.0 / 16}
}

// Headroom is the bytes a heap of live bytes, scan of them scannable, may
// grow by before the next collection.
func (p Policy) Headroom(live, scan uint64) uint64 { return p.headroom(live, scan, 1) }

// headroom is Headroom with LiveFraction's bound widened boost times.
func (p Policy) headroom(live, scan uint64, boost float64) uint64 {
	h := uint64(p.ScanFactor * float64(scan))
	if p.LiveFraction > 0 {
		h = min(h, uint64(p.LiveFraction*boost*float64(live)))
	}
	return max(h, p.MinHeadroom)
}

// underHeld is p with its floor lowered for a held memory limit of held
// bytes (0: none held); see HeldFraction.
func (p Policy) underHeld(held int64) Policy {
	if held > 0 && p.HeldFraction > 0 {
		p.MinHeadroom = min(p.MinHeadroom, uint64(p.HeldFraction*float64(held)))
	}
	return p
}

// maxBoost is the most the tuner widens LiveFraction's bound: then it no
// longer binds below ScanFactor times a heap of pointers.
func (p Policy) maxBoost() float64 {
	if p.LiveFraction <= 0 {
		return 1
	}
	return max(1, p.ScanFactor/p.LiveFraction)
}

// Percent is the GOGC that gives a heap of live bytes, scan of them
// scannable, the policy's headroom: at least 1, at most MaxPercent.
func (p Policy) Percent(live, scan uint64) int { return p.percent(live, scan, 1) }

func (p Policy) percent(live, scan uint64, boost float64) int {
	if live == 0 {
		return p.MaxPercent
	}
	h := p.headroom(live, scan, boost)
	pct := int(min(float64(h)*100/float64(live), float64(p.MaxPercent)))
	return max(pct, 1)
}

// MemoryLimit is the Go memory limit the tuner sets for a heap of live
// bytes, scan of them scannable: the heap goal of Percent plus Slack;
// math.MaxInt64 (none) without Slack.
func (p Policy) MemoryLimit(live, scan uint64) int64 { return p.memoryLimit(live, scan, 1) }

func (p Policy) memoryLimit(live, scan uint64, boost float64) int64 {
	if p.Slack == 0 {
		return math.MaxInt64
	}
	goal := live + live*uint64(p.percent(live, scan, boost))/100
	if live == 0 {
		goal = p.MinHeadroom
	}
	return int64(min(goal+p.Slack, math.MaxInt64/2))
}

// Tuner re-sets GOGC after every collection.
type Tuner struct {
	p       Policy
	samples []metrics.Sample
	// onTune, when set (tests), is called with each percent set.
	onTune func(int)

	// boost widens the policy's LiveFraction bound while the collector
	// takes more than GCShare of the CPU; gc and cpu are the CPU seconds
	// (the collector's, all) at the last tuning.
	boost   float64
	gc, cpu float64

	mu      sync.Mutex
	stopped bool
}

// Start sets GOGC from p after each collection until the returned stop is
// called; stop restores the GOGC there was before.
func Start(p Policy) (stop func()) { return start(p, nil) }

func start(p Policy, onTune func(int)) (stop func()) {
	t := &Tuner{p: p, onTune: onTune, boost: 1, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/heap:bytes"},
		{Name: "/cpu/classes/gc/mark/assist:cpu-seconds"},
		{Name: "/cpu/classes/gc/mark/dedicated:cpu-seconds"},
		{Name: "/cpu/classes/gc/pause:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"},
	}}
	orig := debug.SetGCPercent(p.MaxPercent)
	t.arm()
	return func() {
		t.mu.Lock()
		t.stopped = true
		t.mu.Unlock()
		debug.SetGCPercent(orig)
		setTunedLimit(math.MaxInt64)
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
	var gc, cpu float64
	for _, s := range t.samples[2:5] {
		if s.Value.Kind() == metrics.KindFloat64 {
			gc += s.Value.Float64()
		}
	}
	if v := t.samples[5].Value; v.Kind() == metrics.KindFloat64 {
		cpu = v.Float64()
	}
	t.adapt(gc-t.gc, cpu-t.cpu)
	t.gc, t.cpu = gc, cpu
	p := t.p.underHeld(HeldMemoryLimit())
	pct := p.percent(live, scan, t.boost)
	debug.SetGCPercent(pct)
	setTunedLimit(p.memoryLimit(live, scan, t.boost))
	if t.onTune != nil {
		t.onTune(pct)
	}
}

// adapt moves the boost so that the collector's share of the CPU since the
// last collection, dgc of dcpu seconds, comes near GCShare. The share
// falls as the headroom grows (the collections are as costly and fewer),
// so the boost is scaled by the ratio of the share to its target; the
// geometric mean with the old boost damps one unusual interval.
func (t *Tuner) adapt(dgc, dcpu float64) {
	if t.p.GCShare <= 0 || dcpu <= 0 || dgc < 0 {
		return
	}
	want := t.boost * (dgc / dcpu) / t.p.GCShare
	t.boost = min(max(math.Sqrt(t.boost*max(want, 1e-9)), 1), t.p.maxBoost())
}

// limits is the process's Go memory limit and what it is made of.
var limits struct {
	sync.Mutex
	known   bool  // orig has been read
	orig    int64 // the limit before gctune set any (the user's GOMEMLIMIT)
	total   int64 // sum of the held limits
	holders int
	tuned   int64 // the tuner's limit; math.MaxInt64 when it does not run
}

// knowLocked reads the limit the process started with, before gctune
// first sets one.
func knowLocked() {
	if !limits.known {
		limits.known = true
		limits.orig = debug.SetMemoryLimit(-1)
		limits.tuned = math.MaxInt64
	}
}

// applyLocked sets the lowest of the limits. The held ones add up; the
// user's lower GOMEMLIMIT wins over them.
func applyLocked() {
	want := limits.orig
	if limits.holders > 0 && limits.total > 0 {
		want = min(want, limits.total)
	}
	want = min(want, limits.tuned)
	debug.SetMemoryLimit(want)
}

// HeldMemoryLimit is the sum of the limits held (HoldMemoryLimit), 0 if
// none is.
func HeldMemoryLimit() int64 {
	limits.Lock()
	defer limits.Unlock()
	if limits.holders == 0 {
		return 0
	}
	return max(limits.total, 0)
}

func setTunedLimit(n int64) {
	limits.Lock()
	defer limits.Unlock()
	knowLocked()
	limits.tuned = n
	applyLocked()
}

// HoldMemoryLimit lowers the Go memory limit to what workers whose budgets
// add up to limit may use, so the collector works harder before the heap
// outgrows them. The limits of concurrent holders add up (several clusters
// in one process); a lower limit set by the user (GOMEMLIMIT), or by the
// tuner, is kept. The returned func undoes the hold; after the last one
// the limit is what it was, or the tuner's.
func HoldMemoryLimit(limit int64) (release func()) {
	if limit <= 0 || limit == math.MaxInt64 {
		return func() {}
	}
	limits.Lock()
	knowLocked()
	limits.holders++
	limits.total += limit
	applyLocked()
	limits.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			limits.Lock()
			defer limits.Unlock()
			limits.holders--
			limits.total -= limit
			applyLocked()
		})
	}
}
