package worker_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// newLaneWorker is a worker of two slots whose tiny quiet tasks run on
// lanes (Config.Lanes), as the clusters configure it.
func newLaneWorker(t *testing.T, cfg storage.Config) (*worker.Worker, *storage.Store, *recorder) {
	t.Helper()
	st := storage.Open(cfg)
	rec := newRecorder()
	w := worker.New(worker.Config{Slots: 2, QuietStartBytes: worker.DefaultQuietStartBytes, Lanes: true}, st, rec, nil)
	t.Cleanup(func() { w.Close(); st.Close() })
	return w, st, rec
}

// intoOp is testOp writing its output into the array it is given
// (ops.OutputInto), as a partial sum or a combine does: such tiny tasks
// run on a worker's lanes.
type intoOp struct{ testOp }

func (o *intoOp) ExecInto(ctx context.Context, in []*ndarray.Array, out *ndarray.Array) (*ndarray.Array, error) {
	a, err := o.Exec(ctx, in)
	if err != nil {
		return nil, err
	}
	for i := range out.Size() {
		out.SetFlat(i, a.AtFlat(i))
	}
	return out, nil
}

// ordered is task with the priority order of the i-th lane block.
func ordered(node int32, op ops.ChunkOp, n int, block int, inputs ...protocol.ChunkKey) protocol.Task {
	return task(node, op, n, protocol.Priority{Order: worker.LaneOrder(block)}, inputs...)
}

// Tiny quiet tasks run on the lanes and store their chunks there, not in
// the worker's store; everything else runs on the worker's own slots.
// Inputs are read wherever in the worker they are: a lane's chunk by
// another lane and by the worker's slots, the worker's chunk by a lane. A
// repeated dispatch runs once; the worker serves, lists and releases the
// lanes' chunks as its own.
func TestLanes(t *testing.T) {
	w, st, rec := newLaneWorker(t, storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	var runs atomic.Int32
	op := func(name string) *intoOp { return &intoOp{testOp{name: name, n: 1, onRun: func() { runs.Add(1) }}} }
	big := 64 * elems // 512 KiB: loud, on the worker's slots
	tasks := []protocol.Task{
		// Partials in block 0 (lane 0) and 1 (lane 1), each 1.
		ordered(0, op("part"), 1, 0),
		ordered(1, op("part"), 1, 0),
		ordered(2, op("part"), 1, 1),
		ordered(3, op("part"), 1, 1),
	}
	// The same dispatch twice: it runs once.
	tasks = append(tasks, tasks[0])
	w.Submit(tasks)
	wait := func(nodes ...int32) {
		t.Helper()
		for _, k := range nodes {
			if res := rec.wait(t, key(k)); res.Outcome != protocol.Succeeded {
				t.Fatalf("op %d: %v %v", k, res.Outcome, res.Err)
			}
		}
	}
	wait(0, 1, 2, 3)
	// A combine on lane 1 reading two chunks of lane 0's and two of its
	// own: 5; then a big op reading it: 6, in the worker's store.
	combine := ordered(4, op("combine"), 1, 1, key(0), key(1), key(2), key(3))
	combine.Inputs = tinyInputs(combine.Inputs)
	w.Submit([]protocol.Task{combine})
	wait(4)
	bigOp := ordered(5, &testOp{name: "big", n: big, onRun: func() { runs.Add(1) }}, big, 2, key(4))
	bigOp.Inputs = tinyInputs(bigOp.Inputs)
	w.Submit([]protocol.Task{bigOp})
	wait(5)
	// A tiny op on lane 3 reading the big op's chunk from the worker's
	// store: 7. Its input is listed at the size of a tiny one, as a
	// scheduler that knew the big op's output small would list it.
	last := ordered(6, op("after"), 1, 3, key(5))
	last.Inputs = tinyInputs(last.Inputs)
	w.Submit([]protocol.Task{last})
	wait(6)
	if n := runs.Load(); n != 7 {
		t.Errorf("%d kernels ran, want 7 (the repeated dispatch once)", n)
	}
	for k, want := range map[int32]float64{0: 1, 2: 1, 4: 5, 5: 6, 6: 7} {
		a, err := w.Get(context.Background(), key(k))
		if err != nil {
			t.Fatalf("Get op %d: %v", k, err)
		}
		if v := a.AtFlat(0); v != want {
			t.Errorf("op %d = %v, want %v", k, v, want)
		}
	}
	for _, k := range []int32{0, 1, 2, 3, 4, 6} {
		if tier := st.Tier(key(k)); tier != storage.TierNone {
			t.Errorf("tiny op %d's chunk is in the worker's store (%v), not a lane's", k, tier)
		}
	}
	if tier := st.Tier(key(5)); tier != storage.TierMemory {
		t.Errorf("the big op's chunk: %v in the worker's store, want memory", tier)
	}
	if held := w.Chunks([]protocol.GraphID{1}); len(held) != 7 || held[0].Key != key(0) || held[6].Key != key(6) {
		t.Errorf("Chunks lists %+v, want ops 0 to 6 in order", held)
	}
	if got := w.StoreStats().Chunks; got != 7 {
		t.Errorf("StoreStats counts %d chunks, want 7 (the lanes' too)", got)
	}
	if running, queued := w.Busy(); running != 0 || queued != 0 {
		t.Errorf("Busy() = %d, %d after every task ended", running, queued)
	}
	w.Release([]protocol.ChunkKey{key(0), key(1), key(2), key(3), key(4), key(5), key(6)})
	if held := w.Chunks([]protocol.GraphID{1}); len(held) != 0 {
		t.Errorf("after releasing all, Chunks lists %+v", held)
	}
	var missing *storage.ErrNotFound
	if _, err := w.Get(context.Background(), key(4)); !errors.As(err, &missing) {
		t.Errorf("Get of a released lane chunk: %v, want not found", err)
	}
}

// tinyInputs lists inputs at a float64's size, as a scheduler lists a
// partial's.
func tinyInputs(ins []protocol.Input) []protocol.Input {
	for i := range ins {
		ins[i].Nbytes = 8
	}
	return ins
}

// A release reaches the lane its key was sent to, and a key released is
// forgotten by the worker's routing as by the lane: after a graph of tiny
// tasks over every lane is released, nothing of it is held or routed.
func TestLaneReleasesForgetRouting(t *testing.T) {
	w, _, rec := newLaneWorker(t, storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	keys := runTinyOverLanes(t, w, rec)
	if got := worker.Routed(w); got != len(keys) {
		t.Fatalf("%d keys routed, want %d", got, len(keys))
	}
	// Released twice, and with a key never sent: the second time each
	// goes to every lane, and finds nothing.
	w.Release(append(keys, key(99)))
	w.Release(keys)
	if held := w.Chunks([]protocol.GraphID{1}); len(held) != 0 {
		t.Errorf("after the release, Chunks lists %+v", held)
	}
	if got := worker.Routed(w); got != 0 {
		t.Errorf("%d keys still routed after their release", got)
	}
}

// The routing table is bounded (keys of tasks that stored nothing are
// never released): past its bound it forgets keys, and a forgotten key's
// release still reaches the lane that holds it.
func TestLaneRoutingBounded(t *testing.T) {
	w, _, rec := newLaneWorker(t, storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	worker.SetRoutedMax(w, 3)
	keys := runTinyOverLanes(t, w, rec)
	if got := worker.Routed(w); got != 3 {
		t.Fatalf("%d keys routed, want the bound, 3", got)
	}
	if held := w.Chunks([]protocol.GraphID{1}); len(held) != len(keys) {
		t.Fatalf("Chunks lists %d chunks, want %d", len(held), len(keys))
	}
	w.Release(keys)
	if held := w.Chunks([]protocol.GraphID{1}); len(held) != 0 {
		t.Errorf("after the release, Chunks lists %+v", held)
	}
	if got := worker.Routed(w); got != 0 {
		t.Errorf("%d keys still routed after their release", got)
	}
}

// runTinyOverLanes runs 8 tiny tasks of graph 1, over every lane, and
// returns their keys once all succeeded.
func runTinyOverLanes(t *testing.T, w *worker.Worker, rec *recorder) []protocol.ChunkKey {
	t.Helper()
	var tasks []protocol.Task
	var keys []protocol.ChunkKey
	for i := range int32(8) {
		tasks = append(tasks, ordered(i, &intoOp{testOp{name: "part", n: 1}}, 1, int(i)))
		keys = append(keys, key(i))
	}
	w.Submit(tasks)
	for _, k := range keys {
		if res := rec.wait(t, k); res.Outcome != protocol.Succeeded {
			t.Fatalf("%v: %v %v", k, res.Outcome, res.Err)
		}
	}
	return keys
}
