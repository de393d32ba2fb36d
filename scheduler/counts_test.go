package scheduler

import (
	"testing"

	"github.com/phobos-tensor/phobos/protocol"
)

// TestCountsAtStepEnd checks that after every step a run's counts per
// state, per type and state, and the ops done agree with its ops' states,
// though the loop adds its changes to them once per step.
func TestCountsAtStepEnd(t *testing.T) {
	for _, workers := range []int{1, 3} {
		c := feedCore(workers, 2, 8)
		g := leavesAndReducers(60, 6)
		results := []int32{60, 61, 62, 63, 64, 65}
		s := &Scheduler{}
		r := newRun(s, 1, g, Prepare(g, results, c.slots), results)
		check := func() {
			t.Helper()
			var want [numStates]int64
			for _, st := range r.state {
				want[st]++
			}
			var byType [numStates]int64
			for _, tc := range r.TypeCounts() {
				for st, n := range tc.Counts {
					byType[st] += n
				}
			}
			for st := range numStates {
				if got := r.counts[st].Load(); got != want[st] || byType[st] != want[st] {
					t.Fatalf("%d workers: %d ops %v, counted %d, %d by type", workers, want[st], State(st), got, byType[st])
				}
			}
			done := int64(0)
			for _, st := range r.state {
				if st == Finished || st == Freed {
					done++
				}
			}
			if got := s.opsDone.Load(); got != done {
				t.Fatalf("%d workers: %d ops done, counted %d", workers, done, got)
			}
		}
		pump(t, c, r, c.Step(msgSubmit{run: r}), check)
		if !r.ended || r.err != nil {
			t.Fatalf("%d workers: run ended %v with %v", workers, r.ended, r.err)
		}
		c.Step(msgRelease{graph: r.id})
		check()
		if n := r.counts[Freed].Load(); n != int64(len(g.Nodes)) {
			t.Fatalf("%d workers: %d ops freed after the release, want all %d", workers, n, len(g.Nodes))
		}
	}
	// A started op reported running shows as Running at once.
	c := feedCore(1, 2, 8)
	g := leavesAndReducers(4, 1)
	r := newRun(nil, 1, g, Prepare(g, []int32{4}, c.slots), []int32{4})
	a := c.Step(msgSubmit{run: r})
	task := a.Sends[0].Tasks[0]
	c.Step(msgResult{res: protocol.Result{Key: task.Key, Attempt: task.Attempt, Worker: 0, Outcome: protocol.Started}})
	if n := r.Counts()[Running]; n != 1 {
		t.Fatalf("%d ops running after a start, want 1", n)
	}
}
