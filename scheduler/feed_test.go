package scheduler

import (
	"io"
	"log/slog"
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// feedCore is a core over workers of one slot each that holds sources past
// queue tasks in flight per slot and releases them batch at a time.
func feedCore(workers, queue, batch int) *core {
	slots := make([]int, workers)
	for i := range slots {
		slots[i] = 1
	}
	return newCore(Config{MaxAttempts: 3, QueuedSourcesPerSlot: queue, SourceBatch: batch, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, slots)
}

// pump reports every task sent, in order, as succeeded, one step each,
// calling check after every step; it returns the source tasks in the order
// they were sent.
func pump(t *testing.T, c *core, r *Run, first Actions, check func()) []int32 {
	t.Helper()
	var queue []protocol.Task
	var sources []int32
	take := func(a Actions) {
		for _, s := range a.Sends {
			for _, task := range s.Tasks {
				queue = append(queue, task)
				if len(task.Inputs) == 0 {
					sources = append(sources, task.Key.Node)
				}
			}
		}
	}
	take(first)
	check()
	for len(queue) > 0 {
		task := queue[0]
		queue = queue[1:]
		take(c.Step(msgResult{res: protocol.Result{Key: task.Key, Attempt: task.Attempt, Worker: int(r.worker[task.Key.Node]), Outcome: protocol.Succeeded, Nbytes: 8}}))
		check()
	}
	return sources
}

// TestSourcesReleasedInBatches checks that a run of many sources starts
// with one batch of them READY, not all, keeps at most a batch held at the
// scheduler while it releases the rest, sends them most urgent first, and
// runs every op once to the end.
func TestSourcesReleasedInBatches(t *testing.T) {
	const batch = 8
	c := feedCore(1, 2, batch)
	// a + b in 50 chunks each: the graph lists all of a's chunks before
	// b's, urgency pairs them (a0, b0, a1, b1, ...).
	g := &graph.ChunkGraph{}
	for range 100 {
		g.AddChunk(nop{}, nil, scalarMeta)
	}
	var results []int32
	for i := range 50 {
		results = append(results, int32(g.AddChunk(nop{}, []ops.ChunkRef{ops.ChunkRef(i), ops.ChunkRef(50 + i)}, scalarMeta)))
	}
	r := newRun(nil, 1, g, Prepare(g, results, c.slots), results)
	a := c.Step(msgSubmit{run: r})
	// The start releases a batch, of which the queue's room goes out; the
	// rest stay held, and the sources after them in the plan's list until
	// the held ones have gone out and there is room (waits).
	sentAtStart := 0
	for _, s := range a.Sends {
		sentAtStart += len(s.Tasks)
	}
	if sentAtStart != 2 || c.held[0].Len() != batch-2 || r.fed[0] != batch {
		t.Fatalf("after the start: %d sent, %d held, %d released; want 2 (the queue), %d, %d",
			sentAtStart, c.held[0].Len(), r.fed[0], batch-2, batch)
	}
	if n := r.counts[Unscheduled].Load(); n != int64(len(g.Nodes)-r.fed[0]) {
		t.Fatalf("%d ops unscheduled after the start, want %d", n, len(g.Nodes)-r.fed[0])
	}
	drained := false
	sent := pump(t, c, r, a, func() {
		n := c.held[0].Len()
		if n > batch {
			t.Fatalf("%d sources held, more than a batch (%d)", n, batch)
		}
		// Once the first batch is out, the rest go straight from the
		// plan's list: none is held again.
		if drained && n > 0 {
			t.Fatalf("%d sources held again after the first batch went out", n)
		}
		drained = drained || n == 0
	})
	if !r.ended || r.err != nil || r.finished != len(g.Nodes) {
		t.Fatalf("run ended %v, err %v, %d of %d ops finished", r.ended, r.err, r.finished, len(g.Nodes))
	}
	if len(sent) != 100 {
		t.Fatalf("%d source tasks sent, want each of 100 once", len(sent))
	}
	for k := 1; k < len(sent); k++ {
		if r.plan.Priority[sent[k]].Order < r.plan.Priority[sent[k-1]].Order {
			t.Fatalf("source %d (order %d) sent after source %d (order %d): not most urgent first",
				sent[k], r.plan.Priority[sent[k]].Order, sent[k-1], r.plan.Priority[sent[k-1]].Order)
		}
	}
	if len(c.feeding) != 0 {
		t.Fatalf("%d runs still feeding after the end", len(c.feeding))
	}
}

// TestSourcesReleasedPerWorker checks that the release goes by each
// worker's own sources: a worker whose sources come late in the graph's
// order still gets work at the start.
func TestSourcesReleasedPerWorker(t *testing.T) {
	c := feedCore(2, 1, 4)
	g := leavesAndReducers(64, 8)
	var results []int32
	for i := 64; i < 72; i++ {
		results = append(results, int32(i))
	}
	r := newRun(nil, 1, g, Prepare(g, results, c.slots), results)
	a := c.Step(msgSubmit{run: r})
	got := map[int]int{}
	for _, s := range a.Sends {
		got[s.Worker] += len(s.Tasks)
	}
	if got[0] == 0 || got[1] == 0 {
		t.Fatalf("tasks sent at the start per worker %v: want both busy", got)
	}
	pump(t, c, r, a, func() {
		for w, q := range c.held {
			if q.Len() > 4 {
				t.Fatalf("worker %d: %d sources held, more than a batch", w, q.Len())
			}
		}
	})
	if !r.ended || r.err != nil || r.finished != len(g.Nodes) {
		t.Fatalf("run ended %v, err %v, %d of %d ops finished", r.ended, r.err, r.finished, len(g.Nodes))
	}
}

// TestCancelStopsRelease checks that a cancelled run releases no more
// sources and ends once its tasks in flight are back, with no refused
// transition.
func TestCancelStopsRelease(t *testing.T) {
	c := feedCore(1, 1, 4)
	g := leavesAndReducers(40, 4)
	results := []int32{40, 41, 42, 43}
	r := newRun(nil, 1, g, Prepare(g, results, c.slots), results)
	a := c.Step(msgSubmit{run: r})
	fed := r.fed[0]
	c.Step(msgCancel{graph: 1})
	if !r.cancelled || len(c.feeding) != 0 {
		t.Fatalf("cancelled %v, %d runs feeding: want the run out of the list", r.cancelled, len(c.feeding))
	}
	for _, s := range a.Sends {
		for _, task := range s.Tasks {
			b := c.Step(msgResult{res: protocol.Result{Key: task.Key, Attempt: task.Attempt, Worker: 0, Outcome: protocol.Cancelled}})
			for _, s := range b.Sends {
				if len(s.Tasks) > 0 {
					t.Fatalf("tasks sent after the cancel: %v", s.Tasks)
				}
			}
		}
	}
	if r.fed[0] != fed {
		t.Fatalf("released %d sources after the cancel", r.fed[0]-fed)
	}
	if !r.ended || c.stats.Bugs != 0 {
		t.Fatalf("run ended %v, bugs %d", r.ended, c.stats.Bugs)
	}
}

// TestFewSourcesReleasedAtOnce checks that a run of at most a batch of
// sources, or any run with SourceBatch < 0, starts with all of them READY.
func TestFewSourcesReleasedAtOnce(t *testing.T) {
	for _, batch := range []int{0, -1, 16} {
		c := feedCore(1, 1, batch)
		g := leavesAndReducers(16, 4)
		results := []int32{16, 17, 18, 19}
		r := newRun(nil, 1, g, Prepare(g, results, c.slots), results)
		c.Step(msgSubmit{run: r})
		if r.fed[0] != 16 || len(c.feeding) != 0 {
			t.Errorf("batch %d: %d of 16 sources released at the start, %d runs feeding", batch, r.fed[0], len(c.feeding))
		}
	}
}

// TestStreamedRunCompletes runs a tree of many leaves through the
// scheduler's own loop, with workers reporting concurrently, releasing
// sources a few at a time: every op finishes once.
func TestStreamedRunCompletes(t *testing.T) {
	s, _ := startFake(t, 2, Config{SourceBatch: 3, QueuedSourcesPerSlot: 2}, nil)
	runTree(t, s, 3000)
}
