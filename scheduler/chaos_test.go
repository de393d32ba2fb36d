package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/ops"
	"github.com/phobos-tensor/phobos/protocol"
)

// TestRunsSurviveWorkerDeaths is a property: on any graph, with workers
// going silent after any number of tasks (all but one of them) and some
// ops finding an input lost on their first try, the run
// succeeds once the silent workers are marked dead, its results sit on live
// workers, and every other chunk is freed.
func TestRunsSurviveWorkerDeaths(t *testing.T) {
	var recovered int // runs that recomputed lost chunks
	rapid.Check(t, func(rt *rapid.T) {
		nw := rapid.IntRange(2, 4).Draw(rt, "workers")
		n := rapid.IntRange(1, 40).Draw(rt, "ops")
		g := &graph.ChunkGraph{}
		var refs []ops.ChunkRef
		for i := range n {
			k := rapid.IntRange(0, min(i, 3)).Draw(rt, fmt.Sprintf("inputs of %d", i))
			var ins []ops.ChunkRef
			for j := range k {
				ins = append(ins, refs[rapid.IntRange(0, i-1).Draw(rt, fmt.Sprintf("input %d of %d", j, i))])
			}
			refs = append(refs, g.AddChunk(nop{}, ins, scalarMeta))
		}
		// Results: every sink, and maybe a few more.
		hasConsumer := make([]bool, n)
		for _, nd := range g.Nodes {
			for _, in := range nd.Inputs {
				hasConsumer[in] = true
			}
		}
		var results []int32
		for i := range n {
			if !hasConsumer[i] || rapid.Bool().Draw(rt, fmt.Sprintf("result %d", i)) {
				results = append(results, int32(i))
			}
		}
		// Every worker but the last may go silent after some tasks.
		dieAfter := make([]int, nw)
		for w := range nw - 1 {
			if rapid.Bool().Draw(rt, fmt.Sprintf("worker %d dies", w)) {
				dieAfter[w] = rapid.IntRange(1, n+1).Draw(rt, fmt.Sprintf("worker %d dies after", w))
			}
		}

		// Some ops find their first input gone on their first try (a lost
		// spill file), on whichever worker runs them.
		loseInput := map[int32]bool{}
		for i, nd := range g.Nodes {
			if len(nd.Inputs) > 0 && rapid.IntRange(0, 9).Draw(rt, fmt.Sprintf("op %d loses an input", i)) == 0 {
				loseInput[int32(i)] = true
			}
		}
		var mu sync.Mutex
		tried := map[int32]bool{}
		failFn := func(task protocol.Task) (protocol.Outcome, bool) {
			mu.Lock()
			defer mu.Unlock()
			if loseInput[task.Key.Node] && !tried[task.Key.Node] {
				tried[task.Key.Node] = true
				return protocol.Failed, true
			}
			return protocol.Succeeded, false
		}
		lostFn := func(task protocol.Task) []protocol.ChunkKey { return []protocol.ChunkKey{task.Inputs[0].Key} }

		var fws []*fakeWorker
		var execs []protocol.Executor
		for w := range nw {
			fw := newFakeWorker(w)
			fw.failFn, fw.lostFn = failFn, lostFn
			if dieAfter[w] > 0 {
				fw.dieAfter, fw.dropped = dieAfter[w], make(chan int32, 1<<16)
			}
			fws = append(fws, fw)
			execs = append(execs, fw)
		}
		s := New(execs, Config{})
		stop := make(chan struct{})
		defer func() { s.Close(); close(stop) }()
		for _, fw := range fws {
			fw.s = s
			go fw.run(stop)
			if fw.dropped != nil {
				// The heartbeat detector: a worker that drops a task is dead.
				go func(fw *fakeWorker) {
					select {
					case <-fw.dropped:
						s.MarkWorkerDead(fw.id, errors.New("went silent"))
					case <-stop:
					}
				}(fw)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		run, err := s.Submit(ctx, g, results)
		if err != nil {
			rt.Fatal(err)
		}
		if err := run.Wait(ctx); err != nil {
			rt.Fatalf("run: %v (counts %v)", err, run.Counts())
		}
		locs, err := run.ResultLocations(ctx, results)
		if err != nil {
			rt.Fatalf("results: %v", err)
		}
		var dead []error
		_ = s.do(func(c *core) { dead = append(dead, c.dead...) })
		for i, w := range locs {
			if w < 0 || w >= nw || dead[w] != nil {
				rt.Fatalf("result %d on worker %d (dead: %v)", results[i], w, dead)
			}
		}
		c := run.Counts()
		if c[Finished] != int64(len(results)) || c[Freed] != int64(n-len(results)) {
			rt.Fatalf("counts %v: want %d results finished and the rest freed", c, len(results))
		}
		if run.Recomputed() > 0 {
			recovered++
		}
	})
	// The property is only worth something if deaths cost chunks.
	if recovered == 0 {
		t.Error("no run recomputed a lost chunk: the generator never exercised recovery")
	}
	t.Logf("%d runs recomputed lost chunks", recovered)
}
