package dashboard

import (
	"fmt"
	"testing"
)

// TestSummarise: a DAG is drawn op by op up to MaxDrawnOps, then one node
// per type, with the edges between types counted and those within a type
// left out.
func TestSummarise(t *testing.T) {
	chain := func(n int) (func(int) string, func(int) []int) {
		// a, b, a, b, ... each op reading the one before
		return func(i int) string { return []string{"a", "b"}[i%2] },
			func(i int) []int {
				if i == 0 {
					return nil
				}
				return []int{i - 1}
			}
	}
	typ, in := chain(MaxDrawnOps)
	d := Summarise(MaxDrawnOps, typ, in, nil, nil)
	if d.Summarised || len(d.Nodes) != MaxDrawnOps || len(d.Edges) != MaxDrawnOps-1 || d.Ops != MaxDrawnOps {
		t.Fatalf("%d ops: summarised %v, %d nodes, %d edges", MaxDrawnOps, d.Summarised, len(d.Nodes), len(d.Edges))
	}
	n := MaxDrawnOps + 1
	typ, in = chain(n)
	d = Summarise(n, typ, in, nil, nil)
	if !d.Summarised || len(d.Nodes) != 2 || d.Ops != int64(n) {
		t.Fatalf("%d ops: summarised %v, %d nodes", n, d.Summarised, len(d.Nodes))
	}
	got := fmt.Sprint(d.Edges[0].From, d.Edges[0].To, d.Edges[0].Count, d.Edges[1].From, d.Edges[1].To, d.Edges[1].Count)
	// n-1 edges alternate a->b (150 of them) and b->a (150)
	if want := fmt.Sprint(0, 1, n/2, 1, 0, (n-1)/2); len(d.Edges) != 2 || got != want {
		t.Errorf("edges %s, want %s", got, want)
	}
	// Edges within a type are not drawn.
	d = Summarise(n, func(int) string { return "same" }, in, nil, nil)
	if len(d.Nodes) != 1 || len(d.Edges) != 0 {
		t.Errorf("one type: %d nodes, %d edges", len(d.Nodes), len(d.Edges))
	}
}
