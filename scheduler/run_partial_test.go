package scheduler

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/phobos-tensor/phobos/protocol"
)

// ReadyResultLocations names the worker of each result computed so far
// and -1 for the others while the run goes on; after a worker dies it
// never names that worker, and once the lost results are recomputed it
// names where they are now, as ResultLocations does.
func TestReadyResultLocations(t *testing.T) {
	gate := make(chan struct{})
	s, _ := startFake(t, 2, Config{}, func(fw *fakeWorker) {
		fw.failFn = func(task protocol.Task) (protocol.Outcome, bool) {
			if task.Key.Node == 5 {
				<-gate // op(2,3) waits until the test has looked
			}
			return protocol.Succeeded, false
		}
	})
	g, _ := treeGraph(4) // leaves 0-3, op(0,1) = 4, op(2,3) = 5, root 6
	results := []int32{4, 5}
	run, err := s.Submit(context.Background(), g, results)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := run.ResultLocations(ctx, results[:1])
	if err != nil {
		t.Fatal(err)
	}
	ready, err := run.ReadyResultLocations(results)
	if err != nil {
		t.Fatal(err)
	}
	if ready[0] != first[0] || ready[1] != -1 {
		t.Fatalf("while op 5 runs: locations %v, want [%d -1]", ready, first[0])
	}
	close(gate)
	if err := run.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	done, err := run.ResultLocations(ctx, results)
	if err != nil {
		t.Fatal(err)
	}
	if ready, err = run.ReadyResultLocations(results); err != nil || !slices.Equal(ready, done) {
		t.Fatalf("after the run: %v (%v), want %v", ready, err, done)
	}
	dead := done[0]
	s.MarkWorkerDead(dead, errors.New("no heartbeat"))
	ready, err = run.ReadyResultLocations(results)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range ready {
		if w == dead {
			t.Errorf("result %d still on worker %d after it died", results[i], dead)
		}
	}
	after, err := run.ResultLocations(ctx, results)
	if err != nil {
		t.Fatal(err)
	}
	if ready, err = run.ReadyResultLocations(results); err != nil || !slices.Equal(ready, after) || slices.Contains(after, dead) {
		t.Fatalf("after the recompute: %v (%v), want %v, not worker %d", ready, err, after, dead)
	}
	if _, err := run.ReadyResultLocations([]int32{0}); err == nil {
		t.Error("a chunk op that is no result was located")
	}
	run.Release()
	if _, err := run.ReadyResultLocations(results); err == nil {
		t.Error("results located after Release")
	}
}
