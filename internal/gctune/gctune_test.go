package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercent(t *testing.T) {
	p := Policy{ScanFactor: 4, MinHeadroom: 256 << 20, MaxPercent: 400}
	const mb = 1 << 20
	for _, c := range []struct {
		name       string
		live, scan uint64
		want       int
	}{
		{"empty heap: the most", 0, 0, 400},
		{"small heap of pointers: capped", 10 * mb, 10 * mb, 400},
		{"graphs alone: GOGC 400's headroom", 1000 * mb, 1000 * mb, 400},
		{"half pointers: four times them", 2000 * mb, 1000 * mb, 200},
		{"chunks held: the floor", 4096 * mb, 16 * mb, 6},
		{"chunks and a big graph", 4000 * mb, 500 * mb, 50},
		{"the floor never below 1", 1 << 50, 0, 1},
	} {
		if got := p.Percent(c.live, c.scan); got != c.want {
			t.Errorf("%s: Percent(%d MB live, %d MB scannable) = %d, want %d", c.name, c.live/mb, c.scan/mb, got, c.want)
		}
	}
}

// A held budget's limit lowers the floor to its fraction, never raises it.
func TestFloorUnderHeldLimit(t *testing.T) {
	const mb = 1 << 20
	p := Policy{ScanFactor: 4, MinHeadroom: 256 * mb, MaxPercent: 400, HeldFraction: 1.0 / 16}
	for _, c := range []struct {
		held int64
		want uint64
	}{
		{0, 256 * mb},
		{1152 * mb, 72 * mb},
		{428 * mb, 428 * mb / 16},
		{12 << 30, 256 * mb},
	} {
		if got := p.underHeld(c.held).MinHeadroom; got != c.want {
			t.Errorf("held %d MB: floor %d MB, want %d MB", c.held/mb, got/mb, c.want/mb)
		}
	}
	q := p
	q.HeldFraction = 0
	if got := q.underHeld(1152 * mb).MinHeadroom; got != 256*mb {
		t.Errorf("without HeldFraction the floor moved to %d MB", got/mb)
	}
	// 600 MB of chunks held under a 1 GiB budget: the heap may grow by
	// the lowered floor, not 256 MB.
	if got, want := p.underHeld(1152*mb).Percent(600*mb, 4*mb), 12; got != want {
		t.Errorf("Percent under a held 1152 MB = %d, want %d", got, want)
	}
}

// After a collection the tuner sets GOGC from the heap; stop restores it.
func TestTunerSetsGOGC(t *testing.T) {
	orig := debug.SetGCPercent(77)
	defer debug.SetGCPercent(orig)
	tuned := make(chan int, 64)
	stop := start(Policy{ScanFactor: 4, MinHeadroom: 1, MaxPercent: 300}, func(pct int) {
		select {
		case tuned <- pct:
		default:
		}
	})
	// 64 MB held without pointers: the headroom is four times the small
	// scannable heap, far below the 300% cap.
	held := make([]byte, 64<<20)
	var pct int
	for pct == 0 {
		runtime.GC()
		select {
		case pct = <-tuned:
		default:
		}
	}
	runtime.KeepAlive(held)
	if pct <= 0 || pct >= 300 {
		t.Errorf("GOGC set to %d with 64 MB of pointer-free data held; want well below the cap of 300", pct)
	}
	if got := debug.SetGCPercent(pct); got != pct {
		t.Errorf("GOGC is %d, the tuner said %d", got, pct)
	}
	stop()
	if got := debug.SetGCPercent(orig); got != 77 {
		t.Errorf("after stop GOGC is %d, want the 77 from before", got)
	}
}

func TestHeadroomOfAPointerHeapIsBoundedByTheLiveHeap(t *testing.T) {
	p := Default()
	const mb = 1 << 20
	for _, c := range []struct {
		name       string
		live, scan uint64
		want       uint64
	}{
		{"small graph: the floor", 100 * mb, 100 * mb, 256 * mb},
		{"chunks, few pointers: the floor", 2000 * mb, 10 * mb, 256 * mb},
		{"a million-op graph: half of it, not four times", 1000 * mb, 1000 * mb, 500 * mb},
		{"chunks and a graph: four times the pointers", 4000 * mb, 100 * mb, 400 * mb},
	} {
		if got := p.Headroom(c.live, c.scan); got != c.want {
			t.Errorf("%s: Headroom(%d MB live, %d MB scannable) = %d MB, want %d MB", c.name, c.live/mb, c.scan/mb, got/mb, c.want/mb)
		}
	}
	// The memory limit is the heap goal plus the slack.
	live, scan := uint64(1000*mb), uint64(1000*mb)
	if got := p.MemoryLimit(live, scan); got != math.MaxInt64 {
		t.Errorf("Default's MemoryLimit = %d, want none", got)
	}
	p.Slack = 96 * mb
	if got, want := p.MemoryLimit(live, scan), int64(live+live*uint64(p.Percent(live, scan))/100+p.Slack); got != want {
		t.Errorf("MemoryLimit = %d, want %d", got, want)
	}
	if got := (Policy{ScanFactor: 4, MinHeadroom: 1, MaxPercent: 100}).MemoryLimit(live, scan); got != math.MaxInt64 {
		t.Errorf("MemoryLimit without slack = %d, want none", got)
	}
}

// The tuner's limit and the held budgets combine: the lowest wins, and
// each is undone on its own.
func TestOneOwnerOfTheMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	r := HoldMemoryLimit(3 << 30)
	if got, want := limit(), min(orig, 3<<30); got != want {
		t.Fatalf("held 3 GiB: limit %d, want %d", got, want)
	}
	setTunedLimit(1 << 30)
	if got, want := limit(), min(orig, 1<<30); got != want {
		t.Errorf("tuned to 1 GiB under a 3 GiB hold: limit %d, want %d", got, want)
	}
	setTunedLimit(5 << 30)
	if got, want := limit(), min(orig, 3<<30); got != want {
		t.Errorf("tuned to 5 GiB under a 3 GiB hold: limit %d, want %d", got, want)
	}
	r()
	if got, want := limit(), min(orig, 5<<30); got != want {
		t.Errorf("hold released, tuned to 5 GiB: limit %d, want %d", got, want)
	}
	setTunedLimit(math.MaxInt64)
	if got := limit(); got != orig {
		t.Errorf("nothing held or tuned: limit %d, want the original %d", got, orig)
	}
}

// The bound on a pointer heap's headroom widens while the collector takes
// more than its share of the CPU, up to the scannable heap's four times,
// and narrows back when it takes less.
func TestBoostFollowsTheCollectorsShare(t *testing.T) {
	p := Policy{ScanFactor: 4, MinHeadroom: 1, LiveFraction: 0.5, GCShare: 0.1, MaxPercent: 400}
	tu := &Tuner{p: p, boost: 1}
	const live = 1 << 30
	base := p.headroom(live, live, tu.boost)
	tu.adapt(0.2, 1) // twice the share
	if tu.boost <= 1 {
		t.Fatalf("boost %v after the collector took twice its share; want above 1", tu.boost)
	}
	if h := p.headroom(live, live, tu.boost); h <= base {
		t.Errorf("headroom %d with boost %v, not above %d", h, tu.boost, base)
	}
	for range 50 {
		tu.adapt(0.5, 1)
	}
	if tu.boost != p.maxBoost() {
		t.Errorf("boost %v after a long expensive run; want the most, %v", tu.boost, p.maxBoost())
	}
	if h, want := p.headroom(live, live, tu.boost), uint64(4*live); h != want {
		t.Errorf("fully widened headroom %d, want four times the scannable heap, %d", h, want)
	}
	for range 50 {
		tu.adapt(0.001, 1)
	}
	if tu.boost != 1 {
		t.Errorf("boost %v after a long cheap run; want 1", tu.boost)
	}
	tu.adapt(0.5, 0) // no CPU time passed: nothing to learn
	if tu.boost != 1 {
		t.Errorf("boost %v changed on an empty interval", tu.boost)
	}
}
