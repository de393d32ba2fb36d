package graph_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestTileReservesItsNodes: sources, elementwise ops and reductions say how
// many chunk ops they add, so a W5-like graph is allocated at its size
// once, not grown (a copy of the whole graph) when an estimate falls short
// by even one combine of the reduction tree.
func TestTileReservesItsNodes(t *testing.T) {
	for _, chunks := range []int{1, 2, 5, 17, 1000, 12_345, 100_000} {
		x := tensor.Ones([]int{chunks * 10}, tensor.Chunks(10)).Add(1).Sum()
		tg, _, err := tensor.Build(x)
		if err != nil {
			t.Fatal(err)
		}
		cg, _, err := graph.Tile(tg)
		if err != nil {
			t.Fatal(err)
		}
		n := cg.Len()
		if n < 3*chunks || n > 3*chunks+chunks/3+20 {
			t.Fatalf("%d chunks: %d chunk ops, want a ones, an add and a partial sum per chunk and about a third as many combines", chunks, n)
		}
		if spare := cap(cg.Nodes) - n; spare > n/100+64 {
			t.Errorf("%d chunks: %d nodes with room for %d: %d spare", chunks, n, cap(cg.Nodes), spare)
		}
	}
}
