package scheduler

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// A succeeded run's result places are answered without the event loop,
// and withdrawn when they change: the result's worker dies (the chunk is
// recomputed elsewhere and the answer names the new worker) or the run is
// released.
func TestResultPlacesPublished(t *testing.T) {
	recs := []*recorder{newRecorder(), newRecorder()}
	s := New([]protocol.Executor{recs[0], recs[1]}, Config{})
	defer s.Close()
	g := &graph.ChunkGraph{}
	a := g.AddChunk(nop{}, nil, scalarMeta)
	b := int32(g.AddChunk(nop{}, []ops.ChunkRef{a}, scalarMeta))
	run, err := s.Submit(context.Background(), g, []int32{b})
	if err != nil {
		t.Fatal(err)
	}
	// runOne takes the next task from either worker and reports it done
	// there.
	runOne := func() (protocol.Task, int) {
		t.Helper()
		select {
		case task := <-recs[0].tasks:
			s.Report(ok(task, 0))
			return task, 0
		case task := <-recs[1].tasks:
			s.Report(ok(task, 1))
			return task, 1
		case <-time.After(10 * time.Second): // a failure bound, not a timing
			t.Fatal("no task sent")
			return protocol.Task{}, -1
		}
	}
	runOne()
	tb, wb := runOne()
	if tb.Key.Node != b {
		t.Fatalf("second task is op %d, want %d", tb.Key.Node, b)
	}
	if err := run.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}

	// The loop is held in a command: the answer cannot come from it.
	held, release := make(chan struct{}), make(chan struct{})
	go func() { _ = s.do(func(*core) { close(held); <-release }) }()
	<-held
	type answer struct {
		locs []int
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		locs, err := run.ResultLocations(context.Background(), []int32{b})
		got <- answer{locs, err}
	}()
	var locs []int
	select {
	case a := <-got:
		locs, err = a.locs, a.err
	case <-time.After(10 * time.Second): // a failure bound, not a timing
		close(release)
		t.Fatal("the result places waited for the busy loop")
	}
	close(release)
	if err != nil || len(locs) != 1 || locs[0] != wb {
		t.Fatalf("with the loop busy: result places %v, %v; want worker %d", locs, err, wb)
	}
	if _, err := run.ResultLocations(context.Background(), []int32{b + 1}); err == nil {
		t.Error("an op that is not a result was given a place")
	}

	// The result's worker dies: a and b run again on the other one.
	s.MarkWorkerDead(wb, errors.New("test: gone"))
	for range 2 {
		if _, w := runOne(); w == wb {
			t.Fatalf("a task went to dead worker %d", wb)
		}
	}
	locs, err = run.ResultLocations(context.Background(), []int32{b})
	if err != nil || len(locs) != 1 || locs[0] != 1-wb {
		t.Fatalf("after worker %d died: result places %v, %v; want worker %d", wb, locs, err, 1-wb)
	}

	run.Release()
	if locs, err := run.ResultLocations(context.Background(), []int32{b}); err == nil || !strings.Contains(err.Error(), "released") {
		t.Fatalf("after release: result places %v, %v; want an error naming the release", locs, err)
	}
}
