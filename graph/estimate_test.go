package graph_test

import (
	"testing"

	"github.com/phobos-tensor/phobos/graph"
	"github.com/phobos-tensor/phobos/tensor"
)

// TestEstimateCoversTheTiling: the estimate tiling sizes a graph from is
// not below the ops it makes, for reductions over every axis named or not
// (a short estimate grows, and copies, the whole graph), and not far above.
func TestEstimateCoversTheTiling(t *testing.T) {
	cases := map[string]func(chunks int) *tensor.Tensor{
		"sum 1-d": func(c int) *tensor.Tensor {
			return tensor.Ones([]int{c * 10}, tensor.Chunks(10)).Add(1).Sum()
		},
		"sum axis 0 of 1-d": func(c int) *tensor.Tensor {
			return tensor.Ones([]int{c*10 + 3}, tensor.Chunks(10)).Add(1).Sum(tensor.Axis(0))
		},
		"max 2-d, all axes": func(c int) *tensor.Tensor {
			return tensor.Ones([]int{c * 2, 7}, tensor.Chunks(2, 3)).Mul(2).Max(tensor.Axis(0, 1))
		},
		"argmax flattened": func(c int) *tensor.Tensor {
			return tensor.Ones([]int{c * 10}, tensor.Chunks(10)).ArgMax()
		},
	}
	for name, build := range cases {
		for _, chunks := range []int{1, 2, 5, 17, 1000, 12_345} {
			tg, _, err := tensor.Build(build(chunks))
			if err != nil {
				t.Fatal(err)
			}
			est := graph.EstimateChunkOps(tg, 0)
			cg, _, err := graph.Tile(tg)
			if err != nil {
				t.Fatal(err)
			}
			if n := cg.Len(); est < n || est > n+n/10+16 {
				t.Errorf("%s, %d chunks: estimate %d for %d chunk ops", name, chunks, est, n)
			}
		}
	}
}
