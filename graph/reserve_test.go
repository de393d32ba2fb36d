package graph_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestTileReservesItsNodes: sources, elementwise ops and reductions say how
// many chunk ops they add, so a W5-like graph is allocated at its size
// (once per tensor op), not grown by append with up to half of it spare.
func TestTileReservesItsNodes(t *testing.T) {
	x := tensor.Ones([]int{100_000}, tensor.Chunks(10)).Add(1).Sum()
	tg, _, err := tensor.Build(x)
	if err != nil {
		t.Fatal(err)
	}
	cg, _, err := graph.Tile(tg)
	if err != nil {
		t.Fatal(err)
	}
	n := cg.Len()
	if n < 10_000*3+3_333 || n > 10_000*3+3_340 {
		t.Fatalf("%d chunk ops, want 10,000 each of ones, add and partial sums, and about 3,333 combines", n)
	}
	if spare := cap(cg.Nodes) - n; spare > n/100 {
		t.Errorf("%d nodes with room for %d: %d spare", n, cap(cg.Nodes), spare)
	}
}
