package scheduler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// recorder is a worker that runs nothing: it records what it was sent, in
// order, and the test answers for it.
type recorder struct {
	mu    sync.Mutex
	calls []string
	tasks chan protocol.Task
}

func newRecorder() *recorder { return &recorder{tasks: make(chan protocol.Task, 1024)} }

func (r *recorder) Slots() int { return 1 }
func (r *recorder) Submit(ts []protocol.Task) {
	r.mu.Lock()
	for _, t := range ts {
		r.calls = append(r.calls, fmt.Sprintf("task %v@%d", t.Key, t.Attempt))
	}
	r.mu.Unlock()
	for _, t := range ts {
		r.tasks <- t
	}
}
func (r *recorder) Release(keys []protocol.ChunkKey) {
	r.mu.Lock()
	for _, k := range keys {
		r.calls = append(r.calls, fmt.Sprintf("release %v", k))
	}
	r.mu.Unlock()
}
func (r *recorder) CancelGraph(g protocol.GraphID) {
	r.mu.Lock()
	r.calls = append(r.calls, fmt.Sprintf("cancel g%d", g))
	r.mu.Unlock()
}

func (r *recorder) next(t *testing.T) protocol.Task {
	t.Helper()
	select {
	case task := <-r.tasks:
		return task
	case <-time.After(10 * time.Second): // a failure bound, not a timing
		t.Fatal("no task sent")
		return protocol.Task{}
	}
}

func ok(t protocol.Task, w int) protocol.Result {
	return protocol.Result{Key: t.Key, Attempt: t.Attempt, Worker: w, Outcome: protocol.Succeeded, Nbytes: 8}
}

// abGraph is c = f(a, b).
func abGraph() (*graph.ChunkGraph, int32) {
	g := &graph.ChunkGraph{}
	a := g.AddChunk(nop{}, nil, scalarMeta)
	b := g.AddChunk(nop{}, nil, scalarMeta)
	c := g.AddChunk(nop{}, []ops.ChunkRef{a, b}, scalarMeta)
	return g, int32(c)
}

// abRun runs abGraph on a scheduler of one recorded worker (closed when
// the test ends) and returns them, the run and c.
func abRun(t *testing.T) (*Scheduler, *recorder, *Run, int32) {
	t.Helper()
	rec := newRecorder()
	s := New([]protocol.Executor{rec}, Config{})
	t.Cleanup(s.Close)
	g, c := abGraph()
	run, err := s.Submit(context.Background(), g, []int32{c})
	if err != nil {
		t.Fatal(err)
	}
	return s, rec, run, c
}

// A repeated Succeeded (a result batch sent again) used to lower the
// in-flight counts twice: the run ended while c still ran, and then
// ResultLocations failed with "results ... are gone: scheduler bug".
func TestRepeatedResultCountsOnce(t *testing.T) {
	s, rec, run, c := abRun(t)
	a, b := rec.next(t), rec.next(t)
	for range 3 {
		s.Report(ok(a, 0))
	}
	s.Report(ok(b, 0))
	s.Report(ok(b, 0))
	tc := rec.next(t)
	s.Report(protocol.Result{Key: tc.Key, Attempt: tc.Attempt, Worker: 0, Outcome: protocol.Started})
	s.Report(ok(a, 0))
	if st := s.Stats(); st.Duplicates != 4 {
		t.Errorf("duplicates counted %d, want 4 (stats %+v)", st.Duplicates, st)
	}
	select {
	case <-run.Done():
		t.Fatalf("run ended (%v) while its last op was still running", run.Err())
	default:
	}
	s.Report(ok(tc, 0))
	s.Report(ok(tc, 0))
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	locs, err := run.ResultLocations(context.Background(), []int32{c})
	if err != nil || locs[0] != 0 {
		t.Fatalf("result locations %v, %v", locs, err)
	}
}

// Results reported in batches (protocol.BatchReporter) are applied in
// their order, each once, and before a command sent after them: the
// duplicate in the first batch is counted by the Stats that follows it,
// and the run ends with its result where the batch said.
func TestBatchedResults(t *testing.T) {
	s, rec, run, c := abRun(t)
	a, b := rec.next(t), rec.next(t)
	s.ReportBatch([]protocol.Result{ok(a, 0), ok(a, 0), ok(b, 0)})
	if st := s.Stats(); st.Duplicates != 1 {
		t.Errorf("after one batch: %d duplicates counted, want 1 (stats %+v)", st.Duplicates, st)
	}
	s.ReportBatch(nil) // nothing to apply; must not block or count
	// A batch and a command both waiting for the loop: the command sees
	// the batch applied, whichever the loop's select takes first. The
	// loop is held in a command while both are sent; a repeat of a's
	// result is the batch, counted as a duplicate.
	for i := range 20 {
		held, release := make(chan struct{}), make(chan struct{})
		go s.do(func(*core) { close(held); <-release })
		<-held
		s.ReportBatch([]protocol.Result{ok(a, 0)})
		// Queued behind the held command (cmds has room), as Stats would.
		got := make(chan Stats, 1)
		s.cmds <- func(c *core) { got <- c.stats }
		close(release)
		if st := <-got; st.Duplicates != int64(2+i) {
			t.Fatalf("batch %d: the command after it saw %d duplicates, want %d", i, st.Duplicates, 2+i)
		}
	}
	tc := rec.next(t)
	s.ReportBatch([]protocol.Result{{Key: tc.Key, Attempt: tc.Attempt, Worker: 0, Outcome: protocol.Started}, ok(tc, 0)})
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	locs, err := run.ResultLocations(context.Background(), []int32{c})
	if err != nil || locs[0] != 0 {
		t.Fatalf("result locations %v, %v", locs, err)
	}
	if st := s.Stats(); st.Duplicates != 21 {
		t.Errorf("at the end: %d duplicates counted, want 21 (stats %+v)", st.Duplicates, st)
	}
}

// A report naming worker 7 of a 2-worker scheduler used to be taken as
// the op's location; dispatching its consumer then indexed out of range in
// the event loop and killed the process.
func TestReportFromUnknownWorker(t *testing.T) {
	rec0, rec1 := newRecorder(), newRecorder()
	var logs bytes.Buffer
	s := New([]protocol.Executor{rec0, rec1}, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer s.Close()
	g := &graph.ChunkGraph{}
	a := g.AddChunk(nop{}, nil, scalarMeta)
	b := g.AddChunk(nop{}, []ops.ChunkRef{a}, scalarMeta)
	run, err := s.Submit(context.Background(), g, []int32{int32(b)})
	if err != nil {
		t.Fatal(err)
	}
	next := func() (protocol.Task, int) {
		select {
		case task := <-rec0.tasks:
			return task, 0
		case task := <-rec1.tasks:
			return task, 1
		case <-time.After(10 * time.Second): // a failure bound, not a timing
			t.Fatal("no task sent")
			return protocol.Task{}, -1
		}
	}
	ta, wa := next()
	for _, w := range []int{7, -1, 1 << 30} {
		s.Report(protocol.Result{Key: ta.Key, Attempt: ta.Attempt, Worker: w, Outcome: protocol.Started})
		s.Report(protocol.Result{Key: ta.Key, Attempt: ta.Attempt, Worker: w, Outcome: protocol.Succeeded, Nbytes: 8})
	}
	s.Report(protocol.Result{Key: protocol.ChunkKey{Graph: run.ID(), Node: 99}, Attempt: 1, Worker: 0, Outcome: protocol.Succeeded})
	if st := s.Stats(); st.Invalid != 7 {
		t.Fatalf("invalid results counted %d, want 7", st.Invalid)
	}
	if !strings.Contains(logs.String(), "unknown worker") {
		t.Errorf("no log line for the unknown worker: %s", logs.String())
	}
	s.Report(ok(ta, wa))
	tb, wb := next()
	s.Report(ok(tb, wb))
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	locs, err := run.ResultLocations(context.Background(), []int32{int32(b)})
	if err != nil || locs[0] != wb {
		t.Fatalf("result on %v (%v), want worker %d", locs, err, wb)
	}
}

// Cancels are sent after the tasks of the same loop turn. Two results
// handled in one turn, the first dispatching c and the second failing for
// good, used to send CancelGraph at once and c's task after it, so a worker
// that had forgotten the cancel ran c to completion.
func TestCancelFollowsDispatchOfSameTurn(t *testing.T) {
	rec := newRecorder()
	var pair struct {
		sync.Mutex
		held *protocol.Result
	}
	knobs := TestingKnobs{OnResult: func(r protocol.Result) []protocol.Result {
		// Hold a's success until b's failure arrives: both in one turn.
		pair.Lock()
		defer pair.Unlock()
		if r.Outcome == protocol.Succeeded && pair.held == nil {
			pair.held = &r
			return nil
		}
		if r.Outcome == protocol.Failed && pair.held != nil {
			return []protocol.Result{*pair.held, r}
		}
		return []protocol.Result{r}
	}}
	s := New([]protocol.Executor{rec}, Config{Knobs: knobs})
	defer s.Close()
	g := &graph.ChunkGraph{}
	a := g.AddChunk(nop{}, nil, scalarMeta)
	b := g.AddChunk(nop{}, nil, scalarMeta)
	c := g.AddChunk(nop{}, []ops.ChunkRef{a}, scalarMeta)
	d := g.AddChunk(nop{}, []ops.ChunkRef{b, c}, scalarMeta)
	run, err := s.Submit(context.Background(), g, []int32{int32(d)})
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := rec.next(t), rec.next(t)
	if ta.Key.Node != int32(a) {
		ta, tb = tb, ta
	}
	s.Report(ok(ta, 0))
	s.Report(protocol.Result{Key: tb.Key, Attempt: tb.Attempt, Worker: 0, Outcome: protocol.Failed, Err: errors.New("boom")})
	tc := rec.next(t) // sent in the same turn as the cancel
	s.Report(protocol.Result{Key: tc.Key, Attempt: tc.Attempt, Worker: 0, Outcome: protocol.Cancelled})
	if err := run.Wait(context.Background()); err == nil {
		t.Fatal("run succeeded, want it failed by b")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	cancelled := false
	for _, call := range rec.calls {
		if strings.HasPrefix(call, "cancel ") {
			cancelled = true
		}
		if cancelled && strings.HasPrefix(call, "task ") {
			t.Fatalf("a task was sent after the cancel: %q", rec.calls)
		}
	}
	if !cancelled {
		t.Fatalf("no cancel sent: %q", rec.calls)
	}
}

// A cancel that races success used to leave the run in the scheduler
// forever; a finished run's Release forgets it, and so does a cancel.
func TestNoRunLeaks(t *testing.T) {
	rec := newRecorder()
	s := New([]protocol.Executor{rec}, Config{})
	defer s.Close()
	for i := range 3 {
		g := &graph.ChunkGraph{}
		g.AddChunk(nop{}, nil, scalarMeta)
		run, err := s.Submit(context.Background(), g, []int32{0})
		if err != nil {
			t.Fatal(err)
		}
		s.Report(ok(rec.next(t), 0))
		if err := run.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		switch i {
		case 0:
			run.Cancel() // the cancel arrives after success
		case 1:
			run.Release()
		case 2:
			run.Cancel()
			run.Release()
		}
	}
	if n := s.Runs(); n != 0 {
		t.Fatalf("scheduler holds %d runs, want 0", n)
	}
}

// Graph ids carry a random epoch: two scheduler processes (or one before
// and after a restart) do not hand out the same ids, so a late batch from
// before a restart cannot land on a new graph.
func TestGraphIDsDifferAcrossSchedulers(t *testing.T) {
	ids := map[protocol.GraphID]bool{}
	for range 8 {
		s := New([]protocol.Executor{newRecorder()}, Config{})
		g := &graph.ChunkGraph{}
		g.AddChunk(nop{}, nil, scalarMeta)
		run, err := s.Submit(context.Background(), g, []int32{0})
		if err != nil {
			t.Fatal(err)
		}
		if ids[run.ID()] {
			t.Fatalf("graph id %d handed out by two schedulers", run.ID())
		}
		ids[run.ID()] = true
		s.Close()
	}
}

// A dispatch lost for good used to leave the run waiting forever; progress
// supervision fails it with a diagnosis naming what it waits for.
func TestLostDispatchFailsRunAfterProgressTimeout(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cfg := Config{
		ProgressTimeout: time.Minute,
		Now:             clock,
		Knobs: TestingKnobs{
			NoTicker: true,
			OnSend:   func(Send) []Send { return nil }, // the network loses everything
		},
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	s := New([]protocol.Executor{newRecorder()}, cfg)
	defer s.Close()
	g, c := abGraph()
	run, err := s.Submit(context.Background(), g, []int32{c})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []time.Duration{30 * time.Second, 40 * time.Second, 61 * time.Second} {
		mu.Lock()
		now = now.Add(step)
		mu.Unlock()
		s.Tick(clock())
	}
	err = run.Err()
	var stall *StallError
	if !errors.As(err, &stall) || !strings.Contains(err.Error(), "chunk op 0 (nop) READY on worker 0") {
		t.Fatalf("run error %v, want a StallError naming op 0", err)
	}
	if n := s.Runs(); n != 0 {
		t.Fatalf("scheduler holds %d runs after the stall, want 0", n)
	}
}

// A transition the state machine refuses is a scheduler bug: it fails the
// graph with a message naming the op, the state and the event, and is
// logged; before, it was stored and ignored, and the run could end ok.
func TestRefusedTransitionFailsGraph(t *testing.T) {
	var logs bytes.Buffer
	c := newCore(Config{MaxAttempts: 3, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, []int{1})
	g, root := abGraph()
	r := newRun(nil, 1, g, Prepare(g, []int32{root}, c.slots), []int32{root})
	c.Step(msgSubmit{run: r})
	r.set(0, Freed) // state out of step with the dispatch still open
	a := c.Step(msgResult{res: protocol.Result{Key: protocol.ChunkKey{Graph: 1, Node: 0}, Attempt: 1, Worker: 0, Outcome: protocol.Succeeded}})
	if !r.cancelled || r.err == nil {
		t.Fatalf("run not failed: err %v", r.err)
	}
	for _, want := range []string{"chunk op 0 (nop)", "FREED", "Succeed"} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("error %q does not name %q", r.err, want)
		}
	}
	if !strings.Contains(logs.String(), "refused transition") {
		t.Errorf("not logged: %s", logs.String())
	}
	if len(a.Sends) == 0 || len(a.Sends[0].Cancels) == 0 {
		t.Errorf("no cancel sent to the worker: %+v", a.Sends)
	}
	if c.stats.Bugs != 1 {
		t.Errorf("bugs counted %d, want 1", c.stats.Bugs)
	}
}

// A panic while handling one graph's message fails that graph only, with
// the panic logged; the scheduler keeps serving the others.
func TestPanicFailsOnlyItsGraph(t *testing.T) {
	var logs bytes.Buffer
	c := newCore(Config{MaxAttempts: 3, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, []int{1})
	g1, root1 := abGraph()
	r1 := newRun(nil, 1, g1, Prepare(g1, []int32{root1}, c.slots), []int32{root1})
	g2, root2 := abGraph()
	r2 := newRun(nil, 2, g2, Prepare(g2, []int32{root2}, c.slots), []int32{root2})
	c.Step(msgSubmit{run: r1})
	c.Step(msgSubmit{run: r2})
	r1.pending = nil // corrupt graph 1: handling its next result panics
	a := c.Step(msgResult{res: protocol.Result{Key: protocol.ChunkKey{Graph: 1, Node: 0}, Attempt: 1, Worker: 0, Outcome: protocol.Succeeded}})
	if len(a.Ended) != 1 || a.Ended[0] != r1 || r1.err == nil || !strings.Contains(r1.err.Error(), "internal error") {
		t.Fatalf("graph 1 not failed by the panic: ended %v, err %v", a.Ended, r1.err)
	}
	if !strings.Contains(logs.String(), "panic") || !strings.Contains(logs.String(), "graph=1") {
		t.Errorf("panic not logged with its graph: %s", logs.String())
	}
	for _, n := range []int32{0, 1} {
		c.Step(msgResult{res: protocol.Result{Key: protocol.ChunkKey{Graph: 2, Node: n}, Attempt: 1, Worker: 0, Outcome: protocol.Succeeded}})
	}
	a = c.Step(msgResult{res: protocol.Result{Key: protocol.ChunkKey{Graph: 2, Node: root2}, Attempt: 1, Worker: 0, Outcome: protocol.Succeeded}})
	if len(a.Ended) != 1 || a.Ended[0] != r2 || r2.err != nil {
		t.Fatalf("graph 2 did not finish ok after graph 1's panic: %v", r2.err)
	}
}
