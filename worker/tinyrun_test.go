package worker_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/worker"
)

// failOp is a tiny op whose kernel fails.
type failOp struct{ onRun func() }

func (o *failOp) Type() string { return "fail" }

func (o *failOp) Exec(context.Context, []*ndarray.Array) (*ndarray.Array, error) {
	o.onRun()
	return nil, errors.New("kernel failed")
}

// A slot takes quiet tiny tasks in runs (several admitted at once) and
// runs them in priority order: a tree of partials and fan-in-4 combines,
// in depth-first order, on one slot, runs in exactly that order, each
// task once, a combine reading the partials stored by the same run, one
// failing kernel failing only its task, and every reservation closed.
func TestTinyRuns(t *testing.T) {
	const parts, fail = 400, 57
	st := storage.Open(storage.Config{Limit: 1 << 30, SpillDir: t.TempDir()})
	rec := newRecorder()
	w := worker.New(worker.Config{Slots: 1, QuietStartBytes: worker.DefaultQuietStartBytes}, st, rec, nil)
	t.Cleanup(func() { w.Close(); st.Close() })

	var mu sync.Mutex
	var order []int32
	took := false // a task ran while the queue lacked more than the tasks ran before it
	n := 0
	noteRun := func(node int32) func() {
		return func() {
			_, queued := w.Busy()
			mu.Lock()
			defer mu.Unlock()
			order = append(order, node)
			if queued < n-len(order) {
				took = true
			}
		}
	}
	var tasks []protocol.Task
	var want []int32
	add := func(tk protocol.Task) {
		tk.Priority = protocol.Priority{Order: int32(len(tasks))}
		tasks = append(tasks, tk)
		want = append(want, tk.Key.Node)
	}
	for i := int32(0); i < parts; i++ {
		if i == fail {
			add(task(i, &failOp{onRun: noteRun(i)}, 1, depth(0)))
		} else {
			add(task(i, &testOp{name: "part", n: 1, onRun: noteRun(i)}, 1, depth(0)))
		}
		if i%4 == 3 && i/4 != fail/4 {
			c := parts + i/4
			add(task(c, &testOp{name: "combine", n: 1, onRun: noteRun(c)}, 1, depth(0), key(i-3), key(i-2), key(i-1), key(i)))
		}
	}
	n = len(tasks)
	w.Submit(tasks)

	got := map[protocol.ChunkKey]protocol.Result{}
	timeout := time.After(time.Minute) // turns a hang into a failure
	for len(got) < n {
		select {
		case r := <-rec.ch:
			if r.Outcome == protocol.Started {
				continue
			}
			if _, dup := got[r.Key]; dup {
				t.Fatalf("%v reported twice", r.Key)
			}
			got[r.Key] = r
		case <-timeout:
			t.Fatalf("%d of %d results after a minute", len(got), n)
		}
	}
	for k, r := range got {
		if wantFail := k.Node == fail; wantFail != (r.Outcome == protocol.Failed) || (!wantFail && r.Outcome != protocol.Succeeded) {
			t.Errorf("%v: %v %v", k, r.Outcome, r.Err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != len(want) {
		t.Fatalf("%d kernels ran, want %d", len(order), len(want))
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("kernel %d was op %d, want op %d (priority order)", i, order[i], want[i])
		}
	}
	if !took {
		t.Error("no task was admitted in a run with the ones before it")
	}
	for i := int32(3); i < parts; i += 4 {
		if i/4 == fail/4 {
			continue
		}
		a, err := st.Read(context.Background(), key(parts+i/4))
		if err != nil {
			t.Fatalf("combine %d: %v", parts+i/4, err)
		}
		if v := a.AtFlat(0); v != 5 {
			t.Errorf("combine %d = %v, want 5 (1 + four partials of 1)", parts+i/4, v)
		}
	}
	if s := st.Stats(); s.Reserved != 0 {
		t.Errorf("%d bytes still reserved after every task ended", s.Reserved)
	}
}
