package scheduler

import (
	"context"
	"testing"
)

// Graphs at and around smallPrepare's bound (prepared on the event loop
// or off it) run to the end with every op but the result freed, their
// runs numbered apart; a cancelled context stops either before it runs.
func TestSmallGraphsPreparedOnTheLoop(t *testing.T) {
	s, _ := startFake(t, 2, Config{}, nil)
	seen := map[uint64]bool{}
	for _, leaves := range []int{1, 2, smallPrepare / 2, smallPrepare/2 + 1, smallPrepare, 4 * smallPrepare} {
		g, run := runTree(t, s, leaves)
		small := len(g.Nodes) <= smallPrepare
		if seen[uint64(run.ID())] {
			t.Errorf("%d ops (small %v): run id %d given twice", len(g.Nodes), small, run.ID())
		}
		seen[uint64(run.ID())] = true
		run.Release()
		g2, root := treeGraph(leaves)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if r, err := s.Submit(ctx, g2, []int32{root}); err == nil {
			t.Errorf("%d ops (small %v): submitted under a cancelled context as run %d", len(g2.Nodes), small, r.ID())
		}
	}
}
