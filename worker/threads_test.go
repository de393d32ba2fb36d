package worker_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
)

// threadedOp is a testOp that can use up to max threads and records how
// many its kernel was given.
type threadedOp struct {
	testOp
	max int
	got atomic.Int64
}

func (o *threadedOp) MaxThreads(ops.Meta) int { return o.max }

func (o *threadedOp) Exec(ctx context.Context, in []*ndarray.Array) (*ndarray.Array, error) {
	o.got.Store(int64(ops.Threads(ctx)))
	return o.testOp.Exec(ctx, in)
}

// A threaded op alone on a worker holds the idle slots and is told so; a
// task arriving while it runs waits for them.
func TestThreadedOpBorrowsIdleSlots(t *testing.T) {
	w, _, rec := newWorker(t, 3, storage.Config{Limit: 64 * unit, SpillDir: t.TempDir()})
	gate := make(chan struct{})
	big := &threadedOp{testOp: testOp{name: "big", n: elems, gate: gate, done: make(chan struct{})}, max: 2}
	w.Submit([]protocol.Task{task(1, big, elems, depth(0))})
	rec.started(t, key(1))
	// big holds 2 of the 3 slots: one more op may start beside it, and the
	// other only once big has given its slots back (both wait on gate2, so
	// neither frees a slot first).
	var early atomic.Int64
	onRun := func() {
		select {
		case <-big.done:
		default:
			early.Add(1)
		}
	}
	gate2 := make(chan struct{})
	w.Submit([]protocol.Task{
		task(2, &testOp{name: "second", n: elems, gate: gate2, onRun: onRun}, elems, depth(1)),
		task(3, &testOp{name: "third", n: elems, gate: gate2, onRun: onRun}, elems, depth(1)),
	})
	first := startedOneOf(t, rec, key(2), key(3))
	close(gate)
	if res := rec.wait(t, key(1)); res.Outcome != protocol.Succeeded {
		t.Fatalf("big: %v %v", res.Outcome, res.Err)
	}
	other := key(2)
	if first == key(2) {
		other = key(3)
	}
	rec.started(t, other)
	close(gate2)
	for _, k := range []protocol.ChunkKey{key(2), key(3)} {
		if res := rec.wait(t, k); res.Outcome != protocol.Succeeded {
			t.Fatalf("%v: %v %v", k, res.Outcome, res.Err)
		}
	}
	if got := big.got.Load(); got != 2 {
		t.Errorf("the lone threaded op ran on %d threads, want 2 (its maximum)", got)
	}
	if n := early.Load(); n != 1 {
		t.Errorf("%d ops started while the threaded op held 2 of 3 slots, want 1", n)
	}
	// Slots lent are given back: three plain ops run at once again.
	gate3 := make(chan struct{})
	var running atomic.Int64
	all := make(chan struct{})
	var plain []protocol.Task
	for i := range 3 {
		plain = append(plain, task(int32(10+i), &testOp{name: "plain", n: elems, gate: gate3, onRun: func() {
			if running.Add(1) == 3 {
				close(all)
			}
		}}, elems, depth(0)))
	}
	w.Submit(plain)
	<-all
	close(gate3)
	for i := range 3 {
		if res := rec.wait(t, key(int32(10+i))); res.Outcome != protocol.Succeeded {
			t.Fatalf("plain %d: %v %v", i, res.Outcome, res.Err)
		}
	}
}

// startedOneOf waits for the Started report of a or b and returns its key.
func startedOneOf(t *testing.T, rec *recorder, a, b protocol.ChunkKey) protocol.ChunkKey {
	t.Helper()
	for {
		res := <-rec.ch
		if res.Outcome == protocol.Started && (res.Key == a || res.Key == b) {
			return res.Key
		}
		rec.seen[res.Key] = append(rec.seen[res.Key], res)
	}
}

// A threaded op gets one thread when other work is queued or the other
// slots are busy.
func TestThreadedOpKeepsOneSlotWhenBusy(t *testing.T) {
	w, _, rec := newWorker(t, 2, storage.Config{Limit: 64 * unit, SpillDir: t.TempDir()})
	// Queued behind it: the threaded op is the most urgent, picked while
	// the other op is still queued.
	gate := make(chan struct{})
	queued := &threadedOp{testOp: testOp{name: "queued", n: elems, gate: gate}, max: 8}
	w.Submit([]protocol.Task{
		task(1, queued, elems, depth(5)),
		task(2, &testOp{name: "other", n: elems, gate: gate}, elems, depth(0)),
	})
	close(gate)
	for _, k := range []protocol.ChunkKey{key(1), key(2)} {
		if res := rec.wait(t, k); res.Outcome != protocol.Succeeded {
			t.Fatalf("%v: %v %v", k, res.Outcome, res.Err)
		}
	}
	if got := queued.got.Load(); got != 1 {
		t.Errorf("threaded op picked with another queued ran on %d threads, want 1", got)
	}
	// The other slot busy.
	gate2 := make(chan struct{})
	w.Submit([]protocol.Task{task(3, &testOp{name: "busy", n: elems, gate: gate2}, elems, depth(0))})
	rec.started(t, key(3))
	busy := &threadedOp{testOp: testOp{name: "beside", n: elems}, max: 8}
	w.Submit([]protocol.Task{task(4, busy, elems, depth(0))})
	if res := rec.wait(t, key(4)); res.Outcome != protocol.Succeeded {
		t.Fatalf("beside: %v %v", res.Outcome, res.Err)
	}
	close(gate2)
	if res := rec.wait(t, key(3)); res.Outcome != protocol.Succeeded {
		t.Fatalf("busy: %v %v", res.Outcome, res.Err)
	}
	if got := busy.got.Load(); got != 1 {
		t.Errorf("threaded op beside a running one ran on %d threads, want 1", got)
	}
}
