package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ndarray"
	"github.com/phobos-tensor/phobos/optimize"
	"github.com/phobos-tensor/phobos/protocol"
	"github.com/phobos-tensor/phobos/scheduler"
	"github.com/phobos-tensor/phobos/storage"
	"github.com/phobos-tensor/phobos/tensor"
	"github.com/phobos-tensor/phobos/worker"
	"github.com/phobos-tensor/phobos/workloads"
)

// workerSet is in-process workers that outlive the schedulers driving
// them, as a cluster's worker processes outlive a scheduler that dies.
type workerSet struct {
	workers []*worker.Worker
	to      atomic.Pointer[scheduler.Scheduler] // where reports go
}

func (ws *workerSet) Report(r protocol.Result) {
	if s := ws.to.Load(); s != nil {
		s.Report(r)
	}
}

func (ws *workerSet) ReadChunk(ctx context.Context, w int, key protocol.ChunkKey) (*ndarray.Array, error) {
	if w < 0 || w >= len(ws.workers) {
		return nil, fmt.Errorf("no worker %d", w)
	}
	return ws.workers[w].Get(ctx, key)
}

func newWorkerSet(t testing.TB, n int) *workerSet {
	ws := &workerSet{}
	for i := range n {
		st := storage.Open(storage.Config{Limit: 1 << 30})
		ws.workers = append(ws.workers, worker.New(worker.Config{ID: i, Slots: 2}, st, ws, ws))
	}
	t.Cleanup(func() {
		for _, w := range ws.workers {
			w.Close()
			w.Store().Close()
		}
	})
	return ws
}

// scheduler starts a scheduler over the set's workers (reports go to it
// once the test says so) with the given fence and knobs.
func (ws *workerSet) scheduler(t testing.TB, fence protocol.Fence, knobs scheduler.TestingKnobs) *scheduler.Scheduler {
	execs := make([]protocol.Executor, len(ws.workers))
	for i, w := range ws.workers {
		execs[i] = w
	}
	s := scheduler.New(execs, scheduler.Config{Fence: fence, Knobs: knobs})
	t.Cleanup(s.Close)
	return s
}

// inventory fences every worker with the adopter's token, then asks it
// what it holds of graph id (as ListChunks does on a worker process).
func (ws *workerSet) inventory(t testing.TB, f protocol.Fence, id protocol.GraphID) scheduler.Inventory {
	inv := scheduler.Inventory{}
	for i, w := range ws.workers {
		if err := w.Fence(f, id); err != nil {
			t.Fatal(err)
		}
		for _, h := range w.Chunks([]protocol.GraphID{id}) {
			inv[i] = append(inv[i], scheduler.HeldChunk{Node: h.Key.Node, Nbytes: h.Nbytes})
		}
	}
	return inv
}

// results reads a finished run's result chunks from the workers.
func (ws *workerSet) results(t *testing.T, run *scheduler.Run, nodes []int32) []*ndarray.Array {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	locs, err := run.ResultLocations(ctx, nodes)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*ndarray.Array, len(nodes))
	for i, v := range nodes {
		if out[i], err = ws.workers[locs[i]].Get(ctx, protocol.ChunkKey{Graph: run.ID(), Node: v}); err != nil {
			t.Fatalf("result chunk %d on worker %d: %v", v, locs[i], err)
		}
	}
	return out
}

// compileJSON compiles a tileable JSON as the scheduler process does,
// results as the distinct chunk ops of the result tensors.
func compileJSON(t testing.TB, js []byte, results []int, fuse bool) (*graph.ChunkGraph, []int32) {
	t.Helper()
	tg, err := graph.DecodeTileable(js)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := optimize.Compile(tg, results, fuse)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []int32
	for _, r := range plan.Results {
		for _, c := range r.Chunks {
			if !slices.Contains(nodes, int32(c)) {
				nodes = append(nodes, int32(c))
			}
		}
	}
	return plan.Graph, nodes
}

type adoptCase struct {
	name   string
	js     []byte
	result []int
	fuse   bool
}

func adoptCases(t *testing.T) []adoptCase {
	var cases []adoptCase
	for _, wc := range []struct {
		name string
		p    workloads.Params
	}{
		{"W1", workloads.Params{"n": 61, "chunk": 13}},
		{"W4", workloads.Params{"n": 90, "chunk": 13}},
		{"W8", workloads.Params{"n": 77, "chunk": 11}},
	} {
		w, _ := workloads.Get(wc.name)
		tg, results, err := tensor.Build(w.Build(wc.p, 7))
		if err != nil {
			t.Fatal(err)
		}
		js, err := graph.EncodeTileable(tg)
		if err != nil {
			t.Fatal(err)
		}
		for _, fuse := range []bool{true, false} {
			cases = append(cases, adoptCase{fmt.Sprintf("%s/fuse=%v", wc.name, fuse), js, results, fuse})
		}
	}
	return cases
}

// clean runs a graph start to end on fresh workers: the reference.
func clean(t *testing.T, c adoptCase) []*ndarray.Array {
	ws := newWorkerSet(t, 3)
	s := ws.scheduler(t, protocol.Fence{}, scheduler.TestingKnobs{})
	ws.to.Store(s)
	g, nodes := compileJSON(t, c.js, c.result, c.fuse)
	run, err := s.Submit(context.Background(), g, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ws.results(t, run, nodes)
}

func sameArrays(t *testing.T, got, want []*ndarray.Array) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d result chunks, want %d", len(got), len(want))
	}
	for i := range got {
		if !slices.Equal(got[i].Shape(), want[i].Shape()) {
			t.Fatalf("result chunk %d: shape %v, want %v", i, got[i].Shape(), want[i].Shape())
		}
		for j := range got[i].Size() {
			if g, w := got[i].AtFlat(j), want[i].AtFlat(j); g != w {
				t.Fatalf("result chunk %d, element %d: %v, want %v (the clean run's)", i, j, g, w)
			}
		}
	}
}

// A scheduler dies in the middle of a graph (it stops sending and hearing
// after half the ops succeeded; the workers carry on and keep what they
// stored); another adopts the graph from the workers' inventory under a
// higher token, runs what is missing, reuses what survived, and gets
// exactly the clean run's result.
func TestAdoptMidway(t *testing.T) {
	for _, c := range adoptCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want := clean(t, c)
			ws := newWorkerSet(t, 3)
			g, nodes := compileJSON(t, c.js, c.result, c.fuse)
			killAt := int64(len(g.Nodes) / 2)
			var succeeded atomic.Int64
			var dead atomic.Bool
			killed := make(chan struct{})
			old := ws.scheduler(t, protocol.Fence{Scope: "s", Token: 1}, scheduler.TestingKnobs{
				OnResult: func(r protocol.Result) []protocol.Result {
					if dead.Load() {
						return nil
					}
					if r.Outcome == protocol.Succeeded && succeeded.Add(1) == killAt {
						dead.Store(true)
						close(killed)
					}
					return []protocol.Result{r}
				},
				OnSend: func(s scheduler.Send) []scheduler.Send {
					if dead.Load() {
						return nil
					}
					return []scheduler.Send{s}
				},
			})
			ws.to.Store(old)
			run, err := old.Submit(context.Background(), g, nodes)
			if err != nil {
				t.Fatal(err)
			}
			<-killed
			id := run.ID()
			old.Close()

			var sent atomic.Int64
			adopter := ws.scheduler(t, protocol.Fence{Scope: "s", Token: 2}, scheduler.TestingKnobs{
				OnSend: func(s scheduler.Send) []scheduler.Send {
					for _, tk := range s.Tasks {
						if tk.Fence.Token != 2 || tk.Fence.Scope != "s" {
							t.Errorf("adopter sent %v under %+v", tk.Key, tk.Fence)
						}
					}
					sent.Add(int64(len(s.Tasks)))
					return []scheduler.Send{s}
				},
			})
			ws.to.Store(adopter)
			g2, nodes2 := compileJSON(t, c.js, c.result, c.fuse)
			inv := ws.inventory(t, protocol.Fence{Scope: "s", Token: 2}, id)
			adopted, err := adopter.Adopt(context.Background(), scheduler.AdoptRequest{ID: id, Graph: g2, Results: nodes2, Inventory: inv, Fence: protocol.Fence{Scope: "s", Token: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if err := adopted.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			sameArrays(t, ws.results(t, adopted, nodes2), want)
			if adopted.ID() != id || adopted.Reused() == 0 {
				t.Errorf("adopted run %d (graph was %d) reused %d ops", adopted.ID(), id, adopted.Reused())
			}
			if n := sent.Load(); n >= int64(len(g2.Nodes)) {
				t.Errorf("the adopter dispatched %d tasks for %d ops: nothing of the first run was reused", n, len(g2.Nodes))
			}
			if st := adopter.Stats(); st.Adopted != 1 {
				t.Errorf("stats: %+v", st)
			}
			t.Logf("%d ops, %d succeeded before the kill, %d reused, %d dispatched after", len(g2.Nodes), killAt, adopted.Reused(), sent.Load())
		})
	}
}

// A graph that had succeeded is adopted after its scheduler dies: nothing
// runs again, its results are fetched from where they are. A scheduler
// that still believes it owns the session (the old token) has its tasks
// refused by every worker: its graph fails with a FencedError and stores
// nothing, and the adopted results are untouched.
func TestAdoptFinishedAndFenceTheOldOwner(t *testing.T) {
	c := adoptCases(t)[2] // W4, fused
	want := clean(t, c)
	ws := newWorkerSet(t, 3)
	old := ws.scheduler(t, protocol.Fence{Scope: "s", Token: 1}, scheduler.TestingKnobs{})
	ws.to.Store(old)
	g, nodes := compileJSON(t, c.js, c.result, c.fuse)
	run, err := old.Submit(context.Background(), g, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := run.ID()
	old.Close()

	var sent atomic.Int64
	adopter := ws.scheduler(t, protocol.Fence{Scope: "s", Token: 2}, scheduler.TestingKnobs{
		OnSend: func(s scheduler.Send) []scheduler.Send {
			sent.Add(int64(len(s.Tasks)))
			return []scheduler.Send{s}
		},
	})
	ws.to.Store(adopter)
	g2, nodes2 := compileJSON(t, c.js, c.result, c.fuse)
	adopted, err := adopter.Adopt(context.Background(), scheduler.AdoptRequest{ID: id, Graph: g2, Results: nodes2, Inventory: ws.inventory(t, protocol.Fence{Scope: "s", Token: 2}, id), Fence: protocol.Fence{Scope: "s", Token: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := adopted.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := sent.Load(); n != 0 {
		t.Errorf("adopting a finished graph dispatched %d tasks", n)
	}
	if int(adopted.Reused()) != len(nodes2) {
		t.Errorf("reused %d ops, want the %d results", adopted.Reused(), len(nodes2))
	}
	sameArrays(t, ws.results(t, adopted, nodes2), want)

	// The same id again is refused: one scheduler never runs a graph twice.
	if _, err := adopter.Adopt(context.Background(), scheduler.AdoptRequest{ID: id, Graph: g2, Results: nodes2}); err == nil {
		t.Error("adopting a graph the scheduler already runs: no error")
	}
	// An inventory that is not of this graph is the caller's error.
	bad := scheduler.Inventory{0: {{Node: int32(len(g2.Nodes)), Nbytes: 8}}}
	var ie *scheduler.InventoryError
	if _, err := adopter.Adopt(context.Background(), scheduler.AdoptRequest{ID: id + 1, Graph: g2, Results: nodes2, Inventory: bad}); !errors.As(err, &ie) {
		t.Errorf("a foreign inventory: %v", err)
	}

	// The old owner, alive after all (a partition), submits to the same
	// session under its old token: every task is refused.
	zombie := ws.scheduler(t, protocol.Fence{Scope: "s", Token: 1}, scheduler.TestingKnobs{})
	ws.to.Store(zombie)
	g3, nodes3 := compileJSON(t, c.js, c.result, c.fuse)
	zrun, err := zombie.Submit(context.Background(), g3, nodes3)
	if err != nil {
		t.Fatal(err)
	}
	err = zrun.Wait(context.Background())
	var fe *protocol.FencedError
	if !errors.As(err, &fe) || fe.Current != 2 {
		t.Fatalf("the stale owner's run ended with %v, want a FencedError at token 2", err)
	}
	var fenced int64
	for i, w := range ws.workers {
		fenced += w.Fenced()
		if held := w.Chunks([]protocol.GraphID{zrun.ID()}); len(held) != 0 {
			t.Errorf("worker %d stored %d chunks of the stale owner's graph", i, len(held))
		}
	}
	if fenced == 0 {
		t.Error("no worker counted a refusal")
	}
	ws.to.Store(adopter)
	sameArrays(t, ws.results(t, adopted, nodes2), want)
}

// The old owner of an adopted graph wakes up (it was cut off, not dead)
// and, as a scheduler would, releases the graph's results and cancels it
// under its old token: the workers ignore both, so the adopter's results
// stay where it found them and fetchable.
func TestOldOwnerCannotFreeAdoptedResults(t *testing.T) {
	c := adoptCases(t)[4] // W8, fused
	want := clean(t, c)
	ws := newWorkerSet(t, 3)
	old := ws.scheduler(t, protocol.Fence{Scope: "s", Token: 1}, scheduler.TestingKnobs{})
	ws.to.Store(old)
	g, nodes := compileJSON(t, c.js, c.result, c.fuse)
	run, err := old.Submit(context.Background(), g, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	adopter := ws.scheduler(t, protocol.Fence{Scope: "s", Token: 2}, scheduler.TestingKnobs{})
	ws.to.Store(adopter)
	g2, nodes2 := compileJSON(t, c.js, c.result, c.fuse)
	adopted, err := adopter.Adopt(context.Background(), scheduler.AdoptRequest{ID: run.ID(), Graph: g2, Results: nodes2, Inventory: ws.inventory(t, protocol.Fence{Scope: "s", Token: 2}, run.ID()), Fence: protocol.Fence{Scope: "s", Token: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := adopted.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The old owner frees its copy of the graph: releases and a cancel
	// under token 1 reach the workers (Runs waits for them to be sent).
	run.Release()
	if n := old.Runs(); n != 0 {
		t.Fatalf("the old owner still holds %d runs", n)
	}
	for _, w := range ws.workers {
		w.CancelGraphFenced(run.ID(), 1)
	}
	var drops int64
	for _, w := range ws.workers {
		drops += w.FencedDrops()
	}
	if drops < int64(len(nodes2)) {
		t.Errorf("the workers ignored %d releases and cancels of the old owner, want at least the %d results", drops, len(nodes2))
	}
	sameArrays(t, ws.results(t, adopted, nodes2), want)
}
