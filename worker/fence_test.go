package worker_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// TestFencing sends a worker a sequence of tasks, each under a fencing
// scope and token, one at a time, and checks which run and which are
// refused: a token below the highest seen for its scope is refused with a
// *protocol.FencedError naming both; scopes are independent; the zero
// fence of a lone scheduler runs. The same holds for a worker with lanes
// whose sends alternate between its lanes: a lane refuses a token only
// another lane has seen raised.
func TestFencing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sends []send
	}{
		{"a lone scheduler's zero fence", []send{{"", 0, true, 0}, {"", 0, true, 0}}},
		{"equal tokens run", []send{{"s1", 3, true, 0}, {"s1", 3, true, 0}}},
		{"a rising token runs", []send{{"s1", 1, true, 0}, {"s1", 2, true, 0}, {"s1", 9, true, 0}}},
		{"a lower token is refused after a higher one", []send{{"s1", 5, true, 0}, {"s1", 4, false, 5}, {"s1", 0, false, 5}, {"s1", 5, true, 0}}},
		{"scopes are independent", []send{{"s1", 5, true, 0}, {"s2", 1, true, 0}, {"s2", 0, false, 1}, {"s1", 4, false, 5}}},
		{"the empty scope is fenced too once it has a token", []send{{"", 2, true, 0}, {"", 1, false, 2}}},
	} {
		for _, lanes := range []bool{false, true} {
			name := tc.name
			if lanes {
				name += ", lanes"
			}
			t.Run(name, func(t *testing.T) { fencing(t, lanes, tc.sends) })
		}
	}
}

// fencing is one case of TestFencing.
func fencing(t *testing.T, lanes bool, sends []send) {
	w, _, rec := newWorker(t, 1, storage.Config{Limit: 1 << 20})
	if lanes {
		w, _, rec = newLaneWorker(t, storage.Config{Limit: 1 << 20})
	}
	var runs atomic.Int32
	var op ops.ChunkOp = &testOp{name: "fenced", n: 1, onRun: func() { runs.Add(1) }}
	if lanes {
		op = &intoOp{testOp{name: "fenced", n: 1, onRun: func() { runs.Add(1) }}}
	}
	wantRuns := int32(0)
	for i, s := range sends {
		tk := task(int32(i), op, 1, protocol.Priority{Order: worker.LaneOrder(i)})
		tk.Attempt = 1
		tk.Fence = protocol.Fence{Scope: s.scope, Token: s.token}
		w.Submit([]protocol.Task{tk})
		res := rec.wait(t, tk.Key)
		if res.Fence != s.token {
			t.Errorf("send %d: result echoes token %d, want %d", i, res.Fence, s.token)
		}
		if s.run {
			wantRuns++
			if res.Outcome != protocol.Succeeded {
				t.Fatalf("send %d (%q, %d): %v %v, want it run", i, s.scope, s.token, res.Outcome, res.Err)
			}
			continue
		}
		var fe *protocol.FencedError
		if res.Outcome != protocol.Failed || res.Retryable || !errors.As(res.Err, &fe) {
			t.Fatalf("send %d (%q, %d): %v retryable=%v %v, want a refusal", i, s.scope, s.token, res.Outcome, res.Retryable, res.Err)
		}
		if fe.Scope != s.scope || fe.Token != s.token || fe.Current != s.cur || fe.Key != tk.Key {
			t.Errorf("send %d: refusal %+v, want scope %q token %d current %d", i, *fe, s.scope, s.token, s.cur)
		}
	}
	if n := runs.Load(); n != wantRuns {
		t.Errorf("kernel ran %d times, want %d", n, wantRuns)
	}
	if got, want := w.Fenced(), int64(len(sends))-int64(wantRuns); got != want {
		t.Errorf("Fenced() = %d, want %d", got, want)
	}
}

// send is one task of TestFencing: its fence, and whether it runs or is
// refused (with the current token).
type send struct {
	scope string
	token uint64
	run   bool
	cur   uint64
}

// Tasks queued under an old owner's token never run once the new owner's
// first task reaches the worker: the slot refuses them as it reaches them,
// and the new owner's dispatch of the same op (attempt 1 again, under its
// higher token) runs even though the old attempt 1 was queued.
func TestStaleTokenTasksNeverRun(t *testing.T) {
	w, _, rec := newWorker(t, 1, storage.Config{Limit: 1 << 20})
	gate := make(chan struct{})
	blocker := task(100, &testOp{name: "blocker", n: 1, gate: gate}, 1, depth(9))
	w.Submit([]protocol.Task{blocker})
	rec.started(t, blocker.Key)

	var mu sync.Mutex
	ran := map[string]int{}
	counted := func(name string) *testOp {
		return &testOp{name: name, n: 1, onRun: func() { mu.Lock(); ran[name]++; mu.Unlock() }}
	}
	old := protocol.Fence{Scope: "session-a", Token: 1}
	var stale []protocol.Task
	for i := range 5 {
		tk := task(int32(i), counted(fmt.Sprintf("old%d", i)), 1, depth(0))
		tk.Attempt, tk.Fence = 1, old
		stale = append(stale, tk)
	}
	// Another session's task under its own low token is not affected.
	other := task(50, counted("other"), 1, depth(0))
	other.Key.Graph, other.Attempt, other.Fence = 2, 1, protocol.Fence{Scope: "session-b", Token: 1}
	w.Submit(append(stale, other))

	// The new owner re-dispatches op 0, attempt 1, under token 2.
	renewed := task(0, counted("new0"), 1, depth(0))
	renewed.Attempt, renewed.Fence = 1, protocol.Fence{Scope: "session-a", Token: 2}
	w.Submit([]protocol.Task{renewed})
	close(gate)
	if res := rec.wait(t, blocker.Key); res.Outcome != protocol.Succeeded {
		t.Fatalf("blocker: %v %v", res.Outcome, res.Err)
	}

	var renewedOK bool
	for i := range 5 {
		k := stale[i].Key
		// Op 0 reports twice: the old dispatch refused, the new one run.
		for range 1 + min(1, 1-i) {
			res := rec.wait(t, k)
			switch {
			case res.Fence == 2 && res.Outcome == protocol.Succeeded && i == 0:
				renewedOK = true
			case res.Fence == 1 && res.Outcome == protocol.Failed:
				var fe *protocol.FencedError
				if !errors.As(res.Err, &fe) || fe.Current != 2 {
					t.Errorf("%v: refusal %v, want a FencedError at token 2", k, res.Err)
				}
			default:
				t.Errorf("%v: %v (token %d) %v", k, res.Outcome, res.Fence, res.Err)
			}
		}
	}
	if res := rec.wait(t, other.Key); res.Outcome != protocol.Succeeded {
		t.Errorf("the other session's task: %v %v", res.Outcome, res.Err)
	}
	if !renewedOK {
		t.Error("the new owner's dispatch of op 0 did not run")
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range 5 {
		if n := ran[fmt.Sprintf("old%d", i)]; n != 0 {
			t.Errorf("stale task %d ran %d times", i, n)
		}
	}
	if ran["new0"] != 1 || ran["other"] != 1 {
		t.Errorf("runs %v, want new0 and other once each", ran)
	}
	if n := w.Fenced(); n != 5 {
		t.Errorf("Fenced() = %d, want 5", n)
	}
}

// Four owners of one scope submit at once from their goroutines. Whatever
// the interleaving, each task is reported once, every refusal names a
// current token above the task's, the highest owner's tasks all run, and
// afterwards the scope is at the highest token.
func TestFencingUnderConcurrentOwners(t *testing.T) {
	w, _, rec := newWorker(t, 2, storage.Config{Limit: 1 << 20})
	var bad atomic.Int32
	const per = 50
	var wg sync.WaitGroup
	for owner := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				tk := task(int32(owner*per+i), &testOp{name: "race", n: 1}, 1, depth(0))
				tk.Attempt, tk.Fence = 1, protocol.Fence{Scope: "s", Token: uint64(owner + 1)}
				w.Submit([]protocol.Task{tk})
			}
		}()
	}
	wg.Wait()
	seen := map[protocol.ChunkKey]bool{}
	top := 0
	for range 4 * per {
		res := <-rec.ch
		for res.Outcome == protocol.Started {
			res = <-rec.ch
		}
		if seen[res.Key] {
			t.Fatalf("%v reported twice", res.Key)
		}
		seen[res.Key] = true
		var fe *protocol.FencedError
		switch {
		case res.Outcome == protocol.Succeeded:
			if res.Fence == 4 {
				top++
			}
		case errors.As(res.Err, &fe):
			if fe.Current <= fe.Token {
				bad.Add(1)
			}
		default:
			t.Errorf("%v: %v %v", res.Key, res.Outcome, res.Err)
		}
	}
	if bad.Load() > 0 {
		t.Errorf("%d refusals named a current token not above the task's", bad.Load())
	}
	// After everything, the highest owner's token is the scope's: a task
	// of any lower one is refused.
	late := task(9999, &testOp{name: "late", n: 1}, 1, depth(0))
	late.Attempt, late.Fence = 1, protocol.Fence{Scope: "s", Token: 3}
	w.Submit([]protocol.Task{late})
	var fe *protocol.FencedError
	if res := rec.wait(t, late.Key); !errors.As(res.Err, &fe) || fe.Current != 4 {
		t.Errorf("a token-3 task after token 4 was seen: %v %v", res.Outcome, res.Err)
	}
	if top != per {
		t.Errorf("%d of the highest owner's %d tasks ran", top, per)
	}
}

// Chunks lists what the worker holds of the graphs asked for, from memory
// and from spill files, with their sizes, and nothing released or of
// other graphs.
func TestChunksInventory(t *testing.T) {
	w, st, rec := newWorker(t, 1, storage.Config{Limit: 4 * unit, SpillDir: t.TempDir()})
	op := &testOp{name: "make", n: int(unit / 8)}
	var tasks []protocol.Task
	for i := range 3 {
		tk := task(int32(i), op, int(unit/8), depth(0))
		tk.Priority.Succ = 1
		tasks = append(tasks, tk)
	}
	other := task(7, &testOp{name: "small", n: 2}, 2, depth(0))
	other.Key.Graph = 2
	other.Priority.Succ = 1
	all := append(tasks, other)
	keys := make([]protocol.ChunkKey, len(all))
	for i, tk := range all {
		keys[i] = tk.Key
	}
	w.Submit(all) // the worker keeps the tasks: not read here again
	for _, k := range keys {
		if res := rec.wait(t, k); res.Outcome != protocol.Succeeded {
			t.Fatalf("%v: %v %v", k, res.Outcome, res.Err)
		}
	}
	spillNow(t, st)
	w.Release([]protocol.ChunkKey{key(1)})
	got := w.Chunks([]protocol.GraphID{1})
	want := []protocol.ChunkKey{key(0), key(2)}
	if len(got) != len(want) {
		t.Fatalf("Chunks = %+v, want keys %v", got, want)
	}
	for i, h := range got {
		if h.Key != want[i] || h.Nbytes != unit || h.Tier == storage.TierNone {
			t.Errorf("chunk %d: %+v, want %v of %d bytes", i, h, want[i], unit)
		}
	}
	if got[0].Tier != storage.TierDisk && got[1].Tier != storage.TierDisk {
		t.Errorf("tiers %v and %v: the spilled chunks should be listed from disk", got[0].Tier, got[1].Tier)
	}
	if g2 := w.Chunks([]protocol.GraphID{2}); len(g2) != 1 || g2[0].Nbytes != 16 {
		t.Errorf("graph 2: %+v", g2)
	}
	if none := w.Chunks(nil); len(none) != 0 {
		t.Errorf("no graphs asked: %+v", none)
	}
}

// Fence raises a scope without a task, as an adopting scheduler does
// before it takes the inventory: the old owner's tasks are refused even if
// the adopter never dispatches one. A lower token is refused.
func TestFenceWithoutTask(t *testing.T) {
	w, _, rec := newWorker(t, 1, storage.Config{Limit: 1 << 20})
	if err := w.Fence(protocol.Fence{Scope: "s", Token: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Fence(protocol.Fence{Scope: "s", Token: 2}); err != nil {
		t.Fatalf("the same token again: %v", err)
	}
	var fe *protocol.FencedError
	if err := w.Fence(protocol.Fence{Scope: "s", Token: 1}); !errors.As(err, &fe) || fe.Current != 2 || fe.Token != 1 {
		t.Fatalf("a lower token: %v", err)
	}
	var runs atomic.Int32
	tk := task(0, &testOp{name: "old", n: 1, onRun: func() { runs.Add(1) }}, 1, depth(0))
	tk.Attempt, tk.Fence = 1, protocol.Fence{Scope: "s", Token: 1}
	w.Submit([]protocol.Task{tk})
	if res := rec.wait(t, tk.Key); !errors.As(res.Err, &fe) {
		t.Fatalf("the old owner's task: %v %v", res.Outcome, res.Err)
	}
	if runs.Load() != 0 {
		t.Fatal("the old owner's task ran")
	}
}

// Releases and cancels carry the sender's token for their graph: those
// below the highest token the graph was sent or fenced under here are
// ignored (the sender lost the session), the others applied. A cancel
// from the old owner that arrived before the new owner fenced the worker
// stops only the old owner's tasks: the new owner's tasks of the same
// graph run. So on a worker's own slots, and on its lanes, which each see
// only some of the tasks.
func TestFencedReleasesAndCancels(t *testing.T) {
	t.Run("slots", func(t *testing.T) { fencedReleasesAndCancels(t, false) })
	t.Run("lanes", func(t *testing.T) { fencedReleasesAndCancels(t, true) })
}

func fencedReleasesAndCancels(t *testing.T, lanes bool) {
	w, _, rec := newWorker(t, 1, storage.Config{Limit: 1 << 20})
	if lanes {
		w, _, rec = newLaneWorker(t, storage.Config{Limit: 1 << 20})
	}
	run := func(node int32, token uint64) protocol.Result {
		t.Helper()
		var op ops.ChunkOp = &testOp{name: "x", n: 1}
		if lanes {
			op = &intoOp{testOp{name: "x", n: 1}}
		}
		tk := task(node, op, 1, protocol.Priority{Order: worker.LaneOrder(int(node))})
		tk.Attempt, tk.Fence = 1, protocol.Fence{Scope: "s", Token: token}
		w.Submit([]protocol.Task{tk})
		return rec.wait(t, tk.Key)
	}
	// The old owner (token 1) cancels graph 1 before the new owner shows
	// up: its own later tasks are cancelled...
	w.CancelGraphFenced(1, 1)
	if res := run(0, 1); res.Outcome != protocol.Cancelled {
		t.Fatalf("the old owner's task after its cancel: %v %v", res.Outcome, res.Err)
	}
	// ...the new owner's (token 2) run.
	if err := w.Fence(protocol.Fence{Scope: "s", Token: 2}, 1); err != nil {
		t.Fatal(err)
	}
	for node := int32(1); node <= 3; node++ {
		if res := run(node, 2); res.Outcome != protocol.Succeeded {
			t.Fatalf("the new owner's task %d: %v %v", node, res.Outcome, res.Err)
		}
	}
	// The old owner's releases and cancel are ignored now.
	w.ReleaseFenced([]protocol.ChunkKey{key(1), key(2)}, []uint64{1, 1})
	w.Release([]protocol.ChunkKey{key(3)}) // no token at all
	w.CancelGraphFenced(1, 1)
	if got := len(w.Chunks([]protocol.GraphID{1})); got != 3 {
		t.Fatalf("%d chunks left after the old owner's releases, want 3", got)
	}
	if res := run(4, 2); res.Outcome != protocol.Succeeded {
		t.Fatalf("the new owner's task after the old owner's cancel: %v %v", res.Outcome, res.Err)
	}
	if n := w.FencedDrops(); n != 4 {
		t.Errorf("FencedDrops() = %d, want 4 (3 releases, 1 cancel)", n)
	}
	// The new owner's own releases and cancel apply.
	w.ReleaseFenced([]protocol.ChunkKey{key(1), key(2)}, []uint64{2, 2})
	if got := w.Chunks([]protocol.GraphID{1}); len(got) != 2 || got[0].Key != key(3) {
		t.Fatalf("after the new owner's releases: %+v", got)
	}
	w.CancelGraphFenced(1, 2)
	if res := run(5, 2); res.Outcome != protocol.Cancelled {
		t.Fatalf("the new owner's task after its own cancel: %v %v", res.Outcome, res.Err)
	}
	// A graph never fenced takes releases without tokens, as in a cluster
	// of one scheduler.
	other := task(9, &testOp{name: "y", n: 1}, 1, depth(0))
	other.Key.Graph = 2
	w.Submit([]protocol.Task{other})
	rec.wait(t, other.Key)
	w.Release([]protocol.ChunkKey{other.Key})
	if len(w.Chunks([]protocol.GraphID{2})) != 0 {
		t.Error("a release without tokens of an unfenced graph was ignored")
	}
}
