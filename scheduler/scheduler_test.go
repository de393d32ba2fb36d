package scheduler

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// fakeWorker runs tasks on one goroutine and reports to the scheduler.
// failFn decides the outcome of each task.
type fakeWorker struct {
	id       int
	s        *Scheduler
	tasks    chan protocol.Task
	failFn   func(protocol.Task) (protocol.Outcome, bool)
	lostFn   func(protocol.Task) []protocol.ChunkKey // inputs reported lost on failure
	block    chan struct{}                           // when set, each task waits for it or for cancel
	dieAfter int                                     // when > 0: after this many tasks, go silent
	done     int
	dropped  chan int32 // tasks received after going silent
	mu       sync.Mutex
	released []protocol.ChunkKey
	cancels  chan protocol.GraphID
}

func newFakeWorker(id int) *fakeWorker {
	return &fakeWorker{id: id, tasks: make(chan protocol.Task, 1<<20), cancels: make(chan protocol.GraphID, 16)}
}

func (f *fakeWorker) Slots() int { return 1 }
func (f *fakeWorker) Submit(ts []protocol.Task) {
	for _, t := range ts {
		f.tasks <- t
	}
}
func (f *fakeWorker) Release(keys []protocol.ChunkKey) {
	f.mu.Lock()
	f.released = append(f.released, keys...)
	f.mu.Unlock()
}
func (f *fakeWorker) CancelGraph(g protocol.GraphID) { f.cancels <- g }

func (f *fakeWorker) run(stop chan struct{}) {
	cancelled := map[protocol.GraphID]bool{}
	for {
		select {
		case <-stop:
			return
		case g := <-f.cancels:
			cancelled[g] = true
		case t := <-f.tasks:
			// pick up any cancel that arrived meanwhile
			for drained := false; !drained; {
				select {
				case g := <-f.cancels:
					cancelled[g] = true
				default:
					drained = true
				}
			}
			if f.dieAfter > 0 && f.done >= f.dieAfter {
				f.dropped <- t.Key.Node // "dead": never reports again
				continue
			}
			if cancelled[t.Key.Graph] {
				f.s.Report(protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: f.id, Outcome: protocol.Cancelled})
				continue
			}
			f.s.Report(protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: f.id, Outcome: protocol.Started})
			if f.block != nil {
				select {
				case <-f.block:
				case g := <-f.cancels:
					cancelled[g] = true
					f.s.Report(protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: f.id, Outcome: protocol.Cancelled})
					continue
				}
			}
			out, retry := protocol.Succeeded, false
			if f.failFn != nil {
				out, retry = f.failFn(t)
			}
			res := protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: f.id, Outcome: out, Nbytes: 8, Retryable: retry}
			if out == protocol.Failed {
				res.Err = errors.New("boom")
				if f.lostFn != nil {
					res.Lost = f.lostFn(t)
				}
			}
			f.s.Report(res)
			f.done++
		}
	}
}

func startFake(t testing.TB, n int, cfg Config, setup func(*fakeWorker)) (*Scheduler, []*fakeWorker) {
	var fws []*fakeWorker
	var execs []protocol.Executor
	for i := range n {
		fw := newFakeWorker(i)
		if setup != nil {
			setup(fw)
		}
		fws = append(fws, fw)
		execs = append(execs, fw)
	}
	s := New(execs, cfg)
	stop := make(chan struct{})
	for _, fw := range fws {
		fw.s = s
		go fw.run(stop)
	}
	t.Cleanup(func() { s.Close(); close(stop) })
	return s, fws
}

// treeGraph is n leaves summed pairwise to one root.
func treeGraph(n int) (*graph.ChunkGraph, int32) {
	g := &graph.ChunkGraph{}
	var level []ops.ChunkRef
	for range n {
		level = append(level, g.AddChunk(nop{}, nil, scalarMeta))
	}
	for len(level) > 1 {
		var next []ops.ChunkRef
		for i := 0; i < len(level); i += 2 {
			if i+1 == len(level) {
				next = append(next, level[i])
				continue
			}
			next = append(next, g.AddChunk(nop{}, []ops.ChunkRef{level[i], level[i+1]}, scalarMeta))
		}
		level = next
	}
	return g, int32(level[0])
}

// runTree runs treeGraph(n) on s to its end and checks that every op but
// the root was freed.
func runTree(t *testing.T, s *Scheduler, n int) (*graph.ChunkGraph, *Run) {
	t.Helper()
	g, root := treeGraph(n)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := run.Counts(); c[Freed] != int64(len(g.Nodes)-1) || c[Finished] != 1 {
		t.Errorf("counts %v: want every op but the root freed", c)
	}
	return g, run
}

func TestRunFreesIntermediates(t *testing.T) {
	s, fws := startFake(t, 2, Config{}, nil)
	g, run := runTree(t, s, 16)
	run.Release()
	// after Release every chunk was released exactly once
	if err := s.do(func(*core) {}); err != nil {
		t.Fatal(err)
	}
	seen := map[protocol.ChunkKey]int{}
	for _, fw := range fws {
		fw.mu.Lock()
		for _, k := range fw.released {
			seen[k]++
		}
		fw.mu.Unlock()
	}
	if len(seen) != len(g.Nodes) {
		t.Errorf("released %d distinct chunks, want %d", len(seen), len(g.Nodes))
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("chunk %v released %d times", k, n)
		}
	}
}

func TestFatalNamesOpAndStopsSuccessors(t *testing.T) {
	s, _ := startFake(t, 1, Config{MaxAttempts: 3}, func(fw *fakeWorker) {
		fw.failFn = func(task protocol.Task) (protocol.Outcome, bool) {
			if task.Key.Node == 3 {
				return protocol.Failed, false
			}
			return protocol.Succeeded, false
		}
	})
	g, root := treeGraph(8)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	err = run.Wait(context.Background())
	var oe *OpError
	if !errors.As(err, &oe) || oe.Node != 3 || oe.Attempts != 1 {
		t.Fatalf("got %v, want OpError for op 3 after 1 attempt (kernel errors are not retried)", err)
	}
	if run.Counts()[Fatal] < 2 {
		t.Errorf("counts %v: the failed op and its successors should be FATAL", run.Counts())
	}
}

func TestRetryableFailureRetried(t *testing.T) {
	var mu sync.Mutex
	tries := map[int32]int{}
	s, _ := startFake(t, 1, Config{MaxAttempts: 3}, func(fw *fakeWorker) {
		fw.failFn = func(task protocol.Task) (protocol.Outcome, bool) {
			mu.Lock()
			defer mu.Unlock()
			tries[task.Key.Node]++
			if task.Key.Node == 2 && tries[2] < 3 {
				return protocol.Failed, true
			}
			return protocol.Succeeded, false
		}
	})
	g, root := treeGraph(4)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatalf("want success after retries, got %v", err)
	}
	if tries[2] != 3 {
		t.Errorf("op 2 tried %d times, want 3", tries[2])
	}
}

func TestRetriesExhausted(t *testing.T) {
	s, _ := startFake(t, 1, Config{MaxAttempts: 2}, func(fw *fakeWorker) {
		fw.failFn = func(task protocol.Task) (protocol.Outcome, bool) {
			if task.Key.Node == 0 {
				return protocol.Failed, true
			}
			return protocol.Succeeded, false
		}
	})
	g, root := treeGraph(4)
	run, _ := s.Submit(context.Background(), g, []int32{root})
	var oe *OpError
	if err := run.Wait(context.Background()); !errors.As(err, &oe) || oe.Attempts != 2 {
		t.Fatalf("got %v, want OpError after 2 attempts", err)
	}
}

func TestCancelStopsRunningOps(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	s, _ := startFake(t, 1, Config{}, func(fw *fakeWorker) { fw.block = block })
	g, root := treeGraph(8)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	// wait until an op is running
	deadline := time.Now().Add(5 * time.Second)
	for run.Counts()[Running] == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no op started")
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err = run.Wait(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %v", d)
	}
	c := run.Counts()
	if c[Running] != 0 || c[Ready] != 0 || c[Unscheduled] != 0 || c[Cancelling] != 0 {
		t.Errorf("counts after cancel %v", c)
	}
}

// BenchmarkSchedulerTransitions measures the event loop alone: a wide tree
// graph run on instant fake workers. Reports chunk-op transitions per second
// (READY, RUNNING, FINISHED, FREED per op).
func BenchmarkSchedulerTransitions(b *testing.B) {
	s, _ := startFake(b, 2, Config{}, nil)
	g, root := treeGraph(50000)
	b.ResetTimer()
	for range b.N {
		run, err := s.Submit(context.Background(), g, []int32{root})
		if err != nil {
			b.Fatal(err)
		}
		if err := run.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
		run.Release()
	}
	b.ReportMetric(float64(4*len(g.Nodes)*b.N)/b.Elapsed().Seconds(), "transitions/s")
	b.ReportMetric(float64(len(g.Nodes)*b.N)/b.Elapsed().Seconds(), "ops/s")
}

// Ops queued or running on a worker that dies go to the live worker and the
// run succeeds; the scheduler keeps serving new graphs.
func TestDeadWorkerOpsMoveToLiveWorker(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	s, _ := startFake(t, 2, Config{}, func(fw *fakeWorker) {
		if fw.id == 1 {
			fw.block = block // worker 1 never finishes: it has "died"
		}
	})
	g, root := treeGraph(16)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for run.Counts()[Running] == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no op started")
		}
		time.Sleep(time.Millisecond)
	}
	s.MarkWorkerDead(1, errors.New("no heartbeat for 3s"))
	// Late words from the dead worker (sent before it was given up on)
	// must change nothing.
	for n := range int32(len(g.Nodes)) {
		key := protocol.ChunkKey{Graph: run.ID(), Node: n}
		s.Report(protocol.Result{Key: key, Worker: 1, Outcome: protocol.Started})
		s.Report(protocol.Result{Key: key, Worker: 1, Outcome: protocol.Succeeded, Nbytes: 8})
	}
	s.Report(protocol.Result{Key: protocol.ChunkKey{Graph: run.ID(), Node: 1 << 20}, Worker: 0, Outcome: protocol.Started})
	select {
	case <-run.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("run still waiting for a dead worker")
	}
	if err := run.Err(); err != nil {
		t.Fatalf("run after worker 1 died: %v", err)
	}
	if s.LiveWorkers() != 1 {
		t.Errorf("live workers %d, want 1", s.LiveWorkers())
	}
	if loc := run.Location(root); loc != 0 {
		t.Errorf("result on worker %d, want the live worker 0", loc)
	}
	// the scheduler keeps serving: a new graph runs on the live worker
	g2, root2 := treeGraph(4)
	run2, err := s.Submit(context.Background(), g2, []int32{root2})
	if err != nil {
		t.Fatal(err)
	}
	if err := run2.Wait(context.Background()); err != nil {
		t.Fatalf("graph after a worker died: %v", err)
	}
}

// Chunks stored on a worker that dies are recomputed from their lineage on
// the live worker; nothing else runs twice.
func TestDeadWorkerChunksRecomputedFromLineage(t *testing.T) {
	var mu sync.Mutex
	runs := map[int32]int{}
	onW1 := map[int32]bool{} // ops worker 1 finished before going silent
	var w1 *fakeWorker
	s, _ := startFake(t, 2, Config{}, func(fw *fakeWorker) {
		fw.failFn = func(task protocol.Task) (protocol.Outcome, bool) {
			mu.Lock()
			defer mu.Unlock()
			runs[task.Key.Node]++
			if fw.id == 1 {
				onW1[task.Key.Node] = true
			}
			return protocol.Succeeded, false
		}
		if fw.id == 1 {
			fw.dieAfter, fw.dropped, w1 = 3, make(chan int32, 64), fw
		}
	})
	// Worker 1 finishes three leaves and goes silent. Once an inner op
	// reaches it (sent there because its inputs are there), those inputs are
	// chunks that only worker 1 holds and that are still needed.
	g, root := treeGraph(16)
	leaves := int32(16)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.After(5 * time.Second)
	for seen := false; !seen; {
		select {
		case n := <-w1.dropped:
			seen = n >= leaves
		case <-timeout:
			t.Fatal("no inner op reached worker 1")
		}
	}
	s.MarkWorkerDead(1, errors.New("no heartbeat for 3s"))
	if err := run.Wait(context.Background()); err != nil {
		t.Fatalf("run after worker 1 died holding chunks: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	twice := 0
	for n := range int32(len(g.Nodes)) {
		switch {
		case runs[n] == 2 && onW1[n]:
			twice++
		case runs[n] != 1:
			t.Errorf("op %d ran %d times (finished on worker 1: %v)", n, runs[n], onW1[n])
		}
	}
	if got := run.Recomputed(); got < 1 || got != int64(twice) {
		t.Errorf("recomputed %d chunks, %d ops ran twice; want the same, at least 1", got, twice)
	}
	c := run.Counts()
	if c[Freed] != int64(len(g.Nodes)-1) || c[Finished] != 1 {
		t.Errorf("counts %v: want all but the root freed", c)
	}
}

// Results of a finished run whose worker dies are recomputed from their
// lineage; ResultLocations waits for them and then names the live worker.
func TestDeadWorkerFinishedResultsRecomputed(t *testing.T) {
	var mu sync.Mutex
	runs := map[int32]int{}
	s, _ := startFake(t, 2, Config{}, func(fw *fakeWorker) {
		fw.failFn = func(task protocol.Task) (protocol.Outcome, bool) {
			mu.Lock()
			defer mu.Unlock()
			runs[task.Key.Node]++
			return protocol.Succeeded, false
		}
	})
	g, _ := treeGraph(16)
	results := []int32{16, 17, 18, 19, 20, 21, 22, 23} // op(0,1) ... op(14,15)
	run, err := s.Submit(context.Background(), g, results)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	before, err := run.ResultLocations(ctx, results)
	if err != nil {
		t.Fatal(err)
	}
	var onW1 []int32
	for i, w := range before {
		if w == 1 {
			onW1 = append(onW1, results[i])
		}
	}
	if len(onW1) == 0 {
		t.Fatalf("no result on worker 1 (locations %v): the test needs one", before)
	}
	s.MarkWorkerDead(1, errors.New("no heartbeat for 3s"))
	after, err := run.ResultLocations(ctx, results)
	if err != nil {
		t.Fatalf("results after worker 1 died: %v", err)
	}
	for i, w := range after {
		if w != 0 {
			t.Errorf("result %d on worker %d after worker 1 died", results[i], w)
		}
	}
	if got := run.Recomputed(); got != int64(len(onW1)) {
		t.Errorf("recomputed %d chunks, want %d (the results worker 1 held)", got, len(onW1))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, v := range onW1 {
		leaves := g.Nodes[v].Inputs
		for _, n := range []int32{v, int32(leaves[0]), int32(leaves[1])} {
			if runs[n] != 2 {
				t.Errorf("op %d ran %d times, want 2 (lineage of lost result %d)", n, runs[n], v)
			}
		}
	}
	run.Release()
	if _, err := run.ResultLocations(ctx, results); err == nil {
		t.Error("results still located after Release")
	}
}

// When the last worker dies the run fails with an error naming the death.
func TestLastWorkerDeadFailsRun(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	s, _ := startFake(t, 1, Config{}, func(fw *fakeWorker) { fw.block = block })
	g, root := treeGraph(4)
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	s.MarkWorkerDead(0, errors.New("no heartbeat for 3s"))
	select {
	case <-run.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("run still waiting with no live worker")
	}
	var dead *ErrWorkerDead
	if err := run.Err(); !errors.As(err, &dead) || dead.Worker != 0 {
		t.Fatalf("got %v, want an error wrapping ErrWorkerDead for worker 0", err)
	}
}

// A worker that dies while other graphs never used it must not disturb them
// (nor crash the event loop).
func TestDeadIdleWorkerLeavesOtherRunsAlone(t *testing.T) {
	block := make(chan struct{})
	s, _ := startFake(t, 3, Config{}, func(fw *fakeWorker) {
		if fw.id == 0 {
			fw.block = block
		}
	})
	g, root := treeGraph(2)
	// one source per worker at most: worker 2 may never be used
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	s.MarkWorkerDead(2, errors.New("gone"))
	close(block)
	if err := run.Wait(context.Background()); err != nil {
		var dead *ErrWorkerDead
		if !errors.As(err, &dead) || dead.Worker != 2 {
			t.Fatalf("run: %v", err)
		}
	}
}

// A lost input is recomputed from its lineage: its producer runs again, and
// so do that producer's inputs, which were already freed.
func TestLostInputRecomputedFromLineage(t *testing.T) {
	var mu sync.Mutex
	runs := map[int32]int{}
	s, _ := startFake(t, 1, Config{MaxAttempts: 3}, func(fw *fakeWorker) {
		fw.failFn = func(task protocol.Task) (protocol.Outcome, bool) {
			mu.Lock()
			defer mu.Unlock()
			runs[task.Key.Node]++
			if task.Key.Node == 12 && runs[12] == 1 {
				return protocol.Failed, true
			}
			return protocol.Succeeded, false
		}
		fw.lostFn = func(task protocol.Task) []protocol.ChunkKey {
			return []protocol.ChunkKey{{Graph: task.Key.Graph, Node: 8}}
		}
	})
	g, root := treeGraph(8) // leaves 0-7, then 8-11, 12-13, root 14
	run, err := s.Submit(context.Background(), g, []int32{root})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatalf("run with a lost chunk: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, n := range []int32{0, 1, 8, 12} {
		if runs[n] != 2 {
			t.Errorf("op %d ran %d times, want 2 (lineage of the lost chunk 8)", n, runs[n])
		}
	}
	for _, n := range []int32{2, 3, 9, 10, 13, 14} {
		if runs[n] != 1 {
			t.Errorf("op %d ran %d times, want 1", n, runs[n])
		}
	}
	if run.Recomputed() != 1 {
		t.Errorf("recomputed %d lost chunks, want 1", run.Recomputed())
	}
	c := run.Counts()
	if c[Freed] != int64(len(g.Nodes)-1) || c[Finished] != 1 {
		t.Errorf("counts %v: want all but the root freed", c)
	}
}
